// Prelude for CUDA kernels compiled by iree_cuda_ptx with clang and no CUDA
// SDK (-nocudainc -nocudalib). It gives the few declarations a device-only
// kernel file expects from cuda_runtime.h: the function and variable space
// qualifiers. The built-in variables (threadIdx, blockIdx, blockDim,
// gridDim, warpSize) come from clang's own __clang_cuda_builtin_vars.h,
// which the rule includes after this file. Kernels that need more of the
// CUDA headers should be built with compiler = "nvcc".
#ifndef GOIREE_CUDA_PRELUDE_H_
#define GOIREE_CUDA_PRELUDE_H_

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

// The thread-synchronisation barrier, from clang's NVPTX builtins.
#define __syncthreads() __nvvm_bar_sync(0)

#endif  // GOIREE_CUDA_PRELUDE_H_
