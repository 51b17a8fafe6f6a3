package cuda_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// libmCase is one function of testdata/mathlib.mlir (its output index is
// its position in libmCases) with its reference and its bounds in ulp of
// the result: for f32 against Go's float64 function (whose own error is
// far below an f32 ulp), for f64 against the exact value rounded to
// double (mpmath at 160 bits, through python3; C's special cases from
// python's math module, that is glibc's). Go's own f64 functions are no
// reference there: on amd64 its Exp overflows below the threshold and its
// Log misreads subnormals.
type libmCase struct {
	name  string
	ref   func(x, y float64) float64
	ulp32 float64
	ulp64 float64
}

var libmCases = []libmCase{
	{"exp", func(x, _ float64) float64 { return math.Exp(x) }, 1, 2},
	{"exp2", func(x, _ float64) float64 { return math.Exp2(x) }, 1, 2},
	{"expm1", func(x, _ float64) float64 { return math.Expm1(x) }, 1, 2},
	{"log", func(x, _ float64) float64 { return math.Log(x) }, 1, 1},
	{"log2", func(x, _ float64) float64 { return math.Log2(x) }, 1, 2},
	{"log10", func(x, _ float64) float64 { return math.Log10(x) }, 1, 2},
	{"log1p", func(x, _ float64) float64 { return math.Log1p(x) }, 1, 2},
	{"sin", func(x, _ float64) float64 { return math.Sin(x) }, 1, 2},
	{"cos", func(x, _ float64) float64 { return math.Cos(x) }, 1, 2},
	{"tan", func(x, _ float64) float64 { return math.Tan(x) }, 1, 3},
	{"tanh", func(x, _ float64) float64 { return math.Tanh(x) }, 1, 3},
	{"erf", func(x, _ float64) float64 { return math.Erf(x) }, 1, 2},
	{"atan", func(x, _ float64) float64 { return math.Atan(x) }, 1, 2},
	{"atan2", math.Atan2, 1, 3},
	{"powf", math.Pow, 1, 4},
}

