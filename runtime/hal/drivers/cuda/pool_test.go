package cuda

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// TestStreamOrderedPool (GPU only): device memory comes from the stream
// pool where the driver has one; 1000 allocate/release rounds of 64 MiB
// leave nothing live and reuse the pool's memory; Trim returns the
// pool's reserve; an allocation beyond the device's memory is
// RESOURCE_EXHAUSTED naming it.
func TestStreamOrderedPool(t *testing.T) {
	d := testDevice(t)
	a := d.alloc
	t.Logf("device memory: %s, %d bytes", a.PoolInfo(), a.deviceBytes)
	if a.pool == nil && !strings.Contains(a.PoolInfo(), "cuMemAlloc (") {
		t.Errorf("no pool and no reason: %q", a.PoolInfo())
	}
	const size = 64 << 20
	before := a.Statistics()
	for i := 0; i < 1000; i++ {
		for _, typ := range []hal.MemoryType{hal.MemoryTypeDeviceLocal, 0} {
			b, err := a.AllocateBuffer(hal.BufferParams{Type: typ}, size)
			if err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
			if err := b.Release(); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := a.Statistics()
	if live := s.DeviceBytesAllocated - s.DeviceBytesFreed; live != before.DeviceBytesAllocated-before.DeviceBytesFreed {
		t.Errorf("device memory live after the rounds: %d bytes, want %d", live, before.DeviceBytesAllocated-before.DeviceBytesFreed)
	}
	if s.DeviceBytesPeak-before.DeviceBytesPeak > size {
		t.Errorf("peak grew by %d bytes over 1000 rounds of one %d-byte buffer", s.DeviceBytesPeak-before.DeviceBytesPeak, size)
	}
	t.Logf("after 2000 allocations: %s", strings.TrimSpace(s.String()))
	a.Trim()
	if s := a.Statistics(); s.CachedBytes != 0 {
		t.Errorf("cached after Trim: %d bytes", s.CachedBytes)
	}
	if a.deviceBytes > 0 && a.deviceBytes < hal.MaxBufferSize {
		_, err := a.AllocateBuffer(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, a.deviceBytes+1)
		if status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(err.Error(), "exceeds the device's") {
			t.Errorf("allocation beyond the device: %v", err)
		}
	}
}
