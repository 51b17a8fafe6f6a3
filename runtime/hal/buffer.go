package hal

import (
	"fmt"
	"sync/atomic"

	"github.com/goiree/goiree/runtime/base/status"
)

// WholeBuffer as a length means "from the offset to the end of the buffer".
const WholeBuffer int64 = -1

// Storage is the memory behind one allocation. Host allocators return
// storage with HostBytes; device drivers may return storage without host
// memory (HostBytes returns nil) and recover their own type by assertion.
type Storage interface {
	// HostBytes returns the whole allocation as host memory, or nil when the
	// memory is not host-visible.
	HostBytes() []byte
	// Release gives the memory back to its allocator. It is called once,
	// when the last Buffer referring to the allocation is released.
	Release()
}

// allocation is shared by a buffer and all of its subspans.
type allocation struct {
	storage Storage
	size    int64
	memType MemoryType
	usage   BufferUsage
	// extra counts the Buffers over the allocation beyond the first
	// (subspans); it drops to -1 with the last. Counting from the one a
	// new allocation has, the zero value needs no store (an atomic store
	// is a locked instruction, on the path of every allocation).
	extra atomic.Int64
	// decommitted is set once the storage has been released, by the last
	// reference or early by Decommit.
	decommitted atomic.Bool
	// leak and sentinel are set when leak reporting is on (leak.go).
	leak     *leakState
	sentinel *leakSentinel
}

// Buffer is a byte range [offset, offset+length) of an allocation. Buffers
// are created by an Allocator and narrowed with Subspan.
//
// A Buffer is reference-counted, like every IREE HAL object: it is created
// with one reference, Retain adds one and Release drops one. While a
// Buffer has references it holds one reference on its allocation (each
// subspan is a Buffer of its own holding another), and the allocation's
// memory returns to its allocator when the last Buffer over it is
// released, at once, not when the garbage collector runs. The VM retains
// and releases buffers held in its registers (see vm.RefCounted); Go code
// releases the references it owns. Using a released buffer, or releasing
// one more often than it was retained, is a FAILED_PRECONDITION error.
type Buffer struct {
	alloc  *allocation
	offset int64
	length int64
	// extra counts b's references beyond the one it is created with
	// (zero for a new buffer: no atomic store to make one); -1 once the
	// last is released.
	extra atomic.Int64
}

// NewBuffer wraps storage of size bytes as a buffer with one reference.
// Allocators and device drivers use it; programs use Allocator.AllocateBuffer.
func NewBuffer(storage Storage, size int64, memType MemoryType, usage BufferUsage) (*Buffer, error) {
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "negative buffer size %d", size)
	}
	if hb := storage.HostBytes(); hb != nil && int64(len(hb)) < size {
		return nil, status.Errorf(status.InvalidArgument, "storage of %d bytes is smaller than buffer size %d", len(hb), size)
	}
	// The first buffer and its allocation share one heap object.
	return new(bufferBlock).init(storage, size, memType, usage)
}

// init makes blk, newly allocated (zero), a buffer of size bytes over
// storage with one reference; the caller has checked the size.
func (blk *bufferBlock) init(storage Storage, size int64, memType MemoryType, usage BufferUsage) (*Buffer, error) {
	blk.a = allocation{storage: storage, size: size, memType: memType, usage: usage}
	blk.b.alloc = &blk.a
	blk.b.length = size
	if leakReporter.Load() != nil {
		watchLeak(blk)
	}
	return &blk.b, nil
}

// bufferBlock holds a new buffer and its allocation together (subspans
// made later point at the same allocation).
type bufferBlock struct {
	b Buffer
	a allocation
}

// ByteLength returns the length of the buffer in bytes.
func (b *Buffer) ByteLength() int64 { return b.length }

// ByteOffset returns the offset of the buffer inside its allocation.
func (b *Buffer) ByteOffset() int64 { return b.offset }

// AllocationSize returns the size of the whole allocation.
func (b *Buffer) AllocationSize() int64 { return b.alloc.size }

// MemoryType returns the memory type of the allocation.
func (b *Buffer) MemoryType() MemoryType { return b.alloc.memType }

// Usage returns the allowed usage of the allocation.
func (b *Buffer) Usage() BufferUsage { return b.alloc.usage }

// Storage returns the memory behind the allocation.
func (b *Buffer) Storage() Storage { return b.alloc.storage }

// SameAllocation reports whether b and o are views of one allocation.
func (b *Buffer) SameAllocation(o *Buffer) bool { return b.alloc == o.alloc }

