// One op of each lowering shape: broadcasting elementwise with TOSA's
// integer rounding, a reduction, pad with a shape operand, a lookup, a
// pool window and control flow.
func.func @lowerings(%a: tensor<2x3xi32>, %b: tensor<1x3xi32>, %s: tensor<2x3xi32>, %f: tensor<2x3xf32>, %c: tensor<i1>, %x8: tensor<4xi8>, %t8: tensor<256xi8>, %p: tensor<1x4x4x1xf32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<1x3xf32>, tensor<4x3xf32>, tensor<4xi8>, tensor<1x2x2x1xf32>, tensor<2x3xi32>) {
  %shift = "tosa.const"() <{values = dense<2> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %a, %b, %shift : (tensor<2x3xi32>, tensor<1x3xi32>, tensor<1xi8>) -> tensor<2x3xi32>
  %r = tosa.arithmetic_right_shift %a, %s {round = true} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %sum = tosa.reduce_sum %f {axis = 0 : i32} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %ps = tosa.const_shape {values = dense<[1, 1, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %pad = tosa.pad %f, %ps : (tensor<2x3xf32>, !tosa.shape<4>) -> tensor<4x3xf32>
  %tab = tosa.table %x8, %t8 : (tensor<4xi8>, tensor<256xi8>) -> tensor<4xi8>
  %pool = tosa.max_pool2d %p {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  %if = tosa.cond_if %c : tensor<i1> -> tensor<2x3xi32> {
    tosa.yield %m : tensor<2x3xi32>
  } else {
    tosa.yield %r : tensor<2x3xi32>
  }
  return %m, %r, %sum, %pad, %tab, %pool, %if : tensor<2x3xi32>, tensor<2x3xi32>, tensor<1x3xf32>, tensor<4x3xf32>, tensor<4xi8>, tensor<1x2x2x1xf32>, tensor<2x3xi32>
}
