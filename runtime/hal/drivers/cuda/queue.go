package cuda

import (
	"encoding/binary"
	"slices"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// replay enqueues the commands of cb on the stream. The stream runs them
// in order, so barriers need no work. Consecutive dispatches are launched
// by one C loop (launchBatch) per launchChunk. d.mu is held.
func (d *Device) replay(cb *hal.CommandBuffer) error {
	flush := func() error {
		i, err := d.batch.flush(d.ctx, d.stream)
		owners := d.owners
		d.owners = d.owners[:0]
		if err != nil {
			return hal.ErrorContext(hal.ErrorContext(err, "dispatch of %q", owners[i].name), "command %d", owners[i].command)
		}
		return nil
	}
	for i, c := range cb.Commands() {
		if dc, ok := c.(*hal.DispatchCommand); ok {
			name, queued, err := d.queueDispatch(dc)
			if err != nil {
				if ferr := flush(); ferr != nil {
					return ferr
				}
				return hal.ErrorContext(err, "command %d", i)
			}
			if queued {
				d.owners = append(d.owners, launchOwner{command: i, name: name})
			}
			// Launch in chunks, so that the device starts on the first
			// kernels while the rest are prepared.
			if len(d.owners) >= launchChunk {
				if err := flush(); err != nil {
					return err
				}
			}
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		if err := d.enqueue(c); err != nil {
			return hal.ErrorContext(err, "command %d", i)
		}
	}
	return flush()
}

// launchChunk is how many dispatches replay queues before it launches
// them: enough to amortise the cgo call, few enough that the device starts
// early.
const launchChunk = 32

// launchOwner names the command a queued launch comes from, for errors.
type launchOwner struct {
	command int
	name    string
}

func rangePointer(b *hal.Buffer, offset int64) (uint64, error) {
	return bindingPointer(hal.BindingRange{Buffer: b, Offset: offset})
}

func (d *Device) enqueue(c hal.Command) error {
	switch c := c.(type) {
	case *hal.BarrierCommand:
		return nil
	case *hal.FillCommand:
		dst, err := rangePointer(c.Target, c.Offset)
		if err != nil {
			return hal.ErrorContext(err, "fill target")
		}
		w := len(c.Pattern)
		var p uint32
		switch w {
		case 1:
			p = uint32(c.Pattern[0])
		case 2:
			p = uint32(binary.LittleEndian.Uint16(c.Pattern))
		case 4:
			p = binary.LittleEndian.Uint32(c.Pattern)
		default:
			return status.Errorf(status.InvalidArgument, "fill pattern of %d bytes", w)
		}
		if c.Length == 0 {
			return nil
		}
		return memsetAsync(d.ctx, dst, p, w, c.Length/int64(w), d.stream)
	case *hal.UpdateCommand:
		dst, err := rangePointer(c.Target, c.Offset)
		if err != nil {
			return hal.ErrorContext(err, "update target")
		}
		return memcpyFromHost(d.ctx, dst, c.Data, d.stream)
	case *hal.CopyCommand:
		src, err := rangePointer(c.Source, c.SourceOffset)
		if err != nil {
			return hal.ErrorContext(err, "copy source")
		}
		dst, err := rangePointer(c.Target, c.TargetOffset)
		if err != nil {
			return hal.ErrorContext(err, "copy target")
		}
		if c.Length == 0 {
			return nil
		}
		return memcpyAsync(d.ctx, dst, src, c.Length, d.stream)
	case *hal.DispatchCommand:
		if _, _, err := d.queueDispatch(c); err != nil {
			return err
		}
		_, err := d.batch.flush(d.ctx, d.stream)
		return err
	default:
		return status.Errorf(status.Unimplemented, "unsupported command %T", c)
	}
}

// maxGridDim is the largest grid CUDA launches in x, y and z (the same on
// every architecture since compute capability 3.0, which is older than any
// the driver supports).
var maxGridDim = [3]uint32{1<<31 - 1, 65535, 65535}

// checkGrid refuses a workgroup count beyond maxGridDim, naming the export
// and the count: cuLaunchKernel would fail with a bare INVALID_VALUE.
func checkGrid(export string, wg [3]uint32) error {
	if wg[0] > maxGridDim[0] || wg[1] > maxGridDim[1] || wg[2] > maxGridDim[2] {
		return status.Errorf(status.OutOfRange, "dispatch of %q: workgroup count %v exceeds CUDA's grid limits %v", export, wg, maxGridDim)
	}
	return nil
}

// queueDispatch checks a dispatch and adds its launch to d.batch; it
// returns the export's name and whether a launch was queued (an empty grid
// launches nothing).
func (d *Device) queueDispatch(c *hal.DispatchCommand) (string, bool, error) {
	exe, ok := c.Executable.(*Executable)
	if !ok || exe.dev != d {
		return "", false, status.Errorf(status.InvalidArgument, "dispatch: executable of format %q was not prepared by this cuda device", c.Executable.Format())
	}
	if exe.released.Load() {
		return "", false, status.Errorf(status.FailedPrecondition, "dispatch: executable was released")
	}
	if c.Ordinal < 0 || c.Ordinal >= len(exe.kernels) {
		return "", false, status.Errorf(status.OutOfRange, "dispatch: entry point ordinal %d out of range: executable has %d export(s)", c.Ordinal, len(exe.kernels))
	}
	if c.Workgroups[0] == 0 || c.Workgroups[1] == 0 || c.Workgroups[2] == 0 {
		return "", false, nil
	}
	if err := checkGrid(exe.exports[c.Ordinal].Name, c.Workgroups); err != nil {
		return "", false, err
	}
	var ptrs [hal.MaxBindings]uint64
	if len(c.Bindings) > len(ptrs) {
		return "", false, status.Errorf(status.OutOfRange, "dispatch: %d bindings exceed the limit of %d", len(c.Bindings), len(ptrs))
	}
	for i, b := range c.Bindings {
		p, err := bindingPointer(b)
		if err != nil {
			return "", false, hal.ErrorContext(err, "dispatch binding %d", i)
		}
		ptrs[i] = p
	}
	args, err := PackKernelArgs(d.args, ptrs[:len(c.Bindings)], c.Constants)
	if err != nil {
		return "", false, err
	}
	k := &exe.kernels[c.Ordinal]
	d.batch.add(k.fn, c.Workgroups, k.block, k.shared, args)
	return exe.exports[c.Ordinal].Name, true, nil
}

// stagedBuffers returns the staged allocations the command buffers use,
// each once, in first-use order, in out[:0]. A submission uses a handful,
// so a linear search finds repeats faster than a map, which would also be
// allocated on every submission.
func stagedBuffers(out []*stagedMemory, cbs []*hal.CommandBuffer) []*stagedMemory {
	out = out[:0]
	add := func(b *hal.Buffer) {
		if b == nil {
			return
		}
		m, ok := b.Storage().(*stagedMemory)
		if !ok || slices.Contains(out, m) {
			return
		}
		out = append(out, m)
	}
	for _, cb := range cbs {
		for _, c := range cb.Commands() {
			switch c := c.(type) {
			case *hal.FillCommand:
				add(c.Target)
			case *hal.UpdateCommand:
				add(c.Target)
			case *hal.CopyCommand:
				add(c.Source)
				add(c.Target)
			case *hal.DispatchCommand:
				for _, b := range c.Bindings {
					add(b.Buffer)
				}
			}
		}
	}
	return out
}