// libmInputs returns n arguments for the math library's tests: edge cases
// (zeros, subnormals, the smallest and largest numbers, infinities, NaN,
// thresholds of overflow and underflow, multiples of pi/2 and pi/4 and
// doubles close to them, near 1 and -1) and then random bit patterns,
// small and middling values and values of every magnitude, as float
// (float32s when f32) and a second argument for atan2 and powf.
func libmInputs(n int, f32 bool, seed int64) (x, y []float64) {
	r := rand.New(rand.NewSource(seed))
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	edge := []float64{0, negZero, 1, -1, 0.5, -0.5, 2, 10, -10, inf, -inf, nan, 1e-300, -1e-300, 4.9e-324, -4.9e-324,
		1e-45, -1e-45, 1.1754942e-38, 2.2250738585072014e-308, math.MaxFloat64, -math.MaxFloat64, math.MaxFloat32, -math.MaxFloat32,
		88.72283, 88.7228, -87.33655, -103.97, -104, 89, 709.78, 709.79, -708.39, -745.13, -745.14, 127.99, 128, -149, -150, -1074, 1023.99, 1024,
		-1022, -1075, 0.34657359, -0.34657359, 0.35, -0.35, 1e-8, -1e-8, 1e-20, 0x1p-27, -0x1p-26, 0.999999, 1.000001, -0.999999, 22, 21.9, 5.9, 6, 3.92, 4,
		math.Pi, math.Pi / 2, math.Pi / 4, 3 * math.Pi / 4, -math.Pi / 2, 1e6 * math.Pi, 0x1p20, 0x1p20 - 1, -0x1p20, 1e22, 1e100, 1e300, 1e38, 6381956970095103 * 0x1p797,
		5.319372648326541e+255, 2.308e+234, 1.0e15, 6.3e12, 0x1.921fb54442d18p0, 1 - 0x1p-53, 1 + 0x1p-52, 0.41421356237309503, 0.4142135623730951, 1e-310,
	}
	x, y = make([]float64, n), make([]float64, n)
	for k := range x {
		var v float64
		switch {
		case k < len(edge):
			v = edge[k]
		case k%6 == 0:
			if f32 {
				v = float64(math.Float32frombits(r.Uint32()))
			} else {
				v = math.Float64frombits(r.Uint64())
			}
		case k%6 == 1:
			v = r.NormFloat64() * 3
		case k%6 == 2:
			v = (r.Float64()*2 - 1) * 800
			if f32 {
				v /= 7
			}
		case k%6 == 3:
			e := 160.0
			if !f32 {
				e = 2100
			}
			v = math.Copysign(math.Exp2((r.Float64()-0.5)*e), r.NormFloat64())
		case k%6 == 4:
			// Near multiples of pi/2.
			v = float64(r.Intn(2000000)-1000000) * math.Pi / 2 * (1 + r.NormFloat64()*1e-15)
		default:
			v = (r.Float64()*2 - 1) * 1.5
		}
		if f32 {
			v = float64(float32(v))
		}
		x[k] = v
		switch k % 4 {
		case 0:
			y[k] = float64(r.Intn(21) - 10)
		case 1:
			y[k] = r.NormFloat64() * 5
		case 2:
			y[k] = math.Copysign(math.Exp2((r.Float64()-0.5)*20), r.NormFloat64())
		default:
			y[k] = []float64{0, negZero, inf, -inf, nan, 0.5, -0.5, 1, -1, 3, 1e10, 1e-10, 2, 1.5}[r.Intn(14)]
		}
		if f32 {
			y[k] = float64(float32(y[k]))
		}
	}
	// powf with |x| near 1 and large y, and large results: y log|x|
	// large, where a plain e^(y log|x|) loses accuracy.
	for k := len(edge); k < len(edge)+60; k++ {
		x[k] = 1 + r.NormFloat64()*1e-3
		y[k] = r.NormFloat64() * 3e5
		if k%2 == 0 {
			x[k] = math.Exp2(r.Float64() * 10)
			y[k] = (r.Float64()*2 - 1) * 1000 / math.Log2(x[k])
		}
		if f32 {
			x[k], y[k] = float64(float32(x[k])), float64(float32(y[k]/50))
		}
	}
	return x, y
}

// libmRefScript computes f64 references for libmCases: it reads lines of
// two float64 bit patterns (decimal) and writes a line of results' bit
// patterns for each, for the functions named in its argument.
const libmRefScript = `import sys, struct, math
try:
    import mpmath
    from mpmath import mp, mpf
    mp.prec = 160
    print('mpmath')
except ImportError:
    mpmath = None
    print('glibc')
def b2f(s): return struct.unpack('<d', struct.pack('<Q', int(s)))[0]
def f2b(v): return str(struct.unpack('<Q', struct.pack('<d', v))[0])
def exact(name, x, y):
    X = mpf(x); Y = mpf(y)
    if name == 'exp': return mpmath.exp(X)
    if name == 'exp2': return mpmath.power(2, X)
    if name == 'expm1': return mpmath.expm1(X)
    if name == 'log': return mpmath.log(X)
    if name == 'log2': return mpmath.log(X, 2)
    if name == 'log10': return mpmath.log10(X)
    if name == 'log1p': return mpmath.log1p(X)
    if name == 'sin': return mpmath.sin(X)
    if name == 'cos': return mpmath.cos(X)
    if name == 'tan': return mpmath.tan(X)
    if name == 'tanh': return mpmath.tanh(X)
    if name == 'erf': return mpmath.erf(X)
    if name == 'atan': return mpmath.atan(X)
    if name == 'atan2': return mpmath.atan2(X, Y)
    if name == 'powf': return mpmath.power(X, Y)
def glibc(name, x, y):
    f = {'exp': math.exp, 'exp2': lambda v: math.pow(2, v), 'expm1': math.expm1, 'log': math.log, 'log2': math.log2, 'log10': math.log10,
         'log1p': math.log1p, 'sin': math.sin, 'cos': math.cos, 'tan': math.tan, 'tanh': math.tanh, 'erf': math.erf, 'atan': math.atan}
    try:
        if name == 'atan2': return math.atan2(x, y)
        if name == 'powf': return math.pow(x, y)
        return f[name](x)
    except OverflowError:
        return math.inf
    except ValueError:
        # Python raises where C returns a pole's infinity.
        if name in ('log', 'log2', 'log10') and x == 0: return -math.inf
        if name == 'log1p' and x == -1: return -math.inf
        if name == 'powf' and x == 0 and y < 0:
            odd = y == math.floor(y) and abs(y) < 2**53 and int(y) % 2 == 1
            return math.copysign(math.inf, x) if odd else math.inf
        return math.nan
names = sys.argv[1].split(',')
out = []
for line in sys.stdin:
    xs, ys = line.split()
    x, y = b2f(xs), b2f(ys)
    row = []
    for n in names:
        special = not (math.isfinite(x) and x != 0) or (n in ('atan2', 'powf') and not (math.isfinite(y) and y != 0))
        if n == 'powf' and not special and x < 0 and y != math.floor(y): special = True
        if n in ('log', 'log2', 'log10') and not special and x < 0: special = True
        if n == 'log1p' and not special and x <= -1: special = True
        if n == 'powf' and not special and x == 1: special = True
        if special or mpmath is None:
            v = glibc(n, x, y)
        else:
            e = exact(n, x, y)
            try:
                v = float(e)
            except OverflowError:
                v = math.copysign(math.inf, e)
        row.append(f2b(v))
    out.append(' '.join(row))
print('\n'.join(out))
`

