// Package builtin registers MLIR's builtin dialect: builtin.module.
package builtin

import "github.com/goiree/goiree/compiler/ir"

// Register adds the builtin ops to r.
func Register(r *ir.Registry) {
	d := ir.SymbolTableOp("builtin.module", false, nil)
	d.Aliases = []string{"module"}
	r.RegisterOp(d)
}
