// Package localtask is the "local-task" HAL driver: a CPU device whose
// dispatches are split into workgroup tiles and run by the worker pool of
// package task, sized from the CPU topology (or from
// --task_topology_group_count).
package localtask

import (
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/task"
	"github.com/goiree/goiree/runtime/vm/status"
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
	return local.NewDevice(local.DeviceOptions{ID: DriverName, Runner: r, DeferUnreadyWaits: true})
}

// Runner runs dispatches on a task executor. It implements local.Runner.
type Runner struct {
	exec  *task.Executor
	batch uint64
	// scratch[id] is processor id's local memory; the executor never runs
	// one id on two goroutines at once.
	scratch [][]byte
}

// MaxConcurrency implements local.Runner.
func (r *Runner) MaxConcurrency() int { return r.exec.MaxConcurrency() }

// RunDispatch implements local.Runner: workers reserve batches of
// workgroups and run each batch with one trampoline call.
func (r *Runner) RunDispatch(d *local.Dispatch) error {
	need := d.LocalMemoryBytes()
	return r.exec.Dispatch(d.WorkgroupCount(), r.batch, func(id int, begin, end uint64) error {
		var lm []byte
		if need > 0 {
			if len(r.scratch[id]) < need {
				r.scratch[id] = make([]byte, need)
			}
			lm = r.scratch[id]
		}
		return d.Run(uint32(id), lm, begin, end)
	})
}

// Close implements local.Runner: it stops the executor's workers.
func (r *Runner) Close() { r.exec.Close() }
