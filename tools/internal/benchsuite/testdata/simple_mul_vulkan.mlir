// Benchmark program of the Vulkan row: simple_mul (x * y, elementwise, over
// n f32 values) dispatched as ceil(n / 4096) workgroups of the shader in
// simple_mul.spv (simple_mul.glsl, built by the suite with glslc; glslc
// names the entry point main), one result allocation and nothing else.

#spirv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {
  spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<max_compute_workgroup_size = [1024, 1024, 64], subgroup_size = 32>>
}>

#device = #hal.device.target<"vulkan", {executable_targets = [#spirv]}>

#layout = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>

module @bench attributes {hal.device.targets = [#device]} {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{
      #spirv = [#hal.executable.object<{path = "simple_mul.spv"}>]
    }>
  } {
    hal.executable.export public @main ordinal(0) layout(#layout) {
    ^bb0(%device: !hal.device, %n: index):
      %groups = affine.apply affine_map<()[s0] -> (s0 ceildiv 4096)>()[%n]
      %one = arith.constant 1 : index
      hal.return %groups, %one, %one : index, index, index
    }
  }

  func.func @simple_mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %product = flow.dispatch @kernels::@main[%n](%n_i32, %lhs, %rhs) {
      hal.interface.bindings = [
        #hal.interface.binding<0, 0>,
        #hal.interface.binding<0, 1>,
        #hal.interface.binding<0, 2>
      ]
    } : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    return %product : tensor<?xf32>
  }
}
