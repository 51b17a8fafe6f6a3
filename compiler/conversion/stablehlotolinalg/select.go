package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// The ops here read elements at indices that are data (index tensors,
// start offsets) or that count down (reverse), which a kernel's affine
// maps cannot express. Each becomes a linalg.generic with a reduction
// loop over the dimension read this way: every step reads one candidate
// element at a map the kernel can follow and keeps it when the loop index
// is the index wanted (arith.select), so the result holds the one element
// it names. This costs one step per candidate, as TOSA's gather lowering
// pays too.

// loopIndex appends linalg.index of loop d, cast to integer type t.
func (x builder) loopIndex(d int, t ir.Type) *ir.Value {
	i := x.op("linalg.index", nil, ir.IndexType{}, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: int64(d), Type: ir.I64}})
	return x.op("arith.index_cast", []*ir.Value{i}, t)
}

// zeros emits a tensor of type rt, sized as empty sizes it, filled with 0.
func (c *converter) zeros(rt *ir.TensorType, outMap *ir.AffineMap, ins []*ir.Value, inMaps []*ir.AffineMap) (*ir.Value, error) {
	e, err := c.empty(rt, outMap, ins, inMaps)
	if err != nil {
		return nil, err
	}
	n := len(rt.Shape)
	par := make([]string, n)
	for i := range par {
		par[i] = "parallel"
	}
	return c.genericOp(nil, []*ir.AffineMap{identity(n)}, e, par, func(x builder, _ []*ir.Value) (*ir.Value, error) {
		return x.constant(rt.Elem, 0), nil
	})
}

// iterators returns n "parallel" kinds followed by r "reduction" ones.
func iterators(n, r int) []string {
	out := make([]string, n+r)
	for i := range out {
		out[i] = "parallel"
		if i >= n {
			out[i] = "reduction"
		}
	}
	return out
}

// torchIndexSelect gathers along dimension dim of the input at the
// indices, the first batch_dims dimensions shared by both:
//
//	out[b..., i..., r...] = input[b..., index[b..., i...], r...]
//
// with a reduction loop over the input's dimension dim. An index outside
// it gives 0.
func (c *converter) torchIndexSelect(rt *ir.TensorType) error {
	if len(c.op.Operands) != 2 {
		return c.errorf("expects an input and an index tensor")
	}
	in, idx := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Operands[1].Type)
	r, q := len(in.Shape), len(idx.Shape)
	d, ok1 := c.op.IntAttr("dim")
	b, ok2 := c.op.IntAttr("batch_dims")
	if !ok1 || !ok2 {
		return c.errorf("requires integer 'dim' and 'batch_dims' attributes")
	}
	if d < 0 {
		d += int64(r)
	}
	if b < 0 {
		b += int64(q)
	}
	if intWidth(idx.Elem) < 2 {
		return c.errorf("index elements must be integers, found '%s'", ir.TypeString(idx.Elem))
	}
	if d < 0 || int(d) >= r || b < 0 || int(b) > q || b > d || len(rt.Shape) != r+q-int(b)-1 {
		return c.errorf("dim %d and batch_dims %d do not select from '%s' with '%s' into '%s'", d, b, ir.TypeString(in), ir.TypeString(idx), ir.TypeString(rt))
	}
	dim0, b0 := int(d), int(b)
	nres := len(rt.Shape)
	// The result's loops, then k, the reduction loop over the input's
	// dimension dim. loopOfIndex and loopOfInput give the loop of each
	// index and input dimension.
	k := nres
	loopOfIndex := func(j int) int {
		if j < b0 {
			return j
		}
		return dim0 + j - b0
	}
	loopOfInput := func(j int) int {
		switch {
		case j < dim0:
			return j
		case j == dim0:
			return k
		}
		return j - dim0 - 1 + dim0 + q - b0
	}
	inMap := &ir.AffineMap{NumDims: nres + 1, Results: []*ir.AffineExpr{}}
	for j := 0; j < r; j++ {
		inMap.Results = append(inMap.Results, dim(loopOfInput(j)))
	}
	idxMap := &ir.AffineMap{NumDims: nres + 1, Results: []*ir.AffineExpr{}}
	for j := 0; j < q; j++ {
		idxMap.Results = append(idxMap.Results, dim(loopOfIndex(j)))
	}
	// Each result dimension has the extent of the input or index
	// dimension its loop indexes.
	for l := 0; l < nres; l++ {
		var s int64
		switch {
		case l < b0:
			s = in.Shape[l]
			if !sameSize(s, idx.Shape[l]) {
				return c.errorf("batch dimension %d differs between '%s' and '%s'", l, ir.TypeString(in), ir.TypeString(idx))
			}
		case l < dim0:
			s = in.Shape[l]
		case l < dim0+q-b0:
			s = idx.Shape[l-dim0+b0]
		default:
			s = in.Shape[l-dim0-q+b0+dim0+1]
		}
		if !sameSize(s, rt.Shape[l]) || !sameType(rt.Elem, in.Elem) {
			return c.errorf("dim %d and batch_dims %d do not select from '%s' with '%s' into '%s'", d, b, ir.TypeString(in), ir.TypeString(idx), ir.TypeString(rt))
		}
	}
	outMap := identity(nres)
	outMap.NumDims = nres + 1
	ins := c.op.Operands[:2]
	maps := []*ir.AffineMap{inMap, idxMap}
	acc, err := c.zeros(rt, outMap, ins, maps)
	if err != nil {
		return err
	}
	g, err := c.genericOp(ins, append(maps, outMap), acc, iterators(nres, 1), func(x builder, a []*ir.Value) (*ir.Value, error) {
		hit := x.cmp("arith.cmpi", cmpiEQ, a[1], x.loopIndex(k, idx.Elem))
		return x.sel(hit, a[0], a[2]), nil
	})
	if err != nil {
		return err
	}
	c.replace(g)
	return nil
}

