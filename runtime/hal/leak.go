package hal

import (
	"fmt"
	"runtime"
	"sync/atomic"
)

// leakReporter, when set, receives a message for every allocation whose
// buffers the garbage collector found unreachable before they were
// released.
var leakReporter atomic.Pointer[func(string)]

// SetLeakReporter makes every allocation from now on report, through
// report, when it becomes garbage while still holding its memory: a
// buffer that its owner never released (tools pass a logger under -v).
// Memory is never freed by the garbage collector — device memory would
// then depend on when the collector runs — so a leak is only reported.
// A nil report turns reporting off. Watching costs a finalizer per
// allocation.
func SetLeakReporter(report func(msg string)) {
	if report == nil {
		leakReporter.Store(nil)
		return
	}
	leakReporter.Store(&report)
}

// leakState is what the finalizer of a watched allocation needs; it is
// kept apart from the allocation so that the finalizer's object is not
// part of a cycle (the collector does not free cycles with finalizers).
type leakState struct {
	freed   atomic.Bool
	size    int64
	memType MemoryType
}

type leakSentinel struct{ st *leakState }

// watchLeak attaches a sentinel to blk's allocation whose finalizer
// reports the allocation unless its memory was returned.
func watchLeak(blk *bufferBlock) {
	st := &leakState{size: blk.a.size, memType: blk.a.memType}
	blk.a.leak = st
	s := &leakSentinel{st: st}
	blk.a.sentinel = s
	runtime.SetFinalizer(s, func(s *leakSentinel) {
		if s.st.freed.Load() {
			return
		}
		if f := leakReporter.Load(); f != nil {
			(*f)(fmt.Sprintf("hal: leaked buffer: %d bytes of %v memory became garbage without being released (its memory is not returned)", s.st.size, s.st.memType))
		}
	})
}
