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

// TestGPUTypes runs testdata/gpu_types.mlir on every GPU device: f16,
// bf16, f64, i64, i8 and i16 arithmetic, casts and reductions against Go
// references. The 16-bit floats come from random bit patterns (so
// subnormals, infinities, NaNs and ties all occur) and each op's result
// must be the IEEE result of that type, rounded to nearest even; the Go
// side computes in float64 and rounds once (floatType.round), which is
// the type's own result for +, -, *, / and sqrt since float64 has more
// than twice their precision.
func TestGPUTypes(t *testing.T) {
	forGPUs(t, "gpu_types.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		r := rand.New(rand.NewSource(17))
		for _, n := range []int{1, 7, 1000} {
			t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
				for _, ft := range floatTypes[:2] {
					checkHalfOps(t, dev, module, ft, r, n)
				}
				checkF64Ops(t, dev, module, r, n)
				checkI64Ops(t, dev, module, r, n)
				checkNarrowOps(t, dev, module, r, n)
				checkTensorTypeOps(t, dev, module, r, n)
			})
		}
		checkTypeReductions(t, dev, module, r)
		for _, sz := range [][3]int{{1, 1, 1}, {17, 33, 65}, {130, 70, 200}} {
			t.Run(fmt.Sprintf("matmul%dx%dx%d", sz[0], sz[1], sz[2]), func(t *testing.T) {
				checkTypeMatmuls(t, dev, module, r, sz[0], sz[1], sz[2])
			})
		}
	})
}

// checkTypeMatmuls runs the f64 and f16 matmuls (m x k times k x n): f64
// within rounding of the float64 sum (a device may contract each
// multiply-add); f16 either exactly as the in-order sum rounded at every
// step (the loop nests) or, where tensor cores run it (cuda from sm_80,
// which keeps the sum in f32 and rounds once, as IREE and cuBLAS do),
// within one f16 ulp of the exact sum plus f32's rounding of the
// products' magnitudes.
func checkTypeMatmuls(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand, m, k, n int) {
	f16, f64 := floatTypes[0], floatTypes[3]
	a, b := make([]float64, m*k), make([]float64, k*n)
	ha, hb := make([]float64, m*k), make([]float64, k*n)
	for i := range a {
		a[i], ha[i] = r.NormFloat64(), f16.round(r.Float64()*4-2)
	}
	for i := range b {
		b[i], hb[i] = r.NormFloat64(), f16.round(r.Float64()*4-2)
	}
	_, d := invoke(t, dev, module, "matmul_f64", floatArg(f64, fmt.Sprintf("%dx%d", m, k), a), floatArg(f64, fmt.Sprintf("%dx%d", k, n), b))
	_, dh := invoke(t, dev, module, "matmul_f16", floatArg(f16, fmt.Sprintf("%dx%d", m, k), ha), floatArg(f16, fmt.Sprintf("%dx%d", k, n), hb))
	bad := 0
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var sum, mag, hsum, hexact, hmag float64
			for l := 0; l < k; l++ {
				p := a[i*k+l] * b[l*n+j]
				sum, mag = sum+p, mag+math.Abs(p)
				hsum = f16.round(hsum + f16.round(ha[i*k+l]*hb[l*n+j]))
				hp := ha[i*k+l] * hb[l*n+j]
				hexact, hmag = hexact+hp, hmag+math.Abs(hp)
			}
			if got := f64.decode(d[0], i*n+j); math.Abs(got-sum) > 1e-14*mag {
				if bad++; bad <= 5 {
					t.Errorf("matmul_f64[%d,%d] = %v, want %v", i, j, got, sum)
				}
			}
			wide := func(got float64) bool {
				return math.Abs(got-hexact) <= math.Ldexp(1, f16.ulpExp(hexact))+float64(k)*math.Ldexp(hmag, -23)
			}
			if got := f16.decode(dh[0], i*n+j); !sameFloat(got, hsum) && !wide(got) {
				if bad++; bad <= 5 {
					t.Errorf("matmul_f16[%d,%d] = %v, want %v", i, j, got, hsum)
				}
			}
		}
	}
}

