package cuda

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// Memory kinds. A buffer's memory type picks one:
//
//   - device-only (DEVICE_LOCAL without HOST_VISIBLE): cuMemAlloc memory
//     the host reaches only through transfer commands;
//   - host-local (HOST_LOCAL asked for explicitly): pinned host memory
//     mapped into the device's address space, which kernels read and
//     write over the bus;
//   - staged (everything else, including the default type 0): cuMemAlloc
//     memory with a pinned host copy made on first mapping. Mapping
//     downloads the device bytes when the device may have changed them;
//     the next submission that uses the buffer uploads the host copy
//     first. Kernels run at device memory speed and the host sees the
//     buffer as host-visible and coherent at submission boundaries.
type memoryKind int

const (
	kindStaged memoryKind = iota
	kindDeviceOnly
	kindHostLocal
)

// storage is the memory of a CUDA allocation.
type storage interface {
	hal.Storage
	devicePointer() uint64
}

// rawAllocation is one driver allocation of a size class, live or cached.
// A staged allocation keeps its host copy when it is cached.
type rawAllocation struct {
	kind   memoryKind
	class  int64
	pooled bool           // ptr came from the stream-ordered pool
	ptr    uint64         // device address
	host   unsafe.Pointer // host-local memory, or a staged allocation's pinned copy
	shadow []byte         // a staged allocation's host copy (pinned when host != nil)
}

// deviceMemory is device-only or host-local memory.
type deviceMemory struct {
	a        *Allocator
	raw      *rawAllocation
	bytes    []byte // host-local memory; nil for device-only
	released atomic.Bool
}

func (m *deviceMemory) HostBytes() []byte     { return m.bytes }
func (m *deviceMemory) devicePointer() uint64 { return m.raw.ptr }
func (m *deviceMemory) Release() {
	if m.released.CompareAndSwap(false, true) {
		m.a.give(m.raw)
	}
}

// stagedMemory is device memory with a host copy for mapping.
type stagedMemory struct {
	a    *Allocator
	raw  *rawAllocation
	size int64

	mu sync.Mutex
	// ready is false while hal.NewBuffer inspects the storage, so that
	// creating a buffer does not make its host copy.
	ready bool
	// hostStale: the device may hold newer bytes than the host copy.
	// deviceStale: the host copy may hold newer bytes than the device.
	hostStale, deviceStale bool
	released               atomic.Bool
}

func (m *stagedMemory) devicePointer() uint64 { return m.raw.ptr }

// HostBytes returns the host copy, first downloading the device bytes
// when they may be newer. The caller may write to it, so the next
// submission using the buffer uploads it. Submissions finish before
// QueueExecute's fence signals, so no device work is pending here unless
// the program maps a buffer that a submission in flight uses.
func (m *stagedMemory) HostBytes() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.ready || m.released.Load() {
		return nil
	}
	if m.raw.shadow == nil {
		m.a.makeShadow(m.raw)
	}
	if m.hostStale && m.size > 0 {
		if err := memcpyToHost(m.a.ctx, m.raw.shadow[:m.size], m.raw.ptr); err != nil {
			// The driver reports errors of earlier work here too; the
			// mapping cannot fail, so the host copy stays as it was and
			// the next submission reports the (sticky) error.
			return m.raw.shadow
		}
		m.hostStale = false
	}
	m.deviceStale = true
	return m.raw.shadow
}

// upload enqueues the host copy's upload on s when it may be newer.
func (m *stagedMemory) upload(s cuStream) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.deviceStale || m.size == 0 {
		return nil
	}
	if err := memcpyFromHost(m.a.ctx, m.raw.ptr, m.raw.shadow[:m.size], s); err != nil {
		return err
	}
	m.deviceStale = false
	return nil
}

// deviceWrote records that submitted work may have changed the device
// bytes.
func (m *stagedMemory) deviceWrote() {
	m.mu.Lock()
	m.hostStale = true
	m.mu.Unlock()
}

func (m *stagedMemory) Release() {
	if m.released.CompareAndSwap(false, true) {
		m.a.give(m.raw)
	}
}

