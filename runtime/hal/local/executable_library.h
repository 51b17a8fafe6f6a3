// executable_library.h: the CPU executable C ABI of the goiree runtime.
//
// A CPU executable is a freestanding x86-64 (or aarch64) shared object,
// linked with `ld.lld -shared -nostdlib -static --no-undefined -z now`, that
// exports exactly one public symbol:
//
//   const iree_hal_executable_library_header_t** iree_hal_executable_library_query(
//       iree_hal_executable_library_version_t max_version,
//       const iree_hal_executable_environment_v0_t* environment);
//
// The runtime loads the object with its own ELF loader (no dlopen), calls
// the query function with max_version = IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST
// and receives the address of an iree_hal_executable_library_v0_t whose first
// member points at the library header. A library that cannot serve
// max_version returns NULL and the runtime refuses it ("executable does not
// support this version of the runtime").
//
// The library lists its exports: parallel arrays of entry points, names and
// per-export attributes (constant count, binding count, local memory pages,
// workgroup size). Each entry point processes one workgroup:
//
//   int fn(const iree_hal_executable_environment_v0_t* environment,
//          const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
//          const iree_hal_executable_workgroup_state_v0_t* workgroup_state);
//
// and returns 0 on success. A non-zero result is a fatal dispatch error: the
// runtime stops scheduling the dispatch's remaining workgroups and reports
// the first failure. Kernels should clamp out-of-range accesses rather than
// fail.
//
// Rules for kernels: no libc, no TLS, no syscalls, no heap; all state comes
// from the three arguments. Pointers in the dispatch state are valid only for
// the duration of the call. The dispatch state is shared by all workgroups of
// a dispatch and may be read concurrently; the workgroup state is private to
// the call.
//
// Layouts assume a 64-bit target with natural alignment; the static asserts
// at the end pin every size and offset.
//
// This header is written for this project in the spirit of IREE's embedded
// ELF ABI (v0.x); it is not IREE's header and libraries built against IREE's
// header are rejected by the version check.

#ifndef GOIREE_HAL_LOCAL_EXECUTABLE_LIBRARY_H_
#define GOIREE_HAL_LOCAL_EXECUTABLE_LIBRARY_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Versioning
//===----------------------------------------------------------------------===//

// Library ABI version. The high 16 bits are 'G','O' so that an IREE library
// (whose versions are small integers) never matches by accident.
typedef uint32_t iree_hal_executable_library_version_t;

#define IREE_HAL_EXECUTABLE_LIBRARY_VERSION_GOIREE_0_1 0x474F0001u
#define IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST \
  IREE_HAL_EXECUTABLE_LIBRARY_VERSION_GOIREE_0_1

// Name of the one exported symbol.
#define IREE_HAL_EXECUTABLE_LIBRARY_EXPORT_NAME \
  "iree_hal_executable_library_query"

// Size of one page of workgroup-local memory.
#define IREE_HAL_WORKGROUP_LOCAL_MEMORY_PAGE_SIZE 4096

// Limits the runtime enforces.
#define IREE_HAL_EXECUTABLE_MAX_CONSTANT_COUNT 64
#define IREE_HAL_EXECUTABLE_MAX_BINDING_COUNT 64

// Sanitizer a library was built with; the runtime accepts only NONE.
typedef enum iree_hal_executable_library_sanitizer_kind_e {
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE = 0,
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS = 1,
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_MEMORY = 2,
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_THREAD = 3,
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_UNDEFINED = 4,
} iree_hal_executable_library_sanitizer_kind_t;

// First thing the query result points at.
typedef struct iree_hal_executable_library_header_t {
  // Version the library implements; must equal the requested max_version.
  iree_hal_executable_library_version_t version;
  // Feature bits; must be 0 in this version.
  uint32_t features;
  // Library name for diagnostics (NUL-terminated, may be NULL).
  const char* name;
  // iree_hal_executable_library_sanitizer_kind_t.
  int32_t sanitizer;
  uint32_t reserved;
} iree_hal_executable_library_header_t;

//===----------------------------------------------------------------------===//
// Environment (per executable, passed to every call)
//===----------------------------------------------------------------------===//

// Processor information. data[0] holds the IREE_HAL_PROCESSOR_X86_64_*
// feature bits on x86-64, at the positions IREE's cpu_data.h gives them
// (so plugins and kernels written for IREE read them unchanged); the rest
// is reserved and zero.
typedef struct iree_hal_processor_v0_t {
  uint64_t data[8];
} iree_hal_processor_v0_t;

