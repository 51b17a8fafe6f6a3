package stablehlo_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

func TestRoundTrip(t *testing.T) {
	src := `func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<4xi32>, %c: tensor<2x3xi1>) -> (tensor<2x3xf32>, tensor<4xf32>, tensor<2x3xf32>) {
  %k = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %s = stablehlo.add %i, %k : tensor<4xi32>
  %x = "mhlo.multiply"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = stablehlo.convert %s : (tensor<4xi32>) -> tensor<4xf32>
  %y = "stablehlo.select"(%c, %x, %a) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = "mhlo.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = mhlo.clamp %m, %y, %m : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %e = stablehlo.compare EQ, %i, %k, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %q = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  return %y, %f, %z : tensor<2x3xf32>, tensor<4xf32>, tensor<2x3xf32>
}`
	custom, generic := dialecttest.RoundTrip(t, "stablehlo.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"%k = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>",
		"%s = stablehlo.add %i, %k : tensor<4xi32>",
		"%x = mhlo.multiply %a, %b : tensor<2x3xf32>",
		"%f = stablehlo.convert %s : (tensor<4xi32>) -> tensor<4xf32>",
		"%m = mhlo.constant dense<0.5> : tensor<f32>",
		"%z = mhlo.clamp %m, %y, %m : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>",
		"%e = stablehlo.compare EQ, %i, %k, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>",
		"%q = stablehlo.compare GT, %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>")
	dialecttest.ContainsAll(t, "generic form", generic,
		`"stablehlo.add"(%i, %k) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>`,
		`"stablehlo.constant"() {value = dense<[1, 2, 3, 4]> : tensor<4xi32>} : () -> tensor<4xi32>`)
}

func TestRngRoundTrip(t *testing.T) {
	src := `func.func @f(%a: tensor<f32>, %b: tensor<f32>, %s: tensor<2xi64>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %n = stablehlo.rng %a, %b, %s, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x5xf32>
  %u = "mhlo.rng"(%a, %b, %s) {rng_distribution = #mhlo.rng_distribution<UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x5xf32>
  return %n, %u : tensor<3x5xf32>, tensor<3x5xf32>
}`
	custom, generic := dialecttest.RoundTrip(t, "stablehlo.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"%n = stablehlo.rng %a, %b, %s, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x5xf32>",
		"%u = mhlo.rng %a, %b, %s {rng_distribution = #mhlo.rng_distribution<UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x5xf32>")
	dialecttest.ContainsAll(t, "generic form", generic,
		`"stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x5xf32>`)
}

func TestComplexFftRoundTrip(t *testing.T) {
	src := `func.func @f(%x: tensor<4x32xf32>, %y: tensor<4xf32>) -> (tensor<4x17xf32>, tensor<4xf32>, tensor<4x17xf32>) {
  %0 = stablehlo.fft %x, type = RFFT, length = [32] : (tensor<4x32xf32>) -> tensor<4x17xcomplex<f32>>
  %1 = stablehlo.real %0 : (tensor<4x17xcomplex<f32>>) -> tensor<4x17xf32>
  %z = stablehlo.complex %y, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
  %e = stablehlo.exponential %z : tensor<4xcomplex<f32>>
  %i = "mhlo.imag"(%e) : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %s = "mhlo.fft"(%x) {fft_length = dense<32> : tensor<i64>, fft_type = #mhlo<fft_type RFFT>} : (tensor<4x32xf32>) -> tensor<4x17xcomplex<f32>>
  %r = "mhlo.real"(%s) : (tensor<4x17xcomplex<f32>>) -> tensor<4x17xf32>
  return %1, %i, %r : tensor<4x17xf32>, tensor<4xf32>, tensor<4x17xf32>
}`
	custom, _ := dialecttest.RoundTrip(t, "stablehlo.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"%0 = stablehlo.fft %x, type = RFFT, length = [32] : (tensor<4x32xf32>) -> tensor<4x17xcomplex<f32>>",
		"%z = stablehlo.complex %y, %y : tensor<4xcomplex<f32>>",
		"%s = mhlo.fft %x {fft_length = dense<32> : tensor<i64>, fft_type = #mhlo<fft_type RFFT>} : (tensor<4x32xf32>) -> tensor<4x17xcomplex<f32>>")
}

