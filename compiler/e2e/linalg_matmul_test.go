package e2e_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	rhal "github.com/goiree/goiree/runtime/hal"
)

// The matmul micro-kernel (packed panels, register tiles, 2-D blocks over
// the workgroups) on shapes that leave partial tiles, panels and K slices
// everywhere, against a Go loop in float64; compiled for the baseline CPU
// and, on x86-64, for this host (AVX2/AVX-512 tiles when it has them).

// mmRef computes init + sum_k A(i,k) B(k,j) and, per element, the sum of
// |products| that bounds float32 rounding.
func mmRef(m, n, k int, a func(i, l int) float32, b func(l, j int) float32, init float32) (want, scale []float64) {
	want, scale = make([]float64, m*n), make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s, t := float64(init), math.Abs(float64(init))
			for l := 0; l < k; l++ {
				p := float64(a(i, l)) * float64(b(l, j))
				s += p
				t += math.Abs(p)
			}
			want[i*n+j], scale[i*n+j] = s, t
		}
	}
	return want, scale
}

func checkMM(t *testing.T, what string, data []byte, want, scale []float64, k int) {
	t.Helper()
	if len(data) != 4*len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(data), 4*len(want))
	}
	bad := 0
	for i, w := range want {
		g := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
		// float32 accumulation: a few ulp per step at worst.
		if math.Abs(g-w) > 1e-6*scale[i]*float64(k+2)+1e-30 || math.IsNaN(g) {
			if bad++; bad <= 5 {
				t.Errorf("%s: element %d = %g, want %g", what, i, g, w)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d elements differ", what, bad, len(want))
	}
}

func compileMatmul(t *testing.T, cpu string) []byte {
	t.Helper()
	tools(t)
	src, err := os.ReadFile(filepath.Join("testdata", "linalg_matmul.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("linalg_matmul.mlir", src, pipeline.Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	module, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets,
		LLVMCPU: llvmcpu.Options{Objects: s.Resolver, CPU: cpu}})
	if err != nil {
		t.Fatalf("compiling for cpu %q: %v", cpu, err)
	}
	return module
}

func TestLinalgMatmulMicroKernel(t *testing.T) {
	cpus := []string{""}
	if runtime.GOARCH == "amd64" {
		cpus = append(cpus, "host")
	}
	shapes := []struct{ m, n, k int }{{1, 1, 1}, {7, 13, 5}, {1000, 3, 999}, {1000, 999, 3}, {37, 513, 300}, {5, 4, 0}, {64, 64, 257}}
	r := rand.New(rand.NewSource(21))
	for _, cpu := range cpus {
		name := cpu
		if name == "" {
			name = "baseline"
		}
		t.Run(name, func(t *testing.T) {
			module := compileMatmul(t, cpu)
			forDevices(t, func(t *testing.T, dev rhal.Device) {
				for _, sh := range shapes {
					m, n, k := sh.m, sh.n, sh.k
					a, b, c := randF32(r, m, k), randF32(r, k, n), randF32(r, m, n)
					// mm: from zero.
					want, scale := mmRef(m, n, k, func(i, l int) float32 { return a.v[i*k+l] }, func(l, j int) float32 { return b.v[l*n+j] }, 0)
					_, data := invoke(t, dev, module, "mm", a.arg(), b.arg())
					checkMM(t, "mm", data[0], want, scale, k)
					// mm_init: onto an init argument.
					_, data = invoke(t, dev, module, "mm_init", a.arg(), b.arg(), c.arg())
					for i := range want {
						want[i] += float64(c.v[i])
						scale[i] += math.Abs(float64(c.v[i]))
					}
					checkMM(t, "mm_init", data[0], want, scale, k)
					// mm_tt: A given as k x m, B as n x k.
					at, bt := randF32(r, k, m), randF32(r, n, k)
					want, scale = mmRef(m, n, k, func(i, l int) float32 { return at.v[l*m+i] }, func(l, j int) float32 { return bt.v[j*k+l] }, 0)
					_, data = invoke(t, dev, module, "mm_tt", at.arg(), bt.arg())
					checkMM(t, "mm_tt", data[0], want, scale, k)
				}
				// Batched, onto 0.5.
				for _, sh := range []struct{ b, m, n, k int }{{3, 7, 33, 17}, {1, 1, 1, 1}, {2, 70, 300, 40}} {
					a, b := randF32(r, sh.b, sh.m, sh.k), randF32(r, sh.b, sh.k, sh.n)
					var want, scale []float64
					for bi := 0; bi < sh.b; bi++ {
						w, s := mmRef(sh.m, sh.n, sh.k, func(i, l int) float32 { return a.v[(bi*sh.m+i)*sh.k+l] },
							func(l, j int) float32 { return b.v[(bi*sh.k+l)*sh.n+j] }, 0.5)
						want, scale = append(want, w...), append(scale, s...)
					}
					_, data := invoke(t, dev, module, "bmm", a.arg(), b.arg())
					checkMM(t, "bmm", data[0], want, scale, sh.k)
				}
			})
		})
	}
}

// TestLinalgChunkedReduction runs reductions that llvm-cpu splits (the
// products a chunk at a time, then folded in order) over lengths that
// leave partial chunks; with small integers every sum is exact, so the
// results must equal a sequential Go loop.
func TestLinalgChunkedReduction(t *testing.T) {
	module := compileMatmul(t, "")
	r := rand.New(rand.NewSource(22))
	ints := func(shape ...int) f32s {
		t := randF32(r, shape...)
		for i := range t.v {
			t.v[i] = float32(r.Intn(7) - 3)
		}
		return t
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		for _, n := range []int{1, 255, 256, 257, 1000} {
			m, v := ints(3, n), ints(n)
			want := f32s{shape: []int{3}, v: make([]float32, 3)}
			for i := 0; i < 3; i++ {
				for k := 0; k < n; k++ {
					want.v[i] += m.v[i*n+k] * v.v[k]
				}
			}
			shapes, data := invoke(t, dev, module, "matvec", m.arg(), v.arg())
			checkF32(t, "matvec", shapes[0], data[0], want)
			a := ints(n)
			dot := f32s{shape: []int{}, v: []float32{1}}
			for k := 0; k < n; k++ {
				dot.v[0] += a.v[k] * v.v[k]
			}
			shapes, data = invoke(t, dev, module, "dot", a.arg(), v.arg())
			checkF32(t, "dot", shapes[0], data[0], dot)
		}
	})
}
