package stablehlotolinalg

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// structFields reads the `key = value, ...` body of a dialect struct
// attribute such as #stablehlo.conv<raw input_batch_dimension = 0, ...>
// or #stablehlo.dot<lhs_contracting_dimensions = [1], ...>, where each
// value is an integer or a bracketed list of them. The leading `raw`
// keyword of the conv form is skipped.
func structFields(body string) (map[string][]int64, error) {
	out := map[string][]int64{}
	s := strings.TrimSpace(body)
	if rest, ok := strings.CutPrefix(s, "raw"); ok && (rest == "" || strings.TrimLeft(rest, " \t\r\n") != rest) {
		s = strings.TrimSpace(rest)
	}
	for s != "" {
		key, rest, ok := strings.Cut(s, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, ",[] ") {
			return nil, fmt.Errorf("expected 'name = value' at %q", s)
		}
		rest = strings.TrimSpace(rest)
		var val string
		if strings.HasPrefix(rest, "[") {
			list, after, ok := strings.Cut(rest[1:], "]")
			if !ok {
				return nil, fmt.Errorf("'%s' has an unterminated list", key)
			}
			val, rest = list, after
		} else {
			val, rest, _ = strings.Cut(rest, ",")
			rest = "," + rest
		}
		vs := []int64{}
		for _, f := range strings.Split(val, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("'%s' has a non-integer entry %q", key, f)
			}
			vs = append(vs, v)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("'%s' is given twice", key)
		}
		out[key] = vs
		rest = strings.TrimSpace(rest)
		if rest != "" && !strings.HasPrefix(rest, ",") {
			return nil, fmt.Errorf("expected ',' after '%s'", key)
		}
		s = strings.TrimSpace(strings.TrimPrefix(rest, ","))
	}
	return out, nil
}

// convDims are a convolution's dimension numbers: where the batch,
// feature and spatial dimensions of the input, kernel and output are.
type convDims struct {
	inBatch, inFeature, kOut, kIn, outBatch, outFeature int
	inSpatial, kSpatial, outSpatial                     []int
}

// convDimensionNumbers reads and checks dimension_numbers against the
// operand ranks: each tensor's dimensions must be named exactly once.
func (c *converter) convDimensionNumbers(rank int) (*convDims, error) {
	a, ok := c.op.Attr("dimension_numbers").(*ir.OpaqueAttr)
	if !ok || !strings.HasSuffix(a.Name, ".conv") {
		return nil, c.errorf("requires a dimension_numbers attribute such as #stablehlo.conv<raw ...>")
	}
	f, err := structFields(a.Body)
	if err != nil {
		return nil, c.errorf("dimension_numbers: %v", err)
	}
	one := func(k string) (int, error) {
		v, ok := f[k]
		if !ok || len(v) != 1 {
			return 0, c.errorf("dimension_numbers: requires '%s', one integer", k)
		}
		return int(v[0]), nil
	}
	list := func(k string) ([]int, error) {
		v, ok := f[k]
		if !ok || len(v) != rank-2 {
			return nil, c.errorf("dimension_numbers: requires '%s', a list of %d integers", k, rank-2)
		}
		out := make([]int, len(v))
		for i, x := range v {
			out[i] = int(x)
		}
		return out, nil
	}
	var d convDims
	for _, p := range []struct {
		k string
		v *int
	}{{"input_batch_dimension", &d.inBatch}, {"input_feature_dimension", &d.inFeature},
		{"kernel_output_feature_dimension", &d.kOut}, {"kernel_input_feature_dimension", &d.kIn},
		{"output_batch_dimension", &d.outBatch}, {"output_feature_dimension", &d.outFeature}} {
		if *p.v, err = one(p.k); err != nil {
			return nil, err
		}
	}
	for _, p := range []struct {
		k string
		v *[]int
	}{{"input_spatial_dimensions", &d.inSpatial}, {"kernel_spatial_dimensions", &d.kSpatial}, {"output_spatial_dimensions", &d.outSpatial}} {
		if *p.v, err = list(p.k); err != nil {
			return nil, err
		}
	}
	for _, t := range []struct {
		what string
		dims []int
	}{{"input", append([]int{d.inBatch, d.inFeature}, d.inSpatial...)},
		{"kernel", append([]int{d.kOut, d.kIn}, d.kSpatial...)},
		{"output", append([]int{d.outBatch, d.outFeature}, d.outSpatial...)}} {
		seen := make([]bool, rank)
		for _, x := range t.dims {
			if x < 0 || x >= rank || seen[x] {
				return nil, c.errorf("dimension_numbers: the %s dimensions %v are not a permutation of 0..%d", t.what, t.dims, rank-1)
			}
			seen[x] = true
		}
	}
	return &d, nil
}

