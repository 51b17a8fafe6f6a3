// Benchmark program of the CUDA rows: simple_mul (x * y, elementwise, over
// n f32 values) dispatched as ceil(n / 1024) blocks of 256 threads of the
// kernel simple_mul from simple_mul_sm_90.ptx (simple_mul.cu, built by the
// suite with clang; one float4 per thread), one result allocation and
// nothing else; simple_mul_x4 dispatches the four-float4s-per-thread
// variant (ceil(n / 4096) blocks) over the same buffers.

#sm_90 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_90"}>

#device = #hal.device.target<"cuda", {executable_targets = [#sm_90]}>

#layout = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>

module @bench attributes {hal.device.targets = [#device]} {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{
      #sm_90 = [#hal.executable.object<{path = "simple_mul_sm_90.ptx"}>]
    }>
  } {
    hal.executable.export public @simple_mul ordinal(0) layout(#layout) attributes {
      workgroup_size = [256 : index, 1 : index, 1 : index]
    } {
    ^bb0(%device: !hal.device, %n: index):
      %blocks = affine.apply affine_map<()[s0] -> (s0 ceildiv 1024)>()[%n]
      %one = arith.constant 1 : index
      hal.return %blocks, %one, %one : index, index, index
    }
    hal.executable.export public @simple_mul_x4 ordinal(1) layout(#layout) attributes {
      workgroup_size = [256 : index, 1 : index, 1 : index]
    } {
    ^bb0(%device: !hal.device, %n: index):
      %blocks = affine.apply affine_map<()[s0] -> (s0 ceildiv 4096)>()[%n]
      %one = arith.constant 1 : index
      hal.return %blocks, %one, %one : index, index, index
    }
  }

  func.func @simple_mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %product = flow.dispatch @kernels::@simple_mul[%n](%n_i32, %lhs, %rhs) {
      hal.interface.bindings = [
        #hal.interface.binding<0, 0>,
        #hal.interface.binding<0, 1>,
        #hal.interface.binding<0, 2>
      ]
    } : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    return %product : tensor<?xf32>
  }

  func.func @simple_mul_x4(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %product = flow.dispatch @kernels::@simple_mul_x4[%n](%n_i32, %lhs, %rhs) {
      hal.interface.bindings = [
        #hal.interface.binding<0, 0>,
        #hal.interface.binding<0, 1>,
        #hal.interface.binding<0, 2>
      ]
    } : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    return %product : tensor<?xf32>
  }
}
