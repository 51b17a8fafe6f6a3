package linalg

import (
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

// Iterator types.
const (
	Parallel  = "parallel"
	Reduction = "reduction"
)

// Definition is what a structured op computes, in linalg.generic's terms:
// one indexing map per operand (ins then outs) from the loop dimensions to
// the operand's indices, and the loops' iterator types.
type Definition struct {
	Maps      []*ir.AffineMap
	Iterators []string
}

// NumLoops is the number of loop dimensions.
func (d *Definition) NumLoops() int { return len(d.Iterators) }

func dimExpr(i int) *ir.AffineExpr { return &ir.AffineExpr{Kind: ir.AffineDim, Pos: i} }

// dimsMap builds (d0..d{n-1}) -> (d{dims[0]}, ...).
func dimsMap(n int, dims ...int) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	for _, d := range dims {
		m.Results = append(m.Results, dimExpr(d))
	}
	return m
}

func identity(n int) *ir.AffineMap {
	var ds []int
	for i := 0; i < n; i++ {
		ds = append(ds, i)
	}
	return dimsMap(n, ds...)
}

func iterators(kinds string) []string {
	var out []string
	for _, c := range kinds {
		if c == 'p' {
			out = append(out, Parallel)
		} else {
			out = append(out, Reduction)
		}
	}
	return out
}

// rank returns the rank of a shaped operand, or 0 for a scalar.
func rank(t ir.Type) int {
	if s, ok := t.(ir.ShapedType); ok {
		return len(shape(s))
	}
	return 0
}

func shape(t ir.Type) []int64 {
	switch t := t.(type) {
	case *ir.TensorType:
		return t.Shape
	case *ir.MemRefType:
		return t.Shape
	}
	return nil
}

func expectCounts(op *ir.Operation, nins, nouts int) error {
	if len(Ins(op)) != nins || len(Outs(op)) != nouts {
		return ir.OpErrorf(op, "expects %d inputs and %d outputs, found %d and %d", nins, nouts, len(Ins(op)), len(Outs(op)))
	}
	return nil
}

func expectRanks(op *ir.Operation, ranks ...int) error {
	for i, v := range op.Operands {
		if i < len(ranks) && rank(v.Type) != ranks[i] {
			return ir.OpErrorf(op, "operand #%d must have rank %d, found '%s'", i, ranks[i], ir.TypeString(v.Type))
		}
	}
	return nil
}

// dimsList reads a named dense i64 array attribute.
func dimsList(op *ir.Operation, name string) ([]int64, error) {
	l, ok := op.Attr(name).(*ir.DenseArrayAttr)
	if !ok {
		return nil, ir.OpErrorf(op, "requires a '%s' list", name)
	}
	return l.Values, nil
}

