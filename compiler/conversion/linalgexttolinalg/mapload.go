package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

// mapLoad lowers iree_linalg_ext.map_load: for every output index the
// region yields a source index and a padding value, and the output
// element is the source element there, or the padding where the index is
// outside the source. It becomes a linalg.generic over the output whose
// body is the region (its index arguments replaced by linalg.index),
// then a bounds test and a tensor.extract of the source at the yielded
// index: one direct read per element (dispatch formation turns the
// extract into a load of the source's binding).
func (b builder) mapLoad(op *ir.Operation) (*ir.Value, error) {
	src, dst := op.Operands[0], op.Operands[1]
	st, ok1 := src.Type.(*ir.TensorType)
	dt, ok2 := dst.Type.(*ir.TensorType)
	if !ok1 || !ok2 || len(op.Results) != 1 || st.Unranked || dt.Unranked {
		return nil, ir.OpErrorf(op, "lowering of map_load is supported on ranked tensors only")
	}
	extents := b.dims(src)
	n := len(dt.Shape)
	et := arith.ElementType(dt)
	return b.generic(nil, dst, []*ir.AffineMap{identity(n)}, make([]bool, n), func(y body, args []*ir.Value) *ir.Value {
		idx := make([]*ir.Value, n)
		for d := range idx {
			idx[d] = y.index(d)
		}
		yielded := inlineRegion(y, op.Regions[0].Blocks[0], idx...)
		at, pad := yielded[:len(yielded)-1], yielded[len(yielded)-1]
		inside := y.bool(true)
		for d, i := range at {
			var size *ir.Value
			if extents[d].v != nil {
				size = extents[d].v // a host value; formation passes it in
			} else {
				size = y.op("arith.constant", ir.IndexType{})
				size.Op.SetAttr("value", ir.IndexAttr(extents[d].n))
			}
			zero := y.op("arith.constant", ir.IndexType{})
			zero.Op.SetAttr("value", ir.IndexAttr(0))
			inside = y.op("arith.andi", ir.I1, inside, y.cmpi("sge", i, zero))
			inside = y.op("arith.andi", ir.I1, inside, y.cmpi("slt", i, size))
		}
		v := y.op("tensor.extract", et, append([]*ir.Value{src}, at...)...)
		return y.op("arith.select", et, inside, v, pad)
	}), nil
}

// mapStore lowers iree_linalg_ext.map_store: for every input index the
// region yields an output index and a mask, and the input element is
// written there where the mask is true; other output elements keep the
// output's values. Loop-nest kernels write each output element at its
// own index, so the store becomes a search: for each output element a
// reduction over the input's indices evaluates the region and keeps the
// last input element that maps onto it. The work is the output's size
// times the input's (a scatter; see gatherscatter.go).
func (b builder) mapStore(op *ir.Operation) (*ir.Value, error) {
	src, dst := op.Operands[0], op.Operands[1]
	st, ok1 := src.Type.(*ir.TensorType)
	dt, ok2 := dst.Type.(*ir.TensorType)
	if !ok1 || !ok2 || len(op.Results) != 1 || st.Unranked || dt.Unranked {
		return nil, ir.OpErrorf(op, "lowering of map_store is supported on ranked tensors only")
	}
	no, ni := len(dt.Shape), len(st.Shape)
	loops := no + ni
	inMap := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
	for d := 0; d < ni; d++ {
		inMap.Results = append(inMap.Results, dim(no+d))
	}
	outMap := identity(no)
	outMap.NumDims = loops
	red := make([]bool, loops)
	for l := no; l < loops; l++ {
		red[l] = true
	}
	et := arith.ElementType(dt)
	return b.generic([]*ir.Value{src}, dst, []*ir.AffineMap{inMap, outMap}, red, func(y body, args []*ir.Value) *ir.Value {
		idx := make([]*ir.Value, ni)
		for d := range idx {
			idx[d] = y.index(no + d)
		}
		yielded := inlineRegion(y, op.Regions[0].Blocks[0], idx...)
		at, mask := yielded[:len(yielded)-1], yielded[len(yielded)-1]
		hit := mask
		for d, i := range at {
			hit = y.op("arith.andi", ir.I1, hit, y.cmpi("eq", i, y.index(d)))
		}
		return y.op("arith.select", et, hit, args[0], args[1])
	}), nil
}
