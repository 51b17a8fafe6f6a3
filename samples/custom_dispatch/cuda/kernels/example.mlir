// The custom_dispatch CUDA sample, in the spelling of current IREE:
// kernels.cu, compiled to PTX once per GPU architecture by iree_cuda_ptx
// (kernels_sm_52.ptx, kernels_sm_80.ptx, kernels_sm_90.ptx), dispatched
// from a program whose elementwise add is compiled by us.
//
// A hal.executable.source holds only the exports; its objects map gives
// one PTX file per target, so the compiler makes one variant per
// architecture and the runtime loads the newest one the GPU can run
// (iree-run-module -v=1 names it): sm_52 on Maxwell, sm_80 on Ampere,
// sm_90 on Hopper. The device and its three targets are declared in the
// program, so iree-compile needs no target flag here (example_inline.mlir
// takes its device from --iree-hal-target-device=cuda instead).
// Computes (a*b + b) * (a*b): 96 for inputs 2 and 4.
//
//   iree-compile example.mlir -o example.vmfb \
//       --iree-hal-executable-object-search-path=bazel-bin/samples/custom_dispatch/cuda/kernels
//   iree-run-module --device=cuda --module=example.vmfb \
//       --function=mixed_invocation --input=8xf32=2 --input=8xf32=4

#sm_52 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {
  target_arch = "sm_52"
}>
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {
  target_arch = "sm_80"
}>
#sm_90 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {
  target_arch = "sm_90"
}>

// The CUDA device, its executable targets oldest first, as a typed value.
#cuda_device = #hal.device.target<"cuda", [
  #sm_52,
  #sm_80,
  #sm_90
]> : !hal.device

// Bindings in order, then one 32-bit constant (the element count): the
// parameters of the kernels in kernels.cu.
#mul_layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
#inplace_layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

module @example attributes {hal.device.targets = [#cuda_device]} {

  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #sm_52 = [#hal.executable.object<{path = "kernels_sm_52.ptx"}>],
      #sm_80 = [#hal.executable.object<{path = "kernels_sm_80.ptx"}>],
      #sm_90 = [#hal.executable.object<{path = "kernels_sm_90.ptx"}>]
    }>
  } {
    // Blocks of 64 threads, ceildiv(n, 64) blocks; the kernels guard the
    // partial last block.
    hal.executable.export public @simple_mul ordinal(0) layout(#mul_layout)
        count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %blocks = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %blocks, %c1, %c1 : index, index, index
    } attributes {
      workgroup_size = [64 : index, 1 : index, 1 : index]
    }
    hal.executable.export public @simple_mul_inplace ordinal(1) layout(#inplace_layout)
        count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %blocks = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %blocks, %c1, %c1 : index, index, index
    } attributes {
      workgroup_size = [64 : index, 1 : index, 1 : index]
    }
  }

  func.func @mixed_invocation(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %a, %c0 : tensor<?xf32>
    // Hand-written kernels take their scalars as 32-bit values.
    %dim_i32 = arith.index_cast %dim : index to i32
    %prod = flow.dispatch @executable::@simple_mul[%dim](%dim_i32, %a, %b) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    %sum = arith.addf %prod, %b : tensor<?xf32>
    %res = flow.dispatch @executable::@simple_mul_inplace[%dim](%dim_i32, %prod, %sum) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %sum{%dim}
    return %res : tensor<?xf32>
  }
}
