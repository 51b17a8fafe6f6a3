package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	rhal "github.com/goiree/goiree/runtime/hal"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/vm"
)

// The elementwise ops after a matmul or a reduction run as the
// reduction's epilogue (testdata/linalg_epilogue.mlir): on the matmul
// micro-kernel, the pairwise row reduction, the column reduction that
// accumulates in its output, with f32 accumulators stored as f16, in
// integers and with dynamic sizes; and the programs that must not fold
// still compute the same. Every element is checked against a Go loop in
// float64 (or exact integers).

// biasReluRef is relu(x @ w + b) in float64 with the bound of its
// rounding (sum of |terms|, see mmRef).
func biasReluRef(x, w, b f32s) (want, scale []float64) {
	m, k, n := x.shape[0], x.shape[1], w.shape[1]
	want, scale = mmRef(m, n, k, func(i, l int) float32 { return x.v[i*k+l] }, func(l, j int) float32 { return w.v[l*n+j] }, 0)
	for i := range want {
		bv := float64(b.v[i%n])
		want[i] = math.Max(want[i]+bv, 0)
		scale[i] += math.Abs(bv)
	}
	return want, scale
}

// checkF16 checks f16 results against float64 references: within one
// f16 ulp of the reference (the f32 accumulation may round either way
// across an f16 rounding boundary) plus slack[i], the f32 accumulation's
// own error bound.
func checkF16(t *testing.T, what string, data []byte, want, slack []float64) {
	t.Helper()
	f16 := floatTypes[0]
	if len(data) != 2*len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(data), 2*len(want))
	}
	for i, w := range want {
		g := f16.decode(data, i)
		if math.Abs(g-w) > math.Ldexp(1, f16.ulpExp(w))+slack[i] || math.IsNaN(g) {
			t.Fatalf("%s: element %d = %g, want %g (f16 %g)", what, i, g, w, f16.round(w))
		}
	}
}