// intsOr is ints with a default of n copies of def when the attribute is
// absent.
func (c *converter) intsOr(name string, n int, def int64) ([]int64, error) {
	if c.op.Attr(name) == nil {
		out := make([]int64, n)
		for i := range out {
			out[i] = def
		}
		return out, nil
	}
	return c.intsOfLen(name, n)
}

// convolution lowers a convolution (batch_group_count 1, no lhs dilation
// or window reversal) to a linalg.generic with the loops (batch, output
// spatial..., group, output feature in group) in parallel
// and (kernel spatial..., input feature in group) reducing:
//
//	out[b, o..., g*O/G + f] += in[b, o*stride + k*rhs_dilation..., g*C/G + c] * kernel[k..., c, g*O/G + f]
//
// The input is first padded (a fill with zero and a tensor.insert_slice)
// when padding asks for it. An output index must be one loop, so with
// feature groups the generic writes the output with its feature
// dimension split into (G, O/G) and a flow.tensor.reshape joins them.
func (c *converter) convolution(rt *ir.TensorType) error {
	if len(c.op.Operands) != 2 {
		return c.errorf("expects an input and a kernel")
	}
	lhs, rhs := c.op.Operands[0], c.op.Operands[1]
	lt, kt := stablehlo.Ranked(lhs.Type), stablehlo.Ranked(rhs.Type)
	rank := len(lt.Shape)
	if rank < 2 || len(kt.Shape) != rank || len(rt.Shape) != rank {
		return c.errorf("input '%s', kernel '%s' and result '%s' must have one rank, 2 or more", ir.TypeString(lt), ir.TypeString(kt), ir.TypeString(rt))
	}
	d, err := c.convDimensionNumbers(rank)
	if err != nil {
		return err
	}
	ns := rank - 2
	if bg, ok := c.op.IntAttr("batch_group_count"); ok && bg != 1 {
		return c.errorf("batch_group_count %d is not supported yet (only 1)", bg)
	}
	groups := int64(1)
	if g, ok := c.op.IntAttr("feature_group_count"); ok {
		groups = g
	}
	strides, err := c.intsOr("window_strides", ns, 1)
	if err != nil {
		return err
	}
	rdil, err := c.intsOr("rhs_dilation", ns, 1)
	if err != nil {
		return err
	}
	ldil, err := c.intsOr("lhs_dilation", ns, 1)
	if err != nil {
		return err
	}
	pad, err := c.intsOr("padding", 2*ns, 0)
	if err != nil {
		return err
	}
	for i := 0; i < ns; i++ {
		if ldil[i] != 1 {
			return c.errorf("lhs_dilation %v is not supported yet (only 1)", ldil)
		}
		if strides[i] < 1 || rdil[i] < 1 {
			return c.errorf("window_strides %v and rhs_dilation %v must be positive", strides, rdil)
		}
		if pad[2*i] < 0 || pad[2*i+1] < 0 {
			return c.errorf("negative padding %v is not supported yet", pad)
		}
	}
	if rev, ok := c.op.Attr("window_reversal").(*ir.DenseAttr); ok {
		for _, e := range rev.Elements {
			if b, ok := e.(ir.BoolAttr); ok && b.Value {
				return c.errorf("window_reversal is not supported yet")
			}
		}
	}
	// StableHLO's spelling, array<i1: ...>, which its custom form parses into.
	if rev, ok := c.op.Attr("window_reversal").(*ir.DenseArrayAttr); ok && slices.Contains(rev.Values, 1) {
		return c.errorf("window_reversal is not supported yet")
	}
	cin, cout := lt.Shape[d.inFeature], kt.Shape[d.kOut]
	if groups < 1 || cin%groups != 0 || cout%groups != 0 {
		return c.errorf("feature_group_count %d does not divide the %d input and %d output features", groups, cin, cout)
	}
	if kt.Shape[d.kIn] != cin/groups {
		return c.errorf("kernel input features (%d, dimension %d of '%s') must be the input's features (%d, dimension %d of '%s') divided by feature_group_count %d",
			kt.Shape[d.kIn], d.kIn, ir.TypeString(kt), cin, d.inFeature, ir.TypeString(lt), groups)
	}
	if rt.Shape[d.outFeature] != cout || rt.Shape[d.outBatch] != lt.Shape[d.inBatch] {
		return c.errorf("result '%s' must have the input's batch (%d) and the kernel's output features (%d)", ir.TypeString(rt), lt.Shape[d.inBatch], cout)
	}
	// Pad the input, then check each output extent against the window.
	lo, hi := make([]int64, rank), make([]int64, rank)
	padded := append([]int64(nil), lt.Shape...)
	for i, sd := range d.inSpatial {
		lo[sd], hi[sd] = pad[2*i], pad[2*i+1]
		padded[sd] += lo[sd] + hi[sd]
		window := (kt.Shape[d.kSpatial[i]]-1)*rdil[i] + 1
		want := int64(0)
		if padded[sd] >= window {
			want = (padded[sd]-window)/strides[i] + 1
		}
		if rt.Shape[d.outSpatial[i]] != want {
			return c.errorf("spatial dimension %d: a window of %d (kernel %d, dilation %d) by stride %d over %d (padded) gives %d, but the result '%s' has %d",
				i, window, kt.Shape[d.kSpatial[i]], rdil[i], strides[i], padded[sd], want, ir.TypeString(rt), rt.Shape[d.outSpatial[i]])
		}
	}
	zero := func(x builder, _ []*ir.Value) (*ir.Value, error) { return x.constant(lt.Elem, 0), nil }
	in, err := c.padTo(lhs, lo, hi, zero)
	if err != nil {
		return err
	}
	// Loops: batch and output spatial, group, feature in group, then
	// kernel spatial and input feature in group. The first loop is the
	// one split among workgroups, so a batch of one goes after the
	// spatial loops.
	lSpatial := func(i int) int { return i + 1 }
	lBatch, lGroup, lOut := 0, ns+1, ns+2
	if lt.Shape[d.inBatch] == 1 {
		lSpatial = func(i int) int { return i }
		lBatch = ns
	}
	lK := func(i int) int { return ns + 3 + i }
	lIn := 2*ns + 3
	loops := 2*ns + 4
	scaled := func(l int, k int64) *ir.AffineExpr {
		if k == 1 {
			return dim(l)
		}
		return &ir.AffineExpr{Kind: ir.AffineMul, LHS: dim(l), RHS: affConst(k)}
	}
	add := func(a, b *ir.AffineExpr) *ir.AffineExpr { return &ir.AffineExpr{Kind: ir.AffineAdd, LHS: a, RHS: b} }
	grouped := func(l int, size int64) *ir.AffineExpr {
		if groups == 1 {
			return dim(l)
		}
		return add(scaled(lGroup, size), dim(l))
	}
	inMap := &ir.AffineMap{NumDims: loops, Results: make([]*ir.AffineExpr, rank)}
	inMap.Results[d.inBatch] = dim(lBatch)
	inMap.Results[d.inFeature] = grouped(lIn, cin/groups)
	kMap := &ir.AffineMap{NumDims: loops, Results: make([]*ir.AffineExpr, rank)}
	kMap.Results[d.kIn] = dim(lIn)
	kMap.Results[d.kOut] = grouped(lOut, cout/groups)
	for i := 0; i < ns; i++ {
		inMap.Results[d.inSpatial[i]] = add(scaled(lSpatial(i), strides[i]), scaled(lK(i), rdil[i]))
		kMap.Results[d.kSpatial[i]] = dim(lK(i))
	}
	// The generic's output: the result, its feature dimension split in
	// (groups, features per group) when there are groups.
	var gshape []int64
	outMap := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
	for r := 0; r < rank; r++ {
		switch {
		case r == d.outBatch:
			outMap.Results = append(outMap.Results, dim(lBatch))
		case r == d.outFeature && groups > 1:
			outMap.Results = append(outMap.Results, dim(lGroup), dim(lOut))
			gshape = append(gshape, groups)
		case r == d.outFeature:
			outMap.Results = append(outMap.Results, dim(lOut))
		default:
			for i, o := range d.outSpatial {
				if o == r {
					outMap.Results = append(outMap.Results, dim(lSpatial(i)))
				}
			}
		}
		gshape = append(gshape, rt.Shape[r])
		if r == d.outFeature && groups > 1 {
			gshape[len(gshape)-1] = cout / groups
		}
	}
	if groups == 1 {
		// Without groups nothing indexes the group loop, and a loop
		// takes its extent from an operand dimension it indexes: drop it.
		return c.convGeneric(in, rhs, dropLoop([]*ir.AffineMap{inMap, kMap, outMap}, lGroup), loops-1, ns, rt, rt)
	}
	gt := &ir.TensorType{Shape: gshape, Elem: rt.Elem}
	return c.convGeneric(in, rhs, []*ir.AffineMap{inMap, kMap, outMap}, loops, ns, gt, rt)
}

