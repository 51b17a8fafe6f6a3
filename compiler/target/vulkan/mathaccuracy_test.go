package vulkan_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/vmgen"
	vkdriver "github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
)

// mathRun compiles one linalg.generic over vectors of elem (f32 or f64)
// that applies each of bodies (MLIR ops reading %a, %b and %c, the last
// defining %r) to the same operands, runs it on the first Vulkan device
// and returns each body's results. It skips the test without glslc or a
// Vulkan device.
func mathRun(t *testing.T, elem string, bodies []string, a, b, c []float64) [][]float64 {
	t.Helper()
	return mathRunWith(t, vulkanOptions, elem, bodies, a, b, c)
}

// mathRunWith is mathRun compiling with opts.
func mathRunWith(t *testing.T, opts pipeline.Options, elem string, bodies []string, a, b, c []float64) [][]float64 {
	t.Helper()
	glslc(t)
	if err := vkdriver.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if infos, err := vkdriver.NewDriver().Devices(); err != nil || len(infos) == 0 {
		t.Skipf("skipping: no Vulkan device (%v); install mesa-vulkan-drivers for lavapipe", err)
	}
	n := len(a)
	tt := fmt.Sprintf("tensor<%dx%s>", n, elem)
	var maps, outs, outT, args, yields, yieldT, rets []string
	maps = []string{"#id", "#id", "#id"}
	var body strings.Builder
	for i, src := range bodies {
		maps = append(maps, "#id")
		outs = append(outs, "%e")
		outT = append(outT, tt)
		args = append(args, fmt.Sprintf("%%o%d: %s", i, elem))
		yields = append(yields, fmt.Sprintf("%%r%d", i))
		yieldT = append(yieldT, elem)
		rets = append(rets, fmt.Sprintf("%%g#%d", i))
		r := strings.NewReplacer("%r", fmt.Sprintf("%%r%d", i), "%t", fmt.Sprintf("%%t%d_", i), "{T}", elem)
		fmt.Fprintf(&body, "    %s\n", r.Replace(src))
	}
	src := fmt.Sprintf(`#id = affine_map<(d0) -> (d0)>
func.func @f(%%x: %[1]s, %%y: %[1]s, %%z: %[1]s) -> (%[2]s) {
  %%e = tensor.empty() : %[1]s
  %%g:%[3]d = linalg.generic {indexing_maps = [%[4]s], iterator_types = ["parallel"]} ins(%%x, %%y, %%z : %[1]s, %[1]s, %[1]s) outs(%[5]s : %[2]s) {
  ^bb0(%%a: %[6]s, %%b: %[6]s, %%c: %[6]s, %[7]s):
%[8]s    linalg.yield %[9]s : %[10]s
  } -> (%[2]s)
  return %[11]s : %[2]s
}
`, tt, strings.Join(outT, ", "), len(bodies), strings.Join(maps, ", "), strings.Join(outs, ", "), elem,
		strings.Join(args, ", "), body.String(), strings.Join(yields, ", "), strings.Join(yieldT, ", "), strings.Join(rets, ", "))
	s, err := pipeline.Compile("mathrun.mlir", []byte(src), opts, "vm")
	if err != nil {
		t.Fatalf("compiling:\n%s\n%v", src, err)
	}
	dev, err := vkdriver.NewDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ss, err := session.Open(dev, s.Output)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	arg := func(v []float64) string {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%dx%s=", n, elem)
		for i, x := range v {
			if i > 0 {
				sb.WriteByte(' ')
			}
			switch {
			case math.IsNaN(x):
				sb.WriteString("nan")
			case math.IsInf(x, 1):
				sb.WriteString("inf")
			case math.IsInf(x, -1):
				sb.WriteString("-inf")
			case elem == "f32":
				sb.WriteString(strconv.FormatFloat(x, 'g', -1, 32))
			default:
				sb.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
			}
		}
		return sb.String()
	}
	res, err := ss.Call("f", arg(a), arg(b), arg(c))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for _, r := range res {
		view, err := halmodule.BufferViewOf(r)
		if err != nil {
			t.Fatal(err)
		}
		buf, err := functionio.ReadBufferView(view)
		if err != nil {
			t.Fatal(err)
		}
		v := make([]float64, n)
		for i := range v {
			if elem == "f32" {
				v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(buf.Data[4*i:])))
			} else {
				v[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf.Data[8*i:]))
			}
		}
		out = append(out, v)
	}
	return out
}

