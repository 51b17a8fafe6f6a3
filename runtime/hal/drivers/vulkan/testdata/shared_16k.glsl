// shared_16k: 16 KiB of shared memory, the least maxComputeSharedMemorySize
// Vulkan allows: c[i] = the workgroup's invocations' indices reversed.
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) buffer C { float c[]; };

shared float s[4096];

void main() {
  uint i = gl_LocalInvocationID.x;
  s[i * 64u] = float(i);
  barrier();
  c[gl_GlobalInvocationID.x] = s[(63u - i) * 64u];
}
