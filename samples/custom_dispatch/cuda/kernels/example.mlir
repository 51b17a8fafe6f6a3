// The custom_dispatch CUDA sample: kernels.cu, compiled to PTX per GPU
// architecture by iree_cuda_ptx (kernels_sm_80.ptx, kernels_sm_90.ptx),
// dispatched from a program whose elementwise add is compiled by us.
// A hal.executable.source holds only the exports; its objects map gives
// one PTX file per target, so the compiler materialises one external
// variant per architecture and the runtime picks the one the GPU can run.
// Computes (a*b + b) * (a*b): 96 for inputs 2 and 4.
//
//   iree-compile example.mlir -o example.vmfb \
//       --iree-hal-executable-object-search-path=bazel-bin/samples/custom_dispatch/cuda/kernels
//   iree-run-module --device=cuda --module=example.vmfb \
//       --function=mixed_invocation --input=8xf32=2 --input=8xf32=4

#sm_80_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#sm_90_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_90"}>

#cuda_device = #hal.device.target<"cuda", {
  executable_targets = [#sm_80_target, #sm_90_target],
  legacy_sync
}>

#mul_layout = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [
    <0, storage_buffer, ReadOnly>,
    <1, storage_buffer, ReadOnly>,
    <2, storage_buffer>
  ]>
]>
#inplace_layout = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [
    <0, storage_buffer, ReadOnly>,
    <1, storage_buffer>
  ]>
]>

module @example attributes {hal.device.targets = [#cuda_device]} {

  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #sm_80_target = [#hal.executable.object<{path = "kernels_sm_80.ptx"}>],
      #sm_90_target = [#hal.executable.object<{path = "kernels_sm_90.ptx"}>]
    }>
  } {
    hal.executable.export public @simple_mul ordinal(0) layout(#mul_layout) attributes {
      workgroup_size = [64 : index, 1 : index, 1 : index]
    } {
    ^bb0(%device: !hal.device, %workload: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
    hal.executable.export public @simple_mul_inplace ordinal(1) layout(#inplace_layout) attributes {
      workgroup_size = [64 : index, 1 : index, 1 : index]
    } {
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
    %prod = flow.dispatch @executable::@simple_mul[%dim](%dim_i32, %a, %b) {
      hal.interface.bindings = [
        #hal.interface.binding<0, 0>,
        #hal.interface.binding<0, 1>,
        #hal.interface.binding<0, 2>
      ]
    } : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    %sum = arith.addf %prod, %b : tensor<?xf32>
    %res = flow.dispatch @executable::@simple_mul_inplace[%dim](%dim_i32, %prod, %sum) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %sum{%dim}
    return %res : tensor<?xf32>
  }
}
