// Package tosa registers MLIR's TOSA dialect (Tensor Operator Set
// Architecture), which IREE accepts as an input dialect. Ops are held in
// MLIR's generic form; package conversion/tosatolinalg lowers them.
//
// The custom form of every op registered here is TOSA's default one:
//
//	%r = tosa.add %a, %b {attrs} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
//
// Both the op set of MLIR's current TOSA spec (zero points and shifts as
// operands, `values` on tosa.const) and the older one IREE's earlier tests
// use (the same numbers as attributes, `value`) verify.
package tosa

import (
	"fmt"

	"github.com/goiree/goiree/compiler/ir"
)

// kind groups ops by what the verifier checks of their operands.
type kind int

const (
	// elementwise ops take same-element-type operands of the result's rank
	// (any operand dimension may be 1 and broadcast); extra trailing
	// operands (shift, zero points) are single-element tensors.
	elementwise kind = iota
	// compare ops are elementwise with an i1 result.
	compare
	// other ops are checked by the conversion, which knows their layout.
	other
)

type opInfo struct {
	kind kind
	// min and max bound the operand count; the first n are elementwise
	// data operands and the rest single-element parameters.
	min, max, data int
}

// ops lists the registered ops (without the "tosa." prefix).
var ops = map[string]opInfo{
	"add": {elementwise, 2, 2, 2}, "sub": {elementwise, 2, 2, 2}, "mul": {elementwise, 2, 3, 2},
	"maximum": {elementwise, 2, 2, 2}, "minimum": {elementwise, 2, 2, 2}, "pow": {elementwise, 2, 2, 2},
	"intdiv":      {elementwise, 2, 2, 2},
	"bitwise_and": {elementwise, 2, 2, 2}, "bitwise_or": {elementwise, 2, 2, 2}, "bitwise_xor": {elementwise, 2, 2, 2},
	"logical_and": {elementwise, 2, 2, 2}, "logical_or": {elementwise, 2, 2, 2}, "logical_xor": {elementwise, 2, 2, 2},
	"logical_left_shift": {elementwise, 2, 2, 2}, "logical_right_shift": {elementwise, 2, 2, 2},
	"arithmetic_right_shift": {elementwise, 2, 2, 2},
	"abs":                    {elementwise, 1, 1, 1}, "negate": {elementwise, 1, 3, 1}, "exp": {elementwise, 1, 1, 1},
	"log": {elementwise, 1, 1, 1}, "tanh": {elementwise, 1, 1, 1}, "sigmoid": {elementwise, 1, 1, 1},
	"ceil": {elementwise, 1, 1, 1}, "floor": {elementwise, 1, 1, 1}, "reciprocal": {elementwise, 1, 1, 1},
	"rsqrt": {elementwise, 1, 1, 1}, "clz": {elementwise, 1, 1, 1}, "bitwise_not": {elementwise, 1, 1, 1},
	"logical_not": {elementwise, 1, 1, 1}, "clamp": {elementwise, 1, 1, 1},
	"equal": {compare, 2, 2, 2}, "greater": {compare, 2, 2, 2}, "greater_equal": {compare, 2, 2, 2},
	"select": {other, 3, 3, 3}, "cast": {other, 1, 1, 1},
	"const": {other, 0, 0, 0}, "reshape": {other, 1, 2, 1}, "transpose": {other, 1, 2, 1},
	"reduce_sum": {other, 1, 1, 1}, "reduce_max": {other, 1, 1, 1}, "reduce_min": {other, 1, 1, 1},
	"reduce_prod": {other, 1, 1, 1}, "reduce_product": {other, 1, 1, 1}, "reduce_all": {other, 1, 1, 1},
	"reduce_any": {other, 1, 1, 1}, "matmul": {other, 2, 4, 2}, "pad": {other, 1, 3, 1},
	"const_shape": {other, 0, 0, 0}, "gather": {other, 2, 2, 2}, "table": {other, 2, 2, 2},
	"max_pool2d": {other, 1, 1, 1}, "fully_connected": {other, 3, 3, 3},
	"slice": {other, 1, 3, 1}, "concat": {other, 1, 64, 1}, "conv2d": {other, 3, 5, 3},
	"depthwise_conv2d": {other, 3, 5, 3}, "avg_pool2d": {other, 1, 3, 1},
	"argmax": {other, 1, 1, 1},
}

// Register adds the TOSA ops to r.
func Register(r *ir.Registry) {
	for n, info := range ops {
		info := info
		r.RegisterOp(&ir.OpDef{Name: "tosa." + n, Parse: parseFunctional, Print: printFunctional,
			Verify: func(op *ir.Operation) error { return verify(op, info) }})
	}
	registerControl(r)
}

