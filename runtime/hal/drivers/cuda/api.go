package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The few CUDA driver API types this driver needs, declared here so that
// no CUDA SDK is needed to build. They match cuda.h on 64-bit hosts.
typedef int gi_CUresult;
typedef int gi_CUdevice;
typedef void* gi_CUcontext;
typedef void* gi_CUmodule;
typedef void* gi_CUfunction;
typedef void* gi_CUstream;
typedef void* gi_CUevent;
typedef unsigned long long gi_CUdeviceptr;

// CUjit_option values.
enum {
  GI_CU_JIT_INFO_LOG_BUFFER = 3,
  GI_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  GI_CU_JIT_ERROR_LOG_BUFFER = 5,
  GI_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

// Entry points, resolved with dlsym.
static struct {
  void* lib;
  gi_CUresult (*cuInit)(unsigned);
  gi_CUresult (*cuDeviceGetCount)(int*);
  gi_CUresult (*cuDeviceGet)(gi_CUdevice*, int);
  gi_CUresult (*cuDeviceGetName)(char*, int, gi_CUdevice);
  gi_CUresult (*cuDeviceGetAttribute)(int*, int, gi_CUdevice);
  gi_CUresult (*cuDevicePrimaryCtxRetain)(gi_CUcontext*, gi_CUdevice);
  gi_CUresult (*cuDevicePrimaryCtxRelease)(gi_CUdevice);
  gi_CUresult (*cuCtxSetCurrent)(gi_CUcontext);
  gi_CUresult (*cuGetErrorName)(gi_CUresult, const char**);
  gi_CUresult (*cuGetErrorString)(gi_CUresult, const char**);
  gi_CUresult (*cuModuleLoadDataEx)(gi_CUmodule*, const void*, unsigned, int*, void**);
  gi_CUresult (*cuModuleUnload)(gi_CUmodule);
  gi_CUresult (*cuModuleGetFunction)(gi_CUfunction*, gi_CUmodule, const char*);
  gi_CUresult (*cuFuncSetAttribute)(gi_CUfunction, int, int);
  gi_CUresult (*cuFuncGetAttribute)(int*, int, gi_CUfunction);
  gi_CUresult (*cuLaunchKernel)(gi_CUfunction, unsigned, unsigned, unsigned,
                                unsigned, unsigned, unsigned, unsigned,
                                gi_CUstream, void**, void**);
  gi_CUresult (*cuMemAlloc)(gi_CUdeviceptr*, size_t);
  gi_CUresult (*cuMemFree)(gi_CUdeviceptr);
  gi_CUresult (*cuMemHostAlloc)(void**, size_t, unsigned);
  gi_CUresult (*cuMemFreeHost)(void*);
  gi_CUresult (*cuMemHostGetDevicePointer)(gi_CUdeviceptr*, void*, unsigned);
  gi_CUresult (*cuMemcpyAsync)(gi_CUdeviceptr, gi_CUdeviceptr, size_t, gi_CUstream);
  gi_CUresult (*cuMemcpy)(gi_CUdeviceptr, gi_CUdeviceptr, size_t);
  gi_CUresult (*cuMemsetD8Async)(gi_CUdeviceptr, unsigned char, size_t, gi_CUstream);
  gi_CUresult (*cuMemsetD16Async)(gi_CUdeviceptr, unsigned short, size_t, gi_CUstream);
  gi_CUresult (*cuMemsetD32Async)(gi_CUdeviceptr, unsigned, size_t, gi_CUstream);
  gi_CUresult (*cuStreamCreate)(gi_CUstream*, unsigned);
  gi_CUresult (*cuStreamDestroy)(gi_CUstream);
  gi_CUresult (*cuStreamSynchronize)(gi_CUstream);
  gi_CUresult (*cuEventCreate)(gi_CUevent*, unsigned);
  gi_CUresult (*cuEventDestroy)(gi_CUevent);
  gi_CUresult (*cuEventRecord)(gi_CUevent, gi_CUstream);
  gi_CUresult (*cuEventSynchronize)(gi_CUevent);
  gi_CUresult (*cuEventElapsedTime)(float*, gi_CUevent, gi_CUevent);
} gi_cu;

// gi_cu_load opens libcuda and resolves every entry point. It returns NULL
// on success or a static message naming what failed.
static const char* gi_cu_load(const char* path, char* err, size_t errlen) {
  if (gi_cu.lib) return NULL;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    snprintf(err, errlen, "%s", e ? e : "dlopen failed");
    return err;
  }
#define GI_SYM(field, name)                                              \
  do {                                                                   \
    *(void**)(&gi_cu.field) = dlsym(lib, name);                          \
    if (!gi_cu.field) {                                                  \
      snprintf(err, errlen, "%s: missing entry point %s", path, name);   \
      dlclose(lib);                                                      \
      memset(&gi_cu, 0, sizeof(gi_cu));                                  \
      return err;                                                        \
    }                                                                    \
  } while (0)
  GI_SYM(cuInit, "cuInit");
  GI_SYM(cuDeviceGetCount, "cuDeviceGetCount");
  GI_SYM(cuDeviceGet, "cuDeviceGet");
  GI_SYM(cuDeviceGetName, "cuDeviceGetName");
  GI_SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  GI_SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  GI_SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  GI_SYM(cuCtxSetCurrent, "cuCtxSetCurrent");
  GI_SYM(cuGetErrorName, "cuGetErrorName");
  GI_SYM(cuGetErrorString, "cuGetErrorString");
  GI_SYM(cuModuleLoadDataEx, "cuModuleLoadDataEx");
  GI_SYM(cuModuleUnload, "cuModuleUnload");
  GI_SYM(cuModuleGetFunction, "cuModuleGetFunction");
  GI_SYM(cuFuncSetAttribute, "cuFuncSetAttribute");
  GI_SYM(cuFuncGetAttribute, "cuFuncGetAttribute");
  GI_SYM(cuLaunchKernel, "cuLaunchKernel");
  GI_SYM(cuMemAlloc, "cuMemAlloc_v2");
  GI_SYM(cuMemFree, "cuMemFree_v2");
  GI_SYM(cuMemHostAlloc, "cuMemHostAlloc");
  GI_SYM(cuMemFreeHost, "cuMemFreeHost");
  GI_SYM(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2");
  GI_SYM(cuMemcpyAsync, "cuMemcpyAsync");
  GI_SYM(cuMemcpy, "cuMemcpy");
  GI_SYM(cuMemsetD8Async, "cuMemsetD8Async");
  GI_SYM(cuMemsetD16Async, "cuMemsetD16Async");
  GI_SYM(cuMemsetD32Async, "cuMemsetD32Async");
  GI_SYM(cuStreamCreate, "cuStreamCreate");
  GI_SYM(cuStreamDestroy, "cuStreamDestroy_v2");
  GI_SYM(cuStreamSynchronize, "cuStreamSynchronize");
  GI_SYM(cuEventCreate, "cuEventCreate");
  GI_SYM(cuEventDestroy, "cuEventDestroy_v2");
  GI_SYM(cuEventRecord, "cuEventRecord");
  GI_SYM(cuEventSynchronize, "cuEventSynchronize");
  GI_SYM(cuEventElapsedTime, "cuEventElapsedTime");
#undef GI_SYM
  gi_cu.lib = lib;
  return NULL;
}

static const char* gi_cu_error_name(gi_CUresult r) {
  const char* s = NULL;
  if (!gi_cu.lib || gi_cu.cuGetErrorName(r, &s) != 0 || !s) return "CUDA_ERROR_UNKNOWN";
  return s;
}

static const char* gi_cu_error_string(gi_CUresult r) {
  const char* s = NULL;
  if (!gi_cu.lib || gi_cu.cuGetErrorString(r, &s) != 0 || !s) return "unknown error";
  return s;
}

static gi_CUresult gi_cu_init(void) { return gi_cu.cuInit(0); }
static gi_CUresult gi_cu_device_count(int* n) { return gi_cu.cuDeviceGetCount(n); }
static gi_CUresult gi_cu_device_get(gi_CUdevice* d, int i) { return gi_cu.cuDeviceGet(d, i); }
static gi_CUresult gi_cu_device_name(char* s, int n, gi_CUdevice d) { return gi_cu.cuDeviceGetName(s, n, d); }
static gi_CUresult gi_cu_device_attribute(int* v, int a, gi_CUdevice d) { return gi_cu.cuDeviceGetAttribute(v, a, d); }
static gi_CUresult gi_cu_primary_retain(gi_CUcontext* c, gi_CUdevice d) { return gi_cu.cuDevicePrimaryCtxRetain(c, d); }
static gi_CUresult gi_cu_primary_release(gi_CUdevice d) { return gi_cu.cuDevicePrimaryCtxRelease(d); }

// Every call below that needs a context makes ctx current first: goroutines
// move between OS threads, and the current context is per thread.

static gi_CUresult gi_cu_module_load(gi_CUcontext ctx, gi_CUmodule* m, const void* image,
                                     char* errlog, size_t errlen) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  int opts[2] = {GI_CU_JIT_ERROR_LOG_BUFFER, GI_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[2] = {errlog, (void*)(uintptr_t)errlen};
  return gi_cu.cuModuleLoadDataEx(m, image, 2, opts, vals);
}

static gi_CUresult gi_cu_module_unload(gi_CUcontext ctx, gi_CUmodule m) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuModuleUnload(m);
}

