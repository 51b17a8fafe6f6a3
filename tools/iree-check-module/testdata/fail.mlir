// Each test breaks the checks it names; the test file compares the whole
// messages. Expected values computed with NumPy, as in pass.mlir.
module @failing {

func.func @two_failures() {
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = arith.addf %x, %x : tensor<4xf32>
  check.expect_almost_eq_const(%y, dense<[2.0, 4.0, 6.5, 8.0]> : tensor<4xf32>) : tensor<4xf32>
  %i = arith.constant dense<[7, 8]> : tensor<2xi32>
  %j = arith.addi %i, %i : tensor<2xi32>
  check.expect_eq_const(%j, dense<[14, 15]> : tensor<2xi32>) : tensor<2xi32>
  return
}

func.func @passes() {
  %one = arith.constant 1 : i32
  check.expect_true(%one) : i32
  return
}

func.func @scalar() {
  %one = arith.constant 1 : i32
  %zero = arith.subi %one, %one : i32
  check.expect_true(%zero) : i32
  return
}

}
