// A system test plugin: an ordinary shared library using libc. It provides
// `scale_add` with the parameter struct of scale_add_standalone.c, computing
//
//   out[off + i] = a[off + i] * k + b[off + i] + 1000
//
// (the +1000 tells a test which plugin ran), keeps its state in memory from
// the host allocator, and appends one line per call to the file named by
// the environment variable GOIREE_TEST_PLUGIN_LOG when it is set.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executable_plugin.h"

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

typedef struct {
  iree_hal_executable_plugin_allocator_t allocator;
  FILE* log;
} plugin_state_t;

static int scale_add(void* params_ptr, void* context, void* reserved) {
  const scale_add_params_t* p = (const scale_add_params_t*)params_ptr;
  plugin_state_t* state = (plugin_state_t*)context;
  (void)reserved;
  if (p->tag != 1234) return 99;
  for (int64_t i = 0; i < p->n; ++i) {
    p->out[p->offset + i] = p->a[p->offset + i] * p->k + p->b[p->offset + i] + 1000.0f;
  }
  if (state->log) {
    fprintf(state->log, "scale_add offset=%lld n=%lld k=%g\n", (long long)p->offset,
            (long long)p->n, p->k);
  }
  return 0;
}

static iree_hal_executable_plugin_status_t plugin_load(
    const iree_hal_executable_plugin_environment_v0_t* environment,
    size_t param_count, const iree_hal_executable_plugin_string_pair_t* params,
    void** out_self) {
  (void)param_count, (void)params;
  plugin_state_t* state = NULL;
  iree_hal_executable_plugin_allocator_alloc_params_t alloc = {sizeof(*state)};
  iree_hal_executable_plugin_status_t status = environment->host_allocator.ctl(
      environment->host_allocator.self, IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_CALLOC,
      &alloc, (void**)&state);
  if (status) return status;
  state->allocator = environment->host_allocator;
  const char* path = getenv("GOIREE_TEST_PLUGIN_LOG");
  state->log = path && *path ? fopen(path, "a") : NULL;
  *out_self = state;
  return iree_hal_executable_plugin_ok_status();
}

static void plugin_unload(void* self) {
  plugin_state_t* state = (plugin_state_t*)self;
  if (state->log) fclose(state->log);
  void* ptr = state;
  state->allocator.ctl(state->allocator.self, IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_FREE,
                       NULL, &ptr);
}

static iree_hal_executable_plugin_status_t plugin_resolve(
    void* self, const iree_hal_executable_plugin_resolve_params_v0_t* params,
    iree_hal_executable_plugin_resolution_t* out_resolution) {
  *out_resolution = 0;
  int missing = 0;
  for (size_t i = 0; i < params->count; ++i) {
    if (params->out_fn_ptrs[i]) continue;
    const char* name = params->symbol_names[i];
    int optional = name[0] == '?';
    if (optional) ++name;
    if (strcmp(name, "scale_add") == 0) {
      params->out_fn_ptrs[i] = (void*)scale_add;
      params->out_fn_contexts[i] = self;
    } else if (optional) {
      *out_resolution |= IREE_HAL_EXECUTABLE_PLUGIN_RESOLUTION_MISSING_OPTIONAL;
    } else {
      missing = 1;
    }
  }
  return iree_hal_executable_plugin_status_from_code(
      missing ? IREE_HAL_EXECUTABLE_PLUGIN_STATUS_NOT_FOUND : 0);
}

IREE_HAL_EXECUTABLE_PLUGIN_EXPORT const iree_hal_executable_plugin_header_t**
iree_hal_executable_plugin_query(iree_hal_executable_plugin_version_t max_version,
                                 void* reserved) {
  (void)reserved;
  static const iree_hal_executable_plugin_header_t header = {
      .version = IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST,
      .name = "test_system",
      .description = "goiree test plugin (shared library)",
      .features = 0,
      .sanitizer = IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_NONE,
  };
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header,
      .load = plugin_load,
      .unload = plugin_unload,
      .resolve = plugin_resolve,
  };
  return max_version >= IREE_HAL_EXECUTABLE_PLUGIN_VERSION_0_1
             ? (const iree_hal_executable_plugin_header_t**)&plugin
             : NULL;
}