static gi_CUresult gi_cu_module_function(gi_CUcontext ctx, gi_CUfunction* f, gi_CUmodule m, const char* name) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuModuleGetFunction(f, m, name);
}

static gi_CUresult gi_cu_func_set_attribute(gi_CUcontext ctx, gi_CUfunction f, int attr, int v) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuFuncSetAttribute(f, attr, v);
}

static gi_CUresult gi_cu_func_get_attribute(gi_CUcontext ctx, int* v, int attr, gi_CUfunction f) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuFuncGetAttribute(v, attr, f);
}

// gi_cu_launch_loop launches f n times in a row from C: the raw driver
// loop the per-dispatch host time is compared with.
static gi_CUresult gi_cu_launch_loop(gi_CUcontext ctx, gi_CUfunction f, unsigned gx,
                                     unsigned gy, unsigned gz, unsigned bx,
                                     unsigned by, unsigned bz, unsigned shmem,
                                     gi_CUstream s, void* args, size_t argsize,
                                     int n) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  void* extra[5] = {(void*)1, args, (void*)2, &argsize, (void*)0};
  for (int i = 0; i < n; ++i) {
    r = gi_cu.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, s, NULL, extra);
    if (r) return r;
  }
  return 0;
}

// gi_launch is one kernel launch of a batch: its parameters are the size
// bytes at offset in the batch's argument buffer.
typedef struct {
  gi_CUfunction f;
  unsigned grid[3], block[3];
  unsigned shmem;
  size_t offset, size;
} gi_launch;

