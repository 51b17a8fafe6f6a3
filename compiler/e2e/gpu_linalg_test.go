package e2e_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
	cudadriver "github.com/goiree/goiree/runtime/hal/drivers/cuda"
)

// The linalg programs of linalg_test.go compiled for the GPU targets and
// run on their devices: vulkan-spirv on the first Vulkan device (lavapipe
// where no GPU is installed), cuda on the first CUDA device. Each skips
// with the reason when its device or tools are missing. Results are
// checked against the same plain Go loops.

// gpuTarget is a backend and how to open its device.
type gpuTarget struct {
	backend string
	device  func(t *testing.T) rhal.Device
}

var gpuTargets = []gpuTarget{
	{"vulkan-spirv", func(t *testing.T) rhal.Device {
		if _, err := (vulkan.Options{}).FindGlslc(); err != nil {
			t.Skipf("skipping: %v", err)
		}
		return vulkanLifetimeDevice(t)
	}},
	{"cuda", func(t *testing.T) rhal.Device {
		if err := cudadriver.Available(); err != nil {
			t.Skipf("skipping: no CUDA device: %v", err)
		}
		return must(t)(cudadriver.NewDevice(0))
	}},
}

// compileGPU compiles a testdata program for one backend.
func compileGPU(t *testing.T, file, backend string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{backend}}}, "vm")
	if err != nil {
		t.Fatalf("compiling %s for %s: %v", file, backend, err)
	}
	return s.Output
}

// forGPUs runs fn on every GPU target's device with file compiled for it.
func forGPUs(t *testing.T, file string, fn func(t *testing.T, dev rhal.Device, module []byte)) {
	for _, g := range gpuTargets {
		t.Run(g.backend, func(t *testing.T) {
			dev := g.device(t)
			fn(t, dev, compileGPU(t, file, g.backend))
		})
	}
}

func TestGPULinalgDenseLayer(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	x, w, b := randF32(r, 37, 53), randF32(r, 53, 29), randF32(r, 29)
	want := matmulRef(x, w, 0)
	for i := range want.v {
		want.v[i] = float32(math.Max(float64(want.v[i]+b.v[i%29]), 0))
	}
	a2, b2 := randF32(r, 70, 9), randF32(r, 9, 130)
	want2 := matmulRef(a2, b2, 1.5)
	// i8 operands, sign-extended and accumulated in i32 onto 7.
	av := []int32{1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12}
	bv := []int32{127, -128, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -1, -2, -3, -4, -5}
	var wantI []int32
	for i := 0; i < 3; i++ {
		for j := 0; j < 5; j++ {
			acc := int32(7)
			for l := 0; l < 4; l++ {
				acc += av[i*4+l] * bv[l*5+j]
			}
			wantI = append(wantI, acc)
		}
	}
	forGPUs(t, "linalg_dense.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		shapes, data := invoke(t, dev, module, "dense", x.arg(), w.arg(), b.arg())
		checkF32(t, "dense", shapes[0], data[0], want)
		shapes, data = invoke(t, dev, module, "fill_matmul", a2.arg(), b2.arg())
		checkF32(t, "fill_matmul", shapes[0], data[0], want2)
		_, data = invoke(t, dev, module, "fill_matmul_i8", "3x4xi8="+ints(av), "4x5xi8="+ints(bv))
		checkI32(t, "fill_matmul_i8", data[0], wantI)
	})
}

func ints(v []int32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

func TestGPULinalgSoftmax(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	x := randF32(r, 16, 1000)
	want := f32s{shape: x.shape, v: make([]float32, len(x.v))}
	for i := range x.v {
		x.v[i] *= 20
	}
	for i := 0; i < 16; i++ {
		row := x.v[i*1000 : (i+1)*1000]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, float64(v))
		}
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(float64(v) - mx)
		}
		for j, v := range row {
			want.v[i*1000+j] = float32(math.Exp(float64(v)-mx) / sum)
		}
	}
	forGPUs(t, "linalg_softmax.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		shapes, data := invoke(t, dev, module, "softmax", x.arg())
		checkF32(t, "softmax", shapes[0], data[0], want)
	})
}

