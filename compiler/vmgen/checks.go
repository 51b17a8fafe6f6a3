package vmgen

import (
	"github.com/goiree/goiree/compiler/dialect/check"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/vm"
)

// The check dialect lowers to calls of the `check` native module
// (runtime/modules/check), imported only by modules that use it, with the
// calling conventions of IREE's check.imports.mlir. The pending device
// work is flushed first, since the module reads the views on the host;
// the device argument is always the program's device (an explicit
// !hal.device operand names the same one). A failed expectation is
// reported by the module and the program runs on.
//
// As in IREE, the imports are optional and every call is guarded by
// import.resolved: a program with checks also runs where no check module
// is registered (iree-run-module), the checks skipped.

// checkOp lowers one check.* op.
func (fe *fnEmitter) checkOp(op *ir.Operation) error {
	f := fe.f
	operands := op.Operands
	if len(operands) > 0 {
		if d, ok := operands[0].Type.(*ir.DialectType); ok && d.Name == "hal.device" {
			operands = operands[1:]
		}
	}
	switch op.Name {
	case "check.expect_true", "check.expect_false":
		if len(operands) != 1 {
			return ir.OpErrorf(op, "'%s' takes one operand", op.Name)
		}
		r, err := fe.scalar(op, operands[0])
		if err != nil {
			return err
		}
		if r.Kind() != vm.KindI32 {
			return ir.OpErrorf(op, "'%s' needs an integer operand of at most 32 bits, found '%s'", op.Name, ir.TypeString(operands[0].Type))
		}
		fe.callCheck(op.Name, []vm.Reg{r})
		return nil
	}
	var views []vm.Reg
	var temps []*bufState
	for _, v := range operands {
		tv, err := fe.tensor(op, v)
		if err != nil {
			return err
		}
		views = append(views, fe.view(tv))
	}
	callee := op.Name
	switch op.Name {
	case "check.expect_eq_const", "check.expect_almost_eq_const":
		if len(operands) != 1 {
			return ir.OpErrorf(op, "'%s' takes one tensor operand", op.Name)
		}
		tv, err := fe.materialize(op, op.Attr("value"), operands[0].Type)
		if err != nil {
			return err
		}
		temps = append(temps, tv.buf)
		views = append(views, fe.view(tv))
		callee = callee[:len(callee)-len("_const")]
	}
	want := map[string]int{"check.expect_all_true": 1, "check.expect_eq": 2, "check.expect_almost_eq": 2}
	n, ok := want[callee]
	if !ok {
		return ir.OpErrorf(op, "'%s' is not supported in host code", op.Name)
	}
	if len(views) != n {
		return ir.OpErrorf(op, "'%s' takes %d tensor operands, found %d", op.Name, n, len(views))
	}
	keep := map[*bufState]bool{}
	for _, b := range temps {
		keep[b] = true
	}
	fe.flush(keep, false)
	args := append([]vm.Reg{fe.dev}, views...)
	if callee == "check.expect_almost_eq" {
		atol, rtol := check.Tolerances(op)
		a, r := f.NewF32(), f.NewF32()
		f.ConstF32(a, float32(atol))
		f.ConstF32(r, float32(rtol))
		args = append(args, a, r)
	}
	fe.callCheck(callee, args)
	// The expected values are dead once compared.
	for _, b := range temps {
		f.Emit(vm.OpConstRefZero, b.reg)
	}
	return nil
}

// callCheck calls the optional check import name with args when a check
// module resolved it at context creation, and does nothing otherwise.
func (fe *fnEmitter) callCheck(name string, args []vm.Reg) {
	f := fe.f
	imp := fe.e.optionalImp(name)
	resolved := f.NewI32()
	call, done := f.NewLabel(), f.NewLabel()
	f.ImportResolved(resolved, imp)
	f.CondBr(resolved, call, done)
	f.Bind(call)
	f.CallImport(imp, args, nil)
	f.Br(done)
	f.Bind(done)
}
