// store_i64 writes v at element i of a memref<?xi64> passed in MLIR's
// expanded form.
#include <stddef.h>
#include <stdint.h>

void store_i64(int64_t* base, int64_t* aligned, int64_t offset, int64_t size, int64_t stride, int64_t i, int64_t v) {
  if (i >= 0 && i < size) aligned[offset + i * stride] = v;
}
