package check_test

import (
	"math"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers"
	"github.com/goiree/goiree/runtime/modules/check"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/vm"
)

// program is a bytecode module calling every check function from VM code,
// as compiled check-dialect programs do:
//
//	truths(a, b i32) -> i32     expect_true(a); expect_false(b); return 7
//	all_true(dev, v)            expect_all_true(dev, v)
//	eq(dev, l, r)               expect_eq(dev, l, r)
//	almost_eq(dev, l, r, a, r)  expect_almost_eq(dev, l, r, atol, rtol)
//	filled(v, pattern i32)      fills a new device buffer shaped like v with
//	                            the i32 pattern on the device queue, then
//	                            expect_eq(device, that view, v)
//
// The value truths returns shows that the program went on after a failed
// expectation.
func program(t *testing.T) *vm.BytecodeModule {
	t.Helper()
	b := vm.NewModuleBuilder("checks")
	expectTrue := b.Import("check.expect_true", "0i_v")
	expectFalse := b.Import("check.expect_false", "0i_v")
	allTrue := b.Import("check.expect_all_true", "0rr_v")
	eq := b.Import("check.expect_eq", "0rrr_v")
	almostEq := b.Import("check.expect_almost_eq", "0rrrff_v")

	// Source locations, as compiled programs record them, name the check
	// that failed.
	f := b.Function("truths", "0ii_i")
	f.Loc("truths.mlir", 3, 5)
	f.CallImport(expectTrue, []vm.Reg{f.Arg(0)}, nil)
	f.Loc("truths.mlir", 4, 5)
	f.CallImport(expectFalse, []vm.Reg{f.Arg(1)}, nil)
	seven := f.NewI32()
	f.ConstI32(seven, 7)
	f.Return(seven)
	b.Export("truths", f)

	f = b.Function("all_true", "0rr_v")
	f.CallImport(allTrue, []vm.Reg{f.Arg(0), f.Arg(1)}, nil)
	f.Return()
	b.Export("all_true", f)

	f = b.Function("eq", "0rrr_v")
	f.CallImport(eq, []vm.Reg{f.Arg(0), f.Arg(1), f.Arg(2)}, nil)
	f.Return()
	b.Export("eq", f)

	f = b.Function("almost_eq", "0rrrff_v")
	f.CallImport(almostEq, []vm.Reg{f.Arg(0), f.Arg(1), f.Arg(2), f.Arg(3), f.Arg(4)}, nil)
	f.Return()
	b.Export("almost_eq", f)

	get := b.Import("hal.devices.get", "0i_r")
	devAlloc := b.Import("hal.device.allocator", "0r_r")
	allocate := b.Import("hal.allocator.allocate", "0rIiiI_r")
	cbCreate := b.Import("hal.command_buffer.create", "0riiIi_r")
	cbBegin := b.Import("hal.command_buffer.begin", "0r_v")
	fill := b.Import("hal.command_buffer.fill_buffer", "0rrIIii_v")
	cbEnd := b.Import("hal.command_buffer.end", "0r_v")
	submit := b.Import("hal.ex.submit_and_wait", "0rr_v")
	vbuf := b.Import("hal.buffer_view.buffer", "0r_r")
	blen := b.Import("hal.buffer.length", "0r_I")
	vcreate := b.Import("hal.buffer_view.create", "0rIIiiCID_r")
	dim := b.Import("hal.buffer_view.dim", "0ri_I")
	etype := b.Import("hal.buffer_view.element_type", "0r_i")

	f = b.Function("filled", "0ri_v")
	i32 := func(v int32) vm.Reg { r := f.NewI32(); f.ConstI32(r, v); return r }
	i64 := func(v int64) vm.Reg { r := f.NewI64(); f.ConstI64(r, v); return r }
	view, pattern := f.Arg(0), f.Arg(1)
	dev, alloc, src, buf, cb, out := f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg()
	size, n, et := f.NewI64(), f.NewI64(), f.NewI32()
	f.CallImport(get, []vm.Reg{i32(0)}, []vm.Reg{dev})
	f.CallImport(devAlloc, []vm.Reg{dev}, []vm.Reg{alloc})
	f.CallImport(vbuf, []vm.Reg{view}, []vm.Reg{src})
	f.CallImport(blen, []vm.Reg{src}, []vm.Reg{size})
	// Device-local memory, as compiled programs allocate their results.
	f.CallImport(allocate, []vm.Reg{alloc, i64(-1), i32(int32(hal.MemoryTypeDeviceLocal)), i32(int32(hal.BufferUsageDefault)), size}, []vm.Reg{buf})
	f.CallImport(cbCreate, []vm.Reg{dev, i32(1), i32(3), i64(-1), i32(0)}, []vm.Reg{cb})
	f.CallImport(cbBegin, []vm.Reg{cb}, nil)
	f.CallImport(fill, []vm.Reg{cb, buf, i64(0), size, pattern, i32(4)}, nil)
	f.CallImport(cbEnd, []vm.Reg{cb}, nil)
	f.CallImport(submit, []vm.Reg{dev, cb}, nil)
	f.CallImport(dim, []vm.Reg{view, i32(0)}, []vm.Reg{n})
	f.CallImport(etype, []vm.Reg{view}, []vm.Reg{et})
	f.CallImportVariadic(vcreate, []int{1}, []vm.Reg{buf, i64(0), size, et, i32(1), n}, []vm.Reg{out})
	f.CallImport(eq, []vm.Reg{dev, out, view}, nil)
	f.Return()
	b.Export("filled", f)

	data, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatalf("LoadBytecodeModule: %v", err)
	}
	return m
}

