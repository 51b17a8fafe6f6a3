package cuda

import (
	"fmt"
	"sync"
	"time"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// Format is the executable format CUDA devices run.
const Format = "cuda-nvptx-fb"

// Device is a hal.Device on one CUDA device's primary context. It submits
// to one stream; submissions are serialised by a mutex, which keeps the
// stream's order the submission order.
type Device struct {
	id      string
	index   int
	dev     cuDevice
	ctx     cuContext
	sms     int
	sm      string
	alloc   *Allocator
	formats []string

	mu     sync.Mutex // guards stream, done, args, closed and the timing fields
	stream cuStream
	done   cuEvent
	args   []byte
	closed bool

	// batch collects consecutive dispatches for one C launch loop; owners
	// name their commands for errors.
	batch  launchBatch
	owners []launchOwner
	// staged is the reused list of a submission's staged buffers.
	staged []*stagedMemory

	// Device-side timing (SetTiming): events around each submission's
	// commands, and the time between them in the latest one.
	timeStart, timeEnd cuEvent
	lastDevice         time.Duration
}

// NewDevice creates the device for CUDA device index (retaining its
// primary context).
func NewDevice(index int) (*Device, error) {
	if err := load(); err != nil {
		return nil, err
	}
	n, err := deviceCount()
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= n {
		return nil, status.Errorf(status.NotFound, "cuda device %d not found: %d device(s) present", index, n)
	}
	dev, err := getDevice(index)
	if err != nil {
		return nil, err
	}
	ctx, err := primaryContextRetain(dev)
	if err != nil {
		return nil, err
	}
	d := &Device{id: DriverName, index: index, dev: dev, ctx: ctx, formats: []string{Format}, args: make([]byte, MaxArgBytes)}
	if index > 0 {
		d.id = fmt.Sprintf("%s://%d", DriverName, index)
	}
	fail := func(err error) (*Device, error) {
		primaryContextRelease(dev)
		return nil, err
	}
	if d.sms, err = deviceAttribute(dev, attrMultiprocessorCount); err != nil {
		return fail(err)
	}
	maj, err := deviceAttribute(dev, attrComputeCapabilityMaj)
	if err != nil {
		return fail(err)
	}
	min, err := deviceAttribute(dev, attrComputeCapabilityMin)
	if err != nil {
		return fail(err)
	}
	d.sm = fmt.Sprintf("sm_%d%d", maj, min)
	if ok, err := deviceAttribute(dev, attrCanMapHostMemory); err != nil || ok == 0 {
		return fail(status.Errorf(status.Unimplemented, "cuda device %d cannot map host memory, which this driver needs for host-visible buffers", index))
	}
	if d.stream, err = streamCreate(ctx); err != nil {
		return fail(err)
	}
	if d.done, err = eventCreate(ctx, eventDisableTiming); err != nil {
		streamDestroy(ctx, d.stream)
		return fail(err)
	}
	d.alloc = newAllocator(ctx, DefaultCacheBytes)
	d.alloc.useStreamPool(dev, d.stream)
	return d, nil
}

// ID implements hal.Device.
func (d *Device) ID() string { return d.id }

// Arch returns the device's compute capability as "sm_XY".
func (d *Device) Arch() string { return d.sm }

// Allocator implements hal.Device.
func (d *Device) Allocator() hal.Allocator { return d.alloc }

// CreateCommandBuffer implements hal.Device: commands are recorded by the
// runtime's validating recorder and replayed on the stream at submission.
func (d *Device) CreateCommandBuffer(mode hal.CommandBufferMode, categories hal.CommandCategory) (*hal.CommandBuffer, error) {
	return hal.NewCommandBuffer(mode, categories), nil
}

// CreateExecutableCache implements hal.Device.
func (d *Device) CreateExecutableCache(identifier string) (hal.ExecutableCache, error) {
	return executableCache{d}, nil
}

// CreateSemaphore implements hal.Device.
func (d *Device) CreateSemaphore(initial uint64) (*hal.Semaphore, error) {
	return hal.NewSemaphore(initial), nil
}

// ExecutableFormats implements hal.Device.
func (d *Device) ExecutableFormats() []string { return d.formats }

// QueryI64 implements hal.Device (see hal.QueryDevice); concurrency is the
// multiprocessor count.
func (d *Device) QueryI64(category, key string) (int64, error) {
	return hal.QueryDevice(d.id, d.formats, int64(d.sms), category, key)
}

// QueueExecute implements hal.Device: once wait is reached, the command
// buffers are replayed in order on the stream, an event is recorded after
// them and waited for, and then signal is signaled (or failed with the
// first error).
func (d *Device) QueueExecute(wait, signal *hal.Fence, cbs []*hal.CommandBuffer) error {
	for i, cb := range cbs {
		if cb == nil || !cb.IsExecutable() {
			return status.Errorf(status.FailedPrecondition, "queue execute: command buffer %d has not been ended", i)
		}
	}
	if wait.Wait(0) != nil {
		go d.submit(wait, signal, cbs)
		return nil
	}
	err := d.submit(wait, signal, cbs)
	if signal.Len() > 0 {
		return nil
	}
	return err
}

func (d *Device) submit(wait, signal *hal.Fence, cbs []*hal.CommandBuffer) error {
	if err := wait.Wait(hal.InfiniteTimeout); err != nil {
		err = hal.ErrorContext(err, "queue execute: wait fence failed")
		signal.Fail(err)
		return err
	}
	if err := d.run(cbs); err != nil {
		signal.Fail(err)
		return err
	}
	return signal.Signal()
}

func (d *Device) run(cbs []*hal.CommandBuffer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return status.Errorf(status.FailedPrecondition, "queue execute on closed device %q", d.id)
	}
	// Staged buffers the commands use get their host copies uploaded
	// first (when the host may have written them), and are marked as
	// possibly changed by the device afterwards.
	staged := stagedBuffers(d.staged, cbs)
	defer func() {
		for _, m := range staged {
			m.deviceWrote()
		}
		// Keep the slice for the next submission, without holding its
		// buffers.
		clear(staged)
		d.staged = staged[:0]
	}()
	var first error
	for _, m := range staged {
		if err := m.upload(d.stream); err != nil {
			first = hal.ErrorContext(err, "uploading a host-written buffer")
			break
		}
	}
	timed := d.timeStart != nil && first == nil
	if timed {
		if err := eventRecord(d.ctx, d.timeStart, d.stream); err != nil {
			first = err
			timed = false
		}
	}
	for i, cb := range cbs {
		if first != nil {
			break
		}
		if err := d.replay(cb); err != nil {
			first = hal.ErrorContext(err, "command buffer %d", i)
		}
	}
	// Wait for whatever was enqueued, also after an error, so that no
	// command still runs on memory the caller may free. With timing on,
	// the timing end event is the one waited for (one event record and
	// one cgo call fewer per submission).
	done, start := d.done, cuEvent(nil)
	if timed && first == nil {
		done, start = d.timeEnd, d.timeStart
	}
	ms, stage, err := finish(d.ctx, d.stream, start, done)
	switch {
	case err == nil:
		if start != nil {
			d.lastDevice = time.Duration(float64(ms) * 1e6)
		}
	case stage == finishRecord:
		if first == nil {
			first = err
		}
		if err := streamSynchronize(d.ctx, d.stream); err != nil && first == nil {
			first = err
		}
	case first != nil:
		// The error of the commands is the one reported.
	case stage == finishElapsed:
		first = hal.ErrorContext(err, "reading the submission's device time")
	default:
		first = hal.ErrorContext(err, "waiting for the stream")
	}
	return first
}

// Close implements hal.Device: it waits for the stream and releases the
// stream, event and primary context.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	err := streamSynchronize(d.ctx, d.stream)
	if e := d.dropTimingEvents(); err == nil {
		err = e
	}
	d.alloc.close()
	if e := eventDestroy(d.ctx, d.done); err == nil {
		err = e
	}
	if e := streamDestroy(d.ctx, d.stream); err == nil {
		err = e
	}
	if e := primaryContextRelease(d.dev); err == nil {
		err = e
	}
	return err
}