// mpmathRef is a Python program that reads lines "op a b c" (float64
// bits in hex) and prints each result's float64 bits computed with
// mpmath at 120 bits and rounded once, or "-" where it leaves the case
// to Go (non-finite operands or results, zeros, domain edges).
const mpmathRef = `
import sys, struct
from mpmath import mp, mpf
mp.prec = 120
def f(b):
    return struct.unpack('<d', struct.pack('<Q', int(b, 16)))[0]
ops = {
    'exp': lambda a, b, c: mp.exp(a), 'exp2': lambda a, b, c: mp.mpf(2) ** a, 'expm1': lambda a, b, c: mp.expm1(a),
    'log': lambda a, b, c: mp.log(a), 'log2': lambda a, b, c: mp.log(a, 2), 'log10': lambda a, b, c: mp.log10(a),
    'log1p': lambda a, b, c: mp.log1p(a), 'powf': lambda a, b, c: mp.power(a, b) if a > 0 else (mp.power(a, int(b)) if b == int(b) else None),
    'fpowi': lambda a, b, c: mp.power(a, int(b)) if a != 0 else None,
    'sin': lambda a, b, c: mp.sin(a), 'cos': lambda a, b, c: mp.cos(a), 'tan': lambda a, b, c: mp.tan(a),
    'atan': lambda a, b, c: mp.atan(a), 'atan2': lambda a, b, c: mp.atan2(a, b) if b != 0 else None,
    'tanh': lambda a, b, c: mp.tanh(a), 'erf': lambda a, b, c: mp.erf(a), 'rsqrt': lambda a, b, c: 1 / mp.sqrt(a),
}
binary = ('powf', 'fpowi', 'atan2')
out = []
for line in sys.stdin:
    op, a, b, c = line.split()
    a, b, c = f(a), f(b), f(c)
    r = None
    try:
        if all(v == v and abs(v) != float('inf') for v in ((a, b) if op in binary else (a,))) and a != 0:
            y = ops[op](mpf(a), mpf(b), mpf(c))
            if isinstance(y, mpf) and mp.isfinite(y) and y != 0 and abs(y) < 1.7e308:
                r = float(y)
    except (ValueError, ZeroDivisionError, OverflowError):
        r = None
    out.append('-' if r is None else '%016x' % struct.unpack('<Q', struct.pack('<d', r))[0])
print('\n'.join(out))
`

// mpmathRefs returns, for each input, mpmath's value of op (Go's
// reference, not correctly rounded and for some functions several ulp
// off, where mpmath leaves the case) or skips the test without python3
// and mpmath.
func mpmathRefs(t *testing.T, op string, a, b, c []float64, goRef func(a, b, c float64) float64) []float64 {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("skipping f64: no python3 for the mpmath reference (%v)", err)
	}
	var in strings.Builder
	for i := range a {
		fmt.Fprintf(&in, "%s %x %x %x\n", op, math.Float64bits(a[i]), math.Float64bits(b[i]), math.Float64bits(c[i]))
	}
	cmd := exec.Command(py, "-c", mpmathRef)
	cmd.Stdin = strings.NewReader(in.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "No module named 'mpmath'") {
			t.Skipf("skipping f64: python3 has no mpmath for the reference")
		}
		t.Fatalf("mpmath reference: %v\n%s", err, stderr.String())
	}
	lines := strings.Fields(string(outb))
	if len(lines) != len(a) {
		t.Fatalf("mpmath reference: %d results for %d inputs", len(lines), len(a))
	}
	ref := make([]float64, len(a))
	for i, l := range lines {
		if l == "-" {
			ref[i] = goRef(a[i], b[i], c[i])
			continue
		}
		u, err := strconv.ParseUint(l, 16, 64)
		if err != nil {
			t.Fatalf("mpmath reference: %v", err)
		}
		ref[i] = math.Float64frombits(u)
	}
	return ref
}

// accuracyCase is one op of TestMathAccuracy: its MLIR body, the Go
// reference, the largest error allowed in ulp of the result's type for
// f32 and f64 (-1: the op is not tested at that type), and the range of
// its typical inputs (beside edge cases and random bit patterns).
type accuracyCase struct {
	name     string
	body     string
	ref      func(a, b, c float64) float64
	ulp32    float64
	ulp64    float64
	lo, hi   float64
	positive bool
	// subnormal is the bound where the result is subnormal, if looser.
	subnormal float64
	// skip reports inputs outside the op's definition.
	skip func(a, b, c float64) bool
	// exact ops' f64 references are Go's (exact); the others' are
	// mpmath's.
	exact bool
}

