package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

// inlineRegion appends a copy of the ops of a one-block region whose
// arguments stand for args, and returns the values its
// iree_linalg_ext.yield yields.
func inlineRegion(y body, region *ir.Block, args ...*ir.Value) []*ir.Value {
	mapping := map[*ir.Value]*ir.Value{}
	for i, a := range region.Args {
		mapping[a] = args[i]
	}
	for _, o := range region.Ops {
		if o.Name == "iree_linalg_ext.yield" {
			var out []*ir.Value
			for _, v := range o.Operands {
				if m, ok := mapping[v]; ok {
					v = m
				}
				out = append(out, v)
			}
			return out
		}
		y.b.Append(ir.Clone(o, mapping))
	}
	return nil
}

// index appends linalg.index dim.
func (y body) index(dim int) *ir.Value {
	v := y.op("linalg.index", ir.IndexType{})
	v.Op.SetAttr("dim", ir.IntegerAttr{Value: int64(dim), Type: ir.I64})
	return v
}

// cmpi appends an integer comparison with the named predicate.
func (y body) cmpi(pred string, a, b *ir.Value) *ir.Value {
	v := y.op("arith.cmpi", ir.I1, a, b)
	for i, p := range arith.CmpIPredicates {
		if p == pred {
			v.Op.SetAttr("predicate", ir.IntegerAttr{Value: int64(i), Type: ir.I64})
		}
	}
	return v
}

// replaceDim returns the identity map over n+1 loops (the last, n, an
// extra reduction loop) with result d replaced by that loop.
func replaceDim(n, d int) *ir.AffineMap {
	ds := make([]int, n)
	for i := range ds {
		ds[i] = i
	}
	ds[d] = n
	return dimsMap(n+1, ds...)
}

// scan lowers iree_linalg_ext.scan as IREE's scalar implementation
// defines it (inclusive: out[0] = x[0], out[i] = f(out[i-1], x[i]);
// exclusive: out[0] = init, out[i] = f(out[i-1], x[i-1]); the
// accumulator ends as the last output) with one linalg.generic that
// recomputes each prefix: over the input's loops and an extra reduction
// loop k along the scanned dimension, out[i] folds x[k] in, in order of
// k, while k <= i (inclusive) or k < i (exclusive), its select keeping
// the steps in order. The accumulator is the output's last slice along
// the dimension. The work is quadratic in the scanned extent.
func (b builder) scan(op *ir.Operation) ([]*ir.Value, error) {
	in := linalgext.Ins(op)[0]
	out, acc := linalgext.Outs(op)[0], linalgext.Outs(op)[1]
	if len(op.Results) != 2 {
		return nil, ir.OpErrorf(op, "lowering of scan on memrefs is not supported yet")
	}
	it := in.Type.(*ir.TensorType)
	n := len(it.Shape)
	d64, _ := op.IntAttr("dimension")
	d := int(d64)
	inc, _ := op.Attr("inclusive").(ir.BoolAttr)
	et := arith.ElementType(out.Type)
	region := op.Regions[0].Blocks[0]
	var keep []int
	for i := 0; i < n; i++ {
		if i != d {
			keep = append(keep, i)
		}
	}
	red := make([]bool, n+1)
	red[n] = true
	ins := []*ir.Value{in}
	maps := []*ir.AffineMap{replaceDim(n, d)}
	if !inc.Value {
		ins = append(ins, acc)
		maps = append(maps, dimsMap(n+1, keep...))
	}
	outMap := identity(n)
	outMap.NumDims = n + 1
	maps = append(maps, outMap)
	res := b.generic(ins, out, maps, red, func(y body, args []*ir.Value) *ir.Value {
		x, cur := args[0], args[len(args)-1]
		i, k := y.index(d), y.index(n)
		zero := y.op("arith.constant", ir.IndexType{})
		zero.Op.SetAttr("value", ir.IndexAttr(0))
		first := y.cmpi("eq", k, zero)
		if inc.Value {
			v := y.op("arith.select", et, first, x, inlineRegion(y, region, cur, x)[0])
			return y.op("arith.select", et, y.cmpi("ule", k, i), v, cur)
		}
		from := y.op("arith.select", et, first, args[1], cur)
		v := inlineRegion(y, region, from, x)[0]
		return y.op("arith.select", et, y.cmpi("ult", k, i), v, from)
	})
	// The accumulator: the last slice along d (an inclusive scan of one
	// element leaves it as it was, as IREE's does).
	dims := b.dims(res)
	if dims[d].v == nil && dims[d].n == 1 && inc.Value {
		return []*ir.Value{res, acc}, nil
	}
	offsets, sizes := zeros(n), append([]size(nil), dims...)
	last := dims[d]
	if last.v == nil {
		offsets[d] = static(last.n - 1)
	} else {
		offsets[d] = size{n: ir.Dynamic, v: b.emit("arith.subi", []*ir.Value{last.v, b.index(1)}, []ir.Type{ir.IndexType{}}).Results[0]}
	}
	sizes[d] = static(1)
	return []*ir.Value{res, b.extractSlice(res, offsets, sizes, acc.Type)}, nil
}
