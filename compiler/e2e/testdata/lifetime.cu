// The lifetime tests' CUDA kernels, one element per thread, parameters in
// the runtime's order (binding pointers, then 32-bit constants). Built
// without the CUDA toolkit by the test:
//   clang-16 -x cuda --cuda-device-only -nocudainc -nocudalib \
//     --cuda-gpu-arch=sm_80 -O2 -S lifetime.cu -o lifetime_sm_80.ptx
#define __global__ __attribute__((global))

static __attribute__((device)) inline int index_x() {
  return __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ctaid_x() + __nvvm_read_ptx_sreg_tid_x();
}

// c[i] = a[i] * b[i]
extern "C" __global__ void lifetime_mul(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ c, int n) {
  int i = index_x();
  if (i < n) c[i] = a[i] * b[i];
}

// b[i] = a[i] * b[i]
extern "C" __global__ void lifetime_mul_inplace(const float* __restrict__ a, float* __restrict__ b, int n) {
  int i = index_x();
  if (i < n) b[i] = a[i] * b[i];
}
