package hal_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// env is a context holding the hal module bound to dev and one program.
type env struct {
	dev hal.Device
	ctx *vm.Context
}

func newEnv(t *testing.T, dev hal.Device, b *vm.ModuleBuilder, trace *bytes.Buffer) *env {
	t.Helper()
	data, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatalf("LoadBytecodeModule: %v", err)
	}
	hm, err := halmodule.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	if trace != nil {
		hm.SetTrace(trace)
	}
	ctx, err := vm.NewInstance().NewContext(hm, m)
	if err != nil {
		t.Fatalf("NewContext: %v", err)
	}
	return &env{dev: dev, ctx: ctx}
}

func (e *env) call(t *testing.T, name string, args ...vm.Value) ([]vm.Value, error) {
	t.Helper()
	fn, err := e.ctx.LookupFunction(name)
	if err != nil {
		t.Fatal(err)
	}
	return e.ctx.Invoke(fn, args)
}

func syncDevice(t *testing.T) hal.Device {
	t.Helper()
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

func f32View(t *testing.T, dev hal.Device, vals []float32) vm.Value {
	t.Helper()
	buf, err := dev.Allocator().AllocateBuffer(hal.BufferParams{}, int64(4*len(vals)))
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	if err := buf.Write(0, raw); err != nil {
		t.Fatal(err)
	}
	view, err := hal.NewBufferView(buf, hal.Shape{int64(len(vals))}, hal.ElementTypeF32, hal.EncodingDenseRowMajor)
	if err != nil {
		t.Fatal(err)
	}
	return vm.RefValue(halmodule.BufferViewRef(view))
}

func readF32(t *testing.T, v vm.Value) []float32 {
	t.Helper()
	view, err := halmodule.BufferViewOf(v)
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, view.ByteLength())
	if err := view.Buffer().Read(0, raw); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

// mulProgram builds "mul(a, b) -> view": c = a*b through kerneltest's
// simple_mul export, submitted with ex.submit_and_wait (sync) or with
// fences (async). It also exports "supported() -> (ok, value)" querying
// the executable format.
func mulProgram(elf []byte, async bool, workgroups int32) *vm.ModuleBuilder {
	b := vm.NewModuleBuilder("prog")
	imp := func(n, cc string) vm.ImportRef { return b.Import("hal."+n, cc) }
	get := imp("devices.get", "0i_r")
	query := imp("device.query.i64", "0rrr_iI")
	query32 := imp("device.query.i32", "0rrr_ii")
	dim := imp("buffer_view.dim", "0ri_I")
	vbuf := imp("buffer_view.buffer", "0r_r")
	vcreate := imp("buffer_view.create", "0rIIiiCID_r")
	devAlloc := imp("device.allocator", "0r_r")
	allocate := imp("allocator.allocate", "0rIiiI_r")
	exeCreate := imp("executable.create", "0rIrrr_r")
	cbCreate := imp("command_buffer.create", "0riiIi_r")
	cbBegin := imp("command_buffer.begin", "0r_v")
	pushC := imp("command_buffer.push_constants", "0riCiD_v")
	pushD := imp("command_buffer.push_descriptor_set", "0riCirIID_v")
	dispatch := imp("command_buffer.dispatch", "0rriiii_v")
	cbFinalize := imp("command_buffer.finalize", "0r_v")
	submit := imp("ex.submit_and_wait", "0rr_v")
	fenceCreate := imp("fence.create", "0rI_r")
	execute := imp("device.queue.execute", "0rIrrCrD_v")
	await := imp("fence.await", "0iCrD_i")
	format := b.Rodata([]byte("embedded-elf-x86_64"), "")
	category := b.Rodata([]byte("hal.executable.format"), "")
	kernel := b.Rodata(elf, "application/x-elf")

	q := b.Function("supported", "0v_iIii")
	{
		z, dev, c, k := q.NewI32(), q.NewRefReg(), q.NewRefReg(), q.NewRefReg()
		ok, v, ok2, v2 := q.NewI32(), q.NewI64(), q.NewI32(), q.NewI32()
		q.ConstI32(z, 0)
		q.CallImport(get, []vm.Reg{z}, []vm.Reg{dev})
		q.Emit(vm.OpConstRefRodata, c, category)
		q.Emit(vm.OpConstRefRodata, k, format)
		q.CallImport(query, []vm.Reg{dev, c, k}, []vm.Reg{ok, v})
		// An unknown query category answers ok = 0.
		q.CallImport(query32, []vm.Reg{dev, k, k}, []vm.Reg{ok2, v2})
		q.Return(ok, v, ok2, v2)
	}
	b.Export("supported", q)

	f := b.Function("mul", "0rr_r")
	a, bb := f.Arg(0), f.Arg(1)
	i32 := func(v int32) vm.Reg { r := f.NewI32(); f.ConstI32(r, v); return r }
	i64 := func(v int64) vm.Reg { r := f.NewI64(); f.ConstI64(r, v); return r }
	ref := f.NewRefReg
	dev, exe, fm, kd, null := ref(), ref(), ref(), ref(), ref()
	f.CallImport(get, []vm.Reg{i32(0)}, []vm.Reg{dev})
	f.Emit(vm.OpConstRefRodata, fm, format)
	f.Emit(vm.OpConstRefRodata, kd, kernel)
	f.Emit(vm.OpConstRefZero, null)
	f.CallImport(exeCreate, []vm.Reg{dev, i64(-1), fm, kd, null}, []vm.Reg{exe})
	n := f.NewI64()
	f.CallImport(dim, []vm.Reg{a, i32(0)}, []vm.Reg{n})
	n32 := f.NewI32()
	f.Emit(vm.OpTruncI64I32, n32, n)
	ba, bb2, alloc, out := ref(), ref(), ref(), ref()
	f.CallImport(vbuf, []vm.Reg{a}, []vm.Reg{ba})
	f.CallImport(vbuf, []vm.Reg{bb}, []vm.Reg{bb2})
	f.CallImport(devAlloc, []vm.Reg{dev}, []vm.Reg{alloc})
	size := f.NewI64()
	f.Emit(vm.OpMulI64, size, n, i64(4))
	f.CallImport(allocate, []vm.Reg{alloc, i64(-1), i32(0), i32(0), size}, []vm.Reg{out})
	cb := ref()
	f.CallImport(cbCreate, []vm.Reg{dev, i32(1), i32(0), i64(-1), i32(0)}, []vm.Reg{cb})
	f.CallImport(cbBegin, []vm.Reg{cb}, nil)
	f.CallImportVariadic(pushC, []int{1}, []vm.Reg{cb, i32(0), n32}, nil)
	f.CallImportVariadic(pushD, []int{3}, []vm.Reg{cb, i32(0),
		i32(0), ba, i64(0), i64(-1), i32(1), bb2, i64(0), i64(-1), i32(2), out, i64(0), i64(-1)}, nil)
	wg := f.NewI32()
	if workgroups >= 0 {
		f.ConstI32(wg, workgroups)
	} else {
		f.Emit(vm.OpCeilDivI32U, wg, n32, i32(64))
	}
	f.CallImport(dispatch, []vm.Reg{cb, exe, i32(0), wg, i32(1), i32(1)}, nil)
	f.CallImport(cbFinalize, []vm.Reg{cb}, nil)
	if async {
		fence, st := ref(), f.NewI32()
		f.CallImport(fenceCreate, []vm.Reg{dev, i64(0)}, []vm.Reg{fence})
		f.CallImportVariadic(execute, []int{1}, []vm.Reg{dev, i64(-1), null, fence, cb}, nil)
		f.CallImportVariadic(await, []int{1}, []vm.Reg{i32(-1), fence}, []vm.Reg{st})
		ok, bad := f.NewLabel(), f.NewLabel()
		f.CondBr(st, bad, ok)
		f.Bind(bad)
		f.Fail(st, "await failed")
		f.Bind(ok)
	} else {
		f.CallImport(submit, []vm.Reg{dev, cb}, nil)
	}
	res := ref()
	f.CallImportVariadic(vcreate, []int{1}, []vm.Reg{out, i64(0), i64(-1), i32(int32(hal.ElementTypeF32)), i32(1), n}, []vm.Reg{res})
	f.Return(res)
	b.Export("mul", f)
	return b
}

func TestDispatchThroughModule(t *testing.T) {
	elf := kerneltest.MulLibrary(t)
	taskDev, err := localtask.NewDevice(localtask.Options{GroupCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taskDev.Close() })
	const n = 1000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), 0.5
	}
	for _, tc := range []struct {
		name  string
		dev   hal.Device
		async bool
	}{{"local-sync/submit_and_wait", syncDevice(t), false}, {"local-task/fences", taskDev, true}} {
		var trace bytes.Buffer
		e := newEnv(t, tc.dev, mulProgram(elf, tc.async, -1), &trace)
		res, err := e.call(t, "supported")
		if err != nil || res[0].I32() != 1 || res[1].I64() != 1 || res[2].I32() != 0 || res[3].I32() != 0 {
			t.Fatalf("%s: supported() = %v, %v", tc.name, res, err)
		}
		res, err = e.call(t, "mul", f32View(t, tc.dev, a), f32View(t, tc.dev, b))
		if err != nil {
			t.Fatalf("%s: mul: %v", tc.name, err)
		}
		got := readF32(t, res[0])
		if len(got) != n {
			t.Fatalf("%s: %d results", tc.name, len(got))
		}
		for i, v := range got {
			if v != float32(i)*0.5 {
				t.Fatalf("%s: c[%d] = %v, want %v", tc.name, i, v, float32(i)*0.5)
			}
		}
		if !strings.Contains(trace.String(), "[hal] command_buffer.dispatch(ref<hal.command_buffer>, ref<hal.executable>, i32=0, i32=16, i32=1, i32=1) -> ()") {
			t.Errorf("%s: trace lacks the dispatch:\n%s", tc.name, trace.String())
		}
	}
}

