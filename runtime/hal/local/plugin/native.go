package plugin

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "executable_plugin.h"

typedef struct gp_dlopen_result_t {
  uintptr_t handle;
  char* error;  // malloc'ed copy of dlerror(), or NULL
} gp_dlopen_result_t;

// dlopen and dlerror in one call, so that the message is read on the thread
// that produced it.
static gp_dlopen_result_t gp_dlopen(const char* path) {
  gp_dlopen_result_t r = {0, NULL};
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    r.error = strdup(e ? e : "unknown dlopen error");
    return r;
  }
  r.handle = (uintptr_t)h;
  return r;
}

static uintptr_t gp_dlsym(uintptr_t handle, const char* name) {
  return (uintptr_t)dlsym((void*)handle, name);
}

static int gp_dlclose(uintptr_t handle) { return dlclose((void*)handle); }

// The host allocator plugins receive: libc's heap.
static iree_hal_executable_plugin_status_t gp_allocator_ctl(
    void* self, iree_hal_executable_plugin_allocator_command_t command,
    const void* params, void** inout_ptr) {
  (void)self;
  const iree_hal_executable_plugin_allocator_alloc_params_t* p =
      (const iree_hal_executable_plugin_allocator_alloc_params_t*)params;
  void* ptr = NULL;
  switch (command) {
    case IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_MALLOC:
      ptr = malloc(p->byte_length ? p->byte_length : 1);
      break;
    case IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_CALLOC:
      ptr = calloc(1, p->byte_length ? p->byte_length : 1);
      break;
    case IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_REALLOC:
      ptr = realloc(*inout_ptr, p->byte_length ? p->byte_length : 1);
      break;
    case IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_FREE:
      free(*inout_ptr);
      *inout_ptr = NULL;
      return iree_hal_executable_plugin_ok_status();
    default:
      return iree_hal_executable_plugin_status_from_code(3);  // INVALID_ARGUMENT
  }
  if (!ptr) {
    return iree_hal_executable_plugin_status_from_code(
        IREE_HAL_EXECUTABLE_PLUGIN_STATUS_RESOURCE_EXHAUSTED);
  }
  *inout_ptr = ptr;
  return iree_hal_executable_plugin_ok_status();
}

static const iree_hal_executable_plugin_environment_v0_t gp_environment = {
    .host_allocator = {NULL, gp_allocator_ctl},
};

static uintptr_t gp_query(uintptr_t fn, uint32_t max_version) {
  return (uintptr_t)((iree_hal_executable_plugin_query_fn_t)fn)(max_version, NULL);
}

// What the runtime reads from a plugin's table and header.
typedef struct gp_plugin_info_t {
  uintptr_t header, load, unload, resolve;
  uint32_t version, features;
  int32_t sanitizer;
  uintptr_t name, description;
} gp_plugin_info_t;

// Reads the table at plugin (returned by the query) and its header. Used
// for system plugins only: a standalone plugin's pointers are checked
// against its image in Go first.
static gp_plugin_info_t gp_read_plugin(uintptr_t plugin) {
  gp_plugin_info_t info;
  memset(&info, 0, sizeof(info));
  const iree_hal_executable_plugin_v0_t* p =
      (const iree_hal_executable_plugin_v0_t*)plugin;
  info.header = (uintptr_t)p->header;
  info.load = (uintptr_t)p->load;
  info.unload = (uintptr_t)p->unload;
  info.resolve = (uintptr_t)p->resolve;
  if (p->header) {
    info.version = p->header->version;
    info.features = p->header->features;
    info.sanitizer = p->header->sanitizer;
    info.name = (uintptr_t)p->header->name;
    info.description = (uintptr_t)p->header->description;
  }
  return info;
}

typedef struct gp_load_result_t {
  uintptr_t status;
  uintptr_t self;
} gp_load_result_t;

static gp_load_result_t gp_load(uintptr_t load) {
  gp_load_result_t r = {0, 0};
  void* self = NULL;
  iree_hal_executable_plugin_status_t (*fn)(
      const iree_hal_executable_plugin_environment_v0_t*, size_t,
      const iree_hal_executable_plugin_string_pair_t*, void**) =
      (void*)load;
  r.status = (uintptr_t)fn(&gp_environment, 0, NULL, &self);
  r.self = (uintptr_t)self;
  return r;
}

static void gp_unload(uintptr_t unload, uintptr_t self) {
  if (unload) ((void (*)(void*))unload)((void*)self);
}

typedef struct gp_resolve_result_t {
  uintptr_t status;
  uint32_t resolution;
} gp_resolve_result_t;

