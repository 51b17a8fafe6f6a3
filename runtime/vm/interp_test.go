package vm

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
)

func TestSpecialOpcodes(t *testing.T) {
	b := NewModuleBuilder("special")
	blob := b.Rodata([]byte("hello, rodata"), "text/plain")
	gi32, gi64 := b.AddGlobal(KindI32), b.AddGlobal(KindI64)
	gf32, gf64 := b.AddGlobal(KindF32), b.AddGlobal(KindF64)
	gref := b.AddGlobal(KindRef)

	// store(i, I, f, F): writes the globals and the rodata ref global.
	st := b.Function("store", "0iIfF_v")
	st.Emit(OpGlobalStoreI32, gi32, st.Arg(0))
	st.Emit(OpGlobalStoreI64, gi64, st.Arg(1))
	st.Emit(OpGlobalStoreF32, gf32, st.Arg(2))
	st.Emit(OpGlobalStoreF64, gf64, st.Arg(3))
	r := st.NewRefReg()
	st.Emit(OpConstRefRodata, r, blob)
	st.Emit(OpGlobalStoreRef, gref, r)
	st.Return()
	b.Export("store", st)

	// load() -> (i, I, f, F, r, I length)
	ld := b.Function("load", "0v_iIfFrI")
	ri, rI, rf, rF, rr, rl := ld.NewI32(), ld.NewI64(), ld.NewF32(), ld.NewF64(), ld.NewRefReg(), ld.NewI64()
	ld.Emit(OpGlobalLoadI32, ri, gi32)
	ld.Emit(OpGlobalLoadI64, rI, gi64)
	ld.Emit(OpGlobalLoadF32, rf, gf32)
	ld.Emit(OpGlobalLoadF64, rF, gf64)
	ld.Emit(OpGlobalLoadRef, rr, gref)
	ld.Emit(OpBufferLength, rl, rr)
	ld.Return(ri, rI, rf, rF, rr, rl)
	b.Export("load", ld)

	// consts() -> (i, I, f, F)
	c := b.Function("consts", "0v_iIfF")
	ci, cI, cf, cF := c.NewI32(), c.NewI64(), c.NewF32(), c.NewF64()
	c.ConstI32(ci, -42)
	c.ConstI64(cI, 1<<40)
	c.ConstF32(cf, 0.5)
	c.ConstF64(cF, -0.25)
	c.Return(ci, cI, cf, cF)
	b.Export("consts", c)

	// refs(r) -> (eq(r, r), ne(r, null), nz(null), select(1, null, r) is r, mov)
	rf2 := b.Function("refs", "0r_iiirr")
	null, sel, mv := rf2.NewRefReg(), rf2.NewRefReg(), rf2.NewRefReg()
	e, ne, nz, one := rf2.NewI32(), rf2.NewI32(), rf2.NewI32(), rf2.NewI32()
	rf2.Emit(OpConstRefZero, null)
	rf2.Emit(OpCmpEqRef, e, rf2.Arg(0), rf2.Arg(0))
	rf2.Emit(OpCmpNeRef, ne, rf2.Arg(0), null)
	rf2.Emit(OpCmpNzRef, nz, null)
	rf2.ConstI32(one, 0)
	rf2.Emit(OpSelectRef, sel, one, null, rf2.Arg(0))
	rf2.Emit(OpMovRef, mv, sel)
	rf2.Return(e, ne, nz, sel, mv)
	b.Export("refs", rf2)

	m := buildModule(t, b)
	ctx, err := NewInstance().NewContext(m)
	if err != nil {
		t.Fatal(err)
	}
	invoke(t, ctx, "store", I32(7), I64(-1<<33), F32(1.25), F64(3.5))
	got := invoke(t, ctx, "load")
	want := []Value{I32(7), I64(-1 << 33), F32(1.25), F64(3.5)}
	for i, w := range want {
		if !sameValue(got[i], w) {
			t.Errorf("load result %d = %v, want %v", i, got[i], w)
		}
	}
	buf, err := got[4].RefAs(BufferType)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(buf.(*Buffer).Bytes()); s != "hello, rodata" || !buf.(*Buffer).ReadOnly() {
		t.Errorf("rodata buffer = %q", s)
	}
	if got[5].I64() != 13 {
		t.Errorf("buffer.length = %d", got[5].I64())
	}
	got = invoke(t, ctx, "consts")
	want = []Value{I32(-42), I64(1 << 40), F32(0.5), F64(-0.25)}
	for i, w := range want {
		if !sameValue(got[i], w) {
			t.Errorf("consts result %d = %v, want %v", i, got[i], w)
		}
	}
	obj := NewBuffer([]byte{1}, false)
	got = invoke(t, ctx, "refs", RefValue(obj.Ref()))
	if got[0].I32() != 1 || got[1].I32() != 1 || got[2].I32() != 0 || got[3].Ref().Object() != obj || got[4].Ref().Object() != obj {
		t.Errorf("refs = %v", got)
	}

	// A second context has its own globals.
	ctx2, err := NewInstance().NewContext(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctx2.Invoke(mustLookup(t, ctx2, "load"), nil); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "buffer.length of null") {
		t.Errorf("buffer.length of null ref: %v", err)
	}
}

