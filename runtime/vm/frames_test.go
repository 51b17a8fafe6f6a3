package vm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
)

// TestTraceAcrossCalls checks that tracing (which single-steps the
// interpreter) follows calls into bytecode functions and natives and the
// returns out of them.
func TestTraceAcrossCalls(t *testing.T) {
	nat := NewNativeModule("n", []NativeFunction{{Name: "twice", CallingConvention: "0i_i", Func: func(c *NativeCall) error {
		c.Results[0] = I32(2 * c.Args[0].I32())
		return nil
	}}})
	b := NewModuleBuilder("m")
	twice := b.Import("n.twice", "0i_i")
	inc := b.Function("inc", "0i_i")
	one := inc.NewI32()
	inc.ConstI32(one, 1)
	inc.Emit(OpAddI32, one, one, inc.Arg(0))
	inc.Return(one)
	f := b.Function("main", "0i_i")
	r := f.NewI32()
	f.Call(inc, []Reg{f.Arg(0)}, []Reg{r})
	f.CallImport(twice, []Reg{r}, []Reg{r})
	f.Return(r)
	b.Export("main", f)
	ctx, err := NewInstance().NewContext(nat, buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	var trace strings.Builder
	ctx.SetTrace(&trace)
	if got := invoke(t, ctx, "main", I32(20)); got[0].I32() != 42 {
		t.Errorf("main(20) = %v, want 42", got)
	}
	want := `[m.main+0000] call @inc(%i0) -> (%i1)
[m.inc+0000] %i1 = const.i32 1
[m.inc+0007] %i1 = add.i32 %i1, %i0
[m.inc+0014] return %i1
[m.main+0013] call.import @n.twice(%i1) -> (%i1)
[m.main+0026] return %i1
`
	if trace.String() != want {
		t.Errorf("trace:\n%s\nwant:\n%s", trace.String(), want)
	}
	// Tracing off again runs the untraced interpreter.
	ctx.SetTrace(nil)
	trace.Reset()
	if got := invoke(t, ctx, "main", I32(1)); got[0].I32() != 4 || trace.Len() != 0 {
		t.Errorf("main(1) = %v with trace %q", got, trace.String())
	}
}

// TestArgumentSlotsHoldNoStaleRefs checks that an argument slot that held
// a ref in one native call shows a plain scalar in the next, and that no
// argument slot keeps a ref once the invocation is over.
func TestArgumentSlotsHoldNoStaleRefs(t *testing.T) {
	var seen []string
	nat := NewNativeModule("n", []NativeFunction{
		{Name: "take", CallingConvention: "0ri_v", Func: func(c *NativeCall) error {
			seen = append(seen, fmt.Sprintf("take %v %v", c.Args[0], c.Args[1]))
			return nil
		}},
		{Name: "scalars", CallingConvention: "0ii_v", Func: func(c *NativeCall) error {
			for i, a := range c.Args {
				if a != I32(int32(i+7)) || !a.Ref().IsNull() {
					return status.Errorf(status.Internal, "argument %d is %#v", i, a)
				}
			}
			seen = append(seen, fmt.Sprintf("scalars %v %v", c.Args[0], c.Args[1]))
			// A native function may scribble on its frame; the next call
			// must not see it.
			c.Args[1] = RefValue(NewBuffer(nil, true).Ref())
			c.Args = nil
			return nil
		}},
	})
	b := NewModuleBuilder("m")
	take := b.Import("n.take", "0ri_v")
	scalars := b.Import("n.scalars", "0ii_v")
	f := b.Function("main", "0r_v")
	seven, eight := f.NewI32(), f.NewI32()
	f.ConstI32(seven, 7)
	f.ConstI32(eight, 8)
	f.CallImport(take, []Reg{f.Arg(0), seven}, nil)
	f.CallImport(scalars, []Reg{seven, eight}, nil)
	f.CallImport(scalars, []Reg{seven, eight}, nil)
	f.CallImport(take, []Reg{f.Arg(0), eight}, nil)
	f.Return()
	b.Export("main", f)
	ctx, err := NewInstance().NewContext(nat, buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	buf := RefValue(NewBuffer([]byte{1}, true).Ref())
	if _, err := ctx.Invoke(mustLookup(t, ctx, "main"), []Value{buf}); err != nil {
		t.Fatal(err)
	}
	want := "take ref<vm.buffer> i32=7|scalars i32=7 i32=8|scalars i32=7 i32=8|take ref<vm.buffer> i32=8"
	if got := strings.Join(seen, "|"); got != want {
		t.Errorf("calls: %s\nwant:  %s", got, want)
	}
	for i, a := range ctx.exec.args[:cap(ctx.exec.args)] {
		if a.ref.obj != nil {
			t.Errorf("argument slot %d still holds %v after the invocation", i, a.ref)
		}
	}
	for i, r := range ctx.exec.refs {
		if r.obj != nil {
			t.Errorf("ref register %d still holds %v after the invocation", i, r)
		}
	}
}

// TestDeepRecursionGrowsStacks recurses deep enough that the register
// stacks grow while frames are live; every frame must keep its registers.
func TestDeepRecursionGrowsStacks(t *testing.T) {
	b := NewModuleBuilder("m")
	// sum(n) = n + sum(n-1), sum(0) = 0, with a few spare registers per
	// frame and a ref register holding a buffer through the call.
	f := b.Function("sum", "0Ir_I")
	zero, one, c := f.NewI64(), f.NewI64(), f.NewI32()
	sub, rest := f.NewI64(), f.NewI64()
	keep, length := f.NewRefReg(), f.NewI64()
	spare := [4]Reg{f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32()}
	for _, s := range spare {
		f.ConstI32(s, 5)
	}
	f.Emit(OpMovRef, keep, f.Arg(1))
	f.ConstI64(zero, 0)
	f.ConstI64(one, 1)
	rec, done := f.NewLabel(), f.NewLabel()
	f.Emit(OpCmpEqI64, c, f.Arg(0), zero)
	f.CondBr(c, done, rec)
	f.Bind(done)
	f.Return(zero)
	f.Bind(rec)
	f.Emit(OpSubI64, sub, f.Arg(0), one)
	f.Call(f, []Reg{sub, keep}, []Reg{rest})
	f.Emit(OpAddI64, rest, rest, f.Arg(0))
	// The frame's own registers survived the stacks growing.
	f.Emit(OpBufferLength, length, keep)
	f.Emit(OpAddI64, rest, rest, length)
	f.Emit(OpAddI32, spare[0], spare[0], spare[3])
	f.Emit(OpExtI32I64S, length, spare[0])
	f.Emit(OpAddI64, rest, rest, length)
	f.Return(rest)
	b.Export("sum", f)
	ctx, err := NewInstance().NewContext(buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	buf := RefValue(NewBuffer(make([]byte, 3), true).Ref())
	got := invoke(t, ctx, "sum", I64(n), buf)
	// Each of the n non-zero frames adds its n, the buffer's 3 bytes and
	// 5+5.
	if want := int64(n*(n+1)/2 + n*(3+10)); got[0].I64() != want {
		t.Errorf("sum(%d) = %d, want %d", n, got[0].I64(), want)
	}
	if len(ctx.exec.i32) <= 256 || len(ctx.exec.refs) <= 256 {
		t.Errorf("register stacks did not grow (i32 %d, ref %d)", len(ctx.exec.i32), len(ctx.exec.refs))
	}
	// Popping each frame dropped its refs from the grown stack too.
	for i, r := range ctx.exec.refs {
		if r.obj != nil {
			t.Fatalf("ref register %d still holds %v after the invocation", i, r)
		}
	}
}

// TestAdjacentCallSites runs back-to-back call.imports of the shortest
// encoding (no arguments, no results), which the call-site index must keep
// apart, and checks the index's spacing assumption against the opcode
// table.
func TestAdjacentCallSites(t *testing.T) {
	for _, op := range []Opcode{OpCallImport, OpCallImportVariadic} {
		info, ok := lookupOp(op)
		if !ok {
			t.Fatalf("opcode %d missing", op)
		}
		n := 1
		for _, k := range info.operands {
			n += max(k.fixedSize(), 2)
		}
		if n < minSiteBytes || n <= 1<<siteShift {
			t.Errorf("%s takes at least %d bytes; the call-site index needs more than %d", info.name, n, 1<<siteShift)
		}
	}
	var order []string
	var fns []NativeFunction
	for _, name := range []string{"a", "b", "c"} {
		fns = append(fns, NativeFunction{Name: name, CallingConvention: "0v_v", Func: func(*NativeCall) error {
			order = append(order, name)
			return nil
		}})
	}
	b := NewModuleBuilder("m")
	a, bb, c := b.Import("n.a", "0v_v"), b.Import("n.b", "0v_v"), b.Import("n.c", "0v_v")
	f := b.Function("main", "0v_v")
	for _, imp := range []ImportRef{a, bb, c, a, c, bb} {
		f.CallImport(imp, nil, nil)
	}
	f.Return()
	b.Export("main", f)
	ctx, err := NewInstance().NewContext(NewNativeModule("n", fns), buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	invoke(t, ctx, "main")
	if got := strings.Join(order, ""); got != "abcacb" {
		t.Errorf("calls ran in order %q, want abcacb", got)
	}
}

// TestWideCallArguments passes many arguments (loaded bank by bank) of
// every kind, in slots that held refs in the call before.
func TestWideCallArguments(t *testing.T) {
	var got []string
	record := func(c *NativeCall) error {
		var parts []string
		for _, a := range c.Args {
			if a.Kind() != KindRef && !a.Ref().IsNull() {
				return status.Errorf(status.Internal, "scalar argument %v holds a ref", a)
			}
			parts = append(parts, a.String())
		}
		got = append(got, strings.Join(parts, " "))
		return nil
	}
	nat := NewNativeModule("n", []NativeFunction{
		{Name: "refs", CallingConvention: "0rrrrrrrrr_v", Func: record},
		{Name: "mixed", CallingConvention: "0ifIFrifIFr_v", Func: record},
	})
	b := NewModuleBuilder("m")
	refs := b.Import("n.refs", "0rrrrrrrrr_v")
	mixed := b.Import("n.mixed", "0ifIFrifIFr_v")
	f := b.Function("main", "0r_v")
	i, fl, l, d, null := f.NewI32(), f.NewF32(), f.NewI64(), f.NewF64(), f.NewRefReg()
	f.ConstI32(i, -3)
	f.ConstF32(fl, 1.5)
	f.ConstI64(l, 1<<40)
	f.ConstF64(d, -0.25)
	f.Emit(OpConstRefZero, null)
	r := f.Arg(0)
	f.CallImport(refs, []Reg{r, r, r, r, r, r, r, r, r}, nil)
	f.CallImport(mixed, []Reg{i, fl, l, d, r, i, fl, l, d, null}, nil)
	f.Return()
	b.Export("main", f)
	ctx, err := NewInstance().NewContext(nat, buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.Invoke(mustLookup(t, ctx, "main"), []Value{RefValue(NewBuffer(nil, true).Ref())}); err != nil {
		t.Fatal(err)
	}
	buf := "ref<vm.buffer>"
	want := []string{
		strings.Repeat(buf+" ", 8) + buf,
		"i32=-3 f32=1.5 i64=1099511627776 f64=-0.25 " + buf + " i32=-3 f32=1.5 i64=1099511627776 f64=-0.25 null",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("arguments:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