// DefinitionOf returns the indexing maps and iterator types of a
// structured op, checking the counts and ranks they imply.
func DefinitionOf(op *ir.Operation) (*Definition, error) {
	if isConvLike(op.Name) {
		return convDefinition(op)
	}
	switch op.Name {
	case "linalg.generic":
		return genericDefinition(op)
	case "linalg.matmul":
		if err := expectCounts(op, 2, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 2, 2, 2); err != nil && op.Attr("indexing_maps") == nil {
			return nil, err
		}
		// (m, n, k): C(m, n) += A(m, k) * B(k, n)
		return explicitMaps(op, &Definition{Maps: []*ir.AffineMap{dimsMap(3, 0, 2), dimsMap(3, 2, 1), dimsMap(3, 0, 1)}, Iterators: iterators("ppr")})
	case "linalg.batch_matmul":
		if err := expectCounts(op, 2, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 3, 3, 3); err != nil && op.Attr("indexing_maps") == nil {
			return nil, err
		}
		return explicitMaps(op, &Definition{Maps: []*ir.AffineMap{dimsMap(4, 0, 1, 3), dimsMap(4, 0, 3, 2), dimsMap(4, 0, 1, 2)}, Iterators: iterators("pppr")})
	case "linalg.matmul_transpose_a", "linalg.matmul_transpose_b":
		if err := expectCounts(op, 2, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 2, 2, 2); err != nil {
			return nil, err
		}
		// (m, n, k): C(m, n) += A(k, m) * B(k, n), or A(m, k) * B(n, k)
		a, b := dimsMap(3, 2, 0), dimsMap(3, 2, 1)
		if op.Name == "linalg.matmul_transpose_b" {
			a, b = dimsMap(3, 0, 2), dimsMap(3, 1, 2)
		}
		return &Definition{Maps: []*ir.AffineMap{a, b, dimsMap(3, 0, 1)}, Iterators: iterators("ppr")}, nil
	case "linalg.batch_matmul_transpose_a", "linalg.batch_matmul_transpose_b":
		if err := expectCounts(op, 2, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 3, 3, 3); err != nil {
			return nil, err
		}
		// (b, m, n, k): C(b, m, n) += A(b, k, m) * B(b, k, n), or
		// A(b, m, k) * B(b, n, k)
		a, b := dimsMap(4, 0, 3, 1), dimsMap(4, 0, 3, 2)
		if op.Name == "linalg.batch_matmul_transpose_b" {
			a, b = dimsMap(4, 0, 1, 3), dimsMap(4, 0, 2, 3)
		}
		return &Definition{Maps: []*ir.AffineMap{a, b, dimsMap(4, 0, 1, 2)}, Iterators: iterators("pppr")}, nil
	case "linalg.quantized_matmul":
		if err := expectCounts(op, 4, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 2, 2, 0, 0, 2); err != nil {
			return nil, err
		}
		// (m, n, k): C(m, n) += (A(m, k) - azp) * (B(k, n) - bzp)
		return &Definition{Maps: []*ir.AffineMap{dimsMap(3, 0, 2), dimsMap(3, 2, 1), dimsMap(3), dimsMap(3), dimsMap(3, 0, 1)}, Iterators: iterators("ppr")}, nil
	case "linalg.quantized_batch_matmul":
		if err := expectCounts(op, 4, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 3, 3, 0, 0, 3); err != nil {
			return nil, err
		}
		return &Definition{Maps: []*ir.AffineMap{dimsMap(4, 0, 1, 3), dimsMap(4, 0, 3, 2), dimsMap(4), dimsMap(4), dimsMap(4, 0, 1, 2)}, Iterators: iterators("pppr")}, nil
	case "linalg.batch_matvec":
		if err := expectCounts(op, 2, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 3, 2, 2); err != nil {
			return nil, err
		}
		// (b, m, k): y(b, m) += A(b, m, k) * x(b, k)
		return &Definition{Maps: []*ir.AffineMap{dimsMap(3, 0, 1, 2), dimsMap(3, 0, 2), dimsMap(3, 0, 1)}, Iterators: iterators("ppr")}, nil
	case "linalg.matvec":
		if err := expectCounts(op, 2, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 2, 1, 1); err != nil {
			return nil, err
		}
		// (m, k): y(m) += A(m, k) * x(k)
		return &Definition{Maps: []*ir.AffineMap{dimsMap(2, 0, 1), dimsMap(2, 1), dimsMap(2, 0)}, Iterators: iterators("pr")}, nil
	case "linalg.vecmat":
		if err := expectCounts(op, 2, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 1, 2, 1); err != nil {
			return nil, err
		}
		// (n, k): y(n) += x(k) * A(k, n)
		return &Definition{Maps: []*ir.AffineMap{dimsMap(2, 1), dimsMap(2, 1, 0), dimsMap(2, 0)}, Iterators: iterators("pr")}, nil
	case "linalg.dot":
		if err := expectCounts(op, 2, 1); err != nil {
			return nil, err
		}
		if err := expectRanks(op, 1, 1, 0); err != nil {
			return nil, err
		}
		return &Definition{Maps: []*ir.AffineMap{dimsMap(1, 0), dimsMap(1, 0), dimsMap(1)}, Iterators: iterators("r")}, nil
	case "linalg.fill":
		if err := expectCounts(op, 1, 1); err != nil {
			return nil, err
		}
		if _, ok := op.Operands[0].Type.(ir.ShapedType); ok {
			return nil, ir.OpErrorf(op, "the fill value must be a scalar, found '%s'", ir.TypeString(op.Operands[0].Type))
		}
		n := rank(op.Operands[1].Type)
		return &Definition{Maps: []*ir.AffineMap{dimsMap(n), identity(n)}, Iterators: iterators(strings.Repeat("p", n))}, nil
	case "linalg.copy":
		if err := expectCounts(op, 1, 1); err != nil {
			return nil, err
		}
		n := rank(op.Operands[1].Type)
		if err := expectRanks(op, n, n); err != nil {
			return nil, err
		}
		return &Definition{Maps: []*ir.AffineMap{identity(n), identity(n)}, Iterators: iterators(strings.Repeat("p", n))}, nil
	case "linalg.map":
		if len(Outs(op)) != 1 {
			return nil, ir.OpErrorf(op, "expects one output, found %d", len(Outs(op)))
		}
		n := rank(Outs(op)[0].Type)
		d := &Definition{Iterators: iterators(strings.Repeat("p", n))}
		for i, v := range op.Operands {
			if rank(v.Type) != n {
				return nil, ir.OpErrorf(op, "operand #%d must have the output's rank %d, found '%s'", i, n, ir.TypeString(v.Type))
			}
			d.Maps = append(d.Maps, identity(n))
		}
		return d, nil
	case "linalg.transpose":
		if err := expectCounts(op, 1, 1); err != nil {
			return nil, err
		}
		perm, err := dimsList(op, "permutation")
		if err != nil {
			return nil, err
		}
		n := rank(op.Operands[1].Type)
		if err := expectRanks(op, n, n); err != nil {
			return nil, err
		}
		if !isPermutation(perm, n) {
			return nil, ir.OpErrorf(op, "permutation %v is not a permutation of [0, %d)", perm, n)
		}
		// Loops run over the output: out[i...] = in[j...] with input
		// dimension perm[i] taking loop i.
		in := make([]int, n)
		for i, p := range perm {
			in[p] = i
		}
		return &Definition{Maps: []*ir.AffineMap{dimsMap(n, in...), identity(n)}, Iterators: iterators(strings.Repeat("p", n))}, nil
	case "linalg.broadcast":
		if err := expectCounts(op, 1, 1); err != nil {
			return nil, err
		}
		dims, err := dimsList(op, "dimensions")
		if err != nil {
			return nil, err
		}
		n := rank(op.Operands[1].Type)
		if !isSortedSubset(dims, n) {
			return nil, ir.OpErrorf(op, "dimensions %v must be increasing and in [0, %d)", dims, n)
		}
		if rank(op.Operands[0].Type) != n-len(dims) {
			return nil, ir.OpErrorf(op, "input rank %d plus %d added dimensions does not match the output rank %d", rank(op.Operands[0].Type), len(dims), n)
		}
		return &Definition{Maps: []*ir.AffineMap{dimsMap(n, complement(dims, n)...), identity(n)}, Iterators: iterators(strings.Repeat("p", n))}, nil
	case "linalg.reduce":
		ins, outs := Ins(op), Outs(op)
		if len(ins) == 0 || len(ins) != len(outs) {
			return nil, ir.OpErrorf(op, "expects as many inits as inputs (at least one), found %d inputs and %d inits", len(ins), len(outs))
		}
		dims, err := dimsList(op, "dimensions")
		if err != nil {
			return nil, err
		}
		n := rank(ins[0].Type)
		if !isSortedSubset(dims, n) {
			return nil, ir.OpErrorf(op, "dimensions %v must be increasing and in [0, %d)", dims, n)
		}
		d := &Definition{}
		kinds := []byte(strings.Repeat("p", n))
		for _, r := range dims {
			kinds[r] = 'r'
		}
		d.Iterators = iterators(string(kinds))
		for i, v := range ins {
			if rank(v.Type) != n {
				return nil, ir.OpErrorf(op, "input #%d must have rank %d, found '%s'", i, n, ir.TypeString(v.Type))
			}
			d.Maps = append(d.Maps, identity(n))
		}
		for i, v := range outs {
			if rank(v.Type) != n-len(dims) {
				return nil, ir.OpErrorf(op, "init #%d must have rank %d (the input's %d less %d reduced), found '%s'", i, n-len(dims), n, len(dims), ir.TypeString(v.Type))
			}
			d.Maps = append(d.Maps, dimsMap(n, complement(dims, n)...))
		}
		return d, nil
	}
	return nil, ir.OpErrorf(op, "'%s' is not a linalg structured op", op.Name)
}

