package pdl

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the pdl ops to r. They print in the generic form; only
// their custom syntax is parsed.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "pdl.pattern", Parse: parsePattern, NoTerminator: true, IsolatedFromAbove: true})
	r.RegisterOp(&ir.OpDef{Name: "pdl.operand", Parse: parseOptionalTypeOperand})
	r.RegisterOp(&ir.OpDef{Name: "pdl.type", Parse: parseTypeConst})
	r.RegisterOp(&ir.OpDef{Name: "pdl.attribute", Parse: parseAttrConst})
	r.RegisterOp(&ir.OpDef{Name: "pdl.operation", Parse: parseOperation})
	r.RegisterOp(&ir.OpDef{Name: "pdl.result", Parse: parseResult})
	r.RegisterOp(&ir.OpDef{Name: "pdl.range", Parse: parseRange})
	r.RegisterOp(&ir.OpDef{Name: "pdl.rewrite", Parse: parseRewrite, NoTerminator: true})
	r.RegisterOp(&ir.OpDef{Name: "pdl.apply_native_rewrite", Parse: parseNative})
	r.RegisterOp(&ir.OpDef{Name: "pdl.apply_native_constraint", Parse: parseNative})
	r.RegisterOp(&ir.OpDef{Name: "pdl.replace", Parse: parseReplace})
	r.RegisterOp(&ir.OpDef{Name: "pdl.erase", Parse: parseErase})
}

// parseReplace parses `%op with %newop` or `%op with (%values : types)`;
// with_op marks the first form.
func parseReplace(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(v, operationType, p.Pos()); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("with"); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	if p.IsValueID() {
		w, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		if err := p.ResolveType(w, operationType, p.Pos()); err != nil {
			return nil, err
		}
		op.Operands = append(op.Operands, w)
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "with_op", Value: ir.UnitAttr{}})
		return nil, nil
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if len(vs) > 0 {
		if _, err := p.ParseColonTypesOf(vs); err != nil {
			return nil, err
		}
	}
	op.Operands = append(op.Operands, vs...)
	return nil, p.Expect(")")
}

// parseErase parses `%op`.
func parseErase(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	return nil, p.ResolveType(v, operationType, p.Pos())
}

var (
	valueType     = &ir.DialectType{Name: "pdl.value"}
	typeType      = &ir.DialectType{Name: "pdl.type"}
	attributeType = &ir.DialectType{Name: "pdl.attribute"}
	operationType = &ir.DialectType{Name: "pdl.operation"}
)

// parsePattern parses `[@name] : benefit(n) {body}`.
func parsePattern(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.IsSymbol() {
		if err := p.ParseSymbolDecl(op); err != nil {
			return nil, err
		}
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("benefit"); err != nil {
		return nil, err
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	n, err := p.ParseInteger()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "benefit", Value: ir.IndexAttr(n)})
	_, err = p.ParseRegion(op, []ir.Argument{})
	return nil, err
}

// parseOptionalTypeOperand parses `[: %type]` (pdl.operand).
func parseOptionalTypeOperand(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.Optional(":") {
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		if err := p.ResolveType(v, typeType, p.Pos()); err != nil {
			return nil, err
		}
		op.Operands = []*ir.Value{v}
	}
	return []ir.Type{valueType}, nil
}

// parseTypeConst parses `[: type]` (pdl.type).
func parseTypeConst(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.Optional(":") {
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "constantType", Value: ir.TypeAttr{Type: t}})
	}
	return []ir.Type{typeType}, nil
}

// parseAttrConst parses `[= attr]` (pdl.attribute).
func parseAttrConst(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.Optional("=") {
		a, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "value", Value: a})
	}
	return []ir.Type{attributeType}, nil
}

// parseOperation parses `["name"] [(%operands : types)] [{"attr" = %a,
// ...}] [-> (%types : types)]`. The operands are the operand values, the
// attribute values and the result types, counted by num_operands,
// attribute_names and num_results.
func parseOperation(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.IsString() {
		name, err := p.ParseString()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "opName", Value: ir.StringAttr{Value: name}})
	}
	typedList := func() ([]*ir.Value, error) {
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		vs, err := p.ParseOperandList()
		if err != nil {
			return nil, err
		}
		if len(vs) > 0 {
			if _, err := p.ParseColonTypesOf(vs); err != nil {
				return nil, err
			}
		}
		return vs, p.Expect(")")
	}
	var operands, attrs, results []*ir.Value
	var err error
	if p.Is("(") {
		if operands, err = typedList(); err != nil {
			return nil, err
		}
	}
	names := &ir.ArrayAttr{}
	if p.Optional("{") {
		for !p.Is("}") {
			name, err := p.ParseString()
			if err != nil {
				return nil, err
			}
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			v, err := p.ParseOperand()
			if err != nil {
				return nil, err
			}
			if err := p.ResolveType(v, attributeType, p.Pos()); err != nil {
				return nil, err
			}
			names.Elems = append(names.Elems, ir.StringAttr{Value: name})
			attrs = append(attrs, v)
			if !p.Optional(",") {
				break
			}
		}
		if err := p.Expect("}"); err != nil {
			return nil, err
		}
	}
	if p.Optional("->") {
		if results, err = typedList(); err != nil {
			return nil, err
		}
	}
	op.Operands = append(append(append(op.Operands, operands...), attrs...), results...)
	op.Attrs = append(op.Attrs,
		ir.NamedAttr{Name: "num_operands", Value: ir.IndexAttr(int64(len(operands)))},
		ir.NamedAttr{Name: "attributeValueNames", Value: names},
		ir.NamedAttr{Name: "num_results", Value: ir.IndexAttr(int64(len(results)))})
	return []ir.Type{operationType}, nil
}

// parseResult parses `n of %op`.
func parseResult(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	n, err := p.ParseInteger()
	if err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("of"); err != nil {
		return nil, err
	}
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(v, operationType, p.Pos()); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "index", Value: ir.IndexAttr(n)})
	return []ir.Type{valueType}, nil
}

// parseRange parses `%a, ... : types`, or `: !pdl.range<value>` for an
// empty range.
func parseRange(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		t, err := p.ParseColonType()
		if err != nil {
			return nil, err
		}
		return []ir.Type{t}, nil
	}
	types, err := p.ParseColonTypesOf(vs)
	if err != nil {
		return nil, err
	}
	op.Operands = vs
	elem := valueType
	if len(types) > 0 {
		if d, ok := types[0].(*ir.DialectType); ok {
			elem = d
		}
	}
	return []ir.Type{&ir.DialectType{Name: "pdl.range", Body: elem.Name[len("pdl."):]}}, nil
}

// parseRewrite parses `[%root] [with "native"(...)] {body}`.
func parseRewrite(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.IsValueID() {
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		if err := p.ResolveType(v, operationType, p.Pos()); err != nil {
			return nil, err
		}
		op.Operands = []*ir.Value{v}
	}
	if p.OptionalKeyword("with") {
		return nil, p.Errorf("pdl.rewrite with a native rewrite function is not supported; write the rewrite as a region")
	}
	_, err := p.ParseRegion(op, []ir.Argument{})
	return nil, err
}

// parseNative parses `"name"(%args : types) [: results]`.
func parseNative(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	name, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "name", Value: ir.StringAttr{Value: name}})
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if len(vs) > 0 {
		if _, err := p.ParseColonTypesOf(vs); err != nil {
			return nil, err
		}
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	op.Operands = vs
	if p.Optional(":") {
		return p.ParseTypeList()
	}
	return nil, nil
}
