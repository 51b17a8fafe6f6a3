package local

import (
	"sync"
	"sync/atomic"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// Runner runs prepared dispatches for a local device: inline on the
// caller's goroutine (local-sync) or across a task executor (local-task).
type Runner interface {
	// MaxConcurrency is the bound on processor ids the runner uses.
	MaxConcurrency() int
	// RunDispatch runs every workgroup of d and returns the first error.
	RunDispatch(d *Dispatch) error
	// Close releases the runner's resources.
	Close()
}

// DeviceOptions configure NewDevice.
type DeviceOptions struct {
	// ID is the device identifier ("local-sync", "local-task").
	ID string
	// Runner runs dispatches.
	Runner Runner
	// Allocator allocates buffers; nil means a new hal.HostAllocator with
	// the default cache size.
	Allocator hal.Allocator
	// Imports resolves the imports of the device's executables against the
	// loaded executable plugins (nil: executables with imports are refused).
	Imports ImportResolver
	// DeferUnreadyWaits makes QueueExecute run a submission whose wait fence
	// is not yet reached on a new goroutine instead of blocking the caller.
	DeferUnreadyWaits bool
}

// Device is a hal.Device executing on the host CPU.
type Device struct {
	opts DeviceOptions

	mu     sync.Mutex // serializes Close
	closed atomic.Bool
}

// NewDevice returns a local device.
func NewDevice(opts DeviceOptions) (*Device, error) {
	if opts.Runner == nil {
		return nil, status.Errorf(status.InvalidArgument, "local device %q needs a dispatch runner", opts.ID)
	}
	if opts.Allocator == nil {
		opts.Allocator = hal.NewHostAllocator(-1)
	}
	return &Device{opts: opts}, nil
}

// ID implements hal.Device.
func (d *Device) ID() string { return d.opts.ID }

// Allocator implements hal.Device.
func (d *Device) Allocator() hal.Allocator { return d.opts.Allocator }

// CreateCommandBuffer implements hal.Device.
func (d *Device) CreateCommandBuffer(mode hal.CommandBufferMode, categories hal.CommandCategory) (*hal.CommandBuffer, error) {
	return hal.NewCommandBuffer(mode, categories), nil
}

// CreateExecutableCache implements hal.Device.
func (d *Device) CreateExecutableCache(identifier string) (hal.ExecutableCache, error) {
	return ExecutableCache{Imports: d.opts.Imports}, nil
}

// CreateSemaphore implements hal.Device.
func (d *Device) CreateSemaphore(initial uint64) (*hal.Semaphore, error) {
	return hal.NewSemaphore(initial), nil
}

// ExecutableFormats implements hal.Device.
func (d *Device) ExecutableFormats() []string { return Formats() }

// QueryI64 implements hal.Device (see hal.QueryDevice).
func (d *Device) QueryI64(category, key string) (int64, error) {
	return hal.QueryDevice(d.opts.ID, Formats(), int64(d.opts.Runner.MaxConcurrency()), category, key)
}

// QueueExecute implements hal.Device. Command buffers run in order once wait
// is reached; then signal is signaled, or, when a command fails, its
// semaphores are failed with the error. The error is also returned when the
// submission ran inline and signal is empty (it would be lost otherwise).
func (d *Device) QueueExecute(wait, signal *hal.Fence, cbs []*hal.CommandBuffer) error {
	if err := d.checkSubmission(cbs...); err != nil {
		return err
	}
	if d.opts.DeferUnreadyWaits && wait.Wait(0) != nil {
		go d.submit(wait, signal, cbs)
		return nil
	}
	err := d.submit(wait, signal, cbs)
	if signal.Len() > 0 {
		return nil
	}
	return err
}

// SubmitInline implements hal.InlineSubmitter: it runs cbs in order on the
// calling goroutine with the checks of QueueExecute and returns the first
// error, as QueueExecute with a fresh signal fence followed by a wait would.
func (d *Device) SubmitInline(cbs []*hal.CommandBuffer) error {
	if err := d.checkSubmission(cbs...); err != nil {
		return err
	}
	for _, cb := range cbs {
		if err := Execute(cb, d.opts.Runner); err != nil {
			return err
		}
	}
	return nil
}

// SubmitInlineOne implements hal.InlineSubmitter. The one-element array
// stays on the stack: SubmitInline is a concrete call that keeps no
// reference to the slice.
func (d *Device) SubmitInlineOne(cb *hal.CommandBuffer) error {
	cbs := [1]*hal.CommandBuffer{cb}
	return d.SubmitInline(cbs[:])
}

// checkSubmission fails when the device is closed or a command buffer has
// not been ended.
func (d *Device) checkSubmission(cbs ...*hal.CommandBuffer) error {
	if d.closed.Load() {
		return status.Errorf(status.FailedPrecondition, "queue execute on closed device %q", d.opts.ID)
	}
	for i, cb := range cbs {
		if cb == nil || !cb.IsExecutable() {
			return status.Errorf(status.FailedPrecondition, "queue execute: command buffer %d has not been ended", i)
		}
	}
	return nil
}

// submit waits for wait, runs cbs and signals (or fails) signal.
func (d *Device) submit(wait, signal *hal.Fence, cbs []*hal.CommandBuffer) error {
	if err := wait.Wait(hal.InfiniteTimeout); err != nil {
		err = hal.ErrorContext(err, "queue execute: wait fence failed")
		signal.Fail(err)
		return err
	}
	for _, cb := range cbs {
		if err := Execute(cb, d.opts.Runner); err != nil {
			signal.Fail(err)
			return err
		}
	}
	return signal.Signal()
}

// Close implements hal.Device: it stops the runner.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed.Load() {
		return nil
	}
	d.closed.Store(true)
	d.opts.Runner.Close()
	return nil
}

