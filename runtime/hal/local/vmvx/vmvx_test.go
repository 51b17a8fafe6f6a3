package vmvx_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal/local/vmvx"
	"github.com/goiree/goiree/runtime/vm"
)

// scaleModule assembles a vmvx executable by hand: entry 0 "scale" (one
// binding, one constant) multiplies the f32 at index workgroup_id.x of its
// binding by the constant's float bits and fails when the binding is too
// short; entry 1 "nop" takes no bindings. Options change one thing for the
// loader's error cases.
func scaleModule(t testing.TB, abi string, mutate func(b *vm.ModuleBuilder)) []byte {
	t.Helper()
	b := vm.NewModuleBuilder("exe")
	if abi != "" {
		b.AddAttr(vmvx.ABIAttr, abi)
	}
	f := b.Function("scale", vmvx.CallingConvention(1, 1))
	buf, c, wx := f.Arg(0), f.Arg(1), f.Arg(2)
	off := f.NewI64()
	f.Emit(vm.OpExtI32I64U, off, wx)
	four := f.NewI64()
	f.ConstI64(four, 4)
	f.Emit(vm.OpMulI64, off, off, four)
	end := f.NewI64()
	f.Emit(vm.OpAddI64, end, off, four)
	n := f.NewI64()
	f.Emit(vm.OpBufferLength, n, buf)
	short := f.NewI32()
	f.Emit(vm.OpCmpGtI64S, short, end, n)
	bad, ok := f.NewLabel(), f.NewLabel()
	f.CondBr(short, bad, ok)
	f.Bind(bad)
	code := f.NewI32()
	f.ConstI32(code, 11)
	f.Fail(code, "binding 0 is shorter than its shape")
	f.Bind(ok)
	x, k := f.NewF32(), f.NewF32()
	f.Emit(vm.OpBufferLoadF32, x, buf, off)
	f.Emit(vm.OpBitcastI32F32, k, c)
	f.Emit(vm.OpMulF32, x, x, k)
	f.Emit(vm.OpBufferStoreF32, buf, off, x)
	f.Return()
	nop := b.Function("nop", vmvx.CallingConvention(0, 0))
	nop.Return()
	b.Export("scale", f, vm.Attr{Key: vmvx.OrdinalAttr, Value: "0"}, vm.Attr{Key: vmvx.WorkgroupSizeAttr, Value: "1,1,1"})
	b.Export("nop", nop, vm.Attr{Key: vmvx.OrdinalAttr, Value: "1"})
	if mutate != nil {
		mutate(b)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func f32s(v ...float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

func TestRun(t *testing.T) {
	exe, err := vmvx.Load(scaleModule(t, vmvx.ABIVersion, nil))
	if err != nil {
		t.Fatal(err)
	}
	ex := exe.Exports()
	if len(ex) != 2 || ex[0].Name != "scale" || ex[0].BindingCount != 1 || ex[0].ConstantCount != 1 || ex[0].WorkgroupSize != [3]uint32{1, 1, 1} ||
		ex[1].Name != "nop" || ex[1].BindingCount != 0 || ex[1].ConstantCount != 0 {
		t.Fatalf("exports = %+v", ex)
	}
	data := f32s(1, 2, 3, 4, 5)
	d, err := exe.Prepare(0, [3]uint32{5, 1, 1}, []uint32{math.Float32bits(3)}, [][]byte{data})
	if err != nil {
		t.Fatal(err)
	}
	// Two ranges, as two local-task workers would run them at once.
	done := make(chan error)
	go func() { done <- d.Run(0, 2) }()
	if err := d.Run(2, 5); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, want := range []float32{3, 6, 9, 12, 15} {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])); got != want {
			t.Errorf("element %d = %g, want %g", i, got, want)
		}
	}
	// A grid larger than the binding: the kernel's check fails the
	// workgroup that would read past it.
	d, err = exe.Prepare(0, [3]uint32{7, 1, 1}, []uint32{0}, [][]byte{data})
	if err != nil {
		t.Fatal(err)
	}
	err = d.Run(0, 7)
	if err == nil || !strings.Contains(err.Error(), "workgroup (5, 0, 0)") || !strings.Contains(err.Error(), "binding 0 is shorter than its shape") {
		t.Errorf("Run past the binding: %v", err)
	}
	if _, err := exe.Prepare(0, [3]uint32{1, 1, 1}, nil, [][]byte{data}); err == nil || !strings.Contains(err.Error(), `expects 1 binding(s) and 1 constant(s), got 1 and 0`) {
		t.Errorf("Prepare with a constant missing: %v", err)
	}
	if _, err := exe.Prepare(2, [3]uint32{1, 1, 1}, nil, nil); err == nil || !strings.Contains(err.Error(), "ordinal 2 out of range") {
		t.Errorf("Prepare of ordinal 2: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not a module", []byte("ELF"), "vmvx executable"},
		{"no abi", scaleModule(t, "", nil), `has vmvx.abi = "", want "goiree-vmvx-1"`},
		{"other abi", scaleModule(t, "goiree-vmvx-0", nil), `has vmvx.abi = "goiree-vmvx-0"`},
		{"import", scaleModule(t, vmvx.ABIVersion, func(b *vm.ModuleBuilder) { b.Import("hal.device.query", "0r_i") }),
			"imports hal.device.query; vmvx executables cannot import functions"},
		{"no ordinal", scaleModule(t, vmvx.ABIVersion, func(b *vm.ModuleBuilder) {
			f := b.Function("g", vmvx.CallingConvention(0, 0))
			f.Return()
			b.Export("alias", f)
		}), `export "alias": no vmvx.ordinal attribute`},
		{"ordinal twice", scaleModule(t, vmvx.ABIVersion, func(b *vm.ModuleBuilder) {
			f := b.Function("g", vmvx.CallingConvention(0, 0))
			f.Return()
			b.Export("again", f, vm.Attr{Key: vmvx.OrdinalAttr, Value: "1"})
		}), "ordinal 1 is used twice"},
		{"ordinal out of range", scaleModule(t, vmvx.ABIVersion, func(b *vm.ModuleBuilder) {
			f := b.Function("g", vmvx.CallingConvention(0, 0))
			f.Return()
			b.Export("far", f, vm.Attr{Key: vmvx.OrdinalAttr, Value: "7"})
		}), `vmvx.ordinal "7" is not an ordinal in [0, 3)`},
		{"signature", scaleModule(t, vmvx.ABIVersion, func(b *vm.ModuleBuilder) {
			f := b.Function("g", "0rii_i")
			r := f.NewI32()
			f.Return(r)
			b.Export("odd", f, vm.Attr{Key: vmvx.OrdinalAttr, Value: "2"})
		}), "calling convention 0rii_i is not an entry point's"},
		{"workgroup size", scaleModule(t, vmvx.ABIVersion, func(b *vm.ModuleBuilder) {
			f := b.Function("g", vmvx.CallingConvention(0, 0))
			f.Return()
			b.Export("wide", f, vm.Attr{Key: vmvx.OrdinalAttr, Value: "2"}, vm.Attr{Key: vmvx.WorkgroupSizeAttr, Value: "4,4"})
		}), `vmvx.workgroup_size "4,4" is not X,Y,Z`},
	} {
		_, err := vmvx.Load(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Load = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// FuzzLoad feeds the loader arbitrary bytes: it must refuse them with an
// error or load an executable whose entry points all run (on empty
// bindings) without panicking.
func FuzzLoad(f *testing.F) {
	f.Add(scaleModule(f, vmvx.ABIVersion, nil))
	f.Add(scaleModule(f, "", nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		exe, err := vmvx.Load(data)
		if err != nil {
			return
		}
		exe.SetStepLimit(1 << 16)
		for i, x := range exe.Exports() {
			bindings := make([][]byte, x.BindingCount)
			for j := range bindings {
				bindings[j] = make([]byte, 16)
			}
			d, err := exe.Prepare(i, [3]uint32{2, 1, 1}, make([]uint32, x.ConstantCount), bindings)
			if err != nil {
				t.Fatalf("Prepare of a loaded entry point: %v", err)
			}
			_ = d.Run(0, 2) // may fail; must not panic
		}
	})
}
