package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Stream-ordered allocation (CUDA 11.2+): the entry points are optional,
// resolved from the libcuda that api.go opened, so that an older driver
// still works through cuMemAlloc. Handles are void* and device pointers
// unsigned long long, as in cuda.h.
typedef int gp_res;

// CUmemPoolProps: the layout of cuda.h (88 bytes on 64-bit hosts; later
// fields such as maxSize live in what older headers call reserved, and
// stay zero: no limit).
typedef struct {
  int allocType;    // CU_MEM_ALLOCATION_TYPE_PINNED = 1
  int handleTypes;  // CU_MEM_HANDLE_TYPE_NONE = 0
  int locType;      // CU_MEM_LOCATION_TYPE_DEVICE = 1
  int locId;        // the device ordinal
  void* win32SecurityAttributes;
  unsigned char reserved[64];
} gp_pool_props;

static struct {
  gp_res (*ctxSetCurrent)(void*);
  gp_res (*deviceGetAttribute)(int*, int, int);
  gp_res (*deviceTotalMem)(size_t*, int);
  gp_res (*poolCreate)(void**, const gp_pool_props*);
  gp_res (*poolDestroy)(void*);
  gp_res (*poolSetAttribute)(void*, int, void*);
  gp_res (*poolGetAttribute)(void*, int, void*);
  gp_res (*poolTrimTo)(void*, size_t);
  gp_res (*allocFromPoolAsync)(unsigned long long*, size_t, void*, void*);
  gp_res (*freeAsync)(unsigned long long, void*);
  gp_res (*streamSynchronize)(void*);
} gp;

// gp_load resolves the entry points; it returns 0 when all are present, 1
// when libcuda is not loaded, 2 when stream-ordered allocation is missing
// (deviceTotalMem and the basics may still be set).
static int gp_load(const char* path) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!lib) return 1;
#define GP_SYM(field, name) (*(void**)(&gp.field) = dlsym(lib, name))
  GP_SYM(ctxSetCurrent, "cuCtxSetCurrent");
  GP_SYM(deviceGetAttribute, "cuDeviceGetAttribute");
  GP_SYM(deviceTotalMem, "cuDeviceTotalMem_v2");
  GP_SYM(streamSynchronize, "cuStreamSynchronize");
  GP_SYM(poolCreate, "cuMemPoolCreate");
  GP_SYM(poolDestroy, "cuMemPoolDestroy");
  GP_SYM(poolSetAttribute, "cuMemPoolSetAttribute");
  GP_SYM(poolGetAttribute, "cuMemPoolGetAttribute");
  GP_SYM(poolTrimTo, "cuMemPoolTrimTo");
  GP_SYM(allocFromPoolAsync, "cuMemAllocFromPoolAsync");
  GP_SYM(freeAsync, "cuMemFreeAsync");
#undef GP_SYM
  if (!gp.ctxSetCurrent || !gp.deviceGetAttribute || !gp.streamSynchronize) return 1;
  if (!gp.poolCreate || !gp.poolDestroy || !gp.poolSetAttribute || !gp.poolGetAttribute ||
      !gp.poolTrimTo || !gp.allocFromPoolAsync || !gp.freeAsync) return 2;
  return 0;
}

static gp_res gp_total_mem(void* ctx, int dev, size_t* n) {
  *n = 0;
  if (!gp.deviceTotalMem) return 0;
  gp_res r = gp.ctxSetCurrent(ctx);
  if (r) return r;
  return gp.deviceTotalMem(n, dev);
}

// gp_pool_create makes a device memory pool that keeps up to threshold
// freed bytes reserved (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4) instead of
// returning them to the driver at each synchronization. *supported is 0
// when the device has no memory pools (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_
// SUPPORTED = 115).
static gp_res gp_pool_create(void* ctx, int dev, uint64_t threshold, void** pool, int* supported) {
  *pool = NULL;
  gp_res r = gp.ctxSetCurrent(ctx);
  if (r) return r;
  r = gp.deviceGetAttribute(supported, 115, dev);
  if (r || !*supported) return r;
  gp_pool_props props;
  memset(&props, 0, sizeof props);
  props.allocType = 1;
  props.locType = 1;
  props.locId = dev;
  r = gp.poolCreate(pool, &props);
  if (r) return r;
  r = gp.poolSetAttribute(*pool, 4, &threshold);
  if (r) {
    gp.poolDestroy(*pool);
    *pool = NULL;
  }
  return r;
}

// gp_alloc allocates n bytes from pool in the order of stream s. With
// wait set it then waits for s, because host copies outside s (staged
// mapping) may touch the memory at once; memory that only work on s
// touches (device-only buffers) needs no wait: s orders its first use
// after the allocation.
static gp_res gp_alloc(void* ctx, void* pool, void* s, unsigned long long* p, size_t n, int wait) {
  gp_res r = gp.ctxSetCurrent(ctx);
  if (r) return r;
  r = gp.allocFromPoolAsync(p, n, pool, s);
  if (r || !wait) return r;
  r = gp.streamSynchronize(s);
  if (r) {
    gp.freeAsync(*p, s);
    *p = 0;
  }
  return r;
}

// gp_free returns p to its pool in the order of stream s: work already
// queued on s that uses p finishes first.
static gp_res gp_free(void* ctx, void* s, unsigned long long p) {
  gp_res r = gp.ctxSetCurrent(ctx);
  if (r) return r;
  return gp.freeAsync(p, s);
}

