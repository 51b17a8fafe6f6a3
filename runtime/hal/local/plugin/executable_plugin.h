// executable_plugin.h: the CPU executable plugin C ABI of the goiree runtime.
//
// A plugin supplies the functions that compiled CPU executables import: a
// dispatch function declared in the program without `hal.import.static`
// becomes an entry of its executable's import table, and the runtime asks
// the loaded plugins for each entry when the executable is created.
//
// The layout is the one IREE's runtime uses for its executable plugins
// (version 0.1), so plugins built for IREE load here unchanged, and the
// names and helpers IREE's plugin sources use (allocator_malloc/free,
// import_is_optional, strcmp, SANITIZER_KIND, status codes) are declared,
// so their sources build against this header too. It was written for
// goiree and is self-contained (C standard headers only), so plugins can be
// built without the runtime's sources.
//
// A plugin is one of two kinds, told apart by the file's contents:
//
//   * a system plugin: an ordinary shared library (`clang -shared -fPIC`),
//     loaded with dlopen. It may use libc, threads and I/O.
//   * a standalone plugin: a freestanding ELF linked like the compiler's
//     CPU executables (`ld.lld -shared -nostdlib -static --no-undefined`),
//     loaded by the runtime's own ELF loader on any host OS. It must set
//     IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE and may not depend on
//     anything but the plugin environment.
//
// Both export one function, IREE_HAL_EXECUTABLE_PLUGIN_EXPORT_NAME, which
// returns (for max_version >= its version) the address of an
// iree_hal_executable_plugin_v0_t. The runtime then calls load once, resolve
// for every executable that has imports, and unload at shutdown.
//
// Imports are called through the executable environment's import thunk as
//
//   int fn(void* params, void* context, void* reserved);
//
// where params points at a struct with natural C alignment holding the
// import's results, then its arguments in declaration order (an `index` is
// a 64-bit integer, a memref with llvm.bareptr one pointer, otherwise its
// descriptor fields: base, aligned, offset, sizes..., strides...), then the
// fields named by hal.import.fields ("processor_id": uint32_t,
// "processor_data": const uint64_t*). context is the value resolve stored
// for the import. A non-zero result fails the dispatch.

#ifndef GOIREE_HAL_LOCAL_EXECUTABLE_PLUGIN_H_
#define GOIREE_HAL_LOCAL_EXECUTABLE_PLUGIN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t iree_hal_executable_plugin_version_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_VERSION_0_1 0x00000001u
#define IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST \
  IREE_HAL_EXECUTABLE_PLUGIN_VERSION_0_1

#define IREE_HAL_EXECUTABLE_PLUGIN_EXPORT_NAME "iree_hal_executable_plugin_query"
#define IREE_HAL_EXECUTABLE_PLUGIN_EXPORT __attribute__((visibility("default")))

// Feature bits of a plugin header.
typedef uint32_t iree_hal_executable_plugin_features_t;
// The plugin needs nothing from the system (required for standalone ELFs).
#define IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE (1u << 0)
// The plugin returns IREE runtime status objects; goiree refuses it.
#define IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_FULL_STATUS (1u << 1)

// Sanitizer a plugin was built with; goiree accepts only NONE.
typedef int32_t iree_hal_executable_plugin_sanitizer_kind_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_NONE 0
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_ADDRESS 1
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_MEMORY 2
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_THREAD 3
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_UNDEFINED 4
// The sanitizer this translation unit is built with, for the header field.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_KIND 1
#elif __has_feature(memory_sanitizer)
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_KIND 2
#elif __has_feature(thread_sanitizer)
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_KIND 3
#endif
#endif
#ifndef IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_KIND
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_KIND 0
#endif

typedef struct iree_hal_executable_plugin_header_t {
  iree_hal_executable_plugin_version_t version;
  const char* name;         // for messages; NUL-terminated
  const char* description;  // for messages; may be NULL
  iree_hal_executable_plugin_features_t features;
  iree_hal_executable_plugin_sanitizer_kind_t sanitizer;
  uint64_t reserved[8];
} iree_hal_executable_plugin_header_t;

typedef const iree_hal_executable_plugin_header_t** (
    *iree_hal_executable_plugin_query_fn_t)(
    iree_hal_executable_plugin_version_t max_version, void* reserved);

// Status: a pointer-sized value whose low 5 bits are a status code (0 = OK,
// 5 = NOT_FOUND, 8 = RESOURCE_EXHAUSTED, ...; the codes of absl/IREE).
typedef struct iree_status_handle_t* iree_hal_executable_plugin_status_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_OK 0
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_NOT_FOUND 5
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_RESOURCE_EXHAUSTED 8
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_CODE_MASK 0x1Fu
#define iree_hal_executable_plugin_status_from_code(code) \
  ((iree_hal_executable_plugin_status_t)(uintptr_t)(      \
      (code) & IREE_HAL_EXECUTABLE_PLUGIN_STATUS_CODE_MASK))
