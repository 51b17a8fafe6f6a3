package vm

import "testing"

// BenchmarkInterpreterLoop measures the dispatch loop: sum(n) runs 5
// instructions per iteration.
func BenchmarkInterpreterLoop(b *testing.B) {
	m := buildModule(b, sumModule())
	ctx, err := NewInstance().NewContext(m)
	if err != nil {
		b.Fatal(err)
	}
	fn := mustLookup(b, ctx, "sum")
	args, res := []Value{I64(1000)}, make([]Value, 1)
	b.ReportAllocs()
	for b.Loop() {
		if err := ctx.InvokeInto(fn, args, res); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/5000, "ns/instr")
}

// BenchmarkInvokeEmpty measures the fixed cost of one Invoke.
func BenchmarkInvokeEmpty(b *testing.B) {
	mb := NewModuleBuilder("m")
	f := mb.Function("f", "0r_r")
	f.Return(f.Arg(0))
	mb.Export("f", f)
	ctx, err := NewInstance().NewContext(buildModule(b, mb))
	if err != nil {
		b.Fatal(err)
	}
	fn := mustLookup(b, ctx, "f")
	args, res := []Value{RefValue(NewBuffer(nil, true).Ref())}, make([]Value, 1)
	b.ReportAllocs()
	for b.Loop() {
		if err := ctx.InvokeInto(fn, args, res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNativeCall measures one call.import.variadic of a native
// function with 4 fixed arguments and 3 tuples of 4, like a HAL
// push_descriptor_set.
func BenchmarkNativeCall(b *testing.B) {
	nat := NewNativeModule("n", []NativeFunction{{Name: "f", CallingConvention: "0rriICiriID_v", Func: func(c *NativeCall) error { return nil }}})
	mb := NewModuleBuilder("m")
	imp := mb.Import("n.f", "0rriICiriID_v")
	f := mb.Function("f", "0rI_v")
	i := f.NewI32()
	var args []Reg
	args = append(args, f.Arg(0), f.Arg(0), i, f.Arg(1))
	for t := 0; t < 3; t++ {
		args = append(args, i, f.Arg(0), i, f.Arg(1))
	}
	const calls = 100
	for c := 0; c < calls; c++ {
		f.CallImportVariadic(imp, []int{3}, args, nil)
	}
	f.Return()
	mb.Export("f", f)
	ctx, err := NewInstance().NewContext(nat, buildModule(b, mb))
	if err != nil {
		b.Fatal(err)
	}
	fn := mustLookup(b, ctx, "f")
	in := []Value{RefValue(NewBuffer(nil, true).Ref()), I64(4)}
	b.ReportAllocs()
	for b.Loop() {
		if err := ctx.InvokeInto(fn, in, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calls, "ns/call")
}

// BenchmarkNativeCallSmall measures one call.import of a native function
// with one ref argument and one i32 result, like hal.buffer_view.rank.
func BenchmarkNativeCallSmall(b *testing.B) {
	nat := NewNativeModule("n", []NativeFunction{{Name: "f", CallingConvention: "0r_i", Func: func(c *NativeCall) error {
		c.Results[0] = I32(1)
		return nil
	}}})
	mb := NewModuleBuilder("m")
	imp := mb.Import("n.f", "0r_i")
	f := mb.Function("f", "0r_v")
	i := f.NewI32()
	const calls = 100
	for c := 0; c < calls; c++ {
		f.CallImport(imp, []Reg{f.Arg(0)}, []Reg{i})
	}
	f.Return()
	mb.Export("f", f)
	ctx, err := NewInstance().NewContext(nat, buildModule(b, mb))
	if err != nil {
		b.Fatal(err)
	}
	fn := mustLookup(b, ctx, "f")
	in := []Value{RefValue(NewBuffer(nil, true).Ref())}
	b.ReportAllocs()
	for b.Loop() {
		if err := ctx.InvokeInto(fn, in, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calls, "ns/call")
}