// gi_cu_launch_batch launches n kernels in order on s; *done is how many
// were launched (the failing one is launches[*done] when r != 0).
static gi_CUresult gi_cu_launch_batch(gi_CUcontext ctx, gi_CUstream s, const gi_launch* l,
                                      int n, unsigned char* args, int* done) {
  *done = 0;
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  for (int i = 0; i < n; ++i) {
    size_t size = l[i].size;
    void* extra[5] = {(void*)1, args + l[i].offset, (void*)2, &size, (void*)0};
    r = gi_cu.cuLaunchKernel(l[i].f, l[i].grid[0], l[i].grid[1], l[i].grid[2], l[i].block[0],
                             l[i].block[1], l[i].block[2], l[i].shmem, s, NULL, extra);
    if (r) return r;
    *done = i + 1;
  }
  return 0;
}

static gi_CUresult gi_cu_mem_alloc(gi_CUcontext ctx, gi_CUdeviceptr* p, size_t n) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuMemAlloc(p, n);
}

static gi_CUresult gi_cu_mem_free(gi_CUcontext ctx, gi_CUdeviceptr p) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuMemFree(p);
}

// gi_cu_host_alloc allocates pinned host memory mapped into the device's
// address space (CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP).
static gi_CUresult gi_cu_host_alloc(gi_CUcontext ctx, void** h, gi_CUdeviceptr* d, size_t n) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  r = gi_cu.cuMemHostAlloc(h, n, 0x01 | 0x02);
  if (r) return r;
  r = gi_cu.cuMemHostGetDevicePointer(d, *h, 0);
  if (r) {
    gi_cu.cuMemFreeHost(*h);
    *h = NULL;
  }
  return r;
}