func TestGPULinalgShapes(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	x := randF32(r, 4, 5, 6)
	wantT := f32s{shape: []int{6, 4, 5}, v: make([]float32, 120)}
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			for k := 0; k < 6; k++ {
				wantT.v[k*20+i*5+j] = x.v[i*30+j*6+k]
			}
		}
	}
	xb, y := randF32(r, 4, 6), randF32(r, 4, 3, 6)
	wantB := f32s{shape: []int{4, 3, 6}, v: make([]float32, 72)}
	wantM := f32s{shape: []int{4, 3, 6}, v: make([]float32, 72)}
	for i := 0; i < 4; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 6; k++ {
				wantB.v[i*18+j*6+k] = xb.v[i*6+k]
				wantM.v[i*18+j*6+k] = xb.v[i*6+k] * y.v[i*18+j*6+k]
			}
		}
	}
	xr := randF32(r, 5, 8, 3)
	wantR := f32s{shape: []int{5, 3}, v: make([]float32, 15)}
	for i := 0; i < 5; i++ {
		for k := 0; k < 3; k++ {
			for j := 0; j < 8; j++ {
				wantR.v[i*3+k] += xr.v[i*24+j*3+k]
			}
		}
	}
	a, b, m, v, w := randF32(r, 2, 3, 4), randF32(r, 2, 4, 5), randF32(r, 3, 4), randF32(r, 4), randF32(r, 3)
	wantBM := f32s{shape: []int{2, 3, 5}}
	for n := 0; n < 2; n++ {
		p := matmulRef(f32s{shape: []int{3, 4}, v: a.v[n*12 : n*12+12]}, f32s{shape: []int{4, 5}, v: b.v[n*20 : n*20+20]}, 0)
		wantBM.v = append(wantBM.v, p.v...)
	}
	wantMV := matmulRef(m, f32s{shape: []int{4, 1}, v: v.v}, 0)
	wantMV.shape = []int{3}
	wantVM := matmulRef(f32s{shape: []int{1, 3}, v: w.v}, m, 0)
	wantVM.shape = []int{4}
	wantD := matmulRef(f32s{shape: []int{1, 4}, v: v.v}, f32s{shape: []int{4, 1}, v: v.v}, 0)
	wantD.shape = nil
	var in, wantTI []int32
	for i := int32(0); i < 21; i++ {
		in = append(in, i)
	}
	for j := 0; j < 7; j++ {
		for i := 0; i < 3; i++ {
			wantTI = append(wantTI, int32(i*7+j))
		}
	}
	forGPUs(t, "linalg_shapes.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		shapes, data := invoke(t, dev, module, "transpose", x.arg())
		checkF32(t, "transpose", shapes[0], data[0], wantT)
		_, data = invoke(t, dev, module, "transpose_i32", "3x7xi32="+ints(in))
		checkI32(t, "transpose_i32", data[0], wantTI)
		shapes, data = invoke(t, dev, module, "broadcast_map_copy", xb.arg(), y.arg())
		checkF32(t, "map", shapes[0], data[0], wantM)
		checkF32(t, "broadcast+copy", shapes[1], data[1], wantB)
		shapes, data = invoke(t, dev, module, "reduce_cols", xr.arg())
		checkF32(t, "reduce", shapes[0], data[0], wantR)
		shapes, data = invoke(t, dev, module, "contractions", a.arg(), b.arg(), m.arg(), v.arg(), w.arg())
		checkF32(t, "batch_matmul", shapes[0], data[0], wantBM)
		checkF32(t, "matvec", shapes[1], data[1], wantMV)
		checkF32(t, "vecmat", shapes[2], data[2], wantVM)
		checkF32(t, "dot", shapes[3], data[3], wantD)
		checkTransposedContractions(t, dev, module, a, b, wantBM)
		_, data = invoke(t, dev, module, "iota")
		checkI32(t, "iota", data[0], []int32{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23})
	})
}

