package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

// The Winograd F(6x6, 3x3) transforms of Lavin and Gray, with the
// interpolation points 0, ±1, ±2, ±1/2 and infinity that IREE uses: an
// 8x8 input tile d becomes B^T d B, and an 8x8 tile m of the Winograd
// domain becomes the 6x6 output tile A^T m A. B is winogradBT transposed
// and A is winogradAT transposed, so only these two are tabulated.
var winogradBT = [8][8]float64{
	{1, 0, -21. / 4, 0, 21. / 4, 0, -1, 0},
	{0, 1, 1, -17. / 4, -17. / 4, 1, 1, 0},
	{0, -1, 1, 17. / 4, -17. / 4, -1, 1, 0},
	{0, 1. / 2, 1. / 4, -5. / 2, -5. / 4, 2, 1, 0},
	{0, -1. / 2, 1. / 4, 5. / 2, -5. / 4, -2, 1, 0},
	{0, 2, 4, -5. / 2, -5, 1. / 2, 1, 0},
	{0, -2, 4, 5. / 2, -5, -1. / 2, 1, 0},
	{0, -1, 0, 21. / 4, 0, -21. / 4, 0, 1},
}

var winogradAT = [6][8]float64{
	{1, 1, 1, 1, 1, 1, 1, 0},
	{0, 1, -1, 2, -2, 1. / 2, -1. / 2, 0},
	{0, 1, 1, 4, 4, 1. / 4, 1. / 4, 0},
	{0, 1, -1, 8, -8, 1. / 8, -1. / 8, 0},
	{0, 1, 1, 16, 16, 1. / 16, 1. / 16, 0},
	{0, 1, -1, 32, -32, 1. / 32, -1. / 32, 1},
}

// table emits rows as an arith.constant tensor of element type et.
func (b builder) table(rows [][]float64, et ir.Type) *ir.Value {
	tt := &ir.TensorType{Shape: []int64{int64(len(rows)), int64(len(rows[0]))}, Elem: et}
	var elems []ir.Attribute
	for _, r := range rows {
		for _, v := range r {
			elems = append(elems, ir.FloatAttr{Value: v})
		}
	}
	d := &ir.DenseAttr{Type: tt, Elements: elems, Nesting: []int{len(rows), len(rows[0])}}
	return b.emit("arith.constant", nil, []ir.Type{tt}, ir.NamedAttr{Name: "value", Value: d}).Results[0]
}

func dim(i int) *ir.AffineExpr { return &ir.AffineExpr{Kind: ir.AffineDim, Pos: i} }

// strided is d_outer * 6 + d_inner: a position inside a tile of six.
func strided(outer, inner int) *ir.AffineExpr {
	return &ir.AffineExpr{Kind: ir.AffineAdd,
		LHS: &ir.AffineExpr{Kind: ir.AffineMul, LHS: dim(outer), RHS: &ir.AffineExpr{Kind: ir.AffineConst, Value: 6}},
		RHS: dim(inner)}
}

// winogradLayout checks a winograd transform's attributes and static
// shapes and returns the image's batch, channel, height and width
// dimensions (the two not in image_dimensions are batch then channel).
func winogradLayout(op *ir.Operation, image *ir.TensorType) (n, c, h, w int, err error) {
	ts, _ := op.IntAttr("output_tile_size")
	ks, _ := op.IntAttr("kernel_size")
	if ts != 6 || ks != 3 {
		return 0, 0, 0, 0, ir.OpErrorf(op, "only output_tile_size(6) kernel_size(3) is supported, found %d and %d", ts, ks)
	}
	in, out := linalgext.Ins(op)[0].Type, linalgext.Outs(op)[0].Type
	for _, t := range []ir.Type{in, out} {
		tt, ok := t.(*ir.TensorType)
		if !ok || ir.NumDynamicDims(tt) > 0 {
			return 0, 0, 0, 0, ir.OpErrorf(op, "lowering needs statically shaped tensors, found '%s'", ir.TypeString(t))
		}
		if _, ok := tt.Elem.(ir.FloatType); !ok {
			return 0, 0, 0, 0, ir.OpErrorf(op, "lowering needs float elements, found '%s'", ir.TypeString(t))
		}
	}
	if len(image.Shape) != 4 {
		return 0, 0, 0, 0, ir.OpErrorf(op, "the image must have rank 4, found '%s'", ir.TypeString(image))
	}
	img, _ := op.Attr("image_dimensions").(*ir.DenseArrayAttr)
	h, w = int(img.Values[0]), int(img.Values[1])
	if h < 0 || w <= h || w > 3 {
		return 0, 0, 0, 0, ir.OpErrorf(op, "image_dimensions %v must be two increasing dimensions of the rank-4 image", img.Values)
	}
	var rest []int
	for d := 0; d < 4; d++ {
		if d != h && d != w {
			rest = append(rest, d)
		}
	}
	return rest[0], rest[1], h, w, nil
}

