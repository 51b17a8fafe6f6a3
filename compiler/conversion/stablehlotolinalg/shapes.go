package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/conversion/internal/rewrite"
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// ints reads integer-list attribute name, written array<i64: ...>
// (StableHLO) or dense<...> : tensor<Nxi64> (MHLO); ok is false when it
// is absent or of another kind.
func (c *converter) ints(name string) ([]int64, bool) {
	switch a := c.op.Attr(name).(type) {
	case *ir.DenseArrayAttr:
		return a.Values, true
	case *ir.DenseAttr:
		var out []int64
		for i := range a.Elements {
			v, ok := a.Elements[i].(ir.IntegerAttr)
			if !ok {
				return nil, false
			}
			out = append(out, v.Value)
		}
		if t, ok := a.Type.(*ir.TensorType); ok && a.Splat && len(out) == 1 {
			for int64(len(out)) < numElements(t) {
				out = append(out, out[0])
			}
		}
		if len(a.Elements) == 0 {
			out = []int64{}
		}
		return out, true
	}
	return nil, false
}

// intsOfLen is ints that also requires n entries.
func (c *converter) intsOfLen(name string, n int) ([]int64, error) {
	v, ok := c.ints(name)
	if !ok || len(v) != n {
		return nil, c.errorf("requires '%s', a list of %d integers", name, n)
	}
	return v, nil
}

func dim(d int) *ir.AffineExpr { return &ir.AffineExpr{Kind: ir.AffineDim, Pos: d} }

func affConst(v int64) *ir.AffineExpr { return &ir.AffineExpr{Kind: ir.AffineConst, Value: v} }

func numElements(t *ir.TensorType) int64 {
	n := int64(1)
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

// copyThrough emits result[d...] = operand[m(d...)].
func (c *converter) copyThrough(m *ir.AffineMap, rt *ir.TensorType) error {
	return c.generic(c.op.Operands[:1], []*ir.AffineMap{m}, rt, func(x builder, a []*ir.Value) (*ir.Value, error) { return a[0], nil })
}

func (c *converter) reshape(rt *ir.TensorType) error {
	src := c.op.Operands[0]
	if n, m := numElements(stablehlo.Ranked(src.Type)), numElements(rt); n != m {
		return c.errorf("reshape of %d elements to %d", n, m)
	}
	r := c.emit(ir.NewOp("flow.tensor.reshape", []*ir.Value{src}, []ir.Type{rt}, []ir.NamedAttr{
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 0, 0)},
	}))
	c.replace(r.Results[0])
	return nil
}

// transpose reads result[..., k, ...] from input dimension permutation[k].
func (c *converter) transpose(rt *ir.TensorType) error {
	in := stablehlo.Ranked(c.op.Operands[0].Type)
	perm, err := c.intsOfLen("permutation", len(in.Shape))
	if err != nil {
		return err
	}
	m := &ir.AffineMap{NumDims: len(rt.Shape), Results: make([]*ir.AffineExpr, len(in.Shape))}
	for k, p := range perm {
		if p < 0 || int(p) >= len(in.Shape) || m.Results[p] != nil || len(rt.Shape) != len(in.Shape) || !sameSize(in.Shape[p], rt.Shape[k]) {
			return c.errorf("permutation %v does not map '%s' to '%s'", perm, ir.TypeString(in), ir.TypeString(rt))
		}
		m.Results[p] = dim(k)
	}
	return c.copyThrough(m, rt)
}

// broadcastInDim reads operand dimension i at result dimension
// broadcast_dimensions[i], or at 0 where the operand's size is 1.
func (c *converter) broadcastInDim(rt *ir.TensorType) error {
	in := stablehlo.Ranked(c.op.Operands[0].Type)
	dims, err := c.intsOfLen("broadcast_dimensions", len(in.Shape))
	if err != nil {
		return err
	}
	m := &ir.AffineMap{NumDims: len(rt.Shape), Results: []*ir.AffineExpr{}}
	for i, d := range dims {
		if d < 0 || int(d) >= len(rt.Shape) || in.Shape[i] != 1 && in.Shape[i] != rt.Shape[d] {
			return c.errorf("broadcast_dimensions %v do not map '%s' into '%s'", dims, ir.TypeString(in), ir.TypeString(rt))
		}
		e := dim(int(d))
		if in.Shape[i] == 1 && rt.Shape[d] != 1 {
			e = affConst(0)
		}
		m.Results = append(m.Results, e)
	}
	return c.copyThrough(m, rt)
}

// broadcast prepends broadcast_sizes dimensions: result[b..., i...] =
// operand[i...].
func (c *converter) broadcast(rt *ir.TensorType) error {
	in := stablehlo.Ranked(c.op.Operands[0].Type)
	sizes, ok := c.ints("broadcast_sizes")
	if !ok || len(sizes)+len(in.Shape) != len(rt.Shape) {
		return c.errorf("requires 'broadcast_sizes' giving the %d leading dimensions of '%s'", len(rt.Shape)-len(in.Shape), ir.TypeString(rt))
	}
	m := &ir.AffineMap{NumDims: len(rt.Shape), Results: []*ir.AffineExpr{}}
	for i, s := range in.Shape {
		d := len(sizes) + i
		if s != rt.Shape[d] {
			return c.errorf("operand '%s' does not match the trailing dimensions of '%s'", ir.TypeString(in), ir.TypeString(rt))
		}
		m.Results = append(m.Results, dim(d))
	}
	for i, s := range sizes {
		if s != rt.Shape[i] {
			return c.errorf("broadcast_sizes %v do not match the result '%s'", sizes, ir.TypeString(rt))
		}
	}
	return c.copyThrough(m, rt)
}

