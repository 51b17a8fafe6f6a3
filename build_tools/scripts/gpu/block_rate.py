#!/usr/bin/env python3
# On the GPU machine (its python3 has CuPy), through the device tool:
#   python3 build_tools/scripts/gpu/block_rate.py
# How fast is a user's scalar kernel (one element per thread) as a function
# of block size, compiled by nvcc through CuPy, timed with CUDA events.
import cupy as cp
src = r'''
extern "C" __global__ void scaled_mul(const float* __restrict__ lhs, const float* __restrict__ rhs,
    float* __restrict__ out, int dim, float scale, float bias) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < dim) out[i] = lhs[i] * rhs[i] * scale + bias;
}'''
k = cp.RawKernel(src, 'scaled_mul')
for n in (1 << 24, 1 << 28):
    a = cp.full(n, 3, cp.float32); b = cp.full(n, 2, cp.float32); o = cp.empty_like(a)
    for bs in (32, 64, 128, 256, 1024):
        g = (n + bs - 1) // bs
        for _ in range(5): k((g,), (bs,), (a, b, o, cp.int32(n), cp.float32(0.5), cp.float32(1.0)))
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        for _ in range(20): k((g,), (bs,), (a, b, o, cp.int32(n), cp.float32(0.5), cp.float32(1.0)))
        e.record(); e.synchronize()
        t = cp.cuda.get_elapsed_time(s, e) / 20 * 1e3
        print(f"n={n} block={bs}: {t:.1f} us, {12*n/t/1e3:.0f} GB/s")
    c = cp.empty_like(a); s.record()
    for _ in range(20): c[...] = a
    e.record(); e.synchronize(); t = cp.cuda.get_elapsed_time(s, e)/20*1e3
    print(f"n={n} copy: {t:.1f} us, {8*n/t/1e3:.0f} GB/s")