func TestBadExecutable(t *testing.T) {
	dev := syncDevice(t)
	e := newEnv(t, dev, mulProgram([]byte("not an elf"), false, -1), nil)
	_, err := e.call(t, "mul", f32View(t, dev, []float32{1}), f32View(t, dev, []float32{2}))
	if err == nil || !strings.Contains(err.Error(), "hal.executable.create") {
		t.Errorf("bad ELF: %v", err)
	}
}

func TestDispatchValidation(t *testing.T) {
	elf := kerneltest.MulLibrary(t)
	dev := syncDevice(t)
	// Inputs of different lengths: the kernel clamps at the shortest
	// binding. Zero workgroups dispatch nothing and the view still returns.
	e := newEnv(t, dev, mulProgram(elf, false, -1), nil)
	if _, err := e.call(t, "mul", f32View(t, dev, []float32{1, 2}), f32View(t, dev, []float32{3})); err != nil {
		t.Fatalf("clamped dispatch: %v", err)
	}
	e = newEnv(t, dev, mulProgram(elf, false, 0), nil)
	res, err := e.call(t, "mul", f32View(t, dev, []float32{1}), f32View(t, dev, []float32{2}))
	if err != nil {
		t.Fatalf("zero workgroups: %v", err)
	}
	if len(readF32(t, res[0])) != 1 {
		t.Error("zero-workgroup dispatch changed the result shape")
	}
}