// floatArg is the --input spelling of float values of type ft (exact:
// each is a value of the type).
func floatArg(ft floatType, shape string, v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprintf("%sx%s=%s", shape, ft.name, strings.Join(s, " "))
}

// randomHalf is a value of ft (f16 or bf16) from random bits, NaNs
// included.
func randomHalf(ft floatType, r *rand.Rand) float64 {
	var b [2]byte
	binary.LittleEndian.PutUint16(b[:], uint16(r.Intn(1<<16)))
	return ft.decode(b[:], 0)
}

// sameFloat reports whether got is want, zeros' signs included; any NaN
// matches any NaN.
func sameFloat(got, want float64) bool {
	return got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(got) && math.IsNaN(want)
}

// subnormal reports whether x is a subnormal value of ft.
func subnormal(ft floatType, x float64) bool {
	return x != 0 && math.Abs(x) < math.Ldexp(1, ft.minExp)
}

// flushed reports whether got is an acceptable bf16 result where a
// subnormal is involved: bf16 subnormals are f32 subnormals in the
// shader, which Vulkan lets a device flush to zero (lavapipe does in
// some ops), so a zero stands for a subnormal result or operand.
func flushed(ft floatType, got, want float64, operands ...float64) bool {
	if ft.name != "bf16" || got != 0 {
		return false
	}
	if subnormal(ft, want) {
		return true
	}
	for _, x := range operands {
		if subnormal(ft, x) {
			return true
		}
	}
	return false
}

// halfBits is the f16 or bf16 encoding of a (non-NaN) value of ft.
func halfBits(ft floatType, x float64) uint16 {
	if ft.name == "bf16" {
		return uint16(math.Float32bits(float32(x)) >> 16)
	}
	for h := 0; h < 1<<16; h++ {
		var b [2]byte
		binary.LittleEndian.PutUint16(b[:], uint16(h))
		if sameFloat(ft.decode(b[:], 0), x) {
			return uint16(h)
		}
	}
	panic(fmt.Sprintf("%v is not an f16 value", x))
}

func checkHalfOps(t *testing.T, dev rhal.Device, module []byte, ft floatType, r *rand.Rand, n int) {
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i], b[i] = randomHalf(ft, r), randomHalf(ft, r)
	}
	// Ties of each kind in the first elements: products and sums exactly
	// half an ulp from two neighbours.
	if n >= 7 {
		u := math.Ldexp(1, 1-ft.prec)
		a[0], b[0] = 1, u/2   // 1 + u/2: to even (1)
		a[1], b[1] = 1+u, u/2 // to even (1 + 2u)
		a[2], b[2] = 1+u, 1+u // (1+u)^2 = 1 + 2u + u^2: up
		a[3], b[3] = ft.max, ft.max
		a[4], b[4] = math.Ldexp(1, ft.minExp), math.Ldexp(1, -ft.prec) // product below the smallest normal
		a[5], b[5] = math.Copysign(0, -1), 0
		a[6], b[6] = math.Inf(1), math.NaN()
	}
	shape := strconv.Itoa(n)
	_, d := invoke(t, dev, module, ft.name+"_ops", floatArg(ft, shape, a), floatArg(ft, shape, b))
	k := ft.round(0.1)
	f32 := floatTypes[2]
	bad := 0
	for i := range a {
		x, y := a[i], b[i]
		mx := math.Max(x, y)
		if math.IsNaN(x) || math.IsNaN(y) {
			mx = math.NaN()
		}
		for j, want := range []float64{ft.round(x + y), ft.round(x - y), ft.round(x * y), ft.round(x / y), ft.round(math.Sqrt(math.Abs(x)))} {
			if got := ft.decode(d[j], i); !sameFloat(got, want) && !flushed(ft, got, want, x, y) {
				if bad++; bad <= 10 {
					t.Errorf("%s op #%d(%v, %v) = %v, want %v", ft.name, j, x, y, got, want)
				}
			}
		}
		// maximumf orders -0 below +0 (math.Max does too).
		if got := ft.decode(d[5], i); !sameFloat(got, mx) && !flushed(ft, got, mx, x, y) {
			t.Errorf("%s maximumf(%v, %v) = %v, want %v", ft.name, x, y, got, mx)
		}
		if got, want := f32.decode(d[6], i), f32.round(x*y); !sameFloat(got, want) {
			t.Errorf("%s extf product (%v * %v) = %v, want %v", ft.name, x, y, got, want)
		}
		if got, want := ft.decode(d[7], i), ft.round(f32.round(x*y)); !sameFloat(got, want) && !flushed(ft, got, want, x, y) {
			t.Errorf("%s truncf(%v * %v) = %v, want %v", ft.name, x, y, got, want)
		}
		if got, want := d[8][i] != 0, x < y; got != want {
			t.Errorf("%s cmpf olt(%v, %v) = %v", ft.name, x, y, got)
		}
		if got := binary.LittleEndian.Uint16(d[9][2*i:]); !math.IsNaN(x) && got != halfBits(ft, x) {
			t.Errorf("%s bitcast(%v) = %#04x, want %#04x", ft.name, x, got, halfBits(ft, x))
		}
		// fma computes in f32 and rounds: within one ulp of the exact
		// result.
		if got, want := ft.decode(d[10], i), ft.round(x*k+y); !closeULP(ft, got, want, 1) && !flushed(ft, got, want, x, y) {
			t.Errorf("%s fma(%v, %v, %v) = %v, want %v", ft.name, x, k, y, got, want)
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d wrong arithmetic results", ft.name, bad)
	}
}

