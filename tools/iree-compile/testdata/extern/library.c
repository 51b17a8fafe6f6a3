// A complete CPU executable library written by hand against
// runtime/hal/local/executable_library.h, for hal.dispatch.extern on
// llvm-cpu: its object is this library, and the extern's ordinal picks an
// export. Export 0 adds and export 1 subtracts two float arrays (bindings 0
// and 1, result in binding 2); constant 0 is the element count; each
// workgroup covers 64 elements.
#include "executable_library.h"

#define TILE 64

typedef const iree_hal_executable_environment_v0_t env_t;
typedef const iree_hal_executable_dispatch_state_v0_t dispatch_t;
typedef const iree_hal_executable_workgroup_state_v0_t workgroup_t;

static int add(env_t* env, dispatch_t* d, workgroup_t* w) {
  (void)env;
  uint32_t n = d->constants[0];
  const float* a = (const float*)d->binding_ptrs[0];
  const float* b = (const float*)d->binding_ptrs[1];
  float* c = (float*)d->binding_ptrs[2];
  for (uint32_t i = w->workgroup_id_x * TILE; i < n && i < (w->workgroup_id_x + 1) * TILE; ++i) {
    c[i] = a[i] + b[i];
  }
  return 0;
}

static int sub(env_t* env, dispatch_t* d, workgroup_t* w) {
  (void)env;
  uint32_t n = d->constants[0];
  const float* a = (const float*)d->binding_ptrs[0];
  const float* b = (const float*)d->binding_ptrs[1];
  float* c = (float*)d->binding_ptrs[2];
  for (uint32_t i = w->workgroup_id_x * TILE; i < n && i < (w->workgroup_id_x + 1) * TILE; ++i) {
    c[i] = a[i] - b[i];
  }
  return 0;
}

static const iree_hal_executable_dispatch_v0_t ptrs[] = {add, sub};
static const iree_hal_executable_dispatch_attrs_v0_t attrs[] = {
    {.constant_count = 1, .binding_count = 3},
    {.constant_count = 1, .binding_count = 3},
};
static const char* const names[] = {"add", "sub"};
static const iree_hal_executable_library_header_t header = {
    .version = IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST,
    .name = "extern_library",
};
static const iree_hal_executable_library_v0_t library = {
    .header = &header,
    .exports = {.count = 2, .ptrs = ptrs, .attrs = attrs, .names = names},
};

__attribute__((visibility("default"))) const iree_hal_executable_library_header_t**
iree_hal_executable_library_query(iree_hal_executable_library_version_t max_version, env_t* env) {
  (void)env;
  if (max_version < IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST) return 0;
  return (const iree_hal_executable_library_header_t**)&library;
}