// scalarProgram exercises buffer, view and fence imports; each export
// returns values the test checks.
func scalarProgram() *vm.ModuleBuilder {
	b := vm.NewModuleBuilder("ops")
	imp := func(n, cc string) vm.ImportRef { return b.Import("hal."+n, cc) }
	get := imp("devices.get", "0i_r")
	count := imp("devices.count", "0v_i")
	devAlloc := imp("device.allocator", "0r_r")
	allocate := imp("allocator.allocate", "0rIiiI_r")
	store := imp("buffer.store", "0irIi_v")
	load := imp("buffer.load", "0rIi_i")
	length := imp("buffer.length", "0r_I")
	subspan := imp("buffer.subspan", "0rII_r")
	vcreate := imp("buffer_view.create", "0rIIiiCID_r")
	rank := imp("buffer_view.rank", "0r_i")
	vdim := imp("buffer_view.dim", "0ri_I")
	etype := imp("buffer_view.element_type", "0r_i")
	enc := imp("buffer_view.encoding_type", "0r_i")
	vassert := imp("buffer_view.assert", "0rriiCID_v")
	cbCreate := imp("command_buffer.create", "0riiIi_r")
	fill := imp("command_buffer.fill_buffer", "0rrIIii_v")
	update := imp("command_buffer.update_buffer", "0rrIrII_v")
	cp := imp("command_buffer.copy_buffer", "0rrIrII_v")
	barrier := imp("command_buffer.execution_barrier", "0riiI_v")
	end := imp("command_buffer.end", "0r_v")
	submit := imp("ex.submit_and_wait", "0rr_v")
	fenceCreate := imp("fence.create", "0rI_r")
	fenceQuery := imp("fence.query", "0r_i")
	fenceSignal := imp("fence.signal", "0r_v")
	fenceJoin := imp("fence.join", "0CrD_r")
	fenceAwait := imp("fence.await", "0iCrD_i")
	msg := b.Rodata([]byte("arg"), "")
	src := b.Rodata([]byte{9, 8, 7, 6}, "")

	// ops() -> (count, len, sub_len, loaded, rank, dim1, etype, enc,
	//           pending, signaled, timed_out, copied)
	f := b.Function("ops", "0v_iIIiiIiiiiii")
	i32 := func(v int32) vm.Reg { r := f.NewI32(); f.ConstI32(r, v); return r }
	i64 := func(v int64) vm.Reg { r := f.NewI64(); f.ConstI64(r, v); return r }
	ref := f.NewRefReg
	dev, alloc, buf, sub, view := ref(), ref(), ref(), ref(), ref()
	cnt, ld, rk, et, en, pend, sig, to, copied := f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32()
	ln, sl, d1 := f.NewI64(), f.NewI64(), f.NewI64()
	f.CallImport(count, nil, []vm.Reg{cnt})
	f.CallImport(get, []vm.Reg{i32(0)}, []vm.Reg{dev})
	f.CallImport(devAlloc, []vm.Reg{dev}, []vm.Reg{alloc})
	f.CallImport(allocate, []vm.Reg{alloc, i64(-1), i32(0), i32(0), i64(64)}, []vm.Reg{buf})
	f.CallImport(store, []vm.Reg{i32(0x12345678), buf, i64(8), i32(4)}, nil)
	f.CallImport(length, []vm.Reg{buf}, []vm.Reg{ln})
	f.CallImport(subspan, []vm.Reg{buf, i64(8), i64(16)}, []vm.Reg{sub})
	f.CallImport(length, []vm.Reg{sub}, []vm.Reg{sl})
	f.CallImport(load, []vm.Reg{sub, i64(0), i32(2)}, []vm.Reg{ld})
	f.CallImportVariadic(vcreate, []int{2}, []vm.Reg{buf, i64(0), i64(-1), i32(int32(hal.ElementTypeI32)), i32(1), i64(4), i64(4)}, []vm.Reg{view})
	f.CallImport(rank, []vm.Reg{view}, []vm.Reg{rk})
	f.CallImport(vdim, []vm.Reg{view, i32(1)}, []vm.Reg{d1})
	f.CallImport(etype, []vm.Reg{view}, []vm.Reg{et})
	f.CallImport(enc, []vm.Reg{view}, []vm.Reg{en})
	m := ref()
	f.Emit(vm.OpConstRefRodata, m, msg)
	f.CallImportVariadic(vassert, []int{2}, []vm.Reg{view, m, i32(int32(hal.ElementTypeI32)), i32(1), i64(4), i64(4)}, nil)
	// Fill bytes [32, 48) with 0xAB, update [48, 52) from rodata, copy
	// [48, 52) to [0, 4), then read byte 1 back (8).
	cb, s := ref(), ref()
	f.CallImport(cbCreate, []vm.Reg{dev, i32(1), i32(0), i64(-1), i32(0)}, []vm.Reg{cb})
	f.CallImport(fill, []vm.Reg{cb, buf, i64(32), i64(16), i32(0xAB), i32(1)}, nil)
	f.Emit(vm.OpConstRefRodata, s, src)
	f.CallImport(update, []vm.Reg{cb, s, i64(0), buf, i64(48), i64(4)}, nil)
	f.CallImport(barrier, []vm.Reg{cb, i32(0), i32(0), i64(0)}, nil)
	f.CallImport(cp, []vm.Reg{cb, buf, i64(48), buf, i64(0), i64(4)}, nil)
	f.CallImport(end, []vm.Reg{cb}, nil)
	f.CallImport(submit, []vm.Reg{dev, cb}, nil)
	f.CallImport(load, []vm.Reg{buf, i64(1), i32(1)}, []vm.Reg{copied})
	// Fences: pending, then signaled; awaiting an unsignaled one with a
	// zero timeout reports DEADLINE_EXCEEDED (4).
	f1, f2, j := ref(), ref(), ref()
	f.CallImport(fenceCreate, []vm.Reg{dev, i64(0)}, []vm.Reg{f1})
	f.CallImport(fenceCreate, []vm.Reg{dev, i64(0)}, []vm.Reg{f2})
	f.CallImport(fenceQuery, []vm.Reg{f1}, []vm.Reg{pend})
	f.CallImport(fenceSignal, []vm.Reg{f1}, nil)
	f.CallImport(fenceQuery, []vm.Reg{f1}, []vm.Reg{sig})
	f.CallImportVariadic(fenceJoin, []int{2}, []vm.Reg{f1, f2}, []vm.Reg{j})
	f.CallImportVariadic(fenceAwait, []int{1}, []vm.Reg{i32(0), j}, []vm.Reg{to})
	f.Return(cnt, ln, sl, ld, rk, d1, et, en, pend, sig, to, copied)
	b.Export("ops", f)

	// bad(which): each value triggers one error.
	g := b.Function("bad", "0i_v")
	{
		w := g.Arg(0)
		i32 := func(v int32) vm.Reg { r := g.NewI32(); g.ConstI32(r, v); return r }
		i64 := func(v int64) vm.Reg { r := g.NewI64(); g.ConstI64(r, v); return r }
		dev, alloc, buf, view, m, r := g.NewRefReg(), g.NewRefReg(), g.NewRefReg(), g.NewRefReg(), g.NewRefReg(), g.NewRefReg()
		out := g.NewI32()
		cases := make([]vm.Label, 5)
		for i := range cases {
			cases[i] = g.NewLabel()
		}
		done := g.NewLabel()
		g.CallImport(get, []vm.Reg{i32(0)}, []vm.Reg{dev})
		g.CallImport(devAlloc, []vm.Reg{dev}, []vm.Reg{alloc})
		g.CallImport(allocate, []vm.Reg{alloc, i64(-1), i32(0), i32(0), i64(16)}, []vm.Reg{buf})
		g.Emit(vm.OpConstRefRodata, m, msg)
		for i := range cases {
			c, next := g.NewI32(), g.NewLabel()
			g.Emit(vm.OpCmpEqI32, c, w, i32(int32(i)))
			g.CondBr(c, cases[i], next)
			g.Bind(next)
		}
		g.Br(done)
		g.Bind(cases[0]) // devices.get(1)
		g.CallImport(get, []vm.Reg{i32(1)}, []vm.Reg{r})
		g.Br(done)
		g.Bind(cases[1]) // buffer.load width 3
		g.CallImport(load, []vm.Reg{buf, i64(0), i32(3)}, []vm.Reg{out})
		g.Br(done)
		g.Bind(cases[2]) // subspan out of range
		g.CallImport(subspan, []vm.Reg{buf, i64(8), i64(16)}, []vm.Reg{r})
		g.Br(done)
		g.Bind(cases[3]) // view assert mismatch (i32 view asserted as f32)
		g.CallImportVariadic(vcreate, []int{1}, []vm.Reg{buf, i64(0), i64(-1), i32(int32(hal.ElementTypeI32)), i32(1), i64(4)}, []vm.Reg{view})
		g.CallImportVariadic(vassert, []int{1}, []vm.Reg{view, m, i32(int32(hal.ElementTypeF32)), i32(1), i64(4)}, nil)
		g.Br(done)
		g.Bind(cases[4]) // a view bigger than its buffer
		g.CallImportVariadic(vcreate, []int{1}, []vm.Reg{buf, i64(0), i64(-1), i32(int32(hal.ElementTypeI32)), i32(1), i64(5)}, []vm.Reg{view})
		g.Br(done)
		g.Bind(done)
		g.Return()
	}
	b.Export("bad", g)
	return b
}