// harness is one device with a context of the hal module, the check module
// and program.
type harness struct {
	dev   hal.Device
	check *check.Module
	ctx   *vm.Context
}

// devices are the drivers the tests run on; vulkan runs where a Vulkan
// device (lavapipe will do) exists.
var devices = []string{"local-sync", "local-task", "vulkan"}

func newHarness(t *testing.T, uri string) *harness {
	t.Helper()
	reg := &hal.Registry{}
	if err := drivers.Register(reg, drivers.Options{}); err != nil {
		t.Fatal(err)
	}
	dev, err := reg.CreateDevice(uri)
	if err != nil {
		if uri == "vulkan" {
			t.Skipf("no Vulkan device: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	hm, err := halmodule.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	cm := check.New()
	ctx, err := vm.NewInstance().NewContext(hm, cm, program(t))
	if err != nil {
		t.Fatalf("NewContext: %v", err)
	}
	t.Cleanup(func() { ctx.Close() })
	return &harness{dev: dev, check: cm, ctx: ctx}
}

func (h *harness) call(t *testing.T, name string, args ...vm.Value) ([]vm.Value, error) {
	t.Helper()
	fn, err := h.ctx.LookupFunction(name)
	if err != nil {
		t.Fatal(err)
	}
	return h.ctx.Invoke(fn, args)
}

// view makes a buffer view on the device from IREE's text form
// ("2x2xf32=1 2 3 4").
func (h *harness) view(t *testing.T, spec string) vm.Value {
	t.Helper()
	b, err := bufferfmt.Parse(spec)
	if err != nil {
		t.Fatalf("parsing %q: %v", spec, err)
	}
	buf, err := h.dev.Allocator().AllocateBuffer(hal.BufferParams{}, max(int64(len(b.Data)), 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Data) > 0 {
		if err := buf.Write(0, b.Data); err != nil {
			t.Fatal(err)
		}
	}
	v, err := hal.NewBufferView(buf, b.Shape, b.ElementType, hal.EncodingDenseRowMajor)
	if err != nil {
		t.Fatal(err)
	}
	ref := vm.RefValue(halmodule.BufferViewRef(v))
	t.Cleanup(func() { vm.ReleaseValues([]vm.Value{ref}) })
	return ref
}

func (h *harness) device() vm.Value { return vm.RefValue(halmodule.DeviceRef(h.dev)) }

func TestExpectTrueFalse(t *testing.T) {
	h := newHarness(t, "local-sync")
	for _, tc := range []struct {
		a, b int32
		want []string
	}{
		{1, 0, nil},
		{-3, 0, nil},
		{0, 0, []string{"truths.mlir:3:5: check.expect_true: Expected 0 to be nonzero."}},
		{5, 2, []string{"truths.mlir:4:5: check.expect_false: Expected 2 to be zero."}},
		// Both fail: the first failure does not stop the function.
		{0, -1, []string{"truths.mlir:3:5: check.expect_true: Expected 0 to be nonzero.", "truths.mlir:4:5: check.expect_false: Expected -1 to be zero."}},
	} {
		res, err := h.call(t, "truths", vm.I32(tc.a), vm.I32(tc.b))
		if err != nil {
			t.Fatalf("truths(%d, %d): %v", tc.a, tc.b, err)
		}
		if res[0].I32() != 7 {
			t.Errorf("truths(%d, %d) returned %v, want 7 (the function runs on after a failure)", tc.a, tc.b, res[0])
		}
		var got []string
		for _, f := range h.check.TakeFailures() {
			got = append(got, f.String())
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("truths(%d, %d) failures:\n%s\nwant:\n%s", tc.a, tc.b, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// viewCases check buffer views on every device. want is the whole failure
// message ("" when the expectation holds); wantErr a substring of the
// error that ends the call.
var viewCases = []struct {
	name       string
	fn         string
	lhs, rhs   string
	atol, rtol float32
	want       string
	wantErr    string
}{
	{name: "all_true i32", fn: "all_true", lhs: "2x2xi32=1 -1 7 2"},
	{name: "all_true i32 zero", fn: "all_true", lhs: "2x2xi32=1 2 0 4",
		want: "Expected all elements to be nonzero. The first zero is at index 2.\n  operand:\n    2x2xi32=[1 2][0 4]"},
	{name: "all_true i1", fn: "all_true", lhs: "3xi1=1 1 1"},
	{name: "all_true i8 zero", fn: "all_true", lhs: "3xi8=1 0 1",
		want: "Expected all elements to be nonzero. The first zero is at index 1.\n  operand:\n    3xi8=1 0 1"},
	{name: "all_true i64 high bits", fn: "all_true", lhs: "2xi64=4294967296 1"},
	{name: "all_true ui16", fn: "all_true", lhs: "2xui16=65535 1"},
	{name: "all_true f32 negative zero", fn: "all_true", lhs: "2xf32=1 -0",
		want: "Expected all elements to be nonzero. The first zero is at index 1.\n  operand:\n    2xf32=1 -0"},
	{name: "all_true f16 nan is true", fn: "all_true", lhs: "2xf16=nan 0.5"},
	{name: "all_true bf16", fn: "all_true", lhs: "2xbf16=0 1",
		want: "Expected all elements to be nonzero. The first zero is at index 0.\n  operand:\n    2xbf16=0 1"},

	{name: "eq i32", fn: "eq", lhs: "5xi32=1 2 3 4 5", rhs: "5xi32=1 2 3 4 5"},
	{name: "eq i32 differ", fn: "eq", lhs: "5xi32=1 2 3 4 5", rhs: "5xi32=1 2 3 9 5",
		want: "Expected equality of these values. Contents does not match. The first failure occurs at index 3 as the lhs value 4 differs from the rhs value 9.\n  lhs:\n    5xi32=1 2 3 4 5\n  rhs:\n    5xi32=1 2 3 9 5"},
	{name: "eq rank 0", fn: "eq", lhs: "f32=-5", rhs: "f32=-5"},
	{name: "eq rank 0 differ", fn: "eq", lhs: "i64=-5", rhs: "i64=5",
		want: "Expected equality of these values. Contents does not match. The first failure occurs at index 0 as the lhs value -5 differs from the rhs value 5.\n  lhs:\n    i64=-5\n  rhs:\n    i64=5"},
	{name: "eq element types", fn: "eq", lhs: "2xi32=1 2", rhs: "2xf32=1 2",
		want: "Expected equality of these values. Element types do not match. Contents does not match.\n  lhs:\n    2xi32=1 2\n  rhs:\n    2xf32=1 2"},
	{name: "eq shapes same bytes", fn: "eq", lhs: "2x2xi8=1 2 3 4", rhs: "4xi8=1 2 3 4",
		want: "Expected equality of these values. Shapes do not match.\n  lhs:\n    2x2xi8=[1 2][3 4]\n  rhs:\n    4xi8=1 2 3 4"},
	{name: "eq shapes", fn: "eq", lhs: "2xi16=1 2", rhs: "3xi16=1 2 3",
		want: "Expected equality of these values. Shapes do not match. Contents does not match.\n  lhs:\n    2xi16=1 2\n  rhs:\n    3xi16=1 2 3"},
	// Bitwise, as IREE compares: -0 is not 0.
	{name: "eq f32 negative zero", fn: "eq", lhs: "2xf32=0 1", rhs: "2xf32=-0 1",
		want: "Expected equality of these values. Contents does not match. The first failure occurs at index 0 as the lhs value 0 differs from the rhs value -0.\n  lhs:\n    2xf32=0 1\n  rhs:\n    2xf32=-0 1"},
	{name: "eq f64", fn: "eq", lhs: "2xf64=0.1 1e300", rhs: "2xf64=0.1 1e300"},
	{name: "eq i1", fn: "eq", lhs: "3xi1=1 0 1", rhs: "3xi1=1 0 1"},
	{name: "eq empty", fn: "eq", lhs: "0xi32=", rhs: "0xi32="},

	{name: "almost_eq f32", fn: "almost_eq", lhs: "5xf32=1 2 3 4 5", rhs: "5xf32=0.999999 2 3 4 5", atol: 1e-4},
	// IREE's failure.mlir expects exactly these messages.
	{name: "almost_eq f32 IREE message", fn: "almost_eq", lhs: "5xf32=1 2 3 4 5", rhs: "5xf32=0.999 2 3 4 5", atol: 1e-4,
		want: "Expected near equality of these values. Contents does not match to tolerance parameters atol=0.0001, rtol=0. The first failure occurs at index 0 as the lhs value 1 differs from the rhs value 0.999 by -1.000e-03.\n  lhs:\n    5xf32=1 2 3 4 5\n  rhs:\n    5xf32=0.999 2 3 4 5"},
	{name: "almost_eq f64 IREE message", fn: "almost_eq", lhs: "5xf64=1 2 3 4 5", rhs: "5xf64=0.98 2 3 4 5", atol: 1e-2,
		want: "Expected near equality of these values. Contents does not match to tolerance parameters atol=0.01, rtol=0. The first failure occurs at index 0 as the lhs value 1 differs from the rhs value 0.98 by -2.000e-02.\n  lhs:\n    5xf64=1 2 3 4 5\n  rhs:\n    5xf64=0.98 2 3 4 5"},
	{name: "almost_eq f16 IREE message", fn: "almost_eq", lhs: "2xf16=0 100", rhs: "2xf16=0.011 99", atol: 1e-2, rtol: 1e-2,
		want: "Expected near equality of these values. Contents does not match to tolerance parameters atol=0.01, rtol=0.01. The first failure occurs at index 0 as the lhs value 0 differs from the rhs value 0.0110016 by 1.100e-02.\n  lhs:\n    2xf16=0 100\n  rhs:\n    2xf16=0.0110016 99"},
	{name: "almost_eq bf16 IREE message", fn: "almost_eq", lhs: "2xbf16=0 100", rhs: "2xbf16=0.009 98", atol: 1e-2, rtol: 1e-2,
		want: "Expected near equality of these values. Contents does not match to tolerance parameters atol=0.01, rtol=0.01. The first failure occurs at index 1 as the lhs value 100 differs from the rhs value 98 by -2.000e+00.\n  lhs:\n    2xbf16=0 100\n  rhs:\n    2xbf16=0.00897217 98"},
	// IREE's success.mlir: within tolerance on both sides.
	{name: "almost_eq f16 passes", fn: "almost_eq", lhs: "2xf16=0 100", rhs: "2xf16=0.009 99", atol: 1.5e-2, rtol: 1.5e-2},
	{name: "almost_eq bf16 passes", fn: "almost_eq", lhs: "2xbf16=0 100", rhs: "2xbf16=0.009 99", atol: 1.5e-2, rtol: 1.5e-2},
	// rtol scales with the rhs: |100 - 90| <= 0.1*100 but not <= 0.1*90.
	{name: "almost_eq rtol scales rhs", fn: "almost_eq", lhs: "f32=90", rhs: "f32=100", rtol: 0.1},
	{name: "almost_eq rtol asymmetric", fn: "almost_eq", lhs: "f32=100", rhs: "f32=90", rtol: 0.1,
		want: "Expected near equality of these values. Contents does not match to tolerance parameters atol=0, rtol=0.1. The first failure occurs at index 0 as the lhs value 100 differs from the rhs value 90 by -1.000e+01.\n  lhs:\n    f32=100\n  rhs:\n    f32=90"},
	{name: "almost_eq nan equals nan", fn: "almost_eq", lhs: "3xf32=nan 1 inf", rhs: "3xf32=nan 1 inf"},
	{name: "almost_eq nan vs number", fn: "almost_eq", lhs: "2xf32=1 nan", rhs: "2xf32=1 1", atol: 1,
		want: "Expected near equality of these values. Contents does not match to tolerance parameters atol=1, rtol=0. The first failure occurs at index 1 as the lhs value nan differs from the rhs value 1 by nan.\n  lhs:\n    2xf32=1 NAN\n  rhs:\n    2xf32=1 1"},
	{name: "almost_eq inf needs inf", fn: "almost_eq", lhs: "f64=1e308", rhs: "f64=inf", atol: float32(math.Inf(1)),
		want: "Expected near equality of these values. Contents does not match to tolerance parameters atol=inf, rtol=0. The first failure occurs at index 0 as the lhs value 1e+308 differs from the rhs value inf by inf.\n  lhs:\n    f64=1E+308\n  rhs:\n    f64=INF"},
	{name: "almost_eq shapes", fn: "almost_eq", lhs: "2xf32=1 2", rhs: "1x2xf32=1 2", atol: 1e-4,
		want: "Expected near equality of these values. Shapes do not match.\n  lhs:\n    2xf32=1 2\n  rhs:\n    1x2xf32=[1 2]"},
	{name: "almost_eq element types", fn: "almost_eq", lhs: "2xf32=1 2", rhs: "2xf16=1 2", atol: 1e-4,
		want: "Expected near equality of these values. Element types do not match.\n  lhs:\n    2xf32=1 2\n  rhs:\n    2xf16=1 2"},
	{name: "almost_eq integers", fn: "almost_eq", lhs: "2xi32=1 2", rhs: "2xi32=1 2", atol: 1e-4,
		wantErr: "check.expect_almost_eq: INVALID_ARGUMENT; unsupported element type i32"},
}

func TestExpectBufferViews(t *testing.T) {
	for _, uri := range devices {
		t.Run(uri, func(t *testing.T) {
			h := newHarness(t, uri)
			for _, tc := range viewCases {
				args := []vm.Value{h.device(), h.view(t, tc.lhs)}
				if tc.rhs != "" {
					args = append(args, h.view(t, tc.rhs))
				}
				if tc.fn == "almost_eq" {
					// atol 0 in the table means 0 when rtol is given,
					// else a test of rtol alone; both are passed as is.
					args = append(args, vm.F32(tc.atol), vm.F32(tc.rtol))
				}
				_, err := h.call(t, tc.fn, args...)
				failures := h.check.TakeFailures()
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.wantErr)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", tc.name, err)
					continue
				}
				var got string
				if len(failures) > 1 {
					t.Errorf("%s: %d failures, want at most 1: %v", tc.name, len(failures), failures)
				}
				if len(failures) > 0 {
					got = failures[0].Message
					if failures[0].Location != "" {
						t.Errorf("%s: location %q for a module without locations", tc.name, failures[0].Location)
					}
					if want := "expect_" + tc.fn; failures[0].Function != want {
						t.Errorf("%s: failure of %s, want %s", tc.name, failures[0].Function, want)
					}
				}
				if got != tc.want {
					t.Errorf("%s: failure message\n%s\nwant\n%s", tc.name, got, tc.want)
				}
			}
		})
	}
}

// TestDeviceFilled checks a view the device wrote (a queue fill into
// device-local memory) against one written by the host.
func TestDeviceFilled(t *testing.T) {
	for _, uri := range devices {
		t.Run(uri, func(t *testing.T) {
			h := newHarness(t, uri)
			const pattern = 0x3F800000 // 1.0f
			if _, err := h.call(t, "filled", h.view(t, "6xf32=1"), vm.I32(pattern)); err != nil {
				t.Fatal(err)
			}
			if f := h.check.TakeFailures(); len(f) != 0 {
				t.Errorf("equal contents reported failures: %v", f)
			}
			if _, err := h.call(t, "filled", h.view(t, "6xf32=1 1 1 1 2 1"), vm.I32(pattern)); err != nil {
				t.Fatal(err)
			}
			f := h.check.TakeFailures()
			want := "Expected equality of these values. Contents does not match. The first failure occurs at index 4 as the lhs value 1 differs from the rhs value 2.\n  lhs:\n    6xf32=1 1 1 1 1 1\n  rhs:\n    6xf32=1 1 1 1 2 1"
			if len(f) != 1 || f[0].Message != want {
				t.Errorf("failures %q, want one: %q", f, want)
			}
		})
	}
}

func TestBadArguments(t *testing.T) {
	h := newHarness(t, "local-sync")
	null := vm.RefValue(vm.Ref{})
	v := h.view(t, "2xf32=1 2")
	// Complex numbers have no truth value (nor a text form to parse).
	cbuf, err := h.dev.Allocator().AllocateBuffer(hal.BufferParams{}, 16)
	if err != nil {
		t.Fatal(err)
	}
	cview, err := hal.NewBufferView(cbuf, hal.Shape{2}, hal.ElementTypeCF64, hal.EncodingDenseRowMajor)
	if err != nil {
		t.Fatal(err)
	}
	complexView := vm.RefValue(halmodule.BufferViewRef(cview))
	defer vm.ReleaseValues([]vm.Value{complexView})
	for _, tc := range []struct {
		fn      string
		args    []vm.Value
		wantErr string
	}{
		{"eq", []vm.Value{h.device(), null, v}, "check.expect_eq: INVALID_ARGUMENT; argument 1 (lhs) is null, want a hal.buffer_view"},
		{"eq", []vm.Value{h.device(), v, h.device()}, "check.expect_eq: INVALID_ARGUMENT; argument 2 (rhs) is a hal.device ref, want hal.buffer_view"},
		{"all_true", []vm.Value{v, v}, "check.expect_all_true: INVALID_ARGUMENT; argument 0 (device) is a hal.buffer_view ref, want hal.device"},
		{"all_true", []vm.Value{h.device(), complexView}, "check.expect_all_true: INVALID_ARGUMENT; unsupported element type cf64"},
		// A null device is accepted: the views are read through their buffers.
		{"all_true", []vm.Value{null, v}, ""},
	} {
		_, err := h.call(t, tc.fn, tc.args...)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.fn, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: error %v, want one containing %q", tc.fn, err, tc.wantErr)
		}
	}
	if f := h.check.TakeFailures(); len(f) != 0 {
		t.Errorf("bad arguments recorded failures: %v", f)
	}
	// Invoked directly, not from bytecode: no caller, no location.
	if _, err := h.call(t, "check.expect_true", vm.I32(0)); err != nil {
		t.Fatal(err)
	}
	if f := h.check.TakeFailures(); len(f) != 1 || f[0].String() != "check.expect_true: Expected 0 to be nonzero." {
		t.Errorf("direct call: failures %q", f)
	}
}

// TestLongViewsTruncated: messages print at most MaxPrintedElements
// elements of a view, and name the mismatching index beyond them.
func TestLongViewsTruncated(t *testing.T) {
	h := newHarness(t, "local-task")
	const n = 5000
	lhs := h.view(t, "5000xi32=3")
	vals := make([]string, n)
	for i := range vals {
		vals[i] = "3"
	}
	vals[4321] = "4"
	rhs := h.view(t, "5000xi32="+strings.Join(vals, " "))
	if _, err := h.call(t, "eq", h.device(), lhs, rhs); err != nil {
		t.Fatal(err)
	}
	f := h.check.TakeFailures()
	if len(f) != 1 {
		t.Fatalf("%d failures, want 1", len(f))
	}
	msg := f[0].Message
	if !strings.Contains(msg, "at index 4321 as the lhs value 3 differs from the rhs value 4") {
		t.Errorf("message does not name index 4321: %.200s", msg)
	}
	lines := strings.Split(msg, "\n")
	if len(lines) != 5 {
		t.Fatalf("message has %d lines, want 5", len(lines))
	}
	for _, l := range []string{lines[2], lines[4]} {
		if !strings.HasSuffix(l, "...") || strings.Count(l, " ") != check.MaxPrintedElements+3 {
			t.Errorf("view line of %d bytes is not cut at %d elements: %.60s...%s", len(l), check.MaxPrintedElements, l, l[len(l)-20:])
		}
	}
}
