// The user's kernel of the suite's user-program rows, written the way a
// user writes a first CUDA kernel for IREE (as in IREE's custom_dispatch
// samples): one element per thread, blocks of 64 threads, no vector
// accesses, no grid-stride loop. Parameters are in the runtime's order:
// the binding pointers, then the 32-bit push constants.
//
//   clang-16 -x cuda --cuda-device-only -nocudainc -nocudalib \
//     --cuda-gpu-arch=sm_90 -O2 -S -Wno-unknown-cuda-version \
//     user_program.cu -o user_program_sm_90.ptx
//
// No CUDA headers: the qualifiers and the thread indices come from clang's
// built-ins.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

static __device__ inline int global_id() {
  return __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ctaid_x() + __nvvm_read_ptx_sreg_tid_x();
}

// out[i] = lhs[i] * rhs[i] * scale + bias for i < dim. The layout has three
// push constants: the element count and the two f32 scalars, passed as
// their bits (the program bitcasts them to i32, as IREE's ABI wants).
//
// Layout: push_constants = 3, bindings (0, 0) lhs read-only, (0, 1) rhs
// read-only, (0, 2) out; workgroup_size = [64, 1, 1].
extern "C" __global__ void scaled_mul(const float* __restrict__ lhs,
                                      const float* __restrict__ rhs,
                                      float* __restrict__ out, int dim,
                                      int scale_bits, int bias_bits) {
  int i = global_id();
  if (i < dim) {
    float scale = __builtin_bit_cast(float, scale_bits);
    float bias = __builtin_bit_cast(float, bias_bits);
    out[i] = lhs[i] * rhs[i] * scale + bias;
  }
}
