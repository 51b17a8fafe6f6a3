// Libraries that load as ELF but whose query results break the ABI rules;
// the runtime must refuse each one. BAD selects the defect:
//   1 entry point in a data segment    2 sanitizer set
//   3 an import nothing provides       4 no exports
//   5 expects 2 executable constants   6 header version differs
//   7 export attribute flags set       8 imports without symbol names
//   9 an import listed twice           10 an import with an empty name
//   11 the query function itself faults (reads through NULL)
#include "executable_library.h"

#ifndef BAD
#error "define BAD"
#endif

static int ok(const iree_hal_executable_environment_v0_t* env,
              const iree_hal_executable_dispatch_state_v0_t* ds,
              const iree_hal_executable_workgroup_state_v0_t* ws) {
  (void)env; (void)ds; (void)ws;
  return 0;
}

static int not_code[16] = {1};
#if BAD == 9
static const char* const import_names[2] = {"twice", "twice"};
#elif BAD == 10
static const char* const import_names[2] = {"fine", "?"};
#else
static const char* const import_names[1] = {"missing_import"};
#endif

#if BAD == 1
static const iree_hal_executable_dispatch_v0_t entry_points[1] = {
    (iree_hal_executable_dispatch_v0_t)(void*)not_code};
#else
static const iree_hal_executable_dispatch_v0_t entry_points[1] = {ok};
#endif

static const iree_hal_executable_dispatch_attrs_v0_t attrs[1] = {
    {.flags = BAD == 7 ? 1 : 0, .constant_count = 0, .binding_count = 0}};

static const iree_hal_executable_library_header_t header = {
    .version = BAD == 6 ? IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST + 1
                        : IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST,
    .name = "bad_library",
    .sanitizer = BAD == 2 ? IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS : 0,
};

static const iree_hal_executable_library_v0_t library = {
    .header = &header,
    .imports = {.count = BAD == 3 || BAD == 8 ? 1 : BAD == 9 || BAD == 10 ? 2 : 0,
                .symbols = BAD == 8 ? 0 : import_names},
    .exports = {.count = BAD == 4 ? 0 : 1, .ptrs = entry_points, .attrs = attrs},
    .constants = {.count = BAD == 5 ? 2 : 0},
};

__attribute__((visibility("default")))
const iree_hal_executable_library_header_t** iree_hal_executable_library_query(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t* environment) {
  (void)max_version;
#if BAD == 11
  // environment->constants is NULL without executable constants.
  if (environment->constants[3] != 12345) return 0;
#else
  (void)environment;
#endif
  return (const iree_hal_executable_library_header_t**)&library;
}
