package hal

import (
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
)

// Allocator allocates buffers for one device.
type Allocator interface {
	// AllocateBuffer returns a new buffer of size bytes. Its contents are
	// undefined: a reused allocation keeps the bytes it had.
	AllocateBuffer(params BufferParams, size int64) (*Buffer, error)
	// Statistics returns counters for --print_statistics.
	Statistics() AllocatorStatistics
	// Trim frees memory the allocator keeps for reuse.
	Trim()
}

// AllocatorStatistics are cumulative allocator counters.
//
// Memory is counted when a buffer's allocation takes it (allocated) and
// when the allocation's last reference returns it (freed), in the size
// class the allocator reserved (hal.SizeClass), so live (allocated minus
// freed) is the memory buffers hold right now and peak its maximum.
// Device-local memory — mapped into the host or not — counts as device
// memory, all other memory (host allocations, pinned host copies, staging
// mirrors) as host memory. CachedBytes is memory the allocator, or the
// driver's pool under it, keeps reserved for reuse without any buffer
// holding it: live plus cached is what the device has taken from the
// system.
type AllocatorStatistics struct {
	// Host and device byte counters: peak live, total allocated, total freed.
	HostBytesPeak, HostBytesAllocated, HostBytesFreed       int64
	DeviceBytesPeak, DeviceBytesAllocated, DeviceBytesFreed int64
	// PoolHits counts allocations served from reused memory, PoolMisses
	// those that needed fresh memory, CachedBytes the memory kept for reuse.
	PoolHits, PoolMisses, CachedBytes int64
}

// String formats the statistics the way IREE's tools print them for
// --print_statistics.
func (s AllocatorStatistics) String() string {
	var b strings.Builder
	b.WriteString("[[ iree_hal_allocator_t memory statistics ]]\n")
	fmt.Fprintf(&b, "  HOST_LOCAL: %12dB peak / %12dB allocated / %12dB freed / %12dB live\n",
		s.HostBytesPeak, s.HostBytesAllocated, s.HostBytesFreed, s.HostBytesAllocated-s.HostBytesFreed)
	fmt.Fprintf(&b, "DEVICE_LOCAL: %12dB peak / %12dB allocated / %12dB freed / %12dB live\n",
		s.DeviceBytesPeak, s.DeviceBytesAllocated, s.DeviceBytesFreed, s.DeviceBytesAllocated-s.DeviceBytesFreed)
	fmt.Fprintf(&b, "  POOL: %d hits / %d misses / %dB cached\n", s.PoolHits, s.PoolMisses, s.CachedBytes)
	return b.String()
}

// Host allocation tuning.
const (
	// BufferAlignment is the alignment of every host buffer's first byte.
	BufferAlignment = 64
	// MaxBufferSize bounds one allocation (16 GiB).
	MaxBufferSize = int64(16) << 30
	// minPooledSize is the smallest size that is rounded up to a coarser
	// size class; smaller sizes are their own class. Every non-empty class
	// is kept for reuse: a small buffer (a one-workgroup result) is cheap to
	// allocate, but allocating one per call is most of the garbage a small
	// dispatch makes.
	minPooledSize = 4 << 10
	// DefaultHostCacheBytes is how much freed memory a HostAllocator keeps.
	DefaultHostCacheBytes = int64(1) << 30
)

// HostAllocator allocates host memory from the Go heap and keeps freed
// allocations in size classes (four per power of two) for reuse, because
// rewriting reused memory is much cheaper than touching fresh zeroed pages.
// It is safe for concurrent use.
type HostAllocator struct {
	maxCached int64

	mu     sync.Mutex
	free   map[int64]*[][]byte // size class -> raw slices (updated in place)
	cached int64
	// The statistics counters, under mu too: take and give hold it
	// anyway, and counting there costs no atomic read-modify-write of its
	// own (six per allocate-and-release otherwise).
	live, peak, allocated, freed int64
	hits, misses                 int64
}

// NewHostAllocator returns an allocator that caches up to maxCachedBytes of
// freed memory (0 disables caching; negative means DefaultHostCacheBytes).
func NewHostAllocator(maxCachedBytes int64) *HostAllocator {
	if maxCachedBytes < 0 {
		maxCachedBytes = DefaultHostCacheBytes
	}
	return &HostAllocator{maxCached: maxCachedBytes, free: map[int64]*[][]byte{}}
}

