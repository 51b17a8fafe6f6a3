package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// The ops here read elements at indices that are data (index tensors,
// start offsets) or that count down (reverse), which a kernel's affine
// maps cannot express. The reads (torch_index_select, gather, reverse,
// dynamic_slice) become linalg.generics over the result whose bodies
// compute the index and read the operand there directly (tensor.extract:
// one read per element, which dispatch formation turns into a load of
// the operand's binding). The writes (dynamic_update_slice, scatter)
// become linalg.generics with a reduction loop over the elements that may
// land on each result element: every step reads one candidate at a map
// the kernel can follow and keeps it when it lands there (arith.select),
// one step per candidate.

// loopIndex appends linalg.index of loop d, cast to integer type t.
func (x builder) loopIndex(d int, t ir.Type) *ir.Value {
	i := x.op("linalg.index", nil, ir.IndexType{}, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: int64(d), Type: ir.I64}})
	return x.op("arith.index_cast", []*ir.Value{i}, t)
}

// loopAt appends linalg.index of loop d.
func (x builder) loopAt(d int) *ir.Value {
	return x.op("linalg.index", nil, ir.IndexType{}, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: int64(d), Type: ir.I64}})
}

// asIndex casts an integer scalar to index.
func (x builder) asIndex(v *ir.Value) *ir.Value {
	return x.op("arith.index_cast", []*ir.Value{v}, ir.IndexType{})
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
// read directly at the index. An index outside the input's dimension dim
// gives 0.
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
	// The result's dynamic sizes are those of the input and index
	// dimensions its loops walk.
	out, err := c.empty(rt, outMap, c.op.Operands[:2], []*ir.AffineMap{inMap, idxMap})
	if err != nil {
		return err
	}
	idxMap.NumDims = nres
	input := c.op.Operands[0]
	var extent *ir.Value // the input's dimension dim when dynamic (host)
	if in.Shape[dim0] == ir.Dynamic {
		extent = c.emit(ir.NewOp("tensor.dim", []*ir.Value{input, c.index(int64(dim0))}, []ir.Type{ir.IndexType{}}, nil)).Results[0]
	}
	g, err := c.genericOp(c.op.Operands[1:2], []*ir.AffineMap{idxMap, identity(nres)}, out, iterators(nres, 0), func(x builder, a []*ir.Value) (*ir.Value, error) {
		i := x.asIndex(a[0])
		n := extent
		if n == nil {
			n = x.constant(ir.IndexType{}, in.Shape[dim0])
		}
		inside := x.bin("arith.andi", x.cmp("arith.cmpi", cmpiSGE, i, x.constant(ir.IndexType{}, 0)), x.cmp("arith.cmpi", cmpiSLT, i, n))
		at := []*ir.Value{input}
		for j := 0; j < r; j++ {
			if j == dim0 {
				at = append(at, i)
			} else {
				at = append(at, x.loopAt(loopOfInput(j)))
			}
		}
		v := x.op("tensor.extract", at, rt.Elem)
		return x.sel(inside, v, x.constant(rt.Elem, 0)), nil
	})
	if err != nil {
		return err
	}
	c.replace(g)
	return nil
}

