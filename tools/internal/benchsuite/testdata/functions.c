// The benchmark kernel: simple_mul_workgroup computes z = x * y over one
// 64-element tile [tile_start, min(tile_start + 64, n)). Each memref<?xf32>
// argument arrives expanded (base, aligned, offset, size, stride), as the
// compiler's generated dispatch passes it; only the base pointers are used.
// The suite builds this file once into functions_x86_64.o: the compiled
// module embeds that object and the C reference harness links the very
// same object, so both call the same machine code.
#include <stddef.h>

#define TILE 64

void simple_mul_workgroup(const float* restrict x, const float* xa, size_t xo, size_t xn, size_t xs,
                          const float* restrict y, const float* ya, size_t yo, size_t yn, size_t ys,
                          float* restrict z, float* za, size_t zo, size_t zn, size_t zs,
                          size_t n, size_t tile_start) {
  size_t end = tile_start + TILE < n ? tile_start + TILE : n;
  for (size_t i = tile_start; i < end; ++i) z[i] = x[i] * y[i];
}