// winogradInput lowers winograd.input_transform: the image is padded with
// zeros to whole overlapping 8x8 tiles (stride 6), and two contractions
// compute B^T d B for every tile into the [8, 8, N, tH, tW, C] output.
func (b builder) winogradInput(op *ir.Operation) (*ir.Value, error) {
	in, out := linalgext.Ins(op)[0], linalgext.Outs(op)[0]
	it, ot := in.Type.(*ir.TensorType), out.Type.(*ir.TensorType)
	n, c, h, w, err := winogradLayout(op, it)
	if err != nil {
		return nil, err
	}
	if len(ot.Shape) != 6 || ot.Shape[0] != 8 || ot.Shape[1] != 8 || ot.Shape[2] != it.Shape[n] || ot.Shape[5] != it.Shape[c] {
		return nil, ir.OpErrorf(op, "output '%s' must be [8, 8, N, tiles along H, tiles along W, C] for the input '%s'", ir.TypeString(ot), ir.TypeString(it))
	}
	et := it.Elem
	// Tiles start every 6 rows and read 8.
	padded := make([]size, 4)
	for d := range padded {
		padded[d] = static(it.Shape[d])
	}
	padded[h], padded[w] = static(6*ot.Shape[3]+2), static(6*ot.Shape[4]+2)
	x := in
	if padded[h].n > it.Shape[h] || padded[w].n > it.Shape[w] {
		padded[h].n, padded[w].n = max64(padded[h].n, it.Shape[h]), max64(padded[w].n, it.Shape[w])
		zero := b.emit("arith.constant", nil, []ir.Type{et}, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: 0, Type: et}}).Results[0]
		x = b.insertSlice(in, b.fill(zero, b.empty(padded, et)), zeros(4), b.dims(in))
	}
	bt := make([][]float64, 8)
	for i := range bt {
		bt[i] = winogradBT[i][:]
	}
	tbl := b.table(bt, et)
	zero := b.emit("arith.constant", nil, []ir.Type{et}, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: 0, Type: et}}).Results[0]
	// Loops (a, j, n, th, tw, c, i): T[a, j, ...] = sum_i BT[a, i] d[6 th + i, 6 tw + j].
	img := make([]*ir.AffineExpr, 4)
	img[n], img[c], img[h], img[w] = dim(2), dim(5), strided(3, 6), strided(4, 1)
	tileMap := &ir.AffineMap{NumDims: 7, Results: img}
	red := []bool{false, false, false, false, false, false, true}
	mac := func(y body, args []*ir.Value) *ir.Value {
		return y.op("arith.addf", et, args[2], y.op("arith.mulf", et, args[0], args[1]))
	}
	t := b.generic([]*ir.Value{tbl, x}, b.fill(zero, b.empty(b.dims(out), et)), []*ir.AffineMap{dimsMap(7, 0, 6), tileMap, dimsMap(7, 0, 1, 2, 3, 4, 5)}, red, mac)
	// Loops (a, b, n, th, tw, c, j): out[a, b, ...] = sum_j T[a, j, ...] BT[b, j].
	return b.generic([]*ir.Value{t, tbl}, b.fill(zero, out), []*ir.AffineMap{dimsMap(7, 0, 6, 2, 3, 4, 5), dimsMap(7, 1, 6), dimsMap(7, 0, 1, 2, 3, 4, 5)}, red, mac), nil
}

