package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
	cudadriver "github.com/goiree/goiree/runtime/hal/drivers/cuda"
)

// testdata/gpu_half.mlir on the first CUDA device, compiled once for each
// of sm_60, sm_80 and sm_90 (the instructions for 16-bit floats differ
// between them; a newer GPU runs the older PTX through the JIT), against
// Go references that round exact results to the 16-bit formats with
// halfRound below. Compiling runs everywhere; the runs skip without a
// CUDA device.

// halfSpec is a 16-bit float format: stored significand bits and bias.
type halfSpec struct{ mant, bias int }

var (
	f16Spec  = halfSpec{10, 15}
	bf16Spec = halfSpec{7, 127}
)

// value is the exact value of bits b.
func (h halfSpec) value(b uint16) float64 {
	e, m := int(b&0x7fff)>>h.mant, float64(b&(1<<h.mant-1))
	v := math.Ldexp(m+float64(uint64(1)<<h.mant), e-h.bias-h.mant)
	switch {
	case e == 2*h.bias+1 && m != 0:
		return math.NaN()
	case e == 2*h.bias+1:
		v = math.Inf(1)
	case e == 0:
		v = math.Ldexp(m, 1-h.bias-h.mant)
	}
	if b&0x8000 != 0 {
		return -v
	}
	return v
}

// round is v rounded to the format, to nearest with ties to even: v in
// units of the format's quantum at v's binade (the smallest normal one's
// for subnormals) is exact in float64, and rounds to an integer there.
func (h halfSpec) round(v float64) uint16 {
	var sign uint16
	if math.Signbit(v) {
		sign = 0x8000
	}
	inf := uint16(2*h.bias+1) << h.mant
	switch {
	case math.IsNaN(v):
		return sign | inf | 1<<(h.mant-1)
	case math.IsInf(v, 0):
		return sign | inf
	case v == 0:
		return sign
	}
	_, e := math.Frexp(math.Abs(v))
	e = max(e-1, 1-h.bias)
	n := math.RoundToEven(math.Ldexp(math.Abs(v), h.mant-e))
	// n has the implicit bit at mant for a normal result, and carries
	// into the exponent when it rounds up to the next binade.
	bits := uint64(e-(1-h.bias))<<h.mant + uint64(n)
	if bits >= uint64(inf) {
		return sign | inf
	}
	return sign | uint16(bits)
}

// fma is a*b+c rounded once to the format.
func (h halfSpec) fma(a, b, c float64) uint16 {
	if math.IsNaN(a*b+c) || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsInf(c, 0) {
		return h.round(a*b + c)
	}
	x := new(big.Float).SetPrec(2048).SetFloat64(a)
	x.Mul(x, big.NewFloat(b)).Add(x, big.NewFloat(c))
	if x.Sign() == 0 {
		return h.round(a*b + c)
	}
	// 53 bits toward zero with the last set when inexact (round to odd):
	// its rounding to a 16-bit format is x's.
	z := new(big.Float).SetMode(big.ToZero).SetPrec(53).Set(x)
	f, _ := z.Float64()
	if z.Cmp(x) != 0 {
		f = math.Float64frombits(math.Float64bits(f) | 1)
	}
	return h.round(f)
}

// halfArg formats values of a 16-bit type ("f16", "bf16") as an input.
func halfArg(shape, typ string, v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 32)
	}
	return shape + typ + "=" + strings.Join(s, " ")
}

func u16At(b []byte, i int) uint16 { return binary.LittleEndian.Uint16(b[2*i:]) }

// sameBits compares a result's bits with the reference's, any NaN
// matching any NaN.
func sameBits(h halfSpec, got, want uint16) bool {
	if math.IsNaN(h.value(want)) {
		return math.IsNaN(h.value(got))
	}
	return got == want
}

// randSpec draws n values of h: multiples of 1/q in [-lim, lim].
func randSpec(h halfSpec, r *rand.Rand, n, lim, q int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = h.value(h.round(float64(r.Intn(2*lim*q+1)-lim*q) / float64(q)))
	}
	return v
}

func TestGPUHalfCUDA(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "gpu_half.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	const all = "[#sm60, #sm80, #sm90]"
	if !strings.Contains(string(src), all) {
		t.Fatalf("gpu_half.mlir no longer lists %s", all)
	}
	modules := map[string][]byte{}
	archs := []string{"sm60", "sm80", "sm90"}
	for _, a := range archs {
		one := strings.Replace(string(src), all, "[#"+a+"]", 1)
		s, err := pipeline.Compile("gpu_half.mlir", []byte(one), pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"cuda"}}}, "vm")
		if err != nil {
			t.Fatalf("compiling for %s: %v", a, err)
		}
		modules[a] = s.Output
	}
	if err := cudadriver.Available(); err != nil {
		t.Skipf("skipping the runs: no CUDA device: %v", err)
	}
	for _, a := range archs {
		t.Run(a, func(t *testing.T) {
			dev := must(t)(cudadriver.NewDevice(0))
			module := modules[a]
			r := rand.New(rand.NewSource(17))
			testHalfOps(t, dev, module, r)
			for _, sz := range [][2]int{{5, 300}, {33, 7}, {1, 1}} {
				testHalfBcast(t, dev, module, r, sz[0], sz[1])
			}
			for _, sz := range [][2]int{{7, 1000}, {300, 40}, {3, 1}, {2, 0}} {
				testHalfRows(t, dev, module, r, sz[0], sz[1])
			}
			testHalfConv(t, dev, module)
		})
	}
}

