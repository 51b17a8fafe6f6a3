// The lifetime tests' in-place Vulkan kernel: b = a * b.
#version 450

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer readonly A { float a[]; };
layout(set = 0, binding = 1) buffer B { float b[]; };

layout(push_constant) uniform Params { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) b[i] = a[i] * b[i];
}