// logRef is math.Log, which on amd64 is wrong for subnormal arguments.
func logRef(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

var accuracyCases = []accuracyCase{
	{name: "divf", exact: true, body: "%r = arith.divf %a, %b : {T}", ref: func(a, b, _ float64) float64 { return a / b }, ulp32: 0, ulp64: 0, lo: -100, hi: 100},
	{name: "sqrt", exact: true, body: "%r = math.sqrt %a : {T}", ref: func(a, _, _ float64) float64 { return math.Sqrt(a) }, ulp32: 0, ulp64: 0, lo: 0, hi: 1e6, positive: true},
	{name: "rsqrt", body: "%r = math.rsqrt %a : {T}", ref: func(a, _, _ float64) float64 { return 1 / math.Sqrt(a) }, ulp32: 1, ulp64: 1, lo: 0, hi: 1e6, positive: true},
	{name: "fma", exact: true, body: "%r = math.fma %a, %b, %c : {T}", ref: math.FMA, ulp32: 1, ulp64: 1, lo: -10, hi: 10},
	{name: "exp", body: "%r = math.exp %a : {T}", ref: func(a, _, _ float64) float64 { return math.Exp(a) }, ulp32: 1, ulp64: 1, lo: -90, hi: 90},
	{name: "exp2", body: "%r = math.exp2 %a : {T}", ref: func(a, _, _ float64) float64 { return math.Exp2(a) }, ulp32: 1, ulp64: 1, lo: -130, hi: 130},
	{name: "expm1", body: "%r = math.expm1 %a : {T}", ref: func(a, _, _ float64) float64 { return math.Expm1(a) }, ulp32: 1, ulp64: 2, lo: -5, hi: 5},
	{name: "log", body: "%r = math.log %a : {T}", ref: func(a, _, _ float64) float64 { return logRef(a) }, ulp32: 1, ulp64: 1, lo: 0, hi: 4, positive: true},
	{name: "log2", body: "%r = math.log2 %a : {T}", ref: func(a, _, _ float64) float64 { return logRef(a) / math.Ln2 }, ulp32: 1, ulp64: 1, lo: 0, hi: 4, positive: true},
	{name: "log10", body: "%r = math.log10 %a : {T}", ref: func(a, _, _ float64) float64 { return logRef(a) / math.Ln10 }, ulp32: 1, ulp64: 1, lo: 0, hi: 4, positive: true},
	{name: "log1p", body: "%r = math.log1p %a : {T}", ref: func(a, _, _ float64) float64 { return math.Log1p(a) }, ulp32: 1, ulp64: 1, lo: -1, hi: 3},
	{name: "powf", body: "%r = math.powf %a, %b : {T}", ref: func(a, b, _ float64) float64 { return math.Pow(a, b) }, ulp32: 1, ulp64: 2, lo: -10, hi: 10},
	{name: "fpowi", body: "%t = arith.fptosi %b : {T} to i32\n    %r = math.fpowi %a, %t : {T}, i32", ref: func(a, b, _ float64) float64 { return math.Pow(a, math.Trunc(b)) }, ulp32: 1, ulp64: 2, lo: -10, hi: 10,
		skip: func(_, b, _ float64) bool { return !(math.Abs(b) < 1<<31) }},
	{name: "sin", body: "%r = math.sin %a : {T}", ref: func(a, _, _ float64) float64 { return math.Sin(a) }, ulp32: 1, ulp64: 1, lo: -10, hi: 10},
	{name: "cos", body: "%r = math.cos %a : {T}", ref: func(a, _, _ float64) float64 { return math.Cos(a) }, ulp32: 1, ulp64: 1, lo: -10, hi: 10},
	{name: "tan", body: "%r = math.tan %a : {T}", ref: func(a, _, _ float64) float64 { return math.Tan(a) }, ulp32: 1, ulp64: 1, lo: -10, hi: 10},
	{name: "atan", body: "%r = math.atan %a : {T}", ref: func(a, _, _ float64) float64 { return math.Atan(a) }, ulp32: 1, ulp64: 1, lo: -10, hi: 10},
	{name: "atan2", body: "%r = math.atan2 %a, %b : {T}", ref: func(a, b, _ float64) float64 {
		// Go's Atan2 loses y's sign when y / x underflows.
		return math.Copysign(math.Atan2(a, b), a)
	}, ulp32: 1, ulp64: 1, lo: -10, hi: 10},
	{name: "tanh", body: "%r = math.tanh %a : {T}", ref: func(a, _, _ float64) float64 { return math.Tanh(a) }, ulp32: 1, ulp64: 2, lo: -5, hi: 5},
	{name: "erf", body: "%r = math.erf %a : {T}", ref: func(a, _, _ float64) float64 { return math.Erf(a) }, ulp32: 1, ulp64: 1, lo: -5, hi: 5},
	{name: "remf", exact: true, body: "%r = arith.remf %a, %b : {T}", ref: func(a, b, _ float64) float64 { return math.Mod(a, b) }, ulp32: 0, ulp64: 0, lo: -1000, hi: 1000},
}

// accuracyInputs are n operands for f32 (bits 32) or f64: the edge
// cases, then random bit patterns, uniform values in [lo, hi] and values
// of random magnitude, a third each.
func accuracyInputs(r *rand.Rand, bits int, n, operand int, lo, hi float64, positive bool) []float64 {
	edges := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 2, 0.5, 3, -3, 0.1,
		1 - 0x1p-24, 1 + 0x1p-23, 1e-7, -1e-7, 1e-30, 1e10, -1e10, 1e30, 88.7, -87.3, -103, 127.5, -149.5,
		math.Pi / 2, math.Pi, 1e5, 3e8, 1e20, 1e38, -1e38,
		// Near multiples of pi/2 (355/113 and 103993/33102 approximate pi).
		1000 * math.Pi, 2607 * math.Pi / 2, 355, 103993, 1.5e6 * math.Pi, 6381956970095103 * 0x1p797}
	if bits == 32 {
		edges = append(edges, float64(math.SmallestNonzeroFloat32), -float64(math.SmallestNonzeroFloat32),
			0x1p-126, 0x1.fffffcp-127, math.MaxFloat32, -math.MaxFloat32, 0x1p-140)
	} else {
		edges = append(edges, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022,
			0x1.ffffffffffffep-1023, math.MaxFloat64, -math.MaxFloat64, 709.7, -745, 1e300, 1e-300, 1-0x1p-53, 1+0x1p-52, 1e15)
	}
	// Every edge case with a partner, then the first 20 crosswise.
	const cross = 20
	ne := len(edges)
	v := make([]float64, n)
	for i := range v {
		j := i - ne
		switch {
		case i < ne && operand == 0:
			v[i] = edges[i]
		case i < ne:
			v[i] = edges[(i*7+operand)%ne]
		case j < cross*cross && operand == 0:
			v[i] = edges[j%cross]
		case j < cross*cross:
			v[i] = edges[(j/cross+operand-1)%cross]
		case i%3 == 0 && bits == 32:
			v[i] = float64(math.Float32frombits(r.Uint32()))
		case i%3 == 0:
			v[i] = math.Float64frombits(r.Uint64())
		case i%3 == 1:
			v[i] = lo + (hi-lo)*r.Float64()
		default:
			v[i] = math.Ldexp(1+r.Float64(), r.Intn(64)-32)
			if r.Intn(2) == 0 && !positive {
				v[i] = -v[i]
			}
		}
		if bits == 32 {
			v[i] = float64(float32(v[i]))
		}
	}
	return v
}

