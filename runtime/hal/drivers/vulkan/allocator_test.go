package vulkan_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers/vulkan"
)

// TestAllocatorReuse checks that released buffers are reused per size
// class and kind, that a reused buffer is sized like the new request, and
// that Trim empties the cache.
func TestAllocatorReuse(t *testing.T) {
	d := device(t)
	a := d.Allocator()
	before := a.Statistics()
	for _, typ := range []hal.MemoryType{0, hal.MemoryTypeDeviceLocal} {
		for _, size := range []int64{100000, 99000, 100000} { // one size class
			b, err := a.AllocateBuffer(hal.BufferParams{Type: typ}, size)
			if err != nil {
				t.Fatal(err)
			}
			if b.ByteLength() != size {
				t.Errorf("buffer of %d bytes has length %d", size, b.ByteLength())
			}
			if hb, err := b.HostBytes(); err == nil && int64(len(hb)) != size {
				t.Errorf("buffer of %d bytes maps %d bytes", size, len(hb))
			}
			if err := b.Release(); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := a.Statistics()
	if hits := s.PoolHits - before.PoolHits; hits < 4 {
		t.Errorf("%d pool hits for two kinds of three same-class allocations, want 4 (%+v)", hits, s)
	}
	if s.CachedBytes == 0 {
		t.Errorf("nothing cached after releases: %+v", s)
	}
	a.Trim()
	if s := a.Statistics(); s.CachedBytes != 0 {
		t.Errorf("%d bytes cached after Trim", s.CachedBytes)
	}
}

func TestMemoryReport(t *testing.T) {
	d := device(t)
	r := d.MemoryReport()
	if !strings.Contains(r, "heap 0: ") || !strings.Contains(r, "type 0 (heap ") {
		t.Fatalf("memory report lacks heap 0 or type 0:\n%s", r)
	}
	t.Logf("memory of %s:\n%s", d.Name(), r)
}

// TestQueueAndTiming creates a device with each queue choice and with
// dedicated allocations, and times a submission (a fill of a buffer) where
// the family has timestamps.
func TestQueueAndTiming(t *testing.T) {
	device(t) // skips without Vulkan
	for _, opts := range []vulkan.DeviceOptions{{Queue: vulkan.QueueCompute}, {Queue: vulkan.QueueUniversal}, {Dedicated: true}} {
		d, err := vulkan.NewDeviceWith(0, opts)
		if err != nil {
			t.Fatal(err)
		}
		fam := d.QueueFamily()
		t.Logf("options %+v: %s", opts, fam)
		if !strings.Contains(fam, "compute") {
			t.Errorf("queue family %q has no compute", fam)
		}
		if err := d.SetTiming(true); err != nil {
			if strings.Contains(fam, "timestamps") {
				t.Errorf("SetTiming on %s: %v", fam, err)
			}
			d.Close()
			continue
		}
		b, err := d.Allocator().AllocateBuffer(hal.BufferParams{}, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if err := submit(t, d, func(cb *hal.CommandBuffer) error { return cb.FillBuffer(b, 0, 1<<20, []byte{1, 2, 3, 4}) }); err != nil {
			t.Fatal(err)
		}
		if d.LastDeviceTime() <= 0 {
			t.Errorf("timed fill: device time %v", d.LastDeviceTime())
		}
		if err := d.SetTiming(false); err != nil {
			t.Fatal(err)
		}
		if err := b.Release(); err != nil {
			t.Fatal(err)
		}
		d.Close()
	}
}

// TestBufferInfo checks what BufferInfo says of new, reused and
// host-accessed buffers, and that it rejects buffers of other drivers.
func TestBufferInfo(t *testing.T) {
	d := device(t)
	a := d.Allocator()
	a.Trim()
	b, err := a.AllocateBuffer(hal.BufferParams{}, 4096)
	if err != nil {
		t.Fatal(err)
	}
	info, err := vulkan.BufferInfo(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"VkBuffer 0x", "memory type ", "host-visible", "4096 of ", ", mapped, new, 0 host access(es)"} {
		if !strings.Contains(info, want) {
			t.Errorf("BufferInfo of a new buffer %q lacks %q", info, want)
		}
	}
	if err := b.Write(0, make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	if info, _ := vulkan.BufferInfo(b); !strings.Contains(info, " 1 host access(es)") {
		t.Errorf("BufferInfo after one write: %q, want 1 host access", info)
	}
	b.Release()
	b, err = a.AllocateBuffer(hal.BufferParams{}, 4096)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if info, _ := vulkan.BufferInfo(b); !strings.Contains(info, ", reused, ") {
		t.Errorf("BufferInfo of a buffer from the cache: %q, want reused", info)
	}
	other, err := hal.NewBuffer(hostStorage(make([]byte, 8)), 8, hal.MemoryTypeHostLocal, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vulkan.BufferInfo(other); err == nil || !strings.Contains(err.Error(), "not allocated by a vulkan device") {
		t.Errorf("BufferInfo of a host buffer: %v, want not allocated by a vulkan device", err)
	}
}

// hostStorage is plain host memory as a hal.Storage.
type hostStorage []byte

func (h hostStorage) HostBytes() []byte { return h }
func (hostStorage) Release()            {}

// TestSubAllocation checks that small buffers are slices of one block
// whose offsets every command honours: fills and a copy between
// neighbouring slices touch only their own bytes, in device-only and in
// mapped memory; released slices serve their class again; Trim frees
// blocks with no slice in use.
func TestSubAllocation(t *testing.T) {
	d := device(t)
	a := d.Allocator()
	a.Trim()
	for _, typ := range []hal.MemoryType{0, hal.MemoryTypeDeviceLocal} {
		var bufs []*hal.Buffer
		for i := 0; i < 3; i++ {
			b, err := a.AllocateBuffer(hal.BufferParams{Type: typ}, 1000)
			if err != nil {
				t.Fatal(err)
			}
			info, err := vulkan.BufferInfo(b)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(info, "slice of a block") {
				t.Fatalf("%v buffer %d is not a sub-allocation: %s", typ, i, info)
			}
			bufs = append(bufs, b)
		}
		// Device-only buffers are read back through a mapped one.
		out, err := a.AllocateBuffer(hal.BufferParams{}, 3000)
		if err != nil {
			t.Fatal(err)
		}
		err = submit(t, d, func(cb *hal.CommandBuffer) error {
			for i, b := range bufs {
				if err := cb.FillBuffer(b, 0, 1000, []byte{byte(i + 1)}); err != nil {
					return err
				}
			}
			if err := cb.ExecutionBarrier(); err != nil {
				return err
			}
			if err := cb.CopyBuffer(bufs[0], 0, bufs[1], 500, 500); err != nil {
				return err
			}
			if err := cb.ExecutionBarrier(); err != nil {
				return err
			}
			for i, b := range bufs {
				if err := cb.CopyBuffer(b, 0, out, int64(1000*i), 1000); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		got := make([]byte, 3000)
		if err := out.Read(0, got); err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			want := byte(i/1000 + 1)
			if i >= 1500 && i < 2000 {
				want = 1 // copied from buffer 0
			}
			if v != want {
				t.Fatalf("%v: byte %d = %d, want %d", typ, i, v, want)
			}
		}
		for _, b := range append(bufs, out) {
			b.Release()
		}
		again, err := a.AllocateBuffer(hal.BufferParams{Type: typ}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if info, _ := vulkan.BufferInfo(again); !strings.Contains(info, ", reused, ") {
			t.Errorf("%v: a released slice of the class was not reused: %s", typ, info)
		}
		again.Release()
	}
	if s := a.Statistics(); s.CachedBytes < 64<<20 {
		t.Errorf("cached %d bytes with released blocks, want at least a 64 MiB block", s.CachedBytes)
	}
	a.Trim()
	if s := a.Statistics(); s.CachedBytes != 0 || s.HostBytesAllocated != s.HostBytesFreed || s.DeviceBytesAllocated != s.DeviceBytesFreed {
		t.Errorf("after Trim: %+v, want nothing cached or live", s)
	}
}

// TestAllocationLargerThanDevice: a request beyond the largest memory
// heap is a RESOURCE_EXHAUSTED error naming the heap, not a crash.
func TestAllocationLargerThanDevice(t *testing.T) {
	d := device(t)
	_, err := d.Allocator().AllocateBuffer(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, hal.MaxBufferSize)
	if err == nil {
		t.Skip("the device has a heap of at least 16 GiB")
	}
	if !strings.Contains(err.Error(), "RESOURCE_EXHAUSTED") {
		t.Errorf("error %v, want RESOURCE_EXHAUSTED", err)
	}
	t.Logf("%v", err)
}
