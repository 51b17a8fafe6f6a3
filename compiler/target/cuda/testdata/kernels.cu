// The CUDA sample's kernels: one element per thread, parameters in the
// runtime's order (binding pointers, then 32-bit constants).
//
// Built without the CUDA toolkit's headers, so the few declarations the
// kernels need are spelled out here:
//   clang-16 -x cuda --cuda-device-only -nocudainc -nocudalib \
//     --cuda-gpu-arch=sm_80 -O2 -S kernels.cu -o kernels_sm_80.ptx
#define __global__ __attribute__((global))

static __attribute__((device)) inline int global_thread_index() {
  return __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ctaid_x() +
         __nvvm_read_ptx_sreg_tid_x();
}

// out[i] = lhs[i] * rhs[i]
extern "C" __global__ void simple_mul(const float* __restrict__ lhs,
                                      const float* __restrict__ rhs,
                                      float* __restrict__ out, int dim) {
  int i = global_thread_index();
  if (i < dim) out[i] = lhs[i] * rhs[i];
}

// rhs[i] *= lhs[i]
extern "C" __global__ void simple_mul_inplace(const float* __restrict__ lhs,
                                              float* __restrict__ rhs, int dim) {
  int i = global_thread_index();
  if (i < dim) rhs[i] *= lhs[i];
}
