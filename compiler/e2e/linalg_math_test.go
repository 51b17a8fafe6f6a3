package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// The math accuracy test runs every float op of the arith and math
// dialects in a linalg.generic at each float type (f16, bf16, f32, f64)
// and holds each result to a per-op tolerance, in units in the last place
// of the type, against Go's math package in float64 rounded to the type.

// floatType describes one float element type of the test.
type floatType struct {
	name string
	// prec is the significand precision in bits (with the implicit one),
	// minExp the exponent of the smallest normal, max the largest finite.
	prec, minExp int
	max          float64
	bytes        int
}

var floatTypes = []floatType{
	{"f16", 11, -14, 65504, 2},
	{"bf16", 8, -126, 3.3895313892515355e38, 2},
	{"f32", 24, -126, math.MaxFloat32, 4},
	{"f64", 53, -1022, math.MaxFloat64, 8},
}

// ulpExp returns q such that the spacing of the type's values around x is
// 2^q (subnormal spacing below the smallest normal).
func (ft floatType) ulpExp(x float64) int {
	_, e := math.Frexp(x) // |x| in [2^(e-1), 2^e)
	q := e - ft.prec
	if min := ft.minExp - ft.prec + 1; q < min || x == 0 {
		q = min
	}
	return q
}

// round rounds x to the nearest value of the type (ties to even).
func (ft floatType) round(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	if ft.name == "f64" {
		return x
	}
	if ft.name == "f32" {
		return float64(float32(x))
	}
	q := ft.ulpExp(x)
	r := math.Ldexp(math.RoundToEven(math.Ldexp(x, -q)), q)
	if math.Abs(r) > ft.max {
		return math.Copysign(math.Inf(1), x)
	}
	return r
}

// decode reads element i of a result buffer.
func (ft floatType) decode(b []byte, i int) float64 {
	switch ft.name {
	case "f16":
		h := binary.LittleEndian.Uint16(b[2*i:])
		s, e, m := h>>15, int(h>>10&0x1F), float64(h&0x3FF)
		var v float64
		switch e {
		case 0:
			v = math.Ldexp(m, -24)
		case 31:
			v = math.Inf(1)
			if m != 0 {
				v = math.NaN()
			}
		default:
			v = math.Ldexp(1+m/1024, e-15)
		}
		if s == 1 {
			v = -v
		}
		return v
	case "bf16":
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16))
	case "f32":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
}

// mathOp is one op under test: its MLIR body (operands %a, %b, %c of the
// element type, result %r), the Go reference, the input domain and the
// tolerance in ulp per type.
type mathOp struct {
	name  string
	body  string
	arity int
	ref   func(a, b, c float64) float64
	// gen draws one input (operand i); nil draws from [-10, 10].
	gen func(r *rand.Rand, i int) float64
	// tol is the tolerance in ulp for f64 and for the other types.
	tol64, tol float64
	// special inputs (per operand) appended to the random ones.
	special [][3]float64
}

func uniform(lo, hi float64) func(*rand.Rand, int) float64 {
	return func(r *rand.Rand, _ int) float64 { return lo + (hi-lo)*r.Float64() }
}

// logUniform draws positive values spread over [lo, hi] by magnitude.
func logUniform(lo, hi float64) func(*rand.Rand, int) float64 {
	return func(r *rand.Rand, _ int) float64 {
		return math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*r.Float64())
	}
}

var nan, inf = math.NaN(), math.Inf(1)

