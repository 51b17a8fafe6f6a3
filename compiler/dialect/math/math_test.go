package math_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

func TestRoundTrip(t *testing.T) {
	src := `func.func @f(%x: f32, %n: i32, %t: tensor<4xf16>, %i: i64) -> (i1, f32, tensor<4xi1>, i64) {
  %a = math.isnan %x : f32
  %b = math.fpowi %x, %n : f32, i32
  %c = math.isinf %t : tensor<4xf16>
  %d = math.ctpop %i : i64
  %e = math.isfinite %x : f32
  %f = math.erf %x : f32
  return %a, %b, %c, %d : i1, f32, tensor<4xi1>, i64
}`
	custom, generic := dialecttest.RoundTrip(t, "math.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"%a = math.isnan %x : f32", "%b = math.fpowi %x, %n : f32, i32", "%c = math.isinf %t : tensor<4xf16>", "%d = math.ctpop %i : i64")
	dialecttest.ContainsAll(t, "generic form", generic,
		`"math.isnan"(%x) : (f32) -> i1`, `"math.fpowi"(%x, %n) : (f32, i32) -> f32`, `"math.isinf"(%t) : (tensor<4xf16>) -> tensor<4xi1>`)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"isnan-int", `func.func @f(%x: i32) -> i1 {
  %a = math.isnan %x : i32
  return %a : i1
}`, "t.mlir:2:8: error: 'math.isnan' op operand must be floating-point-like, but got 'i32'"},
		{"fpowi-float-exponent", `func.func @f(%x: f32) -> f32 {
  %a = math.fpowi %x, %x : f32, f32
  return %a : f32
}`, "t.mlir:2:8: error: 'math.fpowi' op exponent must be signless-integer-like, but got 'f32'"},
		{"ctpop-float", `func.func @f(%x: f32) -> f32 {
  %a = math.ctpop %x : f32
  return %a : f32
}`, "t.mlir:2:8: error: 'math.ctpop' op operand must be signless-integer-like, but got 'f32'"},
	} {
		t.Run(tc.name, func(t *testing.T) { dialecttest.ExpectError(t, tc.src, tc.want) })
	}
}