// randomF64 is a double from random bits.
func randomF64(r *rand.Rand) float64 {
	return math.Float64frombits(r.Uint64())
}

func checkF64Ops(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand, n int) {
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i], b[i] = randomF64(r), randomF64(r)
		if i%2 == 0 {
			// Values in the 16-bit floats' ranges too.
			a[i] = math.Ldexp(a[i], -math.Ilogb(a[i])+r.Intn(40)-20)
		}
	}
	// Values that round twice the wrong way through f32 (to f16 and
	// bf16), ties, overflow and the smallest subnormals.
	special := []float64{1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-8 + 0x1p-40, 1 + 0x1p-24 + 0x1p-60, 1 + 0x1p-11, 65519.99, 65520, 0x1p-25, 0x1.8p-25, 0x1p-149, -0x1p-150, 1e300, math.Inf(-1)}
	for i := 0; i < len(special) && i < n; i++ {
		a[i] = special[i]
	}
	shape := strconv.Itoa(n)
	f64, f32, f16, bf16 := floatTypes[3], floatTypes[2], floatTypes[0], floatTypes[1]
	_, d := invoke(t, dev, module, "f64_ops", floatArg(f64, shape, a), floatArg(f64, shape, b))
	for i := range a {
		x, y := a[i], b[i]
		for _, c := range []struct {
			what      string
			got, want float64
			ulp       float64
		}{
			{"addf", f64.decode(d[0], i), x + y, 0},
			{"mulf", f64.decode(d[1], i), x * y, 0},
			{"divf", f64.decode(d[2], i), x / y, 1},
			{"sqrt", f64.decode(d[3], i), math.Sqrt(math.Abs(x)), 1},
			{"truncf f32", f32.decode(d[4], i), f32.round(x), 0},
			{"truncf f16", f16.decode(d[5], i), f16.round(x), 0},
			{"truncf bf16", bf16.decode(d[6], i), bf16.round(x), 0},
			{"extf", f64.decode(d[7], i), f32.round(x), 0},
		} {
			if !sameFloat(c.got, c.want) && (c.ulp == 0 || !closeULP(f64, c.got, c.want, c.ulp)) {
				t.Errorf("f64 %s(%v, %v) = %v, want %v", c.what, x, y, c.got, c.want)
			}
		}
		if got, want := d[8][i] != 0, math.IsNaN(x) || math.IsNaN(y) || x <= y; got != want {
			t.Errorf("f64 cmpf ule(%v, %v) = %v", x, y, got)
		}
		if got := binary.LittleEndian.Uint64(d[9][8*i:]); !math.IsNaN(x) && got != math.Float64bits(x) {
			t.Errorf("f64 bitcast(%v) = %#x", x, got)
		}
	}
}

// i64At reads element i of an i64 result.
func i64At(b []byte, i int) int64 { return int64(binary.LittleEndian.Uint64(b[8*i:])) }