// ulpDiff is |got - want| in ulp of want in a float type of prec
// significand bits and smallest normal exponent minExp; NaNs must match,
// infinities and the sign of zero results too (then 0, else +Inf).
func ulpDiff(got, want float64, prec, minExp int) float64 {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		if math.IsNaN(want) && math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		if got == want {
			return 0
		}
		return math.Inf(1)
	case got == 0 && want == 0 && math.Signbit(got) != math.Signbit(want):
		return math.Inf(1)
	}
	_, e := math.Frexp(want)
	q := e - prec
	if q < minExp-prec+1 || want == 0 {
		q = minExp - prec + 1
	}
	return math.Abs(got-want) / math.Ldexp(1, q)
}

// TestMathAccuracy runs every float op that vulkan-spirv computes with
// its own helpers at f32 and f64 over edge cases (zeros, infinities,
// NaN, subnormals, the limits, huge arguments) and random bit patterns
// and values, and holds each result to its bound in ulp of the type
// against a reference: for f32 Go's math package in float64 rounded to
// f32 (within half an ulp), for f64 mpmath's correctly rounded values
// through python3 (Go's own f64 functions are off by up to several ulp:
// Pow, Tan of tiny arguments, Log10) and Go's exact operations. The
// bounds are the largest errors seen on lavapipe and what the helpers'
// comments claim: division and sqrt correctly rounded, the other f32
// functions within 1 ulp, f64 within 1 (2 for expm1, pow and tanh).
func TestMathAccuracy(t *testing.T) {
	const n = 2048
	for _, ty := range []struct {
		name         string
		bits         int
		prec, minExp int
		round        func(float64) float64
	}{
		{"f32", 32, 24, -126, func(x float64) float64 { return float64(float32(x)) }},
		{"f64", 64, 53, -1022, func(x float64) float64 { return x }},
	} {
		t.Run(ty.name, func(t *testing.T) {
			const group = 8
			for g := 0; g < len(accuracyCases); g += group {
				cases := accuracyCases[g:min(g+group, len(accuracyCases))]
				var bodies []string
				r := rand.New(rand.NewSource(int64(g + ty.bits)))
				// One operand set per group: the cases of a group share
				// their inputs, from the first case's typical range.
				lo, hi, pos := cases[0].lo, cases[0].hi, cases[0].positive
				a := accuracyInputs(r, ty.bits, n, 0, lo, hi, pos)
				b := accuracyInputs(r, ty.bits, n, 1, lo, hi, false)
				c := accuracyInputs(r, ty.bits, n, 2, lo, hi, false)
				for _, cs := range cases {
					bodies = append(bodies, cs.body)
				}
				out := mathRun(t, ty.name, bodies, a, b, c)
				for ci, cs := range cases {
					bound := cs.ulp32
					if ty.bits == 64 {
						bound = cs.ulp64
					}
					worst, bad := 0.0, 0
					var refs []float64
					if ty.bits == 64 && !cs.exact {
						refs = mpmathRefs(t, cs.name, a, b, c, cs.ref)
					}
					for i := range a {
						if cs.skip != nil && cs.skip(a[i], b[i], c[i]) {
							continue
						}
						want := ty.round(cs.ref(a[i], b[i], c[i]))
						if refs != nil {
							want = refs[i]
						}
						d := ulpDiff(out[ci][i], want, ty.prec, ty.minExp)
						if d > worst {
							worst = d
						}
						if d > bound && !(math.Abs(want) < math.Ldexp(1, ty.minExp) && d <= cs.subnormal) {
							if bad++; bad <= 5 {
								t.Errorf("%s %s(%v, %v, %v) = %v, want %v (%.2f ulp, bound %g)", ty.name, cs.name, a[i], b[i], c[i], out[ci][i], want, d, bound)
							}
						}
					}
					t.Logf("%s %s: worst %.3f ulp over %d inputs (%d beyond %g)", ty.name, cs.name, worst, len(a), bad, bound)
				}
			}
		})
	}
}

