// Package mlprogramtoutil rewrites MLIR's ml_program globals into IREE's
// util globals, as IREE's input conversion does, so that the rest of the
// compiler sees one kind of module state:
//
//	ml_program.global [vis] [mutable] @g(value) : T  ->  util.global [vis] [mutable] @g : T = value
//	ml_program.global_load @g : T                    ->  util.global.load @g : T
//	ml_program.global_load_const @g : T              ->  util.global.load immutable @g : T
//	ml_program.global_store @g = %v : T              ->  util.global.store %v, @g : T
//
// A load of an immutable global is marked immutable. A global whose
// initial value is #ml_program.extern (set by whoever loads the program)
// is refused with its location: nothing here can supply its value.
package mlprogramtoutil

import (
	"github.com/goiree/goiree/compiler/dialect/mlprogram"
	"github.com/goiree/goiree/compiler/ir"
)

// Convert rewrites every ml_program op in root in place.
func Convert(root *ir.Operation) error {
	mutable := map[string]bool{}
	var ops []*ir.Operation
	var err error
	ir.Walk(root, func(op *ir.Operation) bool {
		if err != nil {
			return false
		}
		switch op.Name {
		case "ml_program.global":
			if v := op.Attr("value"); v != nil && mlprogram.IsExtern(v) {
				err = ir.OpErrorf(op, "global @%s is #ml_program.extern (initialized outside the program), which is not supported: give it an initial value", op.SymName())
				return false
			}
			mutable[op.SymName()] = op.HasAttr("is_mutable")
			ops = append(ops, op)
		case "ml_program.global_load", "ml_program.global_load_const", "ml_program.global_store":
			ops = append(ops, op)
		}
		return true
	})
	if err != nil {
		return err
	}
	for _, op := range ops {
		switch op.Name {
		case "ml_program.global":
			op.Name = "util.global"
			renameAttr(op, "value", "initial_value")
		case "ml_program.global_load", "ml_program.global_load_const":
			ref, _ := op.Attr("global").(ir.SymbolRefAttr)
			if op.Name == "ml_program.global_load_const" || !mutable[ref.Root] {
				op.SetAttr("is_immutable", ir.UnitAttr{})
			}
			op.Name = "util.global.load"
		case "ml_program.global_store":
			op.Name = "util.global.store"
		}
	}
	return nil
}

// renameAttr renames op's attribute from to to, keeping its place.
func renameAttr(op *ir.Operation, from, to string) {
	for i := range op.Attrs {
		if op.Attrs[i].Name == from {
			op.Attrs[i].Name = to
		}
	}
}
