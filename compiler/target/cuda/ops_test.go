package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// words returns the 32-bit elements of every result.
func words(t *testing.T, results []vm.Value) [][]uint32 {
	t.Helper()
	out := make([][]uint32, len(results))
	for i, r := range results {
		v, err := halmodule.BufferViewOf(r)
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, v.Buffer().ByteLength())
		if err := v.Buffer().Read(0, raw); err != nil {
			t.Fatal(err)
		}
		for j := 0; j+4 <= len(raw); j += 4 {
			out[i] = append(out[i], binary.LittleEndian.Uint32(raw[j:]))
		}
	}
	return out
}

func closeF32(got, want float32, tol float64) bool {
	if math.IsNaN(float64(want)) {
		return math.IsNaN(float64(got))
	}
	d := math.Abs(float64(got - want))
	return d <= tol*math.Max(1, math.Abs(float64(want)))
}

// TestOpsOnCUDA runs every op the code generator translates and checks
// each element against Go's arithmetic (approximate math within 1e-5,
// tanh within 1e-3).
func TestOpsOnCUDA(t *testing.T) {
	dev := cudaDevice(t)
	s := load(t, dev, compile(t, "ops.mlir"))
	a := []float32{1.5, -2.25, 4, 0.5, -7.75}
	b := []float32{2, 3, -1, 0.25, 1.5}
	x := []int32{17, -9, 1000000, -64, 5}
	y := []int32{5, 4, -7, 3, 100}
	const in = "5xf32=1.5 -2.25 4 0.5 -7.75"
	const inB = "5xf32=2 3 -1 0.25 1.5"
	const inX = "5xi32=17 -9 1000000 -64 5"
	const inY = "5xi32=5 4 -7 3 100"

	type f32op struct {
		name string
		fn   func(a, b float32) float32
	}
	f64 := func(v float32) float64 { return float64(v) }
	fops := []f32op{
		{"divf", func(a, b float32) float32 { return a / b }},
		{"maximumf", func(a, b float32) float32 { return float32(math.Max(f64(a), f64(b))) }},
		{"minimumf", func(a, b float32) float32 { return float32(math.Min(f64(a), f64(b))) }},
		{"maxnumf", func(a, b float32) float32 { return float32(math.Max(f64(a), f64(b))) }},
		{"negf", func(a, b float32) float32 { return -a }},
		{"sqrt", func(a, b float32) float32 { return float32(math.Sqrt(math.Abs(f64(a)))) }},
		{"rsqrt", func(a, b float32) float32 { return float32(1 / math.Sqrt(math.Abs(f64(a)))) }},
		{"floor", func(a, b float32) float32 { return float32(math.Floor(f64(a))) }},
		{"ceil", func(a, b float32) float32 { return float32(math.Ceil(f64(a))) }},
		{"trunc", func(a, b float32) float32 { return float32(math.Trunc(f64(a))) }},
		{"exp", func(a, b float32) float32 { return float32(math.Exp(f64(b))) }},
		{"log", func(a, b float32) float32 { return float32(math.Log(math.Abs(f64(a)))) }},
		{"tanh", func(a, b float32) float32 { return float32(math.Tanh(f64(a))) }},
		{"fma", func(a, b float32) float32 { return float32(math.FMA(f64(a), f64(b), f64(a))) }},
		{"absf", func(a, b float32) float32 { return float32(math.Abs(f64(a))) }},
	}
	got := words(t, s.invoke(t, "float_ops", in, inB))
	if len(got) != len(fops) {
		t.Fatalf("float_ops returned %d results, want %d", len(got), len(fops))
	}
	for i, op := range fops {
		for j := range a {
			g, w := math.Float32frombits(got[i][j]), op.fn(a[j], b[j])
			// tanh.approx.f32 is within 2^-11 relative; the rest within 1e-5.
			tol := 1e-5
			if op.name == "tanh" {
				tol = 1e-3
			}
			if !closeF32(g, w, tol) {
				t.Errorf("%s element %d: got %v, want %v", op.name, j, g, w)
			}
		}
	}

	iops := []struct {
		name string
		fn   func(x, y int32) int32
	}{
		{"addi", func(x, y int32) int32 { return x + y }},
		{"subi", func(x, y int32) int32 { return x - y }},
		{"muli", func(x, y int32) int32 { return x * y }},
		{"divsi", func(x, y int32) int32 { return x / y }},
		{"remsi", func(x, y int32) int32 { return x % y }},
		{"divui", func(x, y int32) int32 { return int32(uint32(x) / uint32(y)) }},
		{"andi", func(x, y int32) int32 { return x & y }},
		{"ori", func(x, y int32) int32 { return x | y }},
		{"xori", func(x, y int32) int32 { return x ^ y }},
		{"shli", func(x, y int32) int32 { return x << 3 }},
		{"shrsi", func(x, y int32) int32 { return x >> 3 }},
		{"shrui", func(x, y int32) int32 { return int32(uint32(x) >> 3) }},
		{"maxsi", func(x, y int32) int32 { return max(x, y) }},
		{"minsi", func(x, y int32) int32 { return min(x, y) }},
		{"cmpi+select", func(x, y int32) int32 {
			if x < y && uint32(x) < uint32(y) {
				return x
			}
			return y
		}},
		{"extsi+muli+trunci", func(x, y int32) int32 { return int32(int64(x) * int64(x)) }},
	}
	got = words(t, s.invoke(t, "int_ops", inX, inY))
	if len(got) != len(iops) {
		t.Fatalf("int_ops returned %d results, want %d", len(got), len(iops))
	}
	for i, op := range iops {
		for j := range x {
			if g, w := int32(got[i][j]), op.fn(x[j], y[j]); g != w {
				t.Errorf("%s element %d: got %d, want %d", op.name, j, g, w)
			}
		}
	}

	got = words(t, s.invoke(t, "conversions", in, inX))
	for j := range a {
		if g, w := int32(got[0][j]), int32(a[j]); g != w {
			t.Errorf("fptosi element %d: got %d, want %d", j, g, w)
		}
		if g, w := math.Float32frombits(got[1][j]), float32(uint32(x[j])); g != w {
			t.Errorf("uitofp element %d: got %v, want %v", j, g, w)
		}
		if g, w := math.Float32frombits(got[2][j]), float32(float64(a[j])*float64(a[j])); g != w {
			t.Errorf("extf+mulf+truncf element %d: got %v, want %v", j, g, w)
		}
		if g, w := got[3][j], uint32(x[j]); g != w {
			t.Errorf("bitcast element %d: got %#x, want %#x", j, g, w)
		}
	}
	t.Logf("checked %d float, %d integer and 4 conversion results over %d elements", len(fops), len(iops), len(a))
}

