package vm

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
)

// buildModule builds a module with fn and loads it, failing t on error.
func buildModule(t testing.TB, b *ModuleBuilder) *BytecodeModule {
	t.Helper()
	data, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	m, err := LoadBytecodeModule(data)
	if err != nil {
		t.Fatalf("LoadBytecodeModule: %v", err)
	}
	return m
}

func invoke(t testing.TB, ctx *Context, name string, args ...Value) []Value {
	t.Helper()
	fn, err := ctx.LookupFunction(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ctx.Invoke(fn, args)
	if err != nil {
		t.Fatalf("Invoke %s: %v", name, err)
	}
	return res
}

// sumModule builds "sum(n) = 0 + 1 + ... + n-1" as a loop, plus a caller.
func sumModule() *ModuleBuilder {
	b := NewModuleBuilder("test")
	f := b.Function("sum", "0I_I")
	n := f.Arg(0)
	i, acc, one := f.NewI64(), f.NewI64(), f.NewI64()
	c := f.NewI32()
	f.ConstI64(i, 0)
	f.ConstI64(acc, 0)
	f.ConstI64(one, 1)
	loop, body, done := f.NewLabel(), f.NewLabel(), f.NewLabel()
	f.Bind(loop)
	f.Emit(OpCmpLtI64S, c, i, n)
	f.CondBr(c, body, done)
	f.Bind(body)
	f.Emit(OpAddI64, acc, acc, i)
	f.Emit(OpAddI64, i, i, one)
	f.Br(loop)
	f.Bind(done)
	f.Return(acc)
	b.Export("sum", f)

	g := b.Function("twice_sum", "0I_I")
	r1, r2 := g.NewI64(), g.NewI64()
	g.Call(f, []Reg{g.Arg(0)}, []Reg{r1})
	g.Call(f, []Reg{g.Arg(0)}, []Reg{r2})
	g.Emit(OpAddI64, r1, r1, r2)
	g.Return(r1)
	b.Export("twice_sum", g, Attr{Key: "iree.abi", Value: "test"})
	return b
}

func TestLoopAndCall(t *testing.T) {
	m := buildModule(t, sumModule())
	ctx, err := NewInstance().NewContext(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := invoke(t, ctx, "sum", I64(1000))[0].I64(); got != 499500 {
		t.Errorf("sum(1000) = %d, want 499500", got)
	}
	if got := invoke(t, ctx, "test.twice_sum", I64(10))[0].I64(); got != 90 {
		t.Errorf("twice_sum(10) = %d, want 90", got)
	}
	fn, _ := ctx.LookupFunction("twice_sum")
	if fn.CallingConvention() != "0I_I" {
		t.Errorf("calling convention %q", fn.CallingConvention())
	}
	if v, ok := fn.Attr("iree.abi"); !ok || v != "test" {
		t.Errorf("attr = %q %v", v, ok)
	}
	if _, err := ctx.Invoke(fn, []Value{I32(1)}); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("wrong argument kind: %v", err)
	}
	if _, err := ctx.LookupFunction("nope"); status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "test.sum") {
		t.Errorf("lookup of missing function: %v", err)
	}
}
