// wide_20k: 256 invocations and 20 KiB of shared memory, within what GPUs
// and lavapipe offer but beyond Vulkan's least limits (128 invocations,
// 16 KiB): c[i] = the workgroup's invocations' indices reversed.
#version 450

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) buffer C { float c[]; };

shared float s[5120];

void main() {
  uint i = gl_LocalInvocationID.x;
  s[i * 20u] = float(i);
  barrier();
  c[gl_GlobalInvocationID.x] = s[(255u - i) * 20u];
}
