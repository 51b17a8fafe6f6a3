// Freestanding CPU kernels for the custom dispatch tests. Each memref
// argument arrives as the 5 scalars of MLIR's default descriptor expansion
// (base, aligned, offset, size, stride); only the base pointer is used.
#include <stddef.h>
#include <stdint.h>

#define TILE 64

static size_t tile_end(size_t tid, size_t dim) {
  return tid + TILE < dim ? tid + TILE : dim;
}

void simple_mul_workgroup(
    const float* restrict a, const float* a_aligned, size_t a_off, size_t a_size, size_t a_stride,
    const float* restrict b, const float* b_aligned, size_t b_off, size_t b_size, size_t b_stride,
    float* restrict out, float* out_aligned, size_t out_off, size_t out_size, size_t out_stride,
    size_t dim, size_t tid) {
  for (size_t i = tid; i < tile_end(tid, dim); ++i) out[i] = a[i] * b[i];
}

void simple_mul_inplace_workgroup(
    const float* restrict a, const float* a_aligned, size_t a_off, size_t a_size, size_t a_stride,
    float* restrict b, float* b_aligned, size_t b_off, size_t b_size, size_t b_stride,
    size_t dim, size_t tid) {
  for (size_t i = tid; i < tile_end(tid, dim); ++i) b[i] *= a[i];
}
