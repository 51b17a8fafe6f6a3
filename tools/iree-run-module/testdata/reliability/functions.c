// CPU kernels for the seed-spelling sample. Each memref<?xf32> argument of
// the shim arrives in MLIR's expanded form (base, aligned, offset, size,
// stride); the kernels index from the base pointer. Each call handles one
// 64-element tile starting at `tile_start`, clamped at `n`.
#include <stddef.h>

enum { kTile = 64 };

static size_t tile_end(size_t tile_start, size_t n) {
  return tile_start + kTile < n ? tile_start + kTile : n;
}

void simple_mul_workgroup(const float* restrict x, const float* x_al, size_t x_off, size_t x_n, size_t x_st,
                          const float* restrict y, const float* y_al, size_t y_off, size_t y_n, size_t y_st,
                          float* restrict z, float* z_al, size_t z_off, size_t z_n, size_t z_st,
                          size_t n, size_t tile_start) {
  for (size_t i = tile_start, e = tile_end(tile_start, n); i < e; ++i) z[i] = x[i] * y[i];
}

void simple_mul_inplace_workgroup(const float* restrict x, const float* x_al, size_t x_off, size_t x_n, size_t x_st,
                                  float* restrict y, float* y_al, size_t y_off, size_t y_n, size_t y_st,
                                  size_t n, size_t tile_start) {
  for (size_t i = tile_start, e = tile_end(tile_start, n); i < e; ++i) y[i] *= x[i];
}
