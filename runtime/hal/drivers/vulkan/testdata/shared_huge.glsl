// shared_huge: 256 KiB of shared memory, beyond every device's
// maxComputeSharedMemorySize (Vulkan requires 16 KiB; GPUs offer 32-64 KiB).
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) buffer C { float c[]; };

shared float big[65536];

void main() {
  uint i = gl_LocalInvocationID.x;
  big[i * 1024u] = float(i);
  barrier();
  c[gl_GlobalInvocationID.x] = big[(63u - i) * 1024u];
}
