// A CUDA dispatch whose object is a .cu source: the compiler builds PTX
// for each target's architecture (sm_52 and sm_80 variants).

#sm_52 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_52"}>
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#device = #hal.device.target<"cuda", {executable_targets = [#sm_52, #sm_80]}>

module @cuda_source attributes {hal.device.targets = [#device]} {
  hal.executable.source private @axpy attributes {
    objects = #hal.executable.objects<{
      #sm_52 = [#hal.executable.object<{path = "axpy.cu"}>],
      #sm_80 = [#hal.executable.object<{path = "axpy.cu"}>]
    }>
  } {
    hal.executable.export public @axpy ordinal(0) layout(#hal.pipeline.layout<constants = 2, bindings = [
      #hal.pipeline.binding<storage_buffer, ReadOnly>,
      #hal.pipeline.binding<storage_buffer>
    ]>) attributes {workgroup_size = [64 : index, 1 : index, 1 : index]} {
    ^bb0(%device: !hal.device, %n: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
  }

  func.func @run(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %alpha = arith.constant 3.0 : f32
    %r = flow.dispatch @axpy::@axpy[%n](%alpha, %n_i32, %x, %y) : (f32, i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %y{%n}
    return %r : tensor<?xf32>
  }
}
