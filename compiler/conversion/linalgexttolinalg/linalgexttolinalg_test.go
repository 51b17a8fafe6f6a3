package linalgexttolinalg_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/conversion/internal/conversiontest"
	"github.com/goiree/goiree/compiler/conversion/linalgexttolinalg"
	"github.com/goiree/goiree/compiler/dialect"
)

// TestGolden converts testdata/convert.mlir and compares the printed IR
// with testdata/convert.golden (go test -update rewrites it).
func TestGolden(t *testing.T) {
	conversiontest.Golden(t, linalgexttolinalg.Convert, func(name string) bool {
		return name == "linalg.pack" || name == "linalg.unpack" || strings.HasPrefix(name, "iree_linalg_ext.")
	})
}

// TestErrors checks that what the lowering cannot do is refused at the
// op's file:line:col.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"map-store-memref", `func.func @f(%x: tensor<4xf32>, %o: memref<4xf32>) {
  iree_linalg_ext.map_store %x into %o {
  ^bb0(%i: index):
    %t = arith.constant true
    iree_linalg_ext.yield %i, %t : index, i1
  } : tensor<4xf32> into memref<4xf32>
  return
}`, "bad.mlir:2:3: error: 'iree_linalg_ext.map_store' op lowering of map_store is supported on ranked tensors only"},
		{"scatter-ranks", `func.func @f(%u: tensor<3x4xf32>, %i: tensor<2x1xi32>, %o: tensor<5x4xf32>) -> tensor<5x4xf32> {
  %0 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(true) ins(%u, %i : tensor<3x4xf32>, tensor<2x1xi32>) outs(%o : tensor<5x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  } -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}`, "bad.mlir:2:8: error: 'iree_linalg_ext.scatter' op updates 'tensor<3x4xf32>' and indices 'tensor<2x1xi32>' do not fit an original 'tensor<5x4xf32>' indexed 1 deep"},
		{"attention-body-type", `func.func @f(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x6xf32>, %o: tensor<3x6xf32>, %s: f32) -> tensor<3x6xf32> {
  %0 = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>]} ins(%q, %k, %v, %s : tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x6xf32>, f32) outs(%o : tensor<3x6xf32>) {
  ^bb0(%a: f16):
    %b = arith.addf %a, %a : f16
    iree_linalg_ext.yield %b : f16
  } -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}`, "bad.mlir:2:8: error: 'iree_linalg_ext.attention' op the body's argument is 'f16' but the scores are computed in f32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := dialect.Parse("bad.mlir", []byte(tc.src), dialect.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			err = linalgexttolinalg.Convert(m.Op)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