func TestCustomCallRoundTrip(t *testing.T) {
	src := `func.func @f(%m: tensor<4x3xf32>, %t: tensor<2xf32>, %c: tensor<4xi1>) -> tensor<4x3xf32> {
  stablehlo.custom_call @shape_assertion(%c) {error_message = "Shape assertion failed", has_side_effect = true} : (tensor<4xi1>) -> ()
  %r = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%m, %t) : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}`
	custom, generic := dialecttest.RoundTrip(t, "stablehlo.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		`stablehlo.custom_call @shape_assertion(%c) {error_message = "Shape assertion failed", has_side_effect = true} : (tensor<4xi1>) -> ()`,
		"%r = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%m, %t) : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>")
	dialecttest.ContainsAll(t, "generic form", generic,
		`"stablehlo.custom_call"(%m, %t) {call_target_name = "ProductOfElementaryHouseholderReflectors"} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>`)
}

func TestReturnRoundTrip(t *testing.T) {
	src := `func.func @f(%a: tensor<4xf32>, %i: tensor<4xi32>, %z: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %r:2 = "stablehlo.reduce"(%a, %i, %z, %n) ({
  ^bb0(%x: tensor<f32>, %xi: tensor<i32>, %y: tensor<f32>, %yi: tensor<i32>):
    %m = stablehlo.maximum %x, %y : tensor<f32>
    stablehlo.return %m, %xi : tensor<f32>, tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  %s = "mhlo.reduce"(%a, %z) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    "mhlo.return"(%p) : (tensor<f32>) -> ()
  }) {dimensions = dense<0> : tensor<1xi64>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}`
	custom, generic := dialecttest.RoundTrip(t, "stablehlo.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"stablehlo.return %m, %xi : tensor<f32>, tensor<i32>",
		"mhlo.return %p : tensor<f32>")
	dialecttest.ContainsAll(t, "generic form", generic,
		`"stablehlo.return"(%m, %xi) : (tensor<f32>, tensor<i32>) -> ()`)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"shape", `func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %x = "stablehlo.add"(%a, %b) : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.add' op operand #1 shape 'tensor<2x2xf32>' does not match the result's 'tensor<2x3xf32>'"},
		{"rank", `func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %x = "mhlo.subtract"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'mhlo.subtract' op operand #1 has rank 1 but the result has rank 2"},
		{"arity", `func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %x = "stablehlo.abs"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.abs' op expects 1 operands and one result, found 2 and 1"},
		{"constant-type", `func.func @f() -> tensor<3xf32> {
  %x = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return %x : tensor<3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.constant' op value of type 'tensor<2xf32>' does not match result type 'tensor<3xf32>'"},
		{"constant-not-dense", `func.func @f() -> tensor<3xf32> {
  %x = stablehlo.constant 1.0 : f32
  return %x : tensor<3xf32>
}`, "t.mlir:2:27: error: constant value must be a dense elements attribute, found 1.0 : f32"},
		{"enum-attr", `func.func @f(%a: tensor<3xf32>) -> tensor<3xi1> {
  %x = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %x : tensor<3xi1>
}`, "t.mlir:2:91: error: expected identifier, found '>'"},
		{"return-not-last", `func.func @f(%a: tensor<f32>) -> tensor<f32> {
  stablehlo.return %a : tensor<f32>
  return %a : tensor<f32>
}`, "t.mlir:2:3: error: 'stablehlo.return' op must end the body of an op"},
		{"return-types", `func.func @f(%a: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.reduce"(%a, %a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %x, %y : tensor<f32>
  }) {dimensions = array<i64>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`, "t.mlir:4:31: error: 2 operands present, but expected 1"},
		{"rng-distribution", `func.func @f(%a: tensor<f32>, %s: tensor<1xi64>) -> tensor<4xf32> {
  %r = stablehlo.rng %a, %a, %s, distribution = POISSON : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.rng' op unknown rng_distribution 'POISSON'"},
		{"rng-operand", `func.func @f(%a: tensor<2xf32>, %s: tensor<1xi64>) -> tensor<4xf32> {
  %r = stablehlo.rng %a, %a, %s, distribution = UNIFORM : (tensor<2xf32>, tensor<2xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.rng' op operand #0 must be a rank-0 tensor of 'f32', found 'tensor<2xf32>'"},
		{"fft-type", `func.func @f(%a: tensor<8xf32>) -> tensor<5xcomplex<f32>> {
  %r = stablehlo.fft %a, type = DCT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
  return %r : tensor<5xcomplex<f32>>
}`, "t.mlir:2:8: error: 'stablehlo.fft' op unknown fft_type 'DCT'"},
	} {
		t.Run(tc.name, func(t *testing.T) { dialecttest.ExpectError(t, tc.src, tc.want) })
	}
}
