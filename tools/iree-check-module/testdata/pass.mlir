// Every check here holds. The expected values were computed with NumPy
// (float32 and int32 arithmetic, int32 products wrapping), not by goiree.

func.func @matmul() {
  %a = arith.constant dense<[[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[[2.0, 1.0], [-0.5, 3.0], [1.0, 0.25]]> : tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%c, dense<[[7.25, -3.6875], [-2.0, 12.25]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @fma_f32() {
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = arith.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %p = arith.mulf %x, %y : tensor<4xf32>
  %s = arith.addf %p, %x : tensor<4xf32>
  check.expect_almost_eq_const(%s, dense<[1.1, 2.4, 3.9, 5.6]> : tensor<4xf32>, atol 1.0e-6) : tensor<4xf32>
  return
}

func.func @mul_i32_wraps() {
  %i = arith.constant dense<[3, -7, 100000, 1073741824]> : tensor<4xi32>
  %j = arith.constant dense<[5, 6, -30000, 4]> : tensor<4xi32>
  %p = arith.muli %i, %j : tensor<4xi32>
  check.expect_eq_const(%p, dense<[15, -42, 1294967296, 0]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @eq_two_computed() {
  %i = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %a = arith.addi %i, %i : tensor<3xi32>
  %two = arith.constant dense<2> : tensor<3xi32>
  %b = arith.muli %i, %two : tensor<3xi32>
  check.expect_eq(%a, %b) : tensor<3xi32>
  return
}

func.func @all_true() {
  %i = arith.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  %a = arith.addi %i, %i : tensor<2x2xi32>
  check.expect_all_true(%a) : tensor<2x2xi32>
  return
}

func.func @scalars() {
  %one = arith.constant 1 : i32
  %two = arith.addi %one, %one : i32
  %zero = arith.subi %two, %two : i32
  check.expect_true(%two) : i32
  check.expect_false(%zero) : i32
  return
}