// reverse reads out[..., i, ...] = in[..., N-1-i, ...] along each
// reversed dimension, directly.
func (c *converter) reverse(rt *ir.TensorType) error {
	in := stablehlo.Ranked(c.op.Operands[0].Type)
	n := len(in.Shape)
	dims, ok := c.ints("dimensions")
	if !ok || !sameType(in, rt) {
		return c.errorf("requires 'dimensions' and a result of the operand's type")
	}
	reversed := make([]bool, n)
	for _, d := range dims {
		if d < 0 || int(d) >= n || reversed[d] {
			return c.errorf("dimensions %v are not distinct dimensions of rank %d", dims, n)
		}
		reversed[d] = true
	}
	input := c.op.Operands[0]
	// The last index of each reversed dimension: a constant, or a host
	// value where the dimension is dynamic.
	last := make([]*ir.Value, n)
	for d := range last {
		if reversed[d] && in.Shape[d] == ir.Dynamic {
			size := c.emit(ir.NewOp("tensor.dim", []*ir.Value{input, c.index(int64(d))}, []ir.Type{ir.IndexType{}}, nil)).Results[0]
			last[d] = c.emit(ir.NewOp("arith.subi", []*ir.Value{size, c.index(1)}, []ir.Type{ir.IndexType{}}, nil)).Results[0]
		}
	}
	out, err := c.empty(rt, identity(n), []*ir.Value{input}, []*ir.AffineMap{identity(n)})
	if err != nil {
		return err
	}
	g, err := c.genericOp(nil, []*ir.AffineMap{identity(n)}, out, iterators(n, 0), func(x builder, a []*ir.Value) (*ir.Value, error) {
		at := []*ir.Value{input}
		for d := 0; d < n; d++ {
			i := x.loopAt(d)
			if reversed[d] {
				top := last[d]
				if top == nil {
					top = x.constant(ir.IndexType{}, in.Shape[d]-1)
				}
				i = x.bin("arith.subi", top, i)
			}
			at = append(at, i)
		}
		return x.op("tensor.extract", at, rt.Elem), nil
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
// [0, in - size], directly; a dimension the slice spans whole is read at
// the loop index.
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
	var moving []int
	for d := 0; d < n; d++ {
		if sizes[d] < 0 || sizes[d] > in.Shape[d] || len(rt.Shape) != n || rt.Shape[d] != sizes[d] || !sameType(rt.Elem, in.Elem) {
			return c.errorf("slice_sizes %v do not slice '%s' into '%s'", sizes, ir.TypeString(in), ir.TypeString(rt))
		}
		if sizes[d] != in.Shape[d] {
			moving = append(moving, d)
		}
	}
	scalar := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	var ins []*ir.Value
	var maps []*ir.AffineMap
	for _, d := range moving {
		ins = append(ins, c.op.Operands[1+d])
		maps = append(maps, scalar)
	}
	out, err := c.empty(rt, identity(n), nil, nil)
	if err != nil {
		return err
	}
	input := c.op.Operands[0]
	g, err := c.genericOp(ins, append(maps, identity(n)), out, iterators(n, 0), func(x builder, a []*ir.Value) (*ir.Value, error) {
		at := []*ir.Value{input}
		for d := 0; d < n; d++ {
			at = append(at, x.loopAt(d))
		}
		for j, d := range moving {
			s := x.asIndex(clampedStart(x, a[j], in.Shape[d]-sizes[d]))
			at[1+d] = x.bin("arith.addi", s, at[1+d])
		}
		return x.op("tensor.extract", at, rt.Elem), nil
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

// structAttr reads the fields of dialect struct attribute name (such as
// #stablehlo.gather<...>) whose dialect attribute kind is kind.
func (c *converter) structAttr(name, kind string) (map[string][]int64, error) {
	a, ok := c.op.Attr(name).(*ir.OpaqueAttr)
	if !ok || !stablehloStruct(a.Name, kind) {
		return nil, c.errorf("requires a %s attribute such as #stablehlo.%s<...>", name, kind)
	}
	f, err := structFields(a.Body)
	if err != nil {
		return nil, c.errorf("%s: %v", name, err)
	}
	return f, nil
}

func stablehloStruct(name, kind string) bool {
	for _, p := range stablehlo.Prefixes {
		if name == p+kind {
			return true
		}
	}
	return false
}

// indexVectorMaps returns, for each of the n components of the index
// vectors of an index tensor of rank q (index_vector_dim iv; iv == q for
// an implicit trailing vector of one component), the map over loops that
// reads the component with the other dimensions at the loops batch gives
// them, in order.
func indexVectorMaps(q, iv, loops int, batch []int, n int) ([]*ir.AffineMap, bool) {
	other := q
	if iv < q {
		other--
	}
	if iv < 0 || iv > q || iv == q && n != 1 || len(batch) != other {
		return nil, false
	}
	var maps []*ir.AffineMap
	for k := 0; k < n; k++ {
		m := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
		j := 0
		for d := 0; d < q; d++ {
			if d == iv {
				m.Results = append(m.Results, affConst(int64(k)))
				continue
			}
			m.Results = append(m.Results, dim(batch[j]))
			j++
		}
		maps = append(maps, m)
	}
	return maps, true
}

// batchSizes reports whether the dimensions of an index tensor other than
// iv match, in order, the dimensions batch[j] - base of shape.
func batchSizes(index []int64, iv int, shape []int64, batch []int, base int) bool {
	j := 0
	for d, s := range index {
		if d == iv {
			continue
		}
		if !sameSize(s, shape[batch[j]-base]) {
			return false
		}
		j++
	}
	return true
}

// gather lowers StableHLO's gather without batching dimensions: the result
// dimensions in offset_dims walk the slice, the others (batch) pick the
// start index vector, whose components start_index_map places in operand
// dimensions (clamped so that the slice fits). The operand is read
// directly at start + offset in each dimension (the start 0 where it has
// none, the offset 0 where the dimension is collapsed).
func (c *converter) gather(rt *ir.TensorType) error {
	if len(c.op.Operands) != 2 {
		return c.errorf("expects an operand and start indices")
	}
	in, st := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Operands[1].Type)
	f, err := c.structAttr("dimension_numbers", "gather")
	if err != nil {
		return err
	}
	if len(f["operand_batching_dims"]) > 0 || len(f["start_indices_batching_dims"]) > 0 {
		return c.errorf("gather with batching dimensions is not supported yet")
	}
	r, q, nres := len(in.Shape), len(st.Shape), len(rt.Shape)
	sizes, err := c.intsOfLen("slice_sizes", r)
	if err != nil {
		return err
	}
	ivs, ok := f["index_vector_dim"]
	if !ok {
		ivs = []int64{0} // StableHLO's printer leaves out index_vector_dim = 0
	}
	if len(ivs) != 1 || intWidth(st.Elem) < 2 || !sameType(rt.Elem, in.Elem) {
		return c.errorf("requires an integer index_vector_dim, integer start indices and a result of the operand's element type")
	}
	iv := int(ivs[0])
	offsetDims, collapsed, startMap := f["offset_dims"], f["collapsed_slice_dims"], f["start_index_map"]
	bad := c.errorf("dimension_numbers do not gather '%s' from '%s' with '%s'", ir.TypeString(rt), ir.TypeString(in), ir.TypeString(st))
	isOffset := make([]bool, nres)
	for _, d := range offsetDims {
		if d < 0 || int(d) >= nres || isOffset[d] {
			return bad
		}
		isOffset[d] = true
	}
	isCollapsed := make([]bool, r)
	for _, d := range collapsed {
		if d < 0 || int(d) >= r || isCollapsed[d] || sizes[d] != 1 {
			return bad
		}
		isCollapsed[d] = true
	}
	// Each operand dimension: its start component, and its offset loop.
	startOf, offsetLoop := make([]int, r), make([]int, r)
	for d := range startOf {
		startOf[d], offsetLoop[d] = -1, -1
	}
	for k, d := range startMap {
		if d < 0 || int(d) >= r || startOf[d] != -1 {
			return bad
		}
		startOf[d] = k
	}
	next := 0
	for d := 0; d < r; d++ {
		if isCollapsed[d] {
			continue
		}
		if next >= len(offsetDims) || rt.Shape[offsetDims[next]] != sizes[d] {
			return bad
		}
		offsetLoop[d] = int(offsetDims[next])
		next++
	}
	if next != len(offsetDims) {
		return bad
	}
	var batch []int
	for l := 0; l < nres; l++ {
		if !isOffset[l] {
			batch = append(batch, l)
		}
	}
	vec, ok := indexVectorMaps(q, iv, nres, batch, len(startMap))
	if !ok || iv < q && !sameSize(st.Shape[iv], int64(len(startMap))) || !batchSizes(st.Shape, iv, rt.Shape, batch, 0) {
		return bad
	}
	var ins []*ir.Value
	for range vec {
		ins = append(ins, c.op.Operands[1])
	}
	out, err := c.empty(rt, identity(nres), nil, nil)
	if err != nil {
		return err
	}
	input := c.op.Operands[0]
	g, err := c.genericOp(ins, append(vec, identity(nres)), out, iterators(nres, 0), func(x builder, a []*ir.Value) (*ir.Value, error) {
		at := []*ir.Value{input}
		for d := 0; d < r; d++ {
			// The clamped start plus the offset.
			var i *ir.Value
			if k := startOf[d]; k >= 0 {
				i = x.asIndex(clampedStart(x, a[k], in.Shape[d]-sizes[d]))
			}
			if l := offsetLoop[d]; l >= 0 {
				if o := x.loopAt(l); i == nil {
					i = o
				} else {
					i = x.bin("arith.addi", i, o)
				}
			}
			if i == nil {
				i = x.constant(ir.IndexType{}, 0)
			}
			at = append(at, i)
		}
		return x.op("tensor.extract", at, rt.Elem), nil
	})
	if err != nil {
		return err
	}
	c.replace(g)
	return nil
}

// scatter lowers StableHLO's scatter of one operand without batching
// dimensions: the result starts as the operand and, for every update
// element in row-major order, the element it lands on (its index vector,
// from scatter_indices, placed by scatter_dims_to_operand_dims, plus its
// offset in the update window) is combined with it through the body. One
// linalg.generic over (result dimensions, update dimensions) does this,
// the update loops reducing; an update that lands outside the result is
// dropped.
func (c *converter) scatter(rt *ir.TensorType) error {
	if len(c.op.Operands) != 3 || len(c.op.Results) != 1 {
		return c.errorf("only a scatter of one operand is supported")
	}
	in, idx, up := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Operands[1].Type), stablehlo.Ranked(c.op.Operands[2].Type)
	f, err := c.structAttr("scatter_dimension_numbers", "scatter")
	if err != nil {
		return err
	}
	if len(f["input_batching_dims"]) > 0 || len(f["scatter_indices_batching_dims"]) > 0 {
		return c.errorf("scatter with batching dimensions is not supported yet")
	}
	r, q, u := len(in.Shape), len(idx.Shape), len(up.Shape)
	ivs, ok := f["index_vector_dim"]
	if !ok {
		ivs = []int64{0} // StableHLO's printer leaves out index_vector_dim = 0
	}
	if len(ivs) != 1 || intWidth(idx.Elem) < 2 || !sameType(rt, in) || !sameType(up.Elem, in.Elem) {
		return c.errorf("requires an integer index_vector_dim, integer indices, an update and a result of the operand's type")
	}
	iv := int(ivs[0])
	windowDims, inserted, toOperand := f["update_window_dims"], f["inserted_window_dims"], f["scatter_dims_to_operand_dims"]
	bad := c.errorf("scatter_dimension_numbers do not scatter '%s' into '%s' with '%s'", ir.TypeString(up), ir.TypeString(in), ir.TypeString(idx))
	isWindow := make([]bool, u)
	for _, d := range windowDims {
		if d < 0 || int(d) >= u || isWindow[d] {
			return bad
		}
		isWindow[d] = true
	}
	isInserted := make([]bool, r)
	for _, d := range inserted {
		if d < 0 || int(d) >= r || isInserted[d] {
			return bad
		}
		isInserted[d] = true
	}
	body, err := c.regionBody([]ir.Type{in.Elem})
	if err != nil {
		return err
	}
	// Loops: the result's dimensions, then the update's.
	loops := r + u
	var batch []int
	for d := 0; d < u; d++ {
		if !isWindow[d] {
			batch = append(batch, r+d)
		}
	}
	vec, ok := indexVectorMaps(q, iv, loops, batch, len(toOperand))
	if !ok || iv < q && !sameSize(idx.Shape[iv], int64(len(toOperand))) || !batchSizes(idx.Shape, iv, up.Shape, batch, r) {
		return bad
	}
	// Each result dimension: its index component and its window loop.
	startOf, windowLoop := make([]int, r), make([]int, r)
	for d := range startOf {
		startOf[d], windowLoop[d] = -1, -1
	}
	for k, d := range toOperand {
		if d < 0 || int(d) >= r || startOf[d] != -1 {
			return bad
		}
		startOf[d] = k
	}
	next := 0
	for d := 0; d < r; d++ {
		if isInserted[d] {
			continue
		}
		if next >= len(windowDims) {
			return bad
		}
		windowLoop[d] = r + int(windowDims[next])
		next++
	}
	if next != len(windowDims) {
		return bad
	}
	upMap := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
	for d := 0; d < u; d++ {
		upMap.Results = append(upMap.Results, dim(r+d))
	}
	ins := []*ir.Value{c.op.Operands[2]}
	maps := []*ir.AffineMap{upMap}
	for _, m := range vec {
		ins = append(ins, c.op.Operands[1])
		maps = append(maps, m)
	}
	outMap := identity(r)
	outMap.NumDims = loops
	g, err := c.genericOp(ins, append(maps, outMap), c.op.Operands[0], iterators(r, u), func(x builder, a []*ir.Value) (*ir.Value, error) {
		var hit *ir.Value
		for d := 0; d < r; d++ {
			// i == start + window offset, in the indices' type.
			var want *ir.Value
			if k := startOf[d]; k >= 0 {
				want = a[1+k]
			}
			if l := windowLoop[d]; l >= 0 {
				w := x.loopIndex(l, idx.Elem)
				if want == nil {
					want = w
				} else {
					want = x.bin("arith.addi", want, w)
				}
			}
			if want == nil {
				want = x.constant(idx.Elem, 0)
			}
			h := x.cmp("arith.cmpi", cmpiEQ, x.loopIndex(d, idx.Elem), want)
			if hit != nil {
				h = x.bin("arith.andi", hit, h)
			}
			hit = h
		}
		acc := a[len(a)-1]
		rs, err := body(x, []*ir.Value{acc, a[0]})
		if err != nil {
			return nil, err
		}
		return x.sel(hit, rs[0], acc), nil
	})
	if err != nil {
		return err
	}
	c.replace(g)
	return nil
}

// sort sorts N operands of one shape along dimension by the comparator
// body (a strict order on (lhs_0, rhs_0, lhs_1, rhs_1, ...) that says
// whether lhs comes first), stably, in two linalg.generics:
//
//	rank[..., i, ...] = #{j : less(x_j, x_i)} + #{j < i : neither less(x_j, x_i) nor less(x_i, x_j)}
//	out_k[..., p, ...] = x_k[..., i, ...] for the i whose rank is p
//
// each with a reduction loop j (i) over the sorted dimension. This takes
// n^2 comparisons for a dimension of n.
func (c *converter) sort() error {
	n := len(c.op.Results)
	if n == 0 || len(c.op.Operands) != n {
		return c.errorf("expects as many operands as results")
	}
	in0 := stablehlo.Ranked(c.op.Operands[0].Type)
	rank := len(in0.Shape)
	var args, elems []ir.Type
	for i, v := range c.op.Operands {
		t := stablehlo.Ranked(v.Type)
		if !sameType(&ir.TensorType{Shape: t.Shape, Elem: in0.Elem}, in0) || !sameType(t, c.op.Results[i].Type) {
			return c.errorf("operand #%d '%s' must have the shape of operand #0 '%s' and its result's type", i, ir.TypeString(t), ir.TypeString(in0))
		}
		args = append(args, t.Elem, t.Elem)
		elems = append(elems, t.Elem)
	}
	d64, ok := c.op.IntAttr("dimension")
	if d64 < 0 {
		d64 += int64(rank)
	}
	if !ok || d64 < 0 || int(d64) >= rank {
		return c.errorf("requires an integer 'dimension' in [0, %d)", rank)
	}
	d := int(d64)
	less, err := c.regionBodyOf(args, []ir.Type{ir.I1}, "compares as")
	if err != nil {
		return err
	}
	// Loops: the operands' dimensions (i along d), then j.
	j := rank
	loops := rank + 1
	atI := identity(rank)
	atI.NumDims = loops
	atJ := identity(rank)
	atJ.NumDims = loops
	atJ.Results[d] = dim(j)
	var ins []*ir.Value
	var maps []*ir.AffineMap
	for _, v := range c.op.Operands {
		ins = append(ins, v, v)
		maps = append(maps, atJ, atI)
	}
	rt := &ir.TensorType{Shape: in0.Shape, Elem: ir.I64}
	zero, err := c.zeros(rt, atI, ins, maps)
	if err != nil {
		return err
	}
	ranks, err := c.genericOp(ins, append(maps, atI), zero, iterators(rank, 1), func(x builder, a []*ir.Value) (*ir.Value, error) {
		// a holds x_k[j], x_k[i] for each k, then the count.
		var ji, ij []*ir.Value
		for k := 0; k < n; k++ {
			ji = append(ji, a[2*k], a[2*k+1])
			ij = append(ij, a[2*k+1], a[2*k])
		}
		before, err := less(x, ji)
		if err != nil {
			return nil, err
		}
		after, err := less(x, ij)
		if err != nil {
			return nil, err
		}
		one, none := x.constant(ir.I64, 1), x.constant(ir.I64, 0)
		earlier := x.cmp("arith.cmpi", cmpiSLT, x.loopIndex(j, ir.I64), x.loopIndex(d, ir.I64))
		tie := x.bin("arith.andi", earlier, x.bin("arith.xori", x.bin("arith.ori", before[0], after[0]), x.constant(ir.I1, 1)))
		counts := x.bin("arith.ori", before[0], tie)
		return x.bin("arith.addi", a[len(a)-1], x.sel(counts, one, none)), nil
	})
	if err != nil {
		return err
	}
	// out_k[p] = x_k[i] where rank[i] == p: loops (p along d), then i.
	var pins []*ir.Value
	var pmaps []*ir.AffineMap
	for _, v := range c.op.Operands {
		pins = append(pins, v)
		pmaps = append(pmaps, atJ)
	}
	pins = append(pins, ranks)
	pmaps = append(pmaps, atJ)
	var outs []*ir.Value
	for _, r := range c.op.Results {
		z, err := c.zeros(stablehlo.Ranked(r.Type), atI, ins, maps)
		if err != nil {
			return err
		}
		outs = append(outs, z)
	}
	rs, err := c.genericOps(pins, append(pmaps, repeat(atI, n)...), outs, iterators(rank, 1), func(x builder, a []*ir.Value) ([]*ir.Value, error) {
		hit := x.cmp("arith.cmpi", cmpiEQ, a[n], x.loopIndex(d, ir.I64))
		var out []*ir.Value
		for k := 0; k < n; k++ {
			out = append(out, x.sel(hit, a[k], a[n+1+k]))
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	c.replaceAll(rs)
	return nil
}
