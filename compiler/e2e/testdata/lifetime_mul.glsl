// The lifetime tests' Vulkan kernel: c = a * b, one element per
// invocation, n in a push constant.
#version 450

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer readonly A { float a[]; };
layout(set = 0, binding = 1) buffer readonly B { float b[]; };
layout(set = 0, binding = 2) buffer writeonly C { float c[]; };

layout(push_constant) uniform Params { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) c[i] = a[i] * b[i];
}