// gi_cu_host_alloc_unmapped allocates pinned host memory for staging
// copies (CU_MEMHOSTALLOC_PORTABLE).
static gi_CUresult gi_cu_host_alloc_unmapped(gi_CUcontext ctx, void** h, size_t n) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuMemHostAlloc(h, n, 0x01);
}

// gi_cu_memcpy_to_host copies n bytes of device memory to host memory and
// returns when the copy is done.
static gi_CUresult gi_cu_memcpy_to_host(gi_CUcontext ctx, void* dst, gi_CUdeviceptr src, size_t n) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuMemcpy((gi_CUdeviceptr)(uintptr_t)dst, src, n);
}

static gi_CUresult gi_cu_host_free(gi_CUcontext ctx, void* h) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuMemFreeHost(h);
}

static gi_CUresult gi_cu_memcpy(gi_CUcontext ctx, gi_CUdeviceptr dst, gi_CUdeviceptr src, size_t n, gi_CUstream s) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuMemcpyAsync(dst, src, n, s);
}

// gi_cu_memcpy_from_host copies n bytes of host memory (possibly pageable:
// the driver stages it before returning) to dst.
static gi_CUresult gi_cu_memcpy_from_host(gi_CUcontext ctx, gi_CUdeviceptr dst, const void* src, size_t n, gi_CUstream s) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuMemcpyAsync(dst, (gi_CUdeviceptr)(uintptr_t)src, n, s);
}

static gi_CUresult gi_cu_memset(gi_CUcontext ctx, gi_CUdeviceptr dst, uint32_t pattern, int width, size_t count, gi_CUstream s) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  switch (width) {
    case 1: return gi_cu.cuMemsetD8Async(dst, (unsigned char)pattern, count, s);
    case 2: return gi_cu.cuMemsetD16Async(dst, (unsigned short)pattern, count, s);
    default: return gi_cu.cuMemsetD32Async(dst, pattern, count, s);
  }
}

static gi_CUresult gi_cu_stream_create(gi_CUcontext ctx, gi_CUstream* s) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuStreamCreate(s, 0x1);  // CU_STREAM_NON_BLOCKING
}

static gi_CUresult gi_cu_stream_destroy(gi_CUcontext ctx, gi_CUstream s) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuStreamDestroy(s);
}

static gi_CUresult gi_cu_stream_sync(gi_CUcontext ctx, gi_CUstream s) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuStreamSynchronize(s);
}

static gi_CUresult gi_cu_event_create(gi_CUcontext ctx, gi_CUevent* e, unsigned flags) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuEventCreate(e, flags);
}

static gi_CUresult gi_cu_event_destroy(gi_CUcontext ctx, gi_CUevent e) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuEventDestroy(e);
}

static gi_CUresult gi_cu_event_record(gi_CUcontext ctx, gi_CUevent e, gi_CUstream s) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuEventRecord(e, s);
}