// explicitMaps returns d with the maps an op spells in its
// indexing_maps attribute (matmul and batch_matmul with transposed or
// broadcast operands) instead of the default ones: one per operand, over
// the op's loops, the output's a projection of the parallel loops.
func explicitMaps(op *ir.Operation, d *Definition) (*Definition, error) {
	a := op.Attr("indexing_maps")
	if a == nil {
		return d, nil
	}
	arr, ok := a.(*ir.ArrayAttr)
	if !ok || len(arr.Elems) != len(op.Operands) {
		return nil, ir.OpErrorf(op, "'indexing_maps' must be an array of %d affine maps (one per operand)", len(op.Operands))
	}
	out := &Definition{Iterators: d.Iterators}
	for i, e := range arr.Elems {
		m, ok := e.(ir.AffineMapAttr)
		if !ok || m.Map.NumDims != len(d.Iterators) || m.Map.NumSyms != 0 || len(m.Map.Results) != rank(op.Operands[i].Type) {
			return nil, ir.OpErrorf(op, "indexing_maps #%d must be an affine map from the %d loops to the %d indices of operand #%d", i, len(d.Iterators), rank(op.Operands[i].Type), i)
		}
		for _, r := range m.Map.Results {
			if r.Kind != ir.AffineDim {
				return nil, ir.OpErrorf(op, "indexing_maps #%d must index by loop dimensions only, found %s", i, m.Map)
			}
		}
		out.Maps = append(out.Maps, m.Map)
	}
	if last := out.Maps[len(out.Maps)-1]; last.String() != d.Maps[len(d.Maps)-1].String() {
		return nil, ir.OpErrorf(op, "the output's indexing map must be %s, found %s", d.Maps[len(d.Maps)-1], last)
	}
	return out, nil
}

