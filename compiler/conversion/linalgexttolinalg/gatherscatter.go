package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

// Gather reads its source at the indices it computes (tensor.extract in
// the generic's body, a direct read). Scatter writes at computed indices,
// which loop-nest kernels cannot (each writes an output element at its
// own index), so it becomes a search: each output element runs a
// reduction over the updates and keeps those whose coordinates equal its
// own. The work is the output's size times the searched extent.

// indexReads returns the operands and maps that read index k of the
// indices tensor for the batch loops batch (of a loop nest of numLoops),
// one per k: indices[batch..., k], or indices[batch...] when the tensor
// has no index dimension.
func indexReads(indices *ir.Value, numLoops int, batch []int, depth int) ([]*ir.Value, []*ir.AffineMap) {
	hasIndexDim := len(indices.Type.(*ir.TensorType).Shape) > len(batch)
	var vs []*ir.Value
	var ms []*ir.AffineMap
	for k := 0; k < depth; k++ {
		m := dimsMap(numLoops, batch...)
		if hasIndexDim {
			m.Results = append(m.Results, &ir.AffineExpr{Kind: ir.AffineConst, Value: int64(k)})
		}
		vs, ms = append(vs, indices), append(ms, m)
	}
	return vs, ms
}

// maskTrue returns a mask element as an i1 (an i8 is true when not zero).
func maskTrue(y body, m *ir.Value) *ir.Value {
	if it, ok := m.Type.(ir.IntegerType); ok && it.Width != 1 {
		zero := y.op("arith.constant", m.Type)
		zero.Op.SetAttr("value", ir.IntegerAttr{Value: 0, Type: m.Type})
		return y.cmpi("ne", m, zero)
	}
	return m
}

// gather lowers iree_linalg_ext.gather as its scalar implementation
// defines it: output[batch, slice] = source[starts], where the source
// dimension dimension_map[k] starts at indices[batch, k] (plus the slice
// index when it is one of the trailing slice dimensions) and the other
// trailing dimensions are the slice index; a false mask element keeps
// the output's batch element. It becomes a linalg.generic over the output
// that reads the source directly at those indices (tensor.extract, one
// read per element; dispatch formation clamps an index outside the
// source into it, where IREE leaves the result undefined).
func (b builder) gather(op *ir.Operation) (*ir.Value, error) {
	ins, out := linalgext.Ins(op), linalgext.Outs(op)[0]
	src, indices := ins[0], ins[1]
	dimMap, _ := op.Attr("dimension_map").(*ir.DenseArrayAttr)
	st, ot := src.Type.(*ir.TensorType), out.Type.(*ir.TensorType)
	depth := len(dimMap.Values)
	sliceRank := len(st.Shape) - depth
	batchRank := len(ot.Shape) - sliceRank
	if sliceRank < 0 || batchRank < 0 {
		return nil, ir.OpErrorf(op, "the output '%s' does not fit a source '%s' indexed %d deep", ir.TypeString(ot), ir.TypeString(st), depth)
	}
	nOut := len(ot.Shape)
	indexOf := map[int]int{} // source dimension -> its position k in the indices
	for k, d := range dimMap.Values {
		if d < 0 || int(d) >= len(st.Shape) {
			return nil, ir.OpErrorf(op, "dimension_map %v names a dimension outside the source '%s'", dimMap.Values, ir.TypeString(st))
		}
		if _, ok := indexOf[int(d)]; ok {
			return nil, ir.OpErrorf(op, "dimension_map %v names a dimension twice", dimMap.Values)
		}
		indexOf[int(d)] = k
	}
	for d := 0; d < depth; d++ {
		if _, ok := indexOf[d]; !ok {
			return nil, ir.OpErrorf(op, "source dimension %d is neither indexed nor a slice dimension", d)
		}
	}
	batch := make([]int, batchRank)
	for i := range batch {
		batch[i] = i
	}
	gins, maps := indexReads(indices, nOut, batch, depth)
	if len(ins) == 3 {
		gins, maps = append(gins, ins[2]), append(maps, dimsMap(nOut, batch...))
	}
	et := arith.ElementType(out.Type)
	return b.generic(gins, out, append(maps, identity(nOut)), make([]bool, nOut), func(y body, args []*ir.Value) *ir.Value {
		at := make([]*ir.Value, len(st.Shape))
		for d := range st.Shape {
			var slice *ir.Value
			if d >= depth {
				slice = y.index(batchRank + d - depth)
			}
			k, indexed := indexOf[d]
			switch {
			case indexed && slice != nil:
				at[d] = y.op("arith.addi", ir.IndexType{}, castInt(y, args[k], ir.IndexType{}), slice)
			case indexed:
				at[d] = castInt(y, args[k], ir.IndexType{})
			default:
				at[d] = slice
			}
		}
		v := y.op("tensor.extract", et, append([]*ir.Value{src}, at...)...)
		if len(ins) == 3 {
			return y.op("arith.select", et, maskTrue(y, args[depth]), v, args[len(args)-1])
		}
		return v
	}), nil
}

