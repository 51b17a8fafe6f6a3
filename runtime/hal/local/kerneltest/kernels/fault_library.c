// A CPU executable library whose kernels fault on purpose, for the tests of
// kernel fault reports. Every export takes one constant k, the workgroup
// (x id) that faults; the others write 1 to marks[x] (binding 0, uint32).
// The values that make them fault come from binding 1 (int64), so the
// compiler cannot see the fault coming.
//
// Exports:
//   0 null_store(k; marks, v): stores through the pointer whose bits are v[0]
//     (0: NULL -> SIGSEGV; 1 stores into v instead).
//   1 div_zero(k; marks, v): divides 1000 by v[0] (0: SIGFPE).
//   2 illegal(k; marks, v): executes ud2 (SIGILL).
//   3 overflow(k; marks, v): recurses with 4 KiB frames until the stack runs
//     out (SIGSEGV on the guard page, reported from the alternate stack).
#include "executable_library.h"

static int mark(const iree_hal_executable_dispatch_state_v0_t* ds,
                const iree_hal_executable_workgroup_state_v0_t* ws) {
  uint32_t* marks = (uint32_t*)ds->binding_ptrs[0];
  if (ws->workgroup_id_x < ds->binding_lengths[0] / sizeof(uint32_t)) marks[ws->workgroup_id_x] = 1;
  return ws->workgroup_id_x == ds->constants[0];
}

static int null_store(const iree_hal_executable_environment_v0_t* env,
                      const iree_hal_executable_dispatch_state_v0_t* ds,
                      const iree_hal_executable_workgroup_state_v0_t* ws) {
  (void)env;
  if (mark(ds, ws)) {
    // v[0] == 1 stores into binding 1 itself (the harmless case).
    int64_t v = ((const int64_t*)ds->binding_ptrs[1])[0];
    volatile int64_t* p = (volatile int64_t*)(v == 1 ? (uintptr_t)ds->binding_ptrs[1] : (uintptr_t)v);
    *p = 42;
  }
  return 0;
}

static int div_zero(const iree_hal_executable_environment_v0_t* env,
                    const iree_hal_executable_dispatch_state_v0_t* ds,
                    const iree_hal_executable_workgroup_state_v0_t* ws) {
  (void)env;
  if (mark(ds, ws)) {
    volatile int64_t q = 1000 / ((const int64_t*)ds->binding_ptrs[1])[0];
    (void)q;
  }
  return 0;
}

static int illegal(const iree_hal_executable_environment_v0_t* env,
                   const iree_hal_executable_dispatch_state_v0_t* ds,
                   const iree_hal_executable_workgroup_state_v0_t* ws) {
  (void)env;
  if (mark(ds, ws) && ((const int64_t*)ds->binding_ptrs[1])[0] == 0) __builtin_trap();
  return 0;
}

static int64_t recurse(volatile const int64_t* v, int64_t depth) {
  volatile char frame[4096];
  frame[0] = (char)depth;
  frame[4095] = (char)v[0];
  if (v[0] == 0) return recurse(v, depth + 1) + frame[0] + frame[4095];
  return depth;
}

static int overflow(const iree_hal_executable_environment_v0_t* env,
                    const iree_hal_executable_dispatch_state_v0_t* ds,
                    const iree_hal_executable_workgroup_state_v0_t* ws) {
  (void)env;
  if (mark(ds, ws)) return (int)recurse((const int64_t*)ds->binding_ptrs[1], 0);
  return 0;
}

static const iree_hal_executable_dispatch_v0_t entry_points[4] = {null_store, div_zero, illegal, overflow};
static const char* const entry_point_names[4] = {"null_store", "div_zero", "illegal", "overflow"};
static const iree_hal_executable_dispatch_attrs_v0_t entry_attrs[4] = {
    {.constant_count = 1, .binding_count = 2},
    {.constant_count = 1, .binding_count = 2},
    {.constant_count = 1, .binding_count = 2},
    {.constant_count = 1, .binding_count = 2},
};
static const iree_hal_executable_library_header_t header = {
    .version = IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST,
    .name = "fault_library",
    .sanitizer = IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE,
};
static const iree_hal_executable_library_v0_t library = {
    .header = &header,
    .exports = {.count = 4, .ptrs = entry_points, .attrs = entry_attrs, .names = entry_point_names},
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