// SizeClass returns the size class an allocation of n bytes uses: n itself
// below 4 KiB, otherwise n rounded up to the next of 2^k, 1.25·2^k, 1.5·2^k,
// 1.75·2^k (and to whole 4 KiB pages).
func SizeClass(n int64) int64 {
	if n < minPooledSize {
		return n
	}
	k := 63 - bits.LeadingZeros64(uint64(n))
	base := int64(1) << k
	if n == base {
		return n
	}
	step := base / 4
	c := (n + step - 1) / step * step
	return (c + 4095) &^ 4095
}

// AllocateBuffer implements Allocator.
func (a *HostAllocator) AllocateBuffer(params BufferParams, size int64) (*Buffer, error) {
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "negative allocation size %d", size)
	}
	if size > MaxBufferSize {
		return nil, status.Errorf(status.ResourceExhausted, "allocation of %d bytes exceeds the %d-byte limit", size, MaxBufferSize)
	}
	memType := params.Type
	if memType == 0 || memType == MemoryTypeOptimal {
		memType = MemoryTypeHostLocal | MemoryTypeDeviceVisible
	}
	if memType&MemoryTypeDeviceLocal == MemoryTypeDeviceLocal {
		// Host devices have one kind of memory; device-local is host memory
		// that is also visible to the (host) device.
		memType = MemoryTypeHostLocal | MemoryTypeDeviceLocal
	}
	memType |= MemoryTypeHostVisible | MemoryTypeHostCoherent | MemoryTypeHostCached
	usage := params.Usage
	if usage == 0 {
		usage = BufferUsageDefault | BufferUsageMapping
	}
	class := SizeClass(size)
	raw := a.take(class)
	// The storage, the buffer and its allocation are one heap object.
	hb := &hostBlock{s: hostStorage{alloc: a, raw: raw, class: class}}
	s := &hb.s
	s.bytes = alignedSlice(raw, class)
	return hb.blk.init(s, size, memType, usage)
}

// hostBlock is the heap object behind one host allocation.
type hostBlock struct {
	s   hostStorage
	blk bufferBlock
}

// take returns raw memory for an allocation of size class class, from the
// cache when it holds one, and counts the allocation.
func (a *HostAllocator) take(class int64) []byte {
	a.mu.Lock()
	a.allocated += class
	a.live += class
	a.peak = max(a.peak, a.live)
	if class > 0 {
		if list := a.free[class]; list != nil && len(*list) > 0 {
			n := len(*list)
			raw := (*list)[n-1]
			(*list)[n-1] = nil
			*list = (*list)[:n-1]
			a.cached -= class
			a.hits++
			a.mu.Unlock()
			return raw
		}
	}
	a.misses++
	a.mu.Unlock()
	return make([]byte, class+BufferAlignment)
}

// give takes back the raw memory of a released allocation, keeping it for
// reuse while the cache has room.
func (a *HostAllocator) give(raw []byte, class int64) {
	a.mu.Lock()
	a.freed += class
	a.live -= class
	if class == 0 || a.cached+class > a.maxCached {
		a.mu.Unlock()
		return
	}
	list := a.free[class]
	if list == nil {
		list = new([][]byte)
		a.free[class] = list
	}
	*list = append(*list, raw)
	a.cached += class
	a.mu.Unlock()
}

// Trim implements Allocator: it drops all cached memory.
func (a *HostAllocator) Trim() {
	a.mu.Lock()
	a.free = map[int64]*[][]byte{}
	a.cached = 0
	a.mu.Unlock()
}

// Statistics implements Allocator.
func (a *HostAllocator) Statistics() AllocatorStatistics {
	a.mu.Lock()
	defer a.mu.Unlock()
	return AllocatorStatistics{
		HostBytesPeak:      a.peak,
		HostBytesAllocated: a.allocated,
		HostBytesFreed:     a.freed,
		PoolHits:           a.hits,
		PoolMisses:         a.misses,
		CachedBytes:        a.cached,
	}
}

func alignedSlice(raw []byte, n int64) []byte {
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	off := int64((BufferAlignment - addr%BufferAlignment) % BufferAlignment)
	return raw[off : off+n : off+n]
}

type hostStorage struct {
	alloc    *HostAllocator
	raw      []byte
	bytes    []byte
	class    int64
	released atomic.Bool
}

func (s *hostStorage) HostBytes() []byte { return s.bytes }

func (s *hostStorage) Release() {
	if s.released.CompareAndSwap(false, true) {
		s.alloc.give(s.raw, s.class)
	}
}