#define iree_hal_executable_plugin_ok_status() \
  iree_hal_executable_plugin_status_from_code(0)
#define iree_hal_executable_plugin_status_is_ok(value) ((uintptr_t)(value) == 0)

// Host allocator handed to load; plugins allocate their state through it.
typedef enum iree_hal_executable_plugin_allocator_command_e {
  IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_MALLOC = 0,
  IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_CALLOC = 1,
  IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_REALLOC = 2,
  IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_FREE = 3,
} iree_hal_executable_plugin_allocator_command_t;

typedef struct iree_hal_executable_plugin_allocator_alloc_params_t {
  size_t byte_length;
} iree_hal_executable_plugin_allocator_alloc_params_t;

typedef iree_hal_executable_plugin_status_t (
    *iree_hal_executable_plugin_allocator_ctl_fn_t)(
    void* self, iree_hal_executable_plugin_allocator_command_t command,
    const void* params, void** inout_ptr);

typedef struct iree_hal_executable_plugin_allocator_t {
  void* self;
  iree_hal_executable_plugin_allocator_ctl_fn_t ctl;
} iree_hal_executable_plugin_allocator_t;

// Convenience wrappers of the allocator's ctl function.
static inline iree_hal_executable_plugin_status_t
iree_hal_executable_plugin_allocator_malloc(
    iree_hal_executable_plugin_allocator_t allocator, size_t byte_length,
    void** inout_ptr) {
  iree_hal_executable_plugin_allocator_alloc_params_t params = {byte_length};
  return allocator.ctl(allocator.self,
                       IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_MALLOC,
                       &params, inout_ptr);
}

static inline iree_hal_executable_plugin_status_t
iree_hal_executable_plugin_allocator_free(
    iree_hal_executable_plugin_allocator_t allocator, void* ptr) {
  return allocator.ctl(allocator.self,
                       IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_FREE, NULL,
                       &ptr);
}

typedef struct iree_hal_executable_plugin_string_view_t {
  const char* data;
  size_t size;
} iree_hal_executable_plugin_string_view_t;

typedef struct iree_hal_executable_plugin_string_pair_t {
  iree_hal_executable_plugin_string_view_t key;
  iree_hal_executable_plugin_string_view_t value;
} iree_hal_executable_plugin_string_pair_t;

typedef struct iree_hal_executable_plugin_environment_v0_t {
  iree_hal_executable_plugin_allocator_t host_allocator;
} iree_hal_executable_plugin_environment_v0_t;

// Resolution result bits.
typedef uint32_t iree_hal_executable_plugin_resolution_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_RESOLUTION_MISSING_OPTIONAL (1u << 0)

// Whether an import name is optional (starts with '?').
static inline bool iree_hal_executable_plugin_import_is_optional(
    const char* symbol_name) {
  return symbol_name && symbol_name[0] == '?';
}

// strcmp for plugins that cannot use libc (standalone plugins).
static inline int iree_hal_executable_plugin_strcmp(const char* lhs,
                                                    const char* rhs) {
  while (*lhs && *lhs == *rhs) ++lhs, ++rhs;
  return (int)(unsigned char)*lhs - (int)(unsigned char)*rhs;
}

// One resolve request: count symbols (sorted; a '?' prefix marks an
// optional import) and the runtime's arrays to fill. Entries already
// non-NULL were resolved by another plugin and must be left alone. A plugin
// returns NOT_FOUND when it lacks a required symbol (after filling what it
// has), OK otherwise.
typedef struct iree_hal_executable_plugin_resolve_params_v0_t {
  size_t count;
  const char* const* symbol_names;
  void** out_fn_ptrs;
  void** out_fn_contexts;
} iree_hal_executable_plugin_resolve_params_v0_t;

typedef struct iree_hal_executable_plugin_v0_t {
  const iree_hal_executable_plugin_header_t* header;
  iree_hal_executable_plugin_status_t (*load)(
      const iree_hal_executable_plugin_environment_v0_t* environment,
      size_t param_count,
      const iree_hal_executable_plugin_string_pair_t* params, void** out_self);
  void (*unload)(void* self);
  iree_hal_executable_plugin_status_t (*resolve)(
      void* self, const iree_hal_executable_plugin_resolve_params_v0_t* params,
      iree_hal_executable_plugin_resolution_t* out_resolution);
} iree_hal_executable_plugin_v0_t;

#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(iree_hal_executable_plugin_header_t) == 96, "header size");
_Static_assert(offsetof(iree_hal_executable_plugin_header_t, features) == 24, "header.features");
_Static_assert(sizeof(iree_hal_executable_plugin_v0_t) == 32, "plugin size");
_Static_assert(sizeof(iree_hal_executable_plugin_resolve_params_v0_t) == 32, "resolve params size");
_Static_assert(sizeof(iree_hal_executable_plugin_string_pair_t) == 32, "string pair size");
#endif

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // GOIREE_HAL_LOCAL_EXECUTABLE_PLUGIN_H_
