// CUDA kernels for the custom_dispatch sample. Each thread handles one
// element; the launch uses blocks of 64 threads (the export's
// workgroup_size) and ceildiv(dim, 64) blocks, so the last block is
// guarded by `tid < dim`. Bindings never alias, hence __restrict__; they
// are passed first, then the 32-bit push constant `dim`.

extern "C" __global__ void simple_mul(const float* __restrict__ lhs,
                                      const float* __restrict__ rhs,
                                      float* __restrict__ out, int dim) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < dim) out[tid] = lhs[tid] * rhs[tid];
}

extern "C" __global__ void simple_mul_inplace(const float* __restrict__ lhs,
                                              float* __restrict__ inout,
                                              int dim) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < dim) inout[tid] *= lhs[tid];
}