static gi_CUresult gi_cu_event_sync(gi_CUcontext ctx, gi_CUevent e) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuEventSynchronize(e);
}

// gi_cu_finish ends a submission on s in one call: it records done after
// the submission's commands, waits for it and, when start is set (timing
// on, done then being the timing end event), reads the time between start
// and done into *ms. *stage says which call failed: 0 cuEventRecord, 1
// cuEventSynchronize, 2 cuEventElapsedTime.
static gi_CUresult gi_cu_finish(gi_CUcontext ctx, gi_CUstream s, gi_CUevent start, gi_CUevent done,
                                float* ms, int* stage) {
  *stage = 0;
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  r = gi_cu.cuEventRecord(done, s);
  if (r) return r;
  *stage = 1;
  r = gi_cu.cuEventSynchronize(done);
  if (r || !start) return r;
  *stage = 2;
  return gi_cu.cuEventElapsedTime(ms, start, done);
}

static gi_CUresult gi_cu_event_elapsed(gi_CUcontext ctx, float* ms, gi_CUevent a, gi_CUevent b) {
  gi_CUresult r = gi_cu.cuCtxSetCurrent(ctx);
  if (r) return r;
  return gi_cu.cuEventElapsedTime(ms, a, b);
}
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
)

// LibraryName is the shared library the driver opens at run time.
const LibraryName = "libcuda.so.1"

// cuResult is a CUresult.
type cuResult C.gi_CUresult

// Device attributes (CUdevice_attribute) the driver reads.
const (
	attrMultiprocessorCount  = 16
	attrComputeCapabilityMaj = 75
	attrComputeCapabilityMin = 76
	attrUnifiedAddressing    = 41
	attrCanMapHostMemory     = 19
	// The shared memory a block may have: by default, and when a
	// kernel opts in (cuFuncSetAttribute), which is more from sm_70.
	attrMaxSharedPerBlock      = 8
	attrMaxSharedPerBlockOptin = 97
)

// Function attributes (CUfunction_attribute) the driver reads or sets.
const (
	funcAttrMaxThreadsPerBlock   = 0 // the most threads a block of it can have
	funcAttrSharedSizeBytes      = 1 // its static shared memory
	funcAttrNumRegs              = 4 // registers per thread
	funcAttrMaxDynamicSharedSize = 8
)

// cuErrorNotFound is CUDA_ERROR_NOT_FOUND, returned by cuModuleGetFunction
// for a missing kernel.
const cuErrorNotFound = 500

var (
	loadOnce sync.Once
	loadErr  error
)

// load opens libcuda and calls cuInit once per process. The error says why
// CUDA is unavailable.
func load() error {
	loadOnce.Do(func() {
		name := C.CString(LibraryName)
		defer C.free(unsafe.Pointer(name))
		var buf [512]C.char
		if msg := C.gi_cu_load(name, &buf[0], C.size_t(len(buf))); msg != nil {
			loadErr = status.Errorf(status.Unavailable, "CUDA is not available: %s", C.GoString(msg))
			return
		}
		if r := C.gi_cu_init(); r != 0 {
			loadErr = status.Errorf(status.Unavailable, "CUDA is not available: cuInit: %s", errorText(cuResult(r)))
		}
	})
	return loadErr
}

// errorText formats a CUresult as "CUDA_ERROR_X (n): description".
func errorText(r cuResult) string {
	return fmt.Sprintf("%s (%d): %s", C.GoString(C.gi_cu_error_name(C.gi_CUresult(r))), int(r), C.GoString(C.gi_cu_error_string(C.gi_CUresult(r))))
}

