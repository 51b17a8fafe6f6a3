package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
)

// tiles returns r's tile sizes, static or the operands that give them.
func tiles(r *linalg.Relayout) []size {
	out := make([]size, len(r.StaticTiles))
	next := 0
	for j, t := range r.StaticTiles {
		if t == linalg.DynamicTile {
			out[j] = size{n: ir.Dynamic, v: r.TileValues[next]}
			next++
		} else {
			out[j] = static(t)
		}
	}
	return out
}

// outerPos returns, for each unpacked dimension, the packed outer
// dimension that counts its tiles.
func outerPos(r *linalg.Relayout, n int) []int {
	pos := make([]int, n)
	for q := 0; q < n; q++ {
		pos[r.OuterDim(q)] = q
	}
	return pos
}

// pack lowers a pack as MLIR's lowerPack does: the source is padded to
// whole tiles (a fill of the padding value with the source inserted at
// the origin), each tiled dimension is split into (tiles, tile) by
// tensor.expand_shape, and linalg.transpose moves the outer dimensions
// into outer_dims_perm's order and the tile dimensions to the end,
// writing the destination. The number of tiles of each dimension is the
// destination's.
func (b builder) pack(r *linalg.Relayout) *ir.Value {
	st := r.Source.Type.(*ir.TensorType)
	n := len(st.Shape)
	srcDims := b.dims(r.Source)
	destDims := b.dims(r.Dest)
	ts := tiles(r)
	pos := outerPos(r, n)
	padded := append([]size(nil), srcDims...)
	needPad := false
	for j, d := range r.InnerDimsPos {
		padded[d] = b.mul(destDims[pos[d]], ts[j])
		if padded[d].v != nil || srcDims[d].v != nil || padded[d].n != srcDims[d].n {
			needPad = true
		}
	}
	x := r.Source
	// Without a padding value MLIR requires whole tiles (the verifier
	// checks static sizes; dynamic ones are the program's promise), so the
	// source is split as it is.
	if needPad && r.Padding != nil {
		filled := b.fill(r.Padding, b.empty(padded, st.Elem))
		x = b.insertSlice(r.Source, filled, zeros(n), srcDims)
	}
	var groups [][]int
	var expanded []size
	outerAt := make([]int, n)
	tileAt := make([]int, len(ts))
	for d := 0; d < n; d++ {
		outerAt[d] = len(expanded)
		if j := r.TileOf(d); j >= 0 {
			tileAt[j] = len(expanded) + 1
			groups = append(groups, []int{len(expanded), len(expanded) + 1})
			expanded = append(expanded, destDims[pos[d]], ts[j])
			continue
		}
		groups = append(groups, []int{len(expanded)})
		expanded = append(expanded, padded[d])
	}
	e := b.expandShape(x, groups, expanded)
	var perm []int
	for q := 0; q < n; q++ {
		perm = append(perm, outerAt[r.OuterDim(q)])
	}
	perm = append(perm, tileAt...)
	return b.transpose(e, r.Dest, perm)
}

// unpack is pack backwards: linalg.transpose puts each tile dimension
// after its outer dimension, tensor.collapse_shape merges the pairs, and
// tensor.extract_slice drops what lies beyond the destination's extents
// (the padding of the last tiles).
func (b builder) unpack(r *linalg.Relayout) *ir.Value {
	dt := r.Dest.Type.(*ir.TensorType)
	n := len(dt.Shape)
	srcDims := b.dims(r.Source)
	ts := tiles(r)
	pos := outerPos(r, n)
	var groups [][]int
	var expanded []size
	var perm []int
	for d := 0; d < n; d++ {
		g := []int{len(expanded)}
		expanded = append(expanded, srcDims[pos[d]])
		perm = append(perm, pos[d])
		if j := r.TileOf(d); j >= 0 {
			g = append(g, len(expanded))
			t := ts[j]
			if t.v != nil && srcDims[n+j].v == nil {
				t = srcDims[n+j] // the packed type knows the tile statically
			}
			expanded = append(expanded, t)
			perm = append(perm, n+j)
		}
		groups = append(groups, g)
	}
	t := b.transpose(r.Source, b.empty(expanded, dt.Elem), perm)
	c := b.collapseShape(t, groups)
	if ir.TypesEqual(c.Type, dt) && ir.NumDynamicDims(dt) == 0 {
		return c
	}
	return b.extractSlice(c, zeros(n), b.dims(r.Dest), dt)
}
