// Benchmark shader of the suite's Vulkan row, written for bandwidth (the
// user's own shader, brought as SPIR-V through #hal.executable.object; see
// simple_mul_vulkan.mlir): out[i] = lhs[i] * rhs[i] for i < dim.
//
//   glslc -fshader-stage=compute simple_mul.glsl -o simple_mul.spv
//
// Workgroup w of 256 invocations handles floats [4096 w, 4096 (w+1)): each
// invocation loads four vec4s of each input (coalesced: invocation t takes
// vec4s t, t+256, ...) before it stores; the last, partial workgroup goes
// element by element through scalar views of the same bindings. The
// export's count region divides the element count by 4096.
#version 450

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer Lhs4 { vec4 lhs4[]; };
layout(set = 0, binding = 1) readonly buffer Rhs4 { vec4 rhs4[]; };
layout(set = 0, binding = 2) writeonly buffer Out4 { vec4 out4[]; };
layout(set = 0, binding = 0) readonly buffer Lhs1 { float lhs1[]; };
layout(set = 0, binding = 1) readonly buffer Rhs1 { float rhs1[]; };
layout(set = 0, binding = 2) writeonly buffer Out1 { float out1[]; };

layout(push_constant) uniform Constants { uint dim; };

const uint THREADS = 256u;
const uint BLOCK = 4096u;

void main() {
  uint first = gl_WorkGroupID.x * BLOCK;
  uint t = gl_LocalInvocationID.x;
  if (first + BLOCK <= dim) {
    uint v = first / 4u + t;
    vec4 x0 = lhs4[v], x1 = lhs4[v + THREADS], x2 = lhs4[v + 2u * THREADS], x3 = lhs4[v + 3u * THREADS];
    vec4 y0 = rhs4[v], y1 = rhs4[v + THREADS], y2 = rhs4[v + 2u * THREADS], y3 = rhs4[v + 3u * THREADS];
    out4[v] = x0 * y0;
    out4[v + THREADS] = x1 * y1;
    out4[v + 2u * THREADS] = x2 * y2;
    out4[v + 3u * THREADS] = x3 * y3;
    return;
  }
  uint end = min(first + BLOCK, dim);
  for (uint i = first + t; i < end; i += THREADS) {
    out1[i] = lhs1[i] * rhs1[i];
  }
}