func checkI64Ops(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand, n int) {
	a, b := make([]int64, n), make([]int64, n)
	special := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1 << 24, 1<<24 + 1<<16 + 1, 65519, 65520, 1<<53 + 1}
	for i := range a {
		a[i] = int64(r.Uint64()) >> r.Intn(64)
		if i < len(special) {
			a[i] = special[i]
		}
		// Nonzero divisors, and no INT64_MIN / -1 (undefined).
		for b[i] == 0 || b[i] == -1 {
			b[i] = int64(r.Uint64()) >> r.Intn(64)
		}
	}
	shape := strconv.Itoa(n)
	_, d := invoke(t, dev, module, "i64_ops", intArg(shape, "i64", a), intArg(shape, "i64", b))
	f16, bf16, f32, f64 := floatTypes[0], floatTypes[1], floatTypes[2], floatTypes[3]
	for i := range a {
		x, y := a[i], b[i]
		for j, want := range []int64{x + y, x * y, x / y, int64(uint64(x) % uint64(y)), x >> (y & 63)} {
			if got := i64At(d[j], i); got != want {
				t.Errorf("i64 op #%d(%d, %d) = %d, want %d", j, x, y, got, want)
			}
		}
		if got, want := d[5][i] != 0, uint64(x) < uint64(y); got != want {
			t.Errorf("i64 cmpi ult(%d, %d) = %v", x, y, got)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			// float64(x) rounds to 53 bits, which then round correctly
			// to 11, 8 and 24.
			{"sitofp f16", f16.decode(d[6], i), f16.round(float64(x))},
			{"sitofp bf16", bf16.decode(d[7], i), bf16.round(float64(x))},
			{"uitofp f32", f32.decode(d[8], i), float64(float32(uint64(x)))},
			{"sitofp f64", f64.decode(d[9], i), float64(x)},
		} {
			if !sameFloat(c.got, c.want) {
				t.Errorf("i64 %s(%d) = %v, want %v", c.what, x, c.got, c.want)
			}
		}
		if got := int32(binary.LittleEndian.Uint32(d[10][4*i:])); got != int32(x) {
			t.Errorf("i64 trunci(%d) = %d", x, got)
		}
		if got, want := d[11][i] != 0, x <= y; got != want {
			t.Errorf("i64 cmpi sle(%d, %d) = %v", x, y, got)
		}
	}
}

func checkNarrowOps(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand, n int) {
	a, b, k := make([]int64, n), make([]int64, n), make([]int64, n)
	specialK := []int64{1<<24 + 1<<16 + 1, 16777217, 2049, 2051, 65519, 65520, math.MinInt32, math.MaxInt32, -3}
	for i := range a {
		a[i] = int64(int8(r.Intn(256)))
		for b[i] == 0 {
			b[i] = int64(int16(r.Intn(1 << 16)))
		}
		k[i] = int64(int32(r.Uint32())) >> r.Intn(32)
		if i < len(specialK) {
			k[i] = specialK[i]
		}
	}
	shape := strconv.Itoa(n)
	_, d := invoke(t, dev, module, "narrow_ops", intArg(shape, "i8", a), intArg(shape, "i16", b), intArg(shape, "i32", k))
	f16, bf16 := floatTypes[0], floatTypes[1]
	for i := range a {
		x, y, z := a[i], b[i], k[i]
		for _, c := range []struct {
			what      string
			got, want int64
		}{
			{"i8 x*x+x", int64(int8(d[0][i])), int64(int8(x*x + x))},
			{"i16 divui(y*y, y)", int64(int16(binary.LittleEndian.Uint16(d[1][2*i:]))), int64(int16(uint16(y*y) / uint16(y)))},
			{"extsi i8 to i32", int64(int32(binary.LittleEndian.Uint32(d[2][4*i:]))), x},
			{"extui i16 to i64", i64At(d[3], i), int64(uint16(y))},
			{"trunci i16 to i8", int64(int8(d[4][i])), int64(int8(y))},
		} {
			if c.got != c.want {
				t.Errorf("%s (%d, %d) = %d, want %d", c.what, x, y, c.got, c.want)
			}
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"sitofp i16 to f16", f16.decode(d[5], i), f16.round(float64(y))},
			{"uitofp i8 to bf16", bf16.decode(d[6], i), bf16.round(float64(uint8(x)))},
			{"sitofp i32 to f16", f16.decode(d[7], i), f16.round(float64(z))},
			{"sitofp i32 to bf16", bf16.decode(d[8], i), bf16.round(float64(z))},
			{"uitofp i32 to bf16", bf16.decode(d[9], i), bf16.round(float64(uint32(z)))},
		} {
			if !sameFloat(c.got, c.want) {
				t.Errorf("%s (%d, %d, %d) = %v, want %v", c.what, x, y, z, c.got, c.want)
			}
		}
	}
}

