// A library that only answers for IREE's ABI version 3, as an IREE-built
// library would: the runtime must refuse it.
#include "executable_library.h"

static int nop(const iree_hal_executable_environment_v0_t* env,
               const iree_hal_executable_dispatch_state_v0_t* ds,
               const iree_hal_executable_workgroup_state_v0_t* ws) {
  (void)env; (void)ds; (void)ws;
  return 0;
}
static const iree_hal_executable_dispatch_v0_t entry_points[1] = {nop};
static const iree_hal_executable_library_header_t header = {.version = 3};
static const iree_hal_executable_library_v0_t library = {
    .header = &header, .exports = {.count = 1, .ptrs = entry_points}};

__attribute__((visibility("default")))
const iree_hal_executable_library_header_t** iree_hal_executable_library_query(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t* environment) {
  (void)environment;
  return max_version == 3 ? (const iree_hal_executable_library_header_t**)&library : 0;
}
