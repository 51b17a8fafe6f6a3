package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/vm"
)

// The linalg programs (testdata/linalg_*.mlir) are compiled by our
// compiler into loop-nest dispatches and run on local-sync and local-task;
// every element of every result is checked against a plain Go loop.

// f32s is a row-major f32 tensor.
type f32s struct {
	shape []int
	v     []float32
}

func randF32(r *rand.Rand, shape ...int) f32s {
	n := 1
	for _, d := range shape {
		n *= d
	}
	t := f32s{shape: shape, v: make([]float32, n)}
	for i := range t.v {
		t.v[i] = float32(r.Intn(2001)-1000) / 500
	}
	return t
}

func shapeString(shape []int) string {
	var b strings.Builder
	for _, d := range shape {
		fmt.Fprintf(&b, "%dx", d)
	}
	return b.String()
}

// arg is the --input spelling of t.
func (t f32s) arg() string {
	var b strings.Builder
	b.WriteString(shapeString(t.shape) + "f32=")
	for i, x := range t.v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	return b.String()
}

// invoke runs fn and returns its results' shapes and raw little-endian
// element bytes.
func invoke(t *testing.T, dev rhal.Device, module []byte, fn string, inputs ...string) ([]rhal.Shape, [][]byte) {
	t.Helper()
	m, err := vm.LoadBytecodeModule(module)
	if err != nil {
		t.Fatal(err)
	}
	hm, err := halmodule.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := vm.NewInstance().NewContext(hm, m)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ctx.LookupFunction(fn)
	if err != nil {
		t.Fatal(err)
	}
	in, err := functionio.ParseInputs(inputs)
	if err != nil {
		t.Fatal(err)
	}
	args, err := functionio.Values(in, f.Signature(), dev.Allocator())
	if err != nil {
		t.Fatal(err)
	}
	res, err := ctx.Invoke(f, args)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	var shapes []rhal.Shape
	var data [][]byte
	for _, r := range res {
		view, err := halmodule.BufferViewOf(r)
		if err != nil {
			t.Fatal(err)
		}
		b, err := functionio.ReadBufferView(view)
		if err != nil {
			t.Fatal(err)
		}
		shapes = append(shapes, b.Shape)
		data = append(data, b.Data)
	}
	return shapes, data
}

// checkF32 compares a result with the reference, element by element.
func checkF32(t *testing.T, what string, shape rhal.Shape, data []byte, want f32s) {
	t.Helper()
	same := len(shape) == len(want.shape)
	for i := 0; same && i < len(shape); i++ {
		same = int(shape[i]) == want.shape[i]
	}
	if !same {
		t.Fatalf("%s: shape %v, want %v", what, shape, want.shape)
	}
	if len(data) != 4*len(want.v) {
		t.Fatalf("%s: %d bytes, want %d", what, len(data), 4*len(want.v))
	}
	bad := 0
	for i, w := range want.v {
		g := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		if d := math.Abs(float64(g) - float64(w)); d > 1e-5+1e-5*math.Abs(float64(w)) || math.IsNaN(float64(g)) {
			if bad++; bad <= 5 {
				t.Errorf("%s: element %d = %g, want %g", what, i, g, w)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d elements differ", what, bad, len(want.v))
	}
}

func checkI32(t *testing.T, what string, data []byte, want []int32) {
	t.Helper()
	if len(data) != 4*len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(data), 4*len(want))
	}
	for i, w := range want {
		if g := int32(binary.LittleEndian.Uint32(data[4*i:])); g != w {
			t.Fatalf("%s: element %d = %d, want %d", what, i, g, w)
		}
	}
}

// matmulRef is init + a(m×k) @ b(k×n), accumulated in k order in float32.
func matmulRef(a, b f32s, init float32) f32s {
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	out := f32s{shape: []int{m, n}, v: make([]float32, m*n)}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			acc := init
			for l := 0; l < k; l++ {
				acc += a.v[i*k+l] * b.v[l*n+j]
			}
			out.v[i*n+j] = acc
		}
	}
	return out
}

