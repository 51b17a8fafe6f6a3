// Calls, globals and checks around device work.
#id = affine_map<(d0) -> (d0)>

// The running total: every call to @accumulate adds its input to it.
util.global private mutable @total = dense<0.0> : tensor<4xf32>

// A private helper with a dispatch: a + b.
func.func private @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// total += x; returns the new total (a later call sees what an earlier
// one stored).
func.func @accumulate(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = util.global.load @total : tensor<4xf32>
  %n = call @add(%t, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  util.global.store %n, @total : tensor<4xf32>
  return %n : tensor<4xf32>
}

// A call chain: 4x through two calls of @double, each calling @add.
func.func private @double(%a: tensor<4xf32>) -> tensor<4xf32> {
  %d = call @add(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

func.func @quadruple(%a: tensor<4xf32>) -> tensor<4xf32> {
  %d = call @double(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %q = call @double(%d) : (tensor<4xf32>) -> tensor<4xf32>
  return %q : tensor<4xf32>
}

// An IREE-style test function: checks on results computed on the device.
func.func @check_quadruple() {
  %a = util.unfoldable_constant dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf32>
  %q = call @quadruple(%a) : (tensor<4xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%q, dense<[4.0, -8.0, 2.0, 12.0]> : tensor<4xf32>) : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %q[%c0] : tensor<4xf32>
  %four = arith.constant 4.0 : f32
  %ok = arith.cmpf oeq, %e, %four : f32
  %oki = arith.extui %ok : i1 to i32
  check.expect_true(%oki) : i32
  return
}
