package util

import (
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

func registerHints(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "util.unfoldable_constant", Parse: parseUnfoldable, Print: printUnfoldable, Verify: verifyUnfoldable})
	r.RegisterOp(&ir.OpDef{Name: "util.optimization_barrier", Parse: parseBarrier, Print: printBarrier, Verify: verifyBarrier})
	r.RegisterOp(&ir.OpDef{Name: "util.null", Parse: parseNull, Print: printNull, Verify: func(op *ir.Operation) error { return ir.ExpectResults(op, 1) }})
	r.RegisterOp(&ir.OpDef{Name: "util.unreachable", Parse: parseUnreachable, Print: printUnreachable, Verify: verifyUnreachable})
	r.RegisterOp(&ir.OpDef{Name: "util.buffer.constant", Parse: parseBufferConstant, Print: printBufferConstant, Verify: verifyBufferConstant})
	r.RegisterOp(&ir.OpDef{Name: "util.scf.unreachable", Parse: parseUnreachable, Print: printUnreachable})
	r.RegisterOp(&ir.OpDef{Name: "util.assume.int", Parse: parseAssumeInt, Print: printAssumeInt, Verify: verifyAssumeInt})
}

// assumptionKeys are the fields of #util.int.assumption in print order.
var assumptionKeys = []string{"umin", "umax", "udiv"}

// parseAssumption parses the stripped form `<umin = 0, udiv = 16>` (or the
// full #util.int.assumption<...>) into an attribute printed in IREE's
// canonical spelling.
func parseAssumption(p *ir.Parser) (ir.Attribute, error) {
	pos := p.Pos()
	if !p.Is("<") {
		a, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		o, ok := a.(*ir.OpaqueAttr)
		if !ok || o.Name != "util.int.assumption" {
			return nil, ir.Errorf(pos, "expected an integer assumption (<umin = N, umax = N, udiv = N>), found %s", ir.AttrString(a))
		}
		return o, nil
	}
	p.Optional("<")
	vals := map[string]int64{}
	for !p.Optional(">") {
		if len(vals) > 0 {
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		kpos := p.Pos()
		k, err := p.ParseKeyword()
		if err != nil {
			return nil, err
		}
		known := false
		for _, n := range assumptionKeys {
			known = known || n == k
		}
		if !known {
			return nil, ir.Errorf(kpos, "unknown integer assumption '%s' (expected umin, umax or udiv)", k)
		}
		if _, dup := vals[k]; dup {
			return nil, ir.Errorf(kpos, "integer assumption '%s' given twice", k)
		}
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		if vals[k], err = p.ParseInteger(); err != nil {
			return nil, err
		}
	}
	var parts []string
	for _, k := range assumptionKeys {
		if v, ok := vals[k]; ok {
			parts = append(parts, k+" = "+strconv.FormatUint(uint64(v), 10))
		}
	}
	return &ir.OpaqueAttr{Name: "util.int.assumption", Body: strings.Join(parts, ", "), Angled: true}, nil
}

// util.assume.int %a<assumption>, %b[<a1>, <a2>] : t1, t2 attr-dict
func parseAssumeInt(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var vs []*ir.Value
	all := &ir.ArrayAttr{}
	for {
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		row := &ir.ArrayAttr{}
		if p.Optional("[") {
			for !p.Optional("]") {
				if len(row.Elems) > 0 {
					if err := p.Expect(","); err != nil {
						return nil, err
					}
				}
				a, err := parseAssumption(p)
				if err != nil {
					return nil, err
				}
				row.Elems = append(row.Elems, a)
			}
		} else {
			a, err := parseAssumption(p)
			if err != nil {
				return nil, err
			}
			row.Elems = append(row.Elems, a)
		}
		vs = append(vs, v)
		all.Elems = append(all.Elems, row)
		if !p.Optional(",") {
			break
		}
	}
	ts, err := p.ParseColonTypesOf(vs)
	if err != nil {
		return nil, err
	}
	op.Operands = vs
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "assumptions", Value: all})
	return ts, p.ParseOptionalAttrDict(op)
}

