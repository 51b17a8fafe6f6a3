package util

import (
	"github.com/goiree/goiree/compiler/ir"
)

func registerHints(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "util.unfoldable_constant", Parse: parseUnfoldable, Print: printUnfoldable, Verify: verifyUnfoldable})
	r.RegisterOp(&ir.OpDef{Name: "util.optimization_barrier", Parse: parseBarrier, Print: printBarrier, Verify: verifyBarrier})
	r.RegisterOp(&ir.OpDef{Name: "util.null", Parse: parseNull, Print: printNull, Verify: func(op *ir.Operation) error { return ir.ExpectResults(op, 1) }})
	r.RegisterOp(&ir.OpDef{Name: "util.unreachable", Parse: parseUnreachable, Print: printUnreachable, Verify: verifyUnreachable})
	r.RegisterOp(&ir.OpDef{Name: "util.buffer.constant", Parse: parseBufferConstant, Print: printBufferConstant, Verify: verifyBufferConstant})
}

// util.buffer.constant ["name"] attr-dict : !util.buffer = value
func parseBufferConstant(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.IsString() {
		n, err := p.ParseString()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "name", Value: ir.StringAttr{Value: n}})
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	if err := p.Expect("="); err != nil {
		return nil, err
	}
	v, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "value", Value: v})
	return []ir.Type{t}, nil
}

func printBufferConstant(p *ir.Printer, op *ir.Operation) {
	if n := op.Attr("name"); n != nil {
		p.WriteString(" ")
		p.Attr(n)
	}
	p.AttrDict(op, "name", "value")
	p.WriteString(" : ")
	p.Type(op.Results[0].Type)
	p.WriteString(" = ")
	if v := op.Attr("value"); v != nil {
		p.Attr(v)
	}
}

func verifyBufferConstant(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if d, ok := op.Results[0].Type.(*ir.DialectType); !ok || d.Name != "util.buffer" {
		return ir.OpErrorf(op, "result must be !util.buffer, but got '%s'", ir.TypeString(op.Results[0].Type))
	}
	switch v := op.Attr("value").(type) {
	case ir.StringAttr, *ir.DenseAttr, *ir.OpaqueAttr:
	case nil:
		return ir.OpErrorf(op, "requires attribute 'value'")
	default:
		return ir.OpErrorf(op, "value must be a string or elements attribute, found %s", ir.AttrString(v))
	}
	if a := op.Attr("alignment"); a != nil {
		ia, ok := a.(ir.IntegerAttr)
		if !ok || ia.Value <= 0 || ia.Value&(ia.Value-1) != 0 {
			return ir.OpErrorf(op, "alignment must be a power of two index, found %s", ir.AttrString(a))
		}
	}
	return nil
}

// util.unfoldable_constant attr-dict value, where value is a typed
// attribute or `@symbol : type`.
func parseUnfoldable(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	vpos := p.Pos()
	v, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "value", Value: v})
	if _, ok := v.(ir.SymbolRefAttr); ok {
		t, err := p.ParseColonType()
		if err != nil {
			return nil, err
		}
		return []ir.Type{t}, nil
	}
	t := AttrType(v)
	if t == nil {
		return nil, ir.Errorf(vpos, "expected a typed constant value, found %s", ir.AttrString(v))
	}
	return []ir.Type{t}, nil
}

func printUnfoldable(p *ir.Printer, op *ir.Operation) {
	p.AttrDict(op, "value")
	p.WriteString(" ")
	v := op.Attr("value")
	if v != nil {
		p.Attr(v)
	}
	if _, ok := v.(ir.SymbolRefAttr); ok {
		p.WriteString(" : ")
		p.Type(op.Results[0].Type)
	}
}

func verifyUnfoldable(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	v := op.Attr("value")
	if v == nil {
		return ir.OpErrorf(op, "requires attribute 'value'")
	}
	if t := AttrType(v); t != nil && !ir.TypesEqual(t, op.Results[0].Type) {
		return ir.OpErrorf(op, "value type '%s' does not match result type '%s'", ir.TypeString(t), ir.TypeString(op.Results[0].Type))
	}
	return nil
}

// util.optimization_barrier attr-dict [%a, ... : t, ...]
func parseBarrier(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	vs, err := p.ParseOperandList()
	if err != nil || len(vs) == 0 {
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
	if err := p.ResolveTypes(vs, ts, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return ts, nil
}

func printBarrier(p *ir.Printer, op *ir.Operation) { printReturn(p, op) }

func verifyBarrier(op *ir.Operation) error {
	if len(op.Operands) != len(op.Results) {
		return ir.OpErrorf(op, "has %d operands but %d results; each operand passes through to one result", len(op.Operands), len(op.Results))
	}
	for i, v := range op.Operands {
		if !ir.TypesEqual(v.Type, op.Results[i].Type) {
			return ir.OpErrorf(op, "failed to verify that all of {operands, results} have same type: operand #%d is '%s', result #%d is '%s'", i, ir.TypeString(v.Type), i, ir.TypeString(op.Results[i].Type))
		}
	}
	return nil
}

// util.null attr-dict : type
func parseNull(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printNull(p *ir.Printer, op *ir.Operation) {
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Type(op.Results[0].Type)
}

// util.unreachable ["message"] attr-dict
func parseUnreachable(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.IsString() {
		m, err := p.ParseString()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "message", Value: ir.StringAttr{Value: m}})
	}
	return nil, p.ParseOptionalAttrDict(op)
}

func printUnreachable(p *ir.Printer, op *ir.Operation) {
	if m := op.Attr("message"); m != nil {
		p.WriteString(" ")
		p.Attr(m)
	}
	p.AttrDict(op, "message")
}

func verifyUnreachable(op *ir.Operation) error {
	if op.Block != nil && op.Block.Terminator() != op {
		return ir.OpErrorf(op, "must be the last operation in the parent block")
	}
	return nil
}