// check turns a CUresult into an error naming the call.
func check(r C.gi_CUresult, call string) error {
	if r == 0 {
		return nil
	}
	code := status.Internal
	switch r {
	case 2: // CUDA_ERROR_OUT_OF_MEMORY
		code = status.ResourceExhausted
	case 1: // CUDA_ERROR_INVALID_VALUE
		code = status.InvalidArgument
	case cuErrorNotFound:
		code = status.NotFound
	}
	return status.Errorf(code, "%s: %s", call, errorText(cuResult(r)))
}

// Handles are kept as uintptr on the Go side; they are opaque driver
// objects, never Go memory.
type (
	cuContext  = C.gi_CUcontext
	cuModule   = C.gi_CUmodule
	cuFunction = C.gi_CUfunction
	cuStream   = C.gi_CUstream
	cuEvent    = C.gi_CUevent
	cuDevice   = C.gi_CUdevice
)

func deviceCount() (int, error) {
	var n C.int
	if err := check(C.gi_cu_device_count(&n), "cuDeviceGetCount"); err != nil {
		return 0, err
	}
	return int(n), nil
}

func getDevice(i int) (cuDevice, error) {
	var d C.gi_CUdevice
	err := check(C.gi_cu_device_get(&d, C.int(i)), "cuDeviceGet")
	return d, err
}

func deviceAttribute(d cuDevice, attr int) (int, error) {
	var v C.int
	err := check(C.gi_cu_device_attribute(&v, C.int(attr), d), "cuDeviceGetAttribute")
	return int(v), err
}

func deviceName(i int) (string, error) {
	d, err := getDevice(i)
	if err != nil {
		return "", err
	}
	var buf [256]C.char
	if err := check(C.gi_cu_device_name(&buf[0], C.int(len(buf)), d), "cuDeviceGetName"); err != nil {
		return "", err
	}
	maj, err := deviceAttribute(d, attrComputeCapabilityMaj)
	if err != nil {
		return "", err
	}
	min, err := deviceAttribute(d, attrComputeCapabilityMin)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (sm_%d%d)", C.GoString(&buf[0]), maj, min), nil
}

func primaryContextRetain(d cuDevice) (cuContext, error) {
	var c C.gi_CUcontext
	err := check(C.gi_cu_primary_retain(&c, d), "cuDevicePrimaryCtxRetain")
	return c, err
}

func primaryContextRelease(d cuDevice) error {
	return check(C.gi_cu_primary_release(d), "cuDevicePrimaryCtxRelease")
}

// moduleLoad JIT-compiles a NUL-terminated PTX image; on failure the JIT
// error log is part of the error.
func moduleLoad(ctx cuContext, image []byte) (cuModule, error) {
	cimage := C.CBytes(image)
	defer C.free(cimage)
	const logSize = 16 << 10
	log := (*C.char)(C.calloc(logSize, 1))
	defer C.free(unsafe.Pointer(log))
	var m C.gi_CUmodule
	if r := C.gi_cu_module_load(ctx, &m, cimage, log, logSize); r != 0 {
		err := check(r, "cuModuleLoadDataEx")
		if text := C.GoString(log); text != "" {
			err = status.Errorf(status.CodeOf(err), "%s\nJIT log:\n%s", errMessage(err), text)
		}
		return nil, err
	}
	return m, nil
}

func moduleUnload(ctx cuContext, m cuModule) error {
	return check(C.gi_cu_module_unload(ctx, m), "cuModuleUnload")
}

func moduleFunction(ctx cuContext, m cuModule, name string) (cuFunction, C.gi_CUresult) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var f C.gi_CUfunction
	r := C.gi_cu_module_function(ctx, &f, m, cname)
	return f, r
}

func funcSetMaxDynamicShared(ctx cuContext, f cuFunction, bytes int) error {
	return check(C.gi_cu_func_set_attribute(ctx, f, funcAttrMaxDynamicSharedSize, C.int(bytes)), "cuFuncSetAttribute")
}

// funcAttribute reads one of a loaded function's attributes.
func funcAttribute(ctx cuContext, f cuFunction, attr int) (int, error) {
	var v C.int
	err := check(C.gi_cu_func_get_attribute(ctx, &v, C.int(attr), f), "cuFuncGetAttribute")
	return int(v), err
}