// TestGPULinalgDynamic runs kernels whose sizes are push constants at
// several sizes, including empty ones and sizes that leave the last
// workgroup's tile partly empty.
func TestGPULinalgDynamic(t *testing.T) {
	forGPUs(t, "linalg_dynamic.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		r := rand.New(rand.NewSource(14))
		for _, sz := range [][3]int{{1, 1, 1}, {5, 7, 3}, {67, 3, 129}, {0, 4, 2}, {130, 33, 70}} {
			a, b := randF32(r, sz[0], sz[1]), randF32(r, sz[1], sz[2])
			shapes, data := invoke(t, dev, module, "matmul", a.arg(), b.arg())
			checkF32(t, fmt.Sprintf("matmul %v", sz), shapes[0], data[0], matmulRef(a, b, 0))
		}
		for _, rows := range []int{1, 9, 200} {
			x := randF32(r, rows, 8)
			sums := f32s{shape: []int{rows}, v: make([]float32, rows)}
			tr := f32s{shape: []int{8, rows}, v: make([]float32, 8*rows)}
			for i := 0; i < rows; i++ {
				for j := 0; j < 8; j++ {
					sums.v[i] += x.v[i*8+j]
					tr.v[j*rows+i] = x.v[i*8+j]
				}
			}
			shapes, data := invoke(t, dev, module, "rowsum_transpose", x.arg())
			checkF32(t, fmt.Sprintf("rowsum %d", rows), shapes[0], data[0], sums)
			checkF32(t, fmt.Sprintf("transpose %d", rows), shapes[1], data[1], tr)
		}
		for _, n := range []int{1, 300} {
			x := randF32(r, n)
			want := f32s{shape: []int{n}, v: make([]float32, n)}
			for i := range want.v {
				want.v[i] = x.v[i]*float32(-3) + 2.5
			}
			shapes, data := invoke(t, dev, module, "scalars", x.arg(), "f32=2.5", "i32=-3")
			checkF32(t, fmt.Sprintf("scalars %d", n), shapes[0], data[0], want)
		}
	})
}

// TestGPULinalgConvPool runs the convolutions and poolings (input indices
// that are window sums of loop indices) against linalg_conv_test.go's
// references.
func TestGPULinalgConvPool(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	cs := convSpec{n: 2, h: 9, w: 11, c: 3, kh: 3, kw: 2, f: 5, sh: 2, sw: 1, dh: 1, dw: 3}
	x, w := randF32(r, 2, 9, 11, 3), randF32(r, 3, 2, 3, 5)
	oh, ow := cs.out()
	acc := make([]float64, 2*oh*ow*5)
	cs.window(func(o, i, f int) { acc[o] += float64(x.v[i]) * float64(w.v[f]) })
	wantConv := f32s{shape: []int{2, oh, ow, 5}}
	for _, v := range acc {
		wantConv.v = append(wantConv.v, float32(v))
	}
	ds := convSpec{n: 1, h: 8, w: 8, c: 4, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, depthwise: true}
	xd, wd := randF32(r, 1, 8, 8, 4), randF32(r, 3, 3, 4)
	dacc := make([]float64, 3*3*4)
	ds.window(func(o, i, f int) { dacc[o] += float64(xd.v[i]) * float64(wd.v[f]) })
	wantDW := f32s{shape: []int{1, 3, 3, 4}}
	for _, v := range dacc {
		wantDW.v = append(wantDW.v, float32(v))
	}
	ps := convSpec{n: 1, h: 8, w: 8, c: 2, kh: 2, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, depthwise: true}
	xp := randF32(r, 1, 8, 8, 2)
	sum, mx := make([]float64, 4*3*2), make([]float64, 4*3*2)
	for i := range mx {
		mx[i] = math.Inf(-1)
	}
	ps.window(func(o, i, _ int) {
		sum[o] += float64(xp.v[i])
		mx[o] = math.Max(mx[o], float64(xp.v[i]))
	})
	wantSum, wantMax := f32s{shape: []int{1, 4, 3, 2}}, f32s{shape: []int{1, 4, 3, 2}}
	for i := range sum {
		wantSum.v = append(wantSum.v, float32(sum[i]))
		wantMax.v = append(wantMax.v, float32(mx[i]))
	}
	forGPUs(t, "linalg_conv.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		shapes, data := invoke(t, dev, module, "conv_nhwc", x.arg(), w.arg())
		checkF32(t, "conv_nhwc", shapes[0], data[0], wantConv)
		shapes, data = invoke(t, dev, module, "depthwise", xd.arg(), wd.arg())
		checkF32(t, "depthwise", shapes[0], data[0], wantDW)
		shapes, data = invoke(t, dev, module, "pools", xp.arg())
		checkF32(t, "pooling_nhwc_sum", shapes[0], data[0], wantSum)
		checkF32(t, "pooling_nhwc_max", shapes[1], data[1], wantMax)
	})
}