func mustLookup(t testing.TB, ctx *Context, name string) *Function {
	t.Helper()
	fn, err := ctx.LookupFunction(name)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

// testNative is a native module "test" used by the import tests.
var counterType = RegisterRefType("test.counter")

type counter struct{ n int64 }

func testNative() NativeModule {
	return NewNativeModule("test", []NativeFunction{
		{Name: "add", CallingConvention: "0ii_i", Func: func(c *NativeCall) error {
			c.Results[0] = I32(c.Args[0].I32() + c.Args[1].I32())
			return nil
		}},
		{Name: "counter.new", CallingConvention: "0v_r", Func: func(c *NativeCall) error {
			c.Results[0] = RefValue(NewRef(counterType, &counter{}))
			return nil
		}},
		{Name: "counter.add", CallingConvention: "0rI_I", Func: func(c *NativeCall) error {
			o, err := c.Args[0].RefAs(counterType)
			if err != nil {
				return err
			}
			k := o.(*counter)
			k.n += c.Args[1].I64()
			c.Results[0] = I64(k.n)
			return nil
		}},
		// A function without an implementation: NewContext rejects it.
		{Name: "weighted_sum", CallingConvention: "0v_v", Func: nil},
	})
}

func variadicNative() NativeModule {
	return NewNativeModule("var", []NativeFunction{
		// weighted_sum(base, (i32 weight, i64 value)..., (ref)...) returns
		// base + Σ weight*value and the number of non-null refs.
		{Name: "weighted_sum", CallingConvention: "0ICiIDCrD_Ii", Func: func(c *NativeCall) error {
			if len(c.Segments) != 2 {
				return status.Errorf(status.Internal, "segments %v", c.Segments)
			}
			acc := c.Args[0].I64()
			p := 1
			for i := 0; i < c.Segments[0]; i++ {
				acc += int64(c.Args[p].I32()) * c.Args[p+1].I64()
				p += 2
			}
			nonNull := int32(0)
			for i := 0; i < c.Segments[1]; i++ {
				if !c.Args[p].Ref().IsNull() {
					nonNull++
				}
				p++
			}
			c.Results[0], c.Results[1] = I64(acc), I32(nonNull)
			return nil
		}},
		{Name: "boom", CallingConvention: "0i_v", Func: func(c *NativeCall) error {
			return status.Errorf(status.ResourceExhausted, "boom %d", c.Args[0].I32())
		}},
		{Name: "liar", CallingConvention: "0v_i", Func: func(c *NativeCall) error {
			c.Results[0] = I64(1)
			return nil
		}},
	})
}

func TestNativeImports(t *testing.T) {
	b := NewModuleBuilder("app")
	add := b.Import("test.add", "0ii_i")
	cnew := b.Import("test.counter.new", "0v_r")
	cadd := b.Import("test.counter.add", "0rI_I")
	ws := b.Import("var.weighted_sum", "0ICiIDCrD_Ii")
	boom := b.Import("var.boom", "0i_v")

	f := b.Function("main", "0iI_iII")
	s, cnt, total, vs := f.NewI32(), f.NewRefReg(), f.NewI64(), f.NewI64()
	nn := f.NewI32()
	f.CallImport(add, []Reg{f.Arg(0), f.Arg(0)}, []Reg{s})
	f.CallImport(cnew, nil, []Reg{cnt})
	f.CallImport(cadd, []Reg{cnt, f.Arg(1)}, []Reg{total})
	f.CallImport(cadd, []Reg{cnt, f.Arg(1)}, []Reg{total})
	w2, w3 := f.NewI32(), f.NewI32()
	f.ConstI32(w2, 2)
	f.ConstI32(w3, 3)
	null := f.NewRefReg()
	f.Emit(OpConstRefZero, null)
	// base=total, tuples (2, arg1), (3, total); refs: cnt, null, cnt
	f.CallImportVariadic(ws, []int{2, 3}, []Reg{total, w2, f.Arg(1), w3, total, cnt, null, cnt}, []Reg{vs, nn})
	f.Emit(OpAddI32, s, s, nn)
	f.Return(s, total, vs)
	b.Export("main", f)

	g := b.Function("empty_variadic", "0I_I")
	r, n := g.NewI64(), g.NewI32()
	g.CallImportVariadic(ws, []int{0, 0}, []Reg{g.Arg(0)}, []Reg{r, n})
	g.Return(r)
	b.Export("empty_variadic", g)

	h := b.Function("boom", "0i_v")
	h.CallImport(boom, []Reg{h.Arg(0)}, nil)
	h.Return()
	b.Export("boom", h)

	m := buildModule(t, b)
	ctx, err := NewInstance().NewContext(testNativeOK(), variadicNative(), m)
	if err != nil {
		t.Fatal(err)
	}
	got := invoke(t, ctx, "main", I32(20), I64(5))
	// s = 40 + 2 non-null refs; total = 10; vs = 10 + 2*5 + 3*10 = 50
	if got[0].I32() != 42 || got[1].I64() != 10 || got[2].I64() != 50 {
		t.Errorf("main = %v", got)
	}
	if got := invoke(t, ctx, "empty_variadic", I64(9)); got[0].I64() != 9 {
		t.Errorf("empty_variadic = %v", got)
	}
	_, err = ctx.Invoke(mustLookup(t, ctx, "boom"), []Value{I32(3)})
	if status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(err.Error(), "var.boom: RESOURCE_EXHAUSTED; boom 3") || !strings.Contains(err.Error(), "at app.boom+0") {
		t.Errorf("boom: %v", err)
	}
	// Natives can be invoked directly too.
	if got := invoke(t, ctx, "test.add", I32(1), I32(2)); got[0].I32() != 3 {
		t.Errorf("test.add = %v", got)
	}
}

func testNativeOK() NativeModule {
	m := testNative()
	var fns []NativeFunction
	for _, f := range m.Functions() {
		if f.Func != nil {
			fns = append(fns, f)
		}
	}
	return NewNativeModule("test", fns)
}

func TestNativeResultKindChecked(t *testing.T) {
	b := NewModuleBuilder("app")
	liar := b.Import("var.liar", "0v_i")
	f := b.Function("main", "0v_i")
	r := f.NewI32()
	f.CallImport(liar, nil, []Reg{r})
	f.Return(r)
	b.Export("main", f)
	ctx, err := NewInstance().NewContext(variadicNative(), buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.Invoke(mustLookup(t, ctx, "main"), nil); status.CodeOf(err) != status.Internal || !strings.Contains(err.Error(), "returned i64 for result 0, declared i32") {
		t.Errorf("liar: %v", err)
	}
}

func TestFailAndTraps(t *testing.T) {
	b := NewModuleBuilder("traps")
	f := b.Function("fail", "0i_v")
	f.Loc("prog.mlir", 12, 5)
	f.Fail(f.Arg(0), "user said no")
	b.Export("fail", f)
	d := b.Function("div", "0ii_i")
	q := d.NewI32()
	d.Emit(OpDivI32S, q, d.Arg(0), d.Arg(1))
	d.Return(q)
	b.Export("div", d)
	// Unbounded recursion exhausts the stack.
	rec := b.Function("rec", "0v_v")
	rec.Call(rec, nil, nil)
	rec.Return()
	b.Export("rec", rec)
	// outer calls fail through an internal call: the backtrace names both.
	o := b.Function("outer", "0v_v")
	c := o.NewI32()
	o.ConstI32(c, int32(status.PermissionDenied))
	o.Call(f, []Reg{c}, nil)
	o.Return()
	b.Export("outer", o)

	ctx, err := NewInstance().NewContext(buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		fn   string
		args []Value
		code status.Code
		text string
	}{
		{"fail", []Value{I32(int32(status.FailedPrecondition))}, status.FailedPrecondition, "FAILED_PRECONDITION; user said no; at traps.fail+0 (prog.mlir:12:5)"},
		{"fail", []Value{I32(0)}, status.Unknown, "UNKNOWN; user said no"},
		{"div", []Value{I32(1), I32(0)}, status.OutOfRange, "integer division by zero; at traps.div+0"},
		{"rec", nil, status.ResourceExhausted, "call stack exceeds 1024 frames"},
		{"outer", nil, status.PermissionDenied, "at traps.fail+0 (prog.mlir:12:5), called from traps.outer+7"},
	}
	for _, tt := range tests {
		_, err := ctx.Invoke(mustLookup(t, ctx, tt.fn), tt.args)
		if status.CodeOf(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: got %v (code %v), want code %v containing %q", tt.fn, err, status.CodeOf(err), tt.code, tt.text)
		}
	}
	// The context still works after traps.
	if got := invoke(t, ctx, "div", I32(9), I32(3)); got[0].I32() != 3 {
		t.Errorf("div after traps = %v", got)
	}
}

func TestCrossModuleImportAndInit(t *testing.T) {
	lib := NewModuleBuilder("lib")
	g := lib.AddGlobal(KindI32)
	init := lib.Function("__init", "0v_v")
	v := init.NewI32()
	init.ConstI32(v, 100)
	init.Emit(OpGlobalStoreI32, g, v)
	init.Return()
	lib.Export("__init", init)
	add := lib.Function("add_base", "0i_i")
	base := add.NewI32()
	add.Emit(OpGlobalLoadI32, base, g)
	add.Emit(OpAddI32, base, base, add.Arg(0))
	add.Return(base)
	lib.Export("add_base", add)

	app := NewModuleBuilder("app")
	imp := app.Import("lib.add_base", "0i_i")
	opt := app.OptionalImport("lib.missing", "0v_v")
	f := app.Function("main", "0i_i")
	r := f.NewI32()
	f.CallImport(imp, []Reg{f.Arg(0)}, []Reg{r})
	f.Return(r)
	app.Export("main", f)
	h := app.Function("call_missing", "0v_v")
	h.CallImport(opt, nil, nil)
	h.Return()
	app.Export("call_missing", h)
	// import.resolved: a bytecode import, a present optional one and a
	// missing optional one.
	present := app.OptionalImport("lib.__init", "0v_v")
	q := app.Function("resolved", "0v_iii")
	a, b, c := q.NewI32(), q.NewI32(), q.NewI32()
	q.ImportResolved(a, imp)
	q.ImportResolved(b, present)
	q.ImportResolved(c, opt)
	q.Return(a, b, c)
	app.Export("resolved", q)

	ctx, err := NewInstance().NewContext(buildModule(t, lib), buildModule(t, app))
	if err != nil {
		t.Fatal(err)
	}
	if got := invoke(t, ctx, "app.main", I32(5)); got[0].I32() != 105 {
		t.Errorf("main = %v", got)
	}
	if _, err := ctx.Invoke(mustLookup(t, ctx, "call_missing"), nil); status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "optional import lib.missing is not available") {
		t.Errorf("call_missing: %v", err)
	}
	if got := invoke(t, ctx, "app.resolved"); got[0].I32() != 1 || got[1].I32() != 1 || got[2].I32() != 0 {
		t.Errorf("import.resolved of lib.add_base, lib.__init (optional) and lib.missing (optional) = %v, want 1 1 0", got)
	}
}

func TestContextErrors(t *testing.T) {
	mk := func(imp, cc string) *BytecodeModule {
		b := NewModuleBuilder("app")
		b.Import(imp, cc)
		f := b.Function("main", "0v_v")
		f.Return()
		b.Export("main", f)
		return buildModule(t, b)
	}
	tests := []struct {
		name    string
		modules []Module
		code    status.Code
		text    string
	}{
		{"unknown module", []Module{mk("hal.buffer.length", "0r_I")}, status.NotFound, "import hal.buffer.length (0r_I) not found: no module named hal is registered before it"},
		{"unknown function", []Module{testNativeOK(), mk("test.nope", "0v_v")}, status.NotFound, "import test.nope (0v_v) not found: module test has no such function"},
		{"signature mismatch", []Module{testNativeOK(), mk("test.add", "0iI_i")}, status.InvalidArgument, "import test.add declared as 0iI_i but provided as 0ii_i"},
		{"duplicate module", []Module{testNativeOK(), testNativeOK()}, status.AlreadyExists, "two modules named \"test\""},
		{"native without func", []Module{testNative()}, status.InvalidArgument, "function weighted_sum has no implementation"},
		{"bad native signature", []Module{NewNativeModule("x", []NativeFunction{{Name: "f", CallingConvention: "1_v", Func: func(*NativeCall) error { return nil }}})}, status.InvalidArgument, "must start with version 0"},
	}
	for _, tt := range tests {
		_, err := NewInstance().NewContext(tt.modules...)
		if status.CodeOf(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: got %v, want %v containing %q", tt.name, err, tt.code, tt.text)
		}
	}
}

func TestConcurrentInvokeRejected(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	nat := NewNativeModule("block", []NativeFunction{{Name: "wait", CallingConvention: "0v_v", Func: func(*NativeCall) error {
		close(started)
		<-release
		return nil
	}}})
	b := NewModuleBuilder("app")
	w := b.Import("block.wait", "0v_v")
	f := b.Function("main", "0v_v")
	f.CallImport(w, nil, nil)
	f.Return()
	b.Export("main", f)
	ctx, err := NewInstance().NewContext(nat, buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	fn := mustLookup(t, ctx, "main")
	done := make(chan error)
	go func() {
		_, err := ctx.Invoke(fn, nil)
		done <- err
	}()
	<-started
	if _, err := ctx.Invoke(fn, nil); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("concurrent invoke: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("first invoke: %v", err)
	}
}

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *ModuleBuilder)
		text  string
	}{
		{"wrong register bank", func(b *ModuleBuilder) {
			f := b.Function("f", "0v_v")
			f.Emit(OpAddI32, f.NewI32(), f.NewI64(), f.NewI32())
			f.Return()
		}, "want a i32 register, got %I0"},
		{"no terminator", func(b *ModuleBuilder) {
			f := b.Function("f", "0v_v")
			f.ConstI32(f.NewI32(), 1)
		}, "does not end with a terminator"},
		{"unbound label", func(b *ModuleBuilder) {
			f := b.Function("f", "0v_v")
			f.Br(f.NewLabel())
		}, "never bound"},
		{"bad calling convention", func(b *ModuleBuilder) { b.Import("a.b", "0x_v") }, "bad argument character 'x'"},
		{"wrong result count", func(b *ModuleBuilder) {
			f := b.Function("f", "0v_i")
			f.Return()
		}, "wants 1 registers, got 0"},
		{"variadic via call.import", func(b *ModuleBuilder) {
			imp := b.Import("a.b", "0CiD_v")
			f := b.Function("f", "0v_v")
			f.CallImport(imp, nil, nil)
			f.Return()
		}, "use call.import.variadic"},
		{"too many globals", func(b *ModuleBuilder) {
			for i := 0; i <= MaxGlobalRefs; i++ {
				b.AddGlobal(KindRef)
			}
		}, "ref globals exceed the limit"},
		{"bad segments", func(b *ModuleBuilder) {
			imp := b.Import("a.b", "0CiD_v")
			f := b.Function("f", "0v_v")
			f.CallImportVariadic(imp, []int{1, 2}, nil, nil)
			f.Return()
		}, "do not match signature"},
	}
	for _, tt := range tests {
		b := NewModuleBuilder("m")
		tt.build(b)
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: got %v, want error containing %q", tt.name, err, tt.text)
		}
	}
}

