// Test kernels using MLIR's default memref expansion: each memref<?xf32>
// argument arrives as (base, aligned, offset, size, stride).
#include <stddef.h>

#define TILE 64

void simple_mul_workgroup(const float* restrict a, const float* a_aligned, size_t a_off, size_t a_size, size_t a_stride,
                          const float* restrict b, const float* b_aligned, size_t b_off, size_t b_size, size_t b_stride,
                          float* restrict c, float* c_aligned, size_t c_off, size_t c_size, size_t c_stride,
                          size_t dim, size_t tid) {
  size_t end = tid + TILE;
  if (end > dim) end = dim;
  for (size_t i = tid; i < end; ++i) c[i] = a[i] * b[i];
}

void simple_mul_inplace_workgroup(const float* restrict a, const float* a_aligned, size_t a_off, size_t a_size, size_t a_stride,
                                  float* restrict b, float* b_aligned, size_t b_off, size_t b_size, size_t b_stride,
                                  size_t dim, size_t tid) {
  size_t end = tid + TILE;
  if (end > dim) end = dim;
  for (size_t i = tid; i < end; ++i) b[i] *= a[i];
}