// testHalfOps checks @ops bit for bit: special operands (ties of the
// formats, tiny addends an fma must not lose, zeros, infinities, NaN)
// and random ones.
func testHalfOps(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	for _, c := range []struct {
		name string
		h    halfSpec
		out  int // the first of its four results
	}{{"f16", f16Spec, 0}, {"bf16", bf16Spec, 4}} {
		h := c.h
		tiny := h.value(1)
		special := [][3]float64{
			{3, 683, tiny}, {3, 683, -tiny}, {7, 37, tiny}, {7, 37, -tiny}, {1.5, -2.25, 1}, {0, math.Copysign(0, -1), 0},
			{-1, 1, 1}, {h.value(0x0401), h.value(0x83ff), 1}, {math.Inf(1), 1, 1}, {math.NaN(), 1, 1}, {2, math.NaN(), 3}, {0.1, 0.2, 0.3},
		}
		var x, y, z []float64
		for _, p := range special {
			x, y, z = append(x, h.value(h.round(p[0]))), append(y, h.value(h.round(p[1]))), append(z, h.value(h.round(p[2])))
		}
		n := 2000
		x, y, z = append(x, randSpec(h, r, n, 60, 64)...), append(y, randSpec(h, r, n, 60, 64)...), append(z, randSpec(h, r, n, 60, 64)...)
		n = len(x)
		// The other type's operands are ones.
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		sh := fmt.Sprintf("%dx", n)
		args := []string{halfArg(sh, "f16", x), halfArg(sh, "f16", y), halfArg(sh, "f16", z), halfArg(sh, "bf16", ones), halfArg(sh, "bf16", ones), halfArg(sh, "bf16", ones)}
		if c.name == "bf16" {
			args = []string{halfArg(sh, "f16", ones), halfArg(sh, "f16", ones), halfArg(sh, "f16", ones), halfArg(sh, "bf16", x), halfArg(sh, "bf16", y), halfArg(sh, "bf16", z)}
		}
		_, data := invoke(t, dev, module, "ops", args...)
		rd := func(v float64) float64 { return h.value(h.round(v)) }
		refs := []func(x, y, z float64) uint16{
			func(x, y, z float64) uint16 { return h.fma(x, y, z) },
			func(x, y, z float64) uint16 { return h.round(rd(rd(x+y)*x) - rd(y/x)) },
			func(x, y, z float64) uint16 {
				if math.IsNaN(x) || math.IsNaN(y) {
					return h.round(math.NaN())
				}
				return h.round(math.Max(x, y))
			},
			func(x, y, z float64) uint16 {
				if x < y {
					return h.round(x) ^ 0x8000
				}
				return h.round(y) &^ 0x8000
			},
		}
		names := []string{"fma", "(x+y)*x - y/x", "maximumf", "x < y ? -x : |y|"}
		bad := 0
		for k, ref := range refs {
			for i := 0; i < n; i++ {
				if got, want := u16At(data[c.out+k], i), ref(x[i], y[i], z[i]); !sameBits(h, got, want) {
					if bad++; bad <= 10 {
						t.Errorf("%s %s(%v, %v, %v) = %#04x, want %#04x", c.name, names[k], x[i], y[i], z[i], got, want)
					}
				}
			}
		}
	}
}

// testHalfBcast checks @bcast on an m x n input.
func testHalfBcast(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand, m, n int) {
	h := f16Spec
	x, b := randSpec(h, r, m*n, 40, 64), randSpec(h, r, n, 4, 64)
	_, data := invoke(t, dev, module, "bcast", halfArg(fmt.Sprintf("%dx%dx", m, n), "f16", x), halfArg(fmt.Sprintf("%dx", n), "f16", b))
	for i := 0; i < m*n; i++ {
		want := h.round(h.value(h.round(x[i]*b[i%n])) + 0.5)
		if got := u16At(data[0], i); got != want {
			t.Fatalf("bcast %dx%d element (%d, %d) = %#04x, want %#04x", m, n, i/n, i%n, got, want)
		}
	}
}

