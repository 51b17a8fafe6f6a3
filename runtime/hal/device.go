package hal

import (
	"path"
	"slices"
	"time"

	"github.com/goiree/goiree/runtime/base/status"
)

// Device executes work. Implementations are safe for concurrent use.
type Device interface {
	// ID is the device identifier, e.g. "local-task".
	ID() string
	// Allocator returns the device's buffer allocator.
	Allocator() Allocator
	// CreateCommandBuffer returns an empty command buffer for this device.
	CreateCommandBuffer(mode CommandBufferMode, categories CommandCategory) (*CommandBuffer, error)
	// CreateExecutableCache returns a cache that prepares executables.
	CreateExecutableCache(identifier string) (ExecutableCache, error)
	// CreateSemaphore returns a timeline semaphore.
	CreateSemaphore(initial uint64) (*Semaphore, error)
	// ExecutableFormats lists the executable formats the device can run.
	ExecutableFormats() []string
	// QueryI64 answers device queries; see QueryDevice.
	QueryI64(category, key string) (int64, error)
	// QueueExecute runs cbs in order after wait is reached and then signals
	// signal (or fails its semaphores with the error). It may return before
	// the work finishes; errors found while running are reported through the
	// signal fence.
	QueueExecute(wait, signal *Fence, cbs []*CommandBuffer) error
	// Close releases the device's resources.
	Close() error
}

// QueryDevice implements the device queries all drivers share:
//
//   - "hal.executable.format" :: <format> → 1 when the format is in formats.
//   - "hal.device.id" :: <pattern> → 1 when id matches the glob pattern.
//   - "hal.device" :: "concurrency" → concurrency.
//
// Other queries fail with NOT_FOUND.
func QueryDevice(id string, formats []string, concurrency int64, category, key string) (int64, error) {
	switch category {
	case "hal.executable.format":
		if slices.Contains(formats, key) {
			return 1, nil
		}
		return 0, nil
	case "hal.device.id":
		ok, err := path.Match(key, id)
		if err != nil {
			return 0, status.Errorf(status.InvalidArgument, "bad device id pattern %q: %v", key, err)
		}
		if ok {
			return 1, nil
		}
		return 0, nil
	case "hal.device":
		if key == "concurrency" {
			return concurrency, nil
		}
	}
	return 0, status.Errorf(status.NotFound, "unknown device query %s::%s", category, key)
}

// SubmitAndWaitOne is SubmitAndWait of one command buffer. On a device
// that runs command buffers inline it allocates nothing (a variadic slice
// handed through an interface call escapes to the heap).
func SubmitAndWaitOne(dev Device, cb *CommandBuffer) error {
	if s, ok := dev.(InlineSubmitter); ok {
		return s.SubmitInlineOne(cb)
	}
	return SubmitAndWait(dev, cb)
}

// SubmitAndWait executes cbs on dev and waits for them to finish.
func SubmitAndWait(dev Device, cbs ...*CommandBuffer) error {
	if s, ok := dev.(InlineSubmitter); ok {
		return s.SubmitInline(cbs)
	}
	sem, err := dev.CreateSemaphore(0)
	if err != nil {
		return errContext(err, "submit and wait")
	}
	if err := dev.QueueExecute(nil, NewFence(SemaphorePoint{sem, 1}), cbs); err != nil {
		return err
	}
	return sem.Wait(1, InfiniteTimeout)
}

// WaitMode says whether a multi-semaphore wait needs all or any point.
type WaitMode int

// Wait modes.
const (
	WaitAll WaitMode = iota
	WaitAny
)

// WaitSemaphores waits for the points of f: all of them, or any one.
func WaitSemaphores(mode WaitMode, f *Fence, timeout time.Duration) error {
	if mode == WaitAll || f == nil || len(f.points) == 0 {
		return f.Wait(timeout)
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		for _, p := range f.points {
			if err := p.Semaphore.Wait(p.Value, 0); err == nil {
				return nil
			} else if status.CodeOf(err) != status.DeadlineExceeded {
				return err
			}
		}
		if timeout == 0 || timeout > 0 && time.Now().After(deadline) {
			return status.Errorf(status.DeadlineExceeded, "wait-any on %d semaphores timed out", len(f.points))
		}
		time.Sleep(20 * time.Microsecond)
	}
}

// InlineSubmitter is implemented by devices that can run command buffers to
// completion on the calling goroutine. SubmitAndWait then calls SubmitInline
// instead of submitting with a semaphore and waiting on it; the result is
// the same (the first command error, or a submission error), without the
// semaphore and fence.
type InlineSubmitter interface {
	SubmitInline(cbs []*CommandBuffer) error
	// SubmitInlineOne is SubmitInline of the single command buffer cb.
	SubmitInlineOne(cb *CommandBuffer) error
}
