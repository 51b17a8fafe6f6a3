package drivers_test

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
)

// forEachDevice runs body once per local driver: the same conformance
// checks hold for inline and task execution.
func forEachDevice(t *testing.T, body func(t *testing.T, dev hal.Device)) {
	makers := []struct {
		name string
		make func() (hal.Device, error)
	}{
		{"local-sync", func() (hal.Device, error) { return localsync.NewDevice() }},
		{"local-task", func() (hal.Device, error) { return localtask.NewDevice(localtask.Options{GroupCount: 3}) }},
		{"local-task-batch1", func() (hal.Device, error) {
			return localtask.NewDevice(localtask.Options{GroupCount: 2, TilesPerReservation: 1})
		}},
	}
	for _, m := range makers {
		t.Run(m.name, func(t *testing.T) {
			dev, err := m.make()
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			body(t, dev)
		})
	}
}

func prepareMul(t *testing.T, dev hal.Device, so []byte) hal.Executable {
	t.Helper()
	cache, err := dev.CreateExecutableCache("test")
	if err != nil {
		t.Fatal(err)
	}
	if !cache.CanPrepareFormat(local.FormatEmbeddedELFX86_64) {
		t.Fatal("cache cannot prepare embedded-elf-x86_64")
	}
	exe, err := cache.PrepareExecutable(hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: so})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exe.Release() })
	return exe
}

func alloc(t testing.TB, dev hal.Device, size int64) *hal.Buffer {
	t.Helper()
	b, err := dev.Allocator().AllocateBuffer(hal.BufferParams{}, size)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func record(t testing.TB, dev hal.Device, fn func(cb *hal.CommandBuffer) error) *hal.CommandBuffer {
	t.Helper()
	cb, err := dev.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
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
	return cb
}

func putF32(b *hal.Buffer, vals func(i int) float32, n int) error {
	raw := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(vals(i)))
	}
	return b.Write(0, raw)
}

func getF32(t testing.TB, b *hal.Buffer, n int) []float32 {
	raw := make([]byte, 4*n)
	if err := b.Read(0, raw); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

func TestTransferCommands(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev hal.Device) {
		a, b := alloc(t, dev, 64), alloc(t, dev, 64)
		cb := record(t, dev, func(cb *hal.CommandBuffer) error {
			if err := cb.FillBuffer(a, 0, 64, []byte{1, 2, 3, 4}); err != nil {
				return err
			}
			if err := cb.UpdateBuffer([]byte{9, 9}, a, 6); err != nil {
				return err
			}
			if err := cb.ExecutionBarrier(); err != nil {
				return err
			}
			if err := cb.FillBuffer(b, 0, 64, []byte{0}); err != nil {
				return err
			}
			return cb.CopyBuffer(a, 4, b, 8, 8)
		})
		if err := hal.SubmitAndWait(dev, cb); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 20)
		b.Read(0, got)
		want := []byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 9, 9, 1, 2, 3, 4, 0, 0, 0, 0}
		if string(got) != string(want) {
			t.Errorf("b = %v, want %v", got, want)
		}
	})
}

func TestSimpleMulMillion(t *testing.T) {
	so := kerneltest.MulLibrary(t)
	const n = 1_000_003
	forEachDevice(t, func(t *testing.T, dev hal.Device) {
		exe := prepareMul(t, dev, so)
		a, b, c := alloc(t, dev, 4*n), alloc(t, dev, 4*n), alloc(t, dev, 4*n)
		putF32(a, func(i int) float32 { return float32(i % 1000) }, n)
		putF32(b, func(i int) float32 { return float32(i%7) + 0.5 }, n)
		cb := record(t, dev, func(cb *hal.CommandBuffer) error {
			if err := cb.FillBuffer(c, 0, hal.WholeBuffer, []byte{0xFF}); err != nil {
				return err
			}
			if err := cb.ExecutionBarrier(); err != nil {
				return err
			}
			return cb.DispatchWith(exe, kerneltest.SimpleMul, [3]uint32{(n + 63) / 64, 1, 1}, []uint32{n},
				[]hal.Binding{{Buffer: a, Length: hal.WholeBuffer}, {Buffer: b, Length: hal.WholeBuffer}, {Buffer: c, Length: hal.WholeBuffer}})
		})
		if err := hal.SubmitAndWait(dev, cb); err != nil {
			t.Fatal(err)
		}
		out := getF32(t, c, n)
		for i, v := range out {
			if want := float32(i%1000) * (float32(i%7) + 0.5); v != want {
				t.Fatalf("c[%d] = %v, want %v", i, v, want)
			}
		}
	})
}