#define IREE_HAL_PROCESSOR_X86_64_SSE3 (1ull << 0)
#define IREE_HAL_PROCESSOR_X86_64_SSSE3 (1ull << 1)
#define IREE_HAL_PROCESSOR_X86_64_SSE41 (1ull << 2)
#define IREE_HAL_PROCESSOR_X86_64_SSE42 (1ull << 3)
#define IREE_HAL_PROCESSOR_X86_64_AVX (1ull << 10)
#define IREE_HAL_PROCESSOR_X86_64_FMA (1ull << 11)
#define IREE_HAL_PROCESSOR_X86_64_F16C (1ull << 14)
#define IREE_HAL_PROCESSOR_X86_64_AVX2 (1ull << 15)
#define IREE_HAL_PROCESSOR_X86_64_AVX512F (1ull << 20)
#define IREE_HAL_PROCESSOR_X86_64_AVX512CD (1ull << 21)
#define IREE_HAL_PROCESSOR_X86_64_AVX512VL (1ull << 22)
#define IREE_HAL_PROCESSOR_X86_64_AVX512DQ (1ull << 23)
#define IREE_HAL_PROCESSOR_X86_64_AVX512BW (1ull << 24)
#define IREE_HAL_PROCESSOR_X86_64_AVX512VNNI (1ull << 28)

// Imports: functions a library calls that are resolved when the runtime
// creates the executable, from the loaded executable plugins (see
// runtime/hal/local/plugin/executable_plugin.h). Import i of the library's
// import table is called as
//
//   environment->import_thunk(environment->import_funcs[i], params,
//                             (void*)environment->import_contexts[i], NULL)
//
// where params points at the import's parameter struct (results, then
// arguments, then requested fields, with natural C alignment) and a
// non-zero result is a failure the entry point should return. An optional
// import (name prefixed with '?') that no plugin provides has a NULL
// function.
typedef int (*iree_hal_executable_import_v0_t)(void* params, void* context,
                                                void* reserved);
typedef int (*iree_hal_executable_import_thunk_v0_t)(
    iree_hal_executable_import_v0_t fn, void* params, void* context,
    void* reserved);

typedef struct iree_hal_executable_environment_v0_t {
  // Executable-level specialization constants (count in the library's
  // constant table), or NULL when there are none.
  const uint32_t* constants;
  // The import thunk and the resolved import functions and their contexts,
  // in import table order; all NULL when the library has no imports.
  iree_hal_executable_import_thunk_v0_t import_thunk;
  const iree_hal_executable_import_v0_t* import_funcs;
  const void** import_contexts;
  // The processor the executable runs on.
  iree_hal_processor_v0_t processor;
} iree_hal_executable_environment_v0_t;

//===----------------------------------------------------------------------===//
// Dispatch state (per dispatch, shared by all workgroups)
//===----------------------------------------------------------------------===//

typedef struct iree_hal_executable_dispatch_state_v0_t {
  // Workgroup size from the export attributes (1,1,1 when undeclared).
  uint32_t workgroup_size_x;
  uint32_t workgroup_size_y;
  uint16_t workgroup_size_z;
  // Number of 32-bit dispatch constants in `constants`.
  uint16_t constant_count;
  // Number of workgroups in the dispatch grid.
  uint32_t workgroup_count_x;
  uint32_t workgroup_count_y;
  uint16_t workgroup_count_z;
  // Upper bound (exclusive) of workgroup_state.processor_id.
  uint8_t max_concurrency;
  // Number of entries in binding_ptrs and binding_lengths.
  uint8_t binding_count;
  // Dispatch constants (the values pushed with the dispatch).
  const uint32_t* constants;
  // Base pointer of each bound buffer range, in binding order.
  void* const* binding_ptrs;
  // Length in bytes of each bound range.
  const size_t* binding_lengths;
} iree_hal_executable_dispatch_state_v0_t;

//===----------------------------------------------------------------------===//
// Workgroup state (per call)
//===----------------------------------------------------------------------===//

typedef struct iree_hal_executable_workgroup_state_v0_t {
  // Coordinates of the workgroup in the grid.
  uint32_t workgroup_id_x;
  uint32_t workgroup_id_y;
  uint16_t workgroup_id_z;
  uint16_t reserved;
  // Id of the worker running the call, in [0, max_concurrency).
  uint32_t processor_id;
  // Workgroup-local scratch memory (local_memory_pages * 4096 bytes as
  // declared by the export), or NULL when none was requested. Contents are
  // undefined on entry.
  void* local_memory;
  uint32_t local_memory_size;
  uint32_t reserved2;
} iree_hal_executable_workgroup_state_v0_t;

//===----------------------------------------------------------------------===//
// Exports
//===----------------------------------------------------------------------===//

typedef int (*iree_hal_executable_dispatch_v0_t)(
    const iree_hal_executable_environment_v0_t* environment,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    const iree_hal_executable_workgroup_state_v0_t* workgroup_state);

// Per-export attributes (64 bytes). When a library provides attributes, the
// runtime rejects dispatches whose constant or binding counts differ from
// the declared ones.
typedef struct iree_hal_executable_dispatch_attrs_v0_t {
  // Reserved flag bits; 0 in this version.
  uint64_t flags;
  // Workgroup-local memory needed, in IREE_HAL_WORKGROUP_LOCAL_MEMORY_PAGE_SIZE pages.
  uint16_t local_memory_pages;
  // Number of dispatch constants and bindings the export expects.
  uint8_t constant_count;
  uint8_t binding_count;
  // Declared workgroup size (0 = 1).
  uint32_t workgroup_size_x;
  uint32_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t reserved0;
  uint64_t reserved[5];
} iree_hal_executable_dispatch_attrs_v0_t;

