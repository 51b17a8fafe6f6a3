package arith_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

// TestOldMaxMinNames checks that arith.maxf and arith.minf (MLIR's names
// before 2023) parse as arith.maximumf and arith.minimumf.
func TestOldMaxMinNames(t *testing.T) {
	custom, generic := dialecttest.RoundTrip(t, "old.mlir", `func.func @f(%a: f32, %b: tensor<4xf16>) -> (f32, tensor<4xf16>) {
  %0 = arith.maxf %a, %a : f32
  %1 = arith.minf %b, %b : tensor<4xf16>
  return %0, %1 : f32, tensor<4xf16>
}`)
	dialecttest.ContainsAll(t, "custom form", custom, "%0 = arith.maximumf %a, %a : f32", "%1 = arith.minimumf %b, %b : tensor<4xf16>")
	dialecttest.ContainsAll(t, "generic form", generic, `"arith.maximumf"(%a, %a)`, `"arith.minimumf"(%b, %b)`)
}
