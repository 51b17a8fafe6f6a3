// Package rewrite holds the steps the input-dialect conversions
// (tosatolinalg, stablehlotolinalg) share when they replace one op by
// linalg, tensor and arith ops: inserting the new ops where the old one
// stood, handing its uses over, and checking a concatenation's shapes.
package rewrite

import (
	"fmt"

	"github.com/goiree/goiree/compiler/ir"
)

// Emit inserts o before op, giving it op's position and location (so
// later errors about o point at the source op), and returns o.
func Emit(op, o *ir.Operation) *ir.Operation {
	o.Pos = op.Pos
	o.Loc = op.Loc
	op.Block.InsertBefore(op, o)
	return o
}

// Replace makes v stand for op's only result everywhere under root, with
// the result's name, and removes op.
func Replace(root, op *ir.Operation, v *ir.Value) {
	v.Name = op.Results[0].Name
	ir.ReplaceAllUsesWith(root, op.Results[0], v)
	op.Remove()
}

// Concat returns a tensor.concat of operands along axis into rt, after
// checking that every operand has rt's rank and extents off the axis and
// that their extents along it add up to rt's. The messages name the
// operands and the axis as the source dialect does (operands "operand" or
// "input", axis "dimension" or "axis").
func Concat(operands []*ir.Value, rt *ir.TensorType, axis int64, ranked func(ir.Type) *ir.TensorType, operand, axisName string) (*ir.Operation, error) {
	total := int64(0)
	for i, v := range operands {
		t := ranked(v.Type)
		if len(t.Shape) != len(rt.Shape) {
			return nil, fmt.Errorf("operand #%d has rank %d but the result has rank %d", i, len(t.Shape), len(rt.Shape))
		}
		for d, s := range t.Shape {
			if d != int(axis) && s != rt.Shape[d] {
				return nil, fmt.Errorf("operand #%d dimension %d is %d but the result's is %d", i, d, s, rt.Shape[d])
			}
		}
		total += t.Shape[axis]
	}
	if total != rt.Shape[axis] {
		return nil, fmt.Errorf("%ss give %d along %s %d but the result has %d", operand, total, axisName, axis, rt.Shape[axis])
	}
	return ir.NewOp("tensor.concat", append([]*ir.Value(nil), operands...), []ir.Type{rt}, []ir.NamedAttr{
		{Name: "dim", Value: ir.IntegerAttr{Value: axis, Type: ir.I64}},
	}), nil
}
