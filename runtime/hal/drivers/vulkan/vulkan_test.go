package vulkan_test

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

var (
	benchElements = flag.Int("vulkan.elements", 1<<20, "elements per buffer in the simple_mul and copy benchmarks")
	benchCheck    = flag.Bool("vulkan.check", true, "check the simple_mul benchmark's result")
)

// device returns a Vulkan device, skipping the test where none exists.
func device(t testing.TB) *vulkan.Device {
	t.Helper()
	return deviceWith(t, vulkan.DeviceOptions{})
}

// hostAccesses are the ways of backing host-accessible buffers that the
// transfer and dispatch tests run under.
var hostAccesses = []vulkan.HostAccess{vulkan.HostDefault, vulkan.HostMapped, vulkan.HostStaged}

// deviceWith returns a Vulkan device with options o, skipping the test
// where none exists.
func deviceWith(t testing.TB, o vulkan.DeviceOptions) *vulkan.Device {
	t.Helper()
	if err := vulkan.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	infos, err := vulkan.NewDriver().Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) == 0 {
		t.Skip("skipping: the Vulkan loader found no physical device (install mesa-vulkan-drivers for lavapipe)")
	}
	d, err := vulkan.NewDeviceWith(0, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// glslc compiles testdata/<name>.glsl to SPIR-V words.
func glslc(t testing.TB, name string) []uint32 {
	t.Helper()
	tool, err := exec.LookPath("glslc")
	if err != nil {
		t.Skipf("skipping: glslc not found on PATH (it builds the test shaders): %v", err)
	}
	out := filepath.Join(t.TempDir(), name+".spv")
	if msg, err := exec.Command(tool, "-fshader-stage=compute", "-o", out, filepath.Join("testdata", name+".glsl")).CombinedOutput(); err != nil {
		t.Fatalf("glslc %s: %v\n%s", name, err, msg)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	words := make([]uint32, len(raw)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return words
}

func prepare(t testing.TB, d hal.Device, e *spirv.Executable) (hal.Executable, error) {
	t.Helper()
	cache, err := d.CreateExecutableCache("test")
	if err != nil {
		t.Fatal(err)
	}
	if !cache.CanPrepareFormat(spirv.Format) {
		t.Fatalf("cache cannot prepare %s", spirv.Format)
	}
	return cache.PrepareExecutable(hal.ExecutableParams{Format: spirv.Format, Data: e.Marshal()})
}

func simpleMul(t testing.TB, d hal.Device) hal.Executable {
	t.Helper()
	exe, err := prepare(t, d, &spirv.Executable{
		EntryPoints: []spirv.EntryPoint{{Name: "main", ConstantCount: 1, BindingCount: 3}},
		Code:        glslc(t, "simple_mul"),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exe.Release() })
	return exe
}

func alloc(t testing.TB, d hal.Device, typ hal.MemoryType, size int64) *hal.Buffer {
	t.Helper()
	b, err := d.Allocator().AllocateBuffer(hal.BufferParams{Type: typ}, size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Release() })
	return b
}

func submit(t testing.TB, d hal.Device, record func(cb *hal.CommandBuffer) error) error {
	t.Helper()
	cb, err := d.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
	if err != nil {
		t.Fatal(err)
	}
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := record(cb); err != nil {
		return err
	}
	if err := cb.End(); err != nil {
		t.Fatal(err)
	}
	return hal.SubmitAndWait(d, cb)
}

func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func floatBytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func TestDevicesAndQueries(t *testing.T) {
	d := device(t)
	infos, err := vulkan.NewDriver().Devices()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		t.Logf("vulkan://%d: %s", in.Index, in.Name)
	}
	if got, err := d.QueryI64("hal.executable.format", spirv.Format); err != nil || got != 1 {
		t.Errorf("query format %s = %d, %v; want 1", spirv.Format, got, err)
	}
	if got, _ := d.QueryI64("hal.executable.format", "embedded-elf-x86_64"); got != 0 {
		t.Errorf("query embedded-elf-x86_64 = %d, want 0", got)
	}
	if got, _ := d.QueryI64("hal.device.id", "vulkan*"); got != 1 {
		t.Errorf("query id vulkan* = %d, want 1", got)
	}
	if _, err := vulkan.NewDevice(len(infos)); status.CodeOf(err) != status.NotFound {
		t.Errorf("NewDevice(%d) = %v, want NOT_FOUND", len(infos), err)
	}
	r := &hal.Registry{}
	if err := r.Register(vulkan.NewDriver()); err != nil {
		t.Fatal(err)
	}
	dev, err := r.CreateDevice("vulkan://0")
	if err != nil {
		t.Fatal(err)
	}
	dev.Close()
}

// TestTransfers fills, updates and copies host-visible and device-only
// buffers (aligned through vkCmdFillBuffer, unaligned through staging) and
// checks the bytes.
func TestTransfers(t *testing.T) {
	for _, h := range hostAccesses {
		t.Run(h.String(), func(t *testing.T) { testTransfers(t, deviceWith(t, vulkan.DeviceOptions{Host: h})) })
	}
}

func testTransfers(t *testing.T, d *vulkan.Device) {
	for _, tc := range []struct {
		name string
		typ  hal.MemoryType
	}{{"default", 0}, {"device_local", hal.MemoryTypeDeviceLocal}} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 1 << 12
			work := alloc(t, d, tc.typ, n)
			host := alloc(t, d, 0, n)
			if tc.typ == 0 && work.MemoryType()&hal.MemoryTypeHostVisible == 0 {
				t.Fatalf("default buffer memory %v is not host-visible", work.MemoryType())
			}
			want := make([]byte, n)
			err := submit(t, d, func(cb *hal.CommandBuffer) error {
				steps := []func() error{
					func() error { return cb.FillBuffer(work, 0, n, []byte{0xAB}) },
					func() error { return cb.FillBuffer(work, 4, 64, []byte{1, 2, 3, 4}) },
					func() error { return cb.FillBuffer(work, 102, 10, []byte{7, 8}) },
					func() error { return cb.FillBuffer(work, 301, 3, []byte{9}) },
					func() error { return cb.FillBuffer(work, 3201, 333, []byte{0x5A}) },
					func() error { return cb.FillBuffer(work, 3602, 402, []byte{0xC1, 0xC2}) },
					func() error { return cb.UpdateBuffer([]byte("hello, vulkan"), work, 1001) },
					func() error { return cb.CopyBuffer(work, 0, work, 2048, 1024) },
					func() error { return cb.ExecutionBarrier() },
					func() error { return cb.CopyBuffer(work, 0, host, 0, n) },
				}
				for _, s := range steps {
					if err := s(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			hal.FillBytes(want, []byte{0xAB})
			hal.FillBytes(want[4:68], []byte{1, 2, 3, 4})
			hal.FillBytes(want[102:112], []byte{7, 8})
			hal.FillBytes(want[301:304], []byte{9})
			hal.FillBytes(want[3201:3534], []byte{0x5A})
			hal.FillBytes(want[3602:4004], []byte{0xC1, 0xC2})
			copy(want[1001:], "hello, vulkan")
			copy(want[2048:3072], want[0:1024])
			got := make([]byte, n)
			if err := host.Read(0, got); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("byte %d = %#x, want %#x", i, got[i], want[i])
				}
			}
			if work.MemoryType()&hal.MemoryTypeHostVisible == 0 {
				if err := work.Read(0, got); err == nil {
					t.Errorf("reading a device-only buffer succeeded; want an error")
				}
			}
		})
	}
}

