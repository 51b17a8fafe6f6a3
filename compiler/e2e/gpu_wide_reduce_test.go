package e2e_test

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
)

// TestGPUWideReductions runs testdata/gpu_wide_reduce.mlir on every GPU
// device: f16 and bf16 sums and products that the targets split across
// threads and subgroups keep their parts in f32 and round the initial
// value plus the total once, as IREE's GPU pipelines do. References are
// computed in float64 and rounded once to the type. @half_reduction_aligned
// is IREE's large_reduction test: 4096 x 0.001 in f16 is 4.0977 (4.1094
// when 32-element parts are rounded to f16 at every step, 4 when the
// whole row is). The random rows are multiples of small powers of two whose
// partial sums f32 holds exactly in any order, so the result is the
// exact sum rounded once; products, which f32 rounds, may be either
// neighbour of an exact product within f32's error of a tie. Each case
// checks that rounding every step in order gives other answers in most
// of its rows, so that it tells the two apart.
func TestGPUWideReductions(t *testing.T) {
	forGPUs(t, "gpu_wide_reduce.mlir", checkWideReductions)
}

// TestGPUWideReductionsNoSubgroups runs the same on vulkan-spirv compiled
// with --iree-vulkan-subgroups=false, where the parts meet pairwise in
// shared memory.
func TestGPUWideReductionsNoSubgroups(t *testing.T) {
	dev := gpuTargets[0].device(t)
	src, err := os.ReadFile(filepath.Join("testdata", "gpu_wide_reduce.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	opts := pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}, TargetFlags: map[string]string{"iree-vulkan-subgroups": "false"}}
	s, err := pipeline.Compile("gpu_wide_reduce.mlir", src, opts, "vm")
	if err != nil {
		t.Fatal(err)
	}
	checkWideReductions(t, dev, s.Output)
}

func checkWideReductions(t *testing.T, dev rhal.Device, module []byte) {
	f16, bf16 := floatTypes[0], floatTypes[1]
	t.Run("half_reduction_aligned", func(t *testing.T) {
		x := f16.round(0.001)
		_, d := invoke(t, dev, module, "half_reduction_aligned", floatArg(f16, "2x4096", wideFill(4096*2, x)))
		want := f16.round(4096 * x)
		for i := 0; i < 2; i++ {
			if got := f16.decode(d[0], i); got != want {
				t.Errorf("row %d = %v, want %v (4096 x %v rounded once)", i, got, want, x)
			}
		}
	})
	r := rand.New(rand.NewSource(5))
	// grid returns n multiples of 1/q in [lo, hi).
	grid := func(n int, lo, hi float64, q int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = lo + float64(r.Intn(int((hi-lo)*float64(q))))/float64(q)
		}
		return v
	}
	for _, tc := range []struct {
		fn      string
		ft      floatType
		shape   []int // rows... x cols
		x, init []float64
		sq, mul bool // the body sums squares, multiplies
	}{
		{fn: "sum_f16", ft: f16, shape: []int{3, 4096},
			x:    slices.Concat(wideFill(4096, 0.001), wideFill(4096, 0.1), grid(4096, 0, 0.125, 1024)),
			init: []float64{0, 3.5, -1}},
		{fn: "sum_bf16", ft: bf16, shape: []int{3, 4096},
			x:    slices.Concat(wideFill(4096, 0.001), wideFill(4096, 0.1), grid(4096, 0, 1, 128)),
			init: []float64{0, 3.5, -2}},
		{fn: "sumsq_f16", ft: f16, shape: []int{3, 4096}, sq: true,
			x:    grid(3*4096, -1, 1, 32),
			init: []float64{1, -0.25, 0}},
		{fn: "prod_bf16", ft: bf16, shape: []int{3, 256}, mul: true,
			x:    grid(3*256, 1-8.0/128, 1+8.0/128, 128),
			init: []float64{1, 0.75, -3}},
		{fn: "many_f16", ft: f16, shape: []int{3, 16, 256},
			x:    grid(48*256, 0, 1, 1024),
			init: grid(48, -8, 8, 4)},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			ft := tc.ft
			cols := tc.shape[len(tc.shape)-1]
			rows := len(tc.x) / cols
			x := make([]float64, len(tc.x))
			for i, v := range tc.x {
				x[i] = ft.round(v)
			}
			_, d := invoke(t, dev, module, tc.fn, floatArg(ft, wideShape(tc.shape), x), floatArg(ft, wideShape(tc.shape[:len(tc.shape)-1]), tc.init))
			apart := 0 // rows where rounding every step gives another answer
			for i := 0; i < rows; i++ {
				// exact is init + sum (exact in float64: at most 36
				// bits) or init * product (within 2^-45 relative);
				// step rounds every step in order.
				exact, step := tc.init[i], tc.init[i]
				for _, v := range x[i*cols : (i+1)*cols] {
					if tc.sq {
						v *= v // exact in f16: v has 5 significant bits
					}
					if tc.mul {
						exact, step = exact*v, ft.round(step*v)
					} else {
						exact, step = exact+v, ft.round(step+v)
					}
				}
				eps := 0.0
				if tc.mul {
					eps = float64(cols) * math.Ldexp(1, -24) // an f32 rounding a step
				}
				lo, hi := ft.round(exact*(1-eps)), ft.round(exact*(1+eps))
				if s := ft.round(step); s != lo && s != hi {
					apart++
				}
				if got := ft.decode(d[0], i); got != lo && got != hi {
					t.Errorf("row %d = %v, want %v (%v rounded once); every step rounded in order gives %v", i, got, lo, exact, step)
				}
			}
			if apart < (rows+1)/2 {
				t.Errorf("rounding every step in order gives the same answers in %d of %d rows: the case does not tell the two apart", rows-apart, rows)
			}
		})
	}
}

// wideFill is n copies of v.
func wideFill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// wideShape is the dimensions as a shape string: 3x4096.
func wideShape(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, "x")
}