// checkTensorTypeOps runs @tensor_ops, whose tensor-level ops form
// elementwise dispatches.
func checkTensorTypeOps(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand, n int) {
	f16, bf16, f64 := floatTypes[0], floatTypes[1], floatTypes[3]
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	ds, es := make([]int64, n), make([]int64, n)
	for i := range a {
		a[i] = randomHalf(f16, r)
		b[i] = bf16.round(r.Float64()*20 - 10)
		c[i] = r.NormFloat64() * 1e3
		ds[i] = int64(r.Uint64())
		es[i] = int64(int8(r.Intn(256)))
	}
	shape := strconv.Itoa(n)
	_, d := invoke(t, dev, module, "tensor_ops", floatArg(f16, shape, a), floatArg(bf16, shape, b), floatArg(f64, shape, c), intArg(shape, "i64", ds), intArg(shape, "i8", es))
	for i := range a {
		if got, want := f16.decode(d[0], i), f16.round(a[i]*a[i]); !sameFloat(got, want) {
			t.Errorf("f16 %v * %v = %v, want %v", a[i], a[i], got, want)
		}
		if got, want := bf16.decode(d[1], i), bf16.round(math.Exp(b[i])); !closeULP(bf16, got, want, 1) {
			t.Errorf("bf16 exp(%v) = %v, want %v", b[i], got, want)
		}
		// A device may contract the multiply and add.
		if got, want := f64.decode(d[2], i), c[i]*c[i]+c[i]; !closeULP(f64, got, want, 1) {
			t.Errorf("f64 %v * %v + %v = %v, want %v", c[i], c[i], c[i], got, want)
		}
		if got, want := i64At(d[3], i), ds[i]*ds[i]; got != want {
			t.Errorf("i64 %d * %d = %d, want %d", ds[i], ds[i], got, want)
		}
		if got, want := int8(d[4][i]), int8(es[i]*es[i]); got != want {
			t.Errorf("i8 %d * %d = %d, want %d", es[i], es[i], got, want)
		}
	}
}

// typeReductionShapes are rows x columns below, at and past the shared
// reductions' thresholds, one long row, and empty rows and columns.
var typeReductionShapes = [][2]int{{3, 1}, {2, 63}, {2, 64}, {2, 129}, {3, 1000}, {1, 2048}, {70, 70}, {2, 0}, {0, 5}}

