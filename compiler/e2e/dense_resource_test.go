package e2e_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// blob writes vals as a builtin resource blob: the alignment word, then
// the little-endian f32 data, in hex.
func blob(vals []float32) string {
	b := binary.LittleEndian.AppendUint32(nil, 4)
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return `"0x` + strings.ToUpper(hex.EncodeToString(b)) + `"`
}

// TestDenseResourceWeights runs a dense layer whose weight matrix and bias
// are dense_resource constants in the file's resource block, as importers
// write weights: the matmul reads the weights in a generated loop nest and
// the bias is added elementwise. Checked against a Go loop over the same
// values.
func TestDenseResourceWeights(t *testing.T) {
	tools(t)
	r := rand.New(rand.NewSource(7))
	x, w, b := randF32(r, 5, 12), randF32(r, 12, 9), randF32(r, 9)
	src := fmt.Sprintf(`#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @dense(%%x: tensor<5x12xf32>) -> tensor<5x9xf32> {
  %%w = arith.constant dense_resource<layer0.weight> : tensor<12x9xf32>
  %%b = arith.constant dense_resource<layer0.bias> : tensor<9xf32>
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : tensor<5x9xf32>
  %%acc = linalg.fill ins(%%zero : f32) outs(%%e : tensor<5x9xf32>) -> tensor<5x9xf32>
  %%mm = linalg.matmul ins(%%x, %%w : tensor<5x12xf32>, tensor<12x9xf32>) outs(%%acc : tensor<5x9xf32>) -> tensor<5x9xf32>
  %%y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%%mm, %%b : tensor<5x9xf32>, tensor<9xf32>) outs(%%e : tensor<5x9xf32>) {
  ^bb0(%%m: f32, %%bv: f32, %%o: f32):
    %%s = arith.addf %%m, %%bv : f32
    linalg.yield %%s : f32
  } -> tensor<5x9xf32>
  return %%y : tensor<5x9xf32>
}

{-#
  dialect_resources: {
    builtin: {
      layer0.weight: %s,
      layer0.bias: %s
    }
  }
#-}
`, blob(w.v), blob(b.v))
	module, err := compileSource("dense_resource.mlir", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := matmulRef(x, w, 0)
	for i := range want.v {
		want.v[i] += b.v[i%9]
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "dense", x.arg())
		checkF32(t, "dense", shapes[0], data[0], want)
	})
}

// TestDenseResourceUndefined checks that a constant naming a blob the file
// does not define is a located compile error.
func TestDenseResourceUndefined(t *testing.T) {
	src := `func.func @f() -> tensor<2xf32> {
  %w = arith.constant dense_resource<missing> : tensor<2xf32>
  return %w : tensor<2xf32>
}
`
	_, err := compileSource("undefined.mlir", []byte(src), nil)
	want := "undefined.mlir:2:23: error: dense_resource<missing> is not defined"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %s...", err, want)
	}
}
