package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"testing"

	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/vm"
)

// TestConcurrentInvocations loads the compiled CPU sample once and calls
// mixed_invocation from several goroutines at the same time on one
// local-task device: one vm.Context per goroutine, all sharing the bytecode
// module, the hal module and the device. Every goroutine uses its own input
// values and sizes (some not a multiple of the 64-element tile) and checks
// every element of every result, so a result computed from another
// goroutine's buffers fails the test. Run it under -race.
func TestConcurrentInvocations(t *testing.T) {
	clang := tools(t)
	dir := t.TempDir()
	buildKernels(t, clang, dir)
	data, err := compile("cpu_hal.mlir", []string{dir})
	if err != nil {
		t.Fatalf("compiling cpu_hal.mlir: %v", err)
	}
	module, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localtask.NewDevice(localtask.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	hm, err := halmodule.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	inst := vm.NewInstance()

	const goroutines = 8
	calls := 12
	if testing.Short() {
		calls = 3
	}
	sizes := []int{1, 8, 63, 64, 65, 100, 1000, 4099}
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- invokeMany(inst, hm, module, g, calls, sizes)
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// invokeMany runs calls invocations in a context of its own and checks
// each result against (a*b + b) * (a*b) computed in float32.
func invokeMany(inst *vm.Instance, hm *halmodule.Module, module vm.Module, g, calls int, sizes []int) error {
	ctx, err := inst.NewContext(hm, module)
	if err != nil {
		return fmt.Errorf("goroutine %d: creating context: %w", g, err)
	}
	fn, err := ctx.LookupFunction("mixed_invocation")
	if err != nil {
		return fmt.Errorf("goroutine %d: %w", g, err)
	}
	for i := range calls {
		n := sizes[(g+i)%len(sizes)]
		a, b := float32(g+1), float32(i%5+2)
		in, err := functionio.ParseInputs([]string{fmt.Sprintf("%dxf32=%g", n, a), fmt.Sprintf("%dxf32=%g", n, b)})
		if err != nil {
			return fmt.Errorf("goroutine %d: %w", g, err)
		}
		args, err := functionio.Values(in, fn.Signature(), hm.Device().Allocator())
		if err != nil {
			return fmt.Errorf("goroutine %d: %w", g, err)
		}
		results, err := ctx.Invoke(fn, args)
		if err != nil {
			return fmt.Errorf("goroutine %d call %d: %w", g, i, err)
		}
		if len(results) != 1 || results[0].Kind() != vm.KindRef {
			return fmt.Errorf("goroutine %d call %d: results %v, want one buffer view", g, i, results)
		}
		view, err := halmodule.BufferViewOf(results[0])
		if err != nil {
			return fmt.Errorf("goroutine %d call %d: %w", g, i, err)
		}
		buf, err := functionio.ReadBufferView(view)
		if err != nil {
			return fmt.Errorf("goroutine %d call %d: %w", g, i, err)
		}
		if len(buf.Data) != 4*n {
			return fmt.Errorf("goroutine %d call %d: result has %d bytes, want %d", g, i, len(buf.Data), 4*n)
		}
		want := (a*b + b) * (a * b)
		for e := range n {
			got := math.Float32frombits(binary.LittleEndian.Uint32(buf.Data[4*e:]))
			if got != want {
				return fmt.Errorf("goroutine %d call %d (%d elements, a=%g b=%g): element %d = %g, want %g", g, i, n, a, b, e, got, want)
			}
		}
	}
	return nil
}
