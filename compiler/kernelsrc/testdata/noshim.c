// Kernels for cpu_noshim.mlir, compiled by the compiler from this source
// and called through generated shims.
#include <stddef.h>
#include <stdint.h>

#include "tile.h"

// out[r][c] = a[r][c] * s[c] + bias for row r = workgroup x and the
// columns of tile y. Bare pointers; constants (cols: i32, bias: f32).
void scale_rows(const float* a, const float* s, float* out, uint32_t cols,
                float bias, size_t wx, size_t wy, size_t wz) {
  (void)wz;
  size_t end = (wy + 1) * TILE;
  if (end > cols) end = cols;
  for (size_t c = wy * TILE; c < end; ++c) {
    out[wx * cols + c] = a[wx * cols + c] * s[c] + bias;
  }
}

// inout[i] -= x[i] over the tile of workgroup x, in memref style with the
// sizes bounding the loop.
void sub_inplace(const float* x_base, const float* x, int64_t x_offset,
                 int64_t x_size, int64_t x_stride, float* io_base, float* io,
                 int64_t io_offset, int64_t io_size, int64_t io_stride,
                 size_t n, size_t wx, size_t wy, size_t wz) {
  (void)x_base;
  (void)io_base;
  (void)wy;
  (void)wz;
  size_t end = (wx + 1) * TILE;
  if (end > n) end = n;
  if (end > (size_t)x_size) end = (size_t)x_size;
  if (end > (size_t)io_size) end = (size_t)io_size;
  for (size_t i = wx * TILE; i < end; ++i) {
    io[io_offset + i * io_stride] -= x[x_offset + i * x_stride];
  }
}