// TestDispatch runs the glslc-built simple_mul over sizes that fill
// workgroups partly, through a device-local working set staged by copies.
func TestDispatch(t *testing.T) {
	for _, h := range hostAccesses {
		t.Run(h.String(), func(t *testing.T) { testDispatch(t, deviceWith(t, vulkan.DeviceOptions{Host: h})) })
	}
}

func testDispatch(t *testing.T, d *vulkan.Device) {
	exe := simpleMul(t, d)
	if ex := exe.Exports(); len(ex) != 1 || ex[0].Name != "main" || ex[0].ConstantCount != 1 || ex[0].BindingCount != 3 {
		t.Fatalf("exports = %+v", ex)
	}
	for _, n := range []int{1, 63, 64, 1000, 100000} {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(i%97), float32(i%13)-3
		}
		size := int64(4 * n)
		in0, in1, out := alloc(t, d, 0, size), alloc(t, d, hal.MemoryTypeDeviceLocal, size), alloc(t, d, 0, size)
		if err := in0.Write(0, floatBytes(a...)); err != nil {
			t.Fatal(err)
		}
		stage := alloc(t, d, 0, size)
		if err := stage.Write(0, floatBytes(b...)); err != nil {
			t.Fatal(err)
		}
		err := submit(t, d, func(cb *hal.CommandBuffer) error {
			if err := cb.CopyBuffer(stage, 0, in1, 0, size); err != nil {
				return err
			}
			return cb.DispatchWith(exe, 0, [3]uint32{uint32((n + 63) / 64), 1, 1}, []uint32{uint32(n)},
				[]hal.Binding{{Buffer: in0, Length: hal.WholeBuffer}, {Buffer: in1, Length: hal.WholeBuffer}, {Buffer: out, Length: hal.WholeBuffer}})
		})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		raw := make([]byte, size)
		if err := out.Read(0, raw); err != nil {
			t.Fatal(err)
		}
		for i, v := range floats(raw) {
			if v != a[i]*b[i] {
				t.Fatalf("n=%d: element %d = %v, want %v", n, i, v, a[i]*b[i])
			}
		}
	}
}