// launchLoop launches f n times from one C loop (a raw driver baseline).
func launchLoop(ctx cuContext, f cuFunction, grid, block [3]uint32, shmem uint32, s cuStream, args []byte, n int) error {
	var p unsafe.Pointer
	if len(args) > 0 {
		p = unsafe.Pointer(&args[0])
	}
	r := C.gi_cu_launch_loop(ctx, f, C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(shmem), s, p, C.size_t(len(args)), C.int(n))
	return check(r, "cuLaunchKernel")
}

// launchBatch collects consecutive kernel launches so that one cgo call
// (and one cuCtxSetCurrent) makes them all.
type launchBatch struct {
	launches []C.gi_launch
	args     []byte // parameters, each launch's at a 16-byte aligned offset
}

// add queues a launch of f; args (packed parameters) are copied.
func (b *launchBatch) add(f cuFunction, grid, block [3]uint32, shmem uint32, args []byte) {
	off := (len(b.args) + 15) &^ 15
	if need := off + len(args); need > cap(b.args) {
		grown := make([]byte, off, max(2*cap(b.args), need, 4096))
		copy(grown, b.args)
		b.args = grown
	}
	b.args = b.args[:off]
	b.args = append(b.args, args...)
	b.launches = append(b.launches, C.gi_launch{
		f:      f,
		grid:   [3]C.uint{C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2])},
		block:  [3]C.uint{C.uint(block[0]), C.uint(block[1]), C.uint(block[2])},
		shmem:  C.uint(shmem),
		offset: C.size_t(off),
		size:   C.size_t(len(args)),
	})
}

// flush launches the queued kernels in order on s and empties the batch.
// On failure it returns the index of the launch that failed.
func (b *launchBatch) flush(ctx cuContext, s cuStream) (int, error) {
	n := len(b.launches)
	if n == 0 {
		return 0, nil
	}
	var args *C.uchar
	if len(b.args) > 0 {
		args = (*C.uchar)(unsafe.Pointer(&b.args[0]))
	}
	var done C.int
	r := C.gi_cu_launch_batch(ctx, s, &b.launches[0], C.int(n), args, &done)
	b.launches, b.args = b.launches[:0], b.args[:0]
	return int(done), check(r, "cuLaunchKernel")
}

func memAlloc(ctx cuContext, n int64) (uint64, error) {
	var p C.gi_CUdeviceptr
	err := check(C.gi_cu_mem_alloc(ctx, &p, C.size_t(n)), "cuMemAlloc")
	return uint64(p), err
}

func memFree(ctx cuContext, p uint64) error {
	return check(C.gi_cu_mem_free(ctx, C.gi_CUdeviceptr(p)), "cuMemFree")
}

// hostAlloc returns pinned, device-mapped host memory and its device
// address.
func hostAlloc(ctx cuContext, n int64) (unsafe.Pointer, uint64, error) {
	var h unsafe.Pointer
	var d C.gi_CUdeviceptr
	err := check(C.gi_cu_host_alloc(ctx, &h, &d, C.size_t(n)), "cuMemHostAlloc")
	return h, uint64(d), err
}

// hostAllocUnmapped returns pinned host memory for staging copies.
func hostAllocUnmapped(ctx cuContext, n int64) (unsafe.Pointer, error) {
	var h unsafe.Pointer
	err := check(C.gi_cu_host_alloc_unmapped(ctx, &h, C.size_t(n)), "cuMemHostAlloc")
	return h, err
}

// memcpyToHost copies len(dst) bytes from device address src into dst,
// synchronously. dst is pinned or Go memory.
func memcpyToHost(ctx cuContext, dst []byte, src uint64) error {
	if len(dst) == 0 {
		return nil
	}
	return check(C.gi_cu_memcpy_to_host(ctx, unsafe.Pointer(&dst[0]), C.gi_CUdeviceptr(src), C.size_t(len(dst))), "cuMemcpy")
}

