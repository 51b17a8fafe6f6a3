// Package math registers MLIR's math dialect (elementwise float and integer
// functions).
package math

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

var unaryFloat = []string{"absf", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
	"sin", "cos", "tan", "tanh", "atan", "erf", "ceil", "floor", "round", "roundeven", "trunc"}

var unaryInt = []string{"absi", "ctlz", "cttz", "ctpop"}

// classifiers test a float and give an i1 (of the operand's shape).
var classifiers = []string{"isnan", "isinf", "isfinite", "isnormal"}

// Register adds the math ops to r.
func Register(r *ir.Registry) {
	for _, n := range unaryFloat {
		r.RegisterOp(ir.SameTypeOp("math."+n, 1, floatOnly))
	}
	for _, n := range unaryInt {
		r.RegisterOp(ir.SameTypeOp("math."+n, 1, intOnly))
	}
	r.RegisterOp(ir.SameTypeOp("math.powf", 2, floatOnly))
	r.RegisterOp(ir.SameTypeOp("math.atan2", 2, floatOnly))
	r.RegisterOp(ir.SameTypeOp("math.copysign", 2, floatOnly))
	r.RegisterOp(ir.SameTypeOp("math.fma", 3, floatOnly))
	for _, n := range classifiers {
		r.RegisterOp(&ir.OpDef{Name: "math." + n, Parse: parseClassifier, Print: printClassifier, Verify: verifyClassifier})
	}
	r.RegisterOp(&ir.OpDef{Name: "math.fpowi", Parse: parseFPowI, Print: printFPowI, Verify: verifyFPowI})
}

func floatOnly(op *ir.Operation) error {
	if _, ok := arith.ElementType(op.Results[0].Type).(ir.FloatType); !ok {
		return ir.OpErrorf(op, "operand must be floating-point-like, but got '%s'", ir.TypeString(op.Results[0].Type))
	}
	return nil
}

func intOnly(op *ir.Operation) error {
	switch arith.ElementType(op.Results[0].Type).(type) {
	case ir.IntegerType, ir.IndexType:
		return nil
	}
	return ir.OpErrorf(op, "operand must be signless-integer-like, but got '%s'", ir.TypeString(op.Results[0].Type))
}

// boolLike returns i1 in the shape of t.
func boolLike(t ir.Type) ir.Type {
	i1 := ir.IntegerType{Width: 1}
	switch s := t.(type) {
	case *ir.TensorType:
		c := *s
		c.Elem = i1
		return &c
	case *ir.VectorType:
		c := *s
		c.Elem = i1
		return &c
	}
	return i1
}

// parseClassifier parses `math.isnan %x attr-dict : f32`; the result is
// i1 of the operand's shape.
func parseClassifier(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	pos := p.Pos()
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(v, t, pos); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	return []ir.Type{boolLike(t)}, nil
}

func printClassifier(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Type(op.Operands[0].Type)
}

func verifyClassifier(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if _, ok := arith.ElementType(op.Operands[0].Type).(ir.FloatType); !ok {
		return ir.OpErrorf(op, "operand must be floating-point-like, but got '%s'", ir.TypeString(op.Operands[0].Type))
	}
	if want := boolLike(op.Operands[0].Type); !ir.TypesEqual(op.Results[0].Type, want) {
		return ir.OpErrorf(op, "result must be '%s', found '%s'", ir.TypeString(want), ir.TypeString(op.Results[0].Type))
	}
	return nil
}

// parseFPowI parses `math.fpowi %x, %n attr-dict : f32, i32`.
func parseFPowI(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	pos := p.Pos()
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if len(vs) != 2 {
		return nil, ir.Errorf(pos, "expected 2 operands, but found %d", len(vs))
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return nil, err
	}
	if len(ts) != 2 {
		return nil, ir.Errorf(tpos, "expected 2 types (base and exponent), but found %d", len(ts))
	}
	if err := p.ResolveTypes(vs, ts, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return []ir.Type{ts[0]}, nil
}

func printFPowI(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Types([]ir.Type{op.Operands[0].Type, op.Operands[1].Type})
}

func verifyFPowI(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 2); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if !ir.TypesEqual(op.Operands[0].Type, op.Results[0].Type) {
		return ir.OpErrorf(op, "result type '%s' must match the base's '%s'", ir.TypeString(op.Results[0].Type), ir.TypeString(op.Operands[0].Type))
	}
	if err := floatOnly(op); err != nil {
		return err
	}
	if _, ok := arith.ElementType(op.Operands[1].Type).(ir.IntegerType); !ok {
		return ir.OpErrorf(op, "exponent must be signless-integer-like, but got '%s'", ir.TypeString(op.Operands[1].Type))
	}
	return nil
}
