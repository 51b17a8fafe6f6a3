package vm

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
)

// counted is a RefCounted test object that records its count.
type counted struct {
	n     int64
	freed int
}

func (c *counted) Retain() {
	if c.n > 0 {
		c.n++
	}
}

func (c *counted) Release() error {
	if c.n <= 0 {
		return status.New(status.FailedPrecondition, "counted released twice")
	}
	if c.n--; c.n == 0 {
		c.freed++
	}
	return nil
}

func (c *counted) Released() bool { return c.n <= 0 }

var countedType = RegisterRefType("test.counted")

// countedNative is "obj.make() -> ref" (a new object, one reference for
// the caller) and "obj.same(ref) -> ref" (its argument, retained).
func countedNative(made *[]*counted) NativeModule {
	return NewNativeModule("obj", []NativeFunction{
		{Name: "make", CallingConvention: "0v_r", Func: func(c *NativeCall) error {
			o := &counted{n: 1}
			*made = append(*made, o)
			c.Results[0] = RefValue(NewRef(countedType, o))
			return nil
		}},
		{Name: "same", CallingConvention: "0r_r", Func: func(c *NativeCall) error {
			c.Args[0].Ref().Retain()
			c.Results[0] = c.Args[0]
			return nil
		}},
	})
}

// TestRefLifetimes runs programs that move a counted object through every
// place a ref can be stored and checks its count afterwards: the VM
// releases exactly what it retained, results belong to the caller, and
// globals live until the context closes.
func TestRefLifetimes(t *testing.T) {
	tests := []struct {
		name string
		// build emits the body of main(%arg: ref) -> ref.
		build func(b *ModuleBuilder, f *FunctionBuilder, mk, same ImportRef) Reg
		// argRefs is the argument's count after the call (the caller's 1
		// plus what globals or results still hold); made is the count of
		// each object the program created.
		argRefs int64
		made    []int64
		// afterRelease is the argument's count once the results are
		// released (the context still open).
		afterRelease int64
	}{
		{"move and select", func(b *ModuleBuilder, f *FunctionBuilder, mk, same ImportRef) Reg {
			r, s, c := f.NewRefReg(), f.NewRefReg(), f.NewI32()
			f.Emit(OpMovRef, r, f.Arg(0))
			f.Emit(OpMovRef, r, r)
			f.ConstI32(c, 1)
			f.Emit(OpSelectRef, s, c, r, r)
			f.Emit(OpConstRefZero, r)
			return s
		}, 2, nil, 1},
		{"native results move into registers", func(b *ModuleBuilder, f *FunctionBuilder, mk, same ImportRef) Reg {
			r, s := f.NewRefReg(), f.NewRefReg()
			f.CallImport(mk, nil, []Reg{r})
			f.CallImport(mk, nil, []Reg{r}) // overwrites the first: freed
			f.CallImport(same, []Reg{f.Arg(0)}, []Reg{s})
			f.CallImport(same, []Reg{r}, []Reg{s}) // overwrites the arg's extra reference
			return s
		}, 1, []int64{0, 1}, 1},
		{"globals hold until close", func(b *ModuleBuilder, f *FunctionBuilder, mk, same ImportRef) Reg {
			g, g2 := b.AddGlobal(KindRef), b.AddGlobal(KindRef)
			r := f.NewRefReg()
			f.Emit(OpGlobalStoreRef, g, f.Arg(0))
			f.Emit(OpGlobalStoreRef, g, f.Arg(0))
			f.Emit(OpGlobalLoadRef, r, g)
			f.CallImport(mk, nil, []Reg{r})
			f.Emit(OpGlobalStoreRef, g2, r)
			f.Emit(OpGlobalStoreRef, g2, r) // same object: kept
			return r
		}, 2, []int64{2}, 2},
		{"lists retain elements and release them with the list", func(b *ModuleBuilder, f *FunctionBuilder, mk, same ImportRef) Reg {
			l, cap, i0, i1, r, m := f.NewRefReg(), f.NewI32(), f.NewI32(), f.NewI32(), f.NewRefReg(), f.NewRefReg()
			f.ConstI32(cap, 2)
			f.Emit(OpListAlloc, l, cap)
			f.Emit(OpListResize, l, cap)
			f.ConstI32(i0, 0)
			f.ConstI32(i1, 1)
			f.Emit(OpListSetRef, l, i0, f.Arg(0))
			f.CallImport(mk, nil, []Reg{m})
			f.Emit(OpListSetRef, l, i1, m)
			f.Emit(OpListSetRef, l, i1, f.Arg(0)) // replaces m, which dies with its register
			f.Emit(OpListGetRef, r, l, i0)
			f.Emit(OpListResize, l, i1) // drops element 1
			return r
		}, 2, []int64{0}, 1},
		{"calls pass arguments and results", func(b *ModuleBuilder, f *FunctionBuilder, mk, same ImportRef) Reg {
			g := b.Function("inner", "0r_r")
			t := g.NewRefReg()
			g.Emit(OpMovRef, t, g.Arg(0))
			g.Return(t)
			r := f.NewRefReg()
			f.Call(g, []Reg{f.Arg(0)}, []Reg{r})
			f.Call(g, []Reg{r}, []Reg{r})
			return r
		}, 2, nil, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var made []*counted
			b := NewModuleBuilder("app")
			mk := b.Import("obj.make", "0v_r")
			same := b.Import("obj.same", "0r_r")
			f := b.Function("main", "0r_r")
			res := tc.build(b, f, mk, same)
			f.Return(res)
			b.Export("main", f)
			ctx, err := NewInstance().NewContext(countedNative(&made), buildModule(t, b))
			if err != nil {
				t.Fatal(err)
			}
			arg := &counted{n: 1}
			results, err := ctx.Invoke(mustLookup(t, ctx, "main"), []Value{RefValue(NewRef(countedType, arg))})
			if err != nil {
				t.Fatal(err)
			}
			if arg.n != tc.argRefs {
				t.Errorf("argument count after the call = %d, want %d", arg.n, tc.argRefs)
			}
			if len(made) != len(tc.made) {
				t.Fatalf("program made %d objects, want %d", len(made), len(tc.made))
			}
			for i, o := range made {
				if o.n != tc.made[i] {
					t.Errorf("made object %d count = %d, want %d", i, o.n, tc.made[i])
				}
			}
			if err := ReleaseValues(results); err != nil {
				t.Fatal(err)
			}
			if !results[0].Ref().IsNull() {
				t.Errorf("ReleaseValues left %v", results[0])
			}
			if arg.n != tc.afterRelease {
				t.Errorf("argument count after releasing the results = %d, want %d", arg.n, tc.afterRelease)
			}
			if err := ctx.Close(); err != nil {
				t.Fatal(err)
			}
			for i, o := range made {
				if o.n != 0 || o.freed != 1 {
					t.Errorf("made object %d after release and close: count %d, freed %d times; want 0 and once", i, o.n, o.freed)
				}
			}
			if arg.n != 1 {
				t.Errorf("argument count after release and close = %d, want the caller's 1", arg.n)
			}
		})
	}
}