func hostFree(ctx cuContext, h unsafe.Pointer) error {
	return check(C.gi_cu_host_free(ctx, h), "cuMemFreeHost")
}

func memcpyAsync(ctx cuContext, dst, src uint64, n int64, s cuStream) error {
	return check(C.gi_cu_memcpy(ctx, C.gi_CUdeviceptr(dst), C.gi_CUdeviceptr(src), C.size_t(n), s), "cuMemcpyAsync")
}

// memcpyFromHost copies Go memory to dst; the driver stages pageable
// memory before returning, so src need not outlive the call.
func memcpyFromHost(ctx cuContext, dst uint64, src []byte, s cuStream) error {
	if len(src) == 0 {
		return nil
	}
	return check(C.gi_cu_memcpy_from_host(ctx, C.gi_CUdeviceptr(dst), unsafe.Pointer(&src[0]), C.size_t(len(src)), s), "cuMemcpyAsync")
}

func memsetAsync(ctx cuContext, dst uint64, pattern uint32, width int, count int64, s cuStream) error {
	return check(C.gi_cu_memset(ctx, C.gi_CUdeviceptr(dst), C.uint32_t(pattern), C.int(width), C.size_t(count), s), "cuMemsetD32Async")
}

func streamCreate(ctx cuContext) (cuStream, error) {
	var s C.gi_CUstream
	err := check(C.gi_cu_stream_create(ctx, &s), "cuStreamCreate")
	return s, err
}

func streamDestroy(ctx cuContext, s cuStream) error {
	return check(C.gi_cu_stream_destroy(ctx, s), "cuStreamDestroy")
}

func streamSynchronize(ctx cuContext, s cuStream) error {
	return check(C.gi_cu_stream_sync(ctx, s), "cuStreamSynchronize")
}

// Event flags.
const (
	eventDefault       = 0x0
	eventBlockingSync  = 0x1
	eventDisableTiming = 0x2
)

func eventCreate(ctx cuContext, flags uint) (cuEvent, error) {
	var e C.gi_CUevent
	err := check(C.gi_cu_event_create(ctx, &e, C.uint(flags)), "cuEventCreate")
	return e, err
}

func eventDestroy(ctx cuContext, e cuEvent) error {
	return check(C.gi_cu_event_destroy(ctx, e), "cuEventDestroy")
}

func eventRecord(ctx cuContext, e cuEvent, s cuStream) error {
	return check(C.gi_cu_event_record(ctx, e, s), "cuEventRecord")
}

func eventSynchronize(ctx cuContext, e cuEvent) error {
	return check(C.gi_cu_event_sync(ctx, e), "cuEventSynchronize")
}

// Stages of finish: the driver call that failed.
const (
	finishRecord  = 0 // cuEventRecord: done was not recorded
	finishWait    = 1 // cuEventSynchronize
	finishElapsed = 2 // cuEventElapsedTime: the wait succeeded
)

var finishCalls = [...]string{"cuEventRecord", "cuEventSynchronize", "cuEventElapsedTime"}

// finish records done on s after the work queued so far, waits for it and,
// with start set, returns the milliseconds between start and done: the
// end of a submission in one cgo call instead of three. On failure, stage
// says which call failed.
func finish(ctx cuContext, s cuStream, start, done cuEvent) (ms float32, stage int, err error) {
	var m C.float
	var st C.int
	r := C.gi_cu_finish(ctx, s, start, done, &m, &st)
	return float32(m), int(st), check(r, finishCalls[st])
}

func eventElapsed(ctx cuContext, a, b cuEvent) (float32, error) {
	var ms C.float
	err := check(C.gi_cu_event_elapsed(ctx, &ms, a, b), "cuEventElapsedTime")
	return float32(ms), err
}
