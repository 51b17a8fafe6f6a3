package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goiree/goiree/runtime/hal"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
)

// testDevice creates device 0, or skips where CUDA is absent (CI has no
// GPU; the skip message says why).
func testDevice(t testing.TB) *Device {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("skipping: no CUDA device: %v", err)
	}
	d, err := NewDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

func TestUnavailableListing(t *testing.T) {
	infos, err := NewDriver().Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) == 0 {
		t.Fatal("no device entries")
	}
	if err := Available(); err != nil {
		if !strings.HasPrefix(infos[0].Name, "unavailable: ") {
			t.Fatalf("CUDA is absent (%v) but the listing says %q", err, infos[0].Name)
		}
		if _, err := NewDriver().CreateDevice(0); err == nil || !strings.Contains(err.Error(), LibraryName) {
			t.Fatalf("creating the placeholder device: got %v, want an error naming %s", err, LibraryName)
		}
		t.Logf("listing without CUDA: cuda://0: %s", infos[0].Name)
		return
	}
	t.Logf("cuda devices: %+v", infos)
}

func samplePayload(t testing.TB, names ...string) []byte {
	t.Helper()
	ptx, err := os.ReadFile(filepath.Join("testdata", "kernels_sm_80.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	exe := &cudafb.Executable{Images: []cudafb.Image{{Arch: "sm_80", PTX: string(ptx)}}}
	for _, n := range names {
		ep := cudafb.EntryPoint{Name: n, BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, BindingCount: 3}
		if n == "simple_mul_inplace" {
			ep.BindingCount = 2
		}
		exe.EntryPoints = append(exe.EntryPoints, ep)
	}
	return exe.Marshal()
}

func prepare(t testing.TB, d *Device, data []byte) hal.Executable {
	t.Helper()
	cache, err := d.CreateExecutableCache("test")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := cache.PrepareExecutable(hal.ExecutableParams{Format: Format, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exe.Release() })
	return exe
}

func f32s(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func readF32(t testing.TB, b *hal.Buffer) []float32 {
	t.Helper()
	raw := make([]byte, b.ByteLength())
	if err := b.Read(0, raw); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

func alloc(t testing.TB, d *Device, typ hal.MemoryType, size int64) *hal.Buffer {
	t.Helper()
	b, err := d.Allocator().AllocateBuffer(hal.BufferParams{Type: typ}, size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Release() })
	return b
}

func submit(t testing.TB, d *Device, fn func(cb *hal.CommandBuffer) error) {
	t.Helper()
	cb, err := d.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
	if err != nil {
		t.Fatal(err)
	}
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := fn(cb); err != nil {
		t.Fatal(err)
	}
	if err := cb.End(); err != nil {
		t.Fatal(err)
	}
	if err := hal.SubmitAndWait(d, cb); err != nil {
		t.Fatal(err)
	}
}

// TestTransfers moves data host → device-only memory → host through fill,
// update and copy commands.
func TestTransfers(t *testing.T) {
	d := testDevice(t)
	host := alloc(t, d, 0, 64)
	dev := alloc(t, d, hal.MemoryTypeDeviceLocal, 64)
	back := alloc(t, d, 0, 64)
	if _, err := dev.Map(hal.MemoryAccessRead, 0, 4); err == nil {
		t.Error("mapping device-only memory succeeded")
	}
	if err := host.Write(0, f32s(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)); err != nil {
		t.Fatal(err)
	}
	submit(t, d, func(cb *hal.CommandBuffer) error {
		if err := cb.FillBuffer(dev, 0, 64, []byte{0, 0, 0x80, 0x3f}); err != nil { // 1.0f
			return err
		}
		if err := cb.CopyBuffer(host, 16, dev, 16, 16); err != nil {
			return err
		}
		if err := cb.UpdateBuffer(f32s(-1, -2), dev, 40); err != nil {
			return err
		}
		if err := cb.ExecutionBarrier(); err != nil {
			return err
		}
		return cb.CopyBuffer(dev, 0, back, 0, 64)
	})
	got := fmt.Sprint(readF32(t, back))
	if want := "[1 1 1 1 5 6 7 8 1 1 -1 -2 1 1 1 1]"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestDispatch runs simple_mul with bindings at offsets inside larger
// buffers, then simple_mul_inplace.
func TestDispatch(t *testing.T) {
	d := testDevice(t)
	exe := prepare(t, d, samplePayload(t, "simple_mul", "simple_mul_inplace"))
	const n = 1000
	a, b, c := alloc(t, d, 0, 4*(n+16)), alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*(n+8))
	av, bv := make([]float32, n+16), make([]float32, n)
	for i := range av {
		av[i] = float32(i)
	}
	for i := range bv {
		bv[i] = 0.5
	}
	if err := a.Write(0, f32s(av...)); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(0, f32s(bv...)); err != nil {
		t.Fatal(err)
	}
	sub, err := a.Subspan(32, 4*n) // elements 8..
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Release()
	wg := [3]uint32{(n + 63) / 64, 1, 1}
	submit(t, d, func(cb *hal.CommandBuffer) error {
		if err := cb.FillBuffer(c, 0, hal.WholeBuffer, []byte{0, 0, 0, 0}); err != nil {
			return err
		}
		if err := cb.DispatchWith(exe, 0, wg, []uint32{n}, []hal.Binding{
			{Buffer: sub, Offset: 32, Length: 4 * (n - 8)}, // elements 16..
			{Buffer: b, Offset: 0, Length: 4 * n},
			{Buffer: c, Offset: 16, Length: 4 * n}, // starts at element 4
		}); err != nil {
			return err
		}
		if err := cb.ExecutionBarrier(); err != nil {
			return err
		}
		return cb.DispatchWith(exe, 1, wg, []uint32{n}, []hal.Binding{
			{Buffer: b, Length: 4 * n},
			{Buffer: c, Offset: 16, Length: 4 * n},
		})
	})
	got := readF32(t, c)
	for i := 0; i < n+8; i++ {
		want := float32(0)
		if i >= 4 && i < 4+n {
			// The kernel reads n elements from element 16 of a (the count,
			// not the binding length, bounds it; a holds them all).
			want = float32(i-4+16) * 0.5 * 0.5
		}
		if got[i] != want {
			t.Fatalf("element %d: got %v, want %v", i, got[i], want)
		}
	}
}

func TestMissingExport(t *testing.T) {
	d := testDevice(t)
	cache, _ := d.CreateExecutableCache("test")
	_, err := cache.PrepareExecutable(hal.ExecutableParams{Format: Format, Data: samplePayload(t, "simple_mul", "no_such_kernel")})
	if err == nil || !strings.Contains(err.Error(), "exported module function no_such_kernel not found") {
		t.Fatalf("got %v, want the missing export error", err)
	}
	fmt.Printf("missing export: %v\n", err)
}

func TestBadPTXLog(t *testing.T) {
	d := testDevice(t)
	bad := (&cudafb.Executable{
		Images:      []cudafb.Image{{Arch: "sm_80", PTX: ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tnot_an_instruction;\n\tret;\n}\n"}},
		EntryPoints: []cudafb.EntryPoint{{Name: "k", BlockSize: [3]uint32{1, 1, 1}}},
	}).Marshal()
	cache, _ := d.CreateExecutableCache("test")
	_, err := cache.PrepareExecutable(hal.ExecutableParams{Format: Format, Data: bad})
	if err == nil || !strings.Contains(err.Error(), "JIT log") {
		t.Fatalf("got %v, want an error with the JIT log", err)
	}
	fmt.Printf("bad PTX: %v\n", err)
}

// TestDispatchOverhead measures the host time per dispatch of the HAL path
// (record a command buffer, replay it on the stream) against a raw
// cuLaunchKernel loop in C, over the same kernel and arguments, and the
// round trip of one dispatch submitted and waited for against one raw
// launch and stream synchronize.
func TestDispatchOverhead(t *testing.T) {
	d := testDevice(t)
	exe := prepare(t, d, samplePayload(t, "simple_mul"))
	const n = 256
	a, b, c := alloc(t, d, hal.MemoryTypeDeviceLocal, 4*n), alloc(t, d, hal.MemoryTypeDeviceLocal, 4*n), alloc(t, d, hal.MemoryTypeDeviceLocal, 4*n)
	binds := []hal.Binding{{Buffer: a, Length: 4 * n}, {Buffer: b, Length: 4 * n}, {Buffer: c, Length: 4 * n}}
	wg := [3]uint32{n / 64, 1, 1}
	const count = 20000

	record := func(k int) *hal.CommandBuffer {
		cb, _ := d.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
		cb.Begin()
		for i := 0; i < k; i++ {
			if err := cb.DispatchWith(exe, 0, wg, []uint32{n}, binds); err != nil {
				t.Fatal(err)
			}
		}
		cb.End()
		return cb
	}
	// Warm up both paths.
	if err := hal.SubmitAndWait(d, record(100)); err != nil {
		t.Fatal(err)
	}
	k := exe.(*Executable).kernels[0]
	var ptrs []uint64
	for _, bd := range binds {
		p, _ := bindingPointer(hal.BindingRange{Buffer: bd.Buffer, Length: bd.Length})
		ptrs = append(ptrs, p)
	}
	args, _ := PackKernelArgs(make([]byte, MaxArgBytes), ptrs, []uint32{n})
	if err := launchLoop(d.ctx, k.fn, wg, k.block, k.shared, d.stream, args, 100); err != nil {
		t.Fatal(err)
	}
	streamSynchronize(d.ctx, d.stream)

	start := time.Now()
	if err := launchLoop(d.ctx, k.fn, wg, k.block, k.shared, d.stream, args, count); err != nil {
		t.Fatal(err)
	}
	if err := streamSynchronize(d.ctx, d.stream); err != nil {
		t.Fatal(err)
	}
	raw := time.Since(start)

	start = time.Now()
	cb := record(count)
	recorded := time.Since(start)
	if err := hal.SubmitAndWait(d, cb); err != nil {
		t.Fatal(err)
	}
	halTotal := time.Since(start)

	// Round trips: one dispatch, then wait, repeated.
	const trips = 2000
	one := record(1)
	start = time.Now()
	for i := 0; i < trips; i++ {
		if err := hal.SubmitAndWait(d, one); err != nil {
			t.Fatal(err)
		}
	}
	halTrip := time.Since(start)
	start = time.Now()
	for i := 0; i < trips; i++ {
		if err := launchLoop(d.ctx, k.fn, wg, k.block, k.shared, d.stream, args, 1); err != nil {
			t.Fatal(err)
		}
		if err := streamSynchronize(d.ctx, d.stream); err != nil {
			t.Fatal(err)
		}
	}
	rawTrip := time.Since(start)

	per := func(d time.Duration, k int) float64 { return float64(d.Nanoseconds()) / float64(k) / 1000 }
	fmt.Printf("dispatch overhead (%d dispatches of simple_mul over %d elements):\n", count, n)
	fmt.Printf("  raw cuLaunchKernel loop:            %.2f us/dispatch\n", per(raw, count))
	fmt.Printf("  HAL record+replay+wait:             %.2f us/dispatch (record %.2f us) = %.2fx raw\n", per(halTotal, count), per(recorded, count), float64(halTotal)/float64(raw))
	fmt.Printf("  round trip, raw launch+sync:        %.2f us\n", per(rawTrip, trips))
	fmt.Printf("  round trip, HAL submit-and-wait:    %.2f us = %.2fx raw\n", per(halTrip, trips), float64(halTrip)/float64(rawTrip))
}

func TestAllocatorReuse(t *testing.T) {
	d := testDevice(t)
	a := d.Allocator()
	before := a.Statistics()
	for i := 0; i < 3; i++ {
		b, err := a.AllocateBuffer(hal.BufferParams{}, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Release(); err != nil {
			t.Fatal(err)
		}
	}
	s := a.Statistics()
	if hits := s.PoolHits - before.PoolHits; hits < 2 {
		t.Fatalf("%d pool hits for three same-size allocations, want at least 2 (%+v)", hits, s)
	}
	a.Trim()
	if s := a.Statistics(); s.CachedBytes != 0 {
		t.Fatalf("%d bytes cached after Trim", s.CachedBytes)
	}
}

// TestBandwidth times simple_mul over 64M elements in each memory kind
// against a copy of the same bytes in that memory.
func TestBandwidth(t *testing.T) {
	d := testDevice(t)
	exe := prepare(t, d, samplePayload(t, "simple_mul"))
	const n = 64 << 20
	for _, mem := range []struct {
		name string
		typ  hal.MemoryType
	}{{"device-only", hal.MemoryTypeDeviceLocal}, {"staged (default)", 0}, {"host-local (mapped)", hal.MemoryTypeHostLocal}} {
		a, b, c := alloc(t, d, mem.typ, 4*n), alloc(t, d, mem.typ, 4*n), alloc(t, d, mem.typ, 4*n)
		binds := []hal.Binding{{Buffer: a, Length: 4 * n}, {Buffer: b, Length: 4 * n}, {Buffer: c, Length: 4 * n}}
		mul := func(cb *hal.CommandBuffer) error {
			return cb.DispatchWith(exe, 0, [3]uint32{n / 64, 1, 1}, []uint32{n}, binds)
		}
		cp := func(cb *hal.CommandBuffer) error { return cb.CopyBuffer(a, 0, c, 0, 4*n) }
		submit(t, d, mul)
		submit(t, d, cp)
		best := func(fn func(cb *hal.CommandBuffer) error) time.Duration {
			var m time.Duration
			for i := 0; i < 5; i++ {
				s := time.Now()
				submit(t, d, fn)
				if e := time.Since(s); i == 0 || e < m {
					m = e
				}
			}
			return m
		}
		tm, tc := best(mul), best(cp)
		gbps := func(bytes float64, d time.Duration) float64 { return bytes / d.Seconds() / 1e9 }
		fmt.Printf("bandwidth, %s: simple_mul %d elements %.2f ms = %.0f GB/s; copy %.2f ms = %.0f GB/s; mul/copy = %.2f\n",
			mem.name, n, float64(tm.Microseconds())/1000, gbps(12*n, tm), float64(tc.Microseconds())/1000, gbps(8*n, tc), gbps(12*n, tm)/gbps(8*n, tc))
	}
}

// TestStagedCoherence alternates host writes and device work on staged
// buffers (the default memory): the host sees what the device wrote, and
// the device sees partial host writes merged with its own results.
func TestStagedCoherence(t *testing.T) {
	d := testDevice(t)
	exe := prepare(t, d, samplePayload(t, "simple_mul_inplace"))
	const n = 64
	x, y := alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n)
	ones, twos := make([]float32, n), make([]float32, n)
	for i := range ones {
		ones[i], twos[i] = 1, 2
	}
	if err := x.Write(0, f32s(twos...)); err != nil {
		t.Fatal(err)
	}
	if err := y.Write(0, f32s(ones...)); err != nil {
		t.Fatal(err)
	}
	mul := func(cb *hal.CommandBuffer) error {
		return cb.DispatchWith(exe, 0, [3]uint32{1, 1, 1}, []uint32{n}, []hal.Binding{{Buffer: x, Length: 4 * n}, {Buffer: y, Length: 4 * n}})
	}
	submit(t, d, mul) // y = 2
	if got := readF32(t, y); got[0] != 2 || got[n-1] != 2 {
		t.Fatalf("after one multiply: y[0]=%v y[%d]=%v, want 2", got[0], n-1, got[n-1])
	}
	if err := y.Write(4, f32s(10)); err != nil { // y[1] = 10
		t.Fatal(err)
	}
	submit(t, d, mul) // y = 4, y[1] = 20
	got := readF32(t, y)
	if got[0] != 4 || got[1] != 20 || got[n-1] != 4 {
		t.Fatalf("after the partial write and a second multiply: y[0:2]=%v y[%d]=%v, want [4 20] and 4", got[:2], n-1, got[n-1])
	}
	if s := d.Allocator().Statistics(); s.DeviceBytesAllocated == 0 {
		t.Errorf("staged buffers allocated no device memory: %+v", s)
	}
}

// TestMultiArchPayload loads a payload with PTX for sm_52 and sm_80 (both
// clang-16 builds of the sample's kernels) and a bogus image for sm_120,
// checks that the driver loaded the image SelectImage picks for this
// device (never the sm_120 one on an older device), and runs simple_mul
// from it.
func TestMultiArchPayload(t *testing.T) {
	d := testDevice(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	def := &cudafb.Executable{
		Name: "multi",
		Images: []cudafb.Image{
			{Arch: "sm_52", PTX: read("kernels_sm_52.ptx")},
			{Arch: "sm_80", PTX: read("kernels_sm_80.ptx")},
			{Arch: "sm_120", PTX: "this is not PTX: loading it would fail"},
		},
		EntryPoints: []cudafb.EntryPoint{{Name: "simple_mul", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, BindingCount: 3}},
	}
	want, err := SelectImage(def, d.Arch())
	if err != nil {
		t.Fatalf("device %s: %v", d.Arch(), err)
	}
	exe := prepare(t, d, def.Marshal()).(*Executable)
	if exe.Arch() != def.Images[want].Arch {
		t.Fatalf("loaded the %s image on %s, want %s", exe.Arch(), d.Arch(), def.Images[want].Arch)
	}
	if exe.Arch() == "sm_120" && d.Arch() != "sm_120" {
		t.Fatalf("loaded PTX for sm_120 on %s", d.Arch())
	}
	fmt.Printf("multi-arch payload (sm_52, sm_80, sm_120) on %s: loaded %s\n", d.Arch(), exe.Arch())
	const n = 100
	a, b, c := alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n)
	av, bv := make([]float32, n), make([]float32, n)
	for i := range av {
		av[i], bv[i] = float32(i), 3
	}
	if err := a.Write(0, f32s(av...)); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(0, f32s(bv...)); err != nil {
		t.Fatal(err)
	}
	submit(t, d, func(cb *hal.CommandBuffer) error {
		return cb.DispatchWith(exe, 0, [3]uint32{(n + 63) / 64, 1, 1}, []uint32{n}, []hal.Binding{
			{Buffer: a, Length: 4 * n}, {Buffer: b, Length: 4 * n}, {Buffer: c, Length: 4 * n},
		})
	})
	for i, g := range readF32(t, c) {
		if w := av[i] * bv[i]; g != w {
			t.Fatalf("element %d: got %v, want %v", i, g, w)
		}
	}
}

// TestLegacyPayloadOnDevice loads the payload an older compiler wrote
// (one ptx_image, no name; see TestLegacyPayload) and runs simple_mul.
func TestLegacyPayloadOnDevice(t *testing.T) {
	d := testDevice(t)
	data, err := os.ReadFile(filepath.Join("testdata", "legacy_sm_80.cudafb"))
	if err != nil {
		t.Fatal(err)
	}
	exe := prepare(t, d, data).(*Executable)
	if exe.Arch() != "sm_80" {
		t.Fatalf("loaded arch %q, want sm_80", exe.Arch())
	}
	const n = 64
	a, b, c := alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n)
	av := make([]float32, n)
	for i := range av {
		av[i] = float32(i)
	}
	if err := a.Write(0, f32s(av...)); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(0, f32s(av...)); err != nil {
		t.Fatal(err)
	}
	submit(t, d, func(cb *hal.CommandBuffer) error {
		return cb.DispatchWith(exe, 0, [3]uint32{1, 1, 1}, []uint32{n}, []hal.Binding{
			{Buffer: a, Length: 4 * n}, {Buffer: b, Length: 4 * n}, {Buffer: c, Length: 4 * n},
		})
	})
	for i, g := range readF32(t, c) {
		if w := av[i] * av[i]; g != w {
			t.Fatalf("element %d: got %v, want %v", i, g, w)
		}
	}
}

// TestNoRunnableImage: a payload whose only image is for a newer
// architecture than the device fails with the error naming them.
func TestNoRunnableImage(t *testing.T) {
	d := testDevice(t)
	def := &cudafb.Executable{
		Name:        "too_new",
		Images:      []cudafb.Image{{Arch: "sm_990", PTX: "never loaded"}},
		EntryPoints: []cudafb.EntryPoint{{Name: "k", BlockSize: [3]uint32{1, 1, 1}}},
	}
	cache, _ := d.CreateExecutableCache("test")
	_, err := cache.PrepareExecutable(hal.ExecutableParams{Format: Format, Data: def.Marshal()})
	want := "cuda executable @too_new has PTX for sm_990 only, none of which runs on this " + d.Arch() + " device"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error containing %q", err, want)
	}
	fmt.Printf("no runnable image: %v\n", err)
}