type poolKey struct {
	class int64
	kind  memoryKind
}

// DefaultCacheBytes is how much freed memory an Allocator keeps for reuse
// (pinning host memory and allocating device memory are slow, and programs
// allocate their results on every call).
const DefaultCacheBytes = int64(8) << 30

// Allocator allocates the memory of one CUDA device. It is safe for
// concurrent use.
//
// Device memory comes from a stream-ordered memory pool where the driver
// has one (cuMemAllocFromPoolAsync and cuMemFreeAsync on the device's
// stream, the pool keeping up to DefaultCacheBytes of freed memory
// reserved: IREE's queue alloca and dealloca), else from cuMemAlloc.
// Released memory is kept in size classes (hal.SizeClass) for reuse, up to
// DefaultCacheBytes, in front of the pool, as torch's caching allocator
// keeps it: a transient's memory serves the next allocation of its class
// (the next call's transient) without a driver call, where a round trip
// through the pool costs cuMemFreeAsync and cuMemAllocFromPoolAsync per
// transient and call. Memory beyond the cache, and all of it at Trim,
// goes back to the pool in stream order. Submissions finish before their
// buffers can be released (QueueExecute waits, and the hal module holds a
// queued submission's buffers until it ends), so cached memory is idle.
// Pinned host memory and device memory with a pinned host copy are cached
// the same way, because pinning is slow.
type Allocator struct {
	ctx       cuContext
	maxCached int64
	// pool is the stream-ordered pool (nil: cuMemAlloc); poolNote says
	// why there is none. deviceBytes is the device's memory (0: unknown).
	pool        *streamPool
	poolNote    string
	deviceBytes int64
	closed      bool // guarded by mu: memory is no longer returned

	mu     sync.Mutex
	free   map[poolKey][]*rawAllocation
	cached int64

	hostLive, hostPeak, hostAllocated, hostFreed atomic.Int64
	devLive, devPeak, devAllocated, devFreed     atomic.Int64
	hits, misses                                 atomic.Int64
}

func newAllocator(ctx cuContext, maxCached int64) *Allocator {
	return &Allocator{ctx: ctx, maxCached: maxCached, free: map[poolKey][]*rawAllocation{}, poolNote: "not set up"}
}

// useStreamPool sets up stream-ordered allocation on stream for device
// dev, falling back to cuMemAlloc (PoolInfo says why) where the driver or
// device lacks it. It also reads the device's memory size, which bounds
// one allocation.
func (a *Allocator) useStreamPool(dev cuDevice, stream cuStream) {
	a.deviceBytes = deviceMemoryBytes(a.ctx, dev)
	a.pool, a.poolNote = newStreamPool(a.ctx, dev, stream, a.maxCached)
}

// PoolInfo says where device memory comes from: "stream-ordered pool
// (cuMemAllocFromPoolAsync)" or "cuMemAlloc (<why no pool>)".
func (a *Allocator) PoolInfo() string {
	if a.pool != nil {
		return "stream-ordered pool (cuMemAllocFromPoolAsync)"
	}
	return "cuMemAlloc (" + a.poolNote + ")"
}

// IsDeviceOnly reports whether a memory type asks for device memory that
// the host does not see: DEVICE_LOCAL without HOST_VISIBLE.
func IsDeviceOnly(t hal.MemoryType) bool {
	return t&hal.MemoryTypeDeviceLocal == hal.MemoryTypeDeviceLocal && t&hal.MemoryTypeHostVisible == 0
}

// IsHostLocal reports whether a memory type asks for host memory
// (HOST_LOCAL) that kernels access over the bus.
func IsHostLocal(t hal.MemoryType) bool {
	return t&hal.MemoryTypeHostLocal == hal.MemoryTypeHostLocal
}

func kindOf(t hal.MemoryType) memoryKind {
	switch {
	case IsDeviceOnly(t):
		return kindDeviceOnly
	case IsHostLocal(t):
		return kindHostLocal
	}
	return kindStaged
}

