// A CPU executable library whose exports take many bindings, for testing
// how binding pointers reach native code (as call arguments up to four and
// up to eight bindings, through pinned memory beyond).
//
// Exports (export k takes Counts[k] bindings and no constants):
//   gather_<n>(; in_0, ..., in_{n-2}, out): out[i] = sum over j of in_j[i]
//     (uint32 elements, i in [0, length of out / 4)), and it returns 5 when
//     some in_j is shorter than out.
#include "executable_library.h"

static int gather(const iree_hal_executable_dispatch_state_v0_t* ds) {
  uint32_t n = ds->binding_count;
  if (n < 2) return 5;
  uint32_t* out = (uint32_t*)ds->binding_ptrs[n - 1];
  size_t count = ds->binding_lengths[n - 1] / sizeof(uint32_t);
  for (uint32_t j = 0; j + 1 < n; ++j) {
    if (ds->binding_lengths[j] < count * sizeof(uint32_t)) return 5;
  }
  for (size_t i = 0; i < count; ++i) {
    uint32_t sum = 0;
    for (uint32_t j = 0; j + 1 < n; ++j) sum += ((const uint32_t*)ds->binding_ptrs[j])[i];
    out[i] = sum;
  }
  return 0;
}

#define GATHER(N)                                                             \
  static int gather_##N(const iree_hal_executable_environment_v0_t* env,     \
                        const iree_hal_executable_dispatch_state_v0_t* ds,   \
                        const iree_hal_executable_workgroup_state_v0_t* ws) { \
    (void)env;                                                                \
    (void)ws;                                                                 \
    return ds->binding_count == N ? gather(ds) : 5;                          \
  }
GATHER(2)
GATHER(4)
GATHER(5)
GATHER(8)
GATHER(9)
GATHER(12)

static const iree_hal_executable_dispatch_v0_t entry_points[6] = {
    gather_2, gather_4, gather_5, gather_8, gather_9, gather_12};
static const char* const entry_point_names[6] = {"gather_2", "gather_4", "gather_5", "gather_8", "gather_9", "gather_12"};
static const iree_hal_executable_dispatch_attrs_v0_t entry_attrs[6] = {
    {.binding_count = 2}, {.binding_count = 4}, {.binding_count = 5}, {.binding_count = 8}, {.binding_count = 9}, {.binding_count = 12},
};
static const iree_hal_executable_library_header_t header = {
    .version = IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST,
    .name = "gather_library",
    .sanitizer = IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE,
};
static const iree_hal_executable_library_v0_t library = {
    .header = &header,
    .exports = {.count = 6, .ptrs = entry_points, .attrs = entry_attrs, .names = entry_point_names},
};

__attribute__((visibility("default")))
const iree_hal_executable_library_header_t** iree_hal_executable_library_query(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t* environment) {
  (void)environment;
  return max_version == IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST
             ? (const iree_hal_executable_library_header_t**)&library
             : 0;
}