// compileLinalg compiles a linalg test program, skipping without clang.
func compileLinalg(t *testing.T, file string) []byte {
	t.Helper()
	tools(t)
	module, err := compile(file, nil)
	if err != nil {
		t.Fatalf("compiling %s: %v", file, err)
	}
	return module
}

func forDevices(t *testing.T, fn func(t *testing.T, dev rhal.Device)) {
	for _, d := range testDevices(t) {
		t.Run(d.name, func(t *testing.T) {
			dev, err := d.make()
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			fn(t, dev)
		})
	}
}

func TestLinalgDenseLayer(t *testing.T) {
	module := compileLinalg(t, "linalg_dense.mlir")
	r := rand.New(rand.NewSource(1))
	x, w, b := randF32(r, 37, 53), randF32(r, 53, 29), randF32(r, 29)
	want := matmulRef(x, w, 0)
	for i := range want.v {
		v := want.v[i] + b.v[i%29]
		want.v[i] = float32(math.Max(float64(v), 0))
	}
	a2, b2 := randF32(r, 70, 9), randF32(r, 9, 130)
	want2 := matmulRef(a2, b2, 1.5)
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "dense", x.arg(), w.arg(), b.arg())
		checkF32(t, "dense", shapes[0], data[0], want)
		shapes, data = invoke(t, dev, module, "fill_matmul", a2.arg(), b2.arg())
		checkF32(t, "fill_matmul", shapes[0], data[0], want2)
		// i8 operands extended to i32, accumulated onto 7.
		_, data = invoke(t, dev, module, "fill_matmul_i8", "3x4xi8=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12", "4x5xi8=127 -128 1 2 3 4 5 6 7 8 9 10 11 12 13 -1 -2 -3 -4 -5")
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
		checkI32(t, "fill_matmul_i8", data[0], wantI)
	})
}

func TestLinalgSoftmax(t *testing.T) {
	module := compileLinalg(t, "linalg_softmax.mlir")
	r := rand.New(rand.NewSource(2))
	x := randF32(r, 16, 1000)
	for i := range x.v {
		x.v[i] *= 20 // spread the logits so that subtracting the max matters
	}
	want := f32s{shape: x.shape, v: make([]float32, len(x.v))}
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
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "softmax", x.arg())
		checkF32(t, "softmax", shapes[0], data[0], want)
	})
}

func TestLinalgShapes(t *testing.T) {
	module := compileLinalg(t, "linalg_shapes.mlir")
	r := rand.New(rand.NewSource(3))
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
			var acc float32
			for j := 0; j < 8; j++ {
				acc += xr.v[i*24+j*3+k]
			}
			wantR.v[i*3+k] = acc
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
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "transpose", x.arg())
		checkF32(t, "transpose", shapes[0], data[0], wantT)
		_, data = invoke(t, dev, module, "transpose_i32", "3x7xi32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20")
		var wantTI []int32
		for j := 0; j < 7; j++ {
			for i := 0; i < 3; i++ {
				wantTI = append(wantTI, int32(i*7+j))
			}
		}
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

// TestLinalgDynamic runs kernels whose sizes are push constants, at
// several sizes (including empty ones), and checks that operands whose
// sizes disagree at run time fail the dispatch instead of being read
// out of bounds.
func TestLinalgDynamic(t *testing.T) {
	module := compileLinalg(t, "linalg_dynamic.mlir")
	r := rand.New(rand.NewSource(4))
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		for _, sz := range [][3]int{{1, 1, 1}, {5, 7, 3}, {67, 3, 129}, {0, 4, 2}} {
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
		a, b := randF32(r, 3, 4), randF32(r, 5, 2)
		for _, n := range []int{1, 300} {
			x := randF32(r, n)
			want := f32s{shape: []int{n}, v: make([]float32, n)}
			for i := range want.v {
				want.v[i] = x.v[i]*float32(-3) + 2.5
			}
			shapes, data := invoke(t, dev, module, "scalars", x.arg(), "f32=2.5", "i32=-3")
			checkF32(t, fmt.Sprintf("scalars %d", n), shapes[0], data[0], want)
		}
		// The zero fill folds into the matmul's kernel, so the matmul is
		// the function's first (and only) dispatch.
		const want = `dispatch of export 0 ("matmul_linalg_0") failed with status 1`
		if out, err := tryRun(dev, module, "matmul", a.arg(), b.arg()); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("3x4 @ 5x2: got %q, %v; want an error containing %q", out, err, want)
		}
	})
}

