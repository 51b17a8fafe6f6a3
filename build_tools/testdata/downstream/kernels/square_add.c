// The downstream project's own CPU kernel: out[i] = x[i] * x[i] + y[i] over
// one 64-element tile starting at tile_start, clamped at dim. Freestanding
// C: each memref<?xf32> argument of the shim's call arrives as (base,
// aligned, offset, size, stride); the kernel indexes from the base.
#include <stddef.h>

void square_add_workgroup(
    const float* restrict x, const float* x_aligned, size_t x_offset, size_t x_size, size_t x_stride,
    const float* restrict y, const float* y_aligned, size_t y_offset, size_t y_size, size_t y_stride,
    float* restrict out, float* out_aligned, size_t out_offset, size_t out_size, size_t out_stride,
    size_t dim, size_t tile_start) {
  size_t end = tile_start + 64 < dim ? tile_start + 64 : dim;
  for (size_t i = tile_start; i < end; ++i) {
    out[i] = x[i] * x[i] + y[i];
  }
}
