// An IREE-style e2e test: the function computes, the check ops compare
// against expected values written in the program.
func.func @softplus_and_counts() {
  %x = util.unfoldable_constant dense<[0.0, 1.0, -1.0, 2.0]> : tensor<4xf32>
  %e = math.exp %x : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %s = arith.addf %e, %one : tensor<4xf32>
  %y = math.log %s : tensor<4xf32>
  check.expect_almost_eq_const(%y, dense<[0.693147, 1.313262, 0.313262, 2.126928]> : tensor<4xf32>, atol 1.0e-05) : tensor<4xf32>
  check.expect_almost_eq(%y, %y, atol 0.0, rtol 1.0e-06) : tensor<4xf32>
  %n = util.unfoldable_constant dense<[3, 1, 2]> : tensor<3xi32>
  check.expect_eq_const(%n, dense<[3, 1, 2]> : tensor<3xi32>) : tensor<3xi32>
  check.expect_eq(%n, %n) : tensor<3xi32>
  %t = arith.constant 1 : i32
  check.expect_true(%t) : i32
  %f = arith.constant 0 : i32
  check.expect_false(%f) : i32
  %mask = util.unfoldable_constant dense<[1, 1]> : tensor<2xi8>
  check.expect_all_true(%mask) : tensor<2xi8>
  return
}