// dropLoop removes loop l, which no map uses, from maps.
func dropLoop(maps []*ir.AffineMap, l int) []*ir.AffineMap {
	var renumber func(e *ir.AffineExpr) *ir.AffineExpr
	renumber = func(e *ir.AffineExpr) *ir.AffineExpr {
		if e == nil {
			return nil
		}
		c := *e
		if c.Kind == ir.AffineDim && c.Pos > l {
			c.Pos--
		}
		c.LHS, c.RHS = renumber(e.LHS), renumber(e.RHS)
		return &c
	}
	out := make([]*ir.AffineMap, len(maps))
	for i, m := range maps {
		n := &ir.AffineMap{NumDims: m.NumDims - 1, Results: []*ir.AffineExpr{}}
		for _, e := range m.Results {
			n.Results = append(n.Results, renumber(e))
		}
		out[i] = n
	}
	return out
}

// convGeneric emits the convolution's accumulation into a zero-filled
// tensor of type gt (the last map's) over loops loops, the last ns+1 of
// them reductions, and reshapes it to rt when the types differ.
func (c *converter) convGeneric(in, kernel *ir.Value, maps []*ir.AffineMap, loops, ns int, gt, rt *ir.TensorType) error {
	lt, kt := stablehlo.Ranked(in.Type), stablehlo.Ranked(kernel.Type)
	if isFloat(lt.Elem) != isFloat(rt.Elem) || isFloat(kt.Elem) != isFloat(rt.Elem) {
		return c.errorf("mixed integer and float operands are not supported")
	}
	for _, t := range []ir.Type{lt.Elem, kt.Elem} {
		if isFloat(t) && floatBits(t) > floatBits(rt.Elem) || !isFloat(t) && intWidth(t) > intWidth(rt.Elem) {
			return c.errorf("operand element type '%s' is wider than the result's '%s'", ir.TypeString(t), ir.TypeString(rt.Elem))
		}
	}
	iters := make([]string, loops)
	for i := range iters {
		iters[i] = "parallel"
		if i >= loops-ns-1 {
			iters[i] = "reduction"
		}
	}
	empty := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{gt}, nil)).Results[0]
	n := len(gt.Shape)
	par := make([]string, n)
	for i := range par {
		par[i] = "parallel"
	}
	zero, err := c.genericOp(nil, []*ir.AffineMap{identity(n)}, empty, par, func(x builder, _ []*ir.Value) (*ir.Value, error) {
		return x.constant(rt.Elem, 0), nil
	})
	if err != nil {
		return err
	}
	acc, err := c.genericOp([]*ir.Value{in, kernel}, maps, zero, iters, func(x builder, a []*ir.Value) (*ir.Value, error) {
		l, r := x.extend(a[0], rt.Elem), x.extend(a[1], rt.Elem)
		if isFloat(rt.Elem) {
			return x.bin("arith.addf", a[2], x.bin("arith.mulf", l, r)), nil
		}
		return x.bin("arith.addi", a[2], x.bin("arith.muli", l, r)), nil
	})
	if err != nil {
		return err
	}
	if !sameType(gt, rt) {
		acc = c.emit(ir.NewOp("flow.tensor.reshape", []*ir.Value{acc}, []ir.Type{rt}, []ir.NamedAttr{
			{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 0, 0)},
		})).Results[0]
	}
	c.replace(acc)
	return nil
}