// TestDivSqrtCorrection holds f32 division and sqrt to correct rounding
// when the builtin they start from is off by up to 3 ulp either way (as
// Vulkan allows, NVIDIA's division being 2.5 ulp): lavapipe's builtins
// are correctly rounded, so TestMathAccuracy alone would not see the
// corrections work. The builtin's result is scaled by 1 +- 3 2^-24 (in
// both gi_div's paths and gi_sqrt) and every quotient and root must
// still be exact, subnormal quotients and their ties included.
func TestDivSqrtCorrection(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	const n = 1024
	a := accuracyInputs(r, 32, n, 0, -100, 100, false)
	b := accuracyInputs(r, 32, n, 1, -100, 100, false)
	// The last quarter divide into the subnormals, ties included
	// (3 2^-149 / 2 rounds to 2 2^-149, 5 2^-149 / 2 to 2 2^-149 too).
	for i := 3 * n / 4; i < n; i++ {
		a[i] = float64(float32(math.Ldexp(1+r.Float64(), -90-r.Intn(60))))
		b[i] = float64(float32(math.Ldexp(1+r.Float64(), r.Intn(40))))
		if i%8 == 0 {
			a[i], b[i] = math.Ldexp(float64(2*r.Intn(1000)+1), -149), 2
		}
	}
	for _, scale := range []string{"1.00000018", "0.99999982"} {
		t.Run(scale, func(t *testing.T) {
			for _, h := range []struct{ name, old, new string }{
				{"gi_div", "precise float q = a / b;", "precise float q = (a / b) * " + scale + ";"},
				{"gi_divw", "precise float q = ma / mb;", "precise float q = (ma / mb) * " + scale + ";"},
				{"gi_sqrt", "precise float s = sqrt(m);", "precise float s = sqrt(m) * " + scale + ";"},
			} {
				restore, err := vulkan.ReplaceInF32Helper(h.name, h.old, h.new)
				if err != nil {
					t.Fatal(err)
				}
				defer restore()
			}
			out := mathRun(t, "f32", []string{"%r = arith.divf %a, %b : f32", "%r = math.sqrt %a : f32"}, a, b, a)
			for i := range a {
				for k, want := range []float64{float64(float32(a[i] / b[i])), float64(float32(math.Sqrt(a[i])))} {
					d := ulpDiff(out[k][i], want, 24, -126)
					if d > 0 {
						t.Errorf("%s of %v and %v = %v, want %v (%.0f ulp)", []string{"divf", "sqrt"}[k], a[i], b[i], out[k][i], want, d)
					}
				}
			}
		})
	}
}

