// The lifetime tests' program on Vulkan: lifetime_mul.glsl and
// lifetime_mul_inplace.glsl (built by the test with glslc) and generated
// SPIR-V for the elementwise ops.
#spirv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">
#device = #hal.device.target<"vulkan", {executable_targets = [#spirv]}>

#layout_3 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>
#layout_2 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer>]>
]>

module @lifetime attributes {hal.device.targets = [#device]} {
  hal.executable.source private @mul attributes {
    objects = #hal.executable.objects<{#spirv = [#hal.executable.object<{path = "lifetime_mul.spv"}>]}>
  } {
    hal.executable.export public @main ordinal(0) layout(#layout_3) {
    ^bb0(%device: !hal.device, %n: index):
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %tiles, %one, %one : index, index, index
    }
  }
  hal.executable.source private @mul_inplace attributes {
    objects = #hal.executable.objects<{#spirv = [#hal.executable.object<{path = "lifetime_mul_inplace.spv"}>]}>
  } {
    hal.executable.export public @main ordinal(0) layout(#layout_2) {
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
    %prod = flow.dispatch @mul::@main[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %sum = arith.addf %prod, %b : tensor<?xf32>
    %res = flow.dispatch @mul_inplace::@main[%n](%n_i32, %prod, %sum) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %sum{%n}
    %out = arith.subf %res, %a : tensor<?xf32>
    return %out : tensor<?xf32>
  }
}
