// A Vulkan dispatch whose object is a GLSL source, compiled to SPIR-V by
// the compiler: result = a * b + 1, then + b by generated code.

#spirv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">
#device = #hal.device.target<"vulkan", {executable_targets = [#spirv]}>

module @vulkan_source attributes {hal.device.targets = [#device]} {
  hal.executable.source private @fma attributes {
    objects = #hal.executable.objects<{#spirv = [#hal.executable.object<{path = "fma.glsl"}>]}>
  } {
    hal.executable.export public @main ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [
      #hal.pipeline.binding<storage_buffer, ReadOnly>,
      #hal.pipeline.binding<storage_buffer, ReadOnly>,
      #hal.pipeline.binding<storage_buffer>
    ]>) {
    ^bb0(%device: !hal.device, %n: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
  }

  func.func @run(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %fma = flow.dispatch @fma::@main[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %sum = arith.addf %fma, %b : tensor<?xf32>
    return %sum : tensor<?xf32>
  }
}
