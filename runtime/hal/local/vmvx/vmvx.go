// Package vmvx loads and runs "vmvx-bytecode-fb" executables: the portable
// executables of the vmvx target (compiler/target/vmvx), which the local
// devices interpret with the goiree VM instead of running native code.
//
// # Executable ABI
//
// A vmvx executable is a VM bytecode module (runtime/vm) with the module
// attribute vmvx.abi = "goiree-vmvx-1" and no imports. Each entry point
// of the executable is an exported function with the attributes
//
//	vmvx.ordinal         the entry point's ordinal ("0", "1", ...; dense)
//	vmvx.workgroup_size  optional "X,Y,Z"
//
// and the calling convention CallingConvention(B, C): B bindings as
// writable vm.buffer refs (each exactly the bound range of its buffer), C
// push constants as i32s, then the workgroup id x, y, z and the workgroup
// count x, y, z as i32s. The binding and constant counts of an entry
// point are read from its calling convention. The device calls the
// function once per workgroup; a kernel that finds its bindings shorter
// than its shapes (or any other failed check) ends the call with the VM's
// fail instruction, and the dispatch fails with that status and message.
//
// VM contexts are not safe for concurrent use, so an Executable keeps a
// pool of contexts: each goroutine running workgroups (a local-task
// worker) takes one for its whole range of workgroups.
package vmvx

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// Format is the executable format string of vmvx executables.
const Format = "vmvx-bytecode-fb"

// Attribute names and the ABI version of the executable module.
const (
	ABIAttr           = "vmvx.abi"
	ABIVersion        = "goiree-vmvx-1"
	OrdinalAttr       = "vmvx.ordinal"
	WorkgroupSizeAttr = "vmvx.workgroup_size"
)

// workgroupArgs is the number of trailing i32 arguments: the workgroup id
// and count, x, y and z each.
const workgroupArgs = 6

// MaxBindings and MaxConstants bound an entry point's signature (as the
// local devices' native ABI does).
const (
	MaxBindings  = 64
	MaxConstants = 64
)

// CallingConvention returns the calling convention of an entry point with
// the given binding and constant counts.
func CallingConvention(bindings, constants int) string {
	return "0" + strings.Repeat("r", bindings) + strings.Repeat("i", constants+workgroupArgs) + "_v"
}

// Executable is a loaded vmvx executable. Its methods are safe for
// concurrent use.
type Executable struct {
	module  *vm.BytecodeModule
	exports []hal.ExportInfo
	inst    *vm.Instance
	// workers holds idle *worker values: a context each.
	workers sync.Pool
	// stepLimit bounds each workgroup call (0: no bound).
	stepLimit atomic.Int64
}

// SetStepLimit bounds each workgroup call to n taken branches and calls
// (vm.Context.SetStepLimit); n <= 0 removes the bound (the default). A
// watchdog for executables that are not trusted to terminate.
func (e *Executable) SetStepLimit(n int64) { e.stepLimit.Store(n) }

// worker is one VM context with the entry functions looked up in it.
type worker struct {
	ctx  *vm.Context
	fns  []*vm.Function
	args []vm.Value
}

// Load verifies data as a vmvx executable and prepares it. Errors are
// INVALID_ARGUMENT (or the VM loader's codes) naming what is wrong.
func Load(data []byte) (*Executable, error) {
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		return nil, status.Wrap(status.CodeOf(err), err, "vmvx executable")
	}
	abi := ""
	for _, a := range m.Attrs() {
		if a.Key == ABIAttr {
			abi = a.Value
		}
	}
	if abi != ABIVersion {
		return nil, status.Errorf(status.InvalidArgument, "vmvx executable: module %q has %s = %q, want %q", m.Name(), ABIAttr, abi, ABIVersion)
	}
	if imps := m.Imports(); len(imps) > 0 {
		return nil, status.Errorf(status.InvalidArgument, "vmvx executable: module %q imports %s; vmvx executables cannot import functions", m.Name(), imps[0].Name)
	}
	exps := m.Exports()
	e := &Executable{module: m, inst: vm.NewInstance(), exports: make([]hal.ExportInfo, len(exps))}
	seen := make([]bool, len(exps))
	for _, x := range exps {
		info, ord, err := exportInfo(x, len(exps))
		if err != nil {
			return nil, status.Errorf(status.InvalidArgument, "vmvx executable: export %q: %v", x.Name, err)
		}
		if seen[ord] {
			return nil, status.Errorf(status.InvalidArgument, "vmvx executable: export %q: ordinal %d is used twice", x.Name, ord)
		}
		seen[ord] = true
		e.exports[ord] = info
	}
	if len(exps) == 0 {
		return nil, status.Errorf(status.InvalidArgument, "vmvx executable: module %q has no entry points", m.Name())
	}
	// One context up front, so that a module that cannot be instantiated
	// fails here rather than at its first dispatch.
	w, err := e.newWorker()
	if err != nil {
		return nil, err
	}
	e.workers.Put(w)
	return e, nil
}

