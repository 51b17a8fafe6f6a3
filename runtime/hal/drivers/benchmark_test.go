package drivers_test

import (
	"sync"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
	"github.com/goiree/goiree/runtime/task"
)

type benchDevice struct {
	name string
	dev  hal.Device
}

func benchDevices(b *testing.B) []benchDevice {
	sync, err := localsync.NewDevice()
	if err != nil {
		b.Fatal(err)
	}
	tsk, err := localtask.NewDevice(localtask.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sync.Close(); tsk.Close() })
	return []benchDevice{{"local-sync", sync}, {"local-task", tsk}}
}

// mulSetup allocates a, b, c of n floats on dev and loads the mul library.
func mulSetup(b *testing.B, dev hal.Device, so []byte, n int) (hal.Executable, []hal.Binding) {
	exe, err := local.ExecutableCache{}.PrepareExecutable(hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: so})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { exe.Release() })
	var bindings []hal.Binding
	for i := 0; i < 3; i++ {
		buf := alloc(b, dev, int64(4*n))
		putF32(buf, func(j int) float32 { return float32(j%13) + 1 }, n)
		bindings = append(bindings, hal.Binding{Ordinal: i, Buffer: buf, Length: hal.WholeBuffer})
	}
	return exe, bindings
}

func dispatchOnce(b *testing.B, dev hal.Device, exe hal.Executable, bindings []hal.Binding, n int) {
	cb, err := dev.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryDispatch)
	if err != nil {
		b.Fatal(err)
	}
	cb.Begin()
	if err := cb.DispatchWith(exe, kerneltest.SimpleMul, [3]uint32{uint32((n + 63) / 64), 1, 1}, []uint32{uint32(n)}, bindings); err != nil {
		b.Fatal(err)
	}
	cb.End()
	if err := hal.SubmitAndWait(dev, cb); err != nil {
		b.Fatal(err)
	}
}

// directBindings returns the host memory of the bindings, for calling the
// kernel without the HAL.
func directBindings(b *testing.B, bindings []hal.Binding) [][]byte {
	out := make([][]byte, len(bindings))
	for i, bd := range bindings {
		hb, err := bd.Buffer.HostBytes()
		if err != nil {
			b.Fatal(err)
		}
		out[i] = hb
	}
	return out
}

// BenchmarkDispatchSmall measures the time per dispatch of one 64-element
// workgroup: recording a command buffer, submitting it and waiting, on each
// driver, against a direct call of the prepared kernel (one cgo crossing).
func BenchmarkDispatchSmall(b *testing.B) {
	so := kerneltest.MulLibrary(b)
	const n = 64
	for _, d := range benchDevices(b) {
		exe, bindings := mulSetup(b, d.dev, so, n)
		b.Run(d.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				dispatchOnce(b, d.dev, exe, bindings, n)
			}
		})
	}
	dev, _ := localsync.NewDevice()
	defer dev.Close()
	exe, bindings := mulSetup(b, dev, so, n)
	b.Run("direct-call", func(b *testing.B) {
		d, err := exe.(*local.Executable).PrepareDispatch(kerneltest.SimpleMul, [3]uint32{1, 1, 1}, []uint32{n}, directBindings(b, bindings), 1)
		if err != nil {
			b.Fatal(err)
		}
		defer d.Release()
		for i := 0; i < b.N; i++ {
			if err := d.Run(0, nil, 0, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDispatchLarge runs simple_mul over 16M floats (64-element
// tiles) through each driver and, as references in the same run, through a
// direct single-threaded cgo loop over the same kernel (one crossing) and a
// direct loop split into one contiguous range per CPU, the calling
// goroutine running the first, as the C harness of the benchmark suite
// splits its pthreads.
func BenchmarkDispatchLarge(b *testing.B) { benchmarkMul(b, 16<<20) }

// BenchmarkDispatchMedium is BenchmarkDispatchLarge over 256K floats (4096
// workgroups, about 3 MB of traffic): large enough to be split across the
// workers, small enough that waking them and balancing the ranges show.
func BenchmarkDispatchMedium(b *testing.B) { benchmarkMul(b, 256<<10) }

func benchmarkMul(b *testing.B, n int) {
	so := kerneltest.MulLibrary(b)
	devs := benchDevices(b)
	for _, d := range devs {
		exe, bindings := mulSetup(b, d.dev, so, n)
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(3 * 4 * n))
			for i := 0; i < b.N; i++ {
				dispatchOnce(b, d.dev, exe, bindings, n)
			}
		})
	}
	exe, bindings := mulSetup(b, devs[0].dev, so, n)
	tiles := uint32((n + 63) / 64)
	prep := func(b *testing.B, conc int) *local.Dispatch {
		d, err := exe.(*local.Executable).PrepareDispatch(kerneltest.SimpleMul, [3]uint32{tiles, 1, 1}, []uint32{uint32(n)}, directBindings(b, bindings), conc)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	b.Run("direct-cgo-1-thread", func(b *testing.B) {
		d := prep(b, 1)
		defer d.Release()
		b.SetBytes(int64(3 * 4 * n))
		for i := 0; i < b.N; i++ {
			if err := d.Run(0, nil, 0, uint64(tiles)); err != nil {
				b.Fatal(err)
			}
		}
	})
	topo, _ := task.DetectTopology(0, 0)
	b.Run("direct-cgo-all-cpus", func(b *testing.B) {
		parts := topo.GroupCount
		d := prep(b, parts)
		defer d.Release()
		span := func(p int) (uint64, uint64) {
			return uint64(tiles) * uint64(p) / uint64(parts), uint64(tiles) * uint64(p+1) / uint64(parts)
		}
		b.SetBytes(int64(3 * 4 * n))
		for i := 0; i < b.N; i++ {
			var wg sync.WaitGroup
			for p := 1; p < parts; p++ {
				wg.Add(1)
				go func(p int) {
					defer wg.Done()
					lo, hi := span(p)
					if err := d.Run(uint32(p), nil, lo, hi); err != nil {
						b.Error(err)
					}
				}(p)
			}
			lo, hi := span(0)
			if err := d.Run(0, nil, lo, hi); err != nil {
				b.Error(err)
			}
			wg.Wait()
		}
	})
}
