package local

/*
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <ucontext.h>
#include "executable_library.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

// The import thunk every executable's environment carries: generated code
// calls imports through it (never directly), which leaves the runtime one
// place to intercept import calls.
static int goiree_import_thunk(iree_hal_executable_import_v0_t fn, void* params,
                               void* context, void* reserved) {
  return fn(params, context, reserved);
}

// Stores the resolved imports in env: one block holds the function and
// context arrays. Returns 0 when out of memory.
static int goiree_set_imports(iree_hal_executable_environment_v0_t* env,
                              const uintptr_t* fns, const uintptr_t* ctxs,
                              size_t count) {
  void** block = (void**)calloc(2 * count, sizeof(void*));
  if (!block) return 0;
  for (size_t i = 0; i < count; ++i) {
    block[i] = (void*)fns[i];
    block[count + i] = (void*)ctxs[i];
  }
  env->import_thunk = goiree_import_thunk;
  env->import_funcs = (const iree_hal_executable_import_v0_t*)block;
  env->import_contexts = (const void**)(block + count);
  return 1;
}

static void goiree_free_imports(iree_hal_executable_environment_v0_t* env) {
  free((void*)env->import_funcs);
  env->import_thunk = NULL;
  env->import_funcs = NULL;
  env->import_contexts = NULL;
}


// The dispatch state and the arrays it points at, in one C allocation so
// that cgo never has to scan Go memory for pointers on each call.
typedef struct goiree_dispatch_block_t {
  iree_hal_executable_dispatch_state_v0_t state;
  void* ptrs[IREE_HAL_EXECUTABLE_MAX_BINDING_COUNT];
  size_t lengths[IREE_HAL_EXECUTABLE_MAX_BINDING_COUNT];
  uint32_t constants[IREE_HAL_EXECUTABLE_MAX_CONSTANT_COUNT];
} goiree_dispatch_block_t;

typedef struct goiree_range_result_t {
  int status;
  uint64_t failed_at;
  // Set when status is GOIREE_STATUS_FAULT: the signal, its si_code and
  // si_addr.
  int signo;
  int code;
  uint64_t addr;
} goiree_range_result_t;

// Kernel faults. A user kernel that faults (SIGSEGV, SIGBUS, SIGFPE,
// SIGILL) would reach Go's handler, which cannot recover from a fault in
// C code and prints the whole goroutine dump without naming the kernel.
// Instead a handler of ours, installed over Go's once (SetFaultReports),
// checks whether the faulting thread is inside goiree_dispatch_range (the
// thread-local goiree_fault_frame) and the signal came from the CPU
// (si_code > 0, not kill or raise); if so it records the signal and
// siglongjmps back into the range loop, which returns GOIREE_STATUS_FAULT
// with the workgroup that was running. Every other signal is passed to the
// handler that was installed before ours (Go's), with the same arguments,
// as Go's os/signal documentation asks of C code that installs handlers
// for synchronous signals: Go's own faults (nil dereferences, its
// SetPanicOnFault) keep working. The frame is set up with sigsetjmp(..., 0)
// (no signal-mask system call per range); the handler restores the
// interrupted mask itself before jumping.
#define GOIREE_STATUS_FAULT INT32_MIN

typedef struct goiree_fault_t {
  sigjmp_buf jump;
  volatile uint64_t at;
  volatile int signo;
  volatile int code;
  volatile uint64_t addr;
} goiree_fault_t;

static __thread goiree_fault_t* goiree_fault_frame
    __attribute__((tls_model("initial-exec")));
static volatile sig_atomic_t goiree_fault_reports = 1;
static const int goiree_fault_signals[4] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction goiree_prev_actions[4];

// Passes a signal that is not a kernel fault to the handler installed
// before ours.
static void goiree_chain_signal(int sig, siginfo_t* info, void* uctx) {
  for (int i = 0; i < 4; ++i) {
    if (goiree_fault_signals[i] != sig) continue;
    const struct sigaction* prev = &goiree_prev_actions[i];
    if (prev->sa_flags & SA_SIGINFO) {
      if (prev->sa_sigaction != NULL) prev->sa_sigaction(sig, info, uctx);
      return;
    }
    if (prev->sa_handler == SIG_IGN) return;
    if (prev->sa_handler == SIG_DFL) {
      // The default action: a fault recurs when the instruction is retried
      // on return; a sent signal is raised again (pending until return).
      struct sigaction dfl;
      memset(&dfl, 0, sizeof(dfl));
      dfl.sa_handler = SIG_DFL;
      sigaction(sig, &dfl, NULL);
      if (info == NULL || info->si_code <= 0) raise(sig);
      return;
    }
    prev->sa_handler(sig);
    return;
  }
}

static void goiree_fault_handler(int sig, siginfo_t* info, void* uctx) {
  goiree_fault_t* f = goiree_fault_frame;
  if (f != NULL && goiree_fault_reports && info != NULL && info->si_code > 0) {
    goiree_fault_frame = NULL;
    f->signo = sig;
    f->code = info->si_code;
    f->addr = (uint64_t)(uintptr_t)info->si_addr;
    // Leaving by a jump skips the kernel's restoring of the interrupted
    // signal mask; restore it here (sig and the handler's mask are blocked
    // now).
    pthread_sigmask(SIG_SETMASK, &((ucontext_t*)uctx)->uc_sigmask, NULL);
    siglongjmp(f->jump, 1);
  }
  goiree_chain_signal(sig, info, uctx);
}

// Installs goiree_fault_handler for the four fault signals, keeping the
// handlers it replaces; returns 0 or the errno of a failed sigaction.
static int goiree_install_fault_handlers(void) {
  for (int i = 0; i < 4; ++i) {
    struct sigaction cur;
    if (sigaction(goiree_fault_signals[i], NULL, &cur) != 0) return errno;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == goiree_fault_handler) continue;
    goiree_prev_actions[i] = cur;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = goiree_fault_handler;
    // On the alternate signal stack Go gives every thread (a kernel that
    // overflows its stack still gets reported), everything blocked while
    // the handler runs, as Go's own handlers do.
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigfillset(&sa.sa_mask);
    if (sigaction(goiree_fault_signals[i], &sa, NULL) != 0) return errno;
  }
  return 0;
}

static void goiree_set_fault_reports(int on) { goiree_fault_reports = on; }

typedef struct goiree_query_result_t {
  uintptr_t header;
  int signo;
  int code;
  uint64_t addr;
} goiree_query_result_t;

// Calls a library's query function (the first native code of an executable
// to run) under the fault handler, like a range of workgroups.
static goiree_query_result_t goiree_call_query(
    uintptr_t fn, uint32_t version,
    const iree_hal_executable_environment_v0_t* env) {
  goiree_query_result_t result = {0, 0, 0, 0};
  goiree_fault_t fault;
  fault.at = 0;
  if (sigsetjmp(fault.jump, 0) != 0) {
    result.signo = fault.signo;
    result.code = fault.code;
    result.addr = fault.addr;
    return result;
  }
  goiree_fault_frame = &fault;
  result.header = (uintptr_t)((iree_hal_executable_library_query_fn_t)fn)(version, env);
  goiree_fault_frame = NULL;
  return result;
}

// Runs workgroups [begin, end) of the grid in x-fastest order, one call each,
// and returns the first non-zero result with the failing flat index.
static goiree_range_result_t goiree_dispatch_range(
    uintptr_t fn, const iree_hal_executable_environment_v0_t* env,
    const iree_hal_executable_dispatch_state_v0_t* state, uint32_t processor_id,
    void* local_memory, uint32_t local_memory_size, uint64_t begin,
    uint64_t end) {
  goiree_range_result_t result = {0, 0};
  iree_hal_executable_dispatch_v0_t kernel = (iree_hal_executable_dispatch_v0_t)fn;
  const uint64_t cx = state->workgroup_count_x;
  const uint64_t cy = state->workgroup_count_y;
  if (begin >= end || cx == 0 || cy == 0) return result;
  uint64_t xy = cx * cy;
  uint64_t z = begin / xy;
  uint64_t rem = begin % xy;
  uint64_t y = rem / cx;
  uint64_t x = rem % cx;
  iree_hal_executable_workgroup_state_v0_t ws;
  memset(&ws, 0, sizeof(ws));
  ws.processor_id = processor_id;
  ws.local_memory = local_memory;
  ws.local_memory_size = local_memory_size;
  goiree_fault_t fault;
  fault.at = begin;
  if (sigsetjmp(fault.jump, 0) != 0) {
    // A kernel fault: goiree_fault_handler jumped here.
    result.status = GOIREE_STATUS_FAULT;
    result.failed_at = fault.at;
    result.signo = fault.signo;
    result.code = fault.code;
    result.addr = fault.addr;
    return result;
  }
  goiree_fault_frame = &fault;
  for (uint64_t i = begin; i < end; ++i) {
    fault.at = i;
    ws.workgroup_id_x = (uint32_t)x;
    ws.workgroup_id_y = (uint32_t)y;
    ws.workgroup_id_z = (uint16_t)z;
    int r = kernel(env, state, &ws);
    if (r != 0) {
      goiree_fault_frame = NULL;
      result.status = r;
      result.failed_at = i;
      return result;
    }
    if (++x == cx) {
      x = 0;
      if (++y == cy) {
        y = 0;
        ++z;
      }
    }
  }
  goiree_fault_frame = NULL;
  return result;
}

// Runs workgroups [begin, end) like goiree_dispatch_range, with the binding
// pointers passed as arguments: the state is copied to this stack frame and
// pointed at a stack array of them, so nothing the caller passed outlives the
// call and concurrent calls on one block do not write to it. The block and
// the environment are C memory, passed as integers (cgo checks every pointer
// argument for Go pointers on every call; these can never be).
static goiree_range_result_t goiree_dispatch_range_ptrs(
    uintptr_t fn, uintptr_t env, uintptr_t blk, uint32_t processor_id,
    void* local_memory, uint32_t local_memory_size, uint64_t begin,
    uint64_t end, void** ptrs) {
  iree_hal_executable_dispatch_state_v0_t state =
      ((const goiree_dispatch_block_t*)blk)->state;
  state.binding_ptrs = ptrs;
  return goiree_dispatch_range(
      fn, (const iree_hal_executable_environment_v0_t*)env, &state,
      processor_id, local_memory, local_memory_size, begin, end);
}

// goiree_dispatch_range_args4 and _args8 pass up to 4 and 8 bindings. The
// Go pointers are declared uint8_t*: cgo checks a pointer argument for Go
// pointers in the memory it points at only when that memory's type can hold
// pointers (a void* argument costs a heap object lookup per call; bytes
// cannot hold pointers, so these are not checked at all).
static goiree_range_result_t goiree_dispatch_range_args4(
    uintptr_t fn, uintptr_t env, uintptr_t blk, uint32_t processor_id,
    uint8_t* local_memory, uint32_t local_memory_size, uint64_t begin,
    uint64_t end, uint8_t* p0, uint8_t* p1, uint8_t* p2, uint8_t* p3) {
  void* ptrs[4] = {p0, p1, p2, p3};
  return goiree_dispatch_range_ptrs(fn, env, blk, processor_id, local_memory,
                                    local_memory_size, begin, end, ptrs);
}

static goiree_range_result_t goiree_dispatch_range_args8(
    uintptr_t fn, uintptr_t env, uintptr_t blk, uint32_t processor_id,
    uint8_t* local_memory, uint32_t local_memory_size, uint64_t begin,
    uint64_t end, uint8_t* p0, uint8_t* p1, uint8_t* p2, uint8_t* p3,
    uint8_t* p4, uint8_t* p5, uint8_t* p6, uint8_t* p7) {
  void* ptrs[8] = {p0, p1, p2, p3, p4, p5, p6, p7};
  return goiree_dispatch_range_ptrs(fn, env, blk, processor_id, local_memory,
                                    local_memory_size, begin, end, ptrs);
}

static void goiree_processor_info(uint64_t* data) {
  memset(data, 0, 8 * sizeof(uint64_t));
#if defined(__x86_64__)
  unsigned a, b, c, d;
  uint64_t f = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    if (c & (1u << 0)) f |= IREE_HAL_PROCESSOR_X86_64_SSE3;
    if (c & (1u << 9)) f |= IREE_HAL_PROCESSOR_X86_64_SSSE3;
    if (c & (1u << 19)) f |= IREE_HAL_PROCESSOR_X86_64_SSE41;
    if (c & (1u << 20)) f |= IREE_HAL_PROCESSOR_X86_64_SSE42;
    if (c & (1u << 28)) f |= IREE_HAL_PROCESSOR_X86_64_AVX;
    if (c & (1u << 12)) f |= IREE_HAL_PROCESSOR_X86_64_FMA;
    if (c & (1u << 29)) f |= IREE_HAL_PROCESSOR_X86_64_F16C;
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    if (b & (1u << 5)) f |= IREE_HAL_PROCESSOR_X86_64_AVX2;
    if (b & (1u << 16)) f |= IREE_HAL_PROCESSOR_X86_64_AVX512F;
    if (b & (1u << 17)) f |= IREE_HAL_PROCESSOR_X86_64_AVX512DQ;
    if (b & (1u << 28)) f |= IREE_HAL_PROCESSOR_X86_64_AVX512CD;
    if (b & (1u << 30)) f |= IREE_HAL_PROCESSOR_X86_64_AVX512BW;
    if (b & (1u << 31)) f |= IREE_HAL_PROCESSOR_X86_64_AVX512VL;
    if (c & (1u << 11)) f |= IREE_HAL_PROCESSOR_X86_64_AVX512VNNI;
  }
  data[0] = f;
#endif
}
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/base/status"
)

// environment is the per-executable environment, kept in C memory so that
// native code may hold its address for the executable's lifetime.
type environment struct {
	env       *C.iree_hal_executable_environment_v0_t
	constants *C.uint32_t
}

func newEnvironment(constants []uint32) *environment {
	e := &environment{env: (*C.iree_hal_executable_environment_v0_t)(C.calloc(1, C.size_t(unsafe.Sizeof(C.iree_hal_executable_environment_v0_t{}))))}
	if len(constants) > 0 {
		e.constants = (*C.uint32_t)(C.calloc(C.size_t(len(constants)), 4))
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(e.constants)), len(constants)), constants)
		e.env.constants = e.constants
	}
	C.goiree_processor_info(&e.env.processor.data[0])
	return e
}

// setImports stores resolved import functions and contexts (parallel
// arrays) in the environment, with the import thunk. fns and ctxs are Go
// memory holding no Go pointers; C copies them.
// It reports false when C memory is exhausted.
func (e *environment) setImports(fns, ctxs []uintptr) bool {
	if len(fns) == 0 {
		return true
	}
	return C.goiree_set_imports(e.env, (*C.uintptr_t)(unsafe.Pointer(&fns[0])), (*C.uintptr_t)(unsafe.Pointer(&ctxs[0])), C.size_t(len(fns))) != 0
}

func (e *environment) free() {
	if e.env != nil && e.env.import_funcs != nil {
		C.goiree_free_imports(e.env)
	}
	if e.constants != nil {
		C.free(unsafe.Pointer(e.constants))
		e.constants = nil
	}
	if e.env != nil {
		C.free(unsafe.Pointer(e.env))
		e.env = nil
	}
}

// ProcessorFeatures returns data[0] of the environment's processor info:
// the IREE_HAL_PROCESSOR_X86_64_* bits of this host.
func ProcessorFeatures() uint64 {
	var data [8]C.uint64_t
	C.goiree_processor_info(&data[0])
	return uint64(data[0])
}

// callQuery calls a library's query function; a fault in it is an error
// naming the signal (see SetFaultReports).
func callQuery(fn uintptr, version uint32, env *environment) (uintptr, error) {
	r := C.goiree_call_query(C.uintptr_t(fn), C.uint32_t(version), env.env)
	if r.signo != 0 {
		return 0, status.Errorf(status.Internal, "executable's query function crashed: %s", describeSignal(int(r.signo), int(r.code), uint64(r.addr)))
	}
	return uintptr(r.header), nil
}

// dispatchState is the per-dispatch state handed to native code, in C
// memory. It points at Go buffers only when a dispatch has more than
// argBindings bindings, and then the owning Dispatch pins them.
type dispatchState struct {
	blk *C.goiree_dispatch_block_t
}

// blockPool keeps freed dispatch blocks for reuse, saving two cgo calls
// (calloc and free) per dispatch.
var blockPool struct {
	sync.Mutex
	free []*C.goiree_dispatch_block_t
}

const maxPooledBlocks = 256

func newDispatchState() dispatchState {
	blockPool.Lock()
	if n := len(blockPool.free); n > 0 {
		b := blockPool.free[n-1]
		blockPool.free = blockPool.free[:n-1]
		blockPool.Unlock()
		return dispatchState{blk: b}
	}
	blockPool.Unlock()
	return dispatchState{blk: (*C.goiree_dispatch_block_t)(C.calloc(1, C.size_t(unsafe.Sizeof(C.goiree_dispatch_block_t{}))))}
}

// dropPointers clears the binding pointers fill stored in the block.
func (st *dispatchState) dropPointers() {
	st.blk.ptrs = [len(st.blk.ptrs)]unsafe.Pointer{}
}

// free returns the block to the pool. held says whether the block holds
// Go pointers (fill stored pinned bindings in it); they are dropped first.
func (st *dispatchState) free(held bool) {
	b := st.blk
	if b == nil {
		return
	}
	if held {
		st.dropPointers()
	}
	st.blk = nil
	blockPool.Lock()
	if len(blockPool.free) < maxPooledBlocks {
		blockPool.free = append(blockPool.free, b)
		blockPool.Unlock()
		return
	}
	blockPool.Unlock()
	C.free(unsafe.Pointer(b))
}

// argBindings is the most bindings whose pointers a dispatch passes to
// native code as arguments of each call (goiree_dispatch_range_args4 and
// _args8).
//
// Why arguments and not the C block: binding memory is Go heap memory. The
// Go heap does not move objects, and the buffers stay reachable (the command
// buffer holds them) while a dispatch runs, so the addresses would stay
// valid either way; but the cgo rules allow a Go pointer to be stored in C
// memory only while it is pinned with a runtime.Pinner, and pinning and
// unpinning each binding of each dispatch (a locked special record per
// object) cost more than the rest of a small dispatch. A Go pointer passed
// as a call argument needs no pinning: the rules let C use it, and copy it
// into its own stack frame, until the call returns, which is exactly the
// lifetime native code needs. Buffers cannot be pinned once at allocation
// instead: a Pinner still pinning memory when it is collected panics, and an
// unreleased hal.Buffer is allowed to be simply garbage-collected. Dispatches
// with more bindings store them in the block and pin them.
const argBindings = 8

// bytePtr types a pointer to binding or local memory (bytes) for cgo.
func bytePtr(p unsafe.Pointer) *C.uint8_t { return (*C.uint8_t)(p) }

// rangeResult is what running a range of workgroups returned: status 0, a
// kernel's non-zero status, or faultStatus with the signal that stopped a
// kernel; at is the flat index of the workgroup.
type rangeResult struct {
	status int
	at     uint64
	signo  int
	code   int
	addr   uint64
}

// faultStatus is the status of a range stopped by a kernel fault.
const faultStatus = C.GOIREE_STATUS_FAULT

func runRange(fn uintptr, env *environment, st *dispatchState, args *[argBindings]unsafe.Pointer, processorID uint32, localMem []byte, begin, end uint64) rangeResult {
	var lm unsafe.Pointer
	if len(localMem) > 0 {
		lm = unsafe.Pointer(unsafe.SliceData(localMem))
	}
	var r C.goiree_range_result_t
	switch {
	case args != nil && st.blk.state.binding_count <= 4:
		r = C.goiree_dispatch_range_args4(C.uintptr_t(fn), C.uintptr_t(uintptr(unsafe.Pointer(env.env))),
			C.uintptr_t(uintptr(unsafe.Pointer(st.blk))), C.uint32_t(processorID), bytePtr(lm),
			C.uint32_t(len(localMem)), C.uint64_t(begin), C.uint64_t(end),
			bytePtr(args[0]), bytePtr(args[1]), bytePtr(args[2]), bytePtr(args[3]))
	case args != nil:
		r = C.goiree_dispatch_range_args8(C.uintptr_t(fn), C.uintptr_t(uintptr(unsafe.Pointer(env.env))),
			C.uintptr_t(uintptr(unsafe.Pointer(st.blk))), C.uint32_t(processorID), bytePtr(lm),
			C.uint32_t(len(localMem)), C.uint64_t(begin), C.uint64_t(end),
			bytePtr(args[0]), bytePtr(args[1]), bytePtr(args[2]), bytePtr(args[3]),
			bytePtr(args[4]), bytePtr(args[5]), bytePtr(args[6]), bytePtr(args[7]))
	default:
		r = C.goiree_dispatch_range(C.uintptr_t(fn), env.env, &st.blk.state, C.uint32_t(processorID), lm,
			C.uint32_t(len(localMem)), C.uint64_t(begin), C.uint64_t(end))
	}
	return rangeResult{status: int(r.status), at: uint64(r.failed_at), signo: int(r.signo), code: int(r.code), addr: uint64(r.addr)}
}

// faultHandlers installs the fault handler once; chosen records that
// SetFaultReports was called.
var faultHandlers struct {
	once   sync.Once
	err    error
	chosen atomic.Bool
}

// SetFaultReports says whether a kernel that faults (SIGSEGV, SIGBUS,
// SIGFPE, SIGILL raised by its own instructions) is reported as an error of
// its dispatch, naming the signal, the executable, the export and the
// workgroup (the default), or left to Go's runtime, which prints its
// goroutine dump and exits. Unless it is called, faults are reported
// except under glog verbosity 1 or more (the tools' -v), read when the
// first executable is loaded, which is also when the handler is installed;
// signals not raised by a running kernel go on to Go's handler either way.
// After a fault the kernel may have left memory corrupt: callers should
// report the error and exit.
func SetFaultReports(on bool) {
	faultHandlers.chosen.Store(true)
	v := C.int(0)
	if on {
		v = 1
	}
	C.goiree_set_fault_reports(v)
}

// installFaultHandlers installs the fault handler (once per process).
func installFaultHandlers() error {
	faultHandlers.once.Do(func() {
		if !faultHandlers.chosen.Load() && bool(glog.V(1)) {
			C.goiree_set_fault_reports(0)
		}
		if e := C.goiree_install_fault_handlers(); e != 0 {
			faultHandlers.err = status.Errorf(status.Internal, "installing the kernel fault handler: %v", syscall.Errno(e))
		}
	})
	return faultHandlers.err
}

// fill sets the dispatch state. With at most argBindings bindings their
// pointers go to args (passed with each call) and the block holds none;
// otherwise they are stored in the block and pin is called for each, and
// fill reports that it pinned.
func (st *dispatchState) fill(workgroupSize, workgroupCount [3]uint32, maxConcurrency int, constants []uint32, bindings [][]byte, args *[argBindings]unsafe.Pointer, pin func(any)) (pinned bool) {
	b := st.blk
	s := &b.state
	s.workgroup_size_x = C.uint32_t(workgroupSize[0])
	s.workgroup_size_y = C.uint32_t(workgroupSize[1])
	s.workgroup_size_z = C.uint16_t(min(workgroupSize[2], 0xFFFF))
	s.workgroup_count_x = C.uint32_t(workgroupCount[0])
	s.workgroup_count_y = C.uint32_t(workgroupCount[1])
	s.workgroup_count_z = C.uint16_t(workgroupCount[2])
	s.max_concurrency = C.uint8_t(maxConcurrency)
	s.constant_count = C.uint16_t(len(constants))
	s.binding_count = C.uint8_t(len(bindings))
	for i, c := range constants {
		b.constants[i] = C.uint32_t(c)
	}
	pinned = len(bindings) > argBindings
	*args = [argBindings]unsafe.Pointer{}
	for i, m := range bindings {
		var p unsafe.Pointer
		if len(m) > 0 {
			p = unsafe.Pointer(unsafe.SliceData(m))
		}
		if pinned {
			if p != nil {
				pin(p)
			}
			b.ptrs[i] = p
		} else {
			args[i] = p
		}
		b.lengths[i] = C.size_t(len(m))
	}
	s.constants = &b.constants[0]
	s.binding_ptrs = &b.ptrs[0]
	s.binding_lengths = &b.lengths[0]
	return pinned
}

// counts returns the x and y workgroup counts.
func (st *dispatchState) counts() (uint64, uint64) {
	return uint64(st.blk.state.workgroup_count_x), uint64(st.blk.state.workgroup_count_y)
}
