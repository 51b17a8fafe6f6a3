package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"testing"
)

// TestMathOpsPTX runs testdata/math.mlir in the interpreter for sm_52 and
// sm_90 against Go: round (half away from zero), roundeven and copysign
// bit for bit in f32 and f64, isfinite, ctpop and ctlz exactly, and f32
// exp2, log2, log10, sin and cos within 1e-6 relative (TestMathLibPTX
// holds them to ulps).
func TestMathOpsPTX(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	const n = 300
	negZero := math.Copysign(0, -1)
	specials := []float64{0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 0.49999999999999994, -0.49999997, negZero, 0, math.Inf(1), math.Inf(-1),
		math.NaN(), 1e30, 8388608.5, 4503599627370495.5, -7.5, 1, 8, 0.125, 1e-40}
	x, y, d, e := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	is, js := make([]uint32, n), make([]uint64, n)
	for k := 0; k < n; k++ {
		x[k] = float64(float32(r.NormFloat64() * 100))
		y[k] = float64(float32(r.NormFloat64() * 10))
		d[k], e[k] = r.NormFloat64()*1e3, r.NormFloat64()
		if k < len(specials) {
			x[k], d[k] = float64(float32(specials[k])), specials[k]
			y[k], e[k] = []float64{-1, 1, negZero, 0, math.NaN()}[k%5], []float64{1, -1, 0, negZero, -3}[k%5]
		}
		is[k], js[k] = r.Uint32()>>uint(r.Intn(32)), r.Uint64()>>uint(r.Intn(64))
	}
	is[0], is[1], js[0], js[1] = 0, math.MaxUint32, 0, math.MaxUint64
	enc := func(size int, put func(b []byte, k int)) []byte {
		b := make([]byte, size*n)
		for k := 0; k < n; k++ {
			put(b[size*k:], k)
		}
		return b
	}
	in := map[string][]byte{
		"in0": enc(4, func(b []byte, k int) { binary.LittleEndian.PutUint32(b, math.Float32bits(float32(x[k]))) }),
		"in1": enc(4, func(b []byte, k int) { binary.LittleEndian.PutUint32(b, math.Float32bits(float32(y[k]))) }),
		"in2": enc(8, func(b []byte, k int) { binary.LittleEndian.PutUint64(b, math.Float64bits(d[k])) }),
		"in3": enc(8, func(b []byte, k int) { binary.LittleEndian.PutUint64(b, math.Float64bits(e[k])) }),
		"in4": enc(4, func(b []byte, k int) { binary.LittleEndian.PutUint32(b, is[k]) }),
		"in5": enc(8, func(b []byte, k int) { binary.LittleEndian.PutUint64(b, js[k]) }),
	}
	f32At := func(b []byte, k int) float64 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])))
	}
	f64At := func(b []byte, k int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:])) }
	same := func(g, w float64) bool {
		return g == w && math.Signbit(g) == math.Signbit(w) || math.IsNaN(g) && math.IsNaN(w)
	}
	near := func(g, w float64) bool {
		return same(g, w) || math.Abs(g-w) <= 1e-6*math.Max(1, math.Abs(w))
	}
	for _, arch := range []string{"sm_52", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			out := runNest(t, find(t, simDispatches(t, "math.mlir", arch), "math"), in)
			bad := 0
			check := func(ok bool, format string, args ...any) {
				if !ok {
					if bad++; bad <= 10 {
						t.Errorf(format, args...)
					}
				}
			}
			for k := 0; k < n; k++ {
				for _, c := range []struct {
					name      string
					got, want float64
					exact     bool
				}{
					{"round f32", f32At(out["out0"], k), math.Round(x[k]), true},
					{"roundeven f32", f32At(out["out1"], k), math.RoundToEven(x[k]), true},
					{"copysign f32", f32At(out["out2"], k), math.Copysign(x[k], y[k]), true},
					{"round f64", f64At(out["out3"], k), math.Round(d[k]), true},
					{"roundeven f64", f64At(out["out4"], k), math.RoundToEven(d[k]), true},
					{"copysign f64", f64At(out["out5"], k), math.Copysign(d[k], e[k]), true},
					{"exp2", f32At(out["out11"], k), float64(float32(math.Exp2(y[k]))), false},
					{"log2", f32At(out["out12"], k), float64(float32(math.Log2(x[k]))), false},
					{"log10", f32At(out["out13"], k), float64(float32(math.Log10(x[k]))), false},
					{"sin", f32At(out["out14"], k), math.Sin(y[k]), false},
					{"cos", f32At(out["out15"], k), math.Cos(y[k]), false},
				} {
					if c.exact {
						check(same(c.got, c.want), "%s of element %d (%v, %v): got %v, want %v", c.name, k, x[k], d[k], c.got, c.want)
					} else {
						check(near(c.got, c.want), "%s of element %d (%v, %v): got %v, want %v", c.name, k, x[k], y[k], c.got, c.want)
					}
				}
				fin := !math.IsInf(x[k], 0) && !math.IsNaN(x[k])
				check((out["out6"][k] != 0) == fin, "isfinite(%v) = %d", x[k], out["out6"][k])
				check(binary.LittleEndian.Uint32(out["out7"][4*k:]) == uint32(bits.OnesCount32(is[k])), "ctpop(%#x)", is[k])
				check(binary.LittleEndian.Uint32(out["out8"][4*k:]) == uint32(bits.LeadingZeros32(is[k])), "ctlz(%#x)", is[k])
				check(binary.LittleEndian.Uint64(out["out9"][8*k:]) == uint64(bits.OnesCount64(js[k])), "ctpop(%#x)", js[k])
				check(binary.LittleEndian.Uint64(out["out10"][8*k:]) == uint64(bits.LeadingZeros64(js[k])), "ctlz(%#x)", js[k])
			}
		})
	}
}