// TestSemaphores checks that a submission waits for its wait fence and
// signals its signal fence.
func TestSemaphores(t *testing.T) {
	d := device(t)
	buf := alloc(t, d, 0, 16)
	cb, _ := d.CreateCommandBuffer(0, 0)
	cb.Begin()
	if err := cb.FillBuffer(buf, 0, 16, []byte{5, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	cb.End()
	wait, _ := d.CreateSemaphore(0)
	signal, _ := d.CreateSemaphore(0)
	done := make(chan error, 1)
	go func() {
		done <- d.QueueExecute(hal.NewFence(hal.SemaphorePoint{Semaphore: wait, Value: 1}), hal.NewFence(hal.SemaphorePoint{Semaphore: signal, Value: 7}), []*hal.CommandBuffer{cb})
	}()
	time.Sleep(20 * time.Millisecond)
	if v, _ := signal.Value(); v != 0 {
		t.Fatalf("signal reached %d before the wait fence", v)
	}
	wait.Signal(1)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := signal.Wait(7, time.Second); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 16)
	buf.Read(0, got)
	if got[0] != 5 || got[12] != 5 {
		t.Errorf("buffer = %v", got)
	}
}

func TestErrors(t *testing.T) {
	d := device(t)
	code := glslc(t, "simple_mul")
	exe := simpleMul(t, d)
	buf := alloc(t, d, 0, 256)
	local, err := hal.NewHostAllocator(0).AllocateBuffer(hal.BufferParams{}, 256)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func() error
		code status.Code
		want string
	}{
		{"missing entry point", func() error {
			_, err := prepare(t, d, &spirv.Executable{EntryPoints: []spirv.EntryPoint{{Name: "simple_mul", ConstantCount: 1, BindingCount: 3}}, Code: code})
			return err
		}, status.NotFound, `SPIR-V module has no GLCompute entry point "simple_mul" for export 0 (it has: "main")`},
		{"bad payload", func() error {
			cache, _ := d.CreateExecutableCache("")
			_, err := cache.PrepareExecutable(hal.ExecutableParams{Format: spirv.Format, Data: []byte("not a flatbuffer")})
			return err
		}, status.InvalidArgument, "preparing vulkan executable"},
		{"wrong format", func() error {
			cache, _ := d.CreateExecutableCache("")
			_, err := cache.PrepareExecutable(hal.ExecutableParams{Format: "embedded-elf-x86_64"})
			return err
		}, status.InvalidArgument, `vulkan cannot prepare executable format "embedded-elf-x86_64"`},
		{"truncated code", func() error {
			_, err := prepare(t, d, &spirv.Executable{EntryPoints: []spirv.EntryPoint{{Name: "main"}}, Code: append(append([]uint32(nil), code[:5]...), 0x00ff0011)})
			return err
		}, status.InvalidArgument, "bad length"},
		{"binding count", func() error {
			return submit(t, d, func(cb *hal.CommandBuffer) error {
				return cb.DispatchWith(exe, 0, [3]uint32{1, 1, 1}, []uint32{4}, []hal.Binding{{Buffer: buf, Length: 16}})
			})
		}, status.InvalidArgument, "expects 3 binding(s) but 1 were provided"},
		{"foreign buffer", func() error {
			return submit(t, d, func(cb *hal.CommandBuffer) error { return cb.FillBuffer(local, 0, 16, []byte{1}) })
		}, status.InvalidArgument, "was not allocated by a vulkan device"},
		{"unaligned binding", func() error {
			return submit(t, d, func(cb *hal.CommandBuffer) error {
				return cb.DispatchWith(exe, 0, [3]uint32{1, 1, 1}, []uint32{1}, []hal.Binding{{Buffer: buf, Offset: 4, Length: 16}, {Buffer: buf, Length: 16}, {Buffer: buf, Offset: 64, Length: 16}})
			})
		}, status.InvalidArgument, "minStorageBufferOffsetAlignment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil {
				t.Fatalf("no error; want %v %q", tc.code, tc.want)
			}
			if status.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v; want %v containing %q", err, tc.code, tc.want)
			}
		})
	}
	if err := exe.Release(); err != nil {
		t.Fatal(err)
	}
	var se *status.Error
	if err := exe.Release(); !errors.As(err, &se) {
		t.Errorf("second release = %v, want a status error", err)
	}
}