// TestMultiArchOnCUDA runs multi_arch.mlir (sm_52 and sm_80 variants; the
// driver loads the newest image the device runs) and the same program
// with only its sm_52 variants, which runs on any newer GPU through the
// JIT and so exercises, on sm_80+ hardware, the sequences that replace
// max.NaN, min.NaN and tanh.approx before sm_80 and sm_75. maximumf and
// minimumf must match Go bit for bit (NaN, signed zeros included); tanh
// within 1e-3 relative (tanh.approx) or 1e-5 (the sm_52 sequence).
func TestMultiArchOnCUDA(t *testing.T) {
	dev := cudaDevice(t)
	src := testdata(t, "multi_arch.mlir")
	only52 := strings.Replace(src, "[#maxwell, #ampere]", "[#maxwell]", 1)
	if only52 == src {
		t.Fatal("multi_arch.mlir no longer lists [#maxwell, #ampere]")
	}
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	a := []float32{1.5, -2.25, 0, negZero, nan, 3, 0.01, -0.1, 0.124, 0.126, -0.5, 2, 9, -20, inf, -inf, 1e-6}
	b := []float32{2, -3, negZero, 0, 1, nan, 0.02, 0.1, 0, 0, 4, 2, 1, 5, 0, 0, 0}
	list := func(v []float32) string {
		var s []string
		for _, x := range v {
			s = append(s, strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
		return fmt.Sprintf("%dxf32=%s", len(v), strings.Join(s, " "))
	}
	goMax := func(x, y float32) float32 {
		if x != x || y != y {
			return nan
		}
		return float32(math.Max(float64(x), float64(y))) // +0 > -0, as maximumf
	}
	goMin := func(x, y float32) float32 {
		if x != x || y != y {
			return nan
		}
		return float32(math.Min(float64(x), float64(y)))
	}
	same := func(g, w float32) bool {
		if w != w {
			return g != g
		}
		return math.Float32bits(g) == math.Float32bits(w)
	}
	for _, tc := range []struct {
		name, src string
		tanhTol   float64
	}{
		{"sm_52+sm_80", src, 1e-3},
		{"sm_52 only", only52, 1e-5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vmfb, err := compileText("multi_arch.mlir", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			s := load(t, dev, vmfb)
			got := s.run(t, "mul_add_mul", "8xf32=2", "8xf32=4")
			if want := "8xf32=" + repeat("96", 8); !strings.Contains(got, want) {
				t.Fatalf("mul_add_mul: got\n%s\nwant %s", got, want)
			}
			res := words(t, s.invoke(t, "specials", list(a), list(b)))
			for i := range a {
				mx, mn, th := math.Float32frombits(res[0][i]), math.Float32frombits(res[1][i]), math.Float32frombits(res[2][i])
				if w := goMax(a[i], b[i]); !same(mx, w) {
					t.Errorf("maximumf(%v, %v) = %v (%#x), want %v (%#x)", a[i], b[i], mx, res[0][i], w, math.Float32bits(w))
				}
				if w := goMin(a[i], b[i]); !same(mn, w) {
					t.Errorf("minimumf(%v, %v) = %v (%#x), want %v (%#x)", a[i], b[i], mn, res[1][i], w, math.Float32bits(w))
				}
				w := float32(math.Tanh(float64(a[i])))
				if a[i] == 0 && tc.tanhTol < 1e-3 && !same(th, w) {
					t.Errorf("tanh(%v) = %v, want %v (the sign of zero kept)", a[i], th, w)
				}
				if !closeF32(th, w, tc.tanhTol) || w != 0 && math.Abs(float64(th-w)) > tc.tanhTol*math.Abs(float64(w)) {
					t.Errorf("tanh(%v) = %v, want %v within %g relative", a[i], th, w, tc.tanhTol)
				}
			}
			t.Logf("%s: mul_add_mul 96s; maximumf, minimumf exact and tanh within %g over %d values (NaN, ±0, ±inf included)", tc.name, tc.tanhTol, len(a))
		})
	}
}