func TestBufferViewAndFenceOps(t *testing.T) {
	dev := syncDevice(t)
	e := newEnv(t, dev, scalarProgram(), nil)
	res, err := e.call(t, "ops")
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{1, 64, 16, 0x5678, 2, 4, int64(hal.ElementTypeI32), 1, 4, 0, 4, 8}
	for i, w := range want {
		if got := res[i].I64(); got != w {
			t.Errorf("ops result %d = %d, want %d", i, got, w)
		}
	}
	for i, wantErr := range []string{
		"hal.devices.get: device index 1 out of range",
		"hal.buffer.load: length 3 must be 1, 2 or 4",
		"hal.buffer.subspan",
		"arg: element type mismatch; expected f32 but have i32",
		"hal.buffer_view.create",
	} {
		_, err := e.call(t, "bad", vm.I32(int32(i)))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("bad(%d): error %v, want %q", i, err, wantErr)
		}
	}
}

func TestWrongRefTypes(t *testing.T) {
	dev := syncDevice(t)
	b := vm.NewModuleBuilder("wrong")
	for _, imp := range []struct{ name, cc, fn string }{
		{"hal.buffer.length", "0r_I", "length"},
		{"hal.buffer_view.rank", "0r_i", "rank"},
		{"hal.command_buffer.end", "0r_v", "end"},
	} {
		ref := b.Import(imp.name, imp.cc)
		f := b.Function(imp.fn, "0r_v")
		var results []vm.Reg
		switch imp.cc[len(imp.cc)-1] {
		case 'I':
			results = []vm.Reg{f.NewI64()}
		case 'i':
			results = []vm.Reg{f.NewI32()}
		}
		f.CallImport(ref, []vm.Reg{f.Arg(0)}, results)
		f.Return()
		b.Export(imp.fn, f)
	}
	e := newEnv(t, dev, b, nil)
	devRef := vm.RefValue(halmodule.DeviceRef(dev))
	for _, tt := range []struct {
		fn   string
		arg  vm.Value
		want string
	}{
		{"length", vm.RefValue(vm.Ref{}), "hal.buffer.length: argument 0: INVALID_ARGUMENT; expected a hal.buffer ref, got null"},
		{"length", devRef, "hal.buffer.length: argument 0: INVALID_ARGUMENT; expected a hal.buffer ref, got hal.device"},
		{"rank", vm.RefValue(vm.Ref{}), "hal.buffer_view.rank: argument 0: INVALID_ARGUMENT; expected a hal.buffer_view ref, got null"},
		{"rank", devRef, "hal.buffer_view.rank: argument 0: INVALID_ARGUMENT; expected a hal.buffer_view ref, got hal.device"},
		{"end", devRef, "hal.command_buffer.end: argument 0: INVALID_ARGUMENT; expected a hal.command_buffer ref, got hal.device"},
		{"end", vm.RefValue(vm.NewRef(halmodule.CommandBufferType, "not a command buffer")), "hal.command_buffer.end: argument 0: hal.command_buffer ref holds string"},
	} {
		_, err := e.call(t, tt.fn, tt.arg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s(%v): error %v, want it to contain %q", tt.fn, tt.arg, err, tt.want)
		}
	}
	if _, err := halmodule.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
}

