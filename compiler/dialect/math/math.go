// Package math registers MLIR's math dialect (elementwise float and integer
// functions).
package math

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

var unaryFloat = []string{"absf", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
	"sin", "cos", "tan", "tanh", "atan", "erf", "ceil", "floor", "round", "roundeven", "trunc"}

// Register adds the math ops to r.
func Register(r *ir.Registry) {
	for _, n := range unaryFloat {
		r.RegisterOp(ir.SameTypeOp("math."+n, 1, floatOnly))
	}
	r.RegisterOp(ir.SameTypeOp("math.absi", 1, nil))
	r.RegisterOp(ir.SameTypeOp("math.powf", 2, floatOnly))
	r.RegisterOp(ir.SameTypeOp("math.atan2", 2, floatOnly))
	r.RegisterOp(ir.SameTypeOp("math.copysign", 2, floatOnly))
	r.RegisterOp(ir.SameTypeOp("math.fma", 3, floatOnly))
}

func floatOnly(op *ir.Operation) error {
	if _, ok := arith.ElementType(op.Results[0].Type).(ir.FloatType); !ok {
		return ir.OpErrorf(op, "operand must be floating-point-like, but got '%s'", ir.TypeString(op.Results[0].Type))
	}
	return nil
}
