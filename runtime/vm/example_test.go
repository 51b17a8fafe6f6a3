package vm_test

import (
	"fmt"
	"os"

	"github.com/goiree/goiree/runtime/vm"
)

// Example builds a module with the assembler, loads (verifies) it and
// invokes an export that calls a native Go function.
func Example() {
	// A native module "math" with one function, "math.scale(i64, i64) -> i64".
	native := vm.NewNativeModule("math", []vm.NativeFunction{{
		Name:              "scale",
		CallingConvention: "0II_I",
		Func: func(call *vm.NativeCall) error {
			call.Results[0] = vm.I64(call.Args[0].I64() * call.Args[1].I64())
			return nil
		},
	}})

	// main(n) = scale(ceildiv(n, 64), 64): n rounded up to a multiple of 64.
	b := vm.NewModuleBuilder("example")
	scale := b.Import("math.scale", "0II_I")
	f := b.Function("main", "0I_I")
	tile, tiles, rounded := f.NewI64(), f.NewI64(), f.NewI64()
	f.ConstI64(tile, 64)
	f.Emit(vm.OpCeilDivI64U, tiles, f.Arg(0), tile)
	f.CallImport(scale, []vm.Reg{tiles, tile}, []vm.Reg{rounded})
	f.Return(rounded)
	b.Export("main", f)
	data, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}

	module, err := vm.LoadBytecodeModule(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, err := vm.NewInstance().NewContext(native, module)
	if err != nil {
		fmt.Println(err)
		return
	}
	fn, err := ctx.LookupFunction("main")
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := ctx.Invoke(fn, []vm.Value{vm.I64(1000003)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fn.FullName(), fn.CallingConvention(), results[0])
	// Output: example.main 0I_I i64=1000064
}

// ExampleContext_LookupFunction shows reflection on an export.
func ExampleContext_LookupFunction() {
	b := vm.NewModuleBuilder("m")
	f := b.Function("identity", "0r_r")
	f.Return(f.Arg(0))
	b.Export("identity", f, vm.Attr{Key: "iree.abi.declaration", Value: "identity(buffer_view) -> buffer_view"})
	data, _ := b.Build()
	module, _ := vm.LoadBytecodeModule(data)
	ctx, _ := vm.NewInstance().NewContext(module)
	fn, err := ctx.LookupFunction("m.identity")
	if err != nil {
		fmt.Println(err)
		return
	}
	decl, _ := fn.Attr("iree.abi.declaration")
	fmt.Println(fn.CallingConvention(), decl)
	_, err = ctx.LookupFunction("missing")
	fmt.Println(err)
	// Output:
	// 0r_r identity(buffer_view) -> buffer_view
	// NOT_FOUND; function "missing" not found (exports: m.identity)
}

// ExampleBytecodeModule_Disassemble prints a function's bytecode.
func ExampleBytecodeModule_Disassemble() {
	b := vm.NewModuleBuilder("m")
	f := b.Function("max3", "0iii_i")
	r := f.NewI32()
	f.Emit(vm.OpMaxI32S, r, f.Arg(0), f.Arg(1))
	f.Emit(vm.OpMaxI32S, r, r, f.Arg(2))
	f.Return(r)
	b.Export("max3", f)
	data, _ := b.Build()
	module, _ := vm.LoadBytecodeModule(data)
	_ = module.Disassemble(os.Stdout)
	// Output:
	// func @max3(%i0: i32, %i1: i32, %i2: i32) -> (i32)  // 0iii_i, registers i32=4 i64=0 f32=0 f64=0 ref=0
	//   0000: %i3 = max.i32.s %i0, %i1
	//   0007: %i3 = max.i32.s %i3, %i2
	//   0014: return %i3
}

// ExampleContext_SetTrace traces execution as iree-run-module
// --trace_execution does.
func ExampleContext_SetTrace() {
	b := vm.NewModuleBuilder("m")
	f := b.Function("inc", "0i_i")
	one := f.NewI32()
	f.ConstI32(one, 1)
	f.Emit(vm.OpAddI32, one, one, f.Arg(0))
	f.Return(one)
	b.Export("inc", f)
	data, _ := b.Build()
	module, _ := vm.LoadBytecodeModule(data)
	ctx, _ := vm.NewInstance().NewContext(module)
	ctx.SetTrace(os.Stdout)
	fn, _ := ctx.LookupFunction("inc")
	_, _ = ctx.Invoke(fn, []vm.Value{vm.I32(41)})
	// Output:
	// [m.inc+0000] %i1 = const.i32 1
	// [m.inc+0007] %i1 = add.i32 %i1, %i0
	// [m.inc+0014] return %i1
}