// reverse reads out[..., i, ...] = in[..., N-1-i, ...] along each
// reversed dimension, with one reduction loop over each.
func (c *converter) reverse(rt *ir.TensorType) error {
	in := stablehlo.Ranked(c.op.Operands[0].Type)
	n := len(in.Shape)
	dims, ok := c.ints("dimensions")
	if !ok || !sameType(in, rt) {
		return c.errorf("requires 'dimensions' and a result of the operand's type")
	}
	loopOf := make([]int, n)
	for i := range loopOf {
		loopOf[i] = -1
	}
	var rev []int
	for _, d := range dims {
		if d < 0 || int(d) >= n || loopOf[d] != -1 {
			return c.errorf("dimensions %v are not distinct dimensions of rank %d", dims, n)
		}
		loopOf[d] = n + len(rev)
		rev = append(rev, int(d))
	}
	loops := n + len(rev)
	inMap := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
	for d := 0; d < n; d++ {
		l := d
		if loopOf[d] >= 0 {
			l = loopOf[d]
		}
		inMap.Results = append(inMap.Results, dim(l))
	}
	outMap := identity(n)
	outMap.NumDims = loops
	ins := c.op.Operands[:1]
	acc, err := c.zeros(rt, outMap, ins, []*ir.AffineMap{inMap})
	if err != nil {
		return err
	}
	g, err := c.genericOp(ins, []*ir.AffineMap{inMap, outMap}, acc, iterators(n, len(rev)), func(x builder, a []*ir.Value) (*ir.Value, error) {
		var hit *ir.Value
		for _, d := range rev {
			// k == N-1-i
			want := x.bin("arith.subi", x.constant(ir.I64, in.Shape[d]-1), x.loopIndex(d, ir.I64))
			h := x.cmp("arith.cmpi", cmpiEQ, x.loopIndex(loopOf[d], ir.I64), want)
			if hit != nil {
				h = x.bin("arith.andi", hit, h)
			}
			hit = h
		}
		return x.sel(hit, a[0], a[1]), nil
	})
	if err != nil {
		return err
	}
	c.replace(g)
	return nil
}

// clampedStart returns, in the body, start (a scalar) clamped to
// [0, limit], in start's type.
func clampedStart(x builder, start *ir.Value, limit int64) *ir.Value {
	lo := x.bin("arith.maxsi", start, x.constant(start.Type, 0))
	return x.bin("arith.minsi", lo, x.constant(start.Type, limit))
}

// startOperands checks that ops are n rank-0 integer start indices.
func (c *converter) startOperands(ops []*ir.Value, n int) error {
	if len(ops) != n {
		return c.errorf("expects %d start indices, found %d", n, len(ops))
	}
	for i, v := range ops {
		if t := stablehlo.Ranked(v.Type); len(t.Shape) != 0 || intWidth(t.Elem) < 2 {
			return c.errorf("start index #%d must be a rank-0 integer tensor, found '%s'", i, ir.TypeString(v.Type))
		}
	}
	return nil
}