// AllocateBuffer implements hal.Allocator.
func (a *Allocator) AllocateBuffer(params hal.BufferParams, size int64) (*hal.Buffer, error) {
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "negative allocation size %d", size)
	}
	if size > hal.MaxBufferSize {
		return nil, status.Errorf(status.ResourceExhausted, "allocation of %d bytes exceeds the %d-byte limit", size, hal.MaxBufferSize)
	}
	if a.deviceBytes > 0 && size > a.deviceBytes {
		return nil, status.Errorf(status.ResourceExhausted, "allocation of %d bytes exceeds the device's %d bytes of memory", size, a.deviceBytes)
	}
	kind := kindOf(params.Type)
	// CUDA allocations are at least 256-byte aligned; a zero-byte buffer
	// still gets a distinct address.
	class := hal.SizeClass(max(size, 1))
	r, err := a.take(class, kind)
	if err != nil {
		return nil, hal.ErrorContext(err, "allocating %d bytes", size)
	}
	usage := params.Usage
	if usage == 0 {
		usage = hal.BufferUsageDefault | hal.BufferUsageMapping
	}
	switch kind {
	case kindDeviceOnly:
		return hal.NewBuffer(&deviceMemory{a: a, raw: r}, size, hal.MemoryTypeDeviceLocal, usage&^hal.BufferUsageMapping)
	case kindHostLocal:
		m := &deviceMemory{a: a, raw: r, bytes: unsafe.Slice((*byte)(r.host), class)[:size:size]}
		return hal.NewBuffer(m, size, hal.MemoryTypeHostLocal|hal.MemoryTypeDeviceVisible|hal.MemoryTypeHostCoherent, usage)
	}
	m := &stagedMemory{a: a, raw: r, size: size}
	b, err := hal.NewBuffer(m, size, hal.MemoryTypeDeviceLocal|hal.MemoryTypeHostVisible|hal.MemoryTypeHostCoherent, usage)
	if err != nil {
		a.give(r)
		return nil, err
	}
	m.mu.Lock()
	m.ready = true
	m.mu.Unlock()
	return b, nil
}

// take returns a cached allocation of the class and kind, or a new one.
func (a *Allocator) take(class int64, kind memoryKind) (*rawAllocation, error) {
	k := poolKey{class, kind}
	a.mu.Lock()
	if list := a.free[k]; len(list) > 0 {
		r := list[len(list)-1]
		list[len(list)-1] = nil
		a.free[k] = list[:len(list)-1]
		a.cached -= r.footprint()
		a.mu.Unlock()
		a.hits.Add(1)
		a.count(r, 1)
		return r, nil
	}
	a.mu.Unlock()
	a.misses.Add(1)
	r := &rawAllocation{kind: kind, class: class}
	alloc := func() (err error) {
		switch {
		case kind == kindHostLocal:
			r.host, r.ptr, err = hostAlloc(a.ctx, class)
		case a.pool != nil:
			// Device-only memory is touched only by work on the stream,
			// which orders it after the allocation: no wait.
			r.ptr, err = a.pool.alloc(class, kind != kindDeviceOnly)
			r.pooled = err == nil
		default:
			r.ptr, err = memAlloc(a.ctx, class)
		}
		return err
	}
	if err := alloc(); err != nil {
		// Memory may be held by the cache: free it and try once more.
		a.Trim()
		if err := alloc(); err != nil {
			return nil, err
		}
	}
	a.count(r, 1)
	return r, nil
}

// makeShadow gives a staged allocation its host copy: pinned memory, or
// Go memory when pinning fails.
func (a *Allocator) makeShadow(r *rawAllocation) {
	if h, err := hostAllocUnmapped(a.ctx, r.class); err == nil {
		r.host = h
		r.shadow = unsafe.Slice((*byte)(h), r.class)
	} else {
		r.shadow = make([]byte, r.class)
	}
	a.countHost(r.class)
}