// exportInfo reads one export's ordinal, workgroup size and counts.
func exportInfo(x vm.ExportInfo, n int) (hal.ExportInfo, int, error) {
	info := hal.ExportInfo{Name: x.Name}
	ord := -1
	for _, a := range x.Attrs {
		switch a.Key {
		case OrdinalAttr:
			v, err := strconv.Atoi(a.Value)
			if err != nil || v < 0 || v >= n {
				return info, 0, fmt.Errorf("%s %q is not an ordinal in [0, %d)", OrdinalAttr, a.Value, n)
			}
			ord = v
		case WorkgroupSizeAttr:
			parts := strings.Split(a.Value, ",")
			if len(parts) != 3 {
				return info, 0, fmt.Errorf("%s %q is not X,Y,Z", WorkgroupSizeAttr, a.Value)
			}
			for i, p := range parts {
				v, err := strconv.ParseUint(p, 10, 32)
				if err != nil {
					return info, 0, fmt.Errorf("%s %q is not X,Y,Z", WorkgroupSizeAttr, a.Value)
				}
				info.WorkgroupSize[i] = uint32(v)
			}
		}
	}
	if ord < 0 {
		return info, 0, fmt.Errorf("no %s attribute", OrdinalAttr)
	}
	// "0" r* i* "_v" with at least the workgroup arguments.
	cc := x.CallingConvention
	body, ok := strings.CutPrefix(cc, "0")
	body, ok2 := strings.CutSuffix(body, "_v")
	if !ok || !ok2 {
		return info, 0, fmt.Errorf("calling convention %s is not an entry point's (%s)", cc, CallingConvention(1, 0))
	}
	refs := len(body) - len(strings.TrimLeft(body, "r"))
	ints := body[refs:]
	if strings.Trim(ints, "i") != "" || len(ints) < workgroupArgs || refs > MaxBindings || len(ints)-workgroupArgs > MaxConstants {
		return info, 0, fmt.Errorf("calling convention %s is not an entry point's: want bindings (r, at most %d), constants (i, at most %d), then 6 i32 workgroup arguments, returning nothing", cc, MaxBindings, MaxConstants)
	}
	info.BindingCount, info.ConstantCount = refs, len(ints)-workgroupArgs
	return info, ord, nil
}

func (e *Executable) newWorker() (*worker, error) {
	ctx, err := e.inst.NewContext(e.module)
	if err != nil {
		return nil, status.Wrap(status.CodeOf(err), err, "vmvx executable: creating a context")
	}
	w := &worker{ctx: ctx, fns: make([]*vm.Function, len(e.exports))}
	for i, x := range e.exports {
		f, err := ctx.LookupFunction(e.module.Name() + "." + x.Name)
		if err != nil {
			return nil, status.Wrap(status.CodeOf(err), err, "vmvx executable")
		}
		w.fns[i] = f
	}
	return w, nil
}

// Name returns the module's name.
func (e *Executable) Name() string { return e.module.Name() }

// Exports describes the entry points in ordinal order.
func (e *Executable) Exports() []hal.ExportInfo { return e.exports }

// Dispatch is a prepared dispatch of one entry point: its arguments
// without the workgroup id. Run may be called from several goroutines at
// once.
type Dispatch struct {
	exe     *Executable
	ordinal int
	counts  [3]uint32
	args    []vm.Value
}

// Prepare checks a dispatch of entry point ordinal against its signature
// and wraps the binding memory (which must stay valid and unmoved until
// the dispatch's last Run returns) as VM buffers.
func (e *Executable) Prepare(ordinal int, workgroups [3]uint32, constants []uint32, bindings [][]byte) (*Dispatch, error) {
	if ordinal < 0 || ordinal >= len(e.exports) {
		return nil, status.Errorf(status.OutOfRange, "dispatch: entry point ordinal %d out of range: executable has %d export(s)", ordinal, len(e.exports))
	}
	x := e.exports[ordinal]
	if len(bindings) != x.BindingCount || len(constants) != x.ConstantCount {
		return nil, status.Errorf(status.InvalidArgument, "dispatch of %q: expects %d binding(s) and %d constant(s), got %d and %d", x.Name, x.BindingCount, x.ConstantCount, len(bindings), len(constants))
	}
	args := make([]vm.Value, 0, len(bindings)+len(constants)+workgroupArgs)
	for _, b := range bindings {
		args = append(args, vm.RefValue(vm.NewBuffer(b, false).Ref()))
	}
	for _, c := range constants {
		args = append(args, vm.I32(int32(c)))
	}
	for i := 0; i < workgroupArgs; i++ {
		args = append(args, vm.I32(0))
	}
	for i := 0; i < 3; i++ {
		args[len(args)-3+i] = vm.I32(int32(workgroups[i]))
	}
	return &Dispatch{exe: e, ordinal: ordinal, counts: workgroups, args: args}, nil
}

// Run calls the entry point for the workgroups [begin, end) of the grid
// (flat index, x fastest) and returns the first failure, naming the
// workgroup.
func (d *Dispatch) Run(begin, end uint64) error {
	if begin >= end {
		return nil
	}
	w, _ := d.exe.workers.Get().(*worker)
	if w == nil {
		var err error
		if w, err = d.exe.newWorker(); err != nil {
			return err
		}
	}
	defer d.exe.workers.Put(w)
	w.ctx.SetStepLimit(d.exe.stepLimit.Load())
	w.args = append(w.args[:0], d.args...)
	id := len(w.args) - workgroupArgs
	fn := w.fns[d.ordinal]
	cx, cy := uint64(d.counts[0]), uint64(d.counts[1])
	for i := begin; i < end; i++ {
		x, y, z := i%cx, i/cx%cy, i/(cx*cy)
		w.args[id], w.args[id+1], w.args[id+2] = vm.I32(int32(x)), vm.I32(int32(y)), vm.I32(int32(z))
		if err := w.ctx.InvokeInto(fn, w.args, nil); err != nil {
			return status.Wrap(status.CodeOf(err), err, "workgroup (%d, %d, %d)", x, y, z)
		}
	}
	return nil
}