// CheckRange validates [offset, offset+length) against a buffer of size
// bytes, resolving WholeBuffer, and returns the resolved length. All
// arithmetic is overflow-checked.
func CheckRange(offset, length, size int64) (int64, error) {
	if offset < 0 {
		return 0, status.Errorf(status.OutOfRange, "negative offset %d", offset)
	}
	if offset > size {
		return 0, status.Errorf(status.OutOfRange, "offset %d exceeds buffer of %d bytes", offset, size)
	}
	if length == WholeBuffer {
		return size - offset, nil
	}
	if length < 0 {
		return 0, status.Errorf(status.OutOfRange, "negative length %d", length)
	}
	if length > size-offset {
		return 0, status.Errorf(status.OutOfRange, "range [%d, %s) exceeds buffer of %d bytes", offset, rangeEnd(offset, length), size)
	}
	return length, nil
}

// rangeEnd prints offset+length, or "overflow" when it does not fit int64.
func rangeEnd(offset, length int64) string {
	if offset > (1<<63-1)-length {
		return "overflow"
	}
	return fmt.Sprint(offset + length)
}

func (b *Buffer) live() error {
	if b.extra.Load() < 0 {
		return status.Errorf(status.FailedPrecondition, "use of a released buffer")
	}
	if b.alloc.decommitted.Load() {
		return status.Errorf(status.FailedPrecondition, "use of a buffer whose memory was deallocated (queue dealloca)")
	}
	return nil
}

// unusable reports whether live would fail, without building the error.
func (b *Buffer) unusable() bool { return b.extra.Load() < 0 || b.alloc.decommitted.Load() }

// Live returns nil while b may be used, or the FAILED_PRECONDITION error a
// use would report: released, or its memory deallocated.
func (b *Buffer) Live() error { return b.live() }

// Subspan returns a new reference to [offset, offset+length) of b (offsets
// relative to b). length may be WholeBuffer. Release the subspan as well.
func (b *Buffer) Subspan(offset, length int64) (*Buffer, error) {
	if err := b.live(); err != nil {
		return nil, err
	}
	n, err := CheckRange(offset, length, b.length)
	if err != nil {
		return nil, errContext(err, "subspan")
	}
	b.alloc.extra.Add(1)
	return &Buffer{alloc: b.alloc, offset: b.offset + offset, length: n}, nil
}

// Retain adds a reference to b (vm.RefCounted). Retaining a released
// buffer does nothing: it stays released.
func (b *Buffer) Retain() {
	for {
		n := b.extra.Load()
		if n < 0 || b.extra.CompareAndSwap(n, n+1) {
			return
		}
	}
}

// Release drops a reference to b (vm.RefCounted); the last one drops b's
// reference on its allocation, which frees the memory when no other
// buffer uses it. Releasing a buffer that has no references left is a
// FAILED_PRECONDITION error ("buffer released twice").
func (b *Buffer) Release() error {
	for {
		n := b.extra.Load()
		if n < 0 {
			return status.Errorf(status.FailedPrecondition, "buffer released twice (%d bytes)", b.length)
		}
		if b.extra.CompareAndSwap(n, n-1) {
			if n == 0 {
				b.alloc.drop()
			}
			return nil
		}
	}
}

// Released reports whether b's last reference has been released
// (vm.RefCounted).
func (b *Buffer) Released() bool { return b.extra.Load() < 0 }

// drop releases one reference on the allocation, returning the memory on
// the last unless Decommit already did.
func (a *allocation) drop() {
	// extra 0: the buffer being released was the allocation's only one,
	// so no other can add to the count (subspans are made from live
	// buffers) and the locked decrement is skipped.
	if (a.extra.Load() == 0 || a.extra.Add(-1) < 0) && a.decommitted.CompareAndSwap(false, true) {
		a.free()
	}
}

// free returns the allocation's memory (once: callers hold decommitted).
func (a *allocation) free() {
	a.storage.Release()
	if a.leak != nil {
		a.leak.freed.Store(true)
	}
}

// Decommit returns the memory of b's allocation to its allocator now,
// whatever references to it remain (IREE's queue dealloca): the
// references stay valid to release, but any use of b, or of another
// buffer over the same allocation, fails from then on. Decommitting twice
// is a FAILED_PRECONDITION error.
func (b *Buffer) Decommit() error {
	if err := b.live(); err != nil {
		return err
	}
	if !b.alloc.decommitted.CompareAndSwap(false, true) {
		return status.Errorf(status.FailedPrecondition, "buffer memory deallocated twice")
	}
	b.alloc.free()
	return nil
}

