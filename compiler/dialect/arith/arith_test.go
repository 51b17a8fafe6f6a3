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

// TestQuotedPredicates checks that comparison predicates parse written as
// strings, as MLIR reads enum attributes, and print as keywords.
func TestQuotedPredicates(t *testing.T) {
	custom, generic := dialecttest.RoundTrip(t, "quoted.mlir", `func.func @f(%a: i8, %x: f32) -> (i1, i1) {
  %0 = arith.cmpi "sgt", %a, %a : i8
  %1 = arith.cmpf "ult", %x, %x : f32
  return %0, %1 : i1, i1
}`)
	dialecttest.ContainsAll(t, "custom form", custom, "%0 = arith.cmpi sgt, %a, %a : i8", "%1 = arith.cmpf ult, %x, %x : f32")
	dialecttest.ContainsAll(t, "generic form", generic, `"arith.cmpi"(%a, %a) {predicate = 4}`, `"arith.cmpf"(%x, %x) {predicate = 11}`)
}

func TestPredicateErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"unknown string", "func.func @f(%a: i8) -> i1 {\n  %0 = arith.cmpi \"bigger\", %a, %a : i8\n  return %0 : i1\n}",
			"t.mlir:2:19: error: unknown comparison predicate 'bigger'"},
		{"float predicate on cmpi", "func.func @f(%a: i8) -> i1 {\n  %0 = arith.cmpi \"ogt\", %a, %a : i8\n  return %0 : i1\n}",
			"t.mlir:2:19: error: unknown comparison predicate 'ogt'"},
	} {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}
