package cuda

import (
	"sync/atomic"
	"unsafe"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/vm/status"
)

// storage is the memory of a CUDA allocation.
type storage interface {
	hal.Storage
	devicePointer() uint64
}

// deviceMemory is a cuMemAlloc allocation: not host-visible.
type deviceMemory struct {
	a        *Allocator
	ptr      uint64
	size     int64
	released atomic.Bool
}

func (m *deviceMemory) HostBytes() []byte     { return nil }
func (m *deviceMemory) devicePointer() uint64 { return m.ptr }
func (m *deviceMemory) Release() {
	if m.released.CompareAndSwap(false, true) {
		memFree(m.a.ctx, m.ptr)
		m.a.freed(m.size, true)
	}
}

// hostMemory is pinned host memory mapped into the device's address space.
type hostMemory struct {
	a        *Allocator
	host     unsafe.Pointer
	ptr      uint64
	bytes    []byte
	size     int64
	released atomic.Bool
}

func (m *hostMemory) HostBytes() []byte     { return m.bytes }
func (m *hostMemory) devicePointer() uint64 { return m.ptr }
func (m *hostMemory) Release() {
	if m.released.CompareAndSwap(false, true) {
		hostFree(m.a.ctx, m.host)
		m.a.freed(m.size, false)
	}
}

// Allocator allocates device memory and device-mapped pinned host memory
// for one CUDA device. It is safe for concurrent use.
type Allocator struct {
	ctx cuContext

	hostLive, hostPeak, hostAllocated, hostFreed atomic.Int64
	devLive, devPeak, devAllocated, devFreed     atomic.Int64
}

// IsDeviceOnly reports whether a memory type asks for device memory that
// the host does not see: DEVICE_LOCAL without HOST_VISIBLE.
func IsDeviceOnly(t hal.MemoryType) bool {
	return t&hal.MemoryTypeDeviceLocal == hal.MemoryTypeDeviceLocal && t&hal.MemoryTypeHostVisible == 0
}

// AllocateBuffer implements hal.Allocator.
func (a *Allocator) AllocateBuffer(params hal.BufferParams, size int64) (*hal.Buffer, error) {
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "negative allocation size %d", size)
	}
	if size > hal.MaxBufferSize {
		return nil, status.Errorf(status.ResourceExhausted, "allocation of %d bytes exceeds the %d-byte limit", size, hal.MaxBufferSize)
	}
	usage := params.Usage
	// CUDA allocations are at least 256-byte aligned; a zero-byte buffer
	// still gets a distinct address.
	n := max(size, 1)
	if IsDeviceOnly(params.Type) {
		ptr, err := memAlloc(a.ctx, n)
		if err != nil {
			return nil, hal.ErrorContext(err, "allocating %d bytes of device memory", size)
		}
		if usage == 0 {
			usage = hal.BufferUsageDefault
		}
		a.allocated(n, true)
		return hal.NewBuffer(&deviceMemory{a: a, ptr: ptr, size: n}, size, hal.MemoryTypeDeviceLocal, usage&^hal.BufferUsageMapping)
	}
	h, ptr, err := hostAlloc(a.ctx, n)
	if err != nil {
		return nil, hal.ErrorContext(err, "allocating %d bytes of device-mapped host memory", size)
	}
	if usage == 0 {
		usage = hal.BufferUsageDefault | hal.BufferUsageMapping
	}
	a.allocated(n, false)
	m := &hostMemory{a: a, host: h, ptr: ptr, size: n, bytes: unsafe.Slice((*byte)(h), n)[:size:size]}
	memType := hal.MemoryTypeHostLocal | hal.MemoryTypeDeviceVisible | hal.MemoryTypeHostCoherent
	return hal.NewBuffer(m, size, memType, usage)
}

func (a *Allocator) allocated(n int64, device bool) {
	live, peak, total := &a.hostLive, &a.hostPeak, &a.hostAllocated
	if device {
		live, peak, total = &a.devLive, &a.devPeak, &a.devAllocated
	}
	total.Add(n)
	l := live.Add(n)
	for {
		p := peak.Load()
		if l <= p || peak.CompareAndSwap(p, l) {
			return
		}
	}
}

func (a *Allocator) freed(n int64, device bool) {
	if device {
		a.devLive.Add(-n)
		a.devFreed.Add(n)
	} else {
		a.hostLive.Add(-n)
		a.hostFreed.Add(n)
	}
}

// Statistics implements hal.Allocator.
func (a *Allocator) Statistics() hal.AllocatorStatistics {
	return hal.AllocatorStatistics{
		HostBytesPeak: a.hostPeak.Load(), HostBytesAllocated: a.hostAllocated.Load(), HostBytesFreed: a.hostFreed.Load(),
		DeviceBytesPeak: a.devPeak.Load(), DeviceBytesAllocated: a.devAllocated.Load(), DeviceBytesFreed: a.devFreed.Load(),
	}
}

// Trim implements hal.Allocator; nothing is cached.
func (a *Allocator) Trim() {}
