package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// The linear congruential step of rng UNIFORM (the constants of the C
// standard's example rand, which IREE's lowering uses too).
const (
	lcgMultiplier = 1103515245
	lcgIncrement  = 12345
)

// rng lowers rng with the UNIFORM distribution and a float result, as
// IREE does, to a stateless generator: the element at index (i0, i1, ...)
// hashes its index with x = multiplier * (x + ik) + increment for each
// dimension k in turn (from x = 0, modulo 2^32), and is
// min + x * (max - min) / 2^32. The shape operand must agree with the
// static result type, which sizes the result.
func (c *converter) rng(rt *ir.TensorType) error {
	dist, ok := stablehlo.EnumCase(c.op, "rng_distribution", "rng_distribution")
	if !ok {
		return c.errorf("requires an rng_distribution attribute such as #stablehlo<rng_distribution UNIFORM>")
	}
	if dist != "UNIFORM" {
		return c.errorf("the %s distribution is not supported yet (only UNIFORM)", dist)
	}
	if len(c.op.Operands) != 3 {
		return c.errorf("expects a minimum, a maximum and a shape")
	}
	if !isFloat(rt.Elem) || ir.TypeString(rt.Elem) == "f16" {
		return c.errorf("'%s' elements are not supported here (only f32, f64 and bf16)", ir.TypeString(rt.Elem))
	}
	for i, v := range c.op.Operands[:2] {
		if t := stablehlo.Ranked(v.Type); len(t.Shape) != 0 || !sameType(t.Elem, rt.Elem) {
			return c.errorf("operand #%d '%s' must be a rank-0 tensor of the result's element type '%s'", i, ir.TypeString(t), ir.TypeString(rt.Elem))
		}
	}
	if st := stablehlo.Ranked(c.op.Operands[2].Type); len(st.Shape) != 1 || st.Shape[0] != int64(len(rt.Shape)) {
		return c.errorf("shape operand '%s' must hold the %d extents of the result '%s'", ir.TypeString(st), len(rt.Shape), ir.TypeString(rt))
	}
	n := len(rt.Shape)
	scalar := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	return c.generic(c.op.Operands[:2], []*ir.AffineMap{scalar, scalar}, rt, func(x builder, a []*ir.Value) (*ir.Value, error) {
		i32 := ir.IntegerType{Width: 32}
		h := x.constant(i32, 0)
		mul, inc := x.constant(i32, lcgMultiplier), x.constant(i32, lcgIncrement)
		for d := 0; d < n; d++ {
			i := x.op("linalg.index", nil, ir.IndexType{}, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: int64(d), Type: ir.I64}})
			i = x.op("arith.index_cast", []*ir.Value{i}, i32)
			h = x.bin("arith.addi", x.bin("arith.muli", x.bin("arith.addi", h, i), mul), inc)
		}
		// uitofp rounds x to the float's precision; scaling by 2^-32 is
		// exact (f16, which cannot hold 2^-32, is refused above).
		f := x.op("arith.uitofp", []*ir.Value{h}, rt.Elem)
		span := x.bin("arith.subf", a[1], a[0])
		scale := x.op("arith.constant", nil, rt.Elem, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: 0x1p-32, Type: rt.Elem}})
		return x.bin("arith.addf", x.bin("arith.mulf", x.bin("arith.mulf", f, scale), span), a[0]), nil
	})
}
