// CPU kernels for the current-spelling sample: bare-pointer imports, so
// each buffer is a base pointer plus an element offset.
#include <stddef.h>

enum { kTile = 64 };

static size_t tile_end(size_t tile_start, size_t n) {
  return tile_start + kTile < n ? tile_start + kTile : n;
}

void simple_mul_workgroup(const float* restrict x, size_t x_off, const float* restrict y, size_t y_off,
                          float* restrict z, size_t z_off, size_t n, size_t tile_start) {
  for (size_t i = tile_start, e = tile_end(tile_start, n); i < e; ++i) z[z_off + i] = x[x_off + i] * y[y_off + i];
}

void simple_mul_inplace_workgroup(const float* restrict x, size_t x_off, float* restrict y, size_t y_off,
                                  size_t n, size_t tile_start) {
  for (size_t i = tile_start, e = tile_end(tile_start, n); i < e; ++i) y[y_off + i] *= x[x_off + i];
}
