// Hand-written CPU kernels for the custom_dispatch sample, built by
// iree_c_object into functions_x86_64.o and functions_arm_64.o and linked
// by the compiler into the embedded executable next to its generated shims.
//
// The code is freestanding: no C library, no globals, no TLS, no system
// calls; only <stddef.h> for size_t. One call handles the 64-element tile
// that starts at `tile_start`, clamped at `dim` so the last tile may be
// partial.
//
// The kernels come in the two calling conventions IREE's samples have used,
// one pair per program:
//
// * example_hal.mlir declares simple_mul_workgroup and
//   simple_mul_inplace_workgroup with memref<?xf32> arguments, which reach
//   C in MLIR's expanded form: base pointer, aligned pointer, offset, size,
//   stride for each buffer. The shims pass subspans at offset 0, so these
//   kernels index from the base pointer and leave the rest unused.
// * example_stream.mlir declares the *_bareptr_workgroup kernels with
//   `llvm.bareptr = true` and passes each buffer as the base pointer of a
//   memref<f32> followed by its element offset (what
//   iree_codegen.extract_strided_metadata yields), so a buffer is one
//   pointer and one size_t and these kernels add the offset themselves.
//
// `index` is 64-bit on the 64-bit targets built here; size_t matches it.
#include <stddef.h>

enum { kTileSize = 64 };

static size_t tile_limit(size_t tile_start, size_t dim) {
  size_t end = tile_start + kTileSize;
  return end < dim ? end : dim;
}

// --- memref-descriptor convention (example_hal.mlir) ---

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

// --- bare-pointer convention (example_stream.mlir) ---

// out[i] = lhs[i] * rhs[i] over one tile; each buffer starts at its offset.
void simple_mul_bareptr_workgroup(const float* restrict lhs, size_t lhs_offset,
                                  const float* restrict rhs, size_t rhs_offset,
                                  float* restrict out, size_t out_offset,
                                  size_t dim, size_t tile_start) {
  const float* a = lhs + lhs_offset;
  const float* b = rhs + rhs_offset;
  float* c = out + out_offset;
  size_t end = tile_limit(tile_start, dim);
  for (size_t i = tile_start; i < end; ++i) {
    c[i] = a[i] * b[i];
  }
}

// inout[i] *= lhs[i] over one tile; each buffer starts at its offset.
void simple_mul_inplace_bareptr_workgroup(const float* restrict lhs,
                                          size_t lhs_offset,
                                          float* restrict inout,
                                          size_t inout_offset, size_t dim,
                                          size_t tile_start) {
  const float* a = lhs + lhs_offset;
  float* c = inout + inout_offset;
  size_t end = tile_limit(tile_start, dim);
  for (size_t i = tile_start; i < end; ++i) {
    c[i] *= a[i];
  }
}