// TestPowfPTX runs math.powf of testdata/math.mlir in the interpreter for
// sm_52 and sm_90 against Go's math.Pow (C's pow): its special cases (zero
// and infinite operands, negative bases with integer and other exponents,
// NaNs, x = 1 and y = 0: results 0, 1, infinite or NaN) exactly, the
// others (signs included) within 1e-5 relative, in f32 and, rounded from
// f32, in f16.
func TestPowfPTX(t *testing.T) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	pairs := [][2]float64{{-2, 3}, {-2, 0.5}, {0, -1}, {negZero, -1}, {negZero, -2}, {negZero, 3}, {2, 0}, {nan, 0}, {1, nan}, {-1, inf},
		{inf, -2}, {-inf, 3}, {-inf, 2}, {-8, 1.0 / 3}, {0.5, inf}, {2, inf}, {2, -inf}, {nan, 1}, {3, nan}, {-3, -3}, {-1.5, 4},
		{10, 5}, {0.3, 2.5}, {7, -0.25}, {-2, 25}, {-2, 1 << 25}, {1, -inf}}
	r := rand.New(rand.NewSource(8))
	const n = 64
	x, y := make([]float64, n), make([]float64, n)
	for k := range x {
		x[k], y[k] = float64(float32(10*r.Float64())), float64(float32(-6+12*r.Float64()))
		if k < len(pairs) {
			x[k], y[k] = pairs[k][0], pairs[k][1]
		}
	}
	h := f16Format
	in := map[string][]byte{"in0": make([]byte, 4*n), "in1": make([]byte, 4*n)}
	var hx, hy []float64
	for k := range x {
		binary.LittleEndian.PutUint32(in["in0"][4*k:], math.Float32bits(float32(x[k])))
		binary.LittleEndian.PutUint32(in["in1"][4*k:], math.Float32bits(float32(y[k])))
		hx, hy = append(hx, h.value(h.round(x[k]/4))), append(hy, h.value(h.round(y[k])))
	}
	in["in2"], in["in3"] = halves(h, hx), halves(h, hy)
	for _, arch := range []string{"sm_52", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			out := runNest(t, find(t, simDispatches(t, "math.mlir", arch), "pow"), in)
			for k := 0; k < n; k++ {
				want := float64(float32(math.Pow(x[k], y[k])))
				got := float64(math.Float32frombits(binary.LittleEndian.Uint32(out["out0"][4*k:])))
				exact := math.IsNaN(want) || math.IsInf(want, 0) || want == 0 || math.Abs(want) == 1
				ok := got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(got) && math.IsNaN(want)
				if !ok && !exact {
					ok = math.Abs(got-want) <= 1e-5*math.Abs(want)
				}
				if !ok {
					t.Errorf("powf(%v, %v) = %v, want %v", x[k], y[k], got, want)
				}
				hw := h.round(math.Pow(hx[k], hy[k]))
				if g := halfAt(out["out1"], k); !sameHalf(h, g, hw) && math.Abs(h.value(g)-h.value(hw)) > 1e-3*math.Abs(h.value(hw)) {
					t.Errorf("f16 powf(%v, %v) = %#04x, want %#04x", hx[k], hy[k], g, hw)
				}
			}
		})
	}
}

