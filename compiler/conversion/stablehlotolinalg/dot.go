package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// dot contracts the last dimension of lhs (rank 1 or 2) with the first of
// rhs (rank 1 or 2): matrix-matrix, matrix-vector, vector-matrix or
// vector-vector. The loops are the result's dimensions and then k.
func (c *converter) dot(rt *ir.TensorType) error {
	lt, rht := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Operands[1].Type)
	nl, nr := len(lt.Shape), len(rht.Shape)
	if nl < 1 || nl > 2 || nr < 1 || nr > 2 || len(rt.Shape) != nl+nr-2 || lt.Shape[nl-1] != rht.Shape[0] ||
		nl == 2 && rt.Shape[0] != lt.Shape[0] || nr == 2 && rt.Shape[len(rt.Shape)-1] != rht.Shape[1] {
		return c.errorf("cannot contract '%s' with '%s' into '%s'", ir.TypeString(lt), ir.TypeString(rht), ir.TypeString(rt))
	}
	if isFloat(lt.Elem) != isFloat(rt.Elem) || isFloat(rht.Elem) != isFloat(rt.Elem) {
		return c.errorf("mixed integer and float operands are not supported")
	}
	for _, t := range []ir.Type{lt.Elem, rht.Elem} {
		if isFloat(t) && floatBits(t) > floatBits(rt.Elem) || !isFloat(t) && intWidth(t) > intWidth(rt.Elem) {
			return c.errorf("operand element type '%s' is wider than the result's '%s'", ir.TypeString(t), ir.TypeString(rt.Elem))
		}
	}
	nres := len(rt.Shape)
	k := dim(nres)
	loops := nres + 1
	lm := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{k}}
	if nl == 2 {
		lm.Results = []*ir.AffineExpr{dim(0), k}
	}
	rm := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{k}}
	if nr == 2 {
		rm.Results = []*ir.AffineExpr{k, dim(nres - 1)}
	}
	om := identity(nres)
	om.NumDims = loops
	iters := make([]string, loops)
	for i := range iters {
		iters[i] = "parallel"
	}
	iters[nres] = "reduction"
	// The accumulator starts at zero.
	empty := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	zero, err := c.genericOp(nil, []*ir.AffineMap{identity(nres)}, empty, iters[:nres], func(x builder, _ []*ir.Value) (*ir.Value, error) {
		return x.constant(rt.Elem, 0), nil
	})
	if err != nil {
		return err
	}
	acc, err := c.genericOp(c.op.Operands, []*ir.AffineMap{lm, rm, om}, zero, iters, func(x builder, a []*ir.Value) (*ir.Value, error) {
		l, r := x.extend(a[0], rt.Elem), x.extend(a[1], rt.Elem)
		if isFloat(rt.Elem) {
			return x.bin("arith.addf", a[2], x.bin("arith.mulf", l, r)), nil
		}
		return x.bin("arith.addi", a[2], x.bin("arith.muli", l, r)), nil
	})
	if err != nil {
		return err
	}
	c.replace(acc)
	return nil
}

// extend widens v to type t (sign-extending integers), or returns it.
func (x builder) extend(v *ir.Value, t ir.Type) *ir.Value {
	if ir.TypeString(v.Type) == ir.TypeString(t) {
		return v
	}
	if isFloat(t) {
		return x.op("arith.extf", []*ir.Value{v}, t)
	}
	return x.op("arith.extsi", []*ir.Value{v}, t)
}
