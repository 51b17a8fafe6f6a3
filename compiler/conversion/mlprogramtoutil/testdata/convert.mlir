// Module state as JAX and torch-mlir write it: a mutable counter, a
// constant table read with global_load_const, stores and loads.
module {
  ml_program.global private mutable @counter(dense<2.0> : tensor<f32>): tensor<f32>
  ml_program.global private @scale(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>

  func.func @get_state() -> tensor<f32> {
    %0 = ml_program.global_load @counter : tensor<f32>
    return %0 : tensor<f32>
  }

  func.func @inc() -> tensor<f32> {
    %0 = ml_program.global_load @counter : tensor<f32>
    %c1 = arith.constant dense<1.0> : tensor<f32>
    %1 = arith.addf %0, %c1 : tensor<f32>
    ml_program.global_store @counter = %1 : tensor<f32>
    %2 = ml_program.global_load @counter : tensor<f32>
    return %2 : tensor<f32>
  }

  func.func @scaled(%x: tensor<2xf32>) -> tensor<2xf32> {
    %s = ml_program.global_load_const @scale : tensor<2xf32>
    %r = arith.mulf %x, %s : tensor<2xf32>
    return %r : tensor<2xf32>
  }
}