// padTo returns v with lo[d] and hi[d] elements added before and after
// each dimension d, holding fill's value (fill gets no arguments, or the
// rank-0 tensor in its single input when value is given), or v itself
// when nothing is added.
func (c *converter) padTo(v *ir.Value, lo, hi []int64, fill scalarFunc, value ...*ir.Value) (*ir.Value, error) {
	t := stablehlo.Ranked(v.Type)
	n := len(t.Shape)
	shape := append([]int64(nil), t.Shape...)
	grown := false
	for d := range shape {
		shape[d] += lo[d] + hi[d]
		grown = grown || lo[d] != 0 || hi[d] != 0
	}
	if !grown {
		return v, nil
	}
	pt := &ir.TensorType{Shape: shape, Elem: t.Elem}
	empty := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{pt}, nil)).Results[0]
	par := make([]string, n)
	ones := make([]int64, n)
	for i := range par {
		par[i] = "parallel"
		ones[i] = 1
	}
	maps := []*ir.AffineMap{identity(n)}
	if len(value) > 0 {
		maps = []*ir.AffineMap{{NumDims: n, Results: []*ir.AffineExpr{}}, identity(n)}
	}
	filled, err := c.genericOp(value, maps, empty, par, fill)
	if err != nil {
		return nil, err
	}
	return c.emit(ir.NewOp("tensor.insert_slice", []*ir.Value{v, filled}, []ir.Type{pt}, []ir.NamedAttr{
		{Name: "static_offsets", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: lo}},
		{Name: "static_sizes", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: append([]int64(nil), t.Shape...)}},
		{Name: "static_strides", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: ones}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, 0, 0, 0)},
	})).Results[0], nil
}