// benchReps is how many commands one benchmark submission records, so
// that the submission's fixed cost is spread.
const benchReps = 10

// BenchmarkSimpleMul measures simple_mul over -vulkan.elements elements in
// device-local buffers: GB/s counts the 12 bytes each element moves.
func BenchmarkSimpleMul(b *testing.B) {
	d := device(b)
	exe := simpleMul(b, d)
	n := *benchElements
	size := int64(4 * n)
	bufs := []*hal.Buffer{alloc(b, d, hal.MemoryTypeDeviceLocal, size), alloc(b, d, hal.MemoryTypeDeviceLocal, size), alloc(b, d, hal.MemoryTypeDeviceLocal, size)}
	if err := submit(b, d, func(cb *hal.CommandBuffer) error {
		if err := cb.FillBuffer(bufs[0], 0, size, floatBytes(3)); err != nil {
			return err
		}
		return cb.FillBuffer(bufs[1], 0, size, floatBytes(5))
	}); err != nil {
		b.Fatal(err)
	}
	bindings := []hal.Binding{{Buffer: bufs[0], Length: size}, {Buffer: bufs[1], Length: size}, {Buffer: bufs[2], Length: size}}
	cb, _ := d.CreateCommandBuffer(0, 0)
	cb.Begin()
	for r := 0; r < benchReps; r++ {
		if err := cb.DispatchWith(exe, 0, [3]uint32{uint32((n + 63) / 64), 1, 1}, []uint32{uint32(n)}, bindings); err != nil {
			b.Fatal(err)
		}
	}
	cb.End()
	if err := hal.SubmitAndWait(d, cb); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(12 * int64(n) * benchReps)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := hal.SubmitAndWait(d, cb); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds() / float64(b.N*benchReps)
	b.ReportMetric(12*float64(n)/sec/1e9, "GB/s")
	b.ReportMetric(float64(n)/sec/1e9, "Gelem/s")
	if *benchCheck {
		got := make([]byte, 16)
		host := alloc(b, d, 0, 16)
		if err := submit(b, d, func(cb *hal.CommandBuffer) error { return cb.CopyBuffer(bufs[2], size-16, host, 0, 16) }); err != nil {
			b.Fatal(err)
		}
		host.Read(0, got)
		for _, v := range floats(got) {
			if v != 15 {
				b.Fatalf("simple_mul result %v, want 15", v)
			}
		}
	}
}

// BenchmarkCopy measures device-local to device-local buffer copies of
// 4 * -vulkan.elements bytes: GB/s counts bytes read plus bytes written.
func BenchmarkCopy(b *testing.B) {
	d := device(b)
	size := int64(4 * *benchElements)
	src, dst := alloc(b, d, hal.MemoryTypeDeviceLocal, size), alloc(b, d, hal.MemoryTypeDeviceLocal, size)
	if err := submit(b, d, func(cb *hal.CommandBuffer) error { return cb.FillBuffer(src, 0, size, []byte{1, 2, 3, 4}) }); err != nil {
		b.Fatal(err)
	}
	cb, _ := d.CreateCommandBuffer(0, 0)
	cb.Begin()
	for r := 0; r < benchReps; r++ {
		if err := cb.CopyBuffer(src, 0, dst, 0, size); err != nil {
			b.Fatal(err)
		}
	}
	cb.End()
	if err := hal.SubmitAndWait(d, cb); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(2 * size * benchReps)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := hal.SubmitAndWait(d, cb); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds() / float64(b.N*benchReps)
	b.ReportMetric(2*float64(size)/sec/1e9, "GB/s")
}