// gp_trim waits for s (so that queued frees have happened) and releases
// the pool's reserved memory above keep bytes to the driver.
static gp_res gp_trim(void* ctx, void* pool, void* s, size_t keep) {
  gp_res r = gp.ctxSetCurrent(ctx);
  if (r) return r;
  r = gp.streamSynchronize(s);
  if (r) return r;
  return gp.poolTrimTo(pool, keep);
}

// gp_usage reads the pool's reserved and used bytes
// (CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5, USED_MEM_CURRENT = 7).
static gp_res gp_usage(void* ctx, void* pool, uint64_t* reserved, uint64_t* used) {
  gp_res r = gp.ctxSetCurrent(ctx);
  if (r) return r;
  r = gp.poolGetAttribute(pool, 5, reserved);
  if (r) return r;
  return gp.poolGetAttribute(pool, 7, used);
}

static gp_res gp_pool_destroy(void* ctx, void* pool, void* s) {
  gp_res r = gp.ctxSetCurrent(ctx);
  if (r) return r;
  r = gp.streamSynchronize(s);
  if (r) return r;
  return gp.poolDestroy(pool);
}
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
)

var (
	poolLoadOnce sync.Once
	poolLoad     C.int
)

// loadPoolAPI resolves the optional entry points once libcuda is loaded:
// 0 all there, 1 libcuda not loaded, 2 no stream-ordered allocation.
func loadPoolAPI() C.int {
	poolLoadOnce.Do(func() {
		name := C.CString(LibraryName)
		defer C.free(unsafe.Pointer(name))
		poolLoad = C.gp_load(name)
	})
	return poolLoad
}

// poolCheck turns a result of the pool functions into an error; it uses
// api.go's error text, which holds the driver's name for the code.
func poolCheck(r C.gp_res, call string) error {
	if r == 0 {
		return nil
	}
	code := status.Internal
	if r == 2 { // CUDA_ERROR_OUT_OF_MEMORY
		code = status.ResourceExhausted
	}
	return status.Errorf(code, "%s: %s", call, errorText(cuResult(r)))
}

// streamPool is a CUDA memory pool whose allocations and frees are
// ordered on the device's stream (IREE's queue alloca/dealloca).
type streamPool struct {
	ctx    cuContext
	pool   unsafe.Pointer
	stream cuStream
}

// newStreamPool creates the pool of device dev, keeping up to threshold
// freed bytes reserved. It returns nil and the reason when the driver or
// the device has no stream-ordered allocation.
func newStreamPool(ctx cuContext, dev cuDevice, stream cuStream, threshold int64) (*streamPool, string) {
	switch loadPoolAPI() {
	case 1:
		return nil, "libcuda is not loaded"
	case 2:
		return nil, "the CUDA driver has no stream-ordered allocation (cuMemAllocFromPoolAsync needs CUDA 11.2)"
	}
	var pool unsafe.Pointer
	var supported C.int
	if err := poolCheck(C.gp_pool_create(unsafe.Pointer(ctx), C.int(dev), C.uint64_t(threshold), &pool, &supported), "cuMemPoolCreate"); err != nil {
		return nil, err.Error()
	}
	if supported == 0 {
		return nil, fmt.Sprintf("device %d does not support memory pools", int(dev))
	}
	return &streamPool{ctx: ctx, pool: pool, stream: stream}, ""
}

// deviceMemoryBytes returns the device's total memory, or 0 when the
// driver does not say.
func deviceMemoryBytes(ctx cuContext, dev cuDevice) int64 {
	if loadPoolAPI() == 1 {
		return 0
	}
	var n C.size_t
	if C.gp_total_mem(unsafe.Pointer(ctx), C.int(dev), &n) != 0 {
		return 0
	}
	return int64(n)
}

// alloc allocates n bytes in the order of the device's stream; with
// hostUse it also waits for the stream, so that the host may copy to or
// from the memory outside the stream at once.
func (p *streamPool) alloc(n int64, hostUse bool) (uint64, error) {
	var ptr C.ulonglong
	wait := C.int(0)
	if hostUse {
		wait = 1
	}
	err := poolCheck(C.gp_alloc(unsafe.Pointer(p.ctx), p.pool, unsafe.Pointer(p.stream), &ptr, C.size_t(n), wait), "cuMemAllocFromPoolAsync")
	return uint64(ptr), err
}

func (p *streamPool) free(ptr uint64) error {
	return poolCheck(C.gp_free(unsafe.Pointer(p.ctx), unsafe.Pointer(p.stream), C.ulonglong(ptr)), "cuMemFreeAsync")
}

// trim releases the pool's reserved memory above keep bytes.
func (p *streamPool) trim(keep int64) error {
	return poolCheck(C.gp_trim(unsafe.Pointer(p.ctx), p.pool, unsafe.Pointer(p.stream), C.size_t(keep)), "cuMemPoolTrimTo")
}

// idleBytes is what the pool keeps reserved beyond what is allocated
// from it.
func (p *streamPool) idleBytes() int64 {
	var reserved, used C.uint64_t
	if C.gp_usage(unsafe.Pointer(p.ctx), p.pool, &reserved, &used) != 0 || reserved < used {
		return 0
	}
	return int64(reserved - used)
}

func (p *streamPool) destroy() error {
	return poolCheck(C.gp_pool_destroy(unsafe.Pointer(p.ctx), p.pool, unsafe.Pointer(p.stream)), "cuMemPoolDestroy")
}
