package hal_test

import (
	"testing"
	"time"

	"github.com/goiree/goiree/runtime/hal"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// TestQueuedSubmissionHoldsBuffers: a program queues a fill of a buffer
// it allocated behind a wait fence that is not reached, and returns, which
// releases every reference it held. The submission keeps the buffer until
// it has run: its memory stays live (and the fill lands in it) until the
// wait fence is signalled and the submission finishes, and is returned
// then.
func TestQueuedSubmissionHoldsBuffers(t *testing.T) {
	dev, err := localtask.NewDevice(localtask.Options{GroupCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()

	// queue(wait) -> signal: allocate 1 MiB, fill it behind wait, return
	// the signal fence.
	b := vm.NewModuleBuilder("queued")
	devices := b.Import("hal.devices.get", "0i_r")
	allocator := b.Import("hal.device.allocator", "0r_r")
	allocate := b.Import("hal.allocator.allocate", "0rIiiI_r")
	cbCreate := b.Import("hal.command_buffer.create", "0riiIi_r")
	fill := b.Import("hal.command_buffer.fill_buffer", "0rrIIii_v")
	end := b.Import("hal.command_buffer.end", "0r_v")
	fence := b.Import("hal.fence.create", "0rI_r")
	execute := b.Import("hal.device.queue.execute", "0rIrrCrD_v")
	f := b.Function("queue", "0r_r")
	i32 := func(v int32) vm.Reg { r := f.NewI32(); f.ConstI32(r, v); return r }
	i64 := func(v int64) vm.Reg { r := f.NewI64(); f.ConstI64(r, v); return r }
	d, a, buf, cb, sig := f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg()
	f.CallImport(devices, []vm.Reg{i32(0)}, []vm.Reg{d})
	f.CallImport(allocator, []vm.Reg{d}, []vm.Reg{a})
	f.CallImport(allocate, []vm.Reg{a, i64(-1), i32(0), i32(0), i64(1 << 20)}, []vm.Reg{buf})
	f.CallImport(cbCreate, []vm.Reg{d, i32(1), i32(0), i64(-1), i32(0)}, []vm.Reg{cb})
	f.CallImport(fill, []vm.Reg{cb, buf, i64(0), i64(1 << 20), i32(7), i32(1)}, nil)
	f.CallImport(end, []vm.Reg{cb}, nil)
	f.CallImport(fence, []vm.Reg{d, i64(0)}, []vm.Reg{sig})
	f.CallImportVariadic(execute, []int{1}, []vm.Reg{d, i64(-1), f.Arg(0), sig, cb}, nil)
	f.Return(sig)
	b.Export("queue", f)
	data, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatal(err)
	}
	hm, err := halmodule.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := vm.NewInstance().NewContext(hm, m)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	fn, err := ctx.LookupFunction("queue")
	if err != nil {
		t.Fatal(err)
	}
	live := func() int64 { s := dev.Allocator().Statistics(); return s.HostBytesAllocated - s.HostBytesFreed }

	gate := hal.NewSemaphore(0)
	wait := hal.NewFence(hal.SemaphorePoint{Semaphore: gate, Value: 1})
	res, err := ctx.Invoke(fn, []vm.Value{vm.RefValue(vm.NewRef(halmodule.FenceType, wait))})
	if err != nil {
		t.Fatal(err)
	}
	if got := live(); got != 1<<20 {
		t.Fatalf("live while the submission waits = %d bytes, want the buffer's %d (the submission holds it)", got, 1<<20)
	}
	if err := gate.Signal(1); err != nil {
		t.Fatal(err)
	}
	o, err := res[0].RefAs(halmodule.FenceType)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.(*hal.Fence).Wait(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for live() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := live(); got != 0 {
		t.Errorf("live after the submission finished = %d bytes, want 0", got)
	}
}