// TestConcurrentSubmissions submits from several goroutines at once, each
// on its own buffers; the queue is shared (run with -race).
func TestConcurrentSubmissions(t *testing.T) {
	d := device(t)
	exe := simpleMul(t, d)
	const workers, rounds, n = 4, 10, 256
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		a, b, c := alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n)
		go func(w int) {
			for r := 0; r < rounds; r++ {
				va, vb := float32(w+1), float32(r+1)
				err := submit(t, d, func(cb *hal.CommandBuffer) error {
					if err := cb.FillBuffer(a, 0, 4*n, floatBytes(va)); err != nil {
						return err
					}
					if err := cb.FillBuffer(b, 0, 4*n, floatBytes(vb)); err != nil {
						return err
					}
					return cb.DispatchWith(exe, 0, [3]uint32{n / 64, 1, 1}, []uint32{n},
						[]hal.Binding{{Buffer: a, Length: 4 * n}, {Buffer: b, Length: 4 * n}, {Buffer: c, Length: 4 * n}})
				})
				if err != nil {
					errs <- err
					return
				}
				got := make([]byte, 4*n)
				if err := c.Read(0, got); err != nil {
					errs <- err
					return
				}
				for i, v := range floats(got) {
					if v != va*vb {
						errs <- fmt.Errorf("worker %d round %d: element %d = %v, want %v", w, r, i, v, va*vb)
						return
					}
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestStaged checks staged buffers (HostStaged) where host and device take
// turns: host writes reach the next submission, device writes reach the
// next host read, a second host write after a submission is uploaded
// again, and a released buffer reused from the cache works the same.
func TestStaged(t *testing.T) {
	d := deviceWith(t, vulkan.DeviceOptions{Host: vulkan.HostStaged})
	if d.HostAccess() != vulkan.HostStaged {
		t.Fatalf("HostAccess() = %v, want staged", d.HostAccess())
	}
	exe := simpleMul(t, d)
	const n = 1000
	size := int64(4 * n)
	lhs, rhs := alloc(t, d, 0, size), alloc(t, d, 0, size)
	if info, err := vulkan.BufferInfo(lhs); err != nil || !strings.Contains(info, "staged through a mirror") {
		t.Errorf("BufferInfo of a staged buffer: %q, %v", info, err)
	}
	if lhs.MemoryType()&hal.MemoryTypeHostVisible == 0 {
		t.Fatalf("staged buffer memory %v is not host-visible", lhs.MemoryType())
	}
	run := func(out *hal.Buffer, a, b float32) {
		t.Helper()
		if err := lhs.Write(0, floatBytes(repeat(a, n)...)); err != nil {
			t.Fatal(err)
		}
		if err := rhs.Fill(0, size, floatBytes(b)); err != nil {
			t.Fatal(err)
		}
		err := submit(t, d, func(cb *hal.CommandBuffer) error {
			return cb.DispatchWith(exe, 0, [3]uint32{(n + 63) / 64, 1, 1}, []uint32{n},
				[]hal.Binding{{Buffer: lhs, Length: size}, {Buffer: rhs, Length: size}, {Buffer: out, Length: size}})
		})
		if err != nil {
			t.Fatal(err)
		}
		for pass := 0; pass < 2; pass++ { // the second read needs no download
			raw := make([]byte, size)
			if err := out.Read(0, raw); err != nil {
				t.Fatal(err)
			}
			for i, v := range floats(raw) {
				if v != a*b {
					t.Fatalf("%v * %v: element %d = %v (read %d)", a, b, i, v, pass)
				}
			}
		}
	}
	out := alloc(t, d, 0, size)
	run(out, 2, 4)
	run(out, 3, 5) // the host rewrites the inputs after a submission
	// A device write, then a host read-modify-write, then a device copy.
	err := submit(t, d, func(cb *hal.CommandBuffer) error { return cb.FillBuffer(lhs, 0, size, floatBytes(7)) })
	if err != nil {
		t.Fatal(err)
	}
	m, err := lhs.Map(hal.MemoryAccessRead|hal.MemoryAccessWrite, 0, 8)
	if err != nil {
		t.Fatal(err)
	}
	if got := floats(m.Bytes()); got[0] != 7 || got[1] != 7 {
		t.Fatalf("after a device fill the host reads %v, want 7s", got)
	}
	copy(m.Bytes(), floatBytes(9))
	if err := m.Unmap(); err != nil {
		t.Fatal(err)
	}
	if err := submit(t, d, func(cb *hal.CommandBuffer) error { return cb.CopyBuffer(lhs, 0, rhs, 0, size) }); err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 8)
	if err := rhs.Read(0, raw); err != nil {
		t.Fatal(err)
	}
	if got := floats(raw); got[0] != 9 || got[1] != 7 {
		t.Fatalf("copied buffer starts %v, want [9 7]", got)
	}
	// Released and reused from the cache.
	if err := out.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := d.Allocator().AllocateBuffer(hal.BufferParams{}, size)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Release()
	if info, _ := vulkan.BufferInfo(again); !strings.Contains(info, "reused") {
		t.Errorf("BufferInfo after reuse: %q", info)
	}
	run(again, 6, 0.5)
}

func repeat(v float32, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestDeviceFeatureChecks prepares executables that ask more of the device
// than simple_mul: simple_mul with its workgroup widened past
// maxComputeWorkGroupSize, which must fail naming the limit and the
// executable, and f64_mul, which needs shaderFloat64: it must run (the
// driver enabled the feature) where the device lists the feature and fail
// naming it where the device lacks it.
func TestDeviceFeatureChecks(t *testing.T) {
	d := device(t)
	t.Logf("device features: %v", d.Features())
	cache, err := d.CreateExecutableCache("test")
	if err != nil {
		t.Fatal(err)
	}
	code := glslc(t, "simple_mul")
	wide := append([]uint32(nil), code...)
	patched := false
	for i := 5; i < len(wide); {
		n := int(wide[i] >> 16)
		switch {
		case wide[i] == 6<<16|16 && wide[i+2] == 17:
			// OpExecutionMode %main LocalSize 64 1 1
			wide[i+3], patched = 1<<20, true
		case wide[i] == 4<<16|71 && wide[i+2] == 11 && wide[i+3] == 25:
			// OpDecorate %gl_WorkGroupSize BuiltIn WorkgroupSize, which
			// would override LocalSize: four OpNops.
			for k := 0; k < 4; k++ {
				wide[i+k] = 1 << 16
			}
		}
		i += n
	}
	if !patched {
		t.Fatal("simple_mul's SPIR-V has no LocalSize execution mode")
	}
	exe := &spirv.Executable{EntryPoints: []spirv.EntryPoint{{Name: "main", ConstantCount: 1, BindingCount: 3}}, Code: wide}
	_, err = cache.PrepareExecutable(hal.ExecutableParams{Name: "@wide::@vulkan", Format: spirv.Format, Data: exe.Marshal()})
	want := `preparing vulkan executable @wide::@vulkan: entry point "main" has workgroup size [1048576 1 1] (1048576 invocations), beyond device`
	if status.CodeOf(err) != status.OutOfRange || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "maxComputeWorkGroupSize") {
		t.Errorf("wide workgroup: error %v, want OutOfRange containing %q", err, want)
	}

	exe = &spirv.Executable{EntryPoints: []spirv.EntryPoint{{Name: "main", ConstantCount: 1, BindingCount: 3}}, Code: glslc(t, "f64_mul")}
	f64, err := cache.PrepareExecutable(hal.ExecutableParams{Name: "@f64::@vulkan", Format: spirv.Format, Data: exe.Marshal()})
	hasF64 := strings.Contains(strings.Join(d.Features(), " "), "shaderFloat64")
	if !hasF64 {
		want := "preparing vulkan executable @f64::@vulkan: its SPIR-V declares capability Float64, which needs the device feature shaderFloat64"
		if status.CodeOf(err) != status.Unimplemented || err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("f64 without shaderFloat64: error %v, want Unimplemented containing %q", err, want)
		}
		return
	}
	if err != nil {
		t.Fatalf("f64 with shaderFloat64: %v", err)
	}
	defer f64.Release()
	const n = 1000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i)*1.37, float32(i%13)-3.3
	}
	in0, in1, out := alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n), alloc(t, d, 0, 4*n)
	if err := in0.Write(0, floatBytes(a...)); err != nil {
		t.Fatal(err)
	}
	if err := in1.Write(0, floatBytes(b...)); err != nil {
		t.Fatal(err)
	}
	err = submit(t, d, func(cb *hal.CommandBuffer) error {
		return cb.DispatchWith(f64, 0, [3]uint32{(n + 63) / 64, 1, 1}, []uint32{n},
			[]hal.Binding{{Buffer: in0, Length: hal.WholeBuffer}, {Buffer: in1, Length: hal.WholeBuffer}, {Buffer: out, Length: hal.WholeBuffer}})
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 4*n)
	if err := out.Read(0, raw); err != nil {
		t.Fatal(err)
	}
	for i, v := range floats(raw) {
		// Rounded once, from the double quotient: not what f32
		// arithmetic gives for most elements.
		if want := float32(float64(a[i]) * float64(b[i]) / 3); v != want {
			t.Fatalf("element %d = %v, want %v", i, v, want)
		}
	}
}