func TestLinalgEpilogue(t *testing.T) {
	module := compileLinalg(t, "linalg_epilogue.mlir")
	r := rand.New(rand.NewSource(16))
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		t.Run("dense", func(t *testing.T) {
			x, w, b := randF32(r, 67, 300), randF32(r, 300, 45), randF32(r, 45)
			want, scale := biasReluRef(x, w, b)
			_, data := invoke(t, dev, module, "dense", x.arg(), w.arg(), b.arg())
			checkMM(t, "dense", data[0], want, scale, 300)
		})
		t.Run("residual", func(t *testing.T) {
			a, b, c, res := randF32(r, 20, 33), randF32(r, 33, 50), randF32(r, 20, 50), randF32(r, 20, 50)
			want, scale := mmRef(20, 50, 33, func(i, l int) float32 { return a.v[i*33+l] }, func(l, j int) float32 { return b.v[l*50+j] }, 0)
			for i := range want {
				j := float64(i % 50)
				want[i] = (want[i] + float64(c.v[i]) + float64(res.v[i])) * j
				scale[i] = (scale[i] + math.Abs(float64(c.v[i])) + math.Abs(float64(res.v[i]))) * j
			}
			_, data := invoke(t, dev, module, "residual", a.arg(), b.arg(), c.arg(), res.arg())
			checkMM(t, "residual", data[0], want, scale, 33)
		})
		t.Run("batch", func(t *testing.T) {
			a, b, bias, sc := randF32(r, 3, 10, 40), randF32(r, 3, 40, 27), randF32(r, 27), randF32(r, 3)
			var want, scale []float64
			for bi := 0; bi < 3; bi++ {
				w, s := mmRef(10, 27, 40, func(i, l int) float32 { return a.v[(bi*10+i)*40+l] }, func(l, j int) float32 { return b.v[(bi*40+l)*27+j] }, 0)
				for e := range w {
					f := float64(sc.v[bi])
					w[e] = (w[e] + float64(bias.v[e%27])) * f
					s[e] = (s[e] + math.Abs(float64(bias.v[e%27]))) * math.Abs(f)
				}
				want, scale = append(want, w...), append(scale, s...)
			}
			_, data := invoke(t, dev, module, "batch", a.arg(), b.arg(), bias.arg(), sc.arg())
			checkMM(t, "batch", data[0], want, scale, 40)
		})
		t.Run("rowsum_scale", func(t *testing.T) {
			x, s := randF32(r, 5, 3000), randF32(r, 5)
			want, scale := make([]float64, 5), make([]float64, 5)
			for i := range want {
				for j := 0; j < 3000; j++ {
					want[i] += float64(x.v[i*3000+j])
					scale[i] += math.Abs(float64(x.v[i*3000+j]))
				}
				want[i] *= 0.5 * float64(s.v[i])
				scale[i] *= 0.5 * math.Abs(float64(s.v[i]))
			}
			_, data := invoke(t, dev, module, "rowsum_scale", x.arg(), s.arg())
			checkMM(t, "rowsum_scale", data[0], want, scale, 3000)
		})
		t.Run("colsum_bias", func(t *testing.T) {
			x, b := randF32(r, 40, 70), randF32(r, 70)
			want, scale := make([]float64, 70), make([]float64, 70)
			for j := range want {
				for i := 0; i < 40; i++ {
					want[j] += float64(x.v[i*70+j])
					scale[j] += math.Abs(float64(x.v[i*70+j]))
				}
				want[j] += float64(b.v[j])
				scale[j] += math.Abs(float64(b.v[j]))
			}
			_, data := invoke(t, dev, module, "colsum_bias", x.arg(), b.arg())
			checkMM(t, "colsum_bias", data[0], want, scale, 40)
		})
		t.Run("f16", func(t *testing.T) {
			x, w, b := randF32(r, 37, 300), randF32(r, 300, 45), randF32(r, 45)
			want, slack := mmRef(37, 45, 300, func(i, l int) float32 { return x.v[i*300+l] }, func(l, j int) float32 { return w.v[l*45+j] }, 0)
			for i := range want {
				want[i] += float64(b.v[i%45])
				slack[i] *= 1e-6 * 302
			}
			_, data := invoke(t, dev, module, "dense_f16", x.arg(), w.arg(), b.arg())
			checkF16(t, "dense_f16", data[0], want, slack)
			c := randF32(r, 30, 21)
			sums, slack := make([]float64, 21), make([]float64, 21)
			for i, v := range c.v {
				sums[i%21] += float64(v)
				slack[i%21] += 1e-6 * 32 * math.Abs(float64(v))
			}
			_, data = invoke(t, dev, module, "colsum_f16", c.arg())
			checkF16(t, "colsum_f16", data[0], sums, slack)
		})
		t.Run("i8", func(t *testing.T) {
			x, w, b := make([]int64, 6*11), make([]int64, 11*7), make([]int64, 7)
			for i := range x {
				x[i] = r.Int63n(256) - 128
			}
			for i := range w {
				w[i] = r.Int63n(256) - 128
			}
			for i := range b {
				b[i] = r.Int63n(20001) - 10000
			}
			var want []byte
			for i := 0; i < 6; i++ {
				for j := 0; j < 7; j++ {
					acc := b[j]
					for l := 0; l < 11; l++ {
						acc += x[i*11+l] * w[l*7+j]
					}
					want = append(want, byte(min(max(acc, 0), 127)))
				}
			}
			_, data := invoke(t, dev, module, "dense_i8", intArg("6x11", "i8", x), intArg("11x7", "i8", w), intArg("7", "i32", b))
			if string(data[0]) != string(want) {
				t.Fatalf("dense_i8 = %v, want %v", data[0], want)
			}
		})
		t.Run("dynamic", func(t *testing.T) {
			for _, sh := range []struct{ m, k, n int }{{13, 70, 29}, {1, 1, 1}, {33, 5, 300}} {
				x, w, b := randF32(r, sh.m, sh.k), randF32(r, sh.k, sh.n), randF32(r, sh.n)
				want, scale := biasReluRef(x, w, b)
				shapes, data := invoke(t, dev, module, "dense_dyn", x.arg(), w.arg(), b.arg())
				if len(shapes[0]) != 2 || int(shapes[0][0]) != sh.m || int(shapes[0][1]) != sh.n {
					t.Fatalf("dense_dyn %v: result shape %v", sh, shapes[0])
				}
				checkMM(t, fmt.Sprintf("dense_dyn %v", sh), data[0], want, scale, sh.k)
			}
			// A bias shorter than the columns fails the dispatch rather
			// than reading past it.
			x, w, b := randF32(r, 3, 4), randF32(r, 4, 5), randF32(r, 4)
			if _, err := tryRun(dev, module, "dense_dyn", x.arg(), w.arg(), b.arg()); err == nil && failsDispatches() {
				t.Fatalf("dense_dyn with a 4-element bias for 5 columns succeeded")
			}
		})
		t.Run("not_folded", func(t *testing.T) {
			a, b := randF32(r, 8, 5), randF32(r, 5, 6)
			mm := matmulRef(a, b, 0)
			twice := f32s{shape: mm.shape, v: make([]float32, len(mm.v))}
			for i, v := range mm.v {
				twice.v[i] = v + v
			}
			shapes, data := invoke(t, dev, module, "used_twice", a.arg(), b.arg())
			checkF32(t, "used_twice #0", shapes[0], data[0], mm)
			checkF32(t, "used_twice #1", shapes[1], data[1], twice)

			x := randF32(r, 4, 9)
			want := f32s{shape: []int{4, 9}, v: make([]float32, 36)}
			for i := 0; i < 4; i++ {
				var s float32
				for j := 0; j < 9; j++ {
					s += x.v[i*9+j]
				}
				for j := 0; j < 9; j++ {
					want.v[i*9+j] = x.v[i*9+j] - s
				}
			}
			shapes, data = invoke(t, dev, module, "other_shape", x.arg())
			checkF32(t, "other_shape", shapes[0], data[0], want)

			a, b = randF32(r, 7, 3), randF32(r, 3, 7)
			mm = matmulRef(a, b, 0)
			neg := f32s{shape: mm.shape, v: make([]float32, 49)}
			for i := 0; i < 7; i++ {
				for j := 0; j < 7; j++ {
					neg.v[i*7+j] = -mm.v[j*7+i]
				}
			}
			shapes, data = invoke(t, dev, module, "transposed", a.arg(), b.arg())
			checkF32(t, "transposed", shapes[0], data[0], neg)
		})
	})
}