// winogradOutput lowers winograd.output_transform: two contractions
// compute A^T m A for every tile into a tensor with each image dimension
// split as (tiles, 6), which is collapsed into the image and cut to the
// output's extents.
func (b builder) winogradOutput(op *ir.Operation) (*ir.Value, error) {
	in, out := linalgext.Ins(op)[0], linalgext.Outs(op)[0]
	it, ot := in.Type.(*ir.TensorType), out.Type.(*ir.TensorType)
	n, c, h, w, err := winogradLayout(op, ot)
	if err != nil {
		return nil, err
	}
	if len(it.Shape) != 6 || it.Shape[0] != 8 || it.Shape[1] != 8 || it.Shape[2] != ot.Shape[n] || it.Shape[5] != ot.Shape[c] ||
		6*it.Shape[3] < ot.Shape[h] || 6*it.Shape[4] < ot.Shape[w] {
		return nil, ir.OpErrorf(op, "input '%s' must be [8, 8, N, tiles along H, tiles along W, C] covering the output '%s'", ir.TypeString(it), ir.TypeString(ot))
	}
	et := it.Elem
	at := make([][]float64, 6)
	for i := range at {
		at[i] = winogradAT[i][:]
	}
	tbl := b.table(at, et)
	zero := b.emit("arith.constant", nil, []ir.Type{et}, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: 0, Type: et}}).Results[0]
	red := []bool{false, false, false, false, false, false, true}
	mac := func(y body, args []*ir.Value) *ir.Value {
		return y.op("arith.addf", et, args[2], y.op("arith.mulf", et, args[0], args[1]))
	}
	// Loops (x, b, n, th, tw, c, a): T[x, b, ...] = sum_a AT[x, a] m[a, b, ...].
	tSizes := []size{static(6), static(8), static(it.Shape[2]), static(it.Shape[3]), static(it.Shape[4]), static(it.Shape[5])}
	t := b.generic([]*ir.Value{tbl, in}, b.fill(zero, b.empty(tSizes, et)), []*ir.AffineMap{dimsMap(7, 0, 6), dimsMap(7, 6, 1, 2, 3, 4, 5), dimsMap(7, 0, 1, 2, 3, 4, 5)}, red, mac)
	// Loops (x, y, n, th, tw, c, b): R = sum_b T[x, b, ...] AT[y, b], laid
	// out as the image with H and W split into (tiles, 6).
	var rSizes []size
	var rDims []int
	var groups [][]int
	for d := 0; d < 4; d++ {
		switch d {
		case n:
			groups = append(groups, []int{len(rSizes)})
			rSizes, rDims = append(rSizes, static(it.Shape[2])), append(rDims, 2)
		case c:
			groups = append(groups, []int{len(rSizes)})
			rSizes, rDims = append(rSizes, static(it.Shape[5])), append(rDims, 5)
		case h:
			groups = append(groups, []int{len(rSizes), len(rSizes) + 1})
			rSizes, rDims = append(rSizes, static(it.Shape[3]), static(6)), append(rDims, 3, 0)
		case w:
			groups = append(groups, []int{len(rSizes), len(rSizes) + 1})
			rSizes, rDims = append(rSizes, static(it.Shape[4]), static(6)), append(rDims, 4, 1)
		}
	}
	r := b.generic([]*ir.Value{t, tbl}, b.fill(zero, b.empty(rSizes, et)), []*ir.AffineMap{dimsMap(7, 0, 6, 2, 3, 4, 5), dimsMap(7, 1, 6), dimsMap(7, rDims...)}, red, mac)
	full := b.collapseShape(r, groups)
	if ir.TypesEqual(full.Type, ot) {
		return full, nil
	}
	return b.extractSlice(full, zeros(4), b.dims(out), ot), nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
