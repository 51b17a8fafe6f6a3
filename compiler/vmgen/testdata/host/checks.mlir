// IREE-style e2e checks on host-made tensors.

func.func @passing() {
  %c = arith.constant 1 : i32
  check.expect_true(%c) : i32
  %z = arith.constant 0 : i32
  check.expect_false(%z) : i32
  %t = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  check.expect_eq_const(%t, dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
  %u = arith.constant dense<[1.00001, 2.0, 3.0]> : tensor<3xf32>
  check.expect_almost_eq(%t, %u) : tensor<3xf32>
  check.expect_almost_eq_const(%u, dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
  %b = arith.constant dense<[1, 7]> : tensor<2xi32>
  check.expect_all_true(%b) : tensor<2xi32>
  return
}

// Two failed expectations: both are reported and the function returns.
func.func @failing() {
  %t = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  check.expect_eq_const(%t, dense<[1, 5, 3]> : tensor<3xi32>) : tensor<3xi32>
  %z = arith.constant 0 : i32
  check.expect_true(%z) : i32
  return
}

// A check on a function argument.
func.func @arg_is(%x: tensor<2xf32>) {
  check.expect_almost_eq_const(%x, dense<[0.5, 0.25]> : tensor<2xf32>, atol 1.0e-2) : tensor<2xf32>
  return
}
