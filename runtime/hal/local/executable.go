package local

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local/vmvx"
)

// Executable is a loaded CPU executable library. It implements
// hal.Executable. Dispatches are prepared with PrepareDispatch and run with
// Dispatch.Run, possibly from many goroutines at once.
type Executable struct {
	format  string
	name    string   // from ExecutableParams.Name, for messages
	lib     *library // nil for vmvx executables
	vmvx    *vmvx.Executable
	exports []hal.ExportInfo

	mu       sync.RWMutex // held for reading while native code may run
	released bool
}

// Format implements hal.Executable.
func (e *Executable) Format() string { return e.format }

// Exports implements hal.Executable.
func (e *Executable) Exports() []hal.ExportInfo { return e.exports }

// Name returns the library name from its header (may be empty).
func (e *Executable) Name() string {
	if e.vmvx != nil {
		return e.vmvx.Name()
	}
	return e.lib.name
}

// Imports returns the library's import table: the functions it calls
// through the environment's import thunk, resolved when it was loaded ('?'
// marks an optional import).
func (e *Executable) Imports() []string {
	if e.lib == nil {
		return nil
	}
	return append([]string(nil), e.lib.imports...)
}

// Release unmaps the library. It waits for running dispatches to finish;
// dispatching afterwards is an error.
func (e *Executable) Release() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.released {
		return status.Errorf(status.FailedPrecondition, "executable released twice")
	}
	e.released = true
	if e.lib == nil {
		return nil
	}
	return e.lib.close()
}

// Dispatch is one prepared dispatch of an export: its dispatch state, with
// constants and binding pointers filled in, ready to run any range of
// workgroups. Release it when done.
type Dispatch struct {
	exe     *Executable
	ordinal int
	fn      uintptr
	st      dispatchState
	pinner  runtime.Pinner
	// args holds the binding pointers passed with each native call, unless
	// pinned says they are stored (and pinned) in the C block instead.
	args   [argBindings]unsafe.Pointer
	pinned bool
	pooled bool // from dispatchPool: owns its block for good
	// vmvx is set for dispatches of vmvx executables, which run in the VM.
	vmvx       *vmvx.Dispatch
	total      uint64
	localBytes int
	released   bool
}

// PrepareDispatch validates a dispatch of export ordinal over workgroups
// with the given constants and binding memory against the export's
// attributes and builds its dispatch state. maxConcurrency is the number of
// distinct processor ids the caller will use (1..255).
func (e *Executable) PrepareDispatch(ordinal int, workgroups [3]uint32, constants []uint32, bindings [][]byte, maxConcurrency int) (*Dispatch, error) {
	d := new(Dispatch)
	if err := e.prepare(d, ordinal, workgroups, constants, bindings, maxConcurrency); err != nil {
		return nil, err
	}
	return d, nil
}

// dispatchPool recycles the Dispatch of executed commands. A pooled
// Dispatch keeps its runtime.Pinner (whose first use allocates and sets a
// finalizer) and its C block (saving the block pool's lock twice per
// dispatch); the block is freed by a cleanup once the pool drops the
// Dispatch.
var dispatchPool = sync.Pool{New: func() any {
	d := &Dispatch{pooled: true}
	d.st = newDispatchState()
	runtime.AddCleanup(d, freeBlock, d.st)
	return d
}}

// freeBlock returns the block of a collected pooled Dispatch.
func freeBlock(st dispatchState) { st.free(false) }

// runPooled prepares a pooled Dispatch, runs it with r and recycles it.
func (e *Executable) runPooled(r Runner, ordinal int, workgroups [3]uint32, constants []uint32, bindings [][]byte) error {
	d := dispatchPool.Get().(*Dispatch)
	if err := e.prepare(d, ordinal, workgroups, constants, bindings, r.MaxConcurrency()); err != nil {
		dispatchPool.Put(d)
		return err
	}
	err := r.RunDispatch(d)
	// Runners return only after every workgroup call has finished, so
	// nothing refers to d any more.
	if d.pinned {
		d.st.dropPointers()
		d.pinner.Unpin()
	}
	d.exe, d.ordinal, d.fn, d.total, d.localBytes, d.released, d.vmvx = nil, 0, 0, 0, 0, false, nil
	d.args, d.pinned = [argBindings]unsafe.Pointer{}, false
	dispatchPool.Put(d)
	return err
}

