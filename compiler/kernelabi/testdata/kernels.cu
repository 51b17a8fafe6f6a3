// CUDA kernels for the custom dispatch tests: one element per thread.
// Parameters follow IREE's CUDA ABI: binding pointers, then 32-bit constants.
extern "C" __global__ void simple_mul(const float* __restrict__ lhs,
                                      const float* __restrict__ rhs,
                                      float* __restrict__ out, int dim) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < dim) out[i] = lhs[i] * rhs[i];
}

extern "C" __global__ void simple_mul_inplace(const float* __restrict__ lhs,
                                              float* __restrict__ rhs, int dim) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < dim) rhs[i] *= lhs[i];
}