func TestFirstErrorWins(t *testing.T) {
	so := kerneltest.MulLibrary(t)
	forEachDevice(t, func(t *testing.T, dev hal.Device) {
		exe := prepareMul(t, dev, so)
		const count = 5000
		marks := alloc(t, dev, 4*count)
		marks.Fill(0, hal.WholeBuffer, []byte{0})
		after := alloc(t, dev, 16)
		after.Fill(0, hal.WholeBuffer, []byte{0})
		cb := record(t, dev, func(cb *hal.CommandBuffer) error {
			if err := cb.DispatchWith(exe, kerneltest.FailAt, [3]uint32{count, 1, 1}, []uint32{17}, []hal.Binding{{Buffer: marks, Length: hal.WholeBuffer}}); err != nil {
				return err
			}
			// Must not run: the failed dispatch ends the command buffer.
			return cb.FillBuffer(after, 0, 16, []byte{0xAA})
		})
		err := hal.SubmitAndWait(dev, cb)
		if err == nil || !strings.Contains(err.Error(), `dispatch of export 1 ("fail_at") failed with status 7 at workgroup (17, 0, 0)`) {
			t.Fatalf("error = %v", err)
		}
		got := make([]byte, 1)
		after.Read(0, got)
		if got[0] != 0 {
			t.Error("command after the failed dispatch ran")
		}
	})
}

func TestGridAndZeroCounts(t *testing.T) {
	so := kerneltest.MulLibrary(t)
	forEachDevice(t, func(t *testing.T, dev hal.Device) {
		exe := prepareMul(t, dev, so)
		wg := [3]uint32{7, 5, 3}
		out := alloc(t, dev, 4*7*5*3)
		out.Fill(0, hal.WholeBuffer, []byte{0xFF})
		cb := record(t, dev, func(cb *hal.CommandBuffer) error {
			if err := cb.DispatchWith(exe, kerneltest.GridIDs, wg, nil, []hal.Binding{{Buffer: out, Length: hal.WholeBuffer}}); err != nil {
				return err
			}
			// Zero counts are valid and run nothing (fail_at would fail at 0).
			return cb.DispatchWith(exe, kerneltest.FailAt, [3]uint32{0, 1, 1}, []uint32{0}, []hal.Binding{{Buffer: out, Length: 4}})
		})
		if err := hal.SubmitAndWait(dev, cb); err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, 4*7*5*3)
		out.Read(0, raw)
		for z := uint32(0); z < 3; z++ {
			for y := uint32(0); y < 5; y++ {
				for x := uint32(0); x < 7; x++ {
					flat := (z*5+y)*7 + x
					if got, want := binary.LittleEndian.Uint32(raw[4*flat:]), x|y<<10|z<<20; got != want {
						t.Fatalf("workgroup (%d,%d,%d) wrote %#x, want %#x", x, y, z, got, want)
					}
				}
			}
		}
	})
}

