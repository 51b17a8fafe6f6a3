package stablehlo_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

// TestPrettyErrors checks the diagnostics, with their positions, for
// custom forms that are malformed.
func TestPrettyErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"dims-equals", `func.func @f(%x: tensor<1x5xf32>) -> tensor<5x1xf32> {
  %r = stablehlo.transpose %x, dims [1, 0] : (tensor<1x5xf32>) -> tensor<5x1xf32>
  return %r : tensor<5x1xf32>
}`, "t.mlir:2:37: error: expected '=', found '['"},
		{"pad-order", `func.func @f(%x: tensor<4xf32>, %v: tensor<f32>) -> tensor<6xf32> {
  %r = stablehlo.pad %x, %v, high = [1], low = [1], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}`, "t.mlir:2:30: error: expected 'low', found 'high'"},
		{"slice-range", `func.func @f(%x: tensor<4xf32>) -> tensor<2xf32> {
  %r = stablehlo.slice %x [0, 2] : (tensor<4xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}`, "t.mlir:2:29: error: expected ':', found ','"},
		{"iota-dim", `func.func @f() -> tensor<4xi32> {
  %r = stablehlo.iota dim = 1 : tensor<4xi32>
  return %r : tensor<4xi32>
}`, "t.mlir:2:8: error: 'stablehlo.iota' op iota_dimension 1 is out of range for rank 1"},
		{"conv-letter", `func.func @f(%x: tensor<1x8x8x1xf32>, %k: tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32> {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, q]x[0, 1, i, o]->[b, 0, 1, f] : (tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32>
  return %r : tensor<1x6x6x1xf32>
}`, "t.mlir:2:62: error: unexpected 'q' in convolution dimension numbers (expected b, f or a spatial dimension, each once)"},
		{"conv-spatial", `func.func @f(%x: tensor<1x8x8x1xf32>, %k: tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32> {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 2, f]x[0, 1, i, o]->[b, 0, 1, f] : (tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32>
  return %r : tensor<1x6x6x1xf32>
}`, "t.mlir:2:52: error: spatial dimension 2 is out of range in convolution dimension numbers of 2 spatial dimensions"},
		{"conv-window-key", `func.func @f(%x: tensor<1x8x8x1xf32>, %k: tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32> {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {strides = [1, 1]} : (tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32>
  return %r : tensor<1x6x6x1xf32>
}`, "t.mlir:2:103: error: unexpected 'strides' in convolution window (expected stride, pad, lhs_dilate, rhs_dilate or reverse, each once)"},
		{"conv-pad-pair", `func.func @f(%x: tensor<1x8x8x1xf32>, %k: tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32> {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[0, 0, 1], [0, 0]]} : (tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32>
  return %r : tensor<1x6x6x1xf32>
}`, "t.mlir:2:110: error: a convolution pad entry must be [low, high], found 3 numbers"},
		{"reduce-applies-unary", `func.func @f(%x: tensor<4xf32>, %c: tensor<f32>) -> tensor<f32> {
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.negate across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`, "t.mlir:2:46: error: 'applies' needs a binary stablehlo op such as stablehlo.add, found 'stablehlo.negate'"},
		{"reduce-reducer-pair", `func.func @f(%x: tensor<4xf32>, %c: tensor<f32>) -> tensor<f32> {
  %r = stablehlo.reduce(%x init: %c) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    reducer(%a: tensor<f32>) {
    stablehlo.return %a : tensor<f32>
  }
  return %r : tensor<f32>
}`, "t.mlir:3:12: error: a reducer takes a pair of arguments per input, found 1"},
		{"dot-general-batching-only", `func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3x3xf32> {
  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x3xf32>
  return %r : tensor<2x3x3xf32>
}`, "t.mlir:2:64: error: expected ', contracting_dims = ...' after the batching dimensions"},
		{"dot-clause", `func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %r = stablehlo.dot %a, %b, precison = [DEFAULT] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}`, "t.mlir:2:30: error: expected an operand or a clause of 'stablehlo.dot' after ','"},
		{"while-types", `func.func @f(%n: tensor<i32>) -> tensor<i32> {
  %r = stablehlo.while(%i = %n) : tensor<f32>
   cond {
    %c = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %i : tensor<f32>
  }
  return %r : tensor<i32>
}`, "t.mlir:2:35: error: use of value '%n' expects different type than prior uses: 'tensor<f32>' vs 'tensor<i32>'"},
	} {
		t.Run(tc.name, func(t *testing.T) { dialecttest.ExpectError(t, tc.src, tc.want) })
	}
}
