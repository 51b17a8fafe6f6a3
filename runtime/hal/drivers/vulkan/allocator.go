package vulkan

/*
#include "gvk.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/vm/status"
)

func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }

// Memory property preferences, in the order they are tried.
var (
	// hostVisiblePrefs: device-local memory the host can map (lavapipe,
	// BAR/ReBAR heaps), then cached host memory, then any coherent memory.
	hostVisiblePrefs = []C.uint32_t{
		C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | C.VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
		C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	}
	// stagingPrefs: memory the host writes once and the device reads.
	stagingPrefs = []C.uint32_t{
		C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	}
	// deviceLocalPrefs: device memory, mappable or not.
	deviceLocalPrefs = []C.uint32_t{C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT}
)

// Allocator allocates Vulkan buffers of one device. It is safe for
// concurrent use.
type Allocator struct {
	device *Device

	mu                            sync.Mutex
	hostLive, hostPeak, hostAlloc int64
	devLive, devPeak, devAlloc    int64
	hostFreed, devFreed           int64
}

// storage is the Vulkan memory behind one hal allocation.
type storage struct {
	alloc    *Allocator
	buf      C.gvk_buffer
	host     []byte
	released atomic.Bool
}

// HostBytes implements hal.Storage: the persistently mapped memory, or nil
// for device-only memory.
func (s *storage) HostBytes() []byte { return s.host }

// Release implements hal.Storage.
func (s *storage) Release() {
	if !s.released.CompareAndSwap(false, true) {
		return
	}
	a := s.alloc
	_ = a.device.live("releasing buffer", func() error {
		C.gvk_buffer_destroy(a.device.dev, &s.buf)
		return nil
	})
	a.account(s.host != nil, -int64(s.buf.size))
}

func (a *Allocator) account(host bool, n int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	live, peak, total, freed := &a.devLive, &a.devPeak, &a.devAlloc, &a.devFreed
	if host {
		live, peak, total, freed = &a.hostLive, &a.hostPeak, &a.hostAlloc, &a.hostFreed
	}
	*live += n
	if n > 0 {
		*total += n
	} else {
		*freed -= n
	}
	*peak = max(*peak, *live)
}

// AllocateBuffer implements hal.Allocator. Memory that must be host-visible
// (type 0, OPTIMAL, any HOST_VISIBLE request, or a mapping usage without
// DEVICE_LOCAL-only type) is mapped for the buffer's lifetime.
func (a *Allocator) AllocateBuffer(params hal.BufferParams, size int64) (*hal.Buffer, error) {
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "negative allocation size %d", size)
	}
	if size > hal.MaxBufferSize {
		return nil, status.Errorf(status.ResourceExhausted, "allocation of %d bytes exceeds the %d-byte limit", size, hal.MaxBufferSize)
	}
	t := params.Type
	deviceOnly := t&hal.MemoryTypeDeviceLocal == hal.MemoryTypeDeviceLocal && t&hal.MemoryTypeHostVisible == 0
	prefs := hostVisiblePrefs
	if deviceOnly {
		prefs = deviceLocalPrefs
	}
	s, err := a.allocate(uint64(size), prefs)
	if err != nil {
		return nil, hal.ErrorContext(err, "allocating %d bytes of vulkan memory for %v", size, t)
	}
	usage := params.Usage
	if usage == 0 {
		usage = hal.BufferUsageDefault
	}
	if s.host != nil {
		usage |= hal.BufferUsageMapping
	} else {
		usage &^= hal.BufferUsageMapping
	}
	buf, err := hal.NewBuffer(s, size, memoryType(uint32(s.buf.property_flags)), usage)
	if err != nil {
		s.Release()
		return nil, err
	}
	return buf, nil
}

// allocate creates a VkBuffer of size bytes from the first memory type
// matching prefs.
func (a *Allocator) allocate(size uint64, prefs []C.uint32_t) (*storage, error) {
	s := &storage{alloc: a}
	err := a.device.live("allocating buffer", func() error {
		if r := C.gvk_buffer_create(a.device.dev, C.uint64_t(size), &prefs[0], C.int(len(prefs)), &s.buf); r != C.VK_SUCCESS {
			return vkError(r, "vkAllocateMemory")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.buf.mapped != nil && size > 0 {
		s.host = unsafe.Slice((*byte)(s.buf.mapped), size)
	} else if s.buf.mapped != nil {
		s.host = []byte{}
	}
	a.account(s.host != nil, int64(size))
	return s, nil
}

// memoryType translates Vulkan memory property flags to hal memory types.
func memoryType(flags uint32) hal.MemoryType {
	t := hal.MemoryTypeDeviceVisible
	if flags&C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT != 0 {
		t |= hal.MemoryTypeDeviceLocal
	}
	if flags&C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT != 0 {
		t |= hal.MemoryTypeHostVisible
		if flags&C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT == 0 {
			t |= hal.MemoryTypeHostLocal
		}
	}
	if flags&C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT != 0 {
		t |= hal.MemoryTypeHostCoherent
	}
	if flags&C.VK_MEMORY_PROPERTY_HOST_CACHED_BIT != 0 {
		t |= hal.MemoryTypeHostCached
	}
	return t
}

// Statistics implements hal.Allocator.
func (a *Allocator) Statistics() hal.AllocatorStatistics {
	a.mu.Lock()
	defer a.mu.Unlock()
	return hal.AllocatorStatistics{
		HostBytesPeak: a.hostPeak, HostBytesAllocated: a.hostAlloc, HostBytesFreed: a.hostFreed,
		DeviceBytesPeak: a.devPeak, DeviceBytesAllocated: a.devAlloc, DeviceBytesFreed: a.devFreed,
	}
}

// Trim implements hal.Allocator; the allocator keeps no memory for reuse.
func (a *Allocator) Trim() {}

// vulkanStorage returns the Vulkan buffer behind b, checking that it
// belongs to device d.
func vulkanStorage(d *Device, b *hal.Buffer) (*storage, error) {
	s, ok := b.Storage().(*storage)
	if !ok {
		return nil, status.Errorf(status.InvalidArgument, "buffer of memory type %v was not allocated by a vulkan device", b.MemoryType())
	}
	if s.alloc.device != d {
		return nil, status.Errorf(status.InvalidArgument, "buffer was allocated by another vulkan device")
	}
	return s, nil
}
