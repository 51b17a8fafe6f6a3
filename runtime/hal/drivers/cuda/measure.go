package cuda

import (
	"time"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// Measurement hooks for benchmarks (tools/internal/benchsuite): the raw
// driver references that the HAL path is compared with, and device-side
// timing of submissions. They are not needed to run programs.

// RawLaunchLoop launches export ordinal of exe count times with the kernel
// arguments a dispatch of these constants and bindings gets, from one C
// loop of cuLaunchKernel calls on the device's stream (no recording, no
// replay, no Go between launches), then waits for the stream. It returns
// the wall time from the first launch to the end of the wait: the raw
// driver loop that the host time per dispatch of the HAL path is judged
// against.
func (d *Device) RawLaunchLoop(exe hal.Executable, ordinal int, workgroups [3]uint32, constants []uint32, bindings []hal.Binding, count int) (time.Duration, error) {
	wall, _, err := d.rawLaunch(exe, ordinal, workgroups, constants, bindings, count, false)
	return wall, err
}

// RawLaunchTimed is RawLaunchLoop with the launches bracketed by two CUDA
// events on the stream: it returns the wall time as RawLaunchLoop does and
// the device time between the events (count kernels back to back, nothing
// else). With count 1 the device time is that of one kernel alone: the
// reference that tells a kernel's own time from the runtime's around it.
func (d *Device) RawLaunchTimed(exe hal.Executable, ordinal int, workgroups [3]uint32, constants []uint32, bindings []hal.Binding, count int) (wall, device time.Duration, err error) {
	return d.rawLaunch(exe, ordinal, workgroups, constants, bindings, count, true)
}

func (d *Device) rawLaunch(exe hal.Executable, ordinal int, workgroups [3]uint32, constants []uint32, bindings []hal.Binding, count int, timed bool) (time.Duration, time.Duration, error) {
	if count < 1 {
		return 0, 0, status.Errorf(status.InvalidArgument, "raw launch loop: count %d, want at least 1", count)
	}
	e, ok := exe.(*Executable)
	if !ok || e.dev != d {
		return 0, 0, status.Errorf(status.InvalidArgument, "raw launch loop: executable of format %q was not prepared by this cuda device", exe.Format())
	}
	if e.released.Load() {
		return 0, 0, status.Errorf(status.FailedPrecondition, "raw launch loop: executable was released")
	}
	if ordinal < 0 || ordinal >= len(e.kernels) {
		return 0, 0, status.Errorf(status.OutOfRange, "raw launch loop: entry point ordinal %d out of range: executable has %d export(s)", ordinal, len(e.kernels))
	}
	if len(bindings) > hal.MaxBindings {
		return 0, 0, status.Errorf(status.OutOfRange, "raw launch loop: %d bindings exceed the limit of %d", len(bindings), hal.MaxBindings)
	}
	if err := checkGrid(e.exports[ordinal].Name, workgroups); err != nil {
		return 0, 0, err
	}
	ptrs := make([]uint64, len(bindings))
	for i, b := range bindings {
		p, err := bindingPointer(hal.BindingRange{Buffer: b.Buffer, Offset: b.Offset, Length: b.Length})
		if err != nil {
			return 0, 0, hal.ErrorContext(err, "raw launch loop binding %d", i)
		}
		ptrs[i] = p
	}
	args, err := PackKernelArgs(make([]byte, MaxArgBytes), ptrs, constants)
	if err != nil {
		return 0, 0, err
	}
	k := &e.kernels[ordinal]
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, 0, status.Errorf(status.FailedPrecondition, "raw launch loop on closed device %q", d.id)
	}
	var start, end cuEvent
	if timed {
		if start, err = eventCreate(d.ctx, eventDefault); err != nil {
			return 0, 0, err
		}
		defer eventDestroy(d.ctx, start)
		if end, err = eventCreate(d.ctx, eventDefault); err != nil {
			return 0, 0, err
		}
		defer eventDestroy(d.ctx, end)
	}
	// Start from an idle stream, so that earlier work is not timed.
	if err := streamSynchronize(d.ctx, d.stream); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	if timed {
		err = eventRecord(d.ctx, start, d.stream)
	}
	if err == nil {
		err = launchLoop(d.ctx, k.fn, workgroups, k.block, k.shared, d.stream, args, count)
	}
	if timed && err == nil {
		err = eventRecord(d.ctx, end, d.stream)
	}
	if e := streamSynchronize(d.ctx, d.stream); err == nil {
		err = e
	}
	wall := time.Since(t0)
	if err != nil || !timed {
		return wall, 0, err
	}
	ms, err := eventElapsed(d.ctx, start, end)
	if err != nil {
		return wall, 0, hal.ErrorContext(err, "reading the raw launches' device time")
	}
	return wall, time.Duration(float64(ms) * 1e6), nil
}

// SetTiming turns device-side timing of submissions on or off. While it is
// on, the commands of each submission are bracketed by two CUDA events on
// the stream (after the uploads of host-written staged buffers, before the
// first command and after the last), and LastDeviceTime reports the time
// between them: the time the device spent on the commands, without the
// host's share of a submission.
func (d *Device) SetTiming(on bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return status.Errorf(status.FailedPrecondition, "timing on closed device %q", d.id)
	}
	if !on {
		return d.dropTimingEvents()
	}
	if d.timeStart != nil {
		return nil
	}
	start, err := eventCreate(d.ctx, eventDefault)
	if err != nil {
		return err
	}
	end, err := eventCreate(d.ctx, eventDefault)
	if err != nil {
		eventDestroy(d.ctx, start)
		return err
	}
	d.timeStart, d.timeEnd, d.lastDevice = start, end, 0
	return nil
}

// dropTimingEvents destroys the timing events. d.mu is held.
func (d *Device) dropTimingEvents() error {
	if d.timeStart == nil {
		return nil
	}
	err := eventDestroy(d.ctx, d.timeStart)
	if e := eventDestroy(d.ctx, d.timeEnd); err == nil {
		err = e
	}
	d.timeStart, d.timeEnd = nil, nil
	return err
}

// LastDeviceTime returns the device time of the latest submission made
// while timing was on (see SetTiming), or 0 when there was none.
func (d *Device) LastDeviceTime() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lastDevice
}
