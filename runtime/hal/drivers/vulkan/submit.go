package vulkan

/*
#include "gvk.h"
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// stream is a command stream for gvk_submit being built from hal commands.
type stream struct {
	d          *Device
	words      []uint64
	dispatches uint32
	bindings   uint32
	// staged holds the bytes that go through the staging buffer, and
	// patches the stream positions of the COPY source handles to fill in.
	staged  []byte
	patches []int
	// mirrored lists the staged-memory storages the commands use, with
	// whether a command may write them.
	mirrored []mirrorUse
}

// mirrorUse is a staged-memory storage used by a submission.
type mirrorUse struct {
	s       *storage
	written bool
}

// use notes that the commands use st (writing it when written).
func (s *stream) use(st *storage, written bool) {
	if st.kind != kindStaged {
		return
	}
	for i := range s.mirrored {
		if s.mirrored[i].s == st {
			s.mirrored[i].written = s.mirrored[i].written || written
			return
		}
	}
	s.mirrored = append(s.mirrored, mirrorUse{st, written})
}

// uploads returns the commands that bring the device memory of the staged
// storages the host may have written up to date (copies from their
// mirrors), to run before the stream, and the storages they upload.
func (s *stream) uploads() ([]uint64, []*storage) {
	var words []uint64
	var up []*storage
	for _, m := range s.mirrored {
		st := m.s
		st.stageMu.Lock()
		dirty := st.hostDirty
		st.stageMu.Unlock()
		if dirty {
			words = append(words, C.GVK_CMD_COPY, handleOf(st.mirror), 0, handle(st), 0, st.copyBytes())
			up = append(up, st)
		}
	}
	return words, up
}

// finished updates the staged storages' state after a successful
// submission: uploaded mirrors are clean, written buffers are newer than
// their mirrors.
func (s *stream) finished(up []*storage) {
	for _, st := range up {
		st.stageMu.Lock()
		st.hostDirty = false
		st.stageMu.Unlock()
	}
	for _, m := range s.mirrored {
		if m.written {
			m.s.stageMu.Lock()
			m.s.deviceNewer = true
			m.s.stageMu.Unlock()
		}
	}
}

// copyNow copies n bytes from src to dst (offset 0 of both) in a
// submission of its own and waits for it.
func (d *Device) copyNow(src, dst C.VkBuffer, n uint64) error {
	if n == 0 {
		return nil
	}
	words := []uint64{C.GVK_CMD_COPY, uint64(uintptr(unsafe.Pointer(src))), 0, uint64(uintptr(unsafe.Pointer(dst))), 0, n}
	return d.live("copying a staged buffer", func() error {
		var msg [256]C.char
		r := C.gvk_submit(d.dev, (*C.uint64_t)(&words[0]), C.size_t(len(words)), 0, 0, nil, &msg[0], C.size_t(len(msg)))
		if r != C.VK_SUCCESS {
			return vkError(r, "vulkan queue submission (%s)", C.GoString(&msg[0]))
		}
		return nil
	})
}

// execute records and runs the command buffers in one submission.
func (d *Device) execute(cbs []*hal.CommandBuffer) error {
	s := &stream{d: d}
	for i, cb := range cbs {
		for j, c := range cb.Commands() {
			if err := s.add(c); err != nil {
				return hal.ErrorContext(err, "command buffer %d command %d", i, j)
			}
		}
	}
	if len(s.words) == 0 {
		return nil
	}
	up, upStorages := s.uploads()
	var staging *storage
	if len(s.staged) > 0 {
		var err error
		staging, err = d.alloc.allocate(uint64(len(s.staged)), kindStaging)
		if err != nil {
			return hal.ErrorContext(err, "allocating a %d-byte staging buffer", len(s.staged))
		}
		defer staging.Release()
		copy(staging.host, s.staged)
		for _, p := range s.patches {
			s.words[p] = handle(staging)
		}
	}
	if len(up) > 0 {
		s.words = append(up, s.words...)
	}
	err := d.live("queue execute", func() error {
		var msg [256]C.char
		var ns C.uint64_t
		nsp := (*C.uint64_t)(nil)
		if d.timing {
			nsp = &ns
		}
		r := C.gvk_submit(d.dev, (*C.uint64_t)(&s.words[0]), C.size_t(len(s.words)), C.uint32_t(s.dispatches), C.uint32_t(s.bindings), nsp, &msg[0], C.size_t(len(msg)))
		if r != C.VK_SUCCESS {
			return vkError(r, "vulkan queue submission (%s)", C.GoString(&msg[0]))
		}
		if d.timing {
			d.lastDevice = time.Duration(ns)
		}
		return nil
	})
	if err == nil {
		s.finished(upStorages)
	}
	return err
}

func handle(s *storage) uint64 { return handleOf(s.buf) }

func handleOf(b C.gvk_buffer) uint64 { return uint64(uintptr(unsafe.Pointer(b.buffer))) }

// target resolves a buffer to its Vulkan handle and absolute offset.
func (s *stream) target(b *hal.Buffer, offset int64) (*storage, uint64, error) {
	st, err := vulkanStorage(s.d, b)
	if err != nil {
		return nil, 0, err
	}
	return st, st.base + uint64(b.ByteOffset()+offset), nil
}

// stage appends data to the staging bytes and records a copy from it.
func (s *stream) stage(data []byte, dst *storage, dstOffset uint64) {
	// Keep each staged range 16-byte aligned.
	for len(s.staged)%16 != 0 {
		s.staged = append(s.staged, 0)
	}
	src := uint64(len(s.staged))
	s.staged = append(s.staged, data...)
	s.words = append(s.words, C.GVK_CMD_COPY, 0, src, handle(dst), dstOffset, uint64(len(data)))
	s.patches = append(s.patches, len(s.words)-5)
}

func (s *stream) add(c hal.Command) error {
	switch c := c.(type) {
	case *hal.BarrierCommand:
		s.words = append(s.words, C.GVK_CMD_BARRIER)
	case *hal.FillCommand:
		if c.Length == 0 {
			return nil
		}
		st, off, err := s.target(c.Target, c.Offset)
		if err != nil {
			return err
		}
		s.use(st, true)
		// vkCmdFillBuffer needs 4-byte aligned ranges: the unaligned head
		// and tail (under 4 bytes each, only for 1- and 2-byte patterns)
		// are staged. Every aligned word starts a whole pattern, because
		// the range starts at a multiple of the pattern length.
		var p [4]byte
		hal.FillBytes(p[:], c.Pattern)
		end := off + uint64(c.Length)
		mid, midEnd := (off+3)&^3, end&^3
		if mid >= midEnd {
			data := make([]byte, c.Length)
			hal.FillBytes(data, c.Pattern)
			s.stage(data, st, off)
			return nil
		}
		if mid > off {
			s.stage(p[:mid-off], st, off)
		}
		word := uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24
		s.words = append(s.words, C.GVK_CMD_FILL, handle(st), mid, midEnd-mid, word)
		if end > midEnd {
			s.stage(p[:end-midEnd], st, midEnd)
		}
	case *hal.UpdateCommand:
		if len(c.Data) == 0 {
			return nil
		}
		st, off, err := s.target(c.Target, c.Offset)
		if err != nil {
			return err
		}
		s.use(st, true)
		s.stage(c.Data, st, off)
	case *hal.CopyCommand:
		if c.Length == 0 {
			return nil
		}
		src, soff, err := s.target(c.Source, c.SourceOffset)
		if err != nil {
			return hal.ErrorContext(err, "copy source")
		}
		dst, doff, err := s.target(c.Target, c.TargetOffset)
		if err != nil {
			return hal.ErrorContext(err, "copy target")
		}
		s.use(src, false)
		s.use(dst, true)
		s.words = append(s.words, C.GVK_CMD_COPY, handle(src), soff, handle(dst), doff, uint64(c.Length))
	case *hal.DispatchCommand:
		exe, ok := c.Executable.(*Executable)
		if !ok || exe.device != s.d {
			return status.Errorf(status.InvalidArgument, "dispatch: executable of format %q was not prepared by this vulkan device", c.Executable.Format())
		}
		if exe.released.Load() {
			return status.Errorf(status.FailedPrecondition, "dispatch: executable was released")
		}
		wg := c.Workgroups
		if wg[0] == 0 || wg[1] == 0 || wg[2] == 0 {
			return nil
		}
		lim := s.d.dev.max_workgroup_count
		for i := range wg {
			if wg[i] > uint32(lim[i]) {
				return status.Errorf(status.OutOfRange, "dispatch of %q: workgroup count %v exceeds the device's maxComputeWorkGroupCount [%d %d %d]", exe.exports[c.Ordinal].Name, wg, lim[0], lim[1], lim[2])
			}
		}
		s.words = append(s.words, C.GVK_CMD_DISPATCH, uint64(uintptr(unsafePointer(exe.exe))), uint64(c.Ordinal),
			uint64(wg[0]), uint64(wg[1]), uint64(wg[2]), uint64(len(c.Constants)))
		for _, v := range c.Constants {
			s.words = append(s.words, uint64(v))
		}
		s.words = append(s.words, uint64(len(c.Bindings)))
		align := uint64(s.d.dev.min_storage_offset_alignment)
		for i, b := range c.Bindings {
			st, off, err := s.target(b.Buffer, b.Offset)
			if err != nil {
				return hal.ErrorContext(err, "dispatch binding %d", i)
			}
			if align > 0 && off%align != 0 {
				return status.Errorf(status.InvalidArgument, "dispatch binding %d: offset %d is not a multiple of the device's minStorageBufferOffsetAlignment %d", i, off, align)
			}
			// Storage buffers may be written by the shader.
			s.use(st, true)
			n := uint64(b.Length)
			// The VkBuffer may be larger than the allocation (a reused
			// buffer of its size class, or a block): ranges stay within
			// the allocation, which starts at st.base.
			whole := (uint64(st.size) + 3) &^ 3
			if n == 0 {
				off, n = st.base, max(whole, 4)
			} else if r := (n + 3) &^ 3; off-st.base+r <= whole {
				// Shaders address storage in 32-bit words: round the range up
				// to whole words (the VkBuffer is sized in whole words), so
				// the word holding a binding's last bytes is in range.
				n = r
			}
			s.words = append(s.words, handle(st), off, n)
		}
		s.dispatches++
		s.bindings += uint32(len(c.Bindings))
	default:
		return status.Errorf(status.Unimplemented, "vulkan: unsupported command %T", c)
	}
	return nil
}