// Calls resolve with C copies of the arrays: names (count C strings) and
// fns/ctxs, which the plugin fills in place.
static gp_resolve_result_t gp_resolve(uintptr_t resolve, uintptr_t self,
                                      size_t count, uintptr_t names,
                                      uintptr_t fns, uintptr_t ctxs) {
  gp_resolve_result_t r = {0, 0};
  iree_hal_executable_plugin_resolve_params_v0_t params = {
      .count = count,
      .symbol_names = (const char* const*)names,
      .out_fn_ptrs = (void**)fns,
      .out_fn_contexts = (void**)ctxs,
  };
  iree_hal_executable_plugin_resolution_t resolution = 0;
  r.status = (uintptr_t)((iree_hal_executable_plugin_status_t(*)(
      void*, const iree_hal_executable_plugin_resolve_params_v0_t*,
      iree_hal_executable_plugin_resolution_t*))resolve)(
      (void*)self, &params, &resolution);
  r.resolution = resolution;
  return r;
}

static void gp_flush(void) { fflush(NULL); }

static const char* gp_str(uintptr_t p) { return (const char*)p; }
*/
import "C"

import (
	"errors"
	"unsafe"
)

// dlopen loads a system library with RTLD_NOW | RTLD_LOCAL.
func dlopen(path string) (uintptr, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	r := C.gp_dlopen(cpath)
	if r.handle == 0 {
		msg := C.GoString(r.error)
		C.free(unsafe.Pointer(r.error))
		return 0, errors.New(msg)
	}
	return uintptr(r.handle), nil
}

func dlsym(handle uintptr, name string) uintptr {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return uintptr(C.gp_dlsym(C.uintptr_t(handle), cname))
}

func dlclose(handle uintptr) bool { return C.gp_dlclose(C.uintptr_t(handle)) == 0 }

func callQuery(fn uintptr, maxVersion uint32) uintptr {
	return uintptr(C.gp_query(C.uintptr_t(fn), C.uint32_t(maxVersion)))
}

// table is what the runtime reads from a plugin's query result.
type table struct {
	header, load, unload, resolve uintptr
	version, features             uint32
	sanitizer                     int32
	name, description             uintptr
}

func readTable(ptr uintptr) table {
	i := C.gp_read_plugin(C.uintptr_t(ptr))
	return table{
		header: uintptr(i.header), load: uintptr(i.load), unload: uintptr(i.unload), resolve: uintptr(i.resolve),
		version: uint32(i.version), features: uint32(i.features), sanitizer: int32(i.sanitizer),
		name: uintptr(i.name), description: uintptr(i.description),
	}
}

// cString reads a NUL-terminated string from native memory of a system
// plugin.
func cString(p uintptr) string {
	if p == 0 {
		return ""
	}
	return C.GoString(C.gp_str(C.uintptr_t(p)))
}

func callLoad(load uintptr) (status, self uintptr) {
	r := C.gp_load(C.uintptr_t(load))
	return uintptr(r.status), uintptr(r.self)
}

func callUnload(unload, self uintptr) { C.gp_unload(C.uintptr_t(unload), C.uintptr_t(self)) }

// callResolve asks a plugin to resolve symbols into fns and ctxs (entries
// already non-zero are left to the plugin to skip). The arrays are copied
// into C memory for the call and back afterwards.
func callResolve(resolve, self uintptr, symbols []string, fns, ctxs []uintptr) (status uintptr, resolution uint32) {
	n := len(symbols)
	if n == 0 {
		return 0, 0
	}
	ptrSize := C.size_t(unsafe.Sizeof(uintptr(0)))
	block := C.calloc(C.size_t(3*n), ptrSize)
	defer C.free(block)
	arr := unsafe.Slice((*uintptr)(block), 3*n)
	names, cfns, cctxs := arr[:n], arr[n:2*n], arr[2*n:]
	for i, s := range symbols {
		cs := C.CString(s)
		defer C.free(unsafe.Pointer(cs))
		names[i] = uintptr(unsafe.Pointer(cs))
	}
	copy(cfns, fns)
	copy(cctxs, ctxs)
	r := C.gp_resolve(C.uintptr_t(resolve), C.uintptr_t(self), C.size_t(n),
		C.uintptr_t(uintptr(block)), C.uintptr_t(uintptr(block)+uintptr(n)*unsafe.Sizeof(uintptr(0))),
		C.uintptr_t(uintptr(block)+2*uintptr(n)*unsafe.Sizeof(uintptr(0))))
	copy(fns, cfns)
	copy(ctxs, cctxs)
	return uintptr(r.status), uint32(r.resolution)
}

// flushStdio flushes the C library's stdio buffers, where system plugins'
// printf output waits.
func flushStdio() { C.gp_flush() }
