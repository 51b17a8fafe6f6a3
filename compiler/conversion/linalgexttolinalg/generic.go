package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

// body builds the scalar ops of a linalg.generic's body.
type body struct {
	b   *ir.Block
	pos ir.Pos
}

// op appends a one-result op of type t.
func (y body) op(name string, t ir.Type, operands ...*ir.Value) *ir.Value {
	o := ir.NewOp(name, operands, []ir.Type{t}, nil)
	o.Pos = y.pos
	y.b.Append(o)
	return o.Results[0]
}

// float returns a constant of float type t.
func (y body) float(v float64, t ir.Type) *ir.Value {
	o := ir.NewOp("arith.constant", nil, []ir.Type{t}, []ir.NamedAttr{{Name: "value", Value: ir.FloatAttr{Value: v, Type: t}}})
	o.Pos = y.pos
	y.b.Append(o)
	return o.Results[0]
}

// convert casts a float or integer scalar to float type t (integers as
// signed), as linalg's named ops do.
func (y body) convert(v *ir.Value, t ir.Type) *ir.Value {
	if ir.TypesEqual(v.Type, t) {
		return v
	}
	if _, ok := v.Type.(ir.IntegerType); ok {
		return y.op("arith.sitofp", t, v)
	}
	if floatBits(v.Type) < floatBits(t) {
		return y.op("arith.extf", t, v)
	}
	return y.op("arith.truncf", t, v)
}

func floatBits(t ir.Type) int {
	f, _ := t.(ir.FloatType)
	switch f.Name {
	case "f16", "bf16":
		return 16
	case "f32":
		return 32
	case "f64":
		return 64
	}
	return 8
}

// generic emits a linalg.generic over len(reduction) loops (true:
// reduction) with the given inputs and output, one map per operand (ins
// then out), and a body that fn fills and whose returned value is
// yielded.
func (b builder) generic(ins []*ir.Value, out *ir.Value, maps []*ir.AffineMap, reduction []bool, fn func(y body, args []*ir.Value) *ir.Value) *ir.Value {
	return b.generic2(ins, []*ir.Value{out}, maps, reduction, func(y body, args []*ir.Value) []*ir.Value {
		return []*ir.Value{fn(y, args)}
	})[0]
}

// generic2 is generic with several outputs, fn returning one value per
// output.
func (b builder) generic2(ins, outs []*ir.Value, maps []*ir.AffineMap, reduction []bool, fn func(y body, args []*ir.Value) []*ir.Value) []*ir.Value {
	var ms, its []ir.Attribute
	for _, m := range maps {
		ms = append(ms, ir.AffineMapAttr{Map: m})
	}
	for _, r := range reduction {
		it := "parallel"
		if r {
			it = "reduction"
		}
		its = append(its, ir.StringAttr{Value: it})
	}
	var rts []ir.Type
	for _, o := range outs {
		rts = append(rts, o.Type)
	}
	g := b.emit("linalg.generic", append(append([]*ir.Value(nil), ins...), outs...), rts,
		ir.NamedAttr{Name: "indexing_maps", Value: &ir.ArrayAttr{Elems: ms}},
		ir.NamedAttr{Name: "iterator_types", Value: &ir.ArrayAttr{Elems: its}},
		ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(ins), len(outs))})
	var ts []ir.Type
	for _, v := range append(append([]*ir.Value(nil), ins...), outs...) {
		ts = append(ts, arith.ElementType(v.Type))
	}
	blk := g.AddRegion().AddBlock(ts...)
	y := body{b: blk, pos: b.at.Pos}
	yield := ir.NewOp("linalg.yield", fn(y, blk.Args), nil, nil)
	yield.Pos = b.at.Pos
	blk.Append(yield)
	return g.Results
}

// dimsMap builds (d0..d{n-1}) -> (d{dims[0]}, ...).
func dimsMap(n int, dims ...int) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	for _, d := range dims {
		m.Results = append(m.Results, &ir.AffineExpr{Kind: ir.AffineDim, Pos: d})
	}
	return m
}

func identity(n int) *ir.AffineMap {
	ds := make([]int, n)
	for i := range ds {
		ds[i] = i
	}
	return dimsMap(n, ds...)
}
