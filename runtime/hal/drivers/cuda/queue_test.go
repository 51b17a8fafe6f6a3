package cuda

import (
	"slices"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
)

// hostOnly is storage that is not staged, for stagedBuffers.
type hostOnly []byte

func (h hostOnly) HostBytes() []byte { return h }
func (h hostOnly) Release()          {}

// TestStagedBuffers (no GPU): a submission's staged allocations are listed
// once each, in first-use order, whichever command uses them; other
// storage is left out; the list reuses the slice it is given.
func TestStagedBuffers(t *testing.T) {
	var mem [3]*stagedMemory
	var bufs [3]*hal.Buffer
	for i := range mem {
		mem[i] = &stagedMemory{raw: &rawAllocation{}, size: 16}
		b, err := hal.NewBuffer(mem[i], 16, hal.MemoryTypeDeviceLocal|hal.MemoryTypeHostVisible, hal.BufferUsageDefault)
		if err != nil {
			t.Fatal(err)
		}
		bufs[i] = b
	}
	other, err := hal.NewBuffer(hostOnly(make([]byte, 16)), 16, hal.MemoryTypeHostLocal, hal.BufferUsageDefault)
	if err != nil {
		t.Fatal(err)
	}
	cb1 := hal.NewCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
	cb2 := hal.NewCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
	for _, err := range []error{
		cb1.Begin(),
		cb1.FillBuffer(bufs[2], 0, 16, []byte{1, 2, 3, 4}),
		cb1.CopyBuffer(other, 0, bufs[0], 0, 16),
		cb1.CopyBuffer(bufs[2], 0, bufs[0], 0, 16),
		cb1.End(),
		cb2.Begin(),
		cb2.UpdateBuffer([]byte{1, 2, 3, 4}, bufs[0], 0),
		cb2.CopyBuffer(bufs[1], 0, other, 0, 16),
		cb2.End(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	scratch := make([]*stagedMemory, 1, 8)
	scratch[0] = mem[1]
	got := stagedBuffers(scratch, []*hal.CommandBuffer{cb1, cb2})
	if want := []*stagedMemory{mem[2], mem[0], mem[1]}; !slices.Equal(got, want) {
		t.Errorf("stagedBuffers = %v, want %v", got, want)
	}
	if &got[0] != &scratch[0] {
		t.Error("stagedBuffers did not reuse the slice it was given")
	}
}

// TestAllocatorCacheWithoutDriver (no GPU): a released device-only
// buffer's memory is cached in its size class and serves the next
// allocation of the class without a driver call (the allocator here has
// no context: a driver call would fail), and the statistics count it live
// only while a buffer holds it.
func TestAllocatorCacheWithoutDriver(t *testing.T) {
	a := newAllocator(nil, DefaultCacheBytes)
	class := hal.SizeClass(1 << 20)
	raw := &rawAllocation{kind: kindDeviceOnly, class: class, pooled: true, ptr: 0x1000}
	a.free[poolKey{class, kindDeviceOnly}] = []*rawAllocation{raw}
	a.cached = class
	for i := 0; i < 3; i++ {
		b, err := a.AllocateBuffer(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, 1<<20)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if p, err := bindingPointer(hal.BindingRange{Buffer: b, Length: 1 << 20}); err != nil || p != raw.ptr {
			t.Fatalf("round %d: pointer %#x, %v; want the cached %#x", i, p, err, raw.ptr)
		}
		if s := a.Statistics(); s.DeviceBytesAllocated-s.DeviceBytesFreed != class || s.CachedBytes != 0 {
			t.Fatalf("round %d, buffer live: %+v", i, s)
		}
		if err := b.Release(); err != nil {
			t.Fatal(err)
		}
	}
	s := a.Statistics()
	if s.PoolHits != 3 || s.PoolMisses != 0 || s.DeviceBytesAllocated != s.DeviceBytesFreed || s.CachedBytes != class {
		t.Errorf("after 3 rounds: %+v; want 3 hits, nothing live, the class cached", s)
	}
}

// BenchmarkAllocatorCacheHit (no GPU) is the host cost of a transient's
// allocation and release when its size class is cached: what a call's
// queue alloca and dealloca cost on the cuda driver after warm-up.
func BenchmarkAllocatorCacheHit(b *testing.B) {
	a := newAllocator(nil, DefaultCacheBytes)
	class := hal.SizeClass(64 << 20)
	a.free[poolKey{class, kindDeviceOnly}] = []*rawAllocation{{kind: kindDeviceOnly, class: class, pooled: true, ptr: 0x1000}}
	a.cached = class
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, err := a.AllocateBuffer(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, 64<<20)
		if err != nil {
			b.Fatal(err)
		}
		if err := buf.Release(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStagedBuffers (no GPU) is the host cost of listing a
// two-dispatch submission's staged buffers, done on every submission.
func BenchmarkStagedBuffers(b *testing.B) {
	var bufs [4]*hal.Buffer
	for i := range bufs {
		buf, err := hal.NewBuffer(&stagedMemory{raw: &rawAllocation{}, size: 16}, 16, hal.MemoryTypeDeviceLocal|hal.MemoryTypeHostVisible, hal.BufferUsageDefault)
		if err != nil {
			b.Fatal(err)
		}
		bufs[i] = buf
	}
	cb := hal.NewCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(cb.Begin())
	must(cb.CopyBuffer(bufs[0], 0, bufs[2], 0, 16))
	must(cb.CopyBuffer(bufs[1], 0, bufs[2], 0, 16))
	must(cb.CopyBuffer(bufs[2], 0, bufs[3], 0, 16))
	must(cb.CopyBuffer(bufs[1], 0, bufs[3], 0, 16))
	must(cb.End())
	cbs := []*hal.CommandBuffer{cb}
	var list []*stagedMemory
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		list = stagedBuffers(list, cbs)
	}
}
