package llvmcpu

// abiVersion is IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST of the runtime's
// executable_library.h; abi_test.go checks that both agree.
const abiVersion = 0x474F0001

// abiPrelude declares the parts of the runtime's CPU executable ABI that
// generated libraries use. The generated C is self-contained (it needs no
// include path); the layouts are the runtime header's, which abi_test.go
// checks field by field with static asserts compiled by clang.
const abiPrelude = `typedef __UINT8_TYPE__ uint8_t;
typedef __INT8_TYPE__ int8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __INT16_TYPE__ int16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __INT32_TYPE__ int32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INT64_TYPE__ int64_t;
typedef __SIZE_TYPE__ size_t;

typedef struct gi_library_header_t {
  uint32_t version;
  uint32_t features;
  const char* name;
  int32_t sanitizer;
  uint32_t reserved;
} gi_library_header_t;

typedef struct gi_processor_t {
  uint64_t data[8];
} gi_processor_t;

typedef struct gi_environment_t {
  const uint32_t* constants;
  void* import_thunk;
  const void* import_funcs;
  const void** import_contexts;
  gi_processor_t processor;
} gi_environment_t;

typedef struct gi_dispatch_state_t {
  uint32_t workgroup_size_x;
  uint32_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t constant_count;
  uint32_t workgroup_count_x;
  uint32_t workgroup_count_y;
  uint16_t workgroup_count_z;
  uint8_t max_concurrency;
  uint8_t binding_count;
  const uint32_t* constants;
  void* const* binding_ptrs;
  const size_t* binding_lengths;
} gi_dispatch_state_t;

typedef struct gi_workgroup_state_t {
  uint32_t workgroup_id_x;
  uint32_t workgroup_id_y;
  uint16_t workgroup_id_z;
  uint16_t reserved;
  uint32_t processor_id;
  void* local_memory;
  uint32_t local_memory_size;
  uint32_t reserved2;
} gi_workgroup_state_t;

typedef int (*gi_dispatch_fn_t)(const gi_environment_t*, const gi_dispatch_state_t*, const gi_workgroup_state_t*);

typedef struct gi_dispatch_attrs_t {
  uint64_t flags;
  uint16_t local_memory_pages;
  uint8_t constant_count;
  uint8_t binding_count;
  uint32_t workgroup_size_x;
  uint32_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t reserved0;
  uint64_t reserved[5];
} gi_dispatch_attrs_t;

typedef struct gi_export_table_t {
  uint32_t count;
  const gi_dispatch_fn_t* ptrs;
  const gi_dispatch_attrs_t* attrs;
  const char* const* names;
  const char* const* tags;
  const void* reserved;
} gi_export_table_t;

typedef struct gi_import_table_t {
  uint32_t count;
  const char* const* symbols;
} gi_import_table_t;

typedef struct gi_constant_table_t {
  uint32_t count;
} gi_constant_table_t;

typedef struct gi_library_t {
  const gi_library_header_t* header;
  gi_import_table_t imports;
  gi_export_table_t exports;
  gi_constant_table_t constants;
} gi_library_t;
`

// abiPairs lists (generated type, runtime type) pairs and the fields the
// sync test compares.
var abiPairs = []struct {
	ours, theirs string
	fields       []string
}{
	{"gi_library_header_t", "iree_hal_executable_library_header_t", []string{"version", "features", "name", "sanitizer"}},
	{"gi_processor_t", "iree_hal_processor_v0_t", []string{"data"}},
	{"gi_environment_t", "iree_hal_executable_environment_v0_t", []string{"constants", "import_thunk", "import_funcs", "import_contexts", "processor"}},
	{"gi_dispatch_state_t", "iree_hal_executable_dispatch_state_v0_t", []string{"workgroup_size_x", "workgroup_size_y", "workgroup_size_z", "constant_count",
		"workgroup_count_x", "workgroup_count_y", "workgroup_count_z", "max_concurrency", "binding_count", "constants", "binding_ptrs", "binding_lengths"}},
	{"gi_workgroup_state_t", "iree_hal_executable_workgroup_state_v0_t", []string{"workgroup_id_x", "workgroup_id_y", "workgroup_id_z", "processor_id", "local_memory", "local_memory_size"}},
	{"gi_dispatch_attrs_t", "iree_hal_executable_dispatch_attrs_v0_t", []string{"flags", "local_memory_pages", "constant_count", "binding_count",
		"workgroup_size_x", "workgroup_size_y", "workgroup_size_z"}},
	{"gi_export_table_t", "iree_hal_executable_export_table_v0_t", []string{"count", "ptrs", "attrs", "names", "tags"}},
	{"gi_import_table_t", "iree_hal_executable_import_table_v0_t", []string{"count", "symbols"}},
	{"gi_constant_table_t", "iree_hal_executable_constant_table_v0_t", []string{"count"}},
	{"gi_library_t", "iree_hal_executable_library_v0_t", []string{"header", "imports", "exports", "constants"}},
}
