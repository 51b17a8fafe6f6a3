package cuda

import (
	"encoding/binary"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// Kernel argument layout: the parameters of a kernel are the binding
// device pointers (8 bytes each, 8-byte aligned) followed by the 32-bit
// constants (4 bytes each), packed as the CUDA ABI lays out a parameter
// list, the way CU_LAUNCH_PARAM_BUFFER_POINTER expects them.

// MaxArgBytes bounds the packed parameters of one launch (the most bindings
// and constants a dispatch may take).
const MaxArgBytes = hal.MaxBindings*8 + hal.MaxConstants*4

// ArgSize returns the packed size of nptrs pointers and nconsts constants.
func ArgSize(nptrs, nconsts int) int { return nptrs*8 + nconsts*4 }

// PackKernelArgs writes the kernel parameters (pointers, then constants) to
// dst, which must hold ArgSize bytes, and returns the bytes written.
func PackKernelArgs(dst []byte, ptrs []uint64, constants []uint32) ([]byte, error) {
	n := ArgSize(len(ptrs), len(constants))
	if n > len(dst) {
		return nil, status.Errorf(status.OutOfRange, "kernel arguments need %d bytes; buffer holds %d", n, len(dst))
	}
	for i, p := range ptrs {
		binary.LittleEndian.PutUint64(dst[i*8:], p)
	}
	off := len(ptrs) * 8
	for i, c := range constants {
		binary.LittleEndian.PutUint32(dst[off+i*4:], c)
	}
	return dst[:n], nil
}

// bindingPointer returns the device address of a binding range: the
// allocation's device base plus the buffer's offset in it plus the
// binding's offset.
func bindingPointer(b hal.BindingRange) (uint64, error) {
	s, ok := b.Buffer.Storage().(storage)
	if !ok {
		return 0, status.Errorf(status.InvalidArgument, "buffer was not allocated by a cuda device (its memory is %T)", b.Buffer.Storage())
	}
	return s.devicePointer() + uint64(b.Buffer.ByteOffset()) + uint64(b.Offset), nil
}
