// A CPU executable library implementing the goiree executable ABI, used by
// the runtime's tests and benchmarks.
//
// Exports:
//   0 simple_mul(n; a, b, c): c[i] = a[i] * b[i] for i in the workgroup's
//     64-element tile, clamped at n and at the binding lengths.
//   1 fail_at(k; marks): marks[id] = 1 for every workgroup that runs, and
//     workgroup k returns 7.
//   2 grid_ids(; out): out[flat id] = x | y << 10 | z << 20; it checks its
//     local memory and processor id first and returns 9 when they are wrong.
#include "executable_library.h"

#define TILE 64

static int simple_mul(const iree_hal_executable_environment_v0_t* env,
                      const iree_hal_executable_dispatch_state_v0_t* ds,
                      const iree_hal_executable_workgroup_state_v0_t* ws) {
  (void)env;
  size_t n = ds->constants[0];
  const float* a = (const float*)ds->binding_ptrs[0];
  const float* b = (const float*)ds->binding_ptrs[1];
  float* c = (float*)ds->binding_ptrs[2];
  size_t limit = ds->binding_lengths[0] / sizeof(float);
  if (ds->binding_lengths[1] / sizeof(float) < limit) limit = ds->binding_lengths[1] / sizeof(float);
  if (ds->binding_lengths[2] / sizeof(float) < limit) limit = ds->binding_lengths[2] / sizeof(float);
  if (n > limit) n = limit;
  size_t begin = (size_t)ws->workgroup_id_x * TILE;
  size_t end = begin + TILE;
  if (end > n) end = n;
  for (size_t i = begin; i < end; ++i) c[i] = a[i] * b[i];
  return 0;
}

static int fail_at(const iree_hal_executable_environment_v0_t* env,
                   const iree_hal_executable_dispatch_state_v0_t* ds,
                   const iree_hal_executable_workgroup_state_v0_t* ws) {
  (void)env;
  uint32_t* marks = (uint32_t*)ds->binding_ptrs[0];
  size_t count = ds->binding_lengths[0] / sizeof(uint32_t);
  if (ws->workgroup_id_x < count) marks[ws->workgroup_id_x] = 1;
  return ws->workgroup_id_x == ds->constants[0] ? 7 : 0;
}

static int grid_ids(const iree_hal_executable_environment_v0_t* env,
                    const iree_hal_executable_dispatch_state_v0_t* ds,
                    const iree_hal_executable_workgroup_state_v0_t* ws) {
  (void)env;
  if (ws->local_memory == 0 || ws->local_memory_size < 4096) return 9;
  if (ws->processor_id >= ds->max_concurrency) return 9;
  volatile uint32_t* scratch = (volatile uint32_t*)ws->local_memory;
  scratch[1023] = ws->workgroup_id_x;
  uint32_t* out = (uint32_t*)ds->binding_ptrs[0];
  size_t flat = ((size_t)ws->workgroup_id_z * ds->workgroup_count_y + ws->workgroup_id_y) *
                    ds->workgroup_count_x + ws->workgroup_id_x;
  if ((flat + 1) * sizeof(uint32_t) > ds->binding_lengths[0]) return 9;
  out[flat] = scratch[1023] | (ws->workgroup_id_y << 10) | ((uint32_t)ws->workgroup_id_z << 20);
  return 0;
}

static const iree_hal_executable_dispatch_v0_t entry_points[3] = {
    simple_mul, fail_at, grid_ids};
static const char* const entry_point_names[3] = {"simple_mul", "fail_at", "grid_ids"};
static const iree_hal_executable_dispatch_attrs_v0_t entry_attrs[3] = {
    {.constant_count = 1, .binding_count = 3, .workgroup_size_x = 64},
    {.constant_count = 1, .binding_count = 1},
    {.local_memory_pages = 1, .constant_count = 0, .binding_count = 1},
};
static const iree_hal_executable_library_header_t header = {
    .version = IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST,
    .name = "mul_library",
    .sanitizer = IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE,
};
static const iree_hal_executable_library_v0_t library = {
    .header = &header,
    .exports = {.count = 3, .ptrs = entry_points, .attrs = entry_attrs, .names = entry_point_names},
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