// testHalfRows checks @rows on m x n inputs whose partial sums are exact
// in any order (the GPU adds in another order than a loop), row 1's with
// a NaN.
func testHalfRows(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand, m, n int) {
	x, y := randSpec(f16Spec, r, m*n, 2, 4), randSpec(bf16Spec, r, m*n, 1, 1)
	if m > 1 && n > 0 {
		x[n+n/2] = math.NaN()
	}
	_, data := invoke(t, dev, module, "rows", halfArg(fmt.Sprintf("%dx%dx", m, n), "f16", x), halfArg(fmt.Sprintf("%dx%dx", m, n), "bf16", y))
	for i := 0; i < m; i++ {
		var sum, sumB float64
		mx := math.Inf(-1)
		for j := 0; j < n; j++ {
			v := x[i*n+j]
			sum += v
			sumB += y[i*n+j]
			if math.IsNaN(v) || math.IsNaN(mx) {
				mx = math.NaN()
			} else {
				mx = math.Max(mx, v)
			}
		}
		if g := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[0][4*i:]))); !(g == sum || math.IsNaN(g) && math.IsNaN(sum)) {
			t.Errorf("rows %dx%d: f32 sum of row %d = %v, want %v", m, n, i, g, sum)
		}
		for _, c := range []struct {
			what string
			h    halfSpec
			out  []byte
			want float64
		}{{"f16 sum", f16Spec, data[1], sum}, {"f16 max", f16Spec, data[2], mx}, {"bf16 sum", bf16Spec, data[3], sumB}} {
			if g, w := u16At(c.out, i), c.h.round(c.want); !sameBits(c.h, g, w) {
				t.Errorf("rows %dx%d: %s of row %d = %#04x, want %#04x (%v)", m, n, c.what, i, g, w, c.want)
			}
		}
	}
}

// testHalfConv checks @conv: f32 through f16 and bf16 and back, f64 to
// them (values just off their ties, which a rounding through f32 would
// put on them), and integers to them and back.
func testHalfConv(t *testing.T, dev rhal.Device, module []byte) {
	p := math.Ldexp
	a := []float64{0, -1.5, 0.1, 1 + p(1, -11), 1 + p(3, -11), 1 + p(1, -8), 1 + p(3, -8), p(1, -25), p(3, -25), p(1, -24),
		65519, 65520, 1e10, math.MaxFloat32, 1e-40, p(1, -133), math.Inf(-1), math.NaN(), 259, 2049}
	d := []float64{1 + p(1, -11) + p(1, -40), 1 + p(1, -11) - p(1, -40), 1 + p(1, -8) + p(1, -40), 1 + p(1, -8) - p(1, -40),
		-(1 + p(1, -8) + p(1, -40)), 1e300, 1e-300, p(1, -25) + p(1, -60), p(1, -134) + p(1, -170), 3.3961e38, 3.39e38,
		65519.99999, 65520, 0.1, math.NaN(), math.Inf(1), math.Copysign(0, -1), 2049, 2051, 7}
	ints := []int32{0, 1, -1, 2049, 2051, 65504, 65519, 65520, -65536, 16842753, -16842753, 16908289, math.MaxInt32, math.MinInt32, 257, 259, 12345678, 1 << 24, 3, -7}
	n := len(a)
	f32s, f64s, i32s := make([]string, n), make([]string, n), make([]string, n)
	for i := 0; i < n; i++ {
		f32s[i] = strconv.FormatFloat(float64(float32(a[i])), 'g', -1, 32)
		f64s[i] = strconv.FormatFloat(d[i], 'g', -1, 64)
		i32s[i] = strconv.Itoa(int(ints[i]))
	}
	sh := fmt.Sprintf("%dx", n)
	_, data := invoke(t, dev, module, "conv", sh+"f32="+strings.Join(f32s, " "), sh+"f64="+strings.Join(f64s, " "), sh+"i32="+strings.Join(i32s, " "))
	same := func(g, w float64) bool {
		return g == w && math.Signbit(g) == math.Signbit(w) || math.IsNaN(g) && math.IsNaN(w)
	}
	for i := 0; i < n; i++ {
		a32 := float64(float32(a[i]))
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"f32 through f16", float64(math.Float32frombits(binary.LittleEndian.Uint32(data[0][4*i:]))), f16Spec.value(f16Spec.round(a32))},
			{"f32 through bf16", float64(math.Float32frombits(binary.LittleEndian.Uint32(data[1][4*i:]))), bf16Spec.value(bf16Spec.round(a32))},
			{"f64 through f16", math.Float64frombits(binary.LittleEndian.Uint64(data[2][8*i:])), f16Spec.value(f16Spec.round(d[i]))},
			{"f64 through bf16", math.Float64frombits(binary.LittleEndian.Uint64(data[3][8*i:])), bf16Spec.value(bf16Spec.round(d[i]))},
			{"i32 to f16", f16Spec.value(u16At(data[4], i)), f16Spec.value(f16Spec.round(float64(ints[i])))},
			{"i32 to bf16", bf16Spec.value(u16At(data[5], i)), bf16Spec.value(bf16Spec.round(float64(ints[i])))},
		} {
			if !same(c.got, c.want) {
				t.Errorf("%s of element %d: got %v, want %v", c.what, i, c.got, c.want)
			}
		}
		// Back to i32, where the bf16 value is inside i32.
		if v := bf16Spec.value(bf16Spec.round(float64(ints[i]))); math.Abs(v) < 1<<31 {
			if g := int32(binary.LittleEndian.Uint32(data[6][4*i:])); g != int32(v) {
				t.Errorf("i32 through bf16 of %d: got %d, want %v", ints[i], g, v)
			}
		}
	}
}