// libmRef64 returns the f64 references of every libmCases function at
// (x[k], y[k]), by output, and their own error in ulp: 0 from mpmath (the
// exact value rounded), 2 from glibc where python3 has no mpmath (glibc
// documents errors of up to 2 ulp for these). It skips the test without
// python3.
func libmRef64(t *testing.T, x, y []float64) ([][]float64, float64) {
	t.Helper()
	names := make([]string, len(libmCases))
	for i, c := range libmCases {
		names[i] = c.name
	}
	var in bytes.Buffer
	for k := range x {
		fmt.Fprintf(&in, "%d %d\n", math.Float64bits(x[k]), math.Float64bits(y[k]))
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("f64 references need python3: %v", err)
	}
	cmd := exec.Command(py, "-c", libmRefScript, strings.Join(names, ","))
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 references: %v\n%s", err, stderr.String())
	}
	ref := make([][]float64, len(libmCases))
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	slack := 0.0
	if lines[0] != "mpmath" {
		t.Logf("python3 has no mpmath: glibc's functions are the references, the bounds 2 ulp wider")
		slack = 2
	}
	lines = lines[1:]
	if len(lines) != len(x) {
		t.Fatalf("python3 gave %d lines of references for %d inputs", len(lines), len(x))
	}
	for k, line := range lines {
		f := strings.Fields(line)
		if len(f) != len(libmCases) {
			t.Fatalf("python3 reference line %d: %q", k, line)
		}
		for o := range f {
			b, err := strconv.ParseUint(f[o], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			ref[o] = append(ref[o], math.Float64frombits(b))
		}
	}
	return ref, slack
}

// ulpErr is the error of got against the (nearly exact) reference want
// in ulp of want in a format of mant significand bits and minimum
// exponent emin; infinities count as the next power of two past the
// largest finite number. NaNs, zeros (with their signs) and infinities
// must match exactly (a result of zero or infinity is only right as it
// is): it returns +Inf otherwise.
func ulpErr(got, want float64, mant, emin, emax int) float64 {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		if math.IsNaN(want) && math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	case want == 0 || got == 0:
		if got == want && math.Signbit(got) == math.Signbit(want) {
			return 0
		}
		if want == 0 || math.Signbit(got) != math.Signbit(want) {
			return math.Inf(1)
		}
	}
	if math.IsInf(want, 0) && math.IsInf(got, 0) {
		if want == got {
			return 0
		}
		return math.Inf(1)
	}
	big := math.Ldexp(1, emax)
	if math.IsInf(got, 0) {
		got = math.Copysign(big, got)
	}
	if math.IsInf(want, 0) {
		want = math.Copysign(big, want)
	}
	_, e := math.Frexp(want)
	e = max(e-1, emin)
	return math.Abs(got-want) / math.Ldexp(1, e-mant+1)
}

