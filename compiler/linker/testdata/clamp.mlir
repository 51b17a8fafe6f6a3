// An anonymous library: exported under its own names; its private @scale
// clashes with the program's.
util.func private @scale() -> f32 {
  %c = arith.constant 0.5 : f32
  util.return %c : f32
}

util.func public @clamp(%x: f32) -> f32 {
  %s = util.call @scale() : () -> f32
  %r = arith.minimumf %x, %s : f32
  util.return %r : f32
}