func TestConcurrentSubmissions(t *testing.T) {
	so := kerneltest.MulLibrary(t)
	forEachDevice(t, func(t *testing.T, dev hal.Device) {
		exe := prepareMul(t, dev, so)
		var wg sync.WaitGroup
		errs := make(chan error, 12)
		for g := 0; g < 12; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				n := 1000 + 517*g
				a, b, c := alloc(t, dev, int64(4*n)), alloc(t, dev, int64(4*n)), alloc(t, dev, int64(4*n))
				for r := 0; r < 10; r++ {
					putF32(a, func(i int) float32 { return float32(i + g) }, n)
					putF32(b, func(i int) float32 { return float32(r) }, n)
					cb := record(t, dev, func(cb *hal.CommandBuffer) error {
						if err := cb.PushConstants(0, []uint32{uint32(n)}); err != nil {
							return err
						}
						if err := cb.PushDescriptorSet(0, []hal.Binding{{Ordinal: 0, Buffer: a, Length: hal.WholeBuffer}, {Ordinal: 1, Buffer: b, Length: hal.WholeBuffer}, {Ordinal: 2, Buffer: c, Length: hal.WholeBuffer}}); err != nil {
							return err
						}
						return cb.Dispatch(exe, kerneltest.SimpleMul, uint32((n+63)/64), 1, 1)
					})
					if err := hal.SubmitAndWait(dev, cb); err != nil {
						errs <- err
						return
					}
					for i, v := range getF32(t, c, n) {
						if want := float32(i+g) * float32(r); v != want {
							errs <- fmt.Errorf("goroutine %d round %d: c[%d] = %v, want %v", g, r, i, v, want)
							return
						}
					}
				}
			}(g)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

func TestQueueWaitsOnFence(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev hal.Device) {
		buf := alloc(t, dev, 4)
		buf.Fill(0, 4, []byte{0})
		cb := record(t, dev, func(cb *hal.CommandBuffer) error { return cb.FillBuffer(buf, 0, 4, []byte{7}) })
		waitSem, _ := dev.CreateSemaphore(0)
		doneSem, _ := dev.CreateSemaphore(0)
		go func() {
			time.Sleep(10 * time.Millisecond)
			waitSem.Signal(1)
		}()
		if err := dev.QueueExecute(hal.NewFence(hal.SemaphorePoint{Semaphore: waitSem, Value: 1}), hal.NewFence(hal.SemaphorePoint{Semaphore: doneSem, Value: 1}), []*hal.CommandBuffer{cb}); err != nil {
			t.Fatal(err)
		}
		if err := doneSem.Wait(1, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 1)
		buf.Read(0, got)
		if got[0] != 7 {
			t.Errorf("fill after wait did not run: %d", got[0])
		}
		// A failed wait fence fails the signal fence.
		failSem, _ := dev.CreateSemaphore(0)
		doneSem2, _ := dev.CreateSemaphore(0)
		failSem.Fail(hal.ErrorContext(errTest, "upstream"))
		dev.QueueExecute(hal.NewFence(hal.SemaphorePoint{Semaphore: failSem, Value: 1}), hal.NewFence(hal.SemaphorePoint{Semaphore: doneSem2, Value: 1}), []*hal.CommandBuffer{cb})
		if err := doneSem2.Wait(1, 5*time.Second); err == nil || !strings.Contains(err.Error(), "upstream") {
			t.Errorf("signal after failed wait: %v", err)
		}
		// Unended command buffers are rejected.
		open, _ := dev.CreateCommandBuffer(0, 0)
		if err := dev.QueueExecute(nil, nil, []*hal.CommandBuffer{open}); err == nil {
			t.Error("unended command buffer accepted")
		}
	})
}

var errTest = stringError("test failure")

type stringError string

func (e stringError) Error() string { return string(e) }

func TestRegistryAndQueries(t *testing.T) {
	r := &hal.Registry{}
	if err := drivers.Register(r, drivers.Options{LocalTask: localtask.Options{GroupCount: 2}}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), ","); !strings.Contains(got, "local-sync,local-task") {
		t.Errorf("drivers = %s", got)
	}
	_, err := r.CreateDevice("nosuch://0")
	if err == nil || !strings.Contains(err.Error(), `unknown driver "nosuch" (available drivers: `) {
		t.Errorf("unknown driver: %v", err)
	}
	if _, err := r.CreateDevice("local-task://1"); err == nil || !strings.Contains(err.Error(), "has 1 device(s)") {
		t.Errorf("bad index: %v", err)
	}
	for _, uri := range []string{"local-sync", "local-task://0"} {
		dev, err := r.CreateDevice(uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if v, err := dev.QueryI64("hal.executable.format", "embedded-elf-x86_64"); err != nil || v != 1 {
			t.Errorf("%s: format query = %d, %v", uri, v, err)
		}
		if v, _ := dev.QueryI64("hal.executable.format", "embedded-elf-arm_64"); v != 0 {
			t.Errorf("%s: arm_64 reported as supported", uri)
		}
		if v, _ := dev.QueryI64("hal.device.id", "local*"); v != 1 {
			t.Errorf("%s: device id query failed", uri)
		}
		dev.Close()
	}
	bad := &hal.Registry{}
	drivers.Register(bad, drivers.Options{LocalTask: localtask.Options{GroupCount: -1}})
	if _, err := bad.CreateDevice("local-task"); err == nil || !strings.Contains(err.Error(), "group count -1") {
		t.Errorf("bad group count: %v", err)
	}
}

func TestRegisterFlags(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	opts := drivers.RegisterFlags(fs)
	if err := fs.Parse([]string{"--task_topology_group_count=3"}); err != nil {
		t.Fatal(err)
	}
	if opts.LocalTask.GroupCount != 3 || opts.LocalTask.MaxGroupCount != 8 {
		t.Errorf("options = %+v", opts.LocalTask)
	}
	r := &hal.Registry{}
	if err := drivers.Register(r, *opts); err != nil {
		t.Fatal(err)
	}
	dev, err := r.CreateDevice("local-task")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if c, _ := dev.QueryI64("hal.device", "concurrency"); c != 6 {
		t.Errorf("concurrency = %d, want 6 (3 workers + 3 caller ids)", c)
	}
}
