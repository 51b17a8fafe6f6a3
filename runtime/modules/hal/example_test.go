package hal_test

import (
	"fmt"

	"github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// Example_release shows who owns what when Go code calls a program: the
// arguments stay the caller's (the VM borrows them for the call), every
// buffer the program made for itself is released when its function
// returns, and the results belong to the caller, who releases them. No
// memory waits for the garbage collector.
func Example_release() {
	dev, err := localsync.NewDevice()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()

	// zeros(n) allocates a scratch buffer it drops and a result of n f32s,
	// and returns the result as an n-element buffer view.
	b := vm.NewModuleBuilder("example")
	devices := b.Import("hal.devices.get", "0i_r")
	allocator := b.Import("hal.device.allocator", "0r_r")
	allocate := b.Import("hal.allocator.allocate", "0rIiiI_r")
	create := b.Import("hal.buffer_view.create", "0rIIiiCID_r")
	f := b.Function("zeros", "0I_r")
	i32, i64 := func(v int32) vm.Reg { r := f.NewI32(); f.ConstI32(r, v); return r }, func(v int64) vm.Reg { r := f.NewI64(); f.ConstI64(r, v); return r }
	d, a, scratch, buf, view, size := f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewI64()
	f.CallImport(devices, []vm.Reg{i32(0)}, []vm.Reg{d})
	f.CallImport(allocator, []vm.Reg{d}, []vm.Reg{a})
	f.Emit(vm.OpMulI64, size, f.Arg(0), i64(4))
	f.CallImport(allocate, []vm.Reg{a, i64(-1), i32(0), i32(0), size}, []vm.Reg{scratch})
	f.CallImport(allocate, []vm.Reg{a, i64(-1), i32(0), i32(0), size}, []vm.Reg{buf})
	f.CallImportVariadic(create, []int{1}, []vm.Reg{buf, i64(0), i64(-1), i32(int32(hal.ElementTypeF32)), i32(1), f.Arg(0)}, []vm.Reg{view})
	f.Return(view)
	b.Export("zeros", f)
	data, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	hm, err := halmodule.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, err := vm.NewInstance().NewContext(hm, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	fn, err := ctx.LookupFunction("zeros")
	if err != nil {
		fmt.Println(err)
		return
	}
	live := func() int64 {
		s := dev.Allocator().Statistics()
		return s.HostBytesAllocated - s.HostBytesFreed
	}

	results, err := ctx.Invoke(fn, []vm.Value{vm.I64(1024)})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := halmodule.BufferViewOf(results[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("result %v; live after the call: %d bytes (the scratch buffer is gone)\n", v, live())

	// The caller releases its results once: here through the VM values
	// (v.Release() does the same for one view).
	if err := vm.ReleaseValues(results); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("live after release: %d bytes\n", live())

	// A second release, or a use after release, is an error, not a crash.
	fmt.Println(v.Release())
	fmt.Println(v.Buffer().Write(0, []byte{1}))
	// Output:
	// result 1024xf32; live after the call: 4096 bytes (the scratch buffer is gone)
	// live after release: 0 bytes
	// FAILED_PRECONDITION; buffer view 1024xf32 released twice
	// FAILED_PRECONDITION; writing buffer: mapping buffer: use of a released buffer
}
