package linalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

// MLIR's elementwise named ops (linalg.add, linalg.exp, ...): each output
// element is the op applied to the input elements at the same index,
// cast to the output's element type first (signed for integers), as
// MLIR's OpDSL defines them. They share linalg's custom form
// (`ins(...) outs(...) -> type`); package conversion/linalgexttolinalg
// lowers them to linalg.generic.

// ElementwiseNamed maps each elementwise named op to the number of its
// inputs and whether it computes on floats only.
var ElementwiseNamed = map[string]struct {
	Inputs    int
	FloatOnly bool
}{
	"linalg.add": {2, false}, "linalg.sub": {2, false}, "linalg.mul": {2, false}, "linalg.div": {2, false},
	"linalg.div_unsigned": {2, false}, "linalg.max": {2, false}, "linalg.min": {2, false}, "linalg.powf": {2, true},
	"linalg.exp": {1, true}, "linalg.log": {1, true}, "linalg.abs": {1, false}, "linalg.ceil": {1, true},
	"linalg.floor": {1, true}, "linalg.negf": {1, true}, "linalg.reciprocal": {1, true}, "linalg.round": {1, true},
	"linalg.sqrt": {1, true}, "linalg.rsqrt": {1, true}, "linalg.square": {1, false}, "linalg.tanh": {1, true},
	"linalg.erf": {1, true},
}

func registerElementwise(r *ir.Registry) {
	for name := range ElementwiseNamed {
		explicitResults[name] = true
		r.RegisterOp(&ir.OpDef{Name: name, Parse: parseStructured, Print: printStructured, Verify: verifyElementwise})
	}
}

// verifyElementwise checks the operand counts, that every operand has the
// output's shape, the element types the op computes on, and one result of
// the output's type.
func verifyElementwise(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 2); err != nil {
		return err
	}
	spec := ElementwiseNamed[op.Name]
	ins, outs := Ins(op), Outs(op)
	if len(ins) != spec.Inputs || len(outs) != 1 {
		return ir.OpErrorf(op, "expects %d inputs and 1 output, found %d and %d", spec.Inputs, len(ins), len(outs))
	}
	out, ok := outs[0].Type.(*ir.TensorType)
	if !ok || out.Unranked {
		return ir.OpErrorf(op, "output must be a ranked tensor, found '%s'", ir.TypeString(outs[0].Type))
	}
	for i, v := range ins {
		t, ok := v.Type.(*ir.TensorType)
		if !ok || t.Unranked || len(t.Shape) != len(out.Shape) {
			return ir.OpErrorf(op, "input #%d '%s' must have the output's shape '%s'", i, ir.TypeString(v.Type), ir.TypeString(out))
		}
		for d, n := range t.Shape {
			if n != ir.Dynamic && out.Shape[d] != ir.Dynamic && n != out.Shape[d] {
				return ir.OpErrorf(op, "input #%d '%s' must have the output's shape '%s'", i, ir.TypeString(v.Type), ir.TypeString(out))
			}
		}
		if _, err := convertible(arith.ElementType(v.Type), out.Elem); err != nil {
			return ir.OpErrorf(op, "input #%d: %v", i, err)
		}
	}
	switch out.Elem.(type) {
	case ir.FloatType:
	case ir.IntegerType:
		if spec.FloatOnly {
			return ir.OpErrorf(op, "computes on floats, found the output element type '%s'", ir.TypeString(out.Elem))
		}
	default:
		return ir.OpErrorf(op, "output element type must be a float or an integer, found '%s'", ir.TypeString(out.Elem))
	}
	if len(op.Results) != 1 || !ir.TypesEqual(op.Results[0].Type, out) {
		return ir.OpErrorf(op, "expects one result of the output's type '%s'", ir.TypeString(out))
	}
	return nil
}

// convertible reports whether a scalar of type from can be cast to to as
// the named ops cast (floats and integers among themselves, integers to
// floats).
func convertible(from, to ir.Type) (bool, error) {
	_, err := convert(func(string, ir.Type, ...*ir.Value) *ir.Value { return nil }, &ir.Value{Type: from}, to)
	return err == nil, err
}