// Parallel arrays of `count` entries. `ptrs` is required; `attrs` and
// `names` may be NULL (no attributes: no local memory, counts unchecked).
typedef struct iree_hal_executable_export_table_v0_t {
  uint32_t count;
  const iree_hal_executable_dispatch_v0_t* ptrs;
  const iree_hal_executable_dispatch_attrs_v0_t* attrs;
  const char* const* names;
  const char* const* tags;
  const void* reserved;
} iree_hal_executable_export_table_v0_t;

// Imports: count symbol names, sorted, each optionally prefixed with '?'
// (optional import). The runtime resolves them before the first dispatch.
typedef struct iree_hal_executable_import_table_v0_t {
  uint32_t count;
  const char* const* symbols;
} iree_hal_executable_import_table_v0_t;

// Executable-level specialization constants the library expects.
typedef struct iree_hal_executable_constant_table_v0_t {
  uint32_t count;
} iree_hal_executable_constant_table_v0_t;

// What the query function returns the address of.
typedef struct iree_hal_executable_library_v0_t {
  const iree_hal_executable_library_header_t* header;
  iree_hal_executable_import_table_v0_t imports;
  iree_hal_executable_export_table_v0_t exports;
  iree_hal_executable_constant_table_v0_t constants;
} iree_hal_executable_library_v0_t;

typedef const iree_hal_executable_library_header_t** (
    *iree_hal_executable_library_query_fn_t)(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t* environment);

//===----------------------------------------------------------------------===//
// Layout checks
//===----------------------------------------------------------------------===//

#if defined(__x86_64__) || defined(__aarch64__)
#define GOIREE_ABI_CHECK(cond, msg) _Static_assert(cond, msg)
GOIREE_ABI_CHECK(sizeof(iree_hal_executable_library_header_t) == 24, "header size");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_library_header_t, name) == 8, "header.name");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_library_header_t, sanitizer) == 16, "header.sanitizer");
GOIREE_ABI_CHECK(sizeof(iree_hal_processor_v0_t) == 64, "processor size");
GOIREE_ABI_CHECK(sizeof(iree_hal_executable_environment_v0_t) == 96, "environment size");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_environment_v0_t, processor) == 32, "environment.processor");
GOIREE_ABI_CHECK(sizeof(iree_hal_executable_dispatch_state_v0_t) == 48, "dispatch state size");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_state_v0_t, constant_count) == 10, "dispatch_state.constant_count");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_state_v0_t, workgroup_count_x) == 12, "dispatch_state.workgroup_count_x");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_state_v0_t, max_concurrency) == 22, "dispatch_state.max_concurrency");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_state_v0_t, binding_count) == 23, "dispatch_state.binding_count");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_state_v0_t, constants) == 24, "dispatch_state.constants");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_state_v0_t, binding_ptrs) == 32, "dispatch_state.binding_ptrs");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_state_v0_t, binding_lengths) == 40, "dispatch_state.binding_lengths");
GOIREE_ABI_CHECK(sizeof(iree_hal_executable_workgroup_state_v0_t) == 32, "workgroup state size");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_workgroup_state_v0_t, processor_id) == 12, "workgroup_state.processor_id");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_workgroup_state_v0_t, local_memory) == 16, "workgroup_state.local_memory");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_workgroup_state_v0_t, local_memory_size) == 24, "workgroup_state.local_memory_size");
GOIREE_ABI_CHECK(sizeof(iree_hal_executable_dispatch_attrs_v0_t) == 64, "dispatch attrs size");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_attrs_v0_t, local_memory_pages) == 8, "attrs.local_memory_pages");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_attrs_v0_t, constant_count) == 10, "attrs.constant_count");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_attrs_v0_t, binding_count) == 11, "attrs.binding_count");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_attrs_v0_t, workgroup_size_x) == 12, "attrs.workgroup_size_x");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_dispatch_attrs_v0_t, workgroup_size_z) == 20, "attrs.workgroup_size_z");
GOIREE_ABI_CHECK(sizeof(iree_hal_executable_export_table_v0_t) == 48, "export table size");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_export_table_v0_t, ptrs) == 8, "exports.ptrs");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_export_table_v0_t, attrs) == 16, "exports.attrs");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_export_table_v0_t, names) == 24, "exports.names");
GOIREE_ABI_CHECK(sizeof(iree_hal_executable_library_v0_t) == 80, "library size");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_library_v0_t, imports) == 8, "library.imports");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_library_v0_t, exports) == 24, "library.exports");
GOIREE_ABI_CHECK(offsetof(iree_hal_executable_library_v0_t, constants) == 72, "library.constants");
#undef GOIREE_ABI_CHECK
#endif

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // GOIREE_HAL_LOCAL_EXECUTABLE_LIBRARY_H_