// scatterRanks returns a scatter's batch and update-slice ranks. The
// current rule (IREE since 2024) makes the slice the original's
// dimensions after the indexed ones (slice rank = original rank - index
// depth); the Dec 2022 one makes the batch the indices' leading
// dimensions (indices are [batch..., depth]) and the slice the rest of
// the update, laid over the original's trailing dimensions. The current
// rule is taken when the indices' shape agrees with it (their last
// dimension is the depth, or is left out for a depth of 1).
func scatterRanks(ut, it, ot *ir.TensorType, depth int) (batchRank, sliceRank int, ok bool) {
	sliceRank = len(ot.Shape) - depth
	batchRank = len(ut.Shape) - sliceRank
	if batchRank >= 0 && sliceRank >= 0 && (len(it.Shape) == batchRank && depth == 1 || len(it.Shape) == batchRank+1 && it.Shape[batchRank] == int64(depth)) &&
		sameBatch(ut, it, batchRank) {
		return batchRank, sliceRank, true
	}
	batchRank = len(it.Shape) - 1
	sliceRank = len(ut.Shape) - batchRank
	ok = batchRank >= 0 && sliceRank >= 0 && sliceRank <= len(ot.Shape) && sameBatch(ut, it, batchRank) &&
		(it.Shape[batchRank] == int64(depth) || it.Shape[batchRank] == ir.Dynamic)
	return batchRank, sliceRank, ok
}

// sameBatch reports whether the updates and indices agree on their
// leading batchRank dimensions (where both are static).
func sameBatch(ut, it *ir.TensorType, batchRank int) bool {
	for i := 0; i < batchRank; i++ {
		if i >= len(ut.Shape) || it.Shape[i] != ut.Shape[i] && it.Shape[i] != ir.Dynamic && ut.Shape[i] != ir.Dynamic {
			return false
		}
	}
	return true
}

// scatter lowers iree_linalg_ext.scatter as its scalar implementation
// defines it: for every update element in order, original[starts] =
// region(update, original[starts]), where the update's slice index gives
// the original's trailing dimensions and original dimension
// dimension_map[k] is indices[batch, k] (added to the slice index when
// that dimension is also a slice dimension); a false mask element skips
// its updates. The kernel runs, for each original element, a reduction
// over the update batch (and over the slice positions of dimensions that
// are both indexed and sliced) that applies the region where the indices
// point at it.
func (b builder) scatter(op *ir.Operation) (*ir.Value, error) {
	ins, orig := linalgext.Ins(op), linalgext.Outs(op)[0]
	upd, indices := ins[0], ins[1]
	dimMap, _ := op.Attr("dimension_map").(*ir.DenseArrayAttr)
	ut, it, ot := upd.Type.(*ir.TensorType), indices.Type.(*ir.TensorType), orig.Type.(*ir.TensorType)
	depth := len(dimMap.Values)
	batchRank, sliceRank, ok := scatterRanks(ut, it, ot, depth)
	if !ok {
		return nil, ir.OpErrorf(op, "updates '%s' and indices '%s' do not fit an original '%s' indexed %d deep", ir.TypeString(ut), ir.TypeString(it), ir.TypeString(ot), depth)
	}
	if len(op.Results) != 1 {
		return nil, ir.OpErrorf(op, "lowering of scatter on memrefs is not supported yet")
	}
	nOrig := len(ot.Shape)
	firstSlice := nOrig - sliceRank
	indexed := map[int]bool{}
	for _, d := range dimMap.Values {
		if d < 0 || int(d) >= nOrig || indexed[int(d)] {
			return nil, ir.OpErrorf(op, "dimension_map %v must name distinct dimensions of the original '%s'", dimMap.Values, ir.TypeString(ot))
		}
		indexed[int(d)] = true
	}
	for d := 0; d < firstSlice; d++ {
		if !indexed[d] {
			return nil, ir.OpErrorf(op, "original dimension %d is neither indexed nor a slice dimension", d)
		}
	}
	// Loops: the original's dimensions, the update batch, then a search
	// loop for each dimension that is both indexed and sliced.
	numLoops := nOrig + batchRank
	search := map[int]int{}
	for d := firstSlice; d < nOrig; d++ {
		if indexed[d] {
			search[d] = numLoops
			numLoops++
		}
	}
	batch := make([]int, batchRank)
	for i := range batch {
		batch[i] = nOrig + i
	}
	updMap := dimsMap(numLoops, batch...)
	for d := firstSlice; d < nOrig; d++ {
		if l, ok := search[d]; ok {
			updMap.Results = append(updMap.Results, dim(l))
		} else {
			updMap.Results = append(updMap.Results, dim(d))
		}
	}
	idxV, idxM := indexReads(indices, numLoops, batch, depth)
	gins := append([]*ir.Value{upd}, idxV...)
	maps := append([]*ir.AffineMap{updMap}, idxM...)
	if len(ins) == 3 {
		gins, maps = append(gins, ins[2]), append(maps, dimsMap(numLoops, batch...))
	}
	outMap := identity(nOrig)
	outMap.NumDims = numLoops
	red := make([]bool, numLoops)
	for l := nOrig; l < numLoops; l++ {
		red[l] = true
	}
	et := arith.ElementType(orig.Type)
	region := op.Regions[0].Blocks[0]
	return b.generic(gins, orig, append(maps, outMap), red, func(y body, args []*ir.Value) *ir.Value {
		hit := y.bool(true)
		for k, d := range dimMap.Values {
			want := castInt(y, args[1+k], ir.IndexType{})
			if l, ok := search[int(d)]; ok {
				want = y.op("arith.addi", ir.IndexType{}, want, y.index(l))
			}
			hit = y.op("arith.andi", ir.I1, hit, y.cmpi("eq", y.index(int(d)), want))
		}
		if len(ins) == 3 {
			hit = y.op("arith.andi", ir.I1, hit, maskTrue(y, args[1+depth]))
		}
		cur := args[len(args)-1]
		return y.op("arith.select", et, hit, inlineRegion(y, region, args[0], cur)[0], cur)
	}), nil
}
