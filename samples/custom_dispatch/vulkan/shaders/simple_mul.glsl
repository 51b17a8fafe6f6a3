// simple_mul: out[i] = lhs[i] * rhs[i] for i < dim, one invocation per
// element in workgroups of 64. Bindings are set 0: 0 and 1 read-only
// inputs, 2 the output; the push constant is the element count.
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) buffer readonly Lhs { float lhs[]; };
layout(set = 0, binding = 1) buffer readonly Rhs { float rhs[]; };
layout(set = 0, binding = 2) buffer writeonly Out { float result[]; };

layout(push_constant) uniform Constants { uint dim; };

void main() {
  uint tid = gl_GlobalInvocationID.x;
  if (tid < dim) {
    result[tid] = lhs[tid] * rhs[tid];
  }
}
