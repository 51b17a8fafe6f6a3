// Package arith registers MLIR's arith dialect: constants, integer and
// float arithmetic, comparisons, select and casts.
package arith

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Binary ops with operands and result of one type.
var binaryOps = []string{
	"addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "ceildivsi", "ceildivui", "floordivsi",
	"andi", "ori", "xori", "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui",
	"addf", "subf", "mulf", "divf", "remf", "maximumf", "minimumf", "maxnumf", "minnumf",
}

var oldNames = map[string]string{"maximumf": "maxf", "minimumf": "minf"}

var castOps = []string{
	"index_cast", "index_castui", "bitcast", "sitofp", "uitofp", "fptosi", "fptoui",
	"extf", "truncf", "extsi", "extui", "trunci",
}

// CmpIPredicates and CmpFPredicates map predicate keywords to their
// numeric values, as MLIR stores them.
var (
	CmpIPredicates = []string{"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}
	CmpFPredicates = []string{"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"}
)

// Register adds the arith ops to r.
func Register(r *ir.Registry) {
	for _, n := range binaryOps {
		isFloat := n[len(n)-1] == 'f'
		d := ir.SameTypeOp("arith."+n, 2, elemCheck(isFloat))
		// MLIR's names before 2023 for the NaN-propagating maximum and
		// minimum (IREE's Dec 2022 tests use them).
		if old, ok := oldNames[n]; ok {
			d.Aliases = []string{"arith." + old}
		}
		r.RegisterOp(d)
	}
	r.RegisterOp(ir.SameTypeOp("arith.negf", 1, elemCheck(true)))
	for _, n := range castOps {
		r.RegisterOp(ir.CastOp("arith."+n, castCheck(n)))
	}
	r.RegisterOp(&ir.OpDef{Name: "arith.constant", Parse: parseConstant, Print: printConstant, Verify: verifyConstant})
	r.RegisterOp(cmpOp("arith.cmpi", CmpIPredicates, false))
	r.RegisterOp(cmpOp("arith.cmpf", CmpFPredicates, true))
	r.RegisterOp(&ir.OpDef{Name: "arith.select", Parse: parseSelect, Print: printSelect, Verify: verifySelect})
}

// ElementType returns the scalar type of t (its element type when shaped).
func ElementType(t ir.Type) ir.Type {
	if s, ok := t.(ir.ShapedType); ok {
		return s.ElementType()
	}
	return t
}

func isIntLike(t ir.Type) bool {
	switch ElementType(t).(type) {
	case ir.IntegerType, ir.IndexType:
		return true
	}
	return false
}

func isFloatLike(t ir.Type) bool {
	_, ok := ElementType(t).(ir.FloatType)
	return ok
}

func elemCheck(float bool) func(*ir.Operation) error {
	return func(op *ir.Operation) error {
		t := op.Results[0].Type
		if float && !isFloatLike(t) {
			return ir.OpErrorf(op, "operand must be floating-point-like, but got '%s'", ir.TypeString(t))
		}
		if !float && !isIntLike(t) {
			return ir.OpErrorf(op, "operand must be signless-integer-like, but got '%s'", ir.TypeString(t))
		}
		return nil
	}
}

func castCheck(name string) func(*ir.Operation) error {
	return func(op *ir.Operation) error {
		from, to := op.Operands[0].Type, op.Results[0].Type
		fs, fok := from.(ir.ShapedType)
		ts, tok := to.(ir.ShapedType)
		if fok != tok {
			return ir.OpErrorf(op, "operand type '%s' and result type '%s' are cast incompatible", ir.TypeString(from), ir.TypeString(to))
		}
		if fok {
			fd, td := fs.ShapeDims(), ts.ShapeDims()
			if len(fd) != len(td) {
				return ir.OpErrorf(op, "operand type '%s' and result type '%s' are cast incompatible", ir.TypeString(from), ir.TypeString(to))
			}
		}
		fe, te := ElementType(from), ElementType(to)
		switch name {
		case "index_cast", "index_castui":
			_, fi := fe.(ir.IndexType)
			_, ti := te.(ir.IndexType)
			_, fint := fe.(ir.IntegerType)
			_, tint := te.(ir.IntegerType)
			if !((fi && tint) || (fint && ti)) {
				return ir.OpErrorf(op, "operand type '%s' and result type '%s' are cast incompatible", ir.TypeString(from), ir.TypeString(to))
			}
		case "bitcast":
			if bitWidth(fe) != bitWidth(te) || bitWidth(fe) == 0 {
				return ir.OpErrorf(op, "operand type '%s' and result type '%s' are cast incompatible", ir.TypeString(from), ir.TypeString(to))
			}
		}
		return nil
	}
}

func bitWidth(t ir.Type) int {
	switch t := t.(type) {
	case ir.IntegerType:
		return t.Width
	case ir.FloatType:
		return t.Width()
	}
	return 0
}

func parseConstant(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	pos := p.Pos()
	a, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	t := TypeOfValue(a)
	if t == nil {
		return nil, ir.Errorf(pos, "arith.constant value must be a typed integer, float, bool or dense attribute, found %s", ir.AttrString(a))
	}
	op.Attrs = append([]ir.NamedAttr{{Name: "value", Value: a}}, op.Attrs...)
	return []ir.Type{t}, nil
}

// TypeOfValue returns the type carried by a constant attribute, or nil.
func TypeOfValue(a ir.Attribute) ir.Type {
	switch a := a.(type) {
	case ir.IntegerAttr:
		return a.Type
	case ir.FloatAttr:
		return a.Type
	case ir.BoolAttr:
		return ir.I1
	case *ir.DenseAttr:
		return a.Type
	}
	return nil
}

func printConstant(p *ir.Printer, op *ir.Operation) {
	p.AttrDict(op, "value")
	p.WriteString(" ")
	p.Attr(op.Attr("value"))
}

func verifyConstant(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 0); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	t := TypeOfValue(op.Attr("value"))
	if t == nil {
		return ir.OpErrorf(op, "requires a typed 'value' attribute")
	}
	if !ir.TypesEqual(t, op.Results[0].Type) {
		return ir.OpErrorf(op, "value type '%s' does not match result type '%s'", ir.TypeString(t), ir.TypeString(op.Results[0].Type))
	}
	return nil
}

