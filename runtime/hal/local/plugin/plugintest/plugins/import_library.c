// An executable library with an import table, written by hand against
// executable_library.h, for the runtime's import resolution tests.
//
// Imports (sorted, as the compiler emits them): "?optional_missing",
// "scale_add". Export 0, "scale_add_tiles", takes bindings a, b, out and
// constants n, k (f32 bits); workgroup x handles elements [64x, 64x + 64)
// by calling scale_add. It fails with 55 if the optional import was
// resolved (no test plugin provides it) and with the import's own status
// when the import fails.

#include "executable_library.h"

typedef struct {
  int32_t tag;
  const float* a;
  const float* b;
  float* out;
  int64_t offset;
  int64_t n;
  float k;
  uint32_t processor_id;
  const uint64_t* processor_data;
} scale_add_params_t;

enum { IMPORT_OPTIONAL_MISSING = 0, IMPORT_SCALE_ADD = 1 };

static int scale_add_tiles(const iree_hal_executable_environment_v0_t* env,
                           const iree_hal_executable_dispatch_state_v0_t* ds,
                           const iree_hal_executable_workgroup_state_v0_t* ws) {
  if (env->import_funcs[IMPORT_OPTIONAL_MISSING] != NULL) return 55;
  uint32_t n = ds->constants[0];
  union { uint32_t u; float f; } k = {ds->constants[1]};
  int64_t begin = (int64_t)ws->workgroup_id_x * 64;
  int64_t count = (int64_t)n - begin;
  if (count > 64) count = 64;
  if (count <= 0) return 0;
  scale_add_params_t params = {
      .tag = 1234,
      .a = (const float*)ds->binding_ptrs[0],
      .b = (const float*)ds->binding_ptrs[1],
      .out = (float*)ds->binding_ptrs[2],
      .offset = begin,
      .n = count,
      .k = k.f,
      .processor_id = ws->processor_id,
      .processor_data = env->processor.data,
  };
  return env->import_thunk(env->import_funcs[IMPORT_SCALE_ADD], &params,
                           (void*)env->import_contexts[IMPORT_SCALE_ADD], NULL);
}

static const iree_hal_executable_dispatch_v0_t entry_points[1] = {scale_add_tiles};
static const char* const entry_names[1] = {"scale_add_tiles"};
static const iree_hal_executable_dispatch_attrs_v0_t entry_attrs[1] = {
    {.constant_count = 2, .binding_count = 3, .workgroup_size_x = 64},
};
static const char* const import_names[2] = {"?optional_missing", "scale_add"};

static const iree_hal_executable_library_header_t header = {
    .version = IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST,
    .name = "import_library",
};
static const iree_hal_executable_library_v0_t library = {
    .header = &header,
    .imports = {.count = 2, .symbols = import_names},
    .exports = {.count = 1, .ptrs = entry_points, .attrs = entry_attrs, .names = entry_names},
};

__attribute__((visibility("default")))
const iree_hal_executable_library_header_t** iree_hal_executable_library_query(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t* environment) {
  (void)environment;
  return max_version == IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST
             ? (const iree_hal_executable_library_header_t**)&library
             : NULL;
}
