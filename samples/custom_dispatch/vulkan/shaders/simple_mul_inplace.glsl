// simple_mul_inplace: inout[i] *= lhs[i] for i < dim, one invocation per
// element in workgroups of 64. Bindings are set 0: 0 the read-only input,
// 1 the buffer updated in place; the push constant is the element count.
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) buffer readonly Lhs { float lhs[]; };
layout(set = 0, binding = 1) buffer InOut { float inout_values[]; };

layout(push_constant) uniform Constants { uint dim; };

void main() {
  uint tid = gl_GlobalInvocationID.x;
  if (tid < dim) {
    inout_values[tid] *= lhs[tid];
  }
}