// denseLayerProgram is relu(x @ w + b) with X, W and T the tensor types
// of x (M x K), w (K x N) and the result (M x N), B the bias's; BARRIER
// is replaced by nothing, or by a util.optimization_barrier of the
// matmul's result %mm, which the bias add then reads (MMB).
const denseLayerProgram = `func.func @dense(%x: X, %w: W, %b: B) -> T {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : T
  %acc = linalg.fill ins(%zero : f32) outs(%e : T) -> T
  %mm = linalg.matmul ins(%x, %w : X, W) outs(%acc : T) -> T
BARRIER  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(MMB, %b : T, B) outs(%e : T) {
  ^bb0(%m: f32, %bv: f32, %o: f32):
    %s = arith.addf %m, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> T
  return %y : T
}
`

// BenchmarkDenseLayer times relu(x @ w + b) in f32 on local-task,
// compiled for this host's CPU, fused (one dispatch: the bias add and
// relu are the matmul's epilogue) and unfused (a util.optimization_barrier
// on the matmul's result keeps the bias and relu a dispatch of their own,
// which reads the matmul's result back): M = N = K = 1024, and K = 32,
// where the matmul is short and the second dispatch's sweep counts for
// more. The fused and unfused calls alternate, so that both see the same
// machine load; the metrics are the median and fastest call of each:
//
//	go test ./compiler/e2e -run '^$' -bench BenchmarkDenseLayer -benchtime 30x
func BenchmarkDenseLayer(b *testing.B) {
	tools(b)
	for _, k := range []int{1024, 32} {
		b.Run(fmt.Sprintf("1024x1024x%d", k), func(b *testing.B) { benchDense(b, 1024, 1024, k) })
	}
}

