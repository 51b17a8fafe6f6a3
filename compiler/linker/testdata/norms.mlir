// A named library: its public functions are exported as @norms.<name>;
// l2 uses a private helper, another public function of the library, a
// global, an executable and a function of another library.
module @norms {
  util.func private @bounds.unit(%x: f32) -> f32
  util.global private @eps = 1.0e-06 : f32

  hal.executable.source private @square {
    hal.executable.export public @square ordinal(0)
        layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
  }

  util.func private @scale() -> f32 {
    %e = util.global.load @eps : f32
    util.return %e : f32
  }

  util.func public @sum(%x: f32) -> f32 {
    %u = util.call @bounds.unit(%x) : (f32) -> f32
    util.return %u : f32
  }

  util.func public @l2(%x: tensor<8xf32>) -> tensor<8xf32> {
    %s = util.call @scale() : () -> f32
    %t = util.call @sum(%s) : (f32) -> f32
    %0 = flow.dispatch @square::@square(%x) : (tensor<8xf32>) -> tensor<8xf32>
    util.return %0 : tensor<8xf32>
  }
}