func checkTypeReductions(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	f16, bf16, f32, f64 := floatTypes[0], floatTypes[1], floatTypes[2], floatTypes[3]
	for _, sz := range typeReductionShapes {
		rows, cols := sz[0], sz[1]
		shape := fmt.Sprintf("%dx%d", rows, cols)
		t.Run("reduce"+shape, func(t *testing.T) {
			n := rows * cols
			// f16 values of [-4, 4] summed in f32: within rounding of
			// the float64 sum.
			h := make([]float64, n)
			for i := range h {
				h[i] = f16.round(r.Float64()*8 - 4)
			}
			_, d := invoke(t, dev, module, "sum_f16_f32", floatArg(f16, shape, h))
			for i := 0; i < rows; i++ {
				var sum, mag float64
				for _, v := range h[i*cols : (i+1)*cols] {
					sum, mag = sum+v, mag+math.Abs(v)
				}
				if got := f32.decode(d[0], i); math.Abs(got-sum) > 1e-6*mag+1e-30 {
					t.Errorf("sum_f16_f32 row %d = %v, want %v", i, got, sum)
				}
			}
			// Sums of -1, 0 and 1 in f16 and bf16 stay integers the
			// types hold (up to 2048 and 256), so every order of
			// adding them is exact.
			ones := make([]float64, n)
			for i := range ones {
				ones[i] = float64(r.Intn(3) - 1)
			}
			for _, c := range []struct {
				fn  string
				ft  floatType
				max int
			}{{"sum_f16", f16, 2048}, {"sum_bf16", bf16, 256}} {
				if cols > c.max {
					continue
				}
				_, d = invoke(t, dev, module, c.fn, floatArg(c.ft, shape, ones))
				for i := 0; i < rows; i++ {
					var sum float64
					for _, v := range ones[i*cols : (i+1)*cols] {
						sum += v
					}
					if got := c.ft.decode(d[0], i); got != sum {
						t.Errorf("%s row %d = %v, want %v", c.fn, i, got, sum)
					}
				}
			}
			// bf16 maxima onto the lowest bf16, NaN in every third row
			// (no subnormals: see flushed).
			bv := make([]float64, n)
			for i := range bv {
				bv[i] = randomHalf(bf16, r)
				if math.IsNaN(bv[i]) || subnormal(bf16, bv[i]) {
					bv[i] = 0
				}
			}
			for i := 0; i < rows; i++ {
				if i%3 == 2 && cols > 0 {
					bv[i*cols+(i*7)%cols] = math.NaN()
				}
			}
			_, d = invoke(t, dev, module, "max_bf16", floatArg(bf16, shape, bv))
			for i := 0; i < rows; i++ {
				want := -bf16.max
				for _, v := range bv[i*cols : (i+1)*cols] {
					if math.IsNaN(v) || math.IsNaN(want) {
						want = math.NaN()
					} else {
						want = math.Max(want, v)
					}
				}
				if got := bf16.decode(d[0], i); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("max_bf16 row %d = %v, want %v", i, got, want)
				}
			}
			// f64 sums within rounding; i64 sums (wrapping) and minima,
			// i8 sums in i32 and i16 sums (wrapping) exactly.
			fv := make([]float64, n)
			iv, i8v, i16v := make([]int64, n), make([]int64, n), make([]int64, n)
			for i := range fv {
				fv[i] = r.NormFloat64()
				iv[i] = int64(r.Uint64())
				i8v[i] = int64(int8(r.Intn(256)))
				i16v[i] = int64(int16(r.Intn(1 << 16)))
			}
			_, d = invoke(t, dev, module, "sum_f64", floatArg(f64, shape, fv))
			_, di := invoke(t, dev, module, "sum_i64", intArg(shape, "i64", iv))
			_, dm := invoke(t, dev, module, "min_i64", intArg(shape, "i64", iv))
			_, d8 := invoke(t, dev, module, "sum_i8_i32", intArg(shape, "i8", i8v))
			_, d16 := invoke(t, dev, module, "sum_i16", intArg(shape, "i16", i16v))
			for i := 0; i < rows; i++ {
				var sum, mag float64
				var isum, s8 int64
				var s16 int16
				imin := int64(math.MaxInt64)
				for j := i * cols; j < (i+1)*cols; j++ {
					sum, mag = sum+fv[j], mag+math.Abs(fv[j])
					isum += iv[j]
					imin = min(imin, iv[j])
					s8 += i8v[j]
					s16 += int16(i16v[j])
				}
				if got := f64.decode(d[0], i); math.Abs(got-sum) > 1e-14*mag {
					t.Errorf("sum_f64 row %d = %v, want %v", i, got, sum)
				}
				if got := i64At(di[0], i); got != isum {
					t.Errorf("sum_i64 row %d = %d, want %d", i, got, isum)
				}
				if got := i64At(dm[0], i); got != imin {
					t.Errorf("min_i64 row %d = %d, want %d", i, got, imin)
				}
				if got := int64(int32(binary.LittleEndian.Uint32(d8[0][4*i:]))); got != s8 {
					t.Errorf("sum_i8_i32 row %d = %d, want %d", i, got, s8)
				}
				if got := int16(binary.LittleEndian.Uint16(d16[0][2*i:])); got != s16 {
					t.Errorf("sum_i16 row %d = %d, want %d", i, got, s16)
				}
			}
		})
	}
}
