package stablehlotolinalg_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/conversion/internal/conversiontest"
	"github.com/goiree/goiree/compiler/conversion/stablehlotolinalg"
	"github.com/goiree/goiree/compiler/dialect"
)

// TestGolden converts testdata/convert.mlir and compares the printed IR
// with testdata/convert.golden (go test -update rewrites it). The numbers
// the lowered ops compute are checked by compiler/e2e's stablehlo tests.
func TestGolden(t *testing.T) {
	conversiontest.Golden(t, stablehlotolinalg.Convert, func(name string) bool {
		return strings.HasPrefix(name, "stablehlo.") || strings.HasPrefix(name, "mhlo.")
	})
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"dynamic", `func.func @f() -> tensor<?xi32> {
  %x = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<?xi32>
  return %x : tensor<?xi32>
}`, "t.mlir:2:8: error: 'stablehlo.iota' op result: dynamic shapes ('tensor<?xi32>') are not supported yet"},
		{"dynamic-conv", `func.func @f(%a: tensor<?x4x4x2xf32>, %k: tensor<2x2x2x1xf32>) -> tensor<?x3x3x1xf32> {
  %x = "stablehlo.convolution"(%a, %k) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>} : (tensor<?x4x4x2xf32>, tensor<2x2x2x1xf32>) -> tensor<?x3x3x1xf32>
  return %x : tensor<?x3x3x1xf32>
}`, "t.mlir:2:8: error: 'stablehlo.convolution' op result: dynamic shapes ('tensor<?x3x3x1xf32>') are not supported yet"},
		{"unsigned", `func.func @f(%a: tensor<4xui32>) -> tensor<4xui32> {
  %x = "mhlo.add"(%a, %a) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return %x : tensor<4xui32>
}`, "t.mlir:2:8: error: 'mhlo.add' op result: signed or unsigned integer types ('tensor<4xui32>') are not supported yet"},
		{"copy-type", `func.func @f(%a: tensor<4xf32>) -> tensor<2x2xf32> {
  %x = "mhlo.copy"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return %x : tensor<2x2xf32>
}`, "t.mlir:2:8: error: 'mhlo.copy' op expects one operand of the result's type"},
		{"float-and", `func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %x = stablehlo.and %a, %a : tensor<4xf32>
  return %x : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.and' op 'f32' elements are not supported here"},
		{"int-exp", `func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {
  %x = stablehlo.exponential %a : tensor<4xi32>
  return %x : tensor<4xi32>
}`, "t.mlir:2:8: error: 'stablehlo.exponential' op 'i32' elements are not supported here"},
		{"float-shift", `func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %x = stablehlo.shift_left %a, %a : tensor<4xf32>
  return %x : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.shift_left' op 'f32' elements are not supported here"},
		{"no-lowering", `func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %x = stablehlo.cbrt %a : tensor<4xf32>
  return %x : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.cbrt' op lowering is not supported yet"},
		{"compare-direction", `func.func @f(%a: tensor<4xf32>) -> tensor<4xi1> {
  %x = stablehlo.compare %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %x : tensor<4xi1>
}`, "t.mlir:2:8: error: 'stablehlo.compare' op requires a comparison_direction attribute such as #stablehlo<comparison_direction EQ>"},
		{"compare-unknown", `func.func @f(%a: tensor<4xf32>) -> tensor<4xi1> {
  %x = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction XX>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %x : tensor<4xi1>
}`, "t.mlir:2:8: error: 'stablehlo.compare' op unknown comparison_direction 'XX'"},
		{"transpose-perm", `func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %x = "stablehlo.transpose"(%a) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %x : tensor<3x2xf32>
}`, "t.mlir:2:8: error: 'stablehlo.transpose' op permutation [0 0] does not map 'tensor<2x3xf32>' to 'tensor<3x2xf32>'"},
		{"broadcast-dims", `func.func @f(%a: tensor<3xf32>) -> tensor<3x2xf32> {
  %x = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<3xf32>) -> tensor<3x2xf32>
  return %x : tensor<3x2xf32>
}`, "t.mlir:2:8: error: 'mhlo.broadcast_in_dim' op broadcast_dimensions [1] do not map 'tensor<3xf32>' into 'tensor<3x2xf32>'"},
		{"slice-missing", `func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {
  %x = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>} : (tensor<4xf32>) -> tensor<2xf32>
  return %x : tensor<2xf32>
}`, "t.mlir:2:8: error: 'stablehlo.slice' op requires 'strides', a list of 1 integers"},
		{"slice-result", `func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {
  %x = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 4>, strides = array<i64: 4>} : (tensor<4xf32>) -> tensor<2xf32>
  return %x : tensor<2xf32>
}`, "t.mlir:2:8: error: 'stablehlo.slice' op slice [0, 4) by 4 of dimension 0 (4) does not give the result 'tensor<2xf32>'"},
		{"reshape-count", `func.func @f(%a: tensor<4xf32>) -> tensor<5xf32> {
  %x = "stablehlo.reshape"(%a) : (tensor<4xf32>) -> tensor<5xf32>
  return %x : tensor<5xf32>
}`, "t.mlir:2:8: error: 'stablehlo.reshape' op reshape of 4 elements to 5"},
		{"concat-total", `func.func @f(%a: tensor<4xf32>) -> tensor<9xf32> {
  %x = "stablehlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<9xf32>
  return %x : tensor<9xf32>
}`, "t.mlir:2:8: error: 'stablehlo.concatenate' op operands give 8 along dimension 0 but the result has 9"},
		{"dot-shapes", `func.func @f(%a: tensor<2x4xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %x = "stablehlo.dot"(%a, %b) : (tensor<2x4xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %x : tensor<2x2xf32>
}`, "t.mlir:2:8: error: 'stablehlo.dot' op cannot contract 'tensor<2x4xf32>' with 'tensor<3x2xf32>' into 'tensor<2x2xf32>'"},
		{"dot-narrowing", `func.func @f(%a: tensor<4xi32>) -> tensor<i8> {
  %x = "stablehlo.dot"(%a, %a) : (tensor<4xi32>, tensor<4xi32>) -> tensor<i8>
  return %x : tensor<i8>
}`, "t.mlir:2:8: error: 'stablehlo.dot' op operand element type 'i32' is wider than the result's 'i8'"},
		{"reduce-body-type", `func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.convert %x : (tensor<f32>) -> tensor<i32>
    stablehlo.return %c : tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`, "t.mlir:5:5: error: 'stablehlo.return' op returns 'tensor<i32>' as value #0 but the reduce accumulates 'tensor<f32>' there"},
		{"reduce-body-args", `func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<i32>):
    stablehlo.return %x : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`, "t.mlir:2:8: error: 'stablehlo.reduce' op body argument #1 is 'tensor<i32>' but must be 'tensor<f32>'"},
		{"reduce-body-op", `func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %d = "stablehlo.dot"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %d : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`, "t.mlir:4:10: error: 'stablehlo.dot' op is not supported in the body of 'stablehlo.reduce'"},
		{"reduce-body-outside", `func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %z : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`, "t.mlir:4:10: error: 'stablehlo.add' op operand #1 is defined outside the body of 'stablehlo.reduce', which is not supported"},
		{"reduce-operands", `func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.reduce"(%a, %a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %x : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`, "t.mlir:2:8: error: 'stablehlo.reduce' op expects as many operands as init values and results, found 3 operands for 1 results"},
		{"reduce-shapes", `func.func @f(%a: tensor<4xf32>, %b: tensor<5xi32>, %z: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %r:2 = "stablehlo.reduce"(%a, %b, %z, %n) ({
  ^bb0(%x: tensor<f32>, %xi: tensor<i32>, %y: tensor<f32>, %yi: tensor<i32>):
    stablehlo.return %x, %xi : tensor<f32>, tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<5xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}`, "t.mlir:2:10: error: 'stablehlo.reduce' op operand #1 'tensor<5xi32>' does not have the shape of operand #0 'tensor<4xf32>'"},
		{"conv-features", `func.func @f(%a: tensor<1x4x4x3xf32>, %k: tensor<2x2x2x5xf32>) -> tensor<1x3x3x5xf32> {
  %x = "stablehlo.convolution"(%a, %k) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64} : (tensor<1x4x4x3xf32>, tensor<2x2x2x5xf32>) -> tensor<1x3x3x5xf32>
  return %x : tensor<1x3x3x5xf32>
}`, "t.mlir:2:8: error: 'stablehlo.convolution' op kernel input features (2, dimension 2 of 'tensor<2x2x2x5xf32>') must be the input's features (3, dimension 3 of 'tensor<1x4x4x3xf32>') divided by feature_group_count 1"},
		{"conv-groups", `func.func @f(%a: tensor<1x4x4x3xf32>, %k: tensor<2x2x1x4xf32>) -> tensor<1x3x3x4xf32> {
  %x = "mhlo.convolution"(%a, %k) {dimension_numbers = #mhlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 3 : i64} : (tensor<1x4x4x3xf32>, tensor<2x2x1x4xf32>) -> tensor<1x3x3x4xf32>
  return %x : tensor<1x3x3x4xf32>
}`, "t.mlir:2:8: error: 'mhlo.convolution' op feature_group_count 3 does not divide the 3 input and 4 output features"},
		{"conv-window", `func.func @f(%a: tensor<1x4x4x2xf32>, %k: tensor<2x2x2x1xf32>) -> tensor<1x4x3x1xf32> {
  %x = "stablehlo.convolution"(%a, %k) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, window_strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x2x1xf32>) -> tensor<1x4x3x1xf32>
  return %x : tensor<1x4x3x1xf32>
}`, "t.mlir:2:8: error: 'stablehlo.convolution' op spatial dimension 0: a window of 2 (kernel 2, dilation 1) by stride 1 over 4 (padded) gives 3, but the result 'tensor<1x4x3x1xf32>' has 4"},
		{"conv-dims", `func.func @f(%a: tensor<1x4x4x2xf32>, %k: tensor<2x2x2x1xf32>) -> tensor<1x3x3x1xf32> {
  %x = "stablehlo.convolution"(%a, %k) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 1], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>} : (tensor<1x4x4x2xf32>, tensor<2x2x2x1xf32>) -> tensor<1x3x3x1xf32>
  return %x : tensor<1x3x3x1xf32>
}`, "t.mlir:2:8: error: 'stablehlo.convolution' op dimension_numbers: the input dimensions [0 3 1 1] are not a permutation of 0..3"},
		{"conv-lhs-dilation", `func.func @f(%a: tensor<1x4x4x2xf32>, %k: tensor<2x2x2x1xf32>) -> tensor<1x3x3x1xf32> {
  %x = "stablehlo.convolution"(%a, %k) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, lhs_dilation = array<i64: 2, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x2x1xf32>) -> tensor<1x3x3x1xf32>
  return %x : tensor<1x3x3x1xf32>
}`, "t.mlir:2:8: error: 'stablehlo.convolution' op lhs_dilation [2 1] is not supported yet (only 1)"},
		{"conv-attr", `func.func @f(%a: tensor<1x4x4x2xf32>, %k: tensor<2x2x2x1xf32>) -> tensor<1x3x3x1xf32> {
  %x = "stablehlo.convolution"(%a, %k) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0 input_feature_dimension = 3>} : (tensor<1x4x4x2xf32>, tensor<2x2x2x1xf32>) -> tensor<1x3x3x1xf32>
  return %x : tensor<1x3x3x1xf32>
}`, "t.mlir:2:8: error: 'stablehlo.convolution' op dimension_numbers: 'input_batch_dimension' has a non-integer entry \"0 input_feature_dimension = 3\""},
		{"reduce-window-shape", `func.func @f(%a: tensor<6xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  %r = "stablehlo.reduce_window"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.maximum %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<6xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.reduce_window' op dimension 0: a window of 2 (dilation 1) by stride 2 over 6 (padded) gives 3, but the result 'tensor<4xf32>' has 4"},
		{"reduce-window-base-dilation", `func.func @f(%a: tensor<6xf32>, %z: tensor<f32>) -> tensor<5xf32> {
  %r = "mhlo.reduce_window"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = mhlo.maximum %x, %y : tensor<f32>
    mhlo.return %m : tensor<f32>
  }) {window_dimensions = dense<2> : tensor<1xi64>, base_dilations = dense<2> : tensor<1xi64>} : (tensor<6xf32>, tensor<f32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}`, "t.mlir:2:8: error: 'mhlo.reduce_window' op base_dilations [2] are not supported yet (only 1)"},
		{"reduce-dims", `func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = "mhlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = "mhlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "mhlo.return"(%m) : (tensor<f32>) -> ()
  }) {dimensions = dense<[0, 0]> : tensor<2xi64>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`, "t.mlir:2:8: error: 'mhlo.reduce' op dimensions [0 0] are not distinct dimensions of rank 1"},
		{"dot-general-pairs", `func.func @f(%a: tensor<2x4xf32>, %b: tensor<3x2xf32>) -> tensor<4x3xf32> {
  %x = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : (tensor<2x4xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
  return %x : tensor<4x3xf32>
}`, "t.mlir:2:8: error: 'mhlo.dot_general' op dot_dimension_numbers do not contract 'tensor<2x4xf32>' with 'tensor<3x2xf32>' into 'tensor<4x3xf32>'"},
		{"dot-general-attr", `func.func @f(%a: tensor<2x4xf32>, %b: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %x = "stablehlo.dot_general"(%a, %b) : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return %x : tensor<2x2xf32>
}`, "t.mlir:2:8: error: 'stablehlo.dot_general' op requires a dot_dimension_numbers attribute such as #stablehlo.dot<...>"},
		{"pad-interior", `func.func @f(%a: tensor<2xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  %x = "stablehlo.pad"(%a, %v) {edge_padding_low = array<i64: 0>, edge_padding_high = array<i64: 0>, interior_padding = array<i64: 1>} : (tensor<2xf32>, tensor<f32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.pad' op interior or negative padding is not supported yet"},
		{"bitcast-width", `func.func @f(%a: tensor<2xi16>) -> tensor<2xf32> {
  %x = "stablehlo.bitcast_convert"(%a) : (tensor<2xi16>) -> tensor<2xf32>
  return %x : tensor<2xf32>
}`, "t.mlir:2:8: error: 'stablehlo.bitcast_convert' op bitcast from 'i16' to 'f32' is not supported"},
		{"chlo-shapes", `func.func @f(%a: tensor<3xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %x = "chlo.broadcast_add"(%a, %b) : (tensor<3xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %x : tensor<2x4xf32>
}`, "t.mlir:2:8: error: 'chlo.broadcast_add' op operand #0 'tensor<3xf32>' does not broadcast to 'tensor<2x4xf32>'"},
		{"batch-norm-features", `func.func @f(%x: tensor<2x4xf32>, %v: tensor<3xf32>) -> tensor<2x4xf32> {
  %r = "stablehlo.batch_norm_inference"(%x, %v, %v, %v, %v) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.batch_norm_inference' op operand #1 'tensor<3xf32>' is not a vector of the 4 features"},
		{"rng-normal-f64", `func.func @f(%a: tensor<f64>, %s: tensor<2xi64>) -> tensor<3x5xf64> {
  %r = stablehlo.rng %a, %a, %s, distribution = NORMAL : (tensor<f64>, tensor<f64>, tensor<2xi64>) -> tensor<3x5xf64>
  return %r : tensor<3x5xf64>
}`, "t.mlir:2:8: error: 'stablehlo.rng' op 'f64' elements are not supported here (only f32)"},
		{"rng-uniform-int", `func.func @f(%a: tensor<i32>, %s: tensor<1xi64>) -> tensor<5xi32> {
  %r = stablehlo.rng %a, %a, %s, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<5xi32>
  return %r : tensor<5xi32>
}`, "t.mlir:2:8: error: 'stablehlo.rng' op 'i32' elements are not supported here (only f32, f64 and bf16)"},
		{"rng-shape", `func.func @f(%a: tensor<f32>, %s: tensor<3xi64>) -> tensor<3x5xf32> {
  %r = "mhlo.rng"(%a, %a, %s) {rng_distribution = #mhlo.rng_distribution<UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}`, "t.mlir:2:8: error: 'mhlo.rng' op shape operand 'tensor<3xi64>' must hold the 2 extents of the result 'tensor<3x5xf32>'"},
		{"rng-bits-state", `func.func @f(%s: tensor<3xi32>) -> tensor<4xi32> {
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<3xi32>) -> (tensor<3xi32>, tensor<4xi32>)
  return %r : tensor<4xi32>
}`, "t.mlir:2:12: error: 'stablehlo.rng_bit_generator' op state 'tensor<3xi32>' is not supported (only tensor<4xi32>, tensor<2xi64> and, for PHILOX, tensor<3xi64>)"},
		{"rng-bits-threefry-3", `func.func @f(%s: tensor<3xi64>) -> tensor<4xi32> {
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<3xi64>) -> (tensor<3xi64>, tensor<4xi32>)
  return %r : tensor<4xi32>
}`, "t.mlir:2:12: error: 'stablehlo.rng_bit_generator' op state 'tensor<3xi64>' is not supported (only tensor<4xi32>, tensor<2xi64> and, for PHILOX, tensor<3xi64>)"},
		{"rng-bits-new-state", `func.func @f(%s: tensor<2xi64>) -> tensor<4xi32> {
  %n, %r = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xi64>) -> (tensor<4xi32>, tensor<4xi32>)
  return %r : tensor<4xi32>
}`, "t.mlir:2:12: error: 'stablehlo.rng_bit_generator' op new state 'tensor<4xi32>' must have the state's type 'tensor<2xi64>'"},
		{"rng-bits-f16", `func.func @f(%s: tensor<2xi64>) -> tensor<4xf16> {
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xi64>) -> (tensor<2xi64>, tensor<4xf16>)
  return %r : tensor<4xf16>
}`, "t.mlir:2:12: error: 'stablehlo.rng_bit_generator' op 'f16' elements are not supported here (only 32- and 64-bit integers, f32 and f64)"},
		{"rng-bits-algorithm", `func.func @f(%s: tensor<2xi64>) -> tensor<4xi32> {
  %n, %r = "stablehlo.rng_bit_generator"(%s) : (tensor<2xi64>) -> (tensor<2xi64>, tensor<4xi32>)
  return %r : tensor<4xi32>
}`, "t.mlir:2:12: error: 'stablehlo.rng_bit_generator' op requires an rng_algorithm attribute such as #stablehlo<rng_algorithm PHILOX>"},
		{"rng-bits-dynamic", `func.func @f(%s: tensor<2xi64>) -> tensor<?xi32> {
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xi64>) -> (tensor<2xi64>, tensor<?xi32>)
  return %r : tensor<?xi32>
}`, "t.mlir:2:12: error: 'stablehlo.rng_bit_generator' op result #1: dynamic shapes ('tensor<?xi32>') are not supported yet"},
		{"complex-returned", `func.func @f(%a: tensor<4xf32>) -> tensor<4xcomplex<f32>> {
  %z = stablehlo.complex %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
  return %z : tensor<4xcomplex<f32>>
}`, "t.mlir:3:3: error: 'func.return' op complex operands ('tensor<4xcomplex<f32>>') are not supported here"},
		{"complex-argument", `func.func @f(%z: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
  %r = stablehlo.real %z : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.real' op operand #0: complex values that are not built by the program's own ops (here 'tensor<4xcomplex<f32>>') are not supported"},
		{"complex-op", `func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.complex %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
  %l = stablehlo.log %z : tensor<4xcomplex<f32>>
  %r = stablehlo.real %l : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}`, "t.mlir:3:8: error: 'stablehlo.log' op complex operands are not supported here"},
		{"fft-irfft-length", `func.func @f(%a: tensor<8xf32>) -> tensor<12xf32> {
  %z = stablehlo.complex %a, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xcomplex<f32>>
  %r = stablehlo.fft %z, type = IRFFT, length = [12] : (tensor<8xcomplex<f32>>) -> tensor<12xf32>
  return %r : tensor<12xf32>
}`, "t.mlir:3:8: error: 'stablehlo.fft' op IRFFT of length 12 of 'tensor<8xcomplex<f32>>' does not give 'tensor<12xf32>'"},
		{"fft-irfft-complex-result", `func.func @f(%a: tensor<8xf32>) -> tensor<14xcomplex<f32>> {
  %z = stablehlo.complex %a, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xcomplex<f32>>
  %r = stablehlo.fft %z, type = IRFFT, length = [14] : (tensor<8xcomplex<f32>>) -> tensor<14xcomplex<f32>>
  return %r : tensor<14xcomplex<f32>>
}`, "t.mlir:3:8: error: 'stablehlo.fft' op IRFFT takes a complex operand and gives a real result"},
		{"fft-length", `func.func @f(%a: tensor<8xf32>) -> tensor<4xf32> {
  %f = stablehlo.fft %a, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<4xcomplex<f32>>
  %r = stablehlo.real %f : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.fft' op RFFT of length 8 of 'tensor<8xf32>' does not give 'tensor<4xcomplex<f32>>'"},
		{"torch-index-select-dims", `func.func @f(%x: tensor<4x3xf32>, %i: tensor<2xi32>) -> tensor<2x3xf32> {
  %t = "stablehlo.torch_index_select"(%x, %i) {dim = 2 : i64, batch_dims = 0 : i64} : (tensor<4x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return %t : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.torch_index_select' op dim 2 and batch_dims 0 do not select from 'tensor<4x3xf32>' with 'tensor<2xi32>' into 'tensor<2x3xf32>'"},
		{"torch-index-select-float-index", `func.func @f(%x: tensor<4x3xf32>, %i: tensor<2xf32>) -> tensor<2x3xf32> {
  %t = "stablehlo.torch_index_select"(%x, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %t : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.torch_index_select' op index elements must be integers, found 'f32'"},
		{"reverse-dims", `func.func @f(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.reverse"(%x) {dimensions = array<i64: 1, 1>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.reverse' op dimensions [1 1] are not distinct dimensions of rank 2"},
		{"dynamic-slice-sizes", `func.func @f(%x: tensor<4x3xf32>, %s: tensor<i32>) -> tensor<2x3xf32> {
  %d = "stablehlo.dynamic_slice"(%x, %s, %s) {slice_sizes = array<i64: 5, 3>} : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.dynamic_slice' op slice_sizes [5 3] do not slice 'tensor<4x3xf32>' into 'tensor<2x3xf32>'"},
		{"dynamic-slice-starts", `func.func @f(%x: tensor<4x3xf32>, %s: tensor<i32>) -> tensor<2x3xf32> {
  %d = "stablehlo.dynamic_slice"(%x, %s) {slice_sizes = array<i64: 2, 3>} : (tensor<4x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.dynamic_slice' op expects 2 start indices, found 1"},
		{"dynamic-update-slice-fit", `func.func @f(%x: tensor<4x3xf32>, %u: tensor<5x3xf32>, %s: tensor<i32>) -> tensor<4x3xf32> {
  %d = "stablehlo.dynamic_update_slice"(%x, %u, %s, %s) : (tensor<4x3xf32>, tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
  return %d : tensor<4x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.dynamic_update_slice' op update 'tensor<5x3xf32>' does not fit operand 'tensor<4x3xf32>' giving 'tensor<4x3xf32>'"},
		{"gather-dims", `func.func @f(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.gather' op dimension_numbers do not gather 'tensor<2x3xf32>' from 'tensor<4x3xf32>' with 'tensor<2x1xi32>'"},
		{"gather-attr", `func.func @f(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %g = "stablehlo.gather"(%x, %i) {slice_sizes = array<i64: 1, 3>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.gather' op requires a dimension_numbers attribute such as #stablehlo.gather<...>"},
		{"scatter-body", `func.func @f(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %s = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %s : tensor<4x3xf32>
}`, "t.mlir:5:5: error: 'stablehlo.return' op returns 'tensor<i1>' as value #0 but the scatter accumulates 'tensor<f32>' there"},
		{"scatter-dims", `func.func @f(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %s = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %s : tensor<4x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.scatter' op scatter_dimension_numbers do not scatter 'tensor<2x3xf32>' into 'tensor<4x3xf32>' with 'tensor<2x1xi32>'"},
		{"sort-comparator", `func.func @f(%v: tensor<4xf32>) -> tensor<4xf32> {
  %s = "stablehlo.sort"(%v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}`, "t.mlir:5:5: error: 'stablehlo.return' op returns 'tensor<f32>' as value #0 but the sort compares as 'tensor<i1>' there"},
		{"sort-dimension", `func.func @f(%v: tensor<4xf32>) -> tensor<4xf32> {
  %s = "stablehlo.sort"(%v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.sort' op requires an integer 'dimension' in [0, 1)"},
		{"custom-call-target", `func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.custom_call @my_kernel(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}`, "t.mlir:2:8: error: 'stablehlo.custom_call' op custom_call target 'my_kernel' is not supported"},
		{"householder-factors", `func.func @f(%m: tensor<4x3xf32>, %t: tensor<4xf32>) -> tensor<4x3xf32> {
  %r = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%m, %t) : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}`, "t.mlir:2:8: error: 'stablehlo.custom_call' op 4 factors do not describe reflectors of a 4x3 matrix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := dialect.NewRegistry()
			m, err := dialect.Parse("t.mlir", []byte(tc.src), reg)
			if err != nil {
				t.Fatal(err)
			}
			err = stablehlotolinalg.Convert(m.Op)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}
