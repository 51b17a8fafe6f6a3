// shared_20k: 20 KiB of shared memory, within what GPUs and lavapipe
// offer but beyond Vulkan's least maxComputeSharedMemorySize (16 KiB).
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) buffer C { float c[]; };

shared float s[5120];

void main() {
  uint i = gl_LocalInvocationID.x;
  s[i * 80u] = float(i);
  barrier();
  c[gl_GlobalInvocationID.x] = s[(63u - i) * 80u];
}
