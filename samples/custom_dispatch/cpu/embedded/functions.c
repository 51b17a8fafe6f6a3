// Hand-written CPU kernels for the custom_dispatch sample, built by
// iree_c_object into functions_x86_64.o and functions_arm_64.o and linked
// by the compiler into the embedded executable next to its generated shims.
//
// The code is freestanding: no C library, no globals, no TLS, no system
// calls; only <stddef.h> for size_t. Every memref<?xf32> argument of the
// shim's call arrives in MLIR's expanded form (base pointer, aligned
// pointer, offset, size, stride); the kernels index from the base pointer
// and ignore the rest. One call handles the 64-element tile that starts at
// `tile_start`, clamped at `dim` so the last tile may be partial.
#include <stddef.h>

enum { kTileSize = 64 };

static size_t tile_limit(size_t tile_start, size_t dim) {
  size_t end = tile_start + kTileSize;
  return end < dim ? end : dim;
}

// out[i] = lhs[i] * rhs[i] over one tile.
void simple_mul_workgroup(
    const float* restrict lhs, const float* lhs_aligned, size_t lhs_offset, size_t lhs_size, size_t lhs_stride,
    const float* restrict rhs, const float* rhs_aligned, size_t rhs_offset, size_t rhs_size, size_t rhs_stride,
    float* restrict out, float* out_aligned, size_t out_offset, size_t out_size, size_t out_stride,
    size_t dim, size_t tile_start) {
  size_t end = tile_limit(tile_start, dim);
  for (size_t i = tile_start; i < end; ++i) {
    out[i] = lhs[i] * rhs[i];
  }
}

// inout[i] *= lhs[i] over one tile.
void simple_mul_inplace_workgroup(
    const float* restrict lhs, const float* lhs_aligned, size_t lhs_offset, size_t lhs_size, size_t lhs_stride,
    float* restrict inout, float* inout_aligned, size_t inout_offset, size_t inout_size, size_t inout_stride,
    size_t dim, size_t tile_start) {
  size_t end = tile_limit(tile_start, dim);
  for (size_t i = tile_start; i < end; ++i) {
    inout[i] *= lhs[i];
  }
}
