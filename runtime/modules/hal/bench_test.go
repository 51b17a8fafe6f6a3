package hal_test

import (
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// dispatchProgram builds what a compiled host program does per call once
// its executable is cached in a global: create a command buffer, push one
// constant and three bindings, dispatch one workgroup, end, submit and
// wait. "init" prepares the executable.
//
// With inline set, the dispatch is one hal.command_buffer.dispatch.inline
// call instead of push_constants + push_descriptor_set + dispatch.
func dispatchProgram(elf []byte, inline bool) *vm.ModuleBuilder {
	b := vm.NewModuleBuilder("bench")
	imp := func(n, cc string) vm.ImportRef { return b.Import("hal."+n, cc) }
	get := imp("devices.get", "0i_r")
	exeCreate := imp("executable.create", "0rIrrr_r")
	cbCreate := imp("command_buffer.create", "0riiIi_r")
	pushC := imp("command_buffer.push_constants", "0riCiD_v")
	pushD := imp("command_buffer.push_descriptor_set", "0riCirIID_v")
	dispatch := imp("command_buffer.dispatch", "0rriiii_v")
	dispatchInline := imp("command_buffer.dispatch.inline", "0rriiiiICiDCrIID_v")
	end := imp("command_buffer.end", "0r_v")
	submit := imp("ex.submit_and_wait", "0rr_v")
	format := b.Rodata([]byte("embedded-elf-x86_64"), "")
	kernel := b.Rodata(elf, "application/x-elf")
	gDev, gExe := b.AddGlobal(vm.KindRef), b.AddGlobal(vm.KindRef)

	in := b.Function("init", "0v_v")
	{
		z, aff := in.NewI32(), in.NewI64()
		dev, fm, kd, null, exe := in.NewRefReg(), in.NewRefReg(), in.NewRefReg(), in.NewRefReg(), in.NewRefReg()
		in.ConstI32(z, 0)
		in.ConstI64(aff, -1)
		in.CallImport(get, []vm.Reg{z}, []vm.Reg{dev})
		in.Emit(vm.OpConstRefRodata, fm, format)
		in.Emit(vm.OpConstRefRodata, kd, kernel)
		in.Emit(vm.OpConstRefZero, null)
		in.CallImport(exeCreate, []vm.Reg{dev, aff, fm, kd, null}, []vm.Reg{exe})
		in.Emit(vm.OpGlobalStoreRef, gDev, dev)
		in.Emit(vm.OpGlobalStoreRef, gExe, exe)
		in.Return()
	}
	b.Export("init", in)

	f := b.Function("run", "0rrri_v")
	{
		a, bb, c, n := f.Arg(0), f.Arg(1), f.Arg(2), f.Arg(3)
		z, one, two, flags := f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32()
		aff, off, whole := f.NewI64(), f.NewI64(), f.NewI64()
		dev, exe, cb := f.NewRefReg(), f.NewRefReg(), f.NewRefReg()
		f.ConstI32(z, 0)
		f.ConstI32(one, 1)
		f.ConstI32(two, 2)
		f.ConstI32(flags, 1)
		f.ConstI64(aff, -1)
		f.ConstI64(off, 0)
		f.ConstI64(whole, -1)
		f.Emit(vm.OpGlobalLoadRef, dev, gDev)
		f.Emit(vm.OpGlobalLoadRef, exe, gExe)
		f.CallImport(cbCreate, []vm.Reg{dev, flags, z, aff, z}, []vm.Reg{cb})
		if inline {
			zero64 := f.NewI64()
			f.ConstI64(zero64, 0)
			f.CallImportVariadic(dispatchInline, []int{1, 3}, []vm.Reg{cb, exe, z, one, one, one, zero64, n,
				a, off, whole, bb, off, whole, c, off, whole}, nil)
		} else {
			f.CallImportVariadic(pushC, []int{1}, []vm.Reg{cb, z, n}, nil)
			f.CallImportVariadic(pushD, []int{3}, []vm.Reg{cb, z, z, a, off, whole, one, bb, off, whole, two, c, off, whole}, nil)
			f.CallImport(dispatch, []vm.Reg{cb, exe, z, one, one, one}, nil)
		}
		f.CallImport(end, []vm.Reg{cb}, nil)
		f.CallImport(submit, []vm.Reg{dev, cb}, nil)
		f.Return()
	}
	b.Export("run", f)
	return b
}

// BenchmarkDispatch measures one small dispatch (one 64-element workgroup)
// through the whole stack: VM bytecode, hal module imports, command buffer
// validation, the device queue and the kernel call.
func BenchmarkDispatch(b *testing.B) {
	elf := kerneltest.MulLibrary(b)
	for _, d := range []struct {
		name   string
		inline bool
		make   func() (hal.Device, error)
	}{
		{"local-sync/pushed", false, func() (hal.Device, error) { return localsync.NewDevice() }},
		{"local-sync/inline", true, func() (hal.Device, error) { return localsync.NewDevice() }},
		{"local-task/pushed", false, func() (hal.Device, error) { return localtask.NewDevice(localtask.Options{}) }},
		{"local-task/inline", true, func() (hal.Device, error) { return localtask.NewDevice(localtask.Options{}) }},
	} {
		b.Run(d.name, func(b *testing.B) {
			dev, err := d.make()
			if err != nil {
				b.Fatal(err)
			}
			defer dev.Close()
			data, err := dispatchProgram(elf, d.inline).Build()
			if err != nil {
				b.Fatal(err)
			}
			m, err := vm.LoadBytecodeModule(data)
			if err != nil {
				b.Fatal(err)
			}
			hm, err := halmodule.New(dev)
			if err != nil {
				b.Fatal(err)
			}
			ctx, err := vm.NewInstance().NewContext(hm, m)
			if err != nil {
				b.Fatal(err)
			}
			initFn, _ := ctx.LookupFunction("init")
			run, _ := ctx.LookupFunction("run")
			if _, err := ctx.Invoke(initFn, nil); err != nil {
				b.Fatal(err)
			}
			bufs := make([]vm.Value, 3)
			for i := range bufs {
				buf, err := dev.Allocator().AllocateBuffer(hal.BufferParams{}, 256)
				if err != nil {
					b.Fatal(err)
				}
				bufs[i] = vm.RefValue(halmodule.BufferRef(buf))
			}
			args := []vm.Value{bufs[0], bufs[1], bufs[2], vm.I32(64)}
			results := []vm.Value{}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := ctx.InvokeInto(run, args, results); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDispatchForms runs both dispatch forms and checks the kernel's output.
func TestDispatchForms(t *testing.T) {
	elf := kerneltest.MulLibrary(t)
	dev := syncDevice(t)
	for _, inline := range []bool{false, true} {
		e := newEnv(t, dev, dispatchProgram(elf, inline), nil)
		if _, err := e.call(t, "init"); err != nil {
			t.Fatal(err)
		}
		a, b, c := f32View(t, dev, []float32{1, 2, 3}), f32View(t, dev, []float32{4, 5, 6}), f32View(t, dev, []float32{0, 0, 0})
		buf := func(v vm.Value) vm.Value {
			view, _ := halmodule.BufferViewOf(v)
			return vm.RefValue(halmodule.BufferRef(view.Buffer()))
		}
		if _, err := e.call(t, "run", buf(a), buf(b), buf(c), vm.I32(3)); err != nil {
			t.Fatalf("inline=%v: %v", inline, err)
		}
		if got := readF32(t, c); got[0] != 4 || got[1] != 10 || got[2] != 18 {
			t.Errorf("inline=%v: c = %v", inline, got)
		}
		// A binding count the export does not declare is rejected.
		if _, err := e.call(t, "run", buf(a), buf(b), vm.RefValue(vm.Ref{}), vm.I32(3)); err == nil {
			t.Errorf("inline=%v: null binding accepted", inline)
		}
	}
}
