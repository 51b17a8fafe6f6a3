// Variants of simple_mul.glsl for the suite's --vulkan_probe, which times
// them on the device to find what bounds the Vulkan row. Built twice:
//
//   glslc -fshader-stage=compute -DSCALAR simple_mul_probe.glsl -o probe_scalar.spv
//   glslc -fshader-stage=compute -DSTRIDE simple_mul_probe.glsl -o probe_stride.spv
//
// SCALAR: one float per invocation, 256 invocations per workgroup
// (ceil(dim / 256) workgroups). STRIDE: a grid-stride loop of vec4s over
// however many workgroups are dispatched, the scalar tail done by the
// first workgroup. Bindings and push constant as in simple_mul.glsl.
#version 450

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer Lhs4 { vec4 lhs4[]; };
layout(set = 0, binding = 1) readonly buffer Rhs4 { vec4 rhs4[]; };
layout(set = 0, binding = 2) writeonly buffer Out4 { vec4 out4[]; };
layout(set = 0, binding = 0) readonly buffer Lhs1 { float lhs1[]; };
layout(set = 0, binding = 1) readonly buffer Rhs1 { float rhs1[]; };
layout(set = 0, binding = 2) writeonly buffer Out1 { float out1[]; };

layout(push_constant) uniform Constants { uint dim; };

void main() {
#if defined(SCALAR)
  uint i = gl_GlobalInvocationID.x;
  if (i < dim) out1[i] = lhs1[i] * rhs1[i];
#elif defined(STRIDE)
  uint vecs = dim / 4u;
  uint step = gl_NumWorkGroups.x * 256u;
  for (uint v = gl_GlobalInvocationID.x; v < vecs; v += step) {
    out4[v] = lhs4[v] * rhs4[v];
  }
  if (gl_WorkGroupID.x == 0u) {
    for (uint i = vecs * 4u + gl_LocalInvocationID.x; i < dim; i += 256u) out1[i] = lhs1[i] * rhs1[i];
  }
#else
#error define SCALAR or STRIDE
#endif
}