// TestGPULinalgMatmuls runs linalg_matmul.mlir's matmuls (from zero, onto
// an init, with A and B transposed, batched) at shapes that leave partial
// tiles in every direction, against linalg_matmul_test.go's reference.
func TestGPULinalgMatmuls(t *testing.T) {
	forGPUs(t, "linalg_matmul.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		r := rand.New(rand.NewSource(16))
		for _, sh := range []struct{ m, n, k int }{{1, 1, 1}, {7, 13, 5}, {130, 70, 33}, {37, 513, 300}, {5, 4, 0}, {2100, 9, 17}} {
			m, n, k := sh.m, sh.n, sh.k
			a, b, c := randF32(r, m, k), randF32(r, k, n), randF32(r, m, n)
			want, scale := mmRef(m, n, k, func(i, l int) float32 { return a.v[i*k+l] }, func(l, j int) float32 { return b.v[l*n+j] }, 0)
			_, data := invoke(t, dev, module, "mm", a.arg(), b.arg())
			checkMM(t, fmt.Sprintf("mm %v", sh), data[0], want, scale, k)
			_, data = invoke(t, dev, module, "mm_init", a.arg(), b.arg(), c.arg())
			for i := range want {
				want[i] += float64(c.v[i])
				scale[i] += math.Abs(float64(c.v[i]))
			}
			checkMM(t, fmt.Sprintf("mm_init %v", sh), data[0], want, scale, k)
			at, bt := randF32(r, k, m), randF32(r, n, k)
			want, scale = mmRef(m, n, k, func(i, l int) float32 { return at.v[l*m+i] }, func(l, j int) float32 { return bt.v[j*k+l] }, 0)
			_, data = invoke(t, dev, module, "mm_tt", at.arg(), bt.arg())
			checkMM(t, fmt.Sprintf("mm_tt %v", sh), data[0], want, scale, k)
		}
		for _, sh := range []struct{ b, m, n, k int }{{3, 7, 33, 17}, {1, 1, 1, 1}, {2, 70, 300, 40}} {
			a, b := randF32(r, sh.b, sh.m, sh.k), randF32(r, sh.b, sh.k, sh.n)
			var want, scale []float64
			for bi := 0; bi < sh.b; bi++ {
				w, s := mmRef(sh.m, sh.n, sh.k, func(i, l int) float32 { return a.v[(bi*sh.m+i)*sh.k+l] },
					func(l, j int) float32 { return b.v[(bi*sh.k+l)*sh.n+j] }, 0.5)
				want, scale = append(want, w...), append(scale, s...)
			}
			_, data := invoke(t, dev, module, "bmm", a.arg(), b.arg())
			checkMM(t, fmt.Sprintf("bmm %v", sh), data[0], want, scale, sh.k)
		}
	})
}

// TestGPULinalgSoftmaxOp runs linalg.softmax along a middle dimension (a
// reduction that is not over the last index, so sequential per output)
// and along the rows of a dynamically shaped 3x513 tensor (shared by each
// workgroup's threads), against Go loops in float64.
func TestGPULinalgSoftmaxOp(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	softmax := func(x []float32, at func(b int) int, n int, out []float32) {
		m, s := math.Inf(-1), 0.0
		for b := 0; b < n; b++ {
			m = math.Max(m, float64(x[at(b)]))
		}
		for b := 0; b < n; b++ {
			s += math.Exp(float64(x[at(b)]) - m)
		}
		for b := 0; b < n; b++ {
			out[at(b)] = float32(math.Exp(float64(x[at(b)])-m) / s)
		}
	}
	xs := randF32(r, 5, 7, 30)
	for i := range xs.v {
		xs.v[i] *= 30
	}
	wantSM := f32s{shape: xs.shape, v: make([]float32, len(xs.v))}
	for a := 0; a < 5; a++ {
		for c := 0; c < 30; c++ {
			softmax(xs.v, func(b int) int { return (a*7+b)*30 + c }, 7, wantSM.v)
		}
	}
	xd := randF32(r, 3, 513)
	wantDyn := f32s{shape: xd.shape, v: make([]float32, len(xd.v))}
	for a := 0; a < 3; a++ {
		softmax(xd.v, func(b int) int { return a*513 + b }, 513, wantDyn.v)
	}
	forGPUs(t, "linalg_softmax_op.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		shapes, data := invoke(t, dev, module, "softmax", xs.arg())
		checkF32(t, "softmax", shapes[0], data[0], wantSM)
		shapes, data = invoke(t, dev, module, "softmax_dyn", xd.arg())
		checkF32(t, "softmax_dyn", shapes[0], data[0], wantDyn)
	})
}
