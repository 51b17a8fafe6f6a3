package e2e_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

// sobelLike is the shape of IREE's edge-detection model: two reductions
// (here matmuls) whose elementwise chains meet in one op that reads both
// (the sum of their squares), then a square root. The meeting op folds
// into the first reduction's epilogue only; the second reduction's chain
// stops before it and its result becomes an input of that epilogue.
// Dispatch formation used to put the meeting op in both chains and
// crash.
const sobelLike = `#id = affine_map<(i, j) -> (i, j)>
func.func @sobel(%a: tensor<5x7xf32>, %b: tensor<7x6xf32>, %c: tensor<7x6xf32>) -> tensor<5x6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<5x6xf32>) -> tensor<5x6xf32>
  %gx = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x6xf32>) outs(%f : tensor<5x6xf32>) -> tensor<5x6xf32>
  %sx = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%gx : tensor<5x6xf32>) outs(%e : tensor<5x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %v : f32
    linalg.yield %m : f32
  } -> tensor<5x6xf32>
  %gy = linalg.matmul ins(%a, %c : tensor<5x7xf32>, tensor<7x6xf32>) outs(%f : tensor<5x6xf32>) -> tensor<5x6xf32>
  %sy = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%gy : tensor<5x6xf32>) outs(%e : tensor<5x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %v : f32
    linalg.yield %m : f32
  } -> tensor<5x6xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%sx, %sy : tensor<5x6xf32>, tensor<5x6xf32>) outs(%e : tensor<5x6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<5x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<5x6xf32>) outs(%e : tensor<5x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = math.sqrt %v : f32
    linalg.yield %q : f32
  } -> tensor<5x6xf32>
  return %r : tensor<5x6xf32>
}
`

func TestEpilogueChainsMeet(t *testing.T) {
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	module, err := compileSource("sobel.mlir", []byte(sobelLike), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := make([]float32, 35), make([]float32, 42), make([]float32, 42)
	for i := range a {
		a[i] = float32(i%5) - 1.5
	}
	for i := range b {
		b[i], c[i] = float32(i%7)*0.25, float32(3-i%4)
	}
	text := func(shape string, xs []float32) string {
		parts := make([]string, len(xs))
		for i, x := range xs {
			parts[i] = fmt.Sprint(x)
		}
		return shape + "=" + strings.Join(parts, " ")
	}
	for _, d := range devices {
		dev, err := d.make()
		if err != nil {
			t.Fatal(err)
		}
		got := callF32(t, dev, module, "sobel", text("5x7xf32", a), text("7x6xf32", b), text("7x6xf32", c))
		dev.Close()
		for i := 0; i < 5; i++ {
			for j := 0; j < 6; j++ {
				var gx, gy float64
				for k := 0; k < 7; k++ {
					gx += float64(a[i*7+k]) * float64(b[k*6+j])
					gy += float64(a[i*7+k]) * float64(c[k*6+j])
				}
				want := math.Sqrt(gx*gx + gy*gy)
				if g := float64(got[i*6+j]); math.Abs(g-want) > 1e-4*math.Max(1, want) {
					t.Errorf("%s: [%d][%d] = %g, want %g", d.name, i, j, g, want)
				}
			}
		}
	}
}
