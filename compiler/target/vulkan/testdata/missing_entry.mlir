// The Vulkan sample with a mistake: the first export is called
// @simple_mul, but simple_mul.spv's only entry point is "main". The
// compiler must reject it, naming the export and the entry points the
// object has.

#spirv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">
#device = #hal.device.target<"vulkan", {executable_targets = [#spirv]}>

#layout_3 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>
#layout_2 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer>]>
]>

module @vulkan_sample attributes {hal.device.targets = [#device]} {
  hal.executable.source private @simple_mul attributes {
    objects = #hal.executable.objects<{
      #spirv = [#hal.executable.object<{path = "simple_mul.spv"}>]
    }>
  } {
    hal.executable.export public @simple_mul ordinal(0) layout(#layout_3) {
    ^bb0(%device: !hal.device, %n: index):
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %tiles, %one, %one : index, index, index
    }
  }
  hal.executable.source private @simple_mul_inplace attributes {
    objects = #hal.executable.objects<{
      #spirv = [#hal.executable.object<{path = "simple_mul_inplace.spv"}>]
    }>
  } {
    hal.executable.export public @main ordinal(0) layout(#layout_2) {
    ^bb0(%device: !hal.device, %n: index):
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %tiles, %one, %one : index, index, index
    }
  }

  func.func @mixed_invocation(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %product = flow.dispatch @simple_mul::@simple_mul[%n](%n_i32, %lhs, %rhs) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %sum = arith.addf %product, %rhs : tensor<?xf32>
    %result = flow.dispatch @simple_mul_inplace::@main[%n](%n_i32, %product, %sum) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %sum{%n}
    return %result : tensor<?xf32>
  }
}
