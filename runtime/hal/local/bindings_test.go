package local_test

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
)

// TestManyBindings runs dispatches with binding counts on both sides of the
// numbers passed to native code as call arguments (4 and 8; larger counts
// are pinned in C memory), from several goroutines at once on one prepared dispatch,
// and checks every binding reached the kernel.
func TestManyBindings(t *testing.T) {
	exe, err := local.Load(hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: kerneltest.GatherLibrary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Release()
	const elems = 16
	for ordinal, n := range kerneltest.GatherBindings {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			bindings := make([][]byte, n)
			want := make([]uint32, elems)
			for j := 0; j < n-1; j++ {
				bindings[j] = make([]byte, 4*elems)
				for i := 0; i < elems; i++ {
					v := uint32((j + 1) << (2 * (j % 8)) * (i + 1))
					binary.LittleEndian.PutUint32(bindings[j][4*i:], v)
					want[i] += v
				}
			}
			bindings[n-1] = make([]byte, 4*elems)
			d, err := exe.PrepareDispatch(ordinal, [3]uint32{1, 1, 1}, nil, bindings, 4)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Release()
			var wg sync.WaitGroup
			errs := make([]error, 4)
			for p := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := 0; k < 50 && errs[p] == nil; k++ {
						errs[p] = d.Run(uint32(p), nil, 0, 1)
					}
				}()
			}
			wg.Wait()
			for p, err := range errs {
				if err != nil {
					t.Fatalf("processor %d: %v", p, err)
				}
			}
			for i := 0; i < elems; i++ {
				if got := binary.LittleEndian.Uint32(bindings[n-1][4*i:]); got != want[i] {
					t.Fatalf("out[%d] = %d, want %d", i, got, want[i])
				}
			}
			// A short input is seen by the kernel (lengths reach it too).
			short := append([][]byte(nil), bindings...)
			short[0] = short[0][:4]
			ds, err := exe.PrepareDispatch(ordinal, [3]uint32{1, 1, 1}, nil, short, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Release()
			if err := ds.Run(0, nil, 0, 1); err == nil {
				t.Error("short binding not reported by the kernel")
			}
		})
	}
}

// TestManyBindingsThroughDevice records and submits dispatches of every
// binding count in turn on a local device, several rounds with garbage
// collections between them, so that recycled dispatch state moves between
// the argument and the pinned paths and dropped state is freed.
func TestManyBindingsThroughDevice(t *testing.T) {
	dev, err := local.NewDevice(local.DeviceOptions{ID: "local-sync", Runner: &local.InlineRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	exe, err := local.Load(hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: kerneltest.GatherLibrary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Release()
	const elems = 8
	for round := 0; round < 3; round++ {
		for ordinal, n := range kerneltest.GatherBindings {
			bindings := make([]hal.Binding, n)
			for j := range bindings {
				buf, err := dev.Allocator().AllocateBuffer(hal.BufferParams{}, 4*elems)
				if err != nil {
					t.Fatal(err)
				}
				hb, _ := buf.HostBytes()
				for i := 0; i < elems; i++ {
					binary.LittleEndian.PutUint32(hb[4*i:], uint32(j+round))
				}
				bindings[j] = hal.Binding{Buffer: buf, Length: hal.WholeBuffer}
			}
			cb, err := dev.CreateCommandBuffer(hal.CommandBufferModeOneShot, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := cb.Begin(); err != nil {
				t.Fatal(err)
			}
			if err := cb.DispatchWith(exe, ordinal, [3]uint32{1, 1, 1}, nil, bindings); err != nil {
				t.Fatal(err)
			}
			if err := cb.End(); err != nil {
				t.Fatal(err)
			}
			if err := hal.SubmitAndWaitOne(dev, cb); err != nil {
				t.Fatalf("round %d, %d bindings: %v", round, n, err)
			}
			want := uint32(0)
			for j := 0; j < n-1; j++ {
				want += uint32(j + round)
			}
			out, _ := bindings[n-1].Buffer.HostBytes()
			for i := 0; i < elems; i++ {
				if got := binary.LittleEndian.Uint32(out[4*i:]); got != want {
					t.Fatalf("round %d, %d bindings: out[%d] = %d, want %d", round, n, i, got, want)
				}
			}
			for _, b := range bindings {
				b.Buffer.Release()
			}
		}
		runtime.GC()
		runtime.GC()
	}
}
