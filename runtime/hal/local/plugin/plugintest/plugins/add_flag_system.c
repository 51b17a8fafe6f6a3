// A system test plugin for kernels spliced in by PDL's rewriteAsFlowDispatch:
// it provides `add_flag`, whose parameter struct is what that rewrite
// passes (each tensor's base pointer and offset, then the scalars),
//
//   out[i] = (a[i] + b[i]) * (twice ? 2 : 1),   0 <= i < n.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "executable_plugin.h"

typedef struct {
  const float* a;
  size_t a_offset;
  const float* b;
  size_t b_offset;
  float* out;
  size_t out_offset;
  int32_t n;
  bool twice;
} add_flag_params_t;

static int add_flag(void* params_ptr, void* context, void* reserved) {
  const add_flag_params_t* p = (const add_flag_params_t*)params_ptr;
  (void)context, (void)reserved;
  float scale = p->twice ? 2.0f : 1.0f;
  for (int32_t i = 0; i < p->n; ++i) {
    p->out[p->out_offset + i] = (p->a[p->a_offset + i] + p->b[p->b_offset + i]) * scale;
  }
  return 0;
}

static iree_hal_executable_plugin_status_t plugin_load(
    const iree_hal_executable_plugin_environment_v0_t* environment,
    size_t param_count, const iree_hal_executable_plugin_string_pair_t* params,
    void** out_self) {
  (void)environment, (void)param_count, (void)params;
  *out_self = NULL;
  return iree_hal_executable_plugin_ok_status();
}

static void plugin_unload(void* self) { (void)self; }

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
    if (strcmp(name, "add_flag") == 0) {
      params->out_fn_ptrs[i] = (void*)add_flag;
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
      .name = "test_add_flag",
      .description = "goiree test plugin for PDL-spliced kernels",
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
