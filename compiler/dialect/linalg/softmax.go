package linalg

import (
	"math"
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// linalg.softmax dimension(d) ins(%x : T) outs(%init : T) -> T is not a
// structured op: DecomposeSoftmax rewrites it, before dispatches are
// formed, into three linalg.generics as IREE decomposes it: the maximum
// along d (from the lowest finite value), the sum along d of exp(x - max), and
// exp(x - max) / sum.

func parseSoftmax(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ExpectKeyword("dimension"); err != nil {
		return nil, err
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	d, err := p.ParseInteger()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	op.SetAttr("dimension", ir.IntegerAttr{Value: d, Type: ir.I64})
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	ins, err := parseTypedOperands(p, "ins")
	if err != nil {
		return nil, err
	}
	outs, err := parseTypedOperands(p, "outs")
	if err != nil {
		return nil, err
	}
	op.Operands = append(append([]*ir.Value(nil), ins...), outs...)
	var results []ir.Type
	if p.Optional("->") {
		if results, err = p.ParseFunctionResultTypes(); err != nil {
			return nil, err
		}
	}
	return results, nil
}

func printSoftmax(p *ir.Printer, op *ir.Operation) {
	d, _ := op.IntAttr("dimension")
	p.WriteString(" dimension(" + strconv.FormatInt(d, 10) + ")")
	p.AttrDict(op, "dimension")
	if len(op.Operands) == 2 {
		printTypedOperands(p, "ins", op.Operands[:1])
		printTypedOperands(p, "outs", op.Operands[1:])
	}
	if len(op.Results) > 0 {
		p.WriteString(" -> ")
		p.Types([]ir.Type{op.Results[0].Type})
	}
}

func verifySoftmax(op *ir.Operation) error {
	if len(op.Operands) != 2 {
		return ir.OpErrorf(op, "expects one input and one output, found %d operands", len(op.Operands))
	}
	in, ok1 := op.Operands[0].Type.(*ir.TensorType)
	out, ok2 := op.Operands[1].Type.(*ir.TensorType)
	if !ok1 || !ok2 || in.Unranked || out.Unranked {
		return ir.OpErrorf(op, "input and output must be ranked tensors")
	}
	if _, ok := in.Elem.(ir.FloatType); !ok {
		return ir.OpErrorf(op, "element type must be a float, found '%s'", ir.TypeString(in.Elem))
	}
	if !ir.TypesEqual(in.Elem, out.Elem) || len(in.Shape) != len(out.Shape) {
		return ir.OpErrorf(op, "incompatible output shape: input '%s', output '%s'", ir.TypeString(in), ir.TypeString(out))
	}
	for i := range in.Shape {
		if in.Shape[i] != ir.Dynamic && out.Shape[i] != ir.Dynamic && in.Shape[i] != out.Shape[i] {
			return ir.OpErrorf(op, "incompatible output shape: input '%s', output '%s'", ir.TypeString(in), ir.TypeString(out))
		}
	}
	if d, _ := op.IntAttr("dimension"); d < 0 || int(d) >= len(in.Shape) {
		return ir.OpErrorf(op, "incorrect dimension specified: %d is outside rank %d", d, len(in.Shape))
	}
	if len(op.Results) != 1 || !ir.TypesEqual(op.Results[0].Type, out) {
		return ir.OpErrorf(op, "expects one result of the output's type '%s'", ir.TypeString(out))
	}
	return nil
}

// DecomposeSoftmax rewrites every linalg.softmax under root into
// linalg.fill and linalg.generic ops (see above) and returns how many it
// rewrote.
func DecomposeSoftmax(root *ir.Operation) (int, error) {
	var ops []*ir.Operation
	ir.Walk(root, func(o *ir.Operation) bool {
		if o.Name == "linalg.softmax" {
			ops = append(ops, o)
		}
		return true
	})
	for _, op := range ops {
		if err := decomposeSoftmax(root, op); err != nil {
			return 0, err
		}
	}
	return len(ops), nil
}

func decomposeSoftmax(root, op *ir.Operation) error {
	if err := verifySoftmax(op); err != nil {
		return err
	}
	x, init := op.Operands[0], op.Operands[1]
	tt := x.Type.(*ir.TensorType)
	et := tt.Elem
	dim64, _ := op.IntAttr("dimension")
	dim, n := int(dim64), len(tt.Shape)
	emit := func(o *ir.Operation) *ir.Operation {
		o.Pos, o.Loc = op.Pos, op.Loc
		op.Block.InsertBefore(op, o)
		return o
	}
	// The reduced tensor: x's shape without dim, sized by tensor.dim of
	// x where dynamic.
	red := &ir.TensorType{Elem: et}
	var dyn []*ir.Value
	var keep []int
	for i, s := range tt.Shape {
		if i == dim {
			continue
		}
		keep = append(keep, i)
		red.Shape = append(red.Shape, s)
		if s == ir.Dynamic {
			c := emit(ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(int64(i))}}))
			dyn = append(dyn, emit(ir.NewOp("tensor.dim", []*ir.Value{x, c.Results[0]}, []ir.Type{ir.IndexType{}}, nil)).Results[0])
		}
	}
	empty := emit(ir.NewOp("tensor.empty", dyn, []ir.Type{red}, nil)).Results[0]
	fill := func(v float64) *ir.Value {
		c := emit(ir.NewOp("arith.constant", nil, []ir.Type{et}, []ir.NamedAttr{{Name: "value", Value: ir.FloatAttr{Value: v, Type: et}}}))
		return emit(ir.NewOp("linalg.fill", []*ir.Value{c.Results[0], empty}, []ir.Type{red},
			[]ir.NamedAttr{{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1)}})).Results[0]
	}
	id, rowMap := identity(n), dimsMap(n, keep...)
	reduce, parallel := make([]ir.Attribute, n), make([]ir.Attribute, n)
	for i := range reduce {
		reduce[i], parallel[i] = ir.StringAttr{Value: Parallel}, ir.StringAttr{Value: Parallel}
	}
	reduce[dim] = ir.StringAttr{Value: Reduction}
	// generic builds a linalg.generic whose body gets the block arguments
	// and an emitter for scalar ops and returns the yielded value.
	generic := func(ins []*ir.Value, maps []*ir.AffineMap, its []ir.Attribute, out *ir.Value, body func(args []*ir.Value, add func(string, ...*ir.Value) *ir.Value) *ir.Value) *ir.Value {
		var ms []ir.Attribute
		for _, m := range maps {
			ms = append(ms, ir.AffineMapAttr{Map: m})
		}
		g := emit(ir.NewOp("linalg.generic", append(append([]*ir.Value(nil), ins...), out), []ir.Type{out.Type}, []ir.NamedAttr{
			{Name: "indexing_maps", Value: &ir.ArrayAttr{Elems: ms}},
			{Name: "iterator_types", Value: &ir.ArrayAttr{Elems: its}},
			{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(ins), 1)},
		}))
		var ts []ir.Type
		for range ins {
			ts = append(ts, et)
		}
		b := g.AddRegion().AddBlock(append(ts, et)...)
		add := func(name string, vs ...*ir.Value) *ir.Value {
			o := ir.NewOp(name, vs, []ir.Type{et}, nil)
			o.Pos = op.Pos
			b.Append(o)
			return o.Results[0]
		}
		y := ir.NewOp("linalg.yield", []*ir.Value{body(b.Args, add)}, nil, nil)
		y.Pos = op.Pos
		b.Append(y)
		return g.Results[0]
	}
	// The maximum starts from the type's lowest finite value (the same
	// results as -inf: a row of -inf gives NaN either way).
	lowest := map[string]float64{"f16": -65504, "bf16": -3.3895313892515355e38, "f32": -math.MaxFloat32, "f64": -math.MaxFloat64}[et.(ir.FloatType).Name]
	if lowest == 0 {
		return ir.OpErrorf(op, "element type '%s' is not supported by the softmax decomposition", ir.TypeString(et))
	}
	max := generic([]*ir.Value{x}, []*ir.AffineMap{id, rowMap}, reduce, fill(lowest),
		func(a []*ir.Value, add func(string, ...*ir.Value) *ir.Value) *ir.Value {
			return add("arith.maximumf", a[0], a[1])
		})
	sum := generic([]*ir.Value{x, max}, []*ir.AffineMap{id, rowMap, rowMap}, reduce, fill(0),
		func(a []*ir.Value, add func(string, ...*ir.Value) *ir.Value) *ir.Value {
			return add("arith.addf", add("math.exp", add("arith.subf", a[0], a[1])), a[2])
		})
	res := generic([]*ir.Value{x, max, sum}, []*ir.AffineMap{id, rowMap, rowMap, id}, parallel, init,
		func(a []*ir.Value, add func(string, ...*ir.Value) *ir.Value) *ir.Value {
			return add("arith.divf", add("math.exp", add("arith.subf", a[0], a[1])), a[2])
		})
	res.Name = op.Results[0].Name
	ir.ReplaceAllUsesWith(root, op.Results[0], res)
	op.Remove()
	return nil
}
