package cuda_test

import (
	"encoding/binary"
	"math"
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
