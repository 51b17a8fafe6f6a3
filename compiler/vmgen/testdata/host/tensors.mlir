// flow.tensor ops on the host: element loads and stores, views under new
// shapes and element types, splats, clones and constants.

// Sums a 2x3 matrix element by element on the host.
func.func @sum2d(%x: tensor<2x3xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %zero) -> (f32) {
    %row = scf.for %j = %c0 to %c3 step %c1 iter_args(%b = %a) -> (f32) {
      %v = flow.tensor.load %x[%i, %j] : tensor<2x3xf32>
      %s = arith.addf %b, %v : f32
      scf.yield %s : f32
    }
    scf.yield %row : f32
  }
  return %r : f32
}

// Stores v at i: the argument belongs to the caller, so the store goes to
// a copy and both are returned.
func.func @poke(%x: tensor<?xi32>, %i: index, %v: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xi32>
  %y = flow.tensor.store %v, %x[%i] : tensor<?xi32>{%n}
  return %x, %y : tensor<?xi32>, tensor<?xi32>
}

// A splat of n i16 values, then element 0 set to v + 1 in place.
func.func @build(%n: index, %v: i16) -> tensor<?xi16> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i16
  %s = flow.tensor.splat %v : tensor<?xi16>{%n}
  %w = arith.addi %v, %one : i16
  %t = flow.tensor.store %w, %s[%c0] : tensor<?xi16>{%n}
  return %t : tensor<?xi16>
}

// The same bytes as 3x2 f32 and as 6 i32.
func.func @views(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xi32>) {
  %r = flow.tensor.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %f = flow.tensor.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %b = flow.tensor.bitcast %f : tensor<6xf32> -> tensor<6xi32>
  return %r, %b : tensor<3x2xf32>, tensor<6xi32>
}

// 8-byte elements: loads of x[1] and y[1], and a clone of x with x[1]
// stored at 2.
func.func @wide(%x: tensor<3xi64>, %y: tensor<2xf64>) -> (i64, f64, tensor<3xi64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = flow.tensor.load %x[%c1] : tensor<3xi64>
  %b = flow.tensor.load %y[%c1] : tensor<2xf64>
  %c = flow.tensor.clone %x : tensor<3xi64>
  %d = flow.tensor.store %a, %c[%c2] : tensor<3xi64>
  return %a, %b, %d : i64, f64, tensor<3xi64>
}

// A constant and an element of it.
func.func @consts(%i: index) -> (tensor<2x2xi8>, i8) {
  %c0 = arith.constant 0 : index
  %k = flow.tensor.constant dense<[[1, -2], [3, -4]]> : tensor<2x2xi8>
  %e = flow.tensor.load %k[%i, %c0] : tensor<2x2xi8>
  return %k, %e : tensor<2x2xi8>, i8
}

// Picks x or y by c: a select of tensors with a scalar condition.
func.func @pick(%c: i1, %x: tensor<?xi32>, %y: tensor<?xi32>) -> (tensor<?xi32>, i32) {
  %c0 = arith.constant 0 : index
  %t = arith.select %c, %x, %y : tensor<?xi32>
  %n = tensor.dim %t, %c0 : tensor<?xi32>
  %e = flow.tensor.load %t[%c0] : tensor<?xi32>{%n}
  return %t, %e : tensor<?xi32>, i32
}

// Splats of 8-byte elements (wider than a fill pattern), of n elements.
func.func @splat_wide(%n: index, %v: i64, %d: f64) -> (tensor<?xi64>, tensor<?xf64>) {
  %a = flow.tensor.splat %v : tensor<?xi64>{%n}
  %b = flow.tensor.splat %d : tensor<?xf64>{%n}
  return %a, %b : tensor<?xi64>, tensor<?xf64>
}

// Swaps two tensors n times around a loop: the back edge passes the
// header's tensor arguments to each other (a parallel copy of refs).
func.func @swap_n(%x: tensor<2xi32>, %y: tensor<3xi32>, %n: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2i = arith.constant 2 : index
  %c3i = arith.constant 3 : index
  %a0 = flow.tensor.reshape %x : tensor<2xi32> -> tensor<?xi32>{%c2i}
  %b0 = flow.tensor.reshape %y : tensor<3xi32> -> tensor<?xi32>{%c3i}
  cf.br ^loop(%a0, %b0, %c0 : tensor<?xi32>, tensor<?xi32>, i32)
^loop(%a: tensor<?xi32>, %b: tensor<?xi32>, %k: i32):
  %more = arith.cmpi slt, %k, %n : i32
  %k1 = arith.addi %k, %c1 : i32
  cf.cond_br %more, ^loop(%b, %a, %k1 : tensor<?xi32>, tensor<?xi32>, i32), ^done
^done:
  return %a, %b : tensor<?xi32>, tensor<?xi32>
}
