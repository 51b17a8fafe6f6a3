package vulkan_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
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
