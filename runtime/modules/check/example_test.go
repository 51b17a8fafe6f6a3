package check_test

import (
	"fmt"

	"github.com/goiree/goiree/runtime/modules/check"
	"github.com/goiree/goiree/runtime/vm"
)

// Example shows a program calling the check module the way compiled
// check-dialect tests do: a failed expectation is recorded, with the source
// location of the call, and the program runs on to its end.
func Example() {
	// test() { expect_true(0); expect_false(0); expect_false(3) }, with the
	// source locations a compiler records.
	b := vm.NewModuleBuilder("example")
	expectTrue := b.Import("check.expect_true", "0i_v")
	expectFalse := b.Import("check.expect_false", "0i_v")
	f := b.Function("test", "0v_v")
	zero, three := f.NewI32(), f.NewI32()
	f.ConstI32(zero, 0)
	f.ConstI32(three, 3)
	f.Loc("test.mlir", 3, 3)
	f.CallImport(expectTrue, []vm.Reg{zero}, nil)
	f.Loc("test.mlir", 4, 3)
	f.CallImport(expectFalse, []vm.Reg{zero}, nil)
	f.Loc("test.mlir", 5, 3)
	f.CallImport(expectFalse, []vm.Reg{three}, nil)
	f.Return()
	b.Export("test", f)
	data, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		fmt.Println(err)
		return
	}

	cm := check.New()
	ctx, err := vm.NewInstance().NewContext(cm, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	fn, err := ctx.LookupFunction("test")
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := ctx.Invoke(fn, nil); err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range cm.TakeFailures() {
		fmt.Println(f)
	}
	// Output:
	// test.mlir:3:3: check.expect_true: Expected 0 to be nonzero.
	// test.mlir:5:3: check.expect_false: Expected 3 to be zero.
}