func benchDense(b *testing.B, m, n, k int) {
	dev, err := localtask.NewDevice(localtask.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	var calls []func() time.Duration
	for _, v := range []struct {
		name, barrier string
		dispatches    int
	}{
		{"fused", "", 1},
		{"unfused", "  %mmb = util.optimization_barrier %mm : T\n", 2},
	} {
		operand := "%mm"
		if v.barrier != "" {
			operand = "%mmb"
		}
		src := strings.NewReplacer("BARRIER", v.barrier, "MMB", operand).Replace(denseLayerProgram)
		src = strings.NewReplacer("X", fmt.Sprintf("tensor<%dx%dxf32>", m, k), "W", fmt.Sprintf("tensor<%dx%dxf32>", k, n),
			"T", fmt.Sprintf("tensor<%dx%dxf32>", m, n), "B", fmt.Sprintf("tensor<%dxf32>", n)).Replace(src)
		flow, err := pipeline.Compile("dense.mlir", []byte(src), pipeline.Options{}, "flow")
		if err != nil {
			b.Fatal(err)
		}
		if got := strings.Count(flow.Print(), "flow.dispatch @"); got != v.dispatches {
			b.Fatalf("%s: %d dispatches, want %d", v.name, got, v.dispatches)
		}
		s, err := pipeline.Compile("dense.mlir", []byte(src), pipeline.Options{}, "")
		if err != nil {
			b.Fatal(err)
		}
		module, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets,
			LLVMCPU: llvmcpu.Options{Objects: s.Resolver, CPU: "host"}})
		if err != nil {
			b.Fatal(err)
		}
		vmm, err := vm.LoadBytecodeModule(module)
		if err != nil {
			b.Fatal(err)
		}
		hm, err := halmodule.New(dev)
		if err != nil {
			b.Fatal(err)
		}
		ctx, err := vm.NewInstance().NewContext(hm, vmm)
		if err != nil {
			b.Fatal(err)
		}
		fn, err := ctx.LookupFunction("dense")
		if err != nil {
			b.Fatal(err)
		}
		// relu(k * 0.5 * 0.25 + bias): the bias makes half the columns'
		// sums negative.
		bias := make([]float32, n)
		for j := range bias {
			bias[j] = float32(k) * 0.125 * float32(j%2*2-1) * 1.5
		}
		in, err := functionio.ParseInputs([]string{fmt.Sprintf("%dx%dxf32=0.5", m, k), fmt.Sprintf("%dx%dxf32=0.25", k, n), f32Arg(fmt.Sprintf("%dx", n), bias)})
		if err != nil {
			b.Fatal(err)
		}
		args, err := functionio.Values(in, fn.Signature(), dev.Allocator())
		if err != nil {
			b.Fatal(err)
		}
		results := make([]vm.Value, 1)
		if err := ctx.InvokeInto(fn, args, results); err != nil {
			b.Fatal(err)
		}
		view, err := halmodule.BufferViewOf(results[0])
		if err != nil {
			b.Fatal(err)
		}
		data, err := view.Buffer().HostBytes()
		if err != nil {
			b.Fatal(err)
		}
		for e := 0; e < m*n; e += 997 {
			want := max(float32(k)*0.125+bias[e%n], 0)
			if g := math.Float32frombits(binary.LittleEndian.Uint32(data[4*e:])); g != want {
				b.Fatalf("%s: element %d is %g, want %g", v.name, e, g, want)
			}
		}
		if err := vm.ReleaseValues(results); err != nil {
			b.Fatal(err)
		}
		calls = append(calls, func() time.Duration {
			t0 := time.Now()
			if err := ctx.InvokeInto(fn, args, results); err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			if err := vm.ReleaseValues(results); err != nil {
				b.Fatal(err)
			}
			return d
		})
	}
	times := make([][]time.Duration, len(calls))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for c, call := range calls {
			times[c] = append(times[c], call())
		}
	}
	b.StopTimer()
	for c, name := range []string{"fused", "unfused"} {
		slices.Sort(times[c])
		b.ReportMetric(float64(times[c][len(times[c])/2].Microseconds())/1000, name+"-median-ms")
		b.ReportMetric(float64(times[c][0].Microseconds())/1000, name+"-min-ms")
	}
}
