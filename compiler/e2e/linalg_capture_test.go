package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

// captured reads a function's f32, i32 and index arguments inside a
// linalg.generic body, as MLIR allows (IREE's pack tests write their
// inputs this way): dispatch formation passes each one to the kernel as a
// scalar input (a push constant; the index as an i32).
const captured = `func.func @capture(%x: tensor<6xf32>, %s: f32, %k: i32, %n: index) -> tensor<6xf32> {
  %e = tensor.empty() : tensor<6xf32>
  %c2 = arith.constant 2 : index
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<6xf32>) outs(%e : tensor<6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = arith.muli %i, %n : index
    %j2 = arith.addi %j, %c2 : index
    %ji = arith.index_cast %j2 : index to i32
    %jk = arith.addi %ji, %k : i32
    %jf = arith.sitofp %jk : i32 to f32
    %m = arith.mulf %v, %s : f32
    %a = arith.addf %m, %jf : f32
    linalg.yield %a : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
`

func TestLinalgCapturedScalars(t *testing.T) {
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	module, err := compileSource("capture.mlir", []byte(captured), nil)
	if err != nil {
		t.Fatal(err)
	}
	x := []float32{1, -2, 3.5, 0, 7, -1}
	for _, d := range testDevices(t) {
		dev, err := d.make()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			s    float32
			k, n int
		}{{2, 0, 1}, {-0.5, 7, 3}, {1.5, -100, -2}} {
			got := callF32(t, dev, module, "capture", "6xf32=1 -2 3.5 0 7 -1", fmt.Sprintf("f32=%g", c.s), fmt.Sprintf("i32=%d", c.k), fmt.Sprint(c.n))
			for i := range x {
				want := x[i]*c.s + float32(i*c.n+2+c.k)
				if got[i] != want {
					t.Errorf("%s: s=%g k=%d n=%d: [%d] = %g, want %g", d.name, c.s, c.k, c.n, i, got[i], want)
				}
			}
		}
		dev.Close()
	}
	// A captured tensor is read with tensor.extract (a computed-index
	// read of its binding; see linalg_gather_test.go): here a 0-D one.
	src := strings.Replace(captured, "%s: f32", "%s: tensor<f32>", 1)
	src = strings.Replace(src, "%m = arith.mulf %v, %s : f32", "%m = tensor.extract %s[] : tensor<f32>", 1)
	module, err = compileSource("capture.mlir", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range testDevices(t) {
		dev, err := d.make()
		if err != nil {
			t.Fatal(err)
		}
		got := callF32(t, dev, module, "capture", "6xf32=1 -2 3.5 0 7 -1", "f32=2.5", "i32=1", "2")
		for i := range x {
			if want := 2.5 + float32(i*2+2+1); got[i] != want {
				t.Errorf("%s: 0-D tensor capture: [%d] = %g, want %g", d.name, i, got[i], want)
			}
		}
		dev.Close()
	}
	// A tensor made inside the body cannot be a kernel binding: the error
	// names the op.
	src = strings.Replace(captured, "%m = arith.mulf %v, %s : f32", "%t = tensor.from_elements %s : tensor<1xf32>\n    %z = arith.constant 0 : index\n    %m = tensor.extract %t[%z] : tensor<1xf32>", 1)
	if _, err := compileSource("capture.mlir", []byte(src), nil); err == nil || !strings.Contains(err.Error(), "capture.mlir:13:10: error: 'tensor.from_elements' op is not supported in a linalg body") {
		t.Errorf("a tensor made in the body: got %v", err)
	}
}

// sliceAtOrigin takes a dynamically sized slice at offset 0 of a dynamic
// tensor (IREE's unpack tests do): the copy kernel reads its source only in
// part, so the source may be longer than the loops, which take their
// ranges from the result.
const sliceAtOrigin = `func.func @slice(%x: tensor<?x?xi32>, %a: index, %b: index) -> tensor<?x?xi32> {
  %s = tensor.extract_slice %x[0, 0] [%a, %b] [1, 1] : tensor<?x?xi32> to tensor<?x?xi32>
  return %s : tensor<?x?xi32>
}
`

func TestDynamicSliceAtOrigin(t *testing.T) {
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	module, err := compileSource("slice.mlir", []byte(sliceAtOrigin), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range testDevices(t) {
		dev, err := d.make()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ a, b int }{{2, 3}, {4, 5}, {1, 1}, {0, 2}} {
			var want []string
			for i := 0; i < c.a; i++ {
				var row []string
				for j := 0; j < c.b; j++ {
					row = append(row, fmt.Sprint(i*5+j))
				}
				want = append(want, "["+strings.Join(row, " ")+"]")
			}
			got := run(t, dev, module, "slice", "4x5xi32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19", fmt.Sprint(c.a), fmt.Sprint(c.b))
			if c.a > 0 && !strings.Contains(got, fmt.Sprintf("%dx%dxi32=%s", c.a, c.b, strings.Join(want, ""))) {
				t.Errorf("%s: slice %dx%d: got %s", d.name, c.a, c.b, got)
			}
		}
		// A slice longer than its source is refused at run time.
		if _, err := tryRun(dev, module, "slice", "2x2xi32=1 2 3 4", "3", "1"); err == nil && failsDispatches() {
			t.Errorf("%s: a 3x1 slice of a 2x2 tensor ran", d.name)
		}
		dev.Close()
	}
}