// TestMathLibPTX runs every function of the math library in the
// interpreter, in f32 (sm_90) and f64 (sm_80; the code is the same for
// every arch), over edge cases and about 2000 random arguments each, and
// holds each result to its function's bound in ulp of the exact value
// (libmCases: every f32 function within 1, exp and exp2 computed in f32
// and the others in f64, rounded once; f64 within 1 to 4), zeros,
// infinities and NaN exactly.
func TestMathLibPTX(t *testing.T) {
	const n = 2048
	for _, tc := range []struct {
		arch string
		f32  bool
	}{{"sm_90", true}, {"sm_80", false}} {
		name := tc.arch + "/f64"
		if tc.f32 {
			name = tc.arch + "/f32"
		}
		t.Run(name, func(t *testing.T) {
			x, y := libmInputs(n, tc.f32, 21)
			var ref64 [][]float64
			slack := 0.0
			if !tc.f32 {
				ref64, slack = libmRef64(t, x, y)
			}
			size, fn := 8, "libm64"
			if tc.f32 {
				size, fn = 4, "libm32"
			}
			enc := func(v []float64) []byte {
				b := make([]byte, size*n)
				for k, f := range v {
					if tc.f32 {
						binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(float32(f)))
					} else {
						binary.LittleEndian.PutUint64(b[8*k:], math.Float64bits(f))
					}
				}
				return b
			}
			d := find(t, simDispatches(t, "mathlib.mlir", tc.arch), fn)
			if strings.Contains(d.ptx, ".approx") {
				t.Errorf("the math library's PTX uses an .approx instruction")
			}
			// Branches on a lane's own value diverge: bra.uni, which
			// promises they do not, is for unconditional jumps only.
			if m := regexp.MustCompile(`@!?%p\d+ bra\.uni`).FindString(d.ptx); m != "" {
				t.Errorf("the math library's PTX has a conditional bra.uni: %s", m)
			}
			out := runNest(t, d, map[string][]byte{"in0": enc(x), "in1": enc(y)})
			for o, c := range libmCases {
				worst, worstAt, bad := 0.0, 0, 0
				for k := 0; k < n; k++ {
					var got, e float64
					var want float64
					if tc.f32 {
						want = c.ref(x[k], y[k])
						got = float64(math.Float32frombits(binary.LittleEndian.Uint32(out[fmt.Sprintf("out%d", o)][4*k:])))
						if w32 := float64(float32(want)); w32 == 0 || math.IsInf(w32, 0) {
							// The result rounds to zero or infinity:
							// compare the rounded values.
							want = w32
						}
						e = ulpErr(got, want, 24, -126, 128)
					} else {
						want = ref64[o][k]
						got = math.Float64frombits(binary.LittleEndian.Uint64(out[fmt.Sprintf("out%d", o)][8*k:]))
						e = ulpErr(got, want, 53, -1022, 1024)
					}
					bound := c.ulp64 + slack
					if tc.f32 {
						bound = c.ulp32
					}
					if e > worst {
						worst, worstAt = e, k
					}
					if e > bound {
						if bad++; bad <= 5 {
							t.Errorf("%s(%v, %v) = %v, want %v (%.3g ulp, bound %g)", c.name, x[k], y[k], got, want, e, bound)
						}
					}
				}
				if bad > 5 {
					t.Errorf("%s: %d results beyond the bound", c.name, bad)
				}
				t.Logf("%-6s worst %.3f ulp at (%v, %v)", c.name, worst, x[worstAt], y[worstAt])
			}
		})
	}
}

