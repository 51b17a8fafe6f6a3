package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
)

// TestGPUTensorCoreMatmul runs testdata/gpu_tensorcore.mlir on the CUDA
// device, whose f16 and bf16 matmuls the cuda target computes with
// mma.sync from sm_80 (the default arch; those accumulating in f16 or
// bf16 compiled with --iree-cuda-accumulate-16bit-in-f32=true), at shapes that take its
// asynchronous copies (rows of 8-element multiples) with whole and
// partial blocks and steps, and the element-by-element ones (ragged K or
// N), against a Go loop in float64 over the same 16-bit inputs.
//
// Tolerance: the products of 16-bit values are exact in f32, and the
// kernel adds them into f32 accumulators one mma (16 products) at a
// time, each rounding (tensor cores may truncate instead of rounding to
// nearest, twice the error) once per step; over K products that is at
// most about K * 2^-23 of the sum of their magnitudes (scale), and we
// allow (K + 16) * 2^-22 of it. A 16-bit output is that f32 value
// rounded once, so it may also be one ulp of its type off. The f32
// matmul, compiled with --iree-cuda-allow-tf32=true, runs in TF32: the
// reference multiplies its inputs rounded to TF32 (10-bit significands,
// to nearest, ties away), whose products are exact in f32 too.
func TestGPUTensorCoreMatmul(t *testing.T) {
	g := gpuTargets[1]
	if g.backend != "cuda" {
		t.Fatalf("gpuTargets[1] is %s, not cuda", g.backend)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "gpu_tensorcore.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	compile := func(flags map[string]string) []byte {
		s, err := pipeline.Compile("gpu_tensorcore.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"cuda"}},
			TargetFlags: flags}, "vm")
		if err != nil {
			t.Fatalf("compiling with %v: %v", flags, err)
		}
		return s.Output
	}
	module := compile(map[string]string{"iree-cuda-accumulate-16bit-in-f32": "true"})
	tf32Module := compile(map[string]string{"iree-cuda-allow-tf32": "true"})
	dev := g.device(t)
	r := rand.New(rand.NewSource(31))
	types := map[string]floatType{}
	for _, ft := range floatTypes {
		types[ft.name] = ft
	}
	// run computes fn on nb random m x k and k x n matrices of type in,
	// onto a random init of type out (withInit) or zero.
	var tf32 bool // run calls tf32Module
	run := func(fn, in, out string, nb, m, n, k int, withInit bool) {
		ti, to := types[in], types[out]
		rnd := func(ft floatType, count int) []float64 {
			v := make([]float64, count)
			for i := range v {
				v[i] = ft.round(r.NormFloat64())
			}
			return v
		}
		a, b, c := rnd(ti, nb*m*k), rnd(ti, nb*k*n), rnd(to, nb*m*n)
		shape := func(rows, cols int) string {
			if nb > 1 || fn == "f16_bmm" {
				return fmt.Sprintf("%dx%dx%d", nb, rows, cols)
			}
			return fmt.Sprintf("%dx%d", rows, cols)
		}
		arg := func(ft floatType, shape string, v []float64) string {
			s := make([]string, len(v))
			for i, x := range v {
				s[i] = strconv.FormatFloat(x, 'g', -1, 64) // exact: x is of the type
			}
			return shape + "x" + ft.name + "=" + strings.Join(s, " ")
		}
		args := []string{arg(ti, shape(m, k), a), arg(ti, shape(k, n), b)}
		if withInit {
			args = append(args, arg(to, shape(m, n), c))
		}
		mod := module
		if tf32 {
			mod = tf32Module
			for _, x := range [][]float64{a, b} {
				for i := range x {
					x[i] = float64(math.Float32frombits((math.Float32bits(float32(x[i])) + 0x1000) &^ 0x1fff))
				}
			}
		}
		_, data := invoke(t, dev, mod, fn, args...)
		what := fmt.Sprintf("%s %dx%dx%dx%d", fn, nb, m, n, k)
		if len(data[0]) != to.bytes*nb*m*n {
			t.Fatalf("%s: %d bytes, want %d", what, len(data[0]), to.bytes*nb*m*n)
		}
		bad := 0
		for bt := 0; bt < nb; bt++ {
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					o := (bt*m+i)*n + j
					want, scale := 0.0, 0.0
					if withInit {
						want, scale = c[o], math.Abs(c[o])
					}
					for l := 0; l < k; l++ {
						p := a[(bt*m+i)*k+l] * b[(bt*k+l)*n+j]
						want += p
						scale += math.Abs(p)
					}
					var got float64
					if out == "f32" {
						got = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[0][4*o:])))
					} else {
						got = to.decode(data[0], o)
					}
					tol := math.Ldexp(float64(k+16), -22) * scale
					if out != "f32" {
						tol += math.Ldexp(1, to.ulpExp(want))
					}
					if math.Abs(got-want) > tol || math.IsNaN(got) {
						if bad++; bad <= 5 {
							t.Errorf("%s: element (%d, %d, %d) = %g, want %g within %g", what, bt, i, j, got, want, tol)
						}
					}
				}
			}
		}
		if bad > 0 {
			t.Fatalf("%s: %d of %d elements differ", what, bad, nb*m*n)
		}
	}
	run("f16_f32", "f16", "f32", 1, 256, 512, 384, false)
	for _, sh := range [][3]int{{128, 128, 32}, {130, 136, 96}, {130, 70, 96}, {1, 1, 32}, {129, 264, 40}, {300, 8, 1000}, {33, 40, 37}, {64, 20, 0}} {
		run("f16_f32_dyn", "f16", "f32", 1, sh[0], sh[1], sh[2], true)
		run("bf16_f32_dyn", "bf16", "f32", 1, sh[0], sh[1], sh[2], true)
	}
	for _, sh := range [][3]int{{130, 136, 96}, {45, 70, 96}, {7, 5, 3}} {
		run("f16_f16_dyn", "f16", "f16", 1, sh[0], sh[1], sh[2], true)
		run("bf16_bf16_dyn", "bf16", "bf16", 1, sh[0], sh[1], sh[2], true)
	}
	run("f16_bmm", "f16", "f32", 3, 48, 40, 64, true)
	run("f16_bmm", "f16", "f32", 3, 20, 12, 9, true)
	tf32 = true
	for _, sh := range [][3]int{{256, 256, 256}, {130, 70, 96}, {33, 40, 37}, {300, 8, 1000}} {
		run("f32_dyn", "f32", "f32", 1, sh[0], sh[1], sh[2], true)
	}
}
