package vulkan_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	vkdriver "github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
)

// TestMathOnDevice runs testdata/math.mlir on the first Vulkan device and
// holds each op to a tolerance in units in the last place of f32 against
// Go's math package in float64 (exact ops to zero).
func TestMathOnDevice(t *testing.T) {
	glslc(t)
	if err := vkdriver.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if infos, err := vkdriver.NewDriver().Devices(); err != nil || len(infos) == 0 {
		t.Skipf("skipping: no Vulkan device (%v); install mesa-vulkan-drivers for lavapipe", err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "math.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("math.mlir", src, vulkanOptions, "vm")
	if err != nil {
		t.Fatal(err)
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
	call := func(fn string, inputs ...string) [][]byte {
		t.Helper()
		res, err := ss.Call(fn, inputs...)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		var out [][]byte
		for _, r := range res {
			view, err := halmodule.BufferViewOf(r)
			if err != nil {
				t.Fatal(err)
			}
			b, err := functionio.ReadBufferView(view)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b.Data)
		}
		return out
	}
	// Arguments from -4 to 4 and some small ones, where the corrections
	// of log1p, expm1 and erf matter.
	x := make([]float32, 64)
	y := make([]float32, 64)
	n := make([]int32, 64)
	for i := range x {
		x[i] = float32(i-32) / 8
		y[i] = float32((i*7)%17-8) / 4
		n[i] = int32(uint32(i) * 0x9e3779b1 >> (i % 32))
	}
	x[33], x[34], x[35] = 1e-5, -3e-4, 2.5e-3
	n[0], n[1] = 0, -1
	str := func(v []float32) string {
		s := make([]string, len(v))
		for i, f := range v {
			s[i] = fmt.Sprint(f)
		}
		return "64xf32=" + strings.Join(s, " ")
	}
	ns := make([]string, 64)
	for i, v := range n {
		ns[i] = fmt.Sprint(v)
	}
	f32 := func(b []byte, i int) float64 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	// check holds got to want within ulps units of f32 at want (NaN
	// matches NaN, infinities match exactly).
	check := func(what string, i int, got, want float64, ulps float64) {
		t.Helper()
		if math.IsNaN(want) || math.IsInf(want, 0) {
			if !(math.IsNaN(want) && math.IsNaN(got)) && got != want {
				t.Errorf("%s(element %d) = %v, want %v", what, i, got, want)
			}
			return
		}
		w32 := float64(float32(want))
		ulp := math.Abs(float64(math.Nextafter32(float32(math.Abs(w32)), float32(math.Inf(1)))) - math.Abs(w32))
		if d := math.Abs(got - want); d > ulps*ulp && d > 1e-7*ulps {
			t.Errorf("%s(element %d, x=%v) = %v, want %v (%.1f ulp)", what, i, x[i], got, want, d/ulp)
		}
	}
	u := call("unary", str(x))
	for i, v := range x {
		a := float64(v)
		ab := math.Abs(a)
		check("sin", i, f32(u[0], i), math.Sin(a), 4)
		check("cos", i, f32(u[1], i), math.Cos(a), 4)
		check("tan", i, f32(u[2], i), math.Tan(a), 8)
		check("atan", i, f32(u[3], i), math.Atan(a), 4)
		check("exp2", i, f32(u[4], i), math.Exp2(a), 4)
		check("log2", i, f32(u[5], i), math.Log2(ab), 4)
		check("log10", i, f32(u[6], i), math.Log10(ab), 4)
		check("log1p", i, f32(u[7], i), math.Log1p(ab), 4)
		check("expm1", i, f32(u[8], i), math.Expm1(a), 4)
		check("erf", i, f32(u[9], i), math.Erf(a), 4)
		check("roundeven", i, f32(u[10], i), math.RoundToEven(a), 0)
	}
	b := call("binary", str(x), str(y), "64xi32="+strings.Join(ns, " "))
	for i := range x {
		a, c := float64(x[i]), float64(y[i])
		p := math.Pow(a, c)
		check("powf", i, f32(b[0], i), p, 8)
		check("atan2", i, f32(b[1], i), math.Atan2(a, c), 4)
		check("copysign", i, f32(b[2], i), math.Copysign(a, c), 0)
		check("fpowi", i, f32(b[3], i), math.Pow(a, 3), 8)
		k := uint32(n[i])
		if g := int32(binary.LittleEndian.Uint32(b[4][4*i:])); g != int32(bits.OnesCount32(k)) {
			t.Errorf("ctpop(%#x) = %d", k, g)
		}
		if g := int32(binary.LittleEndian.Uint32(b[5][4*i:])); g != int32(bits.LeadingZeros32(k)) {
			t.Errorf("ctlz(%#x) = %d", k, g)
		}
		if g := int32(binary.LittleEndian.Uint32(b[6][4*i:])); g != int32(bits.TrailingZeros32(k)) {
			t.Errorf("cttz(%#x) = %d", k, g)
		}
		if g := b[7][i] != 0; g != math.IsNaN(float64(float32(p))) {
			t.Errorf("isnan(pow(%v, %v)) = %v", a, c, g)
		}
	}
}