// dynamicSlice reads out[i] = in[s + i] where each start s is clamped to
// [0, in - size]; a dimension the slice spans whole is read directly,
// the others through a reduction loop over the input's dimension.
func (c *converter) dynamicSlice(rt *ir.TensorType) error {
	in := stablehlo.Ranked(c.op.Operands[0].Type)
	n := len(in.Shape)
	if err := c.startOperands(c.op.Operands[1:], n); err != nil {
		return err
	}
	sizes, err := c.intsOfLen("slice_sizes", n)
	if err != nil {
		return err
	}
	loopOf := make([]int, n)
	var moving []int
	for d := 0; d < n; d++ {
		if sizes[d] < 0 || sizes[d] > in.Shape[d] || len(rt.Shape) != n || rt.Shape[d] != sizes[d] || !sameType(rt.Elem, in.Elem) {
			return c.errorf("slice_sizes %v do not slice '%s' into '%s'", sizes, ir.TypeString(in), ir.TypeString(rt))
		}
		loopOf[d] = d
		if sizes[d] != in.Shape[d] {
			loopOf[d] = n + len(moving)
			moving = append(moving, d)
		}
	}
	loops := n + len(moving)
	scalar := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
	inMap := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
	for d := 0; d < n; d++ {
		inMap.Results = append(inMap.Results, dim(loopOf[d]))
	}
	outMap := identity(n)
	outMap.NumDims = loops
	ins := []*ir.Value{c.op.Operands[0]}
	maps := []*ir.AffineMap{inMap}
	for _, d := range moving {
		ins = append(ins, c.op.Operands[1+d])
		maps = append(maps, scalar)
	}
	acc, err := c.zeros(rt, outMap, nil, nil)
	if err != nil {
		return err
	}
	g, err := c.genericOp(ins, append(maps, outMap), acc, iterators(n, len(moving)), func(x builder, a []*ir.Value) (*ir.Value, error) {
		var hit *ir.Value
		for j, d := range moving {
			st := a[1+j]
			s := clampedStart(x, st, in.Shape[d]-sizes[d])
			h := x.cmp("arith.cmpi", cmpiEQ, x.loopIndex(loopOf[d], st.Type), x.bin("arith.addi", s, x.loopIndex(d, st.Type)))
			if hit != nil {
				h = x.bin("arith.andi", hit, h)
			}
			hit = h
		}
		if hit == nil {
			return a[0], nil
		}
		return x.sel(hit, a[0], a[len(a)-1]), nil
	})
	if err != nil {
		return err
	}
	c.replace(g)
	return nil
}

// dynamicUpdateSlice writes the update into a copy of the operand at the
// starts (each clamped to [0, operand - update]): the result starts as
// the operand, and a reduction loop over each update dimension keeps the
// update element whose position lands on the output element.
func (c *converter) dynamicUpdateSlice(rt *ir.TensorType) error {
	if len(c.op.Operands) < 2 {
		return c.errorf("expects an operand, an update and start indices")
	}
	in, up := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Operands[1].Type)
	n := len(in.Shape)
	if err := c.startOperands(c.op.Operands[2:], n); err != nil {
		return err
	}
	if !sameType(in, rt) || len(up.Shape) != n || !sameType(up.Elem, in.Elem) {
		return c.errorf("update '%s' does not fit operand '%s' giving '%s'", ir.TypeString(up), ir.TypeString(in), ir.TypeString(rt))
	}
	for d := 0; d < n; d++ {
		if up.Shape[d] > in.Shape[d] {
			return c.errorf("update '%s' does not fit operand '%s' giving '%s'", ir.TypeString(up), ir.TypeString(in), ir.TypeString(rt))
		}
	}
	loops := 2 * n
	scalar := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
	upMap := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
	for d := 0; d < n; d++ {
		upMap.Results = append(upMap.Results, dim(n+d))
	}
	outMap := identity(n)
	outMap.NumDims = loops
	ins := []*ir.Value{c.op.Operands[1]}
	maps := []*ir.AffineMap{upMap}
	for d := 0; d < n; d++ {
		ins = append(ins, c.op.Operands[2+d])
		maps = append(maps, scalar)
	}
	g, err := c.genericOp(ins, append(maps, outMap), c.op.Operands[0], iterators(n, n), func(x builder, a []*ir.Value) (*ir.Value, error) {
		var hit *ir.Value
		for d := 0; d < n; d++ {
			st := a[1+d]
			s := clampedStart(x, st, in.Shape[d]-up.Shape[d])
			// s + k == i
			h := x.cmp("arith.cmpi", cmpiEQ, x.bin("arith.addi", s, x.loopIndex(n+d, st.Type)), x.loopIndex(d, st.Type))
			if hit != nil {
				h = x.bin("arith.andi", hit, h)
			}
			hit = h
		}
		if hit == nil {
			return a[0], nil
		}
		return x.sel(hit, a[0], a[len(a)-1]), nil
	})
	if err != nil {
		return err
	}
	c.replace(g)
	return nil
}
