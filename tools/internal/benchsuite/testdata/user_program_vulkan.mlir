// Program of the suite's vulkan/user-program rows, written as a user writes
// one (IREE's custom_dispatch mixed_invocation shape): the user's scalar
// shader from user_program.spv (user_program.glsl; glslc names the entry
// point main), one element per invocation in workgroups of 64, with three
// push constants, followed by elementwise ops that the compiler generates
// code for:
//
//   p = lhs * rhs * 0.5 + 1     (the user's shader)
//   r = (p + rhs) * p           (generated)
//
// With lhs = 2 and rhs = 4: p = 5, r = 45.

#spirv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

#device = #hal.device.target<"vulkan", {executable_targets = [#spirv]}>

#layout = #hal.pipeline.layout<push_constants = 3, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>

module @user_program attributes {hal.device.targets = [#device]} {
  hal.executable.source private @scaled_mul attributes {
    objects = #hal.executable.objects<{
      #spirv = [#hal.executable.object<{path = "user_program.spv"}>]
    }>
  } {
    hal.executable.export public @main ordinal(0) layout(#layout) {
    ^bb0(%device: !hal.device, %n: index):
      %groups = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %groups, %one, %one : index, index, index
    }
  }

  func.func @user_program(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    // The scalars 0.5 and 1.0 as f32 bits (0x3F000000, 0x3F800000): host
    // code has no arith.bitcast here.
    %scale_i32 = arith.constant 1056964608 : i32
    %bias_i32 = arith.constant 1065353216 : i32
    %p = flow.dispatch @scaled_mul::@main[%n](%n_i32, %scale_i32, %bias_i32, %lhs, %rhs) : (i32, i32, i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %s = arith.addf %p, %rhs : tensor<?xf32>
    %r = arith.mulf %s, %p : tensor<?xf32>
    return %r : tensor<?xf32>
  }
}