func TestSignatures(t *testing.T) {
	tests := []struct {
		cc   string
		want string // formatted, or error text
	}{
		{"0rr_r", "[ref ref] -> [ref]"},
		{"0v_v", "[] -> []"},
		{"0iiCiiD_i", "[i32 i32 C(i32 i32)] -> [i32]"},
		{"0rriCiriiD_v", "[ref ref i32 C(i32 ref i32 i32)] -> []"},
		{"0fF_IfF", "[f32 f64] -> [i64 f32 f64]"},
		{"", "must start with version 0"},
		{"0rr", "missing '_'"},
		{"0Ci_v", "no closing 'D'"},
		{"0CD_v", "empty variadic group"},
		{"0q_v", "bad argument character"},
		{"0_CiD", "bad result character"},
	}
	for _, tt := range tests {
		sig, err := ParseSignature(tt.cc)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			var args []string
			for _, a := range sig.Args {
				if a.IsVariadic() {
					args = append(args, fmt.Sprintf("C%v", a.Tuple))
				} else {
					args = append(args, a.Kind.String())
				}
			}
			got = fmt.Sprintf("%v -> %v", args, sig.Results)
			got = strings.ReplaceAll(strings.ReplaceAll(got, "C[", "C("), "]]", ")]")
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("ParseSignature(%q) = %q, want %q", tt.cc, got, tt.want)
		}
	}
	if cc := MakeCallingConvention([]ValueKind{KindRef, KindI32}, nil); cc != "0ri_v" {
		t.Errorf("MakeCallingConvention = %q", cc)
	}
	var se *status.Error
	if _, err := ParseSignature("x"); !errors.As(err, &se) {
		t.Errorf("signature error is not a status error")
	}
}

