package cuda

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
)

// TestMeasurementHooks checks the benchmark hooks on a device: the raw
// launch loop computes what a dispatch computes and rejects bad requests,
// and timed submissions report a device time.
func TestMeasurementHooks(t *testing.T) {
	d := testDevice(t)
	exe := prepare(t, d, samplePayload(t, "simple_mul"))
	const n = 256
	x, y, z := alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n)
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = 3
	}
	if err := x.Write(0, f32s(vals...)); err != nil {
		t.Fatal(err)
	}
	if err := y.Write(0, f32s(vals...)); err != nil {
		t.Fatal(err)
	}
	binds := []hal.Binding{{Buffer: x, Length: 4 * n}, {Buffer: y, Length: 4 * n}, {Buffer: z, Length: 4 * n}}
	wg := [3]uint32{n / 64, 1, 1}
	// A timed dispatch (which uploads the host-written inputs first), then
	// a fill that clears its result for the raw loop to recompute.
	if err := d.SetTiming(true); err != nil {
		t.Fatal(err)
	}
	submit(t, d, func(cb *hal.CommandBuffer) error { return cb.DispatchWith(exe, 0, wg, []uint32{n}, binds) })
	if d.LastDeviceTime() <= 0 {
		t.Errorf("timed submission: device time %v, want > 0", d.LastDeviceTime())
	}
	submit(t, d, func(cb *hal.CommandBuffer) error { return cb.FillBuffer(z, 0, 4*n, []byte{0, 0, 0, 0}) })
	if el, err := d.RawLaunchLoop(exe, 0, wg, []uint32{n}, binds, 3); err != nil || el <= 0 {
		t.Fatalf("raw launch loop: %v, %v", el, err)
	}
	if got := readF32(t, z); got[0] != 9 || got[n-1] != 9 {
		t.Errorf("after the raw loop z[0]=%v z[%d]=%v, want 9", got[0], n-1, got[n-1])
	}
	submit(t, d, func(cb *hal.CommandBuffer) error { return cb.FillBuffer(z, 0, 4*n, []byte{0, 0, 0, 0}) })
	if wall, dev, err := d.RawLaunchTimed(exe, 0, wg, []uint32{n}, binds, 2); err != nil || wall <= 0 || dev <= 0 || dev > wall {
		t.Fatalf("timed raw launches: wall %v, device %v, %v; want 0 < device <= wall", wall, dev, err)
	}
	if got := readF32(t, z); got[0] != 9 || got[n-1] != 9 {
		t.Errorf("after the timed raw launches z[0]=%v z[%d]=%v, want 9", got[0], n-1, got[n-1])
	}
	if _, _, err := d.RawLaunchTimed(exe, 0, [3]uint32{1, 1 << 17, 1}, []uint32{n}, binds, 1); err == nil || !strings.Contains(err.Error(), "grid limits") {
		t.Errorf("RawLaunchTimed beyond the grid limits = %v, want an error naming them", err)
	}
	for _, tc := range []struct {
		ordinal, count int
		want           string
	}{{0, 0, "count 0"}, {5, 1, "ordinal 5 out of range"}} {
		if _, err := d.RawLaunchLoop(exe, tc.ordinal, wg, []uint32{n}, binds, tc.count); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RawLaunchLoop(ordinal %d, count %d) = %v, want an error with %q", tc.ordinal, tc.count, err, tc.want)
		}
	}
	if err := d.SetTiming(false); err != nil {
		t.Fatal(err)
	}
}
