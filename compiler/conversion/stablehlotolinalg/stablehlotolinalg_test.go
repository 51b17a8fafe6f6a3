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
		{"dynamic", `func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %x = stablehlo.abs %a : tensor<?xf32>
  return %x : tensor<?xf32>
}`, "t.mlir:2:8: error: 'stablehlo.abs' op result: dynamic shapes ('tensor<?xf32>') are not supported yet"},
		{"unsigned", `func.func @f(%a: tensor<4xui32>) -> tensor<4xui32> {
  %x = "mhlo.add"(%a, %a) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return %x : tensor<4xui32>
}`, "t.mlir:2:8: error: 'mhlo.add' op result: signed or unsigned integer types ('tensor<4xui32>') are not supported yet"},
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
		{"reduce-body", `func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = "stablehlo.subtract"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`, "t.mlir:2:8: error: 'stablehlo.reduce' op 'stablehlo.subtract' is not an associative combiner"},
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
