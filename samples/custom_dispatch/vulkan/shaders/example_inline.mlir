// The custom_dispatch Vulkan sample written inline, in the spelling of
// current IREE: each hal.dispatch.extern names its shader's entry point,
// layout, workgroup count and SPIR-V object where it is used, and the
// compiler outlines an executable for it. The program declares no device:
// iree-compile takes it from --iree-hal-target-device=vulkan (IREE's
// current flag; the older --iree-hal-target-backends=vulkan-spirv is the
// same choice), which also decides where the generated add runs. Same
// shaders and result as example.mlir: (a*b + b) * (a*b), 96 for inputs 2
// and 4.
//
//   iree-compile example_inline.mlir -o example_inline.vmfb \
//       --iree-hal-target-device=vulkan \
//       --iree-hal-executable-object-search-path=bazel-bin/samples/custom_dispatch/vulkan/shaders
//   iree-run-module --device=vulkan --module=example_inline.vmfb \
//       --function=mixed_invocation --input=8xf32=2 --input=8xf32=4

// A generic SPIR-V target: it matches the device's default target, and the
// compiler checks each object against the layout (entry point, bindings,
// push constants) rather than against a declared environment.
#spirv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

module @example_inline {
  func.func @mixed_invocation(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %a, %c0 : tensor<?xf32>
    // The shaders' push constant is a 32-bit count.
    %dim_i32 = arith.index_cast %dim : index to i32

    // prod = a * b: main of simple_mul.spv, 64 invocations a workgroup.
    %prod = hal.dispatch.extern "main"[%dim](%dim_i32, %a, %b) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %groups = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %groups, %c1, %c1 : index, index, index
      }
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({
        #spirv ordinal(0) = [#hal.executable.object<{path = "simple_mul.spv"}>]
      })

    %sum = arith.addf %prod, %b : tensor<?xf32>

    // sum *= prod in place (the result is tied to %sum): main of
    // simple_mul_inplace.spv.
    %res = hal.dispatch.extern "main"[%dim](%dim_i32, %prod, %sum) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %sum{%dim}
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %groups = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %groups, %c1, %c1 : index, index, index
      }
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({
        #spirv ordinal(0) = [#hal.executable.object<{path = "simple_mul_inplace.spv"}>]
      })
    return %res : tensor<?xf32>
  }
}
