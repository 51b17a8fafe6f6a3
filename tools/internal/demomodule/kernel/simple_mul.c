// simple_mul: the CPU kernel of the demonstration module.
//
// One export, "simple_mul", with one constant (n, the element count) and
// three bindings (a, b: read; c: written). Workgroup x handles the 64
// elements starting at x*64, clamped at n and at every binding's length:
//   c[i] = a[i] * b[i]
#include "executable_library.h"

enum { kTile = 64 };

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

static int simple_mul(const iree_hal_executable_environment_v0_t* environment,
                      const iree_hal_executable_dispatch_state_v0_t* dispatch,
                      const iree_hal_executable_workgroup_state_v0_t* workgroup) {
  (void)environment;
  const float* a = (const float*)dispatch->binding_ptrs[0];
  const float* b = (const float*)dispatch->binding_ptrs[1];
  float* c = (float*)dispatch->binding_ptrs[2];
  size_t n = dispatch->constants[0];
  n = min_size(n, dispatch->binding_lengths[0] / sizeof(float));
  n = min_size(n, dispatch->binding_lengths[1] / sizeof(float));
  n = min_size(n, dispatch->binding_lengths[2] / sizeof(float));
  size_t begin = (size_t)workgroup->workgroup_id_x * kTile;
  size_t end = min_size(begin + kTile, n);
  for (size_t i = begin; i < end; ++i) c[i] = a[i] * b[i];
  return 0;
}

static const iree_hal_executable_dispatch_v0_t kEntryPoints[1] = {simple_mul};
static const char* const kEntryPointNames[1] = {"simple_mul"};
static const iree_hal_executable_dispatch_attrs_v0_t kEntryAttrs[1] = {
    {.constant_count = 1, .binding_count = 3, .workgroup_size_x = kTile, .workgroup_size_y = 1, .workgroup_size_z = 1},
};
static const iree_hal_executable_library_header_t kHeader = {
    .version = IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST,
    .name = "demo_simple_mul",
    .sanitizer = IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE,
};
static const iree_hal_executable_library_v0_t kLibrary = {
    .header = &kHeader,
    .exports = {.count = 1, .ptrs = kEntryPoints, .attrs = kEntryAttrs, .names = kEntryPointNames},
};

__attribute__((visibility("default")))
const iree_hal_executable_library_header_t** iree_hal_executable_library_query(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t* environment) {
  (void)environment;
  if (max_version != IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST) return 0;
  return (const iree_hal_executable_library_header_t**)&kLibrary;
}