// boolLike returns i1 with the shape of t.
func boolLike(t ir.Type) ir.Type {
	switch t := t.(type) {
	case *ir.TensorType:
		return &ir.TensorType{Shape: t.Shape, Elem: ir.I1, Unranked: t.Unranked}
	case *ir.VectorType:
		return &ir.VectorType{Shape: t.Shape, Elem: ir.I1}
	}
	return ir.I1
}

func cmpOp(name string, preds []string, float bool) *ir.OpDef {
	return &ir.OpDef{
		Name: name,
		Parse: func(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
			pos := p.Pos()
			// MLIR reads the predicate as a keyword or a string ("sgt"),
			// as it reads every enum attribute of a custom form.
			parse := p.ParseKeyword
			if p.IsString() {
				parse = p.ParseString
			}
			k, err := parse()
			if err != nil {
				return nil, err
			}
			idx := -1
			for i, s := range preds {
				if s == k {
					idx = i
				}
			}
			if idx < 0 {
				return nil, ir.Errorf(pos, "unknown comparison predicate '%s'", k)
			}
			if err := p.Expect(","); err != nil {
				return nil, err
			}
			vs, err := p.ParseOperandList()
			if err != nil {
				return nil, err
			}
			if len(vs) != 2 {
				return nil, ir.Errorf(pos, "expected 2 operands, but found %d", len(vs))
			}
			op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "predicate", Value: ir.IntegerAttr{Value: int64(idx), Type: ir.I64}})
			if err := p.ParseOptionalAttrDict(op); err != nil {
				return nil, err
			}
			tpos := p.Pos()
			t, err := p.ParseColonType()
			if err != nil {
				return nil, err
			}
			if err := p.ResolveTypes(vs, []ir.Type{t, t}, tpos); err != nil {
				return nil, err
			}
			op.Operands = vs
			return []ir.Type{boolLike(t)}, nil
		},
		Print: func(p *ir.Printer, op *ir.Operation) {
			n, _ := op.IntAttr("predicate")
			name := "?"
			if n >= 0 && int(n) < len(preds) {
				name = preds[n]
			}
			p.WriteString(" " + name + ", ")
			p.Operands(op.Operands)
			p.AttrDict(op, "predicate")
			p.WriteString(" : ")
			p.Type(op.Operands[0].Type)
		},
		Verify: func(op *ir.Operation) error {
			if err := ir.ExpectOperands(op, 2); err != nil {
				return err
			}
			n, ok := op.IntAttr("predicate")
			if !ok || n < 0 || int(n) >= len(preds) {
				return ir.OpErrorf(op, "requires a valid 'predicate' attribute")
			}
			if !ir.TypesEqual(op.Operands[0].Type, op.Operands[1].Type) {
				return ir.OpErrorf(op, "requires both operands to have the same type")
			}
			if float && !isFloatLike(op.Operands[0].Type) || !float && !isIntLike(op.Operands[0].Type) {
				return ir.OpErrorf(op, "operand type '%s' is not valid for this comparison", ir.TypeString(op.Operands[0].Type))
			}
			return nil
		},
	}
}

func parseSelect(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	pos := p.Pos()
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if len(vs) != 3 {
		return nil, ir.Errorf(pos, "expected 3 operands, but found %d", len(vs))
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
	var cond, t ir.Type
	switch len(ts) {
	case 1:
		cond, t = ir.I1, ts[0]
	case 2:
		cond, t = ts[0], ts[1]
	default:
		return nil, ir.Errorf(tpos, "expected one or two types after ':'")
	}
	if err := p.ResolveTypes(vs, []ir.Type{cond, t, t}, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return []ir.Type{t}, nil
}

func printSelect(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	p.AttrDict(op)
	p.WriteString(" : ")
	if !ir.TypesEqual(op.Operands[0].Type, ir.I1) {
		p.Type(op.Operands[0].Type)
		p.WriteString(", ")
	}
	p.Type(op.Results[0].Type)
}

func verifySelect(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 3); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if !ir.TypesEqual(ElementType(op.Operands[0].Type), ir.I1) {
		return ir.OpErrorf(op, "condition must be i1 or a shaped type of i1, found '%s'", ir.TypeString(op.Operands[0].Type))
	}
	t := op.Results[0].Type
	if !ir.TypesEqual(op.Operands[1].Type, t) || !ir.TypesEqual(op.Operands[2].Type, t) {
		return ir.OpErrorf(op, "requires the true and false values and the result to have the same type")
	}
	return nil
}
