package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// customCall lowers the custom calls IREE's StableHLO input lowers:
// shape_assertion, which IREE drops (the shapes it asserts on are static
// or checked by the kernels), and ProductOfElementaryHouseholderReflectors.
// Any other target is refused.
func (c *converter) customCall() error {
	target, _ := c.op.Attr("call_target_name").(ir.StringAttr)
	switch target.Value {
	case "shape_assertion":
		if len(c.op.Results) != 0 {
			return c.errorf("shape_assertion has no results")
		}
		c.op.Remove()
		return nil
	case "ProductOfElementaryHouseholderReflectors":
		if len(c.op.Results) != 1 {
			return c.errorf("ProductOfElementaryHouseholderReflectors has one result")
		}
		return c.householderProduct(stablehlo.Ranked(c.op.Results[0].Type))
	}
	return c.errorf("custom_call target '%s' is not supported", target.Value)
}

// householderProduct computes the first n columns of the product
// Q = H_0 H_1 ... H_{k-1} of the Householder reflectors that an m x n
// matrix A (m >= n) and k factors tau describe, as LAPACK's orgqr does:
// H_i = I - tau_i v_i v_i^T with v_i[r] = 0 above row i, 1 at row i and
// A[r, i] below. Each H_i is one linalg.generic, the product k - 1
// contractions, and a tensor.extract_slice keeps n columns.
func (c *converter) householderProduct(rt *ir.TensorType) error {
	if len(c.op.Operands) != 2 {
		return c.errorf("expects a matrix and its factors tau")
	}
	a, tau := c.op.Operands[0], c.op.Operands[1]
	at, tt := stablehlo.Ranked(a.Type), stablehlo.Ranked(tau.Type)
	if len(at.Shape) != 2 || len(tt.Shape) != 1 || !isFloat(at.Elem) || !sameType(rt, at) || !sameType(tt.Elem, at.Elem) {
		return c.errorf("expects a float matrix '%s', a vector of its factors and a result of the matrix's type (no batch dimensions)", ir.TypeString(at))
	}
	m, n, k := at.Shape[0], at.Shape[1], tt.Shape[0]
	if k < 1 || k > n || n > m {
		return c.errorf("%d factors do not describe reflectors of a %dx%d matrix", k, m, n)
	}
	mm := &ir.TensorType{Shape: []int64{m, m}, Elem: at.Elem}
	reflector := func(i int64) (*ir.Value, error) {
		e := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{mm}, nil)).Results[0]
		maps := []*ir.AffineMap{
			{NumDims: 2, Results: []*ir.AffineExpr{dim(0), affConst(i)}},
			{NumDims: 2, Results: []*ir.AffineExpr{dim(1), affConst(i)}},
			{NumDims: 2, Results: []*ir.AffineExpr{affConst(i)}},
			identity(2),
		}
		return c.genericOp([]*ir.Value{a, a, tau}, maps, e, iterators(2, 0), func(x builder, v []*ir.Value) (*ir.Value, error) {
			// v(r) is 0 above row i, 1 at it, A[r, i] below.
			entry := func(loop int, val *ir.Value) *ir.Value {
				l := x.loopIndex(loop, ir.I64)
				ci := x.constant(ir.I64, i)
				below := x.sel(x.cmp("arith.cmpi", cmpiEQ, l, ci), x.constant(at.Elem, 1), val)
				return x.sel(x.cmp("arith.cmpi", cmpiSLT, l, ci), x.constant(at.Elem, 0), below)
			}
			h := x.bin("arith.mulf", x.bin("arith.mulf", entry(0, v[0]), entry(1, v[1])), v[2])
			diag := x.cmp("arith.cmpi", cmpiEQ, x.loopIndex(0, ir.I64), x.loopIndex(1, ir.I64))
			return x.bin("arith.subf", x.sel(diag, x.constant(at.Elem, 1), x.constant(at.Elem, 0)), h), nil
		})
	}
	q, err := reflector(0)
	if err != nil {
		return err
	}
	for i := int64(1); i < k; i++ {
		h, err := reflector(i)
		if err != nil {
			return err
		}
		e := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{mm}, nil)).Results[0]
		z, err := c.genericOp(nil, []*ir.AffineMap{identity(2)}, e, iterators(2, 0), func(x builder, _ []*ir.Value) (*ir.Value, error) {
			return x.constant(at.Elem, 0), nil
		})
		if err != nil {
			return err
		}
		maps := []*ir.AffineMap{
			{NumDims: 3, Results: []*ir.AffineExpr{dim(0), dim(2)}},
			{NumDims: 3, Results: []*ir.AffineExpr{dim(2), dim(1)}},
			{NumDims: 3, Results: []*ir.AffineExpr{dim(0), dim(1)}},
		}
		q, err = c.genericOp([]*ir.Value{q, h}, maps, z, iterators(2, 1), func(x builder, v []*ir.Value) (*ir.Value, error) {
			return x.bin("arith.addf", v[2], x.bin("arith.mulf", v[0], v[1])), nil
		})
		if err != nil {
			return err
		}
	}
	if n != m {
		q = c.emit(ir.NewOp("tensor.extract_slice", []*ir.Value{q}, []ir.Type{rt}, []ir.NamedAttr{
			{Name: "static_offsets", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{0, 0}}},
			{Name: "static_sizes", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{m, n}}},
			{Name: "static_strides", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{1, 1}}},
			{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 0, 0, 0)},
		})).Results[0]
	}
	c.replace(q)
	return nil
}