func TestUnknownExecutableFormat(t *testing.T) {
	dev := syncDevice(t)
	b := vm.NewModuleBuilder("fmt")
	get := b.Import("hal.devices.get", "0i_r")
	create := b.Import("hal.executable.create", "0rIrrr_r")
	format := b.Rodata([]byte("cuda-nvptx-fb"), "")
	f := b.Function("f", "0v_r")
	z, aff := f.NewI32(), f.NewI64()
	dev1, fm, null, exe := f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg()
	f.ConstI32(z, 0)
	f.ConstI64(aff, -1)
	f.CallImport(get, []vm.Reg{z}, []vm.Reg{dev1})
	f.Emit(vm.OpConstRefRodata, fm, format)
	f.Emit(vm.OpConstRefZero, null)
	f.CallImport(create, []vm.Reg{dev1, aff, fm, fm, null}, []vm.Reg{exe})
	f.Return(exe)
	b.Export("f", f)
	e := newEnv(t, dev, b, nil)
	_, err := e.call(t, "f")
	if err == nil || !strings.Contains(err.Error(), `cannot run executable format "cuda-nvptx-fb"`) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestConcurrentContexts shares one hal module and one local-task device
// between contexts invoked from several goroutines at once.
func TestConcurrentContexts(t *testing.T) {
	elf := kerneltest.MulLibrary(t)
	dev, err := localtask.NewDevice(localtask.Options{GroupCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	hm, err := halmodule.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	data, err := mulProgram(elf, true, -1).Build()
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, calls, n = 6, 10, 300
	// Inputs are built here: t.Fatal may only be called from the test's
	// own goroutine.
	type job struct {
		a, b vm.Value
		want []float32
	}
	jobs := make([][]job, goroutines)
	for g := range jobs {
		for c := 0; c < calls; c++ {
			a, b, want := make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range a {
				a[i], b[i] = float32(g), float32(c+i)
				want[i] = a[i] * b[i]
			}
			jobs[g] = append(jobs[g], job{f32View(t, dev, a), f32View(t, dev, b), want})
		}
	}
	errs := make(chan error, goroutines)
	start := make(chan struct{})
	for g := 0; g < goroutines; g++ {
		go func(g int) {
			ctx, err := vm.NewInstance().NewContext(hm, m)
			if err != nil {
				errs <- err
				return
			}
			fn, err := ctx.LookupFunction("mul")
			if err != nil {
				errs <- err
				return
			}
			<-start
			for c, j := range jobs[g] {
				res, err := ctx.Invoke(fn, []vm.Value{j.a, j.b})
				if err != nil {
					errs <- err
					return
				}
				view, err := halmodule.BufferViewOf(res[0])
				if err != nil {
					errs <- err
					return
				}
				raw := make([]byte, view.ByteLength())
				if err := view.Buffer().Read(0, raw); err != nil {
					errs <- err
					return
				}
				for i, w := range j.want {
					if v := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); v != w {
						errs <- fmt.Errorf("goroutine %d call %d: c[%d] = %v, want %v", g, c, i, v, w)
						return
					}
				}
			}
			errs <- nil
		}(g)
	}
	close(start)
	for g := 0; g < goroutines; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestBufferViewAssertShapes checks hal.buffer_view.assert on a 2x4 f32
// view: exact and dynamic (-1) dims pass, a wrong rank or extent fails
// with the message, the expected shape ('?' for dynamic) and the actual.
func TestBufferViewAssertShapes(t *testing.T) {
	device := syncDevice(t)
	for _, tc := range []struct {
		name string
		dims []int64
		want string // "" = passes
	}{
		{"exact", []int64{2, 4}, ""},
		{"dynamic", []int64{-1, 4}, ""},
		{"all dynamic", []int64{-1, -1}, ""},
		{"wrong extent", []int64{-1, 3}, "x: shape mismatch; expected ?x3 but have 2x4"},
		{"wrong rank", []int64{-1}, "x: rank mismatch; expected rank 1 (?) but have rank 2 (2x4)"},
		{"rank 0", nil, "x: rank mismatch; expected rank 0 (rank 0) but have rank 2 (2x4)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := vm.NewModuleBuilder("assert")
			get := b.Import("hal.devices.get", "0i_r")
			devAlloc := b.Import("hal.device.allocator", "0r_r")
			allocate := b.Import("hal.allocator.allocate", "0rIiiI_r")
			vcreate := b.Import("hal.buffer_view.create", "0rIIiiCID_r")
			vassert := b.Import("hal.buffer_view.assert", "0rriiCID_v")
			msg := b.Rodata([]byte("x"), "")
			f := b.Function("check", "0v_v")
			i32 := func(v int32) vm.Reg { r := f.NewI32(); f.ConstI32(r, v); return r }
			i64 := func(v int64) vm.Reg { r := f.NewI64(); f.ConstI64(r, v); return r }
			dev, alloc, buf, view, m := f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg(), f.NewRefReg()
			f.CallImport(get, []vm.Reg{i32(0)}, []vm.Reg{dev})
			f.CallImport(devAlloc, []vm.Reg{dev}, []vm.Reg{alloc})
			f.CallImport(allocate, []vm.Reg{alloc, i64(-1), i32(0), i32(0), i64(32)}, []vm.Reg{buf})
			f32 := i32(int32(hal.ElementTypeF32))
			f.CallImportVariadic(vcreate, []int{2}, []vm.Reg{buf, i64(0), i64(-1), f32, i32(1), i64(2), i64(4)}, []vm.Reg{view})
			f.Emit(vm.OpConstRefRodata, m, msg)
			args := []vm.Reg{view, m, f32, i32(1)}
			for _, d := range tc.dims {
				args = append(args, i64(d))
			}
			f.CallImportVariadic(vassert, []int{len(tc.dims)}, args, nil)
			f.Return()
			b.Export("check", f)
			_, err := newEnv(t, device, b, nil).call(t, "check")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("assert %v: %v", tc.dims, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("assert %v: error %v, want %q", tc.dims, err, tc.want)
			}
		})
	}
}