// TestSpecialFunctionsPTX runs erf, expm1 and log1p of testdata/math.mlir
// in the interpreter against Go's: within 4e-7 relative (erf: also 2e-7
// absolute; expm1 beyond its series: also |x| 2^-23, the rounding of e^x's
// scaled argument) over small, middling and large arguments, with the
// special values exact.
func TestSpecialFunctionsPTX(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	const n = 400
	specials := []float64{0, math.Copysign(0, -1), 1e-8, -1e-8, 1e-30, 0.3499, 0.35, -0.35, 0.5, -0.5, 0.49999, 1, 1.0001, -0.9999, -1, -2,
		2.5, 4, 10, -10, 88, -88, math.Inf(1), math.Inf(-1), math.NaN(), 1e-5, -1e-5}
	x := make([]float64, n)
	for k := range x {
		switch k % 3 {
		case 0:
			x[k] = r.NormFloat64() * 0.3
		case 1:
			x[k] = -0.99 + 4*r.Float64()
		default:
			x[k] = math.Copysign(math.Pow(10, -12+14*r.Float64()), r.NormFloat64())
		}
		if k < len(specials) {
			x[k] = specials[k]
		}
		x[k] = float64(float32(x[k]))
	}
	in := make([]byte, 4*n)
	for k := range x {
		binary.LittleEndian.PutUint32(in[4*k:], math.Float32bits(float32(x[k])))
	}
	for _, arch := range []string{"sm_52", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			out := runNest(t, find(t, simDispatches(t, "math.mlir", arch), "special"), map[string][]byte{"in0": in})
			bad := 0
			for k := range x {
				for o, c := range []struct {
					name string
					fn   func(float64) float64
					abs  float64
				}{{"erf", math.Erf, 2e-7}, {"expm1", math.Expm1, 0}, {"log1p", math.Log1p, 0}} {
					got := float64(math.Float32frombits(binary.LittleEndian.Uint32(out[fmt.Sprintf("out%d", o)][4*k:])))
					want := c.fn(x[k])
					ok := got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(got) && math.IsNaN(want)
					if !ok && !math.IsInf(want, 0) && !math.IsNaN(want) && want != 0 {
						rel := 4e-7
						if c.name == "expm1" {
							// e^x's f32 argument x*log2(e) is rounded:
							// a relative error of up to |x| 2^-23.
							rel += math.Abs(x[k]) * math.Ldexp(1, -23)
						}
						ok = math.Abs(got-want) <= rel*math.Abs(want)+c.abs
					}
					if !ok {
						if bad++; bad <= 10 {
							t.Errorf("%s(%v) = %v, want %v", c.name, x[k], got, want)
						}
					}
				}
			}
		})
	}
}

// TestRemfPTX runs arith.remf of testdata/math.mlir in the interpreter
// against Go's math.Mod (C's fmod) bit for bit, in f32 and f16: quotients
// from below 1 to 2^276, subnormal divisors, signs, zeros, infinities and
// NaN.
func TestRemfPTX(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	pairs := [][2]float64{{7.5, 2}, {-7.5, 2}, {7.5, -2}, {1e38, 3}, {3e38, 1e-45}, {1e-45, 3e38}, {5, 0}, {inf, 1}, {1, inf},
		{nan, 1}, {1, nan}, {0, 1}, {math.Copysign(0, -1), 1}, {6, 3}, {-6, 3}, {1, 1e-40}, {0.1, 0.01}, {123456789, 0.3}}
	r := rand.New(rand.NewSource(15))
	const n = 200
	x, y := make([]float64, n), make([]float64, n)
	for k := range x {
		x[k] = float64(math.Float32frombits(r.Uint32()))
		y[k] = float64(math.Float32frombits(r.Uint32()))
		if k%2 == 0 {
			x[k], y[k] = float64(float32(r.NormFloat64()*1000)), float64(float32(r.NormFloat64()))
		}
		if k < len(pairs) {
			x[k], y[k] = float64(float32(pairs[k][0])), float64(float32(pairs[k][1]))
		}
	}
	h := f16Format
	in := map[string][]byte{"in0": make([]byte, 4*n), "in1": make([]byte, 4*n)}
	hx, hy := make([]float64, n), make([]float64, n)
	for k := range x {
		binary.LittleEndian.PutUint32(in["in0"][4*k:], math.Float32bits(float32(x[k])))
		binary.LittleEndian.PutUint32(in["in1"][4*k:], math.Float32bits(float32(y[k])))
		hx[k], hy[k] = h.value(h.round(x[k])), h.value(h.round(y[k]/8))
	}
	in["in2"], in["in3"] = halves(h, hx), halves(h, hy)
	for _, arch := range []string{"sm_52", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			out := runNest(t, find(t, simDispatches(t, "math.mlir", arch), "remf"), in)
			for k := 0; k < n; k++ {
				want := math.Mod(x[k], y[k])
				got := float64(math.Float32frombits(binary.LittleEndian.Uint32(out["out0"][4*k:])))
				if !(got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("remf(%v, %v) = %v, want %v", x[k], y[k], got, want)
				}
				if g, w := halfAt(out["out1"], k), h.round(math.Mod(hx[k], hy[k])); !sameHalf(h, g, w) {
					t.Errorf("f16 remf(%v, %v) = %#04x, want %#04x", hx[k], hy[k], g, w)
				}
			}
		})
	}
}
