// A standalone test plugin: freestanding, no libc, stateless. It provides
// `scale_add`, whose parameter struct exercises padding and the
// hal.import.fields values:
//
//   out[off + i] = a[off + i] * k + b[off + i]   for i in [0, n)
//
// `ukernel_axpy`, called as IREE's iree_codegen.ukernel.generic calls
// microkernels (a base pointer, an element offset and one stride per ins
// and outs operand, then the other operands):
//
//   out[i * out_stride] = k * x[i * x_stride] + y[i * y_stride]  for i in [0, n)
//
// and `fail_always`, which returns 17 so that a test can see an import's
// failure end the dispatch.

#include "executable_plugin.h"

// Tests build variants with other header fields (-DPLUGIN_FEATURES=...).
#ifndef PLUGIN_FEATURES
#define PLUGIN_FEATURES IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE
#endif
#ifndef PLUGIN_SANITIZER
#define PLUGIN_SANITIZER IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_NONE
#endif
#ifndef PLUGIN_VERSION
#define PLUGIN_VERSION IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST
#endif

// Matches the import declared as
//   func.func private @scale_add(i32, memref<f32>, memref<f32>, memref<f32>,
//                                index, index, f32)
//       attributes {hal.import.fields = ["processor_id", "processor_data"],
//                   llvm.bareptr = true}
typedef struct {
  int32_t tag;  // followed by 4 bytes of padding
  const float* a;
  const float* b;
  float* out;
  int64_t offset;
  int64_t n;
  float k;
  uint32_t processor_id;
  const uint64_t* processor_data;
} scale_add_params_t;

_Static_assert(__builtin_offsetof(scale_add_params_t, a) == 8, "a");
_Static_assert(__builtin_offsetof(scale_add_params_t, k) == 48, "k");
_Static_assert(__builtin_offsetof(scale_add_params_t, processor_id) == 52, "processor_id");
_Static_assert(__builtin_offsetof(scale_add_params_t, processor_data) == 56, "processor_data");

static int scale_add(void* params_ptr, void* context, void* reserved) {
  const scale_add_params_t* p = (const scale_add_params_t*)params_ptr;
  (void)reserved;
  // The tag must arrive intact and the context is what resolve stored.
  if (p->tag != 1234 || context != (void*)0x5a) return 99;
  // processor_data points at the environment's processor words; an
  // x86-64 host has at least SSE3 (bit 0) there.
  if (!p->processor_data) return 98;
  for (int64_t i = 0; i < p->n; ++i) {
    p->out[p->offset + i] = p->a[p->offset + i] * p->k + p->b[p->offset + i];
  }
  return 0;
}

// strided_dims([[0], [0], [0]]) with other operands (n : index, k : f32)
// and hal.import.fields = ["processor_id"].
typedef struct {
  const float* x;
  int64_t x_offset;
  int64_t x_stride;
  const float* y;
  int64_t y_offset;
  int64_t y_stride;
  float* out;
  int64_t out_offset;
  int64_t out_stride;
  int64_t n;
  float k;
  uint32_t processor_id;
} ukernel_axpy_params_t;

static int ukernel_axpy(void* params_ptr, void* context, void* reserved) {
  const ukernel_axpy_params_t* p = (const ukernel_axpy_params_t*)params_ptr;
  (void)context, (void)reserved;
  for (int64_t i = 0; i < p->n; ++i) {
    p->out[p->out_offset + i * p->out_stride] =
        p->k * p->x[p->x_offset + i * p->x_stride] + p->y[p->y_offset + i * p->y_stride];
  }
  return 0;
}

static int fail_always(void* params, void* context, void* reserved) {
  (void)params, (void)context, (void)reserved;
  return 17;
}

static iree_hal_executable_plugin_status_t plugin_load(
    const iree_hal_executable_plugin_environment_v0_t* environment,
    size_t param_count, const iree_hal_executable_plugin_string_pair_t* params,
    void** out_self) {
  (void)environment, (void)param_count, (void)params;
  *out_self = (void*)0;
  return iree_hal_executable_plugin_ok_status();
}

static void plugin_unload(void* self) { (void)self; }

static int equal(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

static iree_hal_executable_plugin_status_t plugin_resolve(
    void* self, const iree_hal_executable_plugin_resolve_params_v0_t* params,
    iree_hal_executable_plugin_resolution_t* out_resolution) {
  (void)self;
  *out_resolution = 0;
  int missing = 0;
  for (size_t i = 0; i < params->count; ++i) {
    if (params->out_fn_ptrs[i]) continue;
    const char* name = params->symbol_names[i];
    int optional = name[0] == '?';
    if (optional) ++name;
    if (equal(name, "scale_add")) {
      params->out_fn_ptrs[i] = (void*)scale_add;
      params->out_fn_contexts[i] = (void*)0x5a;
    } else if (equal(name, "ukernel_axpy")) {
      params->out_fn_ptrs[i] = (void*)ukernel_axpy;
      params->out_fn_contexts[i] = (void*)0;
    } else if (equal(name, "fail_always")) {
      params->out_fn_ptrs[i] = (void*)fail_always;
      params->out_fn_contexts[i] = (void*)0;
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
      .version = PLUGIN_VERSION,
      .name = "test_standalone",
      .description = "goiree test plugin (freestanding ELF)",
      .features = PLUGIN_FEATURES,
      .sanitizer = PLUGIN_SANITIZER,
  };
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header,
      .load = plugin_load,
      .unload = plugin_unload,
      .resolve = plugin_resolve,
  };
  return max_version >= IREE_HAL_EXECUTABLE_PLUGIN_VERSION_0_1
             ? (const iree_hal_executable_plugin_header_t**)&plugin
             : (const iree_hal_executable_plugin_header_t**)0;
}
