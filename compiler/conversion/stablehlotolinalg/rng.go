package stablehlotolinalg

import (
	"math"

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
	if len(c.op.Operands) != 3 {
		return c.errorf("expects two distribution parameters and a shape")
	}
	switch dist {
	case "NORMAL":
		return c.rngNormal(rt)
	case "UNIFORM":
	default:
		return c.errorf("the %s distribution is not supported yet (only UNIFORM and NORMAL)", dist)
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

// rngNormal lowers rng NORMAL (f32) as IREE expands it, with the
// Box-Muller transform of uniform numbers drawn at compile time from
// std::mt19937 seeded with 0: pair i of uniforms u1 (redrawn while it is
// at most the f32 epsilon), u2 gives
//
//	mag = sigma * sqrt(-2 log u1), z0 = mag * cos(2 pi u2) + mu, z1 = mag * sin(2 pi u2) + mu
//
// and the result, in row-major order, is every z0 and then every z1 (for
// an odd count, the last z1 is dropped). The tables of -2 log u1 and of
// the cosines and sines are constants; one linalg.generic applies mu and
// sigma when the function runs.
func (c *converter) rngNormal(rt *ir.TensorType) error {
	if ir.TypeString(rt.Elem) != "f32" {
		return c.errorf("'%s' elements are not supported here (only f32)", ir.TypeString(rt.Elem))
	}
	for i, v := range c.op.Operands[:2] {
		if t := stablehlo.Ranked(v.Type); len(t.Shape) != 0 || !sameType(t.Elem, rt.Elem) {
			return c.errorf("operand #%d '%s' must be a rank-0 tensor of the result's element type '%s'", i, ir.TypeString(t), ir.TypeString(rt.Elem))
		}
	}
	count := numElements(rt)
	if count > 1<<24 {
		return c.errorf("%d elements are too many for a table of normal numbers", count)
	}
	half := (count + 1) / 2
	m := newMT19937(0)
	logs, trig := make([]ir.Attribute, count), make([]ir.Attribute, count)
	const eps = float32(1.0 / (1 << 23))
	twoPi := float32(2 * math.Pi)
	for i := int64(0); i < half; i++ {
		var u1, u2 float32
		for {
			u1, u2 = float32(m.canonical()), float32(m.canonical())
			if u1 > eps {
				break
			}
		}
		l := ir.FloatAttr{Value: float64(float32(-2 * math.Log(float64(u1))))}
		a := float64(twoPi * u2)
		logs[i], trig[i] = l, ir.FloatAttr{Value: float64(float32(math.Cos(a)))}
		if half+i < count {
			logs[half+i], trig[half+i] = l, ir.FloatAttr{Value: float64(float32(math.Sin(a)))}
		}
	}
	table := func(elems []ir.Attribute) *ir.Value {
		nest := make([]int, len(rt.Shape))
		for d, s := range rt.Shape {
			nest[d] = int(s)
		}
		d := &ir.DenseAttr{Type: rt, Elements: elems, Nesting: nest}
		return c.emit(ir.NewOp("arith.constant", nil, []ir.Type{rt}, []ir.NamedAttr{{Name: "value", Value: d}})).Results[0]
	}
	n := len(rt.Shape)
	scalar := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	ins := []*ir.Value{c.op.Operands[0], c.op.Operands[1], table(logs), table(trig)}
	return c.generic(ins, []*ir.AffineMap{scalar, scalar, identity(n), identity(n)}, rt, func(x builder, a []*ir.Value) (*ir.Value, error) {
		mag := x.bin("arith.mulf", a[1], x.un("math.sqrt", a[2]))
		return x.bin("arith.addf", x.bin("arith.mulf", mag, a[3]), a[0]), nil
	})
}

// mt19937 is the 32-bit Mersenne Twister of C++'s std::mt19937.
type mt19937 struct {
	state [624]uint32
	next  int
}

func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{next: 624}
	m.state[0] = seed
	for i := 1; i < 624; i++ {
		p := m.state[i-1]
		m.state[i] = 1812433253*(p^p>>30) + uint32(i)
	}
	return m
}

// uint32 returns the next tempered output.
func (m *mt19937) uint32() uint32 {
	if m.next == 624 {
		for k := 0; k < 624; k++ {
			y := m.state[k]&0x80000000 | m.state[(k+1)%624]&0x7fffffff
			v := m.state[(k+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.state[k] = v
		}
		m.next = 0
	}
	y := m.state[m.next]
	m.next++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// canonical is std::generate_canonical<double, 53> as libstdc++ computes
// it from two 32-bit draws, (a + b * 2^32) / 2^64, kept below 1: what
// std::uniform_real_distribution<>(0, 1) returns.
func (m *mt19937) canonical() float64 {
	a := float64(m.uint32())
	b := float64(m.uint32())
	r := (a + b*(1<<32)) / (1 << 64)
	if r >= 1 {
		r = math.Nextafter(1, 0)
	}
	return r
}
