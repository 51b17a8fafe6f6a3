package stablehlotolinalg

import (
	"strings"

	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// dot contracts the last dimension of lhs (rank 1 or 2) with the first of
// rhs (rank 1 or 2): matrix-matrix, matrix-vector, vector-matrix or
// vector-vector. The loops are the result's dimensions and then k.
func (c *converter) dot(rt *ir.TensorType) error {
	lt, rht := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Operands[1].Type)
	nl, nr := len(lt.Shape), len(rht.Shape)
	if nl < 1 || nl > 2 || nr < 1 || nr > 2 || len(rt.Shape) != nl+nr-2 || !sameSize(lt.Shape[nl-1], rht.Shape[0]) ||
		nl == 2 && !sameSize(rt.Shape[0], lt.Shape[0]) || nr == 2 && !sameSize(rt.Shape[len(rt.Shape)-1], rht.Shape[1]) {
		return c.errorf("cannot contract '%s' with '%s' into '%s'", ir.TypeString(lt), ir.TypeString(rht), ir.TypeString(rt))
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
	return c.contract(lm, rm, 1, rt)
}

// contract emits result[i...] = sum over the last nred loops of
// lhs[lm] * rhs[rm] (operands extended to the result type), into a
// zero-filled result whose dimensions are the leading loops.
func (c *converter) contract(lm, rm *ir.AffineMap, nred int, rt *ir.TensorType) error {
	lt, rht := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Operands[1].Type)
	if isFloat(lt.Elem) != isFloat(rt.Elem) || isFloat(rht.Elem) != isFloat(rt.Elem) {
		return c.errorf("mixed integer and float operands are not supported")
	}
	for _, t := range []ir.Type{lt.Elem, rht.Elem} {
		if isFloat(t) && floatBits(t) > floatBits(rt.Elem) || !isFloat(t) && intWidth(t) > intWidth(rt.Elem) {
			return c.errorf("operand element type '%s' is wider than the result's '%s'", ir.TypeString(t), ir.TypeString(rt.Elem))
		}
	}
	nres := len(rt.Shape)
	loops := nres + nred
	om := identity(nres)
	om.NumDims = loops
	iters := make([]string, loops)
	for i := range iters {
		iters[i] = "parallel"
		if i >= nres {
			iters[i] = "reduction"
		}
	}
	// The accumulator starts at zero.
	empty, err := c.empty(rt, om, c.op.Operands, []*ir.AffineMap{lm, rm})
	if err != nil {
		return err
	}
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

// dimensionNumbers reads list key (e.g. "lhs_contracting_dimensions")
// from dot_general's #stablehlo.dot<key = [..], ...> attribute; a key
// that is absent is an empty list.
func (c *converter) dimensionNumbers(key string) ([]int64, error) {
	a, ok := c.op.Attr("dot_dimension_numbers").(*ir.OpaqueAttr)
	if !ok || !strings.HasSuffix(a.Name, ".dot") {
		return nil, c.errorf("requires a dot_dimension_numbers attribute such as #stablehlo.dot<...>")
	}
	f, err := structFields(a.Body)
	if err != nil {
		return nil, c.errorf("dot_dimension_numbers: %v", err)
	}
	return f[key], nil
}

// dotGeneral contracts lhs and rhs over the contracting dimension pairs,
// keeping the batch dimension pairs: the result is batch, lhs free, rhs
// free dimensions, and the loops those followed by the contracting ones.
func (c *converter) dotGeneral(rt *ir.TensorType) error {
	lt, rht := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Operands[1].Type)
	var nums [4][]int64
	for i, k := range []string{"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"} {
		v, err := c.dimensionNumbers(k)
		if err != nil {
			return err
		}
		nums[i] = v
	}
	lb, rb, lc, rc := nums[0], nums[1], nums[2], nums[3]
	bad := c.errorf("dot_dimension_numbers do not contract '%s' with '%s' into '%s'", ir.TypeString(lt), ir.TypeString(rht), ir.TypeString(rt))
	if len(lb) != len(rb) || len(lc) != len(rc) {
		return bad
	}
	// loopOf assigns each operand dimension its loop; -1 marks free ones.
	loopOf := func(n int, batch, contract []int64, nres int) ([]int, bool) {
		out := make([]int, n)
		for i := range out {
			out[i] = -1
		}
		for i, d := range batch {
			if d < 0 || int(d) >= n || out[d] != -1 {
				return nil, false
			}
			out[d] = i
		}
		for k, d := range contract {
			if d < 0 || int(d) >= n || out[d] != -1 {
				return nil, false
			}
			out[d] = nres + k
		}
		return out, true
	}
	nfree := func(n int) int { return n - len(lb) - len(lc) }
	nres := len(lb) + nfree(len(lt.Shape)) + nfree(len(rht.Shape))
	ll, ok1 := loopOf(len(lt.Shape), lb, lc, nres)
	rl, ok2 := loopOf(len(rht.Shape), rb, rc, nres)
	if !ok1 || !ok2 || len(rt.Shape) != nres {
		return bad
	}
	next := len(lb)
	for d, l := range ll {
		if l == -1 {
			ll[d] = next
			next++
		}
	}
	for d, l := range rl {
		if l == -1 {
			rl[d] = next
			next++
		}
	}
	// Each loop's extent, from the operand dimensions it indexes (a
	// dynamic extent matches any other; the kernel checks them).
	sizes := make([]int64, nres+len(lc))
	seen := make([]bool, len(sizes))
	for _, side := range []struct {
		loops []int
		shape []int64
	}{{ll, lt.Shape}, {rl, rht.Shape}} {
		for d, l := range side.loops {
			if seen[l] && !sameSize(sizes[l], side.shape[d]) {
				return bad
			}
			if !seen[l] || sizes[l] == ir.Dynamic {
				sizes[l] = side.shape[d]
			}
			seen[l] = true
		}
	}
	for i := 0; i < nres; i++ {
		if !seen[i] || !sameSize(sizes[i], rt.Shape[i]) {
			return bad
		}
	}
	lm := &ir.AffineMap{NumDims: len(sizes), Results: []*ir.AffineExpr{}}
	for _, l := range ll {
		lm.Results = append(lm.Results, dim(l))
	}
	rm := &ir.AffineMap{NumDims: len(sizes), Results: []*ir.AffineExpr{}}
	for _, l := range rl {
		rm.Results = append(rm.Results, dim(l))
	}
	return c.contract(lm, rm, len(lc), rt)
}