// TestConcurrentContexts runs many contexts over one shared module from
// several goroutines released together (run with -race).
func TestConcurrentContexts(t *testing.T) {
	m := buildModule(t, sumModule())
	const workers = 8
	start := make(chan struct{})
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			ctx, err := NewInstance().NewContext(m)
			if err != nil {
				errs <- err
				return
			}
			fn, err := ctx.LookupFunction("twice_sum")
			if err != nil {
				errs <- err
				return
			}
			<-start
			for i := 0; i < 200; i++ {
				n := int64(w*10 + i%7)
				res, err := ctx.Invoke(fn, []Value{I64(n)})
				if err != nil {
					errs <- err
					return
				}
				if want := n * (n - 1); res[0].I64() != want {
					errs <- fmt.Errorf("worker %d: twice_sum(%d) = %d, want %d", w, n, res[0].I64(), want)
					return
				}
			}
			errs <- nil
		}(w)
	}
	close(start)
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestRodataPlacement(t *testing.T) {
	payloads := [][]byte{[]byte("first segment"), make([]byte, 1000), []byte("x")}
	for _, external := range []bool{false, true} {
		b := NewModuleBuilder("ro")
		if external {
			b.StoreRodataExternally()
		}
		f := b.Function("len", "0v_I")
		r, n, acc := f.NewRefReg(), f.NewI64(), f.NewI64()
		f.ConstI64(acc, 0)
		for i, p := range payloads {
			p[0] = byte('a' + i)
			seg := b.Rodata(p, "")
			f.Emit(OpConstRefRodata, r, seg)
			f.Emit(OpBufferLength, n, r)
			f.Emit(OpAddI64, acc, acc, n)
		}
		f.Return(acc)
		b.Export("len", f)
		data := mustBuild(t, b)
		m, err := LoadBytecodeModule(data)
		if err != nil {
			t.Fatal(err)
		}
		for i, seg := range m.RodataSegments() {
			if !bytes.Equal(seg.Data, payloads[i]) {
				t.Errorf("external=%v: segment %d differs", external, i)
			}
			// Offset of the segment inside data, from the shared backing array.
			off := cap(data) - cap(seg.Data)
			align := 16
			if external {
				align = 64
			}
			if off%align != 0 {
				t.Errorf("external=%v: segment %d at offset %d, not %d-aligned", external, i, off, align)
			}
		}
		ctx, err := NewInstance().NewContext(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := invoke(t, ctx, "len")[0].I64(); got != 1014 {
			t.Errorf("external=%v: total length %d", external, got)
		}
		if external {
			// Cutting the external data off is caught.
			if _, err := LoadBytecodeModule(data[:len(data)-64]); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "external data") {
				t.Errorf("truncated external data: %v", err)
			}
		}
	}
}

