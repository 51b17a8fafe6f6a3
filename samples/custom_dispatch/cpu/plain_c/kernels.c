// Plain C kernels for the plain_c sample: no dispatch shim is written for
// them in the program. Each export names its function with
// goiree.cpu_function and the compiler generates the shim that unpacks the
// dispatch (bindings, push constants, workgroup id) and calls it:
//
//   fn(bindings..., push constants..., workgroup_id_x, _y, _z)
//
// Freestanding code: no C library, no globals, no TLS, no system calls;
// only the compiler's own <stddef.h> and <stdint.h>.
#include <stddef.h>
#include <stdint.h>

enum { kTileSize = 64 };

// The elements [first, end) of the 64-element tile of workgroup x.
static size_t tile_end(size_t x, uint32_t n) {
  size_t end = (x + 1) * kTileSize;
  return end < n ? end : n;
}

// Bare-pointer style (goiree.cpu_arguments = "bareptr", the default): one
// pointer per binding, then push constant 0 (the length) as a 32-bit
// integer, then the workgroup id.
// out[i] = lhs[i] * rhs[i] over one tile.
void simple_mul_tile(const float* restrict lhs, const float* restrict rhs,
                     float* restrict out, uint32_t n, size_t x, size_t y,
                     size_t z) {
  (void)y;
  (void)z;
  for (size_t i = x * kTileSize; i < tile_end(x, n); ++i) {
    out[i] = lhs[i] * rhs[i];
  }
}

// Memref style (goiree.cpu_arguments = "memref"): each binding arrives as
// MLIR's memref descriptor (base pointer, aligned pointer, offset, size,
// stride), its size read from the push constant that
// goiree.cpu_binding_sizes names, in elements of goiree.cpu_binding_types.
// inout[i] *= lhs[i] over one tile; the sizes bound the loop, so a length
// constant larger than a buffer cannot index past it.
void simple_mul_inplace_tile(
    const float* lhs, const float* lhs_aligned, int64_t lhs_offset,
    int64_t lhs_size, int64_t lhs_stride, float* inout,
    float* inout_aligned, int64_t inout_offset, int64_t inout_size,
    int64_t inout_stride, uint32_t n, size_t x, size_t y, size_t z) {
  (void)lhs;
  (void)inout;
  (void)y;
  (void)z;
  size_t limit = (size_t)(lhs_size < inout_size ? lhs_size : inout_size);
  if (limit > n) limit = n;
  const float* a = lhs_aligned + lhs_offset;
  float* b = inout_aligned + inout_offset;
  for (size_t i = x * kTileSize; i < tile_end(x, (uint32_t)limit); ++i) {
    b[i * (size_t)inout_stride] *= a[i * (size_t)lhs_stride];
  }
}
