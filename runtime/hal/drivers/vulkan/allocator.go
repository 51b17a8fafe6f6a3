package vulkan

/*
#include "gvk.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
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
	// mirrorPrefs: the host side of staged buffers, which the host reads
	// and writes at will: cached host memory first.
	mirrorPrefs = []C.uint32_t{
		C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | C.VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
		C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	}
)

// memoryKind says which preference list a buffer's memory came from; the
// cache keeps buffers per kind and size class.
type memoryKind int

const (
	kindHostVisible memoryKind = iota // hostVisiblePrefs
	kindDeviceLocal                   // deviceLocalPrefs
	kindStaging                       // stagingPrefs
	kindStaged                        // deviceLocalPrefs with a mirrorPrefs mirror
)

func (k memoryKind) prefs() []C.uint32_t {
	switch k {
	case kindDeviceLocal, kindStaged:
		return deviceLocalPrefs
	case kindStaging:
		return stagingPrefs
	}
	return hostVisiblePrefs
}

// DefaultCacheBytes is how much released memory an Allocator keeps for
// reuse: allocating (and mapping) Vulkan memory is slow, and programs
// allocate their results on every call.
const DefaultCacheBytes = int64(8) << 30

type cacheKey struct {
	class int64
	kind  memoryKind
}

// Sub-allocation: buffers of up to maxSubAllocation bytes are slices of
// blockBytes-sized VkBuffers, so that a program's many small and medium
// transients cost no vkAllocateMemory each (drivers limit the number of
// allocations, and allocating is slow). Slice offsets are multiples of
// subAlignment, which is at least every device's
// minStorageBufferOffsetAlignment (the specification caps it at 256).
const (
	blockBytes       = 64 << 20
	maxSubAllocation = blockBytes / 4
	subAlignment     = 256
)

// block is one VkBuffer that slices are carved from.
type block struct {
	buf  C.gvk_buffer
	kind memoryKind
	next uint64 // the first byte never handed out
	live int    // slices in use
}

// slice is a released sub-allocation kept for its size class.
type slice struct {
	blk *block
	off uint64
}

// Allocator allocates Vulkan buffers of one device. It is safe for
// concurrent use.
//
// Buffers of up to 16 MiB (maxSubAllocation) of host-visible or
// device-local memory are slices of 64 MiB blocks, in size classes
// (hal.SizeClass): a released slice serves the next allocation of its
// class and kind, so a transient's memory is reused by the next
// transient of an invocation. Larger buffers, staged buffers (with their
// host mirrors) and every buffer of a device with DeviceOptions.Dedicated
// have memory of their own, kept per size class and kind when released, up
// to DefaultCacheBytes. Trim frees the cached buffers and every block with
// no slice in use.
type Allocator struct {
	device *Device
	// heapBytes is the size of the device's largest memory heap, which
	// bounds one allocation.
	heapBytes int64

	mu                            sync.Mutex
	hostLive, hostPeak, hostAlloc int64
	devLive, devPeak, devAlloc    int64
	hostFreed, devFreed           int64
	free                          map[cacheKey][]cachedBuffer
	cached, maxCached             int64
	hits, misses                  int64
	// blocks holds every block per kind and slices the released slices
	// per size class and kind; blockTotal is the bytes of all blocks and
	// sliceLive those of the slices in use.
	blocks                map[memoryKind][]*block
	slices                map[cacheKey][]slice
	blockTotal, sliceLive int64
}

// cachedBuffer is a released buffer kept for reuse, with its mirror for
// staged memory.
type cachedBuffer struct{ buf, mirror C.gvk_buffer }

func newAllocator(d *Device) *Allocator {
	a := &Allocator{device: d, free: map[cacheKey][]cachedBuffer{}, maxCached: DefaultCacheBytes,
		blocks: map[memoryKind][]*block{}, slices: map[cacheKey][]slice{}}
	if d.dev != nil {
		m := &d.dev.memory
		for i := 0; i < int(m.memoryHeapCount); i++ {
			a.heapBytes = max(a.heapBytes, int64(m.memoryHeaps[i].size))
		}
	}
	return a
}

// storage is the Vulkan memory behind one hal allocation: a buffer of the
// allocation's size class, of which the first size bytes are the
// allocation's.
type storage struct {
	alloc *Allocator
	buf   C.gvk_buffer
	kind  memoryKind
	class int64
	size  int64 // the allocation's bytes, ≤ class
	// blk is the block of a slice (nil for memory of its own), and base
	// the slice's offset in it: every command adds base to the offsets.
	blk  *block
	base uint64
	host []byte
	// Staged storage (kindStaged): buf is device-only memory and mirror the
	// host memory that host holds. The host reads and writes the mirror; a
	// submission that uses the buffer first uploads the mirror when the host
	// may have written it since the last upload (hostDirty), and HostBytes
	// first downloads buf when a submission may have written it since
	// (deviceNewer).
	mirror                 C.gvk_buffer
	stageMu                sync.Mutex
	hostDirty, deviceNewer bool
	reused                 bool         // served from the cache
	hostUses               atomic.Int64 // HostBytes calls: every Map, Read, Write and Fill of the host
	released               atomic.Bool
}

// HostBytes implements hal.Storage: the persistently mapped memory, or nil
// for device-only memory. Of staged storage it is the mirror, brought up
// to date first when a submission may have written the buffer (nil when
// that download fails); the host may then write it until the next
// submission that uses the buffer, which uploads it.
func (s *storage) HostBytes() []byte {
	s.hostUses.Add(1)
	if s.kind != kindStaged {
		return s.host
	}
	s.stageMu.Lock()
	defer s.stageMu.Unlock()
	if s.deviceNewer {
		if err := s.alloc.device.copyNow(s.buf.buffer, s.mirror.buffer, s.copyBytes()); err != nil {
			return nil
		}
		s.deviceNewer = false
	}
	s.hostDirty = true
	return s.host
}

// copyBytes is how many bytes of a staged buffer are copied between its
// device memory and its mirror: the allocation's, in whole words.
func (s *storage) copyBytes() uint64 {
	return min((uint64(s.size)+3)&^3, uint64(s.buf.size))
}

// BufferInfo describes the Vulkan memory behind b for benchmark logs:
// "VkBuffer 0x…, memory type 4 (device-local host-visible host-coherent),
// 1073741824 of 1073741824 bytes (alignment 64), mapped, new, 1 host
// access", where new or reused says whether the allocator's cache served
// it and host accesses count the host's maps, reads, writes and fills.
func BufferInfo(b *hal.Buffer) (string, error) {
	s, ok := b.Storage().(*storage)
	if !ok {
		return "", status.Errorf(status.InvalidArgument, "buffer of memory type %v was not allocated by a vulkan device", b.MemoryType())
	}
	origin := "new"
	if s.reused {
		origin = "reused"
	}
	mapped := "not mapped"
	switch {
	case s.kind == kindStaged:
		mapped = fmt.Sprintf("staged through a mirror in memory type %d (%s)", s.mirror.memory_type, propertyNames(uint32(s.mirror.property_flags)))
	case s.buf.mapped != nil:
		mapped = "mapped"
	}
	info := fmt.Sprintf("VkBuffer %#x at +%d, memory type %d (%s), %d of %d bytes (alignment %d), %s, %s, %d host access(es)",
		handle(s), s.base+uint64(b.ByteOffset()), s.buf.memory_type, propertyNames(uint32(s.buf.property_flags)), b.ByteLength(),
		uint64(s.buf.memory_size), uint64(s.buf.alignment), mapped, origin, s.hostUses.Load())
	if s.blk != nil {
		info += fmt.Sprintf(", a %d-byte slice of a block", s.class)
	}
	return info, nil
}

// propertyNames lists Vulkan memory property flags ("device-local
// host-visible host-coherent").
func propertyNames(flags uint32) string {
	var names []string
	for _, n := range memoryPropertyNames {
		if flags&uint32(n.bit) != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "no properties"
	}
	return strings.Join(names, " ")
}

var memoryPropertyNames = []struct {
	bit  C.uint32_t
	name string
}{
	{C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device-local"},
	{C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "host-visible"},
	{C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "host-coherent"},
	{C.VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "host-cached"},
}

// Release implements hal.Storage: the buffer goes back to the cache, or
// is destroyed when the cache is full.
func (s *storage) Release() {
	if !s.released.CompareAndSwap(false, true) {
		return
	}
	a := s.alloc
	a.accountStorage(s, -1)
	if s.blk != nil {
		// The slice goes back to its class, its block stays.
		a.mu.Lock()
		k := cacheKey{s.class, s.kind}
		a.slices[k] = append(a.slices[k], slice{s.blk, s.base})
		s.blk.live--
		a.sliceLive -= s.class
		a.mu.Unlock()
		return
	}
	if a.device.live("releasing buffer", func() error { return nil }) != nil {
		return // the device is closed: leak rather than cache
	}
	cb := cachedBuffer{s.buf, s.mirror}
	a.mu.Lock()
	if a.cached+s.class <= a.maxCached {
		k := cacheKey{s.class, s.kind}
		a.free[k] = append(a.free[k], cb)
		a.cached += s.class
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	a.destroy(cb)
}

// destroy frees a buffer's Vulkan objects (leaking them once the device is
// closed).
func (a *Allocator) destroy(b cachedBuffer) {
	_ = a.device.live("releasing buffer", func() error {
		C.gvk_buffer_destroy(a.device.dev, &b.buf)
		if b.mirror.buffer != nil {
			C.gvk_buffer_destroy(a.device.dev, &b.mirror)
		}
		return nil
	})
}

// accountStorage adds (sign 1) or removes (sign -1) a storage's memory
// from the statistics, by where the memory is: DEVICE_LOCAL memory
// (mapped or not) counts as device memory, other memory as host memory,
// and a staged buffer's host mirror as host memory besides.
func (a *Allocator) accountStorage(s *storage, sign int64) {
	a.account(s.buf.property_flags&C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT == 0, sign*s.class)
	if s.mirror.buffer != nil {
		a.account(s.mirror.property_flags&C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT == 0, sign*s.class)
	}
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
// DEVICE_LOCAL-only type) is mapped for the buffer's lifetime. Reused
// buffers keep the bytes they held.
func (a *Allocator) AllocateBuffer(params hal.BufferParams, size int64) (*hal.Buffer, error) {
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "negative allocation size %d", size)
	}
	if size > hal.MaxBufferSize {
		return nil, status.Errorf(status.ResourceExhausted, "allocation of %d bytes exceeds the %d-byte limit", size, hal.MaxBufferSize)
	}
	if a.heapBytes > 0 && size > a.heapBytes {
		return nil, status.Errorf(status.ResourceExhausted, "allocation of %d bytes exceeds the device's largest memory heap (%d bytes)", size, a.heapBytes)
	}
	t := params.Type
	kind := kindHostVisible
	switch {
	case t&hal.MemoryTypeDeviceLocal == hal.MemoryTypeDeviceLocal && t&hal.MemoryTypeHostVisible == 0:
		kind = kindDeviceLocal
	case a.device.staged:
		kind = kindStaged
	}
	s, err := a.allocate(uint64(size), kind)
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
	mt := memoryType(uint32(s.buf.property_flags))
	if kind == kindStaged {
		// The host reaches it through the mirror, coherently: HostBytes
		// and submissions move the bytes.
		mt |= hal.MemoryTypeHostVisible | hal.MemoryTypeHostCoherent
		if s.mirror.property_flags&C.VK_MEMORY_PROPERTY_HOST_CACHED_BIT != 0 {
			mt |= hal.MemoryTypeHostCached
		}
	}
	buf, err := hal.NewBuffer(s, size, mt, usage)
	if err != nil {
		s.Release()
		return nil, err
	}
	// NewBuffer's size check is not a host access.
	s.hostUses.Store(0)
	s.hostDirty = false
	return buf, nil
}

// allocate returns a buffer of at least size bytes of the kind's memory:
// a cached one of the same size class, or a new one from the first memory
// type matching the kind's preferences.
func (a *Allocator) allocate(size uint64, kind memoryKind) (*storage, error) {
	if err := a.device.live("allocating buffer", func() error { return nil }); err != nil {
		return nil, err
	}
	class := hal.SizeClass(max(int64(size), 4))
	s := &storage{alloc: a, kind: kind, class: class, size: int64(size)}
	if (kind == kindHostVisible || kind == kindDeviceLocal) && class <= maxSubAllocation && a.device.dev.dedicated == 0 {
		if err := a.subAllocate(s); err != nil {
			return nil, err
		}
		if s.buf.mapped != nil {
			s.host = unsafe.Slice((*byte)(unsafe.Add(s.buf.mapped, s.base)), class)[:size:size]
		}
		a.accountStorage(s, 1)
		return s, nil
	}
	k := cacheKey{class, kind}
	a.mu.Lock()
	if list := a.free[k]; len(list) > 0 {
		s.buf, s.mirror = list[len(list)-1].buf, list[len(list)-1].mirror
		a.free[k] = list[:len(list)-1]
		a.cached -= class
		a.hits++
		s.reused = true
		a.mu.Unlock()
	} else {
		a.misses++
		a.mu.Unlock()
		prefs := kind.prefs()
		create := func() error {
			return a.device.live("allocating buffer", func() error {
				if r := C.gvk_buffer_create(a.device.dev, C.uint64_t(class), &prefs[0], C.int(len(prefs)), &s.buf); r != C.VK_SUCCESS {
					return vkError(r, "vkAllocateMemory")
				}
				return nil
			})
		}
		if err := create(); err != nil {
			// Memory may be held by the cache: free it and try once more.
			if a.Trim(); create() != nil {
				return nil, err
			}
		}
		if kind == kindStaged {
			err := a.device.live("allocating buffer", func() error {
				if r := C.gvk_buffer_create(a.device.dev, C.uint64_t(class), &mirrorPrefs[0], C.int(len(mirrorPrefs)), &s.mirror); r != C.VK_SUCCESS {
					return vkError(r, "vkAllocateMemory of a %d-byte host mirror", class)
				}
				return nil
			})
			if err != nil {
				a.destroy(cachedBuffer{buf: s.buf})
				return nil, err
			}
		}
	}
	mapped := s.buf.mapped
	if kind == kindStaged {
		mapped = s.mirror.mapped
	}
	if mapped != nil && size > 0 {
		s.host = unsafe.Slice((*byte)(mapped), size)
	} else if mapped != nil {
		s.host = []byte{}
	}
	a.accountStorage(s, 1)
	return s, nil
}

// subAllocate makes s a slice: a released one of its class and kind, else
// carved from a block with room, else from a new block.
func (a *Allocator) subAllocate(s *storage) error {
	k := cacheKey{s.class, s.kind}
	need := (uint64(s.class) + subAlignment - 1) &^ (subAlignment - 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	var sl slice
	if list := a.slices[k]; len(list) > 0 {
		sl = list[len(list)-1]
		a.slices[k] = list[:len(list)-1]
		a.hits++
		s.reused = true
	} else {
		a.misses++
		for _, b := range a.blocks[s.kind] {
			if b.next+need <= uint64(b.buf.size) {
				sl = slice{b, b.next}
				break
			}
		}
		if sl.blk == nil {
			b := &block{kind: s.kind}
			prefs := s.kind.prefs()
			err := a.device.live("allocating buffer", func() error {
				if r := C.gvk_buffer_create(a.device.dev, blockBytes, &prefs[0], C.int(len(prefs)), &b.buf); r != C.VK_SUCCESS {
					return vkError(r, "vkAllocateMemory of a %d-byte block", blockBytes)
				}
				return nil
			})
			if err != nil {
				return err
			}
			a.blocks[s.kind] = append(a.blocks[s.kind], b)
			a.blockTotal += blockBytes
			sl = slice{b, 0}
		}
		sl.blk.next = sl.off + need
	}
	sl.blk.live++
	a.sliceLive += s.class
	s.blk, s.base, s.buf = sl.blk, sl.off, sl.blk.buf
	return nil
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
	// Cached: released buffers kept whole, and block memory no slice in
	// use covers (released slices, the rest of blocks, alignment).
	cached := a.cached + a.blockTotal - a.sliceLive
	return hal.AllocatorStatistics{
		HostBytesPeak: a.hostPeak, HostBytesAllocated: a.hostAlloc, HostBytesFreed: a.hostFreed,
		DeviceBytesPeak: a.devPeak, DeviceBytesAllocated: a.devAlloc, DeviceBytesFreed: a.devFreed,
		PoolHits: a.hits, PoolMisses: a.misses, CachedBytes: cached,
	}
}

// Trim implements hal.Allocator: it destroys every cached buffer and
// every block with no slice in use.
func (a *Allocator) Trim() {
	a.mu.Lock()
	free := a.free
	a.free = map[cacheKey][]cachedBuffer{}
	a.cached = 0
	var empty []*block
	for kind, list := range a.blocks {
		kept := list[:0]
		for _, b := range list {
			if b.live == 0 {
				empty = append(empty, b)
				a.blockTotal -= int64(b.buf.size)
			} else {
				kept = append(kept, b)
			}
		}
		a.blocks[kind] = kept
	}
	if len(empty) > 0 {
		gone := map[*block]bool{}
		for _, b := range empty {
			gone[b] = true
		}
		for k, list := range a.slices {
			kept := list[:0]
			for _, sl := range list {
				if !gone[sl.blk] {
					kept = append(kept, sl)
				}
			}
			a.slices[k] = kept
		}
	}
	a.mu.Unlock()
	for _, list := range free {
		for _, b := range list {
			a.destroy(b)
		}
	}
	for _, b := range empty {
		a.destroy(cachedBuffer{buf: b.buf})
	}
}

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
