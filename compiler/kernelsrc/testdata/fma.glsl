// out[i] = a[i] * b[i] + 1 for i < n, one invocation per element in
// workgroups of 64; compiled from this source by the compiler.
#version 450

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer readonly A { float a[]; };
layout(set = 0, binding = 1) buffer readonly B { float b[]; };
layout(set = 0, binding = 2) buffer writeonly Out { float result[]; };

layout(push_constant) uniform Constants { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) {
    result[i] = a[i] * b[i] + 1.0;
  }
}