// logRef is math.Log, which on amd64 is wrong for subnormal inputs (it
// gives log(2^-1022)-ish values), so those are scaled into range first.
func logRef(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

var mathOps = []mathOp{
	{name: "addf", body: "%r = arith.addf %a, %b", arity: 2, ref: func(a, b, _ float64) float64 { return a + b }, gen: uniform(-100, 100), tol64: 0, tol: 0},
	{name: "mulf", body: "%r = arith.mulf %a, %b", arity: 2, ref: func(a, b, _ float64) float64 { return a * b }, gen: uniform(-100, 100), tol64: 0, tol: 0},
	{name: "divf", body: "%r = arith.divf %a, %b", arity: 2, ref: func(a, b, _ float64) float64 { return a / b }, gen: uniform(-100, 100), tol64: 0, tol: 0,
		special: [][3]float64{{1, 0}, {-1, 0}, {0, 0}}},
	{name: "remf", body: "%r = arith.remf %a, %b", arity: 2, ref: func(a, b, _ float64) float64 { return math.Mod(a, b) }, gen: uniform(-1000, 1000), tol64: 0, tol: 0,
		special: [][3]float64{{1e300, 3}, {-7.5, 2}, {5, 0}, {inf, 1}}},
	{name: "maximumf", body: "%r = arith.maximumf %a, %b", arity: 2, ref: func(a, b, _ float64) float64 {
		if math.IsNaN(a) || math.IsNaN(b) {
			return nan
		}
		return math.Max(a, b)
	}, special: [][3]float64{{nan, 1}, {0, math.Copysign(0, -1)}}},
	{name: "minnumf", body: "%r = arith.minnumf %a, %b", arity: 2, ref: func(a, b, _ float64) float64 {
		if math.IsNaN(a) {
			return b
		}
		if math.IsNaN(b) {
			return a
		}
		return math.Min(a, b)
	}, special: [][3]float64{{nan, 1}, {2, nan}}},
	{name: "exp", body: "%r = math.exp %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Exp(a) }, gen: uniform(-30, 30), tol64: 2, tol: 2,
		special: [][3]float64{{0}, {-800}, {800}, {nan}, {-inf}, {inf}, {-700}, {709}, {88.7}, {-87.5}, {-100}}},
	{name: "exp2", body: "%r = math.exp2 %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Exp2(a) }, gen: uniform(-40, 40), tol64: 2, tol: 1,
		special: [][3]float64{{-1074}, {1023.5}, {-1}, {10}}},
	{name: "expm1", body: "%r = math.expm1 %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Expm1(a) }, gen: uniform(-3, 3), tol64: 3, tol: 1,
		special: [][3]float64{{1e-10}, {-1e-5}, {0.4999}, {-50}}},
	{name: "log", body: "%r = math.log %a", arity: 1, ref: func(a, _, _ float64) float64 { return logRef(a) }, gen: logUniform(1e-30, 1e30), tol64: 2, tol: 2,
		special: [][3]float64{{1}, {0}, {-1}, {inf}, {nan}, {1.0000001}, {0.9999999}, {5e-324}, {1e-40}}},
	{name: "log2", body: "%r = math.log2 %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Log2(a) }, gen: logUniform(1e-20, 1e20), tol64: 2, tol: 1,
		special: [][3]float64{{8}, {0.125}, {1}}},
	{name: "log10", body: "%r = math.log10 %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Log10(a) }, gen: logUniform(1e-20, 1e20), tol64: 3, tol: 1},
	{name: "log1p", body: "%r = math.log1p %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Log1p(a) }, gen: uniform(-0.99, 50), tol64: 3, tol: 1,
		special: [][3]float64{{1e-12}, {-1e-7}, {-1}, {-2}}},
	{name: "tanh", body: "%r = math.tanh %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Tanh(a) }, gen: uniform(-12, 12), tol64: 4, tol: 1,
		special: [][3]float64{{1e-9}, {-0.3}, {30}, {-inf}}},
	{name: "erf", body: "%r = math.erf %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Erf(a) }, gen: uniform(-7, 7), tol64: 4, tol: 1,
		special: [][3]float64{{1e-8}, {2.4999}, {2.5}, {5.9}, {-inf}}},
	{name: "sin", body: "%r = math.sin %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Sin(a) }, gen: uniform(-100, 100), tol64: 2, tol: 1,
		special: [][3]float64{{1e-9}, {inf}, {3.14159}}},
	{name: "cos", body: "%r = math.cos %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Cos(a) }, gen: uniform(-100, 100), tol64: 2, tol: 1},
	{name: "tan", body: "%r = math.tan %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Tan(a) }, gen: uniform(-1.5, 1.5), tol64: 4, tol: 1},
	{name: "atan", body: "%r = math.atan %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Atan(a) }, gen: uniform(-20, 20), tol64: 2, tol: 1,
		special: [][3]float64{{inf}, {-inf}, {1e-300}, {0.4142}, {1}}},
	{name: "atan2", body: "%r = math.atan2 %a, %b", arity: 2, ref: func(a, b, _ float64) float64 { return math.Atan2(a, b) }, tol64: 3, tol: 1,
		special: [][3]float64{{0, -1}, {0, 1}, {1, 0}, {inf, inf}, {-inf, -inf}, {1, -inf}, {-3, -4}}},
	{name: "powf", body: "%r = math.powf %a, %b", arity: 2, ref: func(a, b, _ float64) float64 { return math.Pow(a, b) }, tol64: 32, tol: 1,
		gen: func(r *rand.Rand, i int) float64 {
			if i == 0 {
				return 10 * r.Float64()
			}
			return -6 + 12*r.Float64()
		},
		special: [][3]float64{{-2, 3}, {-2, 0.5}, {0, -1}, {2, 0}, {1, nan}, {inf, -2}}},
	{name: "sqrt", body: "%r = math.sqrt %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Sqrt(a) }, gen: logUniform(1e-10, 1e10), tol64: 0, tol: 0,
		special: [][3]float64{{-1}, {0}, {inf}}},
	{name: "rsqrt", body: "%r = math.rsqrt %a", arity: 1, ref: func(a, _, _ float64) float64 { return 1 / math.Sqrt(a) }, gen: logUniform(1e-10, 1e10), tol64: 1, tol: 1},
	{name: "fma", body: "%r = math.fma %a, %b, %c", arity: 3, ref: math.FMA, tol64: 1, tol: 1},
	{name: "absf", body: "%r = math.absf %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Abs(a) }, tol64: 0, tol: 0},
	{name: "copysign", body: "%r = math.copysign %a, %b", arity: 2, ref: func(a, b, _ float64) float64 { return math.Copysign(a, b) }, tol64: 0, tol: 0},
	{name: "floor", body: "%r = math.floor %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Floor(a) }, gen: uniform(-100, 100), tol64: 0, tol: 0, special: [][3]float64{{-0.5}, {1e300}}},
	{name: "ceil", body: "%r = math.ceil %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Ceil(a) }, gen: uniform(-100, 100), tol64: 0, tol: 0},
	{name: "round", body: "%r = math.round %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Round(a) }, gen: uniform(-100, 100), tol64: 0, tol: 0,
		special: [][3]float64{{2.5}, {-2.5}, {0.49999999999999994}, {-0.5}}},
	{name: "roundeven", body: "%r = math.roundeven %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.RoundToEven(a) }, gen: uniform(-100, 100), tol64: 0, tol: 0,
		special: [][3]float64{{2.5}, {-3.5}, {0.5}, {-0.5}}},
	{name: "trunc", body: "%r = math.trunc %a", arity: 1, ref: func(a, _, _ float64) float64 { return math.Trunc(a) }, gen: uniform(-100, 100), tol64: 0, tol: 0},
	{name: "fpowi", body: "%n = arith.fptosi %b : {T} to i32\n    %r = math.fpowi %a, %n : {T}, i32", arity: 2, tol64: 4, tol: 1,
		ref: func(a, b, _ float64) float64 { return math.Pow(a, math.Trunc(b)) },
		gen: func(r *rand.Rand, i int) float64 {
			if i == 0 {
				return -3 + 6*r.Float64()
			}
			return float64(r.Intn(17) - 8)
		}},
}

// mathChunks splits the ops into groups whose generic stays within the
// runtime's 64 bindings (each op reads its operands and writes one
// result), or within 32 on vulkan-spirv, the storage buffers per shader
// stage that lavapipe allows (Vulkan's minimum is 4, most devices allow
// far more).
func mathChunks() [][]int {
	limit := 60
	if gpuMode == "vulkan-spirv" {
		limit = 32
	}
	var chunks [][]int
	var cur []int
	used := 0
	for i, op := range mathOps {
		if used+op.arity+1 > limit {
			chunks = append(chunks, cur)
			cur, used = nil, 0
		}
		cur = append(cur, i)
		used += op.arity + 1
	}
	return append(chunks, cur)
}

// mathProgram has one function @ops with a linalg.generic per chunk, each
// applying its ops to their own input vectors; the function takes every
// op's inputs in op order and returns every op's result.
func mathProgram(ft floatType, n int) string {
	tt := fmt.Sprintf("tensor<%dx%s>", n, ft.name)
	var b strings.Builder
	var params, rets, retT []string
	first := make([]int, len(mathOps)) // first input of each op
	arg := 0
	for i, op := range mathOps {
		first[i] = arg
		for k := 0; k < op.arity; k++ {
			params = append(params, fmt.Sprintf("%%x%d: %s", arg, tt))
			arg++
		}
		retT = append(retT, tt)
	}
	fmt.Fprintf(&b, "#id = affine_map<(d0) -> (d0)>\nfunc.func @ops(%s) -> (%s) {\n", strings.Join(params, ", "), strings.Join(retT, ", "))
	fmt.Fprintf(&b, "  %%e = tensor.empty() : %s\n", tt)
	for ci, chunk := range mathChunks() {
		var ins, insT, maps, outs, outsT, bodyArgs, yields, yieldT []string
		for _, oi := range chunk {
			for k := 0; k < mathOps[oi].arity; k++ {
				ins = append(ins, fmt.Sprintf("%%x%d", first[oi]+k))
				insT = append(insT, tt)
				maps = append(maps, "#id")
				bodyArgs = append(bodyArgs, fmt.Sprintf("%%in%d: %s", first[oi]+k, ft.name))
			}
		}
		for _, oi := range chunk {
			outs = append(outs, "%e")
			outsT = append(outsT, tt)
			maps = append(maps, "#id")
			bodyArgs = append(bodyArgs, fmt.Sprintf("%%out%d: %s", oi, ft.name))
			yields = append(yields, fmt.Sprintf("%%r%d", oi))
			yieldT = append(yieldT, ft.name)
			rets = append(rets, fmt.Sprintf("%%g%d#%d", ci, len(outs)-1))
		}
		fmt.Fprintf(&b, "  %%g%d:%d = linalg.generic {indexing_maps = [%s], iterator_types = [\"parallel\"]} ins(%s : %s) outs(%s : %s) {\n",
			ci, len(chunk), strings.Join(maps, ", "), strings.Join(ins, ", "), strings.Join(insT, ", "), strings.Join(outs, ", "), strings.Join(outsT, ", "))
		fmt.Fprintf(&b, "  ^bb0(%s):\n", strings.Join(bodyArgs, ", "))
		for _, oi := range chunk {
			op := mathOps[oi]
			body := strings.ReplaceAll(op.body, "{T}", ft.name)
			for k, v := range []string{"%a", "%b", "%c"}[:op.arity] {
				body = strings.ReplaceAll(body, v, fmt.Sprintf("%%in%d", first[oi]+k))
			}
			body = strings.ReplaceAll(body, "%r ", fmt.Sprintf("%%r%d ", oi))
			body = strings.ReplaceAll(body, "%n", fmt.Sprintf("%%n%d", oi))
			if !strings.Contains(body, "fpowi") {
				body += " : " + ft.name
			}
			fmt.Fprintf(&b, "    %s\n", body)
		}
		fmt.Fprintf(&b, "    linalg.yield %s : %s\n", strings.Join(yields, ", "), strings.Join(yieldT, ", "))
		fmt.Fprintf(&b, "  } -> (%s)\n", strings.Join(outsT, ", "))
	}
	fmt.Fprintf(&b, "  return %s : %s\n}\n", strings.Join(rets, ", "), strings.Join(retT, ", "))
	return b.String()
}

func TestLinalgMathAccuracy(t *testing.T) {
	tools(t)
	const random = 48
	maxSpecial := 0
	for _, op := range mathOps {
		if len(op.special) > maxSpecial {
			maxSpecial = len(op.special)
		}
	}
	n := random + maxSpecial
	for _, ft := range floatTypes {
		t.Run(ft.name, func(t *testing.T) {
			src := mathProgram(ft, n)
			module, err := compileSource("math_"+ft.name+".mlir", []byte(src), nil)
			if err != nil {
				t.Fatalf("compiling:\n%s\n%v", src, err)
			}
			r := rand.New(rand.NewSource(7))
			var inputs []string
			vals := make([][3][]float64, len(mathOps))
			for oi, op := range mathOps {
				for k := 0; k < op.arity; k++ {
					v := make([]float64, n)
					for i := range v {
						switch {
						case i < random && op.gen != nil:
							v[i] = op.gen(r, k)
						case i < random:
							v[i] = -10 + 20*r.Float64()
						case i-random < len(op.special):
							v[i] = op.special[i-random][k]
						default:
							v[i] = 1
						}
						if i < random && ft.name == "f16" && v[i] != 0 && (math.Abs(v[i]) > 6e4 || math.Abs(v[i]) < 1e-4) {
							// Keep random inputs inside f16's range.
							v[i] = math.Copysign(logUniform(1e-4, 6e4)(r, k), v[i])
						}
						v[i] = ft.round(v[i])
					}
					vals[oi][k] = v
					var sb strings.Builder
					fmt.Fprintf(&sb, "%dx%s=", n, ft.name)
					for i, x := range v {
						if i > 0 {
							sb.WriteByte(' ')
						}
						switch {
						case math.IsInf(x, 1):
							sb.WriteString("inf")
						case math.IsInf(x, -1):
							sb.WriteString("-inf")
						case math.IsNaN(x):
							sb.WriteString("nan")
						default:
							sb.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
						}
					}
					inputs = append(inputs, sb.String())
				}
			}
			dev, err := testDevices(t)[0].make()
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			_, data := invoke(t, dev, module, "ops", inputs...)
			for oi, op := range mathOps {
				tol := op.tol
				if ft.name == "f64" {
					tol = op.tol64
				}
				bad := 0
				for i := 0; i < n; i++ {
					a, b, c := vals[oi][0], vals[oi][1], vals[oi][2]
					at := func(v []float64) float64 {
						if v == nil {
							return 0
						}
						return v[i]
					}
					want := ft.round(op.ref(at(a), at(b), at(c)))
					got := ft.decode(data[oi], i)
					if !closeULP(ft, got, want, tol) {
						if bad++; bad <= 4 {
							t.Errorf("%s %s(%v, %v, %v) = %v, want %v (tolerance %g ulp)", ft.name, op.name, at(a), at(b), at(c), got, want, tol)
						}
					}
				}
			}
		})
	}
}

// closeULP reports whether got is within tol ulp of want; NaNs must match
// and infinities and zeros must be exact (signed).
func closeULP(ft floatType, got, want, tol float64) bool {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return got == want
	case want == 0 && tol == 0:
		return got == 0 && math.Signbit(got) == math.Signbit(want)
	}
	return math.Abs(got-want) <= tol*math.Ldexp(1, ft.ulpExp(want))
}

// TestLinalgIntegerOps checks integer arith in generated kernels at every
// width, including what must not trap: division by zero and INT_MIN / -1
// (0 and a wrapped quotient; remainders the dividend and 0), and shifts
// by the width or more.
func TestLinalgIntegerOps(t *testing.T) {
	tools(t)
	type intCase struct {
		name string
		ref  func(a, b int64, bits uint) int64
	}
	wrap := func(v int64, bits uint) int64 { return v << (64 - bits) >> (64 - bits) }
	cases := []intCase{
		{"addi", func(a, b int64, bits uint) int64 { return wrap(a+b, bits) }},
		{"muli", func(a, b int64, bits uint) int64 { return wrap(a*b, bits) }},
		{"divsi", func(a, b int64, bits uint) int64 {
			if b == 0 {
				return 0
			}
			if b == -1 {
				return wrap(-a, bits)
			}
			return a / b
		}},
		{"remsi", func(a, b int64, bits uint) int64 {
			if b == 0 {
				return a
			}
			if b == -1 {
				return 0
			}
			return a % b
		}},
		{"divui", func(a, b int64, bits uint) int64 {
			m := uint64(1)<<bits - 1
			if bits == 64 {
				m = ^uint64(0)
			}
			if uint64(b)&m == 0 {
				return 0
			}
			return wrap(int64((uint64(a)&m)/(uint64(b)&m)), bits)
		}},
		{"floordivsi", func(a, b int64, bits uint) int64 {
			if b == 0 {
				return 0
			}
			if b == -1 {
				return wrap(-a, bits)
			}
			q := a / b
			if a%b != 0 && (a < 0) != (b < 0) {
				q--
			}
			return q
		}},
		{"shli", func(a, b int64, bits uint) int64 {
			if b < 0 || b >= int64(bits) {
				return 0
			}
			return wrap(a<<uint(b), bits)
		}},
		{"shrsi", func(a, b int64, bits uint) int64 {
			if b < 0 || b >= int64(bits) {
				if a < 0 {
					return -1
				}
				return 0
			}
			return a >> uint(b)
		}},
		{"maxsi", func(a, b int64, bits uint) int64 {
			if a > b {
				return a
			}
			return b
		}},
	}
	for _, bits := range []uint{8, 16, 32, 64} {
		ty := fmt.Sprintf("i%d", bits)
		t.Run(ty, func(t *testing.T) {
			min, max := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
			as := []int64{7, -7, min, min, 5, max, -1, 0, 100, -100, 3, 1}
			bs := []int64{2, 2, -1, 0, 0, -1, int64(bits), int64(bits) + 3, -3, 7, 1, int64(bits) - 1}
			n := len(as)
			var b strings.Builder
			fmt.Fprintf(&b, "#id = affine_map<(d0) -> (d0)>\nfunc.func @ops(%%x: tensor<%d%s>, %%y: tensor<%d%s>) -> (", n, "x"+ty, n, "x"+ty)
			var outsT, outs, bodyArgs, ys, maps []string
			for range cases {
				outsT = append(outsT, fmt.Sprintf("tensor<%dx%s>", n, ty))
				outs = append(outs, "%e")
				maps = append(maps, "#id")
			}
			for i := range cases {
				bodyArgs = append(bodyArgs, fmt.Sprintf("%%o%d: %s", i, ty))
				ys = append(ys, fmt.Sprintf("%%r%d", i))
			}
			fmt.Fprintf(&b, "%s) {\n  %%e = tensor.empty() : tensor<%dx%s>\n", strings.Join(outsT, ", "), n, ty)
			fmt.Fprintf(&b, "  %%r:%d = linalg.generic {indexing_maps = [#id, #id, %s], iterator_types = [\"parallel\"]} ins(%%x, %%y : tensor<%dx%s>, tensor<%dx%s>) outs(%s : %s) {\n",
				len(cases), strings.Join(maps, ", "), n, ty, n, ty, strings.Join(outs, ", "), strings.Join(outsT, ", "))
			fmt.Fprintf(&b, "  ^bb0(%%a: %s, %%b: %s, %s):\n", ty, ty, strings.Join(bodyArgs, ", "))
			for i, c := range cases {
				fmt.Fprintf(&b, "    %%r%d = arith.%s %%a, %%b : %s\n", i, c.name, ty)
			}
			fmt.Fprintf(&b, "    linalg.yield %s : %s\n  } -> (%s)\n", strings.Join(ys, ", "), strings.Repeat(ty+", ", len(cases)-1)+ty, strings.Join(outsT, ", "))
			var rets []string
			for i := range cases {
				rets = append(rets, fmt.Sprintf("%%r#%d", i))
			}
			fmt.Fprintf(&b, "  return %s : %s\n}\n", strings.Join(rets, ", "), strings.Join(outsT, ", "))
			module, err := compileSource("ints.mlir", []byte(b.String()), nil)
			if err != nil {
				t.Fatalf("compiling:\n%s\n%v", b.String(), err)
			}
			list := func(v []int64) string {
				var s []string
				for _, x := range v {
					s = append(s, strconv.FormatInt(x, 10))
				}
				return fmt.Sprintf("%dx%s=%s", n, ty, strings.Join(s, " "))
			}
			forDevices(t, func(t *testing.T, dev rhal.Device) {
				_, data := invoke(t, dev, module, "ops", list(as), list(bs))
				for ci, c := range cases {
					for i := 0; i < n; i++ {
						var got int64
						switch bits {
						case 8:
							got = int64(int8(data[ci][i]))
						case 16:
							got = int64(int16(binary.LittleEndian.Uint16(data[ci][2*i:])))
						case 32:
							got = int64(int32(binary.LittleEndian.Uint32(data[ci][4*i:])))
						default:
							got = int64(binary.LittleEndian.Uint64(data[ci][8*i:]))
						}
						if want := c.ref(as[i], bs[i], bits); got != want {
							t.Errorf("%s %s(%d, %d) = %d, want %d", ty, c.name, as[i], bs[i], got, want)
						}
					}
				}
			})
		})
	}
}

// TestElementwiseHalfAndDouble runs tensor-level arith and math ops (which
// form elementwise dispatches, not linalg ones) on f16, bf16 and f64.
func TestElementwiseHalfAndDouble(t *testing.T) {
	tools(t)
	const src = `func.func @f(%a: tensor<6xf16>, %b: tensor<6xbf16>, %c: tensor<6xf64>) -> (tensor<6xf16>, tensor<6xbf16>, tensor<6xf64>) {
  %x = arith.mulf %a, %a : tensor<6xf16>
  %y = math.exp %b : tensor<6xbf16>
  %z = math.erf %c : tensor<6xf64>
  return %x, %y, %z : tensor<6xf16>, tensor<6xbf16>, tensor<6xf64>
}`
	module, err := compileSource("elementwise_types.mlir", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := []float64{1.5, 300, -2, 0.0999755859375, 0, -0.000123}
	b := []float64{1, 2, -1, 10, 0.5, -100}
	c := []float64{0.5, 1, 2, -3, 1e-10, 7}
	list := func(ft floatType, v []float64) string {
		var s []string
		for _, x := range v {
			s = append(s, strconv.FormatFloat(ft.round(x), 'g', -1, 64))
		}
		return fmt.Sprintf("%dx%s=%s", len(v), ft.name, strings.Join(s, " "))
	}
	f16, bf16, f64 := floatTypes[0], floatTypes[1], floatTypes[3]
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		_, data := invoke(t, dev, module, "f", list(f16, a), list(bf16, b), list(f64, c))
		for i := range a {
			x := f16.round(a[i])
			if got, want := f16.decode(data[0], i), f16.round(x*x); got != want {
				t.Errorf("f16 %v * %v = %v, want %v", x, x, got, want)
			}
			if got, want := bf16.decode(data[1], i), bf16.round(math.Exp(bf16.round(b[i]))); !closeULP(bf16, got, want, 1) {
				t.Errorf("bf16 exp(%v) = %v, want %v", bf16.round(b[i]), got, want)
			}
			if got, want := f64.decode(data[2], i), math.Erf(c[i]); !closeULP(f64, got, want, 4) {
				t.Errorf("f64 erf(%v) = %v, want %v", c[i], got, want)
			}
		}
	})
}

// TestLinalgCasts checks conversions and comparisons in generated kernels:
// f64 truncated to f32, f16 and bf16 (round to nearest even, ties and
// subnormals included), i32 to f16/bf16/f32 signed and unsigned, f32
// bitcast to i32, and cmpf predicates with NaNs and signed zeros.
func TestLinalgCasts(t *testing.T) {
	tools(t)
	const n = 16
	src := strings.NewReplacer("N", strconv.Itoa(n)).Replace(`#id = affine_map<(d0) -> (d0)>
func.func @casts(%x: tensor<Nxf64>, %y: tensor<Nxf64>, %i: tensor<Nxi32>) -> (tensor<Nxf32>, tensor<Nxf16>, tensor<Nxbf16>, tensor<Nxf16>, tensor<Nxbf16>, tensor<Nxf32>, tensor<Nxi32>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>) {
  %e32 = tensor.empty() : tensor<Nxf32>
  %e16 = tensor.empty() : tensor<Nxf16>
  %eb = tensor.empty() : tensor<Nxbf16>
  %ei = tensor.empty() : tensor<Nxi32>
  %e1 = tensor.empty() : tensor<Nxi1>
  %r:12 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %i : tensor<Nxf64>, tensor<Nxf64>, tensor<Nxi32>) outs(%e32, %e16, %eb, %e16, %eb, %e32, %ei, %e1, %e1, %e1, %e1, %e1 : tensor<Nxf32>, tensor<Nxf16>, tensor<Nxbf16>, tensor<Nxf16>, tensor<Nxbf16>, tensor<Nxf32>, tensor<Nxi32>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>) {
  ^bb0(%a: f64, %b: f64, %k: i32, %o0: f32, %o1: f16, %o2: bf16, %o3: f16, %o4: bf16, %o5: f32, %o6: i32, %o7: i1, %o8: i1, %o9: i1, %o10: i1, %o11: i1):
    %t32 = arith.truncf %a : f64 to f32
    %t16 = arith.truncf %a : f64 to f16
    %tb = arith.truncf %a : f64 to bf16
    %s16 = arith.sitofp %k : i32 to f16
    %sb = arith.sitofp %k : i32 to bf16
    %u32 = arith.uitofp %k : i32 to f32
    %bits = arith.bitcast %t32 : f32 to i32
    %c0 = arith.cmpf olt, %a, %b : f64
    %c1 = arith.cmpf ule, %a, %b : f64
    %c2 = arith.cmpf une, %a, %b : f64
    %c3 = arith.cmpf one, %a, %b : f64
    %c4 = arith.cmpf ueq, %a, %b : f64
    linalg.yield %t32, %t16, %tb, %s16, %sb, %u32, %bits, %c0, %c1, %c2, %c3, %c4 : f32, f16, bf16, f16, bf16, f32, i32, i1, i1, i1, i1, i1
  } -> (tensor<Nxf32>, tensor<Nxf16>, tensor<Nxbf16>, tensor<Nxf16>, tensor<Nxbf16>, tensor<Nxf32>, tensor<Nxi32>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10, %r#11 : tensor<Nxf32>, tensor<Nxf16>, tensor<Nxbf16>, tensor<Nxf16>, tensor<Nxbf16>, tensor<Nxf32>, tensor<Nxi32>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>, tensor<Nxi1>
}`)
	module, err := compileSource("casts.mlir", []byte(src), nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	xs := []float64{1 + 0x1p-11, 1 + 3*0x1p-11, 1 + 0x1p-8, 1 + 3*0x1p-8, 65519.99, 65520, 0x1p-25, 0x1.8p-25, -0x1p-140,
		math.Copysign(0, -1), nan, inf, 1e300, 3.14159265358979, 1 + 0x1p-24 + 0x1p-40, -2.5}
	ys := []float64{1, nan, 1 + 0x1p-8, 0, 65520, inf, 0, -1, 0, 0, nan, inf, 1e300, 3, 2, -2.5}
	is := []int64{0, 1, -1, 2049, 2051, 65519, 65536, -2147483648, 2147483647, 257, 259, 16777217, 100000, -3, 7, 4097}
	fl := func(v []float64) string {
		var s []string
		for _, x := range v {
			switch {
			case math.IsNaN(x):
				s = append(s, "nan")
			case math.IsInf(x, 1):
				s = append(s, "inf")
			default:
				s = append(s, strconv.FormatFloat(x, 'g', -1, 64))
			}
		}
		return fmt.Sprintf("%dxf64=%s", n, strings.Join(s, " "))
	}
	var il []string
	for _, v := range is {
		il = append(il, strconv.FormatInt(v, 10))
	}
	f16, bf16, f32 := floatTypes[0], floatTypes[1], floatTypes[2]
	same := func(a, b float64) bool {
		return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		_, d := invoke(t, dev, module, "casts", fl(xs), fl(ys), fmt.Sprintf("%dxi32=%s", n, strings.Join(il, " ")))
		for i := 0; i < n; i++ {
			x, y, k := xs[i], ys[i], is[i]
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"truncf f32", f32.decode(d[0], i), f32.round(x)},
				{"truncf f16", f16.decode(d[1], i), f16.round(x)},
				{"truncf bf16", bf16.decode(d[2], i), bf16.round(x)},
				{"sitofp f16", f16.decode(d[3], i), f16.round(float64(k))},
				{"sitofp bf16", bf16.decode(d[4], i), bf16.round(float64(k))},
				{"uitofp f32", f32.decode(d[5], i), f32.round(float64(uint32(k)))},
			} {
				if !same(c.got, c.want) {
					t.Errorf("%s(%v / %d) = %v, want %v", c.what, x, k, c.got, c.want)
				}
			}
			if got, want := binary.LittleEndian.Uint32(d[6][4*i:]), math.Float32bits(float32(x)); got != want && !math.IsNaN(x) {
				t.Errorf("bitcast(%v) = %#x, want %#x", float32(x), got, want)
			}
			uno := math.IsNaN(x) || math.IsNaN(y)
			for j, want := range []bool{x < y, uno || x <= y, uno || x != y, !uno && x != y, uno || x == y} {
				if got := d[7+j][i] != 0; got != want {
					t.Errorf("cmpf #%d(%v, %v) = %v, want %v", j, x, y, got, want)
				}
			}
		}
	})
}

// TestLinalgPairwiseReduction sums long rows (IREE's large_reduction):
// the contract lets llvm-cpu reduce an addf pairwise, so 40960 f32 and
// 4096 f16 copies of 0.001 come within 1e-4 of the exact sum (in order,
// f32 drifts by about 1e-2 and the f16 sum stalls at 4).
func TestLinalgPairwiseReduction(t *testing.T) {
	tools(t)
	const src = `#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sums(%x: tensor<2x40960xf32>, %h: tensor<2x4096xf16>) -> (tensor<2xf32>, tensor<2xf16>) {
  %z = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2xf32>
  %eh = tensor.empty() : tensor<2xf16>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %fh = linalg.fill ins(%zh : f16) outs(%eh : tensor<2xf16>) -> tensor<2xf16>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x40960xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2xf32>
  %sh = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%h : tensor<2x4096xf16>) outs(%fh : tensor<2xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %a = arith.addf %in, %acc : f16
    linalg.yield %a : f16
  } -> tensor<2xf16>
  return %s, %sh : tensor<2xf32>, tensor<2xf16>
}`
	module, err := compileSource("sums.mlir", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	f16, f32 := floatTypes[0], floatTypes[2]
	wantF32 := f32.round(0.001) * 40960
	wantF16 := f16.round(f16.round(0.001) * 4096)
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		_, d := invoke(t, dev, module, "sums", "2x40960xf32=0.001", "2x4096xf16=0.001")
		for i := 0; i < 2; i++ {
			if got := f32.decode(d[0], i); math.Abs(got-wantF32) > 1e-4 {
				t.Errorf("f32 row %d sums to %v, want %v within 1e-4", i, got, wantF32)
			}
			if got := f16.decode(d[1], i); got != wantF16 {
				t.Errorf("f16 row %d sums to %v, want %v", i, got, wantF16)
			}
		}
	})
}
