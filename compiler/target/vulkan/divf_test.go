package vulkan_test

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/target/vulkan"
	vkdriver "github.com/goiree/goiree/runtime/hal/drivers/vulkan"
)

// TestFusedDivisionChosen checks which f32 division a shader gets: the
// fma sequence (gi_divf) on devices whose fma is fused, the integer
// rounding (gi_div) elsewhere.
func TestFusedDivisionChosen(t *testing.T) {
	vs := loopNestVariants(t, "groups.mlir")
	const exe = "softmax_linalg_0"
	mod := hal.InnerModule(vs[exe])
	for _, tc := range []struct {
		target string
		fused  bool
	}{{"h200", true}, {"ampere", true}, {"llvmpipe", false}, {"rdna3", false}, {"", false}} {
		dev := vulkan.Portable
		if tc.target != "" {
			var err error
			if dev, err = vulkan.LookupTarget(tc.target); err != nil {
				t.Fatal(err)
			}
		}
		if dev.FusedFMA() != tc.fused {
			t.Errorf("%q: FusedFMA() = %v, want %v", tc.target, dev.FusedFMA(), tc.fused)
		}
		src, err := vulkan.GenerateGLSLWith(mod, exe, vulkan.GLSLOptions{Device: dev})
		if err != nil {
			t.Fatalf("%q: %v", tc.target, err)
		}
		if got := strings.Contains(src, "gi_divf("); got != tc.fused {
			t.Errorf("%q: shader calls gi_divf: %v, want %v", tc.target, got, tc.fused)
		}
		if !strings.Contains(src, "gi_divw(") {
			t.Errorf("%q: shader has no gi_divw for the operands the fast path leaves", tc.target)
		}
	}
}

// TestFusedDivision runs gi_divf on an NVIDIA device (the only ones it is
// for; lavapipe's fma is not fused) and holds every quotient to correct
// rounding: random operands over the whole exponent range, both sides of
// each bound of the fast path, divisors whose significand is all ones,
// quotients within a few ulp of a midpoint, and the IEEE special cases.
func TestFusedDivision(t *testing.T) {
	glslc(t)
	if err := vkdriver.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	infos, err := vkdriver.NewDriver().Devices()
	if err != nil || len(infos) == 0 {
		t.Skipf("skipping: no Vulkan device (%v)", err)
	}
	if !strings.Contains(infos[0].Name, "NVIDIA") {
		t.Skipf("skipping: gi_divf is for devices whose fma is fused (NVIDIA's); device 0 is %s", infos[0].Name)
	}
	r := rand.New(rand.NewSource(5))
	f32 := func(m float64, e int) float64 { return float64(float32(math.Ldexp(m, e))) }
	sig := func() float64 { return 1 + float64(r.Intn(1<<23))/(1<<23) }
	sign := func(x float64) float64 {
		if r.Intn(2) == 0 {
			return -x
		}
		return x
	}
	var a, b []float64
	add := func(x, y float64) { a, b = append(a, x), append(b, y) }
	for range 1024 {
		add(sign(f32(sig(), r.Intn(250)-125)), sign(f32(sig(), r.Intn(250)-125)))
	}
	// The fast path's bounds: a's exponent 24, 25, 49 and 50 (biased),
	// 253 and 254; b's 0, 1, 252 and 253; quotients near 2^-126 and 2^127.
	for range 64 {
		for _, e := range []int{24, 25, 49, 50} {
			add(f32(sig(), e-127), f32(sig(), r.Intn(20)-10))
		}
		add(f32(sig(), 253-127), f32(sig(), r.Intn(4)))
		add(f32(sig(), 254-127), f32(sig(), r.Intn(4)))
		add(f32(sig(), r.Intn(20)-10), f32(sig(), 1-127))
		add(f32(sig(), r.Intn(20)-10), f32(sig(), 252-127))
		add(f32(sig(), r.Intn(20)-10), f32(sig(), 253-127))
		add(f32(sig(), r.Intn(20)-10), float64(math.Float32frombits(uint32(1+r.Intn(1<<23)))))
		e := r.Intn(40) - 20
		add(f32(sig(), e-126), f32(sig(), e+r.Intn(2)))
		add(f32(sig(), e+126), f32(sig(), e-r.Intn(2)))
	}
	// Divisors with an all-ones significand, and quotients near the
	// midpoint between two floats: a = b (q + 1/2 ulp) rounded.
	for range 256 {
		add(sign(f32(sig(), r.Intn(60)-30)), f32(2-math.Ldexp(1, -23), r.Intn(60)-30))
		bb, q := f32(sig(), r.Intn(60)-30), f32(sig(), r.Intn(60)-30)
		_, qe := math.Frexp(q)
		add(float64(float32(bb*(q+math.Ldexp(1, qe-25)))), bb)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -3, math.Inf(1), math.Inf(-1), math.NaN(), float64(math.Float32frombits(1)), 3.4e38} {
		for _, y := range []float64{0, math.Copysign(0, -1), 1, -7, math.Inf(1), math.NaN(), float64(math.Float32frombits(5)), 3.4e38} {
			add(x, y)
		}
	}
	opts := vulkanOptions
	opts.TargetFlags = map[string]string{"iree-vulkan-target": "h200"}
	out := mathRunWith(t, opts, "f32", []string{"%r = arith.divf %a, %b : f32"}, a, b, a)[0]
	bad := 0
	for i := range a {
		want := float32(a[i] / b[i])
		got := float32(out[i])
		if math.Float32bits(got) != math.Float32bits(want) && !(math.IsNaN(float64(got)) && math.IsNaN(float64(want))) {
			if bad++; bad <= 10 {
				t.Errorf("%g / %g = %g (%#08x), want %g (%#08x)", a[i], b[i], got, math.Float32bits(got), want, math.Float32bits(want))
			}
		}
	}
	t.Logf("%d quotients, %d not correctly rounded", len(a), bad)
}