// Execute runs the commands of cb in order on the host, with dispatches run
// by r. Each command completes before the next starts, so barriers need no
// work.
func Execute(cb *hal.CommandBuffer, r Runner) error {
	for i, c := range cb.Commands() {
		if err := executeCommand(c, r); err != nil {
			return hal.ErrorContext(err, "command %d", i)
		}
	}
	return nil
}

func hostRange(b *hal.Buffer, offset, length int64) ([]byte, error) {
	hb, err := b.HostBytes()
	if err != nil {
		return nil, err
	}
	if _, err := hal.CheckRange(offset, length, int64(len(hb))); err != nil {
		return nil, err
	}
	return hb[offset : offset+length : offset+length], nil
}

func executeCommand(c hal.Command, r Runner) error {
	switch c := c.(type) {
	case *hal.BarrierCommand:
		return nil
	case *hal.FillCommand:
		dst, err := hostRange(c.Target, c.Offset, c.Length)
		if err != nil {
			return err
		}
		hal.FillBytes(dst, c.Pattern)
	case *hal.UpdateCommand:
		dst, err := hostRange(c.Target, c.Offset, int64(len(c.Data)))
		if err != nil {
			return err
		}
		copy(dst, c.Data)
	case *hal.CopyCommand:
		src, err := hostRange(c.Source, c.SourceOffset, c.Length)
		if err != nil {
			return err
		}
		dst, err := hostRange(c.Target, c.TargetOffset, c.Length)
		if err != nil {
			return err
		}
		copy(dst, src)
	case *hal.DispatchCommand:
		exe, ok := c.Executable.(*Executable)
		if !ok {
			return status.Errorf(status.InvalidArgument, "dispatch: executable of format %q was not prepared by a local device", c.Executable.Format())
		}
		var scratch [16][]byte
		var bindings [][]byte
		if len(c.Bindings) <= len(scratch) {
			bindings = scratch[:len(c.Bindings):len(c.Bindings)]
		} else {
			bindings = make([][]byte, len(c.Bindings))
		}
		for i, b := range c.Bindings {
			mem, err := hostRange(b.Buffer, b.Offset, b.Length)
			if err != nil {
				return hal.ErrorContext(err, "dispatch binding %d", i)
			}
			bindings[i] = mem
		}
		if c.Workgroups[0] == 0 || c.Workgroups[1] == 0 || c.Workgroups[2] == 0 {
			return nil
		}
		return exe.runPooled(r, c.Ordinal, c.Workgroups, c.Constants, bindings)
	default:
		return status.Errorf(status.Unimplemented, "unsupported command %T", c)
	}
	return nil
}

// InlineRunner runs each dispatch on the calling goroutine, as processor 0,
// with one trampoline call for the whole grid. It is what local-sync uses.
type InlineRunner struct {
	scratch sync.Pool
}

// MaxConcurrency implements Runner: 1.
func (*InlineRunner) MaxConcurrency() int { return 1 }

// RunDispatch implements Runner.
func (r *InlineRunner) RunDispatch(d *Dispatch) error {
	n := d.LocalMemoryBytes()
	if n == 0 {
		return d.Run(0, nil, 0, d.WorkgroupCount())
	}
	p, ok := r.scratch.Get().(*[]byte)
	if !ok || len(*p) < n {
		lm := make([]byte, n)
		p = &lm
	}
	defer r.scratch.Put(p)
	return d.Run(0, *p, 0, d.WorkgroupCount())
}

// Close implements Runner.
func (*InlineRunner) Close() {}
