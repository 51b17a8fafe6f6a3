// The custom_dispatch Vulkan sample, in the spelling of IREE's Dec 2022
// samples: simple_mul.glsl and simple_mul_inplace.glsl, compiled to SPIR-V
// by iree_glsl_spirv, dispatched from a program whose elementwise add is
// compiled by us. An external variant holds exactly one object, so each
// shader has its own hal.executable.source; glslc names the entry point
// main, so both exports are @main. The device is declared in the program
// (the seed's #hal.device.target<"vulkan", {executable_targets = ...}>),
// so iree-compile needs no target flag here; example_inline.mlir takes its
// device from --iree-hal-target-device=vulkan instead.
// Computes (a*b + b) * (a*b): 96 for inputs 2 and 4.
//
//   iree-compile example.mlir -o example.vmfb \
//       --iree-hal-executable-object-search-path=bazel-bin/samples/custom_dispatch/vulkan/shaders
//   iree-run-module --device=vulkan --module=example.vmfb \
//       --function=mixed_invocation --input=8xf32=2 --input=8xf32=4

// The seed names the backend "vulkan" (current IREE: "vulkan-spirv"); the
// SPIR-V environment is what the shaders need: SPIR-V 1.3 with storage
// buffers, workgroups of up to 128x128x64.
#spirv_target = #hal.executable.target<"vulkan", "vulkan-spirv-fb", {
  spirv.target_env = #spirv.target_env<
    #spirv.vce<v1.3, [Shader, GroupNonUniform], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_variable_pointers]>,
    #spirv.resource_limits<max_compute_workgroup_size = [128, 128, 64], subgroup_size = 64>
  >
}>

#vulkan_device = #hal.device.target<"vulkan", {
  executable_targets = [#spirv_target],
  legacy_sync
}>

module @example attributes {hal.device.targets = [#vulkan_device]} {

  hal.executable.source private @simple_mul attributes {
    objects = #hal.executable.objects<{
      #spirv_target = [#hal.executable.object<{path = "simple_mul.spv"}>]
    }>
  } {
    hal.executable.export public @main ordinal(0) layout(#hal.pipeline.layout<push_constants = 1, sets = [
      <0, bindings = [
        <0, storage_buffer, ReadOnly>,
        <1, storage_buffer, ReadOnly>,
        <2, storage_buffer>
      ]>
    ]>) {
    ^bb0(%device: !hal.device, %workload: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
  }

  hal.executable.source private @simple_mul_inplace attributes {
    objects = #hal.executable.objects<{
      #spirv_target = [#hal.executable.object<{path = "simple_mul_inplace.spv"}>]
    }>
  } {
    hal.executable.export public @main ordinal(0) layout(#hal.pipeline.layout<push_constants = 1, sets = [
      <0, bindings = [
        <0, storage_buffer, ReadOnly>,
        <1, storage_buffer>
      ]>
    ]>) {
    ^bb0(%device: !hal.device, %workload: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
  }

  func.func @mixed_invocation(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %a, %c0 : tensor<?xf32>
    %dim_i32 = arith.index_cast %dim : index to i32
    // This dispatch spells out its bindings (set 0, bindings 0 and 1 for
    // the operands, 2 for the result); the second one leaves them to be
    // derived from its export's layout.
    %prod = flow.dispatch @simple_mul::@main[%dim](%dim_i32, %a, %b) {
      hal.interface.bindings = [
        #hal.interface.binding<0, 0>,
        #hal.interface.binding<0, 1>,
        #hal.interface.binding<0, 2>
      ]
    } : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    %sum = arith.addf %prod, %b : tensor<?xf32>
    %res = flow.dispatch @simple_mul_inplace::@main[%dim](%dim_i32, %prod, %sum) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %sum{%dim}
    return %res : tensor<?xf32>
  }
}
