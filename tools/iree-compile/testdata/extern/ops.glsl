// One element-wise op over two float arrays, chosen at compile time by OP
// (glslc -DOP=...): c[i] = a[i] OP b[i] for i < n, 64 invocations per
// workgroup. Set 0 bindings 0 and 1 are read, binding 2 is written; the
// push constant is n.
#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer readonly A { float a[]; };
layout(set = 0, binding = 1) buffer readonly B { float b[]; };
layout(set = 0, binding = 2) buffer writeonly C { float c[]; };
layout(push_constant) uniform Constants { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) {
    c[i] = a[i] OP b[i];
  }
}