// give caches a released allocation or frees it (pool memory back to the
// pool in stream order) when the cache is full.
func (a *Allocator) give(r *rawAllocation) {
	a.count(r, -1)
	a.mu.Lock()
	if a.closed {
		// The device is closed: its context may be gone, so the memory
		// is left to the driver, which frees it with the context.
		a.mu.Unlock()
		return
	}
	if a.cached+r.footprint() <= a.maxCached {
		k := poolKey{r.class, r.kind}
		a.free[k] = append(a.free[k], r)
		a.cached += r.footprint()
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	a.release(r)
}

func (a *Allocator) release(r *rawAllocation) {
	switch r.kind {
	case kindHostLocal:
		hostFree(a.ctx, r.host)
	default:
		if r.pooled {
			a.pool.free(r.ptr)
		} else {
			memFree(a.ctx, r.ptr)
		}
		if r.host != nil {
			hostFree(a.ctx, r.host)
		}
	}
}

// footprint is the memory a raw allocation holds: its class, twice for a
// staged allocation with its host copy.
func (r *rawAllocation) footprint() int64 {
	if r.shadow != nil {
		return 2 * r.class
	}
	return r.class
}

// count adds (sign 1) or removes (sign -1) a live allocation from the
// statistics: host-local memory as host memory, the rest as device memory
// and a staged allocation's host copy as host memory (a cached allocation
// is not live: its memory counts as cached).
func (a *Allocator) count(r *rawAllocation, sign int64) {
	n := sign * r.class
	if r.shadow != nil {
		peakAdd(&a.hostLive, &a.hostPeak, n)
		if sign > 0 {
			a.hostAllocated.Add(n)
		} else {
			a.hostFreed.Add(-n)
		}
	}
	if r.kind == kindHostLocal {
		peakAdd(&a.hostLive, &a.hostPeak, n)
		if sign > 0 {
			a.hostAllocated.Add(n)
		} else {
			a.hostFreed.Add(-n)
		}
		return
	}
	peakAdd(&a.devLive, &a.devPeak, n)
	if sign > 0 {
		a.devAllocated.Add(n)
	} else {
		a.devFreed.Add(-n)
	}
}

func (a *Allocator) countHost(n int64) {
	a.hostAllocated.Add(n)
	peakAdd(&a.hostLive, &a.hostPeak, n)
}

func peakAdd(live, peak *atomic.Int64, n int64) {
	l := live.Add(n)
	for {
		p := peak.Load()
		if l <= p || peak.CompareAndSwap(p, l) {
			return
		}
	}
}

// Statistics implements hal.Allocator.
func (a *Allocator) Statistics() hal.AllocatorStatistics {
	a.mu.Lock()
	cached := a.cached
	if a.pool != nil && !a.closed {
		cached += a.pool.idleBytes()
	}
	a.mu.Unlock()
	return hal.AllocatorStatistics{
		HostBytesPeak: a.hostPeak.Load(), HostBytesAllocated: a.hostAllocated.Load(), HostBytesFreed: a.hostFreed.Load(),
		DeviceBytesPeak: a.devPeak.Load(), DeviceBytesAllocated: a.devAllocated.Load(), DeviceBytesFreed: a.devFreed.Load(),
		PoolHits: a.hits.Load(), PoolMisses: a.misses.Load(), CachedBytes: cached,
	}
}

// Trim implements hal.Allocator: it frees all cached memory, and the
// memory the stream-ordered pool keeps reserved.
func (a *Allocator) Trim() {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	free := a.free
	a.free = map[poolKey][]*rawAllocation{}
	a.cached = 0
	a.mu.Unlock()
	for _, list := range free {
		for _, r := range list {
			a.release(r)
		}
	}
	if a.pool != nil {
		a.pool.trim(0)
	}
}

// close frees the cached memory and the pool's reserve before the device
// goes; buffers released later leave their memory to the driver. The pool
// itself is destroyed only when nothing is allocated from it (a buffer the
// program still holds keeps it).
func (a *Allocator) close() {
	a.Trim()
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	if a.pool != nil && a.devLive.Load() == 0 {
		a.pool.destroy()
	}
}
