// Test kernels using the bare-pointer convention: each buffer arrives as a
// (base pointer, element offset) pair.
#include <stddef.h>

#define TILE 64

void simple_mul_workgroup(const float* restrict a, size_t a_off, const float* restrict b, size_t b_off,
                          float* restrict c, size_t c_off, size_t dim, size_t tid) {
  size_t end = tid + TILE;
  if (end > dim) end = dim;
  for (size_t i = tid; i < end; ++i) c[c_off + i] = a[a_off + i] * b[b_off + i];
}

void simple_mul_inplace_workgroup(const float* restrict a, size_t a_off, float* restrict b, size_t b_off,
                                  size_t dim, size_t tid) {
  size_t end = tid + TILE;
  if (end > dim) end = dim;
  for (size_t i = tid; i < end; ++i) b[b_off + i] *= a[a_off + i];
}
