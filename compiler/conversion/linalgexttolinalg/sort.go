package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

// sort lowers iree_linalg_ext.sort to a stable sort by ranks. It orders
// what the comparator orders as IREE's reference bubble sort does; equal
// elements keep their input order (the reference swaps equal neighbours,
// so their order there depends on the sweeps). A reduction counts,
// for each element i along the dimension, the elements j that come
// before it (the comparator holds for (j, i), or j < i and it holds for
// neither order), and for each output a second reduction picks, for each
// position p, the element whose rank is p. The comparator reads one
// (lhs, rhs) pair of elements per output. The work is quadratic in the
// sorted extent.
func (b builder) sort(op *ir.Operation) ([]*ir.Value, error) {
	outs := linalgext.Outs(op)
	if len(op.Results) != len(outs) {
		return nil, ir.OpErrorf(op, "lowering of sort on memrefs is not supported yet")
	}
	n := len(outs[0].Type.(*ir.TensorType).Shape)
	d64, _ := op.IntAttr("dimension")
	d := int(d64)
	region := op.Regions[0].Blocks[0]
	i32 := ir.IntegerType{Width: 32}
	at := identity(n)
	at.NumDims = n + 1
	other := replaceDim(n, d)
	red := make([]bool, n+1)
	red[n] = true
	// rank[i] = the number of elements that come before element i.
	var ins []*ir.Value
	var maps []*ir.AffineMap
	for _, o := range outs {
		ins = append(ins, o, o)
		maps = append(maps, at, other)
	}
	zero := b.emit("arith.constant", nil, []ir.Type{i32}, ir.NamedAttr{Name: "value", Value: ir.IntegerAttr{Value: 0, Type: i32}}).Results[0]
	ranks := b.generic(ins, b.fill(zero, b.empty(b.dims(outs[0]), i32)), append(maps, at), red, func(y body, args []*ir.Value) *ir.Value {
		var ji, ij []*ir.Value
		for k := 0; k+1 < len(args); k += 2 {
			ji = append(ji, args[k+1], args[k])
			ij = append(ij, args[k], args[k+1])
		}
		jFirst := inlineRegion(y, region, ji...)[0]
		iFirst := inlineRegion(y, region, ij...)[0]
		tie := y.op("arith.andi", ir.I1, y.cmpi("ult", y.index(n), y.index(d)), y.op("arith.xori", ir.I1, iFirst, y.bool(true)))
		before := y.op("arith.ori", ir.I1, jFirst, tie)
		one := y.op("arith.extui", i32, before)
		return y.op("arith.addi", i32, args[len(args)-1], one)
	})
	// out[p] = the element whose rank is p.
	var res []*ir.Value
	for _, o := range outs {
		et := arith.ElementType(o.Type)
		res = append(res, b.generic([]*ir.Value{ranks, o}, b.empty(b.dims(o), et), []*ir.AffineMap{other, other, at}, red, func(y body, args []*ir.Value) *ir.Value {
			p := y.op("arith.index_cast", i32, y.index(d))
			return y.op("arith.select", et, y.cmpi("eq", args[0], p), args[1], args[2])
		}))
	}
	return res, nil
}

// bool appends an i1 constant.
func (y body) bool(v bool) *ir.Value {
	c := y.op("arith.constant", ir.I1)
	n := int64(0)
	if v {
		n = 1
	}
	c.Op.SetAttr("value", ir.IntegerAttr{Value: n, Type: ir.I1})
	return c
}