func printAssumption(p *ir.Printer, a ir.Attribute) {
	if o, ok := a.(*ir.OpaqueAttr); ok && o.Name == "util.int.assumption" {
		p.WriteString("<" + o.Body + ">")
		return
	}
	p.Attr(a)
}

func printAssumeInt(p *ir.Printer, op *ir.Operation) {
	rows, _ := op.Attr("assumptions").(*ir.ArrayAttr)
	p.WriteString(" ")
	for i, v := range op.Operands {
		if i > 0 {
			p.WriteString(", ")
		}
		p.Operand(v)
		var row []ir.Attribute
		if rows != nil && i < len(rows.Elems) {
			if r, ok := rows.Elems[i].(*ir.ArrayAttr); ok {
				row = r.Elems
			}
		}
		if len(row) == 1 {
			printAssumption(p, row[0])
			continue
		}
		p.WriteString("[")
		for j, a := range row {
			if j > 0 {
				p.WriteString(", ")
			}
			printAssumption(p, a)
		}
		p.WriteString("]")
	}
	p.WriteString(" : ")
	ts := make([]ir.Type, len(op.Operands))
	for i, v := range op.Operands {
		ts[i] = v.Type
	}
	p.Types(ts)
	p.AttrDict(op, "assumptions")
}

func verifyAssumeInt(op *ir.Operation) error {
	if len(op.Operands) != len(op.Results) {
		return ir.OpErrorf(op, "has %d operands but %d results", len(op.Operands), len(op.Results))
	}
	rows, ok := op.Attr("assumptions").(*ir.ArrayAttr)
	if !ok {
		return ir.OpErrorf(op, "requires an 'assumptions' array attribute")
	}
	if len(rows.Elems) != len(op.Operands) {
		return ir.OpErrorf(op, "expected %d assumption rows to match number of operands", len(op.Operands))
	}
	rank := -1
	for i, v := range op.Operands {
		switch t := v.Type.(type) {
		case ir.IndexType:
		case ir.IntegerType:
			if t.Signedness != ir.Signless {
				return ir.OpErrorf(op, "operand #%d must be a signless integer or index, but got '%s'", i, ir.TypeString(t))
			}
		default:
			return ir.OpErrorf(op, "operand #%d must be a signless integer or index, but got '%s'", i, ir.TypeString(v.Type))
		}
		if !ir.TypesEqual(v.Type, op.Results[i].Type) {
			return ir.OpErrorf(op, "result #%d must have the type of operand #%d", i, i)
		}
		row, ok := rows.Elems[i].(*ir.ArrayAttr)
		if !ok {
			return ir.OpErrorf(op, "attribute 'assumptions' failed to satisfy constraint: row #%d must be an array of #util.int.assumption", i)
		}
		for _, a := range row.Elems {
			if o, ok := a.(*ir.OpaqueAttr); !ok || o.Name != "util.int.assumption" {
				return ir.OpErrorf(op, "attribute 'assumptions' failed to satisfy constraint: row #%d holds %s, not a #util.int.assumption", i, ir.AttrString(a))
			}
		}
		// Each operand carries one row entry per permutation, so all rows
		// have the same length unless an operand gives a single assumption
		// for every permutation.
		if len(row.Elems) != 1 {
			if rank >= 0 && rank != len(row.Elems) {
				return ir.OpErrorf(op, "expected operand #%d to have %d assumptions but it has %d", i, rank, len(row.Elems))
			}
			rank = len(row.Elems)
		}
	}
	return nil
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
	t, _, err := p.ParseAttrDictColonType(op)
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
	p.AttrDictColonType(op, op.Results[0].Type, "name", "value")
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
	vs, ts, err := p.ParseOptionalOperandsColonTypes()
	if err != nil {
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
	t, _, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printNull(p *ir.Printer, op *ir.Operation) {
	p.AttrDictColonType(op, op.Results[0].Type)
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