// HostBytes returns the buffer's bytes (exactly ByteLength of them) for
// drivers that execute on the host. It fails for memory that is not
// host-visible. The slice is valid until the buffer is released.
func (b *Buffer) HostBytes() ([]byte, error) {
	if err := b.live(); err != nil {
		return nil, err
	}
	hb := b.alloc.storage.HostBytes()
	if hb == nil {
		return nil, status.Errorf(status.FailedPrecondition, "buffer memory (%v) is not host-visible", b.alloc.memType)
	}
	return hb[b.offset : b.offset+b.length : b.offset+b.length], nil
}

// Mapping is host access to a range of a buffer, from Buffer.Map.
type Mapping struct {
	buffer *Buffer
	access MemoryAccess
	data   []byte
	mapped atomic.Bool
}

// Map gives host access to [offset, offset+length) of b (length may be
// WholeBuffer). The buffer must be host-visible and allow mapping.
func (b *Buffer) Map(access MemoryAccess, offset, length int64) (*Mapping, error) {
	if access&MemoryAccessAll == 0 {
		return nil, status.Errorf(status.InvalidArgument, "mapping needs READ, WRITE or DISCARD access")
	}
	if b.alloc.memType&MemoryTypeHostVisible == 0 {
		return nil, status.Errorf(status.FailedPrecondition, "cannot map buffer of memory type %v: not HOST_VISIBLE", b.alloc.memType)
	}
	if b.alloc.usage&BufferUsageMapping == 0 {
		return nil, status.Errorf(status.FailedPrecondition, "cannot map buffer with usage %v: no MAPPING usage", b.alloc.usage)
	}
	n, err := CheckRange(offset, length, b.length)
	if err != nil {
		return nil, errContext(err, "mapping buffer")
	}
	hb, err := b.HostBytes()
	if err != nil {
		return nil, errContext(err, "mapping buffer")
	}
	m := &Mapping{buffer: b, access: access, data: hb[offset : offset+n : offset+n]}
	m.mapped.Store(true)
	return m, nil
}

// Bytes returns the mapped bytes; nil after Unmap.
func (m *Mapping) Bytes() []byte {
	if !m.mapped.Load() {
		return nil
	}
	return m.data
}

// Unmap ends the mapping. Unmapping twice is an error.
func (m *Mapping) Unmap() error {
	if !m.mapped.CompareAndSwap(true, false) {
		return status.Errorf(status.FailedPrecondition, "buffer mapping unmapped twice")
	}
	return nil
}

// Read copies len(dst) bytes starting at offset of b into dst.
func (b *Buffer) Read(offset int64, dst []byte) error {
	m, err := b.Map(MemoryAccessRead, offset, int64(len(dst)))
	if err != nil {
		return errContext(err, "reading buffer")
	}
	copy(dst, m.data)
	return m.Unmap()
}

// Write copies src into b starting at offset.
func (b *Buffer) Write(offset int64, src []byte) error {
	m, err := b.Map(MemoryAccessWrite, offset, int64(len(src)))
	if err != nil {
		return errContext(err, "writing buffer")
	}
	copy(m.data, src)
	return m.Unmap()
}

// Fill writes pattern (1, 2 or 4 bytes) repeatedly over [offset,
// offset+length) of b; offset and length must be multiples of the pattern
// length.
func (b *Buffer) Fill(offset, length int64, pattern []byte) error {
	n, err := CheckRange(offset, length, b.length)
	if err != nil {
		return errContext(err, "filling buffer")
	}
	if err := checkFillPattern(offset, n, pattern); err != nil {
		return errContext(err, "filling buffer")
	}
	m, err := b.Map(MemoryAccessDiscardWrite, offset, n)
	if err != nil {
		return errContext(err, "filling buffer")
	}
	FillBytes(m.data, pattern)
	return m.Unmap()
}

func checkFillPattern(offset, length int64, pattern []byte) error {
	p := int64(len(pattern))
	if p != 1 && p != 2 && p != 4 {
		return status.Errorf(status.InvalidArgument, "fill pattern length %d is not 1, 2 or 4 bytes", p)
	}
	if offset%p != 0 || length%p != 0 {
		return status.Errorf(status.InvalidArgument, "fill range [%d, %d) is not aligned to the %d-byte pattern", offset, offset+length, p)
	}
	return nil
}

// FillBytes repeats pattern over dst (len(dst) a multiple of len(pattern)).
func FillBytes(dst, pattern []byte) {
	if len(dst) == 0 || len(pattern) == 0 {
		return
	}
	n := copy(dst, pattern)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}
