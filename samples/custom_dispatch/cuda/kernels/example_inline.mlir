// The custom_dispatch CUDA sample written inline: instead of an executable
// declared beside the function, each hal.dispatch.extern names its kernel,
// layout, workgroup count and per-architecture PTX where it is used, and
// the compiler outlines an executable for it with one variant per target
// listed (sm_52, sm_80, sm_90; the runtime loads the newest one the GPU
// can run). The program declares no device: iree-compile takes it from
// --iree-hal-target-device=cuda (IREE's current flag; the older
// --iree-hal-target-backends=cuda is the same choice), which also decides
// where the generated add runs. Same kernels and result as example.mlir:
// (a*b + b) * (a*b), 96 for inputs 2 and 4.
//
//   iree-compile example_inline.mlir -o example_inline.vmfb \
//       --iree-hal-target-device=cuda \
//       --iree-hal-executable-object-search-path=bazel-bin/samples/custom_dispatch/cuda/kernels
//   iree-run-module --device=cuda --module=example_inline.vmfb \
//       --function=mixed_invocation --input=8xf32=2 --input=8xf32=4

#sm_52 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_52"}>
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#sm_90 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_90"}>

module @example_inline {
  func.func @mixed_invocation(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %a, %c0 : tensor<?xf32>
    %dim_i32 = arith.index_cast %dim : index to i32

    // prod = a * b, by the simple_mul entry of each PTX file.
    %prod = hal.dispatch.extern "simple_mul"[%dim](%dim_i32, %a, %b) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %blocks = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %blocks, %c1, %c1 : index, index, index
      }
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({
        #sm_52 ordinal(0) = [#hal.executable.object<{path = "kernels_sm_52.ptx"}>],
        #sm_80 ordinal(0) = [#hal.executable.object<{path = "kernels_sm_80.ptx"}>],
        #sm_90 ordinal(0) = [#hal.executable.object<{path = "kernels_sm_90.ptx"}>]
      })
      attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}

    %sum = arith.addf %prod, %b : tensor<?xf32>

    // sum *= prod in place: the result is tied to the operand %sum.
    %res = hal.dispatch.extern "simple_mul_inplace"[%dim](%dim_i32, %prod, %sum) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %sum{%dim}
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %blocks = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %blocks, %c1, %c1 : index, index, index
      }
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({
        #sm_52 ordinal(0) = [#hal.executable.object<{path = "kernels_sm_52.ptx"}>],
        #sm_80 ordinal(0) = [#hal.executable.object<{path = "kernels_sm_80.ptx"}>],
        #sm_90 ordinal(0) = [#hal.executable.object<{path = "kernels_sm_90.ptx"}>]
      })
      attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    return %res : tensor<?xf32>
  }
}
