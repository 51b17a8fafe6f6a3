package loopnest

import (
	"fmt"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/dialect/tensor"
	"github.com/goiree/goiree/compiler/ir"
)

// sliceMap returns the map from the loops over a slice's (possibly
// rank-reduced) type t to the sliced tensor's indices: offset + stride *
// loop, or the offset for a unit dimension t drops. Dynamic offsets and
// strides are refused.
func sliceMap(op *ir.Operation, t *ir.TensorType) (*ir.AffineMap, error) {
	offs, sizes, strides := tensor.SliceParams(op)
	for d := range offs {
		if offs[d] == tensor.DynamicIndex || strides[d] == tensor.DynamicIndex {
			return nil, ir.OpErrorf(op, "dynamic offsets and strides (dimension %d) are not supported yet; only sizes may be dynamic", d)
		}
	}
	red := tensor.ReducedDims(sizes, t)
	m := &ir.AffineMap{NumDims: len(t.Shape), Results: []*ir.AffineExpr{}}
	for d := range offs {
		m.Results = append(m.Results, tensor.Strided(red[d], offs[d], strides[d]))
	}
	return m, nil
}

// wholeSlice reports whether a slice op with slice type t covers all of
// the sliced tensor type full.
func wholeSlice(op *ir.Operation, t, full *ir.TensorType) bool {
	offs, sizes, strides := tensor.SliceParams(op)
	whole := ir.TypesEqual(t, full)
	for d := range offs {
		whole = whole && offs[d] == 0 && strides[d] == 1 && sizes[d] == full.Shape[d] && full.Shape[d] != ir.Dynamic
	}
	return whole
}

// copyKernel is a kernel over the elements of the slice type t, with the
// given input and output maps, and its body returning the input element.
func copyKernel(name string, t *ir.TensorType, in, out Operand, pos ir.Pos) (*Kernel, *ir.Operation) {
	rank := len(t.Shape)
	its := make([]string, rank)
	for i := range its {
		its[i] = "parallel"
	}
	k := &Kernel{
		Body:      name + "_body",
		Ranges:    append([]int64{}, t.Shape...),
		Iterators: its,
		Inputs:    []Operand{in},
		Outputs:   []Operand{out},
	}
	ft := &ir.FunctionType{}
	for i := 0; i < rank; i++ {
		ft.Inputs = append(ft.Inputs, ir.IndexType{})
	}
	ft.Inputs = append(ft.Inputs, in.Type.Elem, out.Type.Elem)
	ft.Results = []ir.Type{out.Type.Elem}
	body := ir.NewOp("func.func", nil, nil, []ir.NamedAttr{
		{Name: "sym_visibility", Value: ir.StringAttr{Value: "private"}},
		{Name: "sym_name", Value: ir.StringAttr{Value: k.Body}},
		{Name: "function_type", Value: ir.TypeAttr{Type: ft}},
	})
	b := body.AddRegion().AddBlock(ft.Inputs...)
	for i := 0; i < rank; i++ {
		b.Args[i].Name = fmt.Sprintf("d%d", i)
	}
	b.Args[rank].Name, b.Args[rank+1].Name = "in", "out"
	ret := ir.NewOp("func.return", []*ir.Value{b.Args[rank]}, nil, nil)
	ret.Pos = pos
	b.Append(ret)
	return k, body
}

func identityMap(n int) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	for i := 0; i < n; i++ {
		m.Results = append(m.Results, &ir.AffineExpr{Kind: ir.AffineDim, Pos: i})
	}
	return m
}

// forward replaces op's result by v (a slice that is all of its tensor).
func forward(fn, op *ir.Operation, v *ir.Value) {
	ir.ReplaceAllUsesWith(fn, op.Results[0], v)
	op.Remove()
}

// formExtractSlice dispatches a tensor.extract_slice as a kernel over the
// result's elements that reads the source at offset + stride * index.
func formExtractSlice(module, fn, op *ir.Operation, name string, targets []*hal.ExecutableTargetAttr) (bool, error) {
	src := op.Operands[0]
	st, ok1 := src.Type.(*ir.TensorType)
	rt, ok2 := op.Results[0].Type.(*ir.TensorType)
	if !ok1 || !ok2 || st.Unranked || rt.Unranked {
		return false, ir.OpErrorf(op, "slices of unranked tensors are not supported yet")
	}
	if wholeSlice(op, rt, st) {
		forward(fn, op, src)
		return false, nil
	}
	in, err := sliceMap(op, rt)
	if err != nil {
		return false, err
	}
	// The result is a new tensor whose dynamic sizes are the size values
	// of the dimensions it keeps.
	_, sizes, _ := tensor.SliceParams(op)
	red := tensor.ReducedDims(sizes, rt)
	var dyn []*ir.Value
	next := 0
	for d, n := range sizes {
		if n == tensor.DynamicIndex {
			if red[d] >= 0 {
				dyn = append(dyn, ir.Segment(op, 2)[next])
			}
			next++
		}
	}
	e := ir.NewOp("tensor.empty", dyn, []ir.Type{rt}, nil)
	e.Pos = op.Pos
	op.Block.InsertBefore(op, e)
	// The source is read in part: a dynamic slice size may be shorter
	// than the source dimension it starts at offset 0 in.
	k, body := copyKernel(name, rt, Operand{Type: st, Map: in, Partial: true}, Operand{Type: rt, Map: identityMap(len(rt.Shape))}, op.Pos)
	return true, emitDispatch(module, fn, op, name, targets, k, body, dispatchValues{
		ins: []*ir.Value{src}, outs: []*ir.Value{e.Results[0]}, tied: []bool{false},
	})
}

// formInsertSlice dispatches a tensor.insert_slice as a kernel over the
// source's elements that stores each one into the destination at offset +
// stride * index. The dispatch's result is tied to the destination: the
// kernel writes into the destination's buffer in place (host code copies
// it first when the destination is still needed), so the elements outside
// the slice keep their values.
func formInsertSlice(module, fn, op *ir.Operation, name string, targets []*hal.ExecutableTargetAttr) (bool, error) {
	src, dest := op.Operands[0], op.Operands[1]
	st, ok1 := src.Type.(*ir.TensorType)
	dt, ok2 := dest.Type.(*ir.TensorType)
	if !ok1 || !ok2 || st.Unranked || dt.Unranked {
		return false, ir.OpErrorf(op, "slices of unranked tensors are not supported yet")
	}
	if wholeSlice(op, st, dt) {
		// The slice is all of the destination: the result is the source.
		forward(fn, op, src)
		return false, nil
	}
	out, err := sliceMap(op, st)
	if err != nil {
		return false, err
	}
	k, body := copyKernel(name, st, Operand{Type: st, Map: identityMap(len(st.Shape))}, Operand{Type: dt, Map: out, Partial: true}, op.Pos)
	return true, emitDispatch(module, fn, op, name, targets, k, body, dispatchValues{
		ins: []*ir.Value{src}, outs: []*ir.Value{dest}, tied: []bool{true},
	})
}
