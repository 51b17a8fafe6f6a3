// One program for two GPU generations. The hand-written kernels
// (kernels.cu, built by clang-16 once per architecture) come as one PTX
// object per sm_XX, and the compiler generates a variant per sm_XX for the
// elementwise code between them (and for @specials, whose maximumf,
// minimumf and tanh have no single instruction before sm_80 and sm_75).
// The module carries both images; the runtime loads the newest one the
// device runs. mul_add_mul computes (x*y + y) * (x*y).
#maxwell = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_52"}>
#ampere = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#gpu = #hal.device.target<"cuda", [#maxwell, #ampere]> : !hal.device

module @multi_arch attributes {hal.device.targets = [#gpu]} {
  hal.executable.source private @kernels attributes {
    // Each architecture links its own build of the kernels.
    objects = #hal.executable.objects<{
      #maxwell = [#hal.executable.object<{path = "kernels_sm_52.ptx"}>],
      #ampere = [#hal.executable.object<{path = "kernels_sm_80.ptx"}>]
    }>
  } {
    // out = lhs * rhs over n elements, 64 threads a block.
    hal.executable.export public @simple_mul ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%dev: !hal.device, %n: index) -> (index, index, index) {
      %blocks = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %blocks, %one, %one : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}

    // rhs *= lhs in place.
    hal.executable.export public @simple_mul_inplace ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%dev: !hal.device, %n: index) -> (index, index, index) {
      %blocks = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %blocks, %one, %one : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
  }

  func.func @mul_add_mul(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %n32 = arith.index_cast %n : index to i32
    %p = flow.dispatch @kernels::@simple_mul[%n](%n32, %x, %y) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %s = arith.addf %p, %y : tensor<?xf32>
    %r = flow.dispatch @kernels::@simple_mul_inplace[%n](%n32, %p, %s) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %s{%n}
    return %r : tensor<?xf32>
  }

  func.func @specials(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
    %max = arith.maximumf %a, %b : tensor<?xf32>
    %min = arith.minimumf %a, %b : tensor<?xf32>
    %t = math.tanh %a : tensor<?xf32>
    return %max, %min, %t : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  }
}