// TestRemf64PTX runs arith.remf on f64 (testdata/mathlib.mlir) in the
// interpreter against Go's math.Mod (C's fmod, exact) bit for bit: random
// bit patterns, quotients from below 1 to 2^2000, subnormal operands and
// results, signs, zeros, infinities and NaN.
func TestRemf64PTX(t *testing.T) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	pairs := [][2]float64{{7.5, 2}, {-7.5, 2}, {7.5, -2}, {1e308, 3}, {math.MaxFloat64, 5e-324}, {5e-324, math.MaxFloat64}, {5, 0}, {inf, 1},
		{1, inf}, {-1, -inf}, {nan, 1}, {1, nan}, {0, 1}, {negZero, 1}, {6, 3}, {-6, 3}, {1, 1e-310}, {3e-310, 1e-310}, {0.1, 0.01},
		{123456789, 0.3}, {1e-300, 3e-320}, {2.2250738585072014e-308, 1.5e-323}, {-4e-320, 3e-320}, {math.Ldexp(1, 1023), math.Pi}}
	r := rand.New(rand.NewSource(31))
	const n = 400
	x, y := make([]float64, n), make([]float64, n)
	for k := range x {
		switch k % 3 {
		case 0:
			x[k], y[k] = math.Float64frombits(r.Uint64()), math.Float64frombits(r.Uint64())
		case 1:
			x[k], y[k] = r.NormFloat64()*1e6, r.NormFloat64()
		default:
			x[k] = math.Ldexp(r.Float64(), r.Intn(2100)-1074)
			y[k] = math.Ldexp(r.Float64(), r.Intn(2100)-1074)
		}
		if k < len(pairs) {
			x[k], y[k] = pairs[k][0], pairs[k][1]
		}
	}
	enc := func(v []float64) []byte {
		b := make([]byte, 8*n)
		for k, f := range v {
			binary.LittleEndian.PutUint64(b[8*k:], math.Float64bits(f))
		}
		return b
	}
	for _, arch := range []string{"sm_52", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			out := runNest(t, find(t, simDispatches(t, "mathlib.mlir", arch), "remf64"), map[string][]byte{"in0": enc(x), "in1": enc(y)})
			bad := 0
			for k := range x {
				want := math.Mod(x[k], y[k])
				got := math.Float64frombits(binary.LittleEndian.Uint64(out["out0"][8*k:]))
				if !(math.Float64bits(got) == math.Float64bits(want) || math.IsNaN(got) && math.IsNaN(want)) {
					if bad++; bad <= 10 {
						t.Errorf("remf(%v, %v) = %v, want %v", x[k], y[k], got, want)
					}
				}
			}
		})
	}
}

// TestMathLibHalfPTX runs the math library's functions on f16 and bf16
// (computed in f32, rounded once to the type) in the interpreter (f16
// for sm_52, bf16 for sm_90: the archs convert differently) over random
// bit patterns (every class of value) and
// holds each result within 1 ulp of the exact value (Go's float64
// function); results that round to zero or infinity must be that.
func TestMathLibHalfPTX(t *testing.T) {
	const n = 512
	for _, tc := range []struct {
		h    halfFormat
		arch string
	}{{f16Format, "sm_52"}, {bf16Format, "sm_90"}} {
		h, arch := tc.h, tc.arch
		t.Run(h.name+"/"+arch, func(t *testing.T) {
			r := rand.New(rand.NewSource(41))
			x, y := make([]float64, n), make([]float64, n)
			for k := range x {
				x[k] = h.value(uint16(r.Uint32()))
				y[k] = h.value(uint16(r.Uint32()))
				if k%2 == 0 {
					x[k] = h.value(h.round(r.NormFloat64() * 4))
					y[k] = h.value(h.round(float64(r.Intn(9) - 4)))
				}
			}
			out := runNest(t, find(t, simDispatches(t, "mathlib.mlir", arch), "libm"+h.name),
				map[string][]byte{"in0": halves(h, x), "in1": halves(h, y)})
			emax := 16
			if h == bf16Format {
				emax = 128
			}
			for o, c := range libmCases {
				bad := 0
				for k := range x {
					got := h.value(halfAt(out[fmt.Sprintf("out%d", o)], k))
					want := c.ref(x[k], y[k])
					if w := h.value(h.round(want)); w == 0 || math.IsInf(w, 0) {
						want = w
					}
					if e := ulpErr(got, want, h.mant+1, 1-h.bias, emax); e > 1 {
						if bad++; bad <= 5 {
							t.Errorf("%s(%v, %v) = %v, want %v (%.3g ulp)", c.name, x[k], y[k], got, want, e)
						}
					}
				}
			}
		})
	}
}

