// A named library another library calls into.
module @bounds {
  util.func public @unit(%x: f32) -> f32 {
    %one = arith.constant 1.0 : f32
    %r = arith.minimumf %x, %one : f32
    util.return %r : f32
  }
}