// parseFunctional parses `%a, %b attr-dict : (t1, t2) -> t3`.
func parseFunctional(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var vs []*ir.Value
	if p.IsValueID() {
		var err error
		if vs, err = p.ParseOperandList(); err != nil {
			return nil, err
		}
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	var ins []ir.Type
	if !p.Is(")") {
		var err error
		if ins, err = p.ParseTypeList(); err != nil {
			return nil, err
		}
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	outs, err := p.ParseFunctionResultTypes()
	if err != nil {
		return nil, err
	}
	if len(ins) != len(vs) {
		return nil, ir.Errorf(tpos, "%d operands but %d operand types", len(vs), len(ins))
	}
	if err := p.ResolveTypes(vs, ins, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return outs, nil
}

func printFunctional(p *ir.Printer, op *ir.Operation) {
	if len(op.Operands) > 0 {
		p.WriteString(" ")
		p.Operands(op.Operands)
	}
	p.AttrDict(op)
	p.WriteString(" : (")
	var ins, outs []ir.Type
	for _, v := range op.Operands {
		ins = append(ins, v.Type)
	}
	for _, v := range op.Results {
		outs = append(outs, v.Type)
	}
	p.Types(ins)
	p.WriteString(") -> ")
	p.ResultTypes(outs)
}

// Ranked returns t as a ranked tensor type, or nil.
func Ranked(t ir.Type) *ir.TensorType {
	if tt, ok := t.(*ir.TensorType); ok && !tt.Unranked {
		return tt
	}
	return nil
}

func verify(op *ir.Operation, info opInfo) error {
	if n := len(op.Operands); n < info.min || n > info.max {
		if info.min == info.max {
			return ir.OpErrorf(op, "expects %d operands, but found %d", info.min, n)
		}
		return ir.OpErrorf(op, "expects %d to %d operands, but found %d", info.min, info.max, n)
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if op.Name == "tosa.const_shape" {
		return verifyConstShape(op)
	}
	res := Ranked(op.Results[0].Type)
	if res == nil {
		return ir.OpErrorf(op, "result must be a ranked tensor, but got '%s'", ir.TypeString(op.Results[0].Type))
	}
	for i, v := range op.Operands {
		if IsShape(v.Type) && i > 0 && info.kind == other {
			continue
		}
		if Ranked(v.Type) == nil {
			return ir.OpErrorf(op, "operand #%d must be a ranked tensor, but got '%s'", i, ir.TypeString(v.Type))
		}
	}
	if op.Name == "tosa.const" {
		a, ok := ConstValue(op)
		if !ok {
			return ir.OpErrorf(op, "requires a dense 'values' (or 'value') attribute")
		}
		if !ir.TypesEqual(a.Type, res) {
			return ir.OpErrorf(op, "value type '%s' does not match the result type '%s'", ir.TypeString(a.Type), ir.TypeString(res))
		}
		return nil
	}
	if info.kind == other {
		return nil
	}
	for i, v := range op.Operands[:info.data] {
		t := Ranked(v.Type)
		if len(t.Shape) != len(res.Shape) {
			return ir.OpErrorf(op, "operand #%d has rank %d but the result has rank %d", i, len(t.Shape), len(res.Shape))
		}
		for d, s := range t.Shape {
			if s != 1 && s != ir.Dynamic && res.Shape[d] != ir.Dynamic && s != res.Shape[d] {
				return ir.OpErrorf(op, "operand #%d dimension %d (%d) does not broadcast to the result's %d", i, d, s, res.Shape[d])
			}
		}
		if !ir.TypesEqual(t.Elem, Ranked(op.Operands[0].Type).Elem) {
			return ir.OpErrorf(op, "operand #%d element type '%s' differs from operand #0's '%s'", i, ir.TypeString(t.Elem), ir.TypeString(Ranked(op.Operands[0].Type).Elem))
		}
	}
	want := Ranked(op.Operands[0].Type).Elem
	if info.kind == compare {
		want = ir.I1
	}
	if !ir.TypesEqual(res.Elem, want) {
		return ir.OpErrorf(op, "result element type '%s' must be '%s'", ir.TypeString(res.Elem), ir.TypeString(want))
	}
	return nil
}

// ConstValue returns tosa.const's value: the `values` attribute (MLIR's
// current spelling) or `value` (the earlier one).
func ConstValue(op *ir.Operation) (*ir.DenseAttr, bool) {
	for _, n := range []string{"values", "value"} {
		if a, ok := op.Attr(n).(*ir.DenseAttr); ok {
			return a, true
		}
	}
	return nil, false
}

// IsShape reports whether t is TOSA's shape type, !tosa.shape<rank>.
func IsShape(t ir.Type) bool {
	d, ok := t.(*ir.DialectType)
	return ok && d.Name == "tosa.shape"
}

// verifyConstShape checks `tosa.const_shape {values = dense<...> :
// tensor<Nxindex>} : () -> !tosa.shape<N>`.
func verifyConstShape(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 0); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	rt := op.Results[0].Type
	if !IsShape(rt) {
		return ir.OpErrorf(op, "result must be '!tosa.shape<N>', but got '%s'", ir.TypeString(rt))
	}
	a, ok := ConstValue(op)
	if !ok {
		return ir.OpErrorf(op, "requires a dense 'values' attribute")
	}
	at := Ranked(a.Type)
	if at == nil || len(at.Shape) != 1 || ir.TypeString(rt) != fmt.Sprintf("!tosa.shape<%d>", at.Shape[0]) {
		return ir.OpErrorf(op, "values of type '%s' do not fit '%s'", ir.TypeString(a.Type), ir.TypeString(rt))
	}
	return nil
}
