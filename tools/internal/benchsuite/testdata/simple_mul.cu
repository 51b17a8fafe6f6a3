// Benchmark kernels for the suite's CUDA rows, written for bandwidth: the
// user's own kernels, brought as PTX through #hal.executable.object (see
// simple_mul_cuda.mlir). Parameters are in the runtime's order: the
// binding pointers, then the 32-bit constants (the element count).
//
//   clang-16 -x cuda --cuda-device-only -nocudainc -nocudalib \
//     --cuda-gpu-arch=sm_90 -O2 -S -Wno-unknown-cuda-version \
//     simple_mul.cu -o simple_mul_sm_90.ptx
//
// No CUDA headers: the qualifiers, the vector type and the thread indices
// come from clang's built-ins.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef unsigned long long u64;

// Threads per block; simple_mul takes one float4 per thread (a block
// covers 1024 floats), simple_mul_x4 four (4096 floats); the exports'
// count regions divide by that.
#define THREADS 256
#define VECTORS 4

static __device__ inline unsigned thread_x() { return __nvvm_read_ptx_sreg_tid_x(); }
static __device__ inline unsigned block_x() { return __nvvm_read_ptx_sreg_ctaid_x(); }

static __device__ inline int aligned16(const void* a, const void* b, const void* c) {
  return (((u64)a | (u64)b | (u64)c) & 15) == 0;
}

// out[i] = lhs[i] * rhs[i] for i < dim: thread t of block b multiplies
// float4 256 b + t (floats 4 (256 b + t) ... + 3); the tail of fewer than
// four floats and unaligned bindings take the scalar path. On the H200 this
// measured a little faster than four float4s per thread (simple_mul_x4).
extern "C" __global__ void simple_mul(const float* __restrict__ lhs,
                                      const float* __restrict__ rhs,
                                      float* __restrict__ out, int dim) {
  u64 n = (unsigned)dim;
  u64 i = ((u64)block_x() * THREADS + thread_x()) * 4;
  if (i + 4 <= n && aligned16(lhs, rhs, out)) {
    *(f32x4*)(out + i) = *(const f32x4*)(lhs + i) * *(const f32x4*)(rhs + i);
    return;
  }
  for (u64 j = i; j < i + 4 && j < n; ++j) out[j] = lhs[j] * rhs[j];
}

// simple_mul_x4 is the same product with four float4s per thread: block b
// handles floats [4096 b, 4096 (b+1)), each thread issuing its four loads
// per input before any store (coalesced: thread t takes float4s t, t+256,
// ...); the last, partial block and unaligned bindings take the scalar
// path. The suite times it beside simple_mul as a tuning probe.
extern "C" __global__ void simple_mul_x4(const float* __restrict__ lhs,
                                         const float* __restrict__ rhs,
                                         float* __restrict__ out, int dim) {
  const u64 block_floats = THREADS * VECTORS * 4;
  u64 n = (unsigned)dim;
  u64 first = (u64)block_x() * block_floats;
  unsigned t = thread_x();
  if (first + block_floats <= n && aligned16(lhs, rhs, out)) {
    const f32x4* a = (const f32x4*)(lhs + first);
    const f32x4* b = (const f32x4*)(rhs + first);
    f32x4* c = (f32x4*)(out + first);
    f32x4 x[VECTORS], y[VECTORS];
#pragma unroll
    for (int v = 0; v < VECTORS; ++v) {
      x[v] = a[t + v * THREADS];
      y[v] = b[t + v * THREADS];
    }
#pragma unroll
    for (int v = 0; v < VECTORS; ++v) c[t + v * THREADS] = x[v] * y[v];
    return;
  }
  u64 end = first + block_floats < n ? first + block_floats : n;
  for (u64 i = first + t; i < end; i += THREADS) out[i] = lhs[i] * rhs[i];
}