// TestRefErrors covers the caller's mistakes: passing a released object,
// releasing a result twice, invoking a closed context.
func TestRefErrors(t *testing.T) {
	var made []*counted
	b := NewModuleBuilder("app")
	mk := b.Import("obj.make", "0v_r")
	f := b.Function("make", "0v_r")
	r := f.NewRefReg()
	f.CallImport(mk, nil, []Reg{r})
	f.Return(r)
	b.Export("make", f)
	g := b.Function("id", "0r_r")
	g.Return(g.Arg(0))
	b.Export("id", g)
	ctx, err := NewInstance().NewContext(countedNative(&made), buildModule(t, b))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ctx.Invoke(mustLookup(t, ctx, "make"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if made[0].n != 1 {
		t.Fatalf("result count = %d, want 1 (the caller's)", made[0].n)
	}
	keep := res[0]
	if err := res[0].Ref().Release(); err != nil {
		t.Fatal(err)
	}
	if err := keep.Ref().Release(); status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "released twice") {
		t.Errorf("second release: %v, want FAILED_PRECONDITION ... released twice", err)
	}
	_, err = ctx.Invoke(mustLookup(t, ctx, "id"), []Value{keep})
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "argument 0: use of a released test.counted") {
		t.Errorf("invoke with a released argument: %v", err)
	}
	if made[0].freed != 1 {
		t.Errorf("object freed %d times, want once", made[0].freed)
	}
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.Invoke(mustLookup(t, ctx, "make"), nil); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("invoke after close: %v", err)
	}
}

// TestListRelease checks the Go API of lists: Set and Append retain,
// the last Release releases the elements, a second Release fails.
func TestListRelease(t *testing.T) {
	a, b := &counted{n: 1}, &counted{n: 1}
	l := NewList(0)
	l.Append(RefValue(NewRef(countedType, a)))
	l.Append(RefValue(NewRef(countedType, a)))
	if err := l.Set(1, RefValue(NewRef(countedType, b))); err != nil {
		t.Fatal(err)
	}
	if a.n != 2 || b.n != 2 {
		t.Fatalf("counts after append and set: a %d b %d, want 2 and 2", a.n, b.n)
	}
	l.Retain()
	if err := l.Release(); err != nil || a.n != 2 {
		t.Fatalf("first of two releases: %v, a %d", err, a.n)
	}
	if err := l.Release(); err != nil || a.n != 1 || b.n != 1 || l.Len() != 0 {
		t.Fatalf("last release: %v, a %d b %d len %d", err, a.n, b.n, l.Len())
	}
	if err := l.Release(); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("release of a released list: %v", err)
	}
}