// TestFpowiPTX runs math.fpowi (f32 to an i32 power, f64 to an i64 one)
// in the interpreter against x^n: f32 within 1 ulp of Go's float64 pow,
// f64 within 4 ulp of the exact value (as powf, TestMathLibPTX), the sign
// of a negative base's odd powers right also for exponents beyond 2^53
// (which a double cannot hold), zeros, infinities and NaN exact.
func TestFpowiPTX(t *testing.T) {
	const n = 256
	r := rand.New(rand.NewSource(51))
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	x, d := make([]float64, n), make([]float64, n)
	ni, mi := make([]int32, n), make([]int64, n)
	edge := []float64{0, negZero, 1, -1, inf, -inf, nan, 2, -2, 0.5, -0.5}
	for k := range x {
		x[k] = float64(float32(r.NormFloat64() * 3))
		d[k] = r.NormFloat64() * 3
		ni[k], mi[k] = int32(r.Intn(41)-20), int64(r.Intn(401)-200)
		if k < 3*len(edge) {
			x[k], d[k] = edge[k%len(edge)], edge[k%len(edge)]
			ni[k], mi[k] = []int32{0, 3, -3}[k/len(edge)], []int64{0, 5, -1<<53 - 1}[k/len(edge)]
		}
		if k%7 == 0 {
			ni[k], mi[k] = r.Int31()-1<<30, r.Int63()-1<<62
			d[k] = []float64{-1, 1, 1 + 1e-16, -1 + 1e-16}[r.Intn(4)]
		}
	}
	in := map[string][]byte{"in0": make([]byte, 4*n), "in1": make([]byte, 4*n), "in2": make([]byte, 8*n), "in3": make([]byte, 8*n)}
	dy := make([]float64, n)
	for k := range x {
		binary.LittleEndian.PutUint32(in["in0"][4*k:], math.Float32bits(float32(x[k])))
		binary.LittleEndian.PutUint32(in["in1"][4*k:], uint32(ni[k]))
		binary.LittleEndian.PutUint64(in["in2"][8*k:], math.Float64bits(d[k]))
		binary.LittleEndian.PutUint64(in["in3"][8*k:], uint64(mi[k]))
		dy[k] = float64(mi[k])
	}
	ref, slack := libmRef64(t, d, dy)
	pow := 0
	for o, c := range libmCases {
		if c.name == "powf" {
			pow = o
		}
	}
	out := runNest(t, find(t, simDispatches(t, "mathlib.mlir", "sm_80"), "fpowi"), in)
	for k := range x {
		want := math.Pow(x[k], float64(ni[k]))
		if w32 := float64(float32(want)); w32 == 0 || math.IsInf(w32, 0) {
			want = w32
		}
		got := float64(math.Float32frombits(binary.LittleEndian.Uint32(out["out0"][4*k:])))
		if e := ulpErr(got, want, 24, -126, 128); e > 1 {
			t.Errorf("fpowi(%v, %d) = %v, want %v (%.3g ulp)", x[k], ni[k], got, want, e)
		}
		want = ref[pow][k]
		if math.Signbit(d[k]) && !math.IsNaN(want) {
			// The parity of the integer, which the double may have lost.
			want = math.Copysign(want, float64(1-2*(mi[k]&1)))
		}
		got = math.Float64frombits(binary.LittleEndian.Uint64(out["out1"][8*k:]))
		if e := ulpErr(got, want, 53, -1022, 1024); e > 4+slack {
			t.Errorf("fpowi(%v, %d) = %v, want %v (%.3g ulp)", d[k], mi[k], got, want, e)
		}
	}
}