// pad fills the result with the (rank-0) padding value and inserts the
// operand at the low edge padding; interior and negative padding are
// refused.
func (c *converter) pad(rt *ir.TensorType) error {
	in := stablehlo.Ranked(c.op.Operands[0].Type)
	n := len(in.Shape)
	if pv := stablehlo.Ranked(c.op.Operands[1].Type); len(c.op.Operands) != 2 || len(pv.Shape) != 0 {
		return c.errorf("requires a rank-0 padding value")
	}
	lo, err := c.intsOfLen("edge_padding_low", n)
	if err != nil {
		return err
	}
	hi, err := c.intsOfLen("edge_padding_high", n)
	if err != nil {
		return err
	}
	interior, err := c.intsOfLen("interior_padding", n)
	if err != nil {
		return err
	}
	for d := 0; d < n; d++ {
		if interior[d] != 0 || lo[d] < 0 || hi[d] < 0 {
			return c.errorf("interior or negative padding is not supported yet")
		}
		if len(rt.Shape) != n || lo[d]+in.Shape[d]+hi[d] != rt.Shape[d] {
			return c.errorf("padding %v/%v of '%s' does not give '%s'", lo, hi, ir.TypeString(in), ir.TypeString(rt))
		}
	}
	r, err := c.padTo(c.op.Operands[0], lo, hi, func(x builder, a []*ir.Value) (*ir.Value, error) { return a[0], nil }, c.op.Operands[1])
	if err != nil {
		return err
	}
	if r == c.op.Operands[0] {
		// Nothing to add: the result is the operand, under its own name.
		c.forward([]*ir.Value{r})
		return nil
	}
	c.replace(r)
	return nil
}

// slice reads result[i] = input[start + i*stride] in each dimension.
func (c *converter) slice(rt *ir.TensorType) error {
	in := stablehlo.Ranked(c.op.Operands[0].Type)
	n := len(in.Shape)
	start, err := c.intsOfLen("start_indices", n)
	if err != nil {
		return err
	}
	limit, err := c.intsOfLen("limit_indices", n)
	if err != nil {
		return err
	}
	strides, err := c.intsOfLen("strides", n)
	if err != nil {
		return err
	}
	m := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	for d := 0; d < n; d++ {
		if len(rt.Shape) != n || strides[d] < 1 || start[d] < 0 || limit[d] > in.Shape[d] || start[d] > limit[d] ||
			rt.Shape[d] != (limit[d]-start[d]+strides[d]-1)/strides[d] {
			return c.errorf("slice [%d, %d) by %d of dimension %d (%d) does not give the result '%s'", start[d], limit[d], strides[d], d, in.Shape[d], ir.TypeString(rt))
		}
		e := &ir.AffineExpr{Kind: ir.AffineMul, LHS: dim(d), RHS: affConst(strides[d])}
		m.Results = append(m.Results, &ir.AffineExpr{Kind: ir.AffineAdd, LHS: e, RHS: affConst(start[d])})
	}
	return c.copyThrough(m, rt)
}

// iota writes each element's index along iota_dimension.
func (c *converter) iota(rt *ir.TensorType) error {
	d, ok := c.op.IntAttr("iota_dimension")
	if !ok || d < 0 || int(d) >= len(rt.Shape) {
		return c.errorf("requires an integer 'iota_dimension' in [0, %d)", len(rt.Shape))
	}
	return c.generic(nil, nil, rt, func(x builder, _ []*ir.Value) (*ir.Value, error) {
		i := x.op("linalg.index", nil, ir.IndexType{}, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: d, Type: ir.I64}})
		if isFloat(rt.Elem) {
			i = x.op("arith.index_cast", []*ir.Value{i}, ir.I64)
			return x.op("arith.sitofp", []*ir.Value{i}, rt.Elem), nil
		}
		return x.op("arith.index_cast", []*ir.Value{i}, rt.Elem), nil
	})
}

// concatenate joins its operands along dimension as tensor.concat.
func (c *converter) concatenate(rt *ir.TensorType) error {
	axis, ok := c.op.IntAttr("dimension")
	if !ok || axis < 0 || int(axis) >= len(rt.Shape) {
		return c.errorf("requires an integer 'dimension' in [0, %d)", len(rt.Shape))
	}
	r, err := rewrite.Concat(c.op.Operands, rt, axis, stablehlo.Ranked, "operand", "dimension")
	if err != nil {
		return c.errorf("%v", err)
	}
	c.replace(c.emit(r).Results[0])
	return nil
}
