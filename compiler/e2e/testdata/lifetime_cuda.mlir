// The lifetime tests' program on CUDA: lifetime.cu (built by the test
// with clang-16 into lifetime_sm_80.ptx) and generated PTX for the
// elementwise ops.
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#device = #hal.device.target<"cuda", {executable_targets = [#sm_80], legacy_sync}>

#layout_3 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>
#layout_2 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer>]>
]>

module @lifetime attributes {hal.device.targets = [#device]} {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{#sm_80 = [#hal.executable.object<{path = "lifetime_sm_80.ptx"}>]}>
  } {
    hal.executable.export public @lifetime_mul ordinal(0) layout(#layout_3) attributes {
      workgroup_size = [64 : index, 1 : index, 1 : index]
    } {
    ^bb0(%device: !hal.device, %n: index):
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %tiles, %one, %one : index, index, index
    }
    hal.executable.export public @lifetime_mul_inplace ordinal(1) layout(#layout_2) attributes {
      workgroup_size = [64 : index, 1 : index, 1 : index]
    } {
    ^bb0(%device: !hal.device, %n: index):
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %tiles, %one, %one : index, index, index
    }
  }

  // step(a, b) = (a*b + b) * (a*b) - a, as in lifetime_cpu.mlir.
  func.func @step(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %prod = flow.dispatch @kernels::@lifetime_mul[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %sum = arith.addf %prod, %b : tensor<?xf32>
    %res = flow.dispatch @kernels::@lifetime_mul_inplace[%n](%n_i32, %prod, %sum) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %sum{%n}
    %out = arith.subf %res, %a : tensor<?xf32>
    return %out : tensor<?xf32>
  }
}