// prepare validates a dispatch and fills d (which must be zero but for its
// pinner and block) with it; on error d is left untouched.
func (e *Executable) prepare(d *Dispatch, ordinal int, workgroups [3]uint32, constants []uint32, bindings [][]byte, maxConcurrency int) error {
	if ordinal < 0 || ordinal >= len(e.exports) {
		return status.Errorf(status.OutOfRange, "dispatch: entry point ordinal %d out of range: executable has %d export(s)", ordinal, len(e.exports))
	}
	info := e.exports[ordinal]
	if info.ConstantCount >= 0 && len(constants) != info.ConstantCount {
		return status.Errorf(status.InvalidArgument, "dispatch of %s: expects %d constant(s) but %d were provided", e.exportName(ordinal), info.ConstantCount, len(constants))
	}
	if info.BindingCount >= 0 && len(bindings) != info.BindingCount {
		return status.Errorf(status.InvalidArgument, "dispatch of %s: expects %d binding(s) but %d were provided", e.exportName(ordinal), info.BindingCount, len(bindings))
	}
	if len(constants) > MaxConstants || len(bindings) > MaxBindings {
		return status.Errorf(status.OutOfRange, "dispatch of %s: %d constants and %d bindings exceed the limits %d and %d", e.exportName(ordinal), len(constants), len(bindings), MaxConstants, MaxBindings)
	}
	if workgroups[2] > hal.MaxWorkgroupCountZ {
		return status.Errorf(status.OutOfRange, "dispatch of %s: workgroup count z %d exceeds %d", e.exportName(ordinal), workgroups[2], hal.MaxWorkgroupCountZ)
	}
	total := uint64(workgroups[0]) * uint64(workgroups[1]) * uint64(workgroups[2])
	if total > hal.MaxWorkgroupTotal {
		return status.Errorf(status.OutOfRange, "dispatch of %s: %d workgroups exceed the limit of %d", e.exportName(ordinal), total, hal.MaxWorkgroupTotal)
	}
	if maxConcurrency < 1 || maxConcurrency > 255 {
		return status.Errorf(status.InvalidArgument, "dispatch: max concurrency %d is not in [1, 255]", maxConcurrency)
	}
	if e.vmvx != nil {
		v, err := e.vmvx.Prepare(ordinal, workgroups, constants, bindings)
		if err != nil {
			return err
		}
		d.exe, d.ordinal, d.total, d.vmvx = e, ordinal, total, v
		return nil
	}
	if d.st.blk == nil {
		d.st = newDispatchState()
	}
	d.exe, d.ordinal, d.fn, d.total, d.localBytes = e, ordinal, e.lib.exports[ordinal].fn, total, int(info.LocalMemoryBytes)
	ws := info.WorkgroupSize
	for i := range ws {
		if ws[i] == 0 {
			ws[i] = 1
		}
	}
	d.pinned = d.st.fill(ws, workgroups, maxConcurrency, constants, bindings, &d.args, d.pinner.Pin)
	return nil
}

func (e *Executable) exportName(ordinal int) string {
	if n := e.exports[ordinal].Name; n != "" {
		return fmt.Sprintf("export %d (%q)", ordinal, n)
	}
	return fmt.Sprintf("export %d", ordinal)
}

// WorkgroupCount returns the number of workgroups (x*y*z).
func (d *Dispatch) WorkgroupCount() uint64 { return d.total }

// LocalMemoryBytes returns the local memory each workgroup call needs; pass
// at least that much to Run.
func (d *Dispatch) LocalMemoryBytes() int { return d.localBytes }

// Run calls the export for the workgroups [begin, end) of the grid (flat
// index, x fastest), in one crossing into native code, as processor
// processorID with the given local memory. It returns the first failure.
func (d *Dispatch) Run(processorID uint32, localMemory []byte, begin, end uint64) error {
	if end > d.total || begin > end {
		return status.Errorf(status.OutOfRange, "dispatch range [%d, %d) exceeds %d workgroups", begin, end, d.total)
	}
	if begin == end {
		return nil
	}
	if len(localMemory) < d.localBytes {
		return status.Errorf(status.InvalidArgument, "dispatch needs %d bytes of local memory, got %d", d.localBytes, len(localMemory))
	}
	d.exe.mu.RLock()
	defer d.exe.mu.RUnlock()
	if d.exe.released || d.released {
		return status.Errorf(status.FailedPrecondition, "dispatch of a released executable")
	}
	if d.vmvx != nil {
		return d.runVMVX(begin, end)
	}
	args := &d.args
	if d.pinned {
		args = nil
	}
	r := runRange(d.fn, d.exe.lib.env, &d.st, args, processorID, localMemory[:d.localBytes], begin, end)
	if r.status != 0 {
		cx, cy := d.st.counts()
		at := r.at
		wg := fmt.Sprintf("workgroup (%d, %d, %d)", at%cx, at/cx%cy, at/(cx*cy))
		if r.status == faultStatus {
			return status.Errorf(status.Internal, "kernel crashed: %s in executable %s, %s, %s (the process may be corrupt; run with -v for Go's dump)",
				describeSignal(r.signo, r.code, r.addr), d.exe.displayName(), d.exe.exportName(d.ordinal), wg)
		}
		return status.Errorf(status.Internal, "dispatch of %s failed with status %d at %s", d.exe.exportName(d.ordinal), r.status, wg)
	}
	return nil
}

// displayName names the executable for messages: the name it was created
// with, else its library's, else its format.
func (e *Executable) displayName() string {
	switch {
	case e.name != "":
		return e.name
	case e.lib != nil && e.lib.name != "":
		return fmt.Sprintf("%q", e.lib.name)
	}
	return "(unnamed " + e.format + ")"
}

// Release unpins the dispatch's memory. The dispatch cannot run afterwards.
func (d *Dispatch) Release() {
	if !d.released {
		d.released = true
		if d.pooled {
			// The block stays with the pooled Dispatch (its cleanup frees
			// it); runPooled recycles the rest.
			return
		}
		d.st.free(d.pinned)
		d.args, d.vmvx = [argBindings]unsafe.Pointer{}, nil
		if d.pinned {
			d.pinner.Unpin()
		}
	}
}