// TestMathSPIRVValid builds one kernel applying every op of
// TestMathAccuracy, plus copysign and the classifications, at f32, f16
// and f64, and checks its SPIR-V with spirv-val (where installed): the
// helpers' precise qualifiers, 64-bit compares and integer builtins must
// give valid Vulkan SPIR-V, which lavapipe running them does not prove.
func TestMathSPIRVValid(t *testing.T) {
	glslc(t)
	for _, elem := range []string{"f32", "f16", "f64"} {
		t.Run(elem, func(t *testing.T) {
			bodies := []string{"%r = math.copysign %a, %b : {T}", "%t = math.isnormal %a : {T}\n    %r = arith.select %t, %a, %b : {T}"}
			for _, cs := range accuracyCases {
				bodies = append(bodies, cs.body)
			}
			tt := fmt.Sprintf("tensor<16x%s>", elem)
			var maps, outs, outT, args, yields, yieldT, rets []string
			var body strings.Builder
			for i, src := range bodies {
				rets = append(rets, fmt.Sprintf("%%g#%d", i))
				maps = append(maps, "#id")
				outs = append(outs, "%e")
				outT = append(outT, tt)
				args = append(args, fmt.Sprintf("%%o%d: %s", i, elem))
				yields = append(yields, fmt.Sprintf("%%r%d", i))
				yieldT = append(yieldT, elem)
				r := strings.NewReplacer("%r", fmt.Sprintf("%%r%d", i), "%t", fmt.Sprintf("%%t%d_", i), "{T}", elem)
				fmt.Fprintf(&body, "    %s\n", r.Replace(src))
			}
			src := fmt.Sprintf(`#id = affine_map<(d0) -> (d0)>
func.func @f(%%x: %[1]s, %%y: %[1]s, %%z: %[1]s) -> (%[2]s) {
  %%e = tensor.empty() : %[1]s
  %%g:%[3]d = linalg.generic {indexing_maps = [#id, #id, #id, %[4]s], iterator_types = ["parallel"]} ins(%%x, %%y, %%z : %[1]s, %[1]s, %[1]s) outs(%[5]s : %[2]s) {
  ^bb0(%%a: %[6]s, %%b: %[6]s, %%c: %[6]s, %[7]s):
%[8]s    linalg.yield %[9]s : %[10]s
  } -> (%[2]s)
  return %[11]s : %[2]s
}
`, tt, strings.Join(outT, ", "), len(bodies), strings.Join(maps, ", "), strings.Join(outs, ", "), elem,
				strings.Join(args, ", "), body.String(), strings.Join(yields, ", "), strings.Join(yieldT, ", "), strings.Join(rets, ", "))
			s, err := pipeline.Compile("mathall.mlir", []byte(src), vulkanOptions, "")
			if err != nil {
				t.Fatalf("compiling:\n%s\n%v", src, err)
			}
			b := checked{t: t, b: vulkan.Builder{Options: vulkan.Options{Objects: s.Resolver}}}
			if _, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets,
				Executables: vmgen.Backends{"vulkan-spirv": b}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
