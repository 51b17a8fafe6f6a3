// The user's shader of the suite's Vulkan user-program rows, written the
// way a user writes a first compute shader for IREE (as in IREE's
// custom_dispatch samples): one element per invocation, workgroups of 64
// invocations, no vector accesses.
//
//   glslc -fshader-stage=compute user_program.glsl -o user_program.spv
//
// out[i] = lhs[i] * rhs[i] * scale + bias for i < dim; the three push
// constants are the element count and the two f32 scalars as their bits.
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer Lhs { float lhs[]; };
layout(set = 0, binding = 1) readonly buffer Rhs { float rhs[]; };
layout(set = 0, binding = 2) writeonly buffer Out { float out_[]; };

layout(push_constant) uniform PushConstants {
  uint dim;
  uint scale_bits;
  uint bias_bits;
};

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dim) {
    out_[i] = lhs[i] * rhs[i] * uintBitsToFloat(scale_bits) + uintBitsToFloat(bias_bits);
  }
}