func TestBufferOpcodes(t *testing.T) {
	b := NewModuleBuilder("buf")
	ro := b.Rodata([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, "")
	// roundtrip(i32 v, i64 V, f32 x, f64 X) stores each into a fresh buffer
	// and loads it back, plus clone/copy/fill/narrow loads.
	f := b.Function("roundtrip", "0iIfF_iIfFiiiiI")
	buf, src, clone := f.NewRefReg(), f.NewRefReg(), f.NewRefReg()
	size, o0, o4, o8, o16, o1, n4 := f.NewI64(), f.NewI64(), f.NewI64(), f.NewI64(), f.NewI64(), f.NewI64(), f.NewI64()
	ri, rI, rf, rF := f.NewI32(), f.NewI64(), f.NewF32(), f.NewF64()
	u8, s8, u16, s16 := f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32()
	fill := f.NewI32()
	length := f.NewI64()
	f.ConstI64(size, 32)
	f.ConstI64(o0, 0)
	f.ConstI64(o1, 1)
	f.ConstI64(o4, 4)
	f.ConstI64(o8, 8)
	f.ConstI64(o16, 16)
	f.ConstI64(n4, 4)
	f.ConstI32(fill, 0x1FF)
	f.Emit(OpBufferAlloc, buf, size)
	f.Emit(OpBufferStoreI32, buf, o0, f.Arg(0))
	f.Emit(OpBufferStoreI64, buf, o4, f.Arg(1)) // unaligned on purpose
	f.Emit(OpBufferStoreF32, buf, o16, f.Arg(2))
	f.Emit(OpBufferLoadI32, ri, buf, o0)
	f.Emit(OpBufferLoadI64, rI, buf, o4)
	f.Emit(OpBufferLoadF32, rf, buf, o16)
	f.Emit(OpBufferStoreF64, buf, o8, f.Arg(3))
	f.Emit(OpBufferLoadF64, rF, buf, o8)
	f.Emit(OpBufferStoreI8, buf, o0, fill)  // byte 0 = 0xFF
	f.Emit(OpBufferStoreI16, buf, o1, fill) // bytes 1,2 = 0xFF,0x01
	f.Emit(OpBufferLoadI8U, u8, buf, o0)
	f.Emit(OpBufferLoadI8S, s8, buf, o0)
	f.Emit(OpBufferLoadI16U, u16, buf, o0)
	f.Emit(OpBufferLoadI16S, s16, buf, o0)
	// clone rodata[4:8], fill its first byte... then copy into buf[0:4].
	f.Emit(OpConstRefRodata, src, ro)
	f.Emit(OpBufferClone, clone, src, o4, n4)
	f.Emit(OpBufferFillI8, clone, o0, o1, fill)
	f.Emit(OpBufferCopy, clone, o0, buf, o16, n4)
	f.Emit(OpBufferLoadI32, fill, buf, o16)
	f.Emit(OpBufferLength, length, clone)
	f.Emit(OpAddI64, length, length, length)
	f.Emit(OpAddI32, u8, u8, fill)
	f.Return(ri, rI, rf, rF, u8, s8, u16, s16, length)
	b.Export("roundtrip", f)

	// bad(kind) performs one failing buffer operation.
	g := b.Function("bad", "0i_v")
	r, null := g.NewRefReg(), g.NewRefReg()
	c, v := g.NewI32(), g.NewI32()
	off, n := g.NewI64(), g.NewI64()
	g.Emit(OpConstRefRodata, r, ro)
	g.Emit(OpConstRefZero, null)
	labels := []Label{g.NewLabel(), g.NewLabel(), g.NewLabel(), g.NewLabel(), g.NewLabel()}
	for i, l := range labels {
		next := g.NewLabel()
		g.ConstI32(v, int32(i))
		g.Emit(OpCmpEqI32, c, g.Arg(0), v)
		g.CondBr(c, l, next)
		g.Bind(next)
	}
	g.Return()
	// 0: store into read-only rodata.
	g.Bind(labels[0])
	g.ConstI64(off, 0)
	g.Emit(OpBufferStoreI8, r, off, v)
	g.Return()
	// 1: load past the end.
	g.Bind(labels[1])
	g.ConstI64(off, 14)
	g.Emit(OpBufferLoadI32, v, r, off)
	g.Return()
	// 2: negative offset.
	g.Bind(labels[2])
	g.ConstI64(off, -1)
	g.Emit(OpBufferLoadI8U, v, r, off)
	g.Return()
	// 3: load from null.
	g.Bind(labels[3])
	g.ConstI64(off, 0)
	g.Emit(OpBufferLoadI8U, v, null, off)
	g.Return()
	// 4: huge allocation.
	g.Bind(labels[4])
	g.ConstI64(n, 1<<40)
	g.Emit(OpBufferAlloc, r, n)
	g.Return()
	b.Export("bad", g)

	ctx, err := NewInstance().NewContext(buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	got := invoke(t, ctx, "roundtrip", I32(-7), I64(1<<40+3), F32(2.5), F64(-0.125))
	// fill: clone = [0xFF,6,7,8] copied to buf[16:20] -> 0x080706FF.
	want := []Value{I32(-7), I64(1<<40 + 3), F32(2.5), F64(-0.125), I32(0xFF + 0x080706FF), I32(-1), I32(0xFFFF), I32(-1), I64(8)}
	for i := range want {
		if !sameValue(got[i], want[i]) {
			t.Errorf("roundtrip result %d = %v, want %v", i, got[i], want[i])
		}
	}
	bad := []struct {
		code status.Code
		text string
	}{
		{status.PermissionDenied, "vm.buffer is read-only"},
		{status.OutOfRange, "range at offset 14 of length 4 outside vm.buffer of 16 bytes"},
		{status.OutOfRange, "range at offset -1 of length 1"},
		{status.InvalidArgument, "expected a vm.buffer, got null"},
		{status.OutOfRange, "buffer.alloc of 1099511627776 bytes"},
	}
	fn := mustLookup(t, ctx, "bad")
	for i, tt := range bad {
		_, err := ctx.Invoke(fn, []Value{I32(int32(i))})
		if status.CodeOf(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("bad(%d): got %v, want %v containing %q", i, err, tt.code, tt.text)
		}
	}
}

func TestListOpcodes(t *testing.T) {
	b := NewModuleBuilder("lists")
	// make(i, I, f, F, r) -> list of the five values plus an unset sixth.
	mk := b.Function("make", "0iIfFr_r")
	l, cap0, size := mk.NewRefReg(), mk.NewI32(), mk.NewI32()
	idx := []Reg{mk.NewI32(), mk.NewI32(), mk.NewI32(), mk.NewI32(), mk.NewI32()}
	mk.ConstI32(cap0, 2)
	mk.ConstI32(size, 6)
	mk.Emit(OpListAlloc, l, cap0)
	mk.Emit(OpListResize, l, size)
	for i, r := range idx {
		mk.ConstI32(r, int32(i))
	}
	mk.Emit(OpListSetI32, l, idx[0], mk.Arg(0))
	mk.Emit(OpListSetI64, l, idx[1], mk.Arg(1))
	mk.Emit(OpListSetF32, l, idx[2], mk.Arg(2))
	mk.Emit(OpListSetF64, l, idx[3], mk.Arg(3))
	mk.Emit(OpListSetRef, l, idx[4], mk.Arg(4))
	mk.Return(l)
	b.Export("make", mk)
	// read(list) -> (size, i, I, f, F, r, unset element as i32)
	rd := b.Function("read", "0r_iiIfFri")
	n, i0, i5 := rd.NewI32(), rd.NewI32(), rd.NewI32()
	gi, gI, gf, gF, gr, g5 := rd.NewI32(), rd.NewI64(), rd.NewF32(), rd.NewF64(), rd.NewRefReg(), rd.NewI32()
	ix := []Reg{rd.NewI32(), rd.NewI32(), rd.NewI32(), rd.NewI32()}
	rd.Emit(OpListSize, n, rd.Arg(0))
	rd.ConstI32(i0, 0)
	rd.ConstI32(i5, 5)
	for i, r := range ix {
		rd.ConstI32(r, int32(i+1))
	}
	rd.Emit(OpListGetI32, gi, rd.Arg(0), i0)
	rd.Emit(OpListGetI64, gI, rd.Arg(0), ix[0])
	rd.Emit(OpListGetF32, gf, rd.Arg(0), ix[1])
	rd.Emit(OpListGetF64, gF, rd.Arg(0), ix[2])
	rd.Emit(OpListGetRef, gr, rd.Arg(0), ix[3])
	rd.Emit(OpListGetI32, g5, rd.Arg(0), i5)
	rd.Return(n, gi, gI, gf, gF, gr, g5)
	b.Export("read", rd)
	// get_i32(list, index) -> value
	gt := b.Function("get_i32", "0ri_i")
	v := gt.NewI32()
	gt.Emit(OpListGetI32, v, gt.Arg(0), gt.Arg(1))
	gt.Return(v)
	b.Export("get_i32", gt)

	ctx, err := NewInstance().NewContext(buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	obj := NewBuffer(nil, true)
	list := invoke(t, ctx, "make", I32(1), I64(2), F32(3), F64(4), RefValue(obj.Ref()))[0]
	got := invoke(t, ctx, "read", list)
	want := []Value{I32(6), I32(1), I64(2), F32(3), F64(4), RefValue(obj.Ref()), I32(0)}
	for i := range want {
		if !sameValue(got[i], want[i]) {
			t.Errorf("read result %d = %v, want %v", i, got[i], want[i])
		}
	}
	// Host-built lists work too.
	host := NewList(0)
	host.Append(I32(77))
	if got := invoke(t, ctx, "get_i32", RefValue(host.Ref()), I32(0)); got[0].I32() != 77 {
		t.Errorf("get_i32 = %v", got)
	}
	fn := mustLookup(t, ctx, "get_i32")
	for _, tt := range []struct {
		args []Value
		code status.Code
		text string
	}{
		{[]Value{list, I32(6)}, status.OutOfRange, "list index 6 outside list of 6 elements"},
		{[]Value{list, I32(1)}, status.InvalidArgument, "list element 1 is i64, read as i32"},
		{[]Value{RefValue(obj.Ref()), I32(0)}, status.InvalidArgument, "expected a vm.list, got ref<vm.buffer>"},
	} {
		_, err := ctx.Invoke(fn, tt.args)
		if status.CodeOf(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("get_i32(%v): got %v, want %v containing %q", tt.args, err, tt.code, tt.text)
		}
	}
	if err := host.Resize(-1); status.CodeOf(err) != status.OutOfRange {
		t.Errorf("Resize(-1): %v", err)
	}
}

func TestStepLimit(t *testing.T) {
	b := NewModuleBuilder("spin")
	f := b.Function("forever", "0v_v")
	l := f.NewLabel()
	f.Bind(l)
	f.Br(l)
	b.Export("forever", f)
	ctx, err := NewInstance().NewContext(buildModule(t, b), buildModule(t, sumModule()))
	if err != nil {
		t.Fatal(err)
	}
	ctx.SetStepLimit(1000)
	if _, err := ctx.Invoke(mustLookup(t, ctx, "forever"), nil); status.CodeOf(err) != status.DeadlineExceeded || !strings.Contains(err.Error(), "step limit reached") {
		t.Errorf("forever: %v", err)
	}
	// sum(10) takes 21 branches: within a limit of 21, not of 20.
	ctx.SetStepLimit(21)
	invoke(t, ctx, "sum", I64(10))
	ctx.SetStepLimit(20)
	if _, err := ctx.Invoke(mustLookup(t, ctx, "sum"), []Value{I64(10)}); status.CodeOf(err) != status.DeadlineExceeded {
		t.Errorf("sum under a limit of 20: %v", err)
	}
}

type versionedNative struct {
	NativeModule
	v uint32
}

func (n versionedNative) Version() uint32 { return n.v }

func TestDependencies(t *testing.T) {
	b := NewModuleBuilder("app")
	b.Depend("test", 2, false)
	b.Depend("extra", 0, true)
	f := b.Function("main", "0v_v")
	f.Return()
	b.Export("main", f)
	m := buildModule(t, b)
	if deps := m.Dependencies(); len(deps) != 2 || deps[0] != (DependencyInfo{Name: "test", MinVersion: 2}) || !deps[1].Optional {
		t.Errorf("Dependencies() = %+v", deps)
	}
	tests := []struct {
		modules []Module
		code    status.Code
		text    string
	}{
		{[]Module{m}, status.NotFound, "module app depends on module test (version >= 2), which is not registered before it"},
		{[]Module{testNativeOK(), m}, status.FailedPrecondition, "depends on module test version >= 2, but version 0 is registered"},
		{[]Module{versionedNative{testNativeOK(), 3}, m}, status.OK, ""},
	}
	for i, tt := range tests {
		_, err := NewInstance().NewContext(tt.modules...)
		if status.CodeOf(err) != tt.code || (err != nil && !strings.Contains(err.Error(), tt.text)) {
			t.Errorf("case %d: got %v, want %v containing %q", i, err, tt.code, tt.text)
		}
	}
}