func isPermutation(p []int64, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, v := range p {
		if v < 0 || int(v) >= n || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

func isSortedSubset(d []int64, n int) bool {
	for i, v := range d {
		if v < 0 || int(v) >= n || i > 0 && v <= d[i-1] {
			return false
		}
	}
	return true
}

// complement returns [0, n) without dims, in order.
func complement(dims []int64, n int) []int {
	var out []int
	for i := 0; i < n; i++ {
		found := false
		for _, d := range dims {
			if int(d) == i {
				found = true
			}
		}
		if !found {
			out = append(out, i)
		}
	}
	return out
}

func genericDefinition(op *ir.Operation) (*Definition, error) {
	maps, ok := op.Attr("indexing_maps").(*ir.ArrayAttr)
	if !ok {
		return nil, ir.OpErrorf(op, "requires an 'indexing_maps' array of affine maps")
	}
	its, ok := op.Attr("iterator_types").(*ir.ArrayAttr)
	if !ok {
		return nil, ir.OpErrorf(op, "requires an 'iterator_types' array")
	}
	d := &Definition{}
	for i, a := range its.Elems {
		var s string
		switch a := a.(type) {
		case ir.StringAttr:
			s = a.Value
		case IteratorTypeAttr:
			s = a.Value
		}
		if s != Parallel && s != Reduction {
			return nil, ir.OpErrorf(op, "iterator_types #%d must be \"parallel\" or \"reduction\", found %s", i, ir.AttrString(a))
		}
		d.Iterators = append(d.Iterators, s)
	}
	if len(maps.Elems) != len(op.Operands) {
		return nil, ir.OpErrorf(op, "expected %d indexing maps (one per operand), found %d", len(op.Operands), len(maps.Elems))
	}
	nins := len(Ins(op))
	for i, a := range maps.Elems {
		m, ok := a.(ir.AffineMapAttr)
		if !ok {
			return nil, ir.OpErrorf(op, "indexing_maps #%d is not an affine map: %s", i, ir.AttrString(a))
		}
		if m.Map.NumSyms != 0 {
			return nil, ir.OpErrorf(op, "indexing_maps #%d must not use symbols", i)
		}
		if m.Map.NumDims != len(d.Iterators) {
			return nil, ir.OpErrorf(op, "indexing_maps #%d has %d dimensions but the op has %d iterators", i, m.Map.NumDims, len(d.Iterators))
		}
		if r := rank(op.Operands[i].Type); len(m.Map.Results) != r {
			return nil, ir.OpErrorf(op, "indexing_maps #%d has %d results but operand #%d has rank %d", i, len(m.Map.Results), i, r)
		}
		if i >= nins {
			// Each output element is written once per parallel point, so an
			// output's map picks distinct loop dimensions and never a
			// reduction one.
			seen := map[int]bool{}
			for _, e := range m.Map.Results {
				if e.Kind != ir.AffineDim || seen[e.Pos] {
					return nil, ir.OpErrorf(op, "indexing_maps #%d (output #%d) must be a projected permutation of the loop dimensions, found %s", i, i-nins, m.Map)
				}
				seen[e.Pos] = true
				if d.Iterators[e.Pos] == Reduction {
					return nil, ir.OpErrorf(op, "indexing_maps #%d (output #%d) uses d%d, a reduction dimension; outputs may only be indexed by parallel dimensions", i, i-nins, e.Pos)
				}
			}
		}
		d.Maps = append(d.Maps, m.Map)
	}
	return d, nil
}

// LoopRanges returns the size of every loop dimension, read from the
// operand dimensions the maps index by a bare d_i (ir.Dynamic where only
// dynamic dimensions give it). It fails when two operands disagree on a
// static size, naming both, or when no operand sizes a loop.
func (d *Definition) LoopRanges(op *ir.Operation) ([]int64, error) {
	n := len(d.Iterators)
	ranges := make([]int64, n)
	from := make([]int, n)
	fromDim := make([]int, n)
	known := make([]bool, n)
	for i := range from {
		from[i] = -1
	}
	for oi, m := range d.Maps {
		sh := shape(op.Operands[oi].Type)
		for ri, e := range m.Results {
			if e.Kind != ir.AffineDim || ri >= len(sh) {
				continue
			}
			l, size := e.Pos, sh[ri]
			if !known[l] {
				known[l] = true
				ranges[l], from[l], fromDim[l] = size, oi, ri
				continue
			}
			if ranges[l] == ir.Dynamic {
				ranges[l], from[l], fromDim[l] = size, oi, ri
				continue
			}
			if size != ir.Dynamic && size != ranges[l] {
				return nil, ir.OpErrorf(op, "shape mismatch: loop dimension d%d is %d (dimension %d of operand #%d, '%s') but %d (dimension %d of operand #%d, '%s')",
					l, ranges[l], fromDim[l], from[l], ir.TypeString(op.Operands[from[l]].Type), size, ri, oi, ir.TypeString(op.Operands[oi].Type))
			}
		}
	}
	for l := range known {
		if !known[l] {
			return nil, ir.OpErrorf(op, "loop dimension d%d is not the bare index of any operand dimension, so its size is unknown", l)
		}
	}
	return ranges, nil
}

// Generalize returns the linalg.generic equivalent to a structured op:
// same operands, results and position, the op's indexing maps and iterator
// types, and its body (written out for named ops). The op itself is left
// untouched; the caller replaces it. A linalg.generic is cloned.
func Generalize(op *ir.Operation) (*ir.Operation, error) {
	d, err := DefinitionOf(op)
	if err != nil {
		return nil, err
	}
	if op.Name == "linalg.generic" {
		return ir.Clone(op, nil), nil
	}
	var maps, its []ir.Attribute
	for _, m := range d.Maps {
		maps = append(maps, ir.AffineMapAttr{Map: m})
	}
	for _, it := range d.Iterators {
		its = append(its, ir.StringAttr{Value: it})
	}
	attrs := []ir.NamedAttr{
		{Name: "indexing_maps", Value: &ir.ArrayAttr{Elems: maps}},
		{Name: "iterator_types", Value: &ir.ArrayAttr{Elems: its}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(Ins(op)), len(Outs(op)))},
	}
	var g *ir.Operation
	if op.Name == "linalg.reduce" || op.Name == "linalg.map" {
		g = ir.Clone(op, nil)
		g.Name = "linalg.generic"
		g.Attrs = attrs
		if op.Name == "linalg.map" {
			b := g.Regions[0].Blocks[0]
			out := Outs(op)[0]
			b.Args = append(b.Args, &ir.Value{Type: arith.ElementType(out.Type), Block: b, Index: len(b.Args), Name: "out"})
		}
		return g, nil
	}
	var types []ir.Type
	for _, r := range op.Results {
		types = append(types, r.Type)
	}
	g = ir.NewOp("linalg.generic", append([]*ir.Value(nil), op.Operands...), types, attrs)
	g.Pos, g.Loc = op.Pos, op.Loc
	var argTypes []ir.Type
	for _, v := range op.Operands {
		argTypes = append(argTypes, arith.ElementType(v.Type))
	}
	b := g.AddRegion().AddBlock(argTypes...)
	outT := argTypes[len(argTypes)-1]
	emit := func(name string, t ir.Type, vs ...*ir.Value) *ir.Value {
		o := ir.NewOp(name, vs, []ir.Type{t}, nil)
		o.Pos = op.Pos
		b.Append(o)
		return o.Results[0]
	}
	var y *ir.Value
	switch op.Name {
	case "linalg.fill", "linalg.copy", "linalg.transpose", "linalg.broadcast":
		y, err = convert(emit, b.Args[0], outT)
		if err != nil {
			return nil, ir.OpErrorf(op, "%v", err)
		}
	case "linalg.pooling_nhwc_sum", "linalg.pooling_nchw_sum", "linalg.pooling_nhwc_max", "linalg.pooling_nchw_max", "linalg.pooling_nhwc_min":
		// The window operand only sizes the loops.
		a, err := convert(emit, b.Args[0], outT)
		if err != nil {
			return nil, ir.OpErrorf(op, "%v", err)
		}
		_, isFloat := outT.(ir.FloatType)
		var combine string
		switch {
		case strings.HasSuffix(op.Name, "_sum") && isFloat:
			combine = "arith.addf"
		case strings.HasSuffix(op.Name, "_sum"):
			combine = "arith.addi"
		case strings.HasSuffix(op.Name, "_max") && isFloat:
			combine = "arith.maximumf"
		case strings.HasSuffix(op.Name, "_max"):
			combine = "arith.maxsi"
		case isFloat:
			combine = "arith.minimumf"
		default:
			combine = "arith.minsi"
		}
		y = emit(combine, outT, b.Args[2], a)
	case "linalg.quantized_matmul", "linalg.quantized_batch_matmul":
		// acc + (a - azp) * (b - bzp), every operand cast to the
		// accumulator's type first (MLIR's QuantizedMatmulOp).
		var cs [4]*ir.Value
		for i := range cs {
			if cs[i], err = convert(emit, b.Args[i], outT); err != nil {
				return nil, ir.OpErrorf(op, "%v", err)
			}
		}
		sub, mul, add := "arith.subi", "arith.muli", "arith.addi"
		if _, ok := outT.(ir.FloatType); ok {
			sub, mul, add = "arith.subf", "arith.mulf", "arith.addf"
		}
		y = emit(add, outT, b.Args[4], emit(mul, outT, emit(sub, outT, cs[0], cs[2]), emit(sub, outT, cs[1], cs[3])))
	default: // matmul and convolution families: acc + a * b, in the accumulator's type
		a, err := convert(emit, b.Args[0], outT)
		if err != nil {
			return nil, ir.OpErrorf(op, "%v", err)
		}
		c, err := convert(emit, b.Args[1], outT)
		if err != nil {
			return nil, ir.OpErrorf(op, "%v", err)
		}
		if _, ok := outT.(ir.FloatType); ok {
			y = emit("arith.addf", outT, b.Args[2], emit("arith.mulf", outT, a, c))
		} else {
			y = emit("arith.addi", outT, b.Args[2], emit("arith.muli", outT, a, c))
		}
	}
	yield := ir.NewOp("linalg.yield", []*ir.Value{y}, nil, nil)
	yield.Pos = op.Pos
	b.Append(yield)
	return g, nil
}

// convert casts a scalar to type t as linalg's named ops do: floats are
// extended or truncated, signed integers extended or truncated, integers
// converted to floats as signed.
func convert(emit func(string, ir.Type, ...*ir.Value) *ir.Value, v *ir.Value, t ir.Type) (*ir.Value, error) {
	if ir.TypesEqual(v.Type, t) {
		return v, nil
	}
	fw := func(x ir.Type) int {
		switch f := x.(ir.FloatType); f.Name {
		case "f16", "bf16":
			return 16
		case "f32":
			return 32
		case "f64":
			return 64
		}
		return 0
	}
	switch from := v.Type.(type) {
	case ir.FloatType:
		if _, ok := t.(ir.FloatType); ok {
			if fw(from) < fw(t) {
				return emit("arith.extf", t, v), nil
			}
			return emit("arith.truncf", t, v), nil
		}
	case ir.IntegerType:
		switch to := t.(type) {
		case ir.FloatType:
			return emit("arith.sitofp", t, v), nil
		case ir.IntegerType:
			if from.Width < to.Width {
				return emit("arith.extsi", t, v), nil
			}
			return emit("arith.trunci", t, v), nil
		}
	}
	return nil, errUnconvertible{v.Type, t}
}

type errUnconvertible struct{ from, to ir.Type }

func (e errUnconvertible) Error() string {
	return "cannot convert '" + ir.TypeString(e.from) + "' to '" + ir.TypeString(e.to) + "'"
}

// ReductionDims returns the reduction loop dimensions, in order.
func (d *Definition) ReductionDims() []int {
	var out []int
	for i, it := range d.Iterators {
		if it == Reduction {
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}
