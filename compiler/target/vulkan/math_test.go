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
// holds each op to 1.5 units in the last place of f32 of the exact value
// (1 of its rounding) from Go's math package in float64, exact ops to
// zero: the shader's own helpers, not the driver's builtins
// (TestMathAccuracy covers the whole domains).
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
		check("sin", i, f32(u[0], i), math.Sin(a), 1.5)
		check("cos", i, f32(u[1], i), math.Cos(a), 1.5)
		check("tan", i, f32(u[2], i), math.Tan(a), 1.5)
		check("atan", i, f32(u[3], i), math.Atan(a), 1.5)
		check("exp2", i, f32(u[4], i), math.Exp2(a), 1.5)
		check("log2", i, f32(u[5], i), math.Log2(ab), 1.5)
		check("log10", i, f32(u[6], i), math.Log10(ab), 1.5)
		check("log1p", i, f32(u[7], i), math.Log1p(ab), 1.5)
		check("expm1", i, f32(u[8], i), math.Expm1(a), 1.5)
		check("erf", i, f32(u[9], i), math.Erf(a), 1.5)
		check("roundeven", i, f32(u[10], i), math.RoundToEven(a), 0)
	}
	b := call("binary", str(x), str(y), "64xi32="+strings.Join(ns, " "))
	for i := range x {
		a, c := float64(x[i]), float64(y[i])
		p := math.Pow(a, c)
		check("powf", i, f32(b[0], i), p, 1.5)
		check("atan2", i, f32(b[1], i), math.Atan2(a, c), 1.5)
		check("copysign", i, f32(b[2], i), math.Copysign(a, c), 0)
		check("fpowi", i, f32(b[3], i), math.Pow(a, 3), 1.5)
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

// TestMathNearOneAndZero holds log, log2, log10 and log1p near 1 and 0,
// and tanh near 0, to 1.5 units in the last place of f32 relative to the
// result, where GLSL's log and tanh lose most of their digits (lavapipe:
// log(1 - 2^-23) 13% off, tanh(1e-9) = 3e-8), and math.round exactly,
// 0.49999997 (whose sum with 0.5 rounds up to 1) included.
func TestMathNearOneAndZero(t *testing.T) {
	glslc(t)
	if err := vkdriver.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if infos, err := vkdriver.NewDriver().Devices(); err != nil || len(infos) == 0 {
		t.Skipf("skipping: no Vulkan device (%v)", err)
	}
	const src = `#id = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<16xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %r:6 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y : tensor<16xf32>, tensor<16xf32>) outs(%e, %e, %e, %e, %e, %e : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32, %o4: f32, %o5: f32):
    %l = math.log %a : f32
    %l2 = math.log2 %a : f32
    %l10 = math.log10 %a : f32
    %lp = math.log1p %b : f32
    %th = math.tanh %b : f32
    %rd = math.round %a : f32
    linalg.yield %l, %l2, %l10, %lp, %th, %rd : f32, f32, f32, f32, f32, f32
  } -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}`
	s, err := pipeline.Compile("near.mlir", []byte(src), vulkanOptions, "vm")
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
	// x near 1 (and a few far from it), y near 0 on both sides.
	// (0.49999997 and 2.5 also test math.round.)
	x := []float32{1 - 0x1p-24, 1 - 0x1p-23, 1 + 0x1p-23, 1 + 0x1p-20, 0.999, 1.001, 0.8, 1.2, 0.76, 1.24, 1.3, 0.49999997, 2.5, 0.5, 100, 1e-30}
	y := []float32{1e-9, -1e-9, 1e-7, -1e-7, 0x1p-20, -0x1p-20, 1e-4, -1e-4, 0.01, -0.01, 0.2, -0.2, 0.3, -0.3, 0.6, -0.6}
	arg := func(v []float32) string {
		s := make([]string, len(v))
		for i, f := range v {
			s[i] = fmt.Sprint(f)
		}
		return "16xf32=" + strings.Join(s, " ")
	}
	res, err := ss.Call("f", arg(x), arg(y))
	if err != nil {
		t.Fatal(err)
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
	for i := range x {
		a, b := float64(x[i]), float64(y[i])
		for _, c := range []struct {
			what      string
			arg, want float64
			got       []byte
		}{
			{"log", a, math.Log(a), out[0]},
			{"log2", a, math.Log2(a), out[1]},
			{"log10", a, math.Log10(a), out[2]},
			{"log1p", b, math.Log1p(b), out[3]},
			{"tanh", b, math.Tanh(b), out[4]},
			{"round", a, math.Round(a), out[5]},
		} {
			got := float64(math.Float32frombits(binary.LittleEndian.Uint32(c.got[4*i:])))
			ulp := math.Abs(float64(math.Nextafter32(float32(c.want), float32(math.Inf(1)))) - float64(float32(c.want)))
			if c.want == 0 {
				ulp = math.SmallestNonzeroFloat32
			}
			if d := math.Abs(got - c.want); d > 1.5*ulp {
				t.Errorf("%s(%v) = %v, want %v (%.1f ulp)", c.what, c.arg, got, c.want, d/ulp)
			}
		}
	}
}
