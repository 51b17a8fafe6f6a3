package tensortolinalg_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/conversion/internal/conversiontest"
	"github.com/goiree/goiree/compiler/conversion/tensortolinalg"
	"github.com/goiree/goiree/compiler/dialect"
)

// TestGolden converts testdata/convert.mlir and compares the printed IR
// with testdata/convert.golden (go test -update rewrites it).
func TestGolden(t *testing.T) {
	conversiontest.Golden(t, tensortolinalg.Convert, func(name string) bool {
		switch name {
		case "tensor.insert_slice", "tensor.empty", "tensor.dim", "tensor.extract_slice":
			return false
		}
		return strings.HasPrefix(name, "tensor.")
	})
}

// TestErrors checks that what the lowering cannot do yet is refused at
// the op's file:line:col.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"dynamic-pad", `func.func @f(%x: tensor<8xf32>, %l: index, %v: f32) -> tensor<?xf32> {
  %p = tensor.pad %x low[%l] high[0] {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<8xf32> to tensor<?xf32>
  return %p : tensor<?xf32>
}`, "bad.mlir:2:8: error: 'tensor.pad' op dynamic low paddings (dimension 0) are not supported yet; only sizes may be dynamic"},
		{"dynamic-concat", `func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = tensor.concat dim(0) %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %c : tensor<?xf32>
}`, "bad.mlir:2:8: error: 'tensor.concat' op input #0 has a dynamic size along the concatenated dimension 0, which makes the offsets dynamic: not supported yet"},
		{"unranked", `func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  %c = tensor.cast %x : tensor<4xf32> to tensor<*xf32>
  return %c : tensor<*xf32>
}`, "bad.mlir:2:8: error: 'tensor.cast' op unranked tensors ('tensor<*xf32>') are not supported yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := dialect.Parse("bad.mlir", []byte(tc.src), dialect.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			err = tensortolinalg.Convert(m.Op)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