// TestLinalgBadInput checks that bad linalg programs fail to compile with
// the problem named at its file:line:col.
func TestLinalgBadInput(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"matmul-shapes", `func.func @f(%a: tensor<4x8xf32>, %b: tensor<7x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<7x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}`, "bad.mlir:2:8: error: 'linalg.matmul' op shape mismatch: loop dimension d2 is 8 (dimension 1 of operand #0, 'tensor<4x8xf32>') but 7 (dimension 0 of operand #1, 'tensor<7x4xf32>')"},
		{"reduction-output-map", `func.func @f(%x: tensor<4x8xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%i : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}`, "bad.mlir:2:8: error: 'linalg.generic' op indexing_maps #1 (output #0) uses d1, a reduction dimension"},
		{"yield-type", `func.func @f(%x: tensor<4xi32>, %i: tensor<4xi32>) -> tensor<4xi32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xi32>) outs(%i : tensor<4xi32>) {
  ^bb0(%in: i32, %out: i32):
    %1 = arith.sitofp %in : i32 to f32
    linalg.yield %1 : f32
  } -> tensor<4xi32>
  return %0 : tensor<4xi32>
}`, "bad.mlir:5:5: error: 'linalg.yield' op type of yield operand #0 ('f32') does not match the element type of output #0 ('i32')"},
		{"unsupported-element-type", `func.func @f(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  %e = tensor.empty() : tensor<4xf8E4M3FN>
  %r = linalg.copy ins(%x : tensor<4xf8E4M3FN>) outs(%e : tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %r : tensor<4xf8E4M3FN>
}`, "bad.mlir:3:8: error: 'func.func' op type 'f8E4M3FN' is not supported by llvm-cpu code generation"},
		{"scalar-argument", `func.func @f(%v: i64) -> tensor<4xi64> {
  %e = tensor.empty() : tensor<4xi64>
  %r = linalg.fill ins(%v : i64) outs(%e : tensor<4xi64>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}`, "bad.mlir:3:8: error: 'linalg.fill' op scalar input #0 of type 'i64' cannot be passed to a dispatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			module, err := compileSource("bad.mlir", []byte(tc.src), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v (module of %d bytes)\nwant %q", err, len(module), tc.want)
			}
			if module != nil {
				t.Fatalf("a module was produced for a bad program")
			}
		})
	}
}

// checkTransposedContractions runs linalg_shapes.mlir's
// @transposed_contractions on a (2x3x4) and b (2x4x5), each also passed
// transposed per batch, against want (a * b per batch): the batched
// results, and batch 0's for the 2-D ops.
func checkTransposedContractions(t *testing.T, dev rhal.Device, module []byte, a, b, want f32s) {
	t.Helper()
	transposed := func(x f32s) f32s {
		n, r, c := x.shape[0], x.shape[1], x.shape[2]
		out := f32s{shape: []int{n, c, r}, v: make([]float32, len(x.v))}
		for k := 0; k < n; k++ {
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					out.v[k*r*c+j*r+i] = x.v[k*r*c+i*c+j]
				}
			}
		}
		return out
	}
	shapes, data := invoke(t, dev, module, "transposed_contractions", a.arg(), transposed(a).arg(), b.arg(), transposed(b).arg())
	checkF32(t, "batch_matmul_transpose_a", shapes[0], data[0], want)
	checkF32(t, "batch_matmul_transpose_b", shapes[1], data[1], want)
	first := f32s{shape: []int{3, 5}, v: want.v[:15]}
	checkF32(t, "matmul_transpose_a", shapes[2], data[2], first)
	checkF32(t, "matmul_transpose_b", shapes[3], data[3], first)
}
