// Module globals: a scalar counter, scalars and tensors set by initial
// values and by an initializer, and a mutable tensor global replaced by
// each call.

util.global private mutable @counter = 0 : i32
util.global private @scale : f32
util.global private mutable @saved = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
util.global private @table : tensor<2x2xi32>
util.global private @wide = 12345678901 : i64

util.initializer {
  %c = arith.constant 2.5 : f32
  util.global.store %c, @scale : f32
  %t = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  util.global.store %t, @table : tensor<2x2xi32>
  util.return
}

// Increments the counter and returns the new value.
func.func @next() -> i32 {
  %v = util.global.load @counter : i32
  %one = arith.constant 1 : i32
  %n = arith.addi %v, %one : i32
  util.global.store %n, @counter : i32
  return %n : i32
}

func.func @scalars() -> (f32, i64) {
  %s = util.global.load @scale : f32
  %w = util.global.load @wide : i64
  return %s, %w : f32, i64
}

// Stores x and returns what was stored before.
func.func @swap(%x: tensor<3xf32>) -> tensor<3xf32> {
  %old = util.global.load @saved : tensor<3xf32>
  util.global.store %x, @saved : tensor<3xf32>
  return %old : tensor<3xf32>
}

func.func @get_table() -> tensor<2x2xi32> {
  %t = util.global.load @table : tensor<2x2xi32>
  %b = util.optimization_barrier %t : tensor<2x2xi32>
  return %b : tensor<2x2xi32>
}
