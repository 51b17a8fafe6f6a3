// A program taking @norms.l2 from a named library, @clamp from an
// anonymous one, and keeping a private @scale of its own.
util.func private @norms.l2(%x: tensor<8xf32>) -> tensor<8xf32>
util.func private @clamp(%x: f32) -> f32
util.func private @missing.fn(%x: i32) -> i32

util.func private @scale() -> f32 {
  %c = arith.constant 10.0 : f32
  util.return %c : f32
}

util.func public @main(%x: tensor<8xf32>, %y: f32) -> (tensor<8xf32>, f32, f32) {
  %0 = util.call @norms.l2(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = util.call @clamp(%y) : (f32) -> f32
  %2 = util.call @scale() : () -> f32
  util.return %0, %1, %2 : tensor<8xf32>, f32, f32
}
