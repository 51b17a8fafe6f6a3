// Package localtask is the "local-task" HAL driver: a CPU device whose
// dispatches are split into workgroup tiles and run by the worker pool of
// package task, sized from the CPU topology (or from
// --task_topology_group_count).
package localtask

import (
	"sync"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/task"
)

// DriverName is the name used in device URIs.
const DriverName = "local-task"

// Options configure the devices the driver creates.
type Options struct {
	// GroupCount is --task_topology_group_count: the number of worker
	// groups (one worker each); 0 picks one per CPU, capped by MaxGroupCount.
	GroupCount int
	// MaxGroupCount is --task_topology_max_group_count (0: the default, 8).
	MaxGroupCount int
	// TilesPerReservation fixes how many workgroups a worker reserves at a
	// time (0: chosen per dispatch by the executor).
	TilesPerReservation uint64
	// Imports resolves the imports of executables against the loaded
	// executable plugins (nil: executables with imports are refused).
	Imports local.ImportResolver
}

// Driver creates local-task devices.
type Driver struct {
	opts Options
}

// NewDriver returns the local-task driver; the options are validated when a
// device is created.
func NewDriver(opts Options) *Driver { return &Driver{opts: opts} }

// Name implements hal.Driver.
func (*Driver) Name() string { return DriverName }

// Devices implements hal.Driver: one device, the host CPU.
func (d *Driver) Devices() ([]hal.DeviceInfo, error) {
	return []hal.DeviceInfo{{Index: 0, Name: "host CPU (task executor)"}}, nil
}

// CreateDevice implements hal.Driver.
func (d *Driver) CreateDevice(index int) (hal.Device, error) {
	if index != 0 {
		return nil, status.Errorf(status.NotFound, "%s has only device 0, not %d", DriverName, index)
	}
	return NewDevice(d.opts)
}

// NewDevice returns a new local-task device with its own executor.
func NewDevice(opts Options) (*local.Device, error) {
	topo, err := task.DetectTopology(opts.GroupCount, opts.MaxGroupCount)
	if err != nil {
		return nil, err
	}
	exec, err := task.NewExecutor(topo)
	if err != nil {
		return nil, err
	}
	r := &Runner{exec: exec, batch: opts.TilesPerReservation, scratch: make([][]byte, exec.MaxConcurrency())}
	return local.NewDevice(local.DeviceOptions{ID: DriverName, Runner: r, DeferUnreadyWaits: true, Imports: opts.Imports})
}

// Runner runs dispatches on a task executor. It implements local.Runner.
type Runner struct {
	exec  *task.Executor
	batch uint64
	// scratch[id] is processor id's local memory; the executor never runs
	// one id on two goroutines at once.
	scratch [][]byte
	// tilers recycles the localTiles of dispatches that need local memory.
	tilers sync.Pool
}

// MaxConcurrency implements local.Runner.
func (r *Runner) MaxConcurrency() int { return r.exec.MaxConcurrency() }

// RunDispatch implements local.Runner: the caller and the woken workers
// each take a contiguous range of the workgroups and run it in chunks, one
// trampoline call per chunk (see package task).
func (r *Runner) RunDispatch(d *local.Dispatch) error {
	if d.LocalMemoryBytes() == 0 {
		return r.exec.Run(d.WorkgroupCount(), r.batch, (*plainTiles)(d))
	}
	t, _ := r.tilers.Get().(*localTiles)
	if t == nil {
		t = new(localTiles)
	}
	t.r, t.d = r, d
	err := r.exec.Run(d.WorkgroupCount(), r.batch, t)
	// The executor calls t only until Run returns.
	t.r, t.d = nil, nil
	r.tilers.Put(t)
	return err
}

// plainTiles runs the workgroups of a dispatch that needs no local memory;
// a pointer conversion, so handing it to the executor allocates nothing.
type plainTiles local.Dispatch

// RunTiles implements task.Tiler.
func (p *plainTiles) RunTiles(id int, begin, end uint64) error {
	return (*local.Dispatch)(p).Run(uint32(id), nil, begin, end)
}

// localTiles runs the workgroups of a dispatch with each processor's local
// memory.
type localTiles struct {
	r *Runner
	d *local.Dispatch
}

// RunTiles implements task.Tiler.
func (t *localTiles) RunTiles(id int, begin, end uint64) error {
	need := t.d.LocalMemoryBytes()
	if len(t.r.scratch[id]) < need {
		t.r.scratch[id] = make([]byte, need)
	}
	return t.d.Run(uint32(id), t.r.scratch[id], begin, end)
}

// Close implements local.Runner: it stops the executor's workers.
func (r *Runner) Close() { r.exec.Close() }
