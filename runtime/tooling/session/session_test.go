package session_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

// buildModule returns a module named name exporting the given functions,
// each one of:
//
//	add(a, b i32) -> a + b
//	zeros(n i64) -> an n-element f32 buffer view from the device, zeroed
//	__init() (an internal export, never picked by default)
func buildModule(t *testing.T, name string, exports ...string) []byte {
	t.Helper()
	b := vm.NewModuleBuilder(name)
	for _, e := range exports {
		switch e {
		case "add":
			f := b.Function("add", "0ii_i")
			sum := f.NewI32()
			f.Emit(vm.OpAddI32, sum, f.Arg(0), f.Arg(1))
			f.Return(sum)
			b.Export("add", f)
		case "zeros":
			devices := b.Import("hal.devices.get", "0i_r")
			allocator := b.Import("hal.device.allocator", "0r_r")
			allocate := b.Import("hal.allocator.allocate", "0rIiiI_r")
			create := b.Import("hal.buffer_view.create", "0rIIiiCID_r")
			f := b.Function("zeros", "0I_r")
			i32 := func(v int32) vm.Reg { r := f.NewI32(); f.ConstI32(r, v); return r }
			i64 := func(v int64) vm.Reg { r := f.NewI64(); f.ConstI64(r, v); return r }
			d, a, buf, view, size := f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewI64()
			f.CallImport(devices, []vm.Reg{i32(0)}, []vm.Reg{d})
			f.CallImport(allocator, []vm.Reg{d}, []vm.Reg{a})
			f.Emit(vm.OpMulI64, size, f.Arg(0), i64(4))
			f.CallImport(allocate, []vm.Reg{a, i64(-1), i32(0), i32(0), size}, []vm.Reg{buf})
			f.CallImportVariadic(create, []int{1}, []vm.Reg{buf, i64(0), i64(-1), i32(int32(hal.ElementTypeF32)), i32(1), f.Arg(0)}, []vm.Reg{view})
			f.Return(view)
			b.Export("zeros", f)
		case "__init":
			f := b.Function("__init", "0v_v")
			f.Return()
			b.Export("__init", f)
		default:
			t.Fatalf("no function %q to build", e)
		}
	}
	data, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func newDevice(t *testing.T) hal.Device {
	t.Helper()
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// TestRun calls functions by name with --input strings and checks the
// printed results against values computed here.
func TestRun(t *testing.T) {
	dev := newDevice(t)
	s, err := session.Open(dev, buildModule(t, "m", "add", "zeros", "__init"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct {
		fn     string
		inputs []string
		want   string
	}{
		{"add", []string{"2", "40"}, fmt.Sprintf("result[0]: i32=%d\n", 2+40)},
		{"@add", []string{"-7", "i32=3"}, fmt.Sprintf("result[0]: i32=%d\n", -7+3)},
		{" zeros ", []string{"3"}, "result[0]: hal.buffer_view\n3xf32=" + strings.Repeat("0 ", 2) + "0\n"},
	} {
		got, err := s.Run(tt.fn, tt.inputs...)
		if err != nil || got != tt.want {
			t.Errorf("Run(%q, %q) = %q, %v; want %q", tt.fn, tt.inputs, got, err, tt.want)
		}
	}
}

// TestLookupDefault: with no name, the main (last) module's one exported
// function is picked, internal exports left out; none or several is an
// error naming them.
func TestLookupDefault(t *testing.T) {
	dev := newDevice(t)
	tests := []struct {
		exports []string
		want    string // function name, or the error
	}{
		{[]string{"add", "__init"}, "add"},
		{[]string{"__init"}, `module "m" exports no function; at least one must be present`},
		{[]string{"add", "zeros"}, `module "m" exports 2 functions (add, zeros); --function= must be given`},
	}
	for _, tt := range tests {
		s, err := session.Open(dev, buildModule(t, "m", tt.exports...))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if fn, err := s.Lookup(""); err != nil {
			got = err.Error()
		} else {
			got = fn.Name()
		}
		if got != tt.want {
			t.Errorf("exports %v: Lookup(\"\") gave %q, want %q", tt.exports, got, tt.want)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
	// Of two modules, the last is the main one.
	first, err := session.LoadModule("first.vmfb", buildModule(t, "first", "add"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := session.LoadModule("second.vmfb", buildModule(t, "second", "zeros"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.New(dev, []*vm.BytecodeModule{first, second}, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fn, err := s.Lookup(""); err != nil || fn.FullName() != "second.zeros" {
		t.Errorf("Lookup(\"\") of two modules = %v, %v; want second.zeros", fn, err)
	}
	if s.Main() != second {
		t.Errorf("Main() is not the last module")
	}
}

// TestErrors: every failing step names what failed.
func TestErrors(t *testing.T) {
	dev := newDevice(t)
	if _, err := session.LoadModule("bad.vmfb", []byte("not a module")); err == nil || !strings.HasPrefix(err.Error(), "loading module bad.vmfb: ") {
		t.Errorf("LoadModule of junk: %v", err)
	}
	if _, err := session.Open(dev, buildModule(t, "m", "add"), []byte("junk")); err == nil || !strings.HasPrefix(err.Error(), "loading module module 2: ") {
		t.Errorf("Open with a junk second module: %v", err)
	}
	if _, err := session.New(dev, nil, session.Options{}); err == nil || err.Error() != "no module to run" {
		t.Errorf("New with no modules: %v", err)
	}
	data := buildModule(t, "m", "add")
	if _, err := session.Open(dev, data, data); err == nil || !strings.Contains(err.Error(), `two modules named "m"`) {
		t.Errorf("Open with one module twice: %v", err)
	}
	s, err := session.Open(dev, buildModule(t, "m", "add", "zeros"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct {
		fn     string
		inputs []string
		want   string
	}{
		{"nope", nil, `NOT_FOUND; function "nope" not found (exports: m.add, m.zeros)`},
		{"add", []string{"1"}, "calling add: the function takes 2 argument(s) (0ii_i) but 1 input(s) were given"},
		{"add", []string{"1", "2x"}, `--input=2x: parsing buffer view "2x": `},
		{"zeros", []string{"-1"}, "executing zeros: "},
	} {
		_, err := s.Call(tt.fn, tt.inputs...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Call(%q, %q) = %v, want an error containing %q", tt.fn, tt.inputs, err, tt.want)
		}
	}
}

// TestTraceAndArguments: Options.Trace sees the calls into the hal module,
// and Arguments/Invoke work with inputs parsed apart (as the tools do, to
// report input errors before loading modules).
func TestTraceAndArguments(t *testing.T) {
	dev := newDevice(t)
	m, err := session.LoadModule("m.vmfb", buildModule(t, "m", "zeros"))
	if err != nil {
		t.Fatal(err)
	}
	var trace bytes.Buffer
	s, err := session.New(dev, []*vm.BytecodeModule{m}, session.Options{Trace: &trace, Instance: vm.NewInstance()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in, err := functionio.ParseInputs([]string{"5"})
	if err != nil {
		t.Fatal(err)
	}
	fn, err := s.Lookup("zeros")
	if err != nil {
		t.Fatal(err)
	}
	args, err := s.Arguments(fn, in)
	if err != nil {
		t.Fatal(err)
	}
	results, err := s.Invoke(fn, args)
	if err != nil {
		t.Fatal(err)
	}
	if err := vm.ReleaseValues(results); err != nil {
		t.Error(err)
	}
	if want := fmt.Sprintf("allocator.allocate(ref<hal.allocator>, i64=-1, i32=0, i32=0, i64=%d)", 5*4); !strings.Contains(trace.String(), want) {
		t.Errorf("the trace does not show %s:\n%s", want, trace.String())
	}
}

// TestNatives: native modules in Options.Natives sit between the hal module
// and the program, so the program's imports of them resolve; without them
// the context cannot be made.
func TestNatives(t *testing.T) {
	dev := newDevice(t)
	b := vm.NewModuleBuilder("prog")
	twice := b.Import("util2.twice", "0i_i")
	f := b.Function("four", "0v_i")
	two, out := f.NewI32(), f.NewI32()
	f.ConstI32(two, 2)
	f.CallImport(twice, []vm.Reg{two}, []vm.Reg{out})
	f.Return(out)
	b.Export("four", f)
	data, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	m, err := session.LoadModule("prog", data)
	if err != nil {
		t.Fatal(err)
	}
	native := vm.NewNativeModule("util2", []vm.NativeFunction{{
		Name: "twice", CallingConvention: "0i_i",
		Func: func(c *vm.NativeCall) error { c.Results[0] = vm.I32(2 * c.Args[0].I32()); return nil },
	}})
	s, err := session.New(dev, []*vm.BytecodeModule{m}, session.Options{Natives: []vm.NativeModule{native}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Run("four"); err != nil || got != "result[0]: i32=4\n" {
		t.Errorf("Run(four) = %q, %v; want result[0]: i32=4", got, err)
	}
	if _, err := session.New(dev, []*vm.BytecodeModule{m}, session.Options{}); err == nil || !strings.Contains(err.Error(), "util2.twice") {
		t.Errorf("without the native module: %v, want an error naming util2.twice", err)
	}
}
