#version 450
// rhs[i] *= lhs[i] for i < dim; one element per invocation.
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer Lhs { float lhs[]; };
layout(set = 0, binding = 1) buffer Rhs { float rhs[]; };
layout(push_constant) uniform Constants { uint dim; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.dim) rhs[i] *= lhs[i];
}
