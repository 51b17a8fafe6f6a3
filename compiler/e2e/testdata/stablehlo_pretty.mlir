// StableHLO programs written in the custom forms jax.jit(f).lower(...)
// prints (dot_general, broadcast_in_dim, reduce's applies and reducer
// forms, transpose, slice, concatenate, reverse, pad, iota, compare,
// select's two-type form). stablehlo_pretty_test.go checks every result
// against plain Go loops.

// A two-layer perceptron: relu(x @ w1 + b1) @ w2, then per row the sum
// (applies form) and the largest absolute value (reducer region form).
// The module and the signature carry the attributes JAX adds.
module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
func.func public @mlp(%x: tensor<4x8xf32> {mhlo.layout_mode = "default"}, %w1: tensor<8x16xf32> {mhlo.layout_mode = "default"}, %b1: tensor<16xf32> {mhlo.layout_mode = "default"}, %w2: tensor<16x3xf32> {mhlo.layout_mode = "default"}) -> (tensor<4x3xf32> {jax.result_info = "[0]"}, tensor<4xf32> {jax.result_info = "[1]"}, tensor<4xf32> {jax.result_info = "[2]"}) {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %2 = stablehlo.add %0, %1 : tensor<4x16xf32>
  %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
  %4 = stablehlo.maximum %2, %3 : tensor<4x16xf32>
  %5 = stablehlo.dot_general %4, %w2, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
  %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  %7 = stablehlo.reduce(%5 init: %cst) across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    reducer(%arg0: tensor<f32>, %arg1: tensor<f32>)  {
    %8 = stablehlo.abs %arg1 : tensor<f32>
    %9 = stablehlo.maximum %arg0, %8 : tensor<f32>
    stablehlo.return %9 : tensor<f32>
  }
  return %5, %6, %7 : tensor<4x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// Data movement: t = transpose(x) (3x2), s = t[0:3:2, 1:2] (2x1),
// c = concat(s, s) along 1 (2x2), r = reverse(c, dim 0), p = pad(r, -1,
// low [1, 0], high [0, 2]) (3x4), then where p > iota
// along dim 1 (as f32) keep p, else the iota.
func.func @shapes(%x: tensor<2x3xf32>) -> tensor<3x4xf32> {
  %m = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = stablehlo.slice %t [0:3:2, 1:2] : (tensor<3x2xf32>) -> tensor<2x1xf32>
  %c = stablehlo.concatenate %s, %s, dim = 1 : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  %r = stablehlo.reverse %c, dims = [0] : tensor<2x2xf32>
  %p = stablehlo.pad %r, %m, low = [1, 0], high = [0, 2], interior = [0, 0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<3x4xf32>
  %i = stablehlo.iota dim = 1 : tensor<3x4xi32>
  %f = stablehlo.convert %i : (tensor<3x4xi32>) -> tensor<3x4xf32>
  %g = stablehlo.compare  GT, %p, %f,  FLOAT : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
  %o = stablehlo.select %g, %p, %f : tensor<3x4xi1>, tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// Row i of x (clamped into range) by a gather whose dimension numbers
// leave out index_vector_dim, as StableHLO's printer does when it is 0:
// the scalar start index is then the whole index vector.
func.func @gather_row(%x: tensor<5x3xf32>, %i: tensor<i64>) -> tensor<3xf32> {
  %r = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0]>, slice_sizes = array<i64: 1, 3>} : (tensor<5x3xf32>, tensor<i64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
}