// TestReturnSameRegisterTwice checks that a return naming one ref
// register twice (a result moves out of its register, a repeated one is
// retained) gives each result its own reference, from the bottom frame
// and from a called function.
func TestReturnSameRegisterTwice(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(b *ModuleBuilder, f *FunctionBuilder)
	}{
		{"bottom frame", func(b *ModuleBuilder, f *FunctionBuilder) {
			f.Return(f.Arg(0), f.Arg(0))
		}},
		{"called function", func(b *ModuleBuilder, f *FunctionBuilder) {
			g := b.Function("twice", "0r_rr")
			t := g.NewRefReg()
			g.Emit(OpMovRef, t, g.Arg(0))
			g.Return(t, t)
			r, s := f.NewRefReg(), f.NewRefReg()
			f.Call(g, []Reg{f.Arg(0)}, []Reg{r, s})
			f.Call(g, []Reg{r}, []Reg{r, s}) // overwrites both
			f.Return(r, s)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewModuleBuilder("app")
			f := b.Function("main", "0r_rr")
			tc.build(b, f)
			b.Export("main", f)
			ctx, err := NewInstance().NewContext(buildModule(t, b))
			if err != nil {
				t.Fatal(err)
			}
			defer ctx.Close()
			arg := &counted{n: 1}
			results, err := ctx.Invoke(mustLookup(t, ctx, "main"), []Value{RefValue(NewRef(countedType, arg))})
			if err != nil {
				t.Fatal(err)
			}
			if arg.n != 3 {
				t.Errorf("count after the call = %d, want 3 (the caller's and one per result)", arg.n)
			}
			if err := ReleaseValues(results); err != nil {
				t.Fatal(err)
			}
			if arg.n != 1 || arg.freed != 0 {
				t.Errorf("after releasing the results: count %d, freed %d; want 1 and 0", arg.n, arg.freed)
			}
		})
	}
}

// TestBorrowedArguments checks both ways a function receives ref
// arguments: one that never writes its argument registers borrows them
// (no reference of its own during the call), one that overwrites an
// argument register retains them, so that the overwrite releases only the
// function's reference; either way the caller's count is back after the
// call, and a borrowed argument returned is retained for the caller.
func TestBorrowedArguments(t *testing.T) {
	for _, tc := range []struct {
		name string
		// build emits main(%arg) -> ref; peek is obj.peek, which records
		// the argument's count while the function runs.
		build     func(b *ModuleBuilder, f *FunctionBuilder, peek ImportRef) Reg
		during    int64 // the argument's count inside the call
		afterCall int64
		readOnly  bool
	}{
		{"read-only arguments are borrowed", func(b *ModuleBuilder, f *FunctionBuilder, peek ImportRef) Reg {
			f.CallImport(peek, []Reg{f.Arg(0)}, nil)
			return f.Arg(0)
		}, 1, 2, true},
		{"a written argument register is retained", func(b *ModuleBuilder, f *FunctionBuilder, peek ImportRef) Reg {
			r := f.NewRefReg()
			f.Emit(OpMovRef, r, f.Arg(0))
			f.CallImport(peek, []Reg{f.Arg(0)}, nil)
			f.Emit(OpConstRefZero, f.Arg(0))
			return r
		}, 3, 2, false}, // the caller's, the argument register's and r's
		{"a called function borrows from its caller's register", func(b *ModuleBuilder, f *FunctionBuilder, peek ImportRef) Reg {
			g := b.Function("inner", "0r_v")
			g.CallImport(peek, []Reg{g.Arg(0)}, nil)
			g.Return()
			r := f.NewRefReg()
			f.Emit(OpMovRef, r, f.Arg(0)) // f writes no argument register: r holds f's own reference
			f.Call(g, []Reg{r}, nil)
			return r
		}, 2, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var during []int64
			peekMod := NewNativeModule("obj", []NativeFunction{{Name: "peek", CallingConvention: "0r_v", Func: func(c *NativeCall) error {
				during = append(during, c.Args[0].Ref().Object().(*counted).n)
				return nil
			}}})
			b := NewModuleBuilder("app")
			peek := b.Import("obj.peek", "0r_v")
			f := b.Function("main", "0r_r")
			f.Return(tc.build(b, f, peek))
			b.Export("main", f)
			m := buildModule(t, b)
			ctx, err := NewInstance().NewContext(peekMod, m)
			if err != nil {
				t.Fatal(err)
			}
			defer ctx.Close()
			fn := mustLookup(t, ctx, "main")
			if got := fn.inst.module.funcs[fn.fn].argRefsReadOnly; got != tc.readOnly {
				t.Errorf("argRefsReadOnly = %v, want %v", got, tc.readOnly)
			}
			arg := &counted{n: 1}
			results, err := ctx.Invoke(fn, []Value{RefValue(NewRef(countedType, arg))})
			if err != nil {
				t.Fatal(err)
			}
			if len(during) != 1 || during[0] != tc.during {
				t.Errorf("count inside the call = %v, want [%d]", during, tc.during)
			}
			if arg.n != tc.afterCall {
				t.Errorf("count after the call = %d, want %d", arg.n, tc.afterCall)
			}
			if err := ReleaseValues(results); err != nil {
				t.Fatal(err)
			}
			if arg.n != 1 || arg.freed != 0 {
				t.Errorf("after releasing the result: count %d, freed %d; want 1 and 0", arg.n, arg.freed)
			}
		})
	}
}
