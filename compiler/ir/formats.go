package ir

import "strconv"

// This file holds assembly formats shared by many simple ops.

// ParseAttrDictColonType parses the `attr-dict : type` that ends many ops'
// custom forms, appending the attributes to op. It returns the type and
// the position of the ':', where a type that does not fit the operands is
// reported.
func (p *Parser) ParseAttrDictColonType(op *Operation) (Type, Pos, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, Pos{}, err
	}
	pos := p.Pos()
	t, err := p.ParseColonType()
	return t, pos, err
}

// ParseAttrDictTypePair parses `attr-dict : src-type keyword result-type`,
// the end of casts and reshapes (keyword "to" or "into"), appending the
// attributes to op and typing src by src-type. It returns result-type.
func (p *Parser) ParseAttrDictTypePair(op *Operation, src *Value, keyword string) (Type, error) {
	st, pos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(src, st, pos); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword(keyword); err != nil {
		return nil, err
	}
	return p.ParseType()
}

// AttrDictTypePair prints ` {attrs} : from keyword to`, the inverse of
// ParseAttrDictTypePair, leaving out the elided attributes.
func (p *Printer) AttrDictTypePair(op *Operation, from Type, keyword string, to Type, elided ...string) {
	p.AttrDictColonType(op, from, elided...)
	p.WriteString(" " + keyword + " ")
	p.Type(to)
}

// ParseTypedOperand parses an operand whose type the op fixes (an i1
// condition, an index), typing it t; a use of another type is reported at
// the operand.
func (p *Parser) ParseTypedOperand(t Type) (*Value, error) {
	pos := p.Pos()
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(v, t, pos); err != nil {
		return nil, err
	}
	return v, nil
}

// ParseColonTypesOf parses `: t1, t2, ...`, one type per value of vs, and
// types vs with them; a mismatch is reported at the ':'.
func (p *Parser) ParseColonTypesOf(vs []*Value) ([]Type, error) {
	pos := p.Pos()
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveTypes(vs, ts, pos); err != nil {
		return nil, err
	}
	return ts, nil
}

// ParseOptionalOperandsColonTypes parses `%a, %b : t1, t2` when an operand
// follows (nothing otherwise), the operand list of return-like ops, typing
// each operand by its type. It returns the operands and their types.
func (p *Parser) ParseOptionalOperandsColonTypes() ([]*Value, []Type, error) {
	vs, err := p.ParseOperandList()
	if err != nil || len(vs) == 0 {
		return nil, nil, err
	}
	ts, err := p.ParseColonTypesOf(vs)
	if err != nil {
		return nil, nil, err
	}
	return vs, ts, nil
}

// OperandsColonTypes prints ` %a, %b : t1, t2`, the inverse of
// ParseOptionalOperandsColonTypes; nothing when vs is empty.
func (p *Printer) OperandsColonTypes(vs []*Value) {
	if len(vs) == 0 {
		return
	}
	p.WriteString(" ")
	p.Operands(vs)
	p.WriteString(" : ")
	ts := make([]Type, len(vs))
	for i, v := range vs {
		ts[i] = v.Type
	}
	p.Types(ts)
}

// AttrDictColonType prints ` {attrs} : t`, the inverse of
// ParseAttrDictColonType, leaving out the elided attributes.
func (p *Printer) AttrDictColonType(op *Operation, t Type, elided ...string) {
	p.AttrDict(op, elided...)
	p.WriteString(" : ")
	p.Type(t)
}

// SameTypeOp returns an OpDef for `op %a, %b, ... attr-dict : t` whose n
// operands and single result all have type t.
func SameTypeOp(name string, n int, verify func(*Operation) error) *OpDef {
	return &OpDef{
		Name: name,
		Parse: func(p *Parser, op *Operation) ([]Type, error) {
			pos := p.Pos()
			vs, err := p.ParseOperandList()
			if err != nil {
				return nil, err
			}
			if len(vs) != n {
				return nil, Errorf(pos, "expected %d operands, but found %d", n, len(vs))
			}
			t, tpos, err := p.ParseAttrDictColonType(op)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				if err := p.ResolveType(v, t, tpos); err != nil {
					return nil, err
				}
			}
			op.Operands = vs
			return []Type{t}, nil
		},
		Print: func(p *Printer, op *Operation) {
			p.WriteString(" ")
			p.Operands(op.Operands)
			p.AttrDictColonType(op, op.Results[0].Type)
		},
		Verify: func(op *Operation) error {
			if err := ExpectOperands(op, n); err != nil {
				return err
			}
			if err := ExpectResults(op, 1); err != nil {
				return err
			}
			for i, v := range op.Operands {
				if !TypesEqual(v.Type, op.Results[0].Type) {
					return OpErrorf(op, "requires the same type for all operands and results: operand #%d has '%s' but the result is '%s'", i, TypeString(v.Type), TypeString(op.Results[0].Type))
				}
			}
			if verify != nil {
				return verify(op)
			}
			return nil
		},
	}
}

// CastOp returns an OpDef for `op %a attr-dict : t1 to t2`.
func CastOp(name string, verify func(*Operation) error) *OpDef {
	return &OpDef{
		Name: name,
		Parse: func(p *Parser, op *Operation) ([]Type, error) {
			v, err := p.ParseOperand()
			if err != nil {
				return nil, err
			}
			to, err := p.ParseAttrDictTypePair(op, v, "to")
			if err != nil {
				return nil, err
			}
			op.Operands = []*Value{v}
			return []Type{to}, nil
		},
		Print: func(p *Printer, op *Operation) {
			p.WriteString(" ")
			p.Operand(op.Operands[0])
			p.AttrDictTypePair(op, op.Operands[0].Type, "to", op.Results[0].Type)
		},
		Verify: func(op *Operation) error {
			if err := ExpectOperands(op, 1); err != nil {
				return err
			}
			if err := ExpectResults(op, 1); err != nil {
				return err
			}
			if verify != nil {
				return verify(op)
			}
			return nil
		},
	}
}

// DimensionOp returns an OpDef for `op[N] attr-dict : index` storing N as
// the index attribute attrName; N must be 0, 1 or 2.
func DimensionOp(name, attrName string) *OpDef {
	return &OpDef{
		Name: name,
		Parse: func(p *Parser, op *Operation) ([]Type, error) {
			if err := p.Expect("["); err != nil {
				return nil, err
			}
			pos := p.Pos()
			n, err := p.ParseInteger()
			if err != nil {
				return nil, err
			}
			if n < 0 || n > 2 {
				return nil, Errorf(pos, "dimension %d out of range [0, 2]", n)
			}
			if err := p.Expect("]"); err != nil {
				return nil, err
			}
			op.Attrs = append(op.Attrs, NamedAttr{Name: attrName, Value: IndexAttr(n)})
			if err := p.ParseOptionalAttrDict(op); err != nil {
				return nil, err
			}
			t, err := p.ParseColonType()
			if err != nil {
				return nil, err
			}
			return []Type{t}, nil
		},
		Print: func(p *Printer, op *Operation) {
			n, _ := op.IntAttr(attrName)
			p.WriteString("[" + strconv.FormatInt(n, 10) + "]")
			p.AttrDictColonType(op, op.Results[0].Type, attrName)
		},
		Verify: func(op *Operation) error {
			if err := ExpectResults(op, 1); err != nil {
				return err
			}
			n, ok := op.IntAttr(attrName)
			if !ok || n < 0 || n > 2 {
				return OpErrorf(op, "requires a '%s' attribute in [0, 2]", attrName)
			}
			if _, ok := op.Results[0].Type.(IndexType); !ok {
				return OpErrorf(op, "result must be index, found '%s'", TypeString(op.Results[0].Type))
			}
			return nil
		},
	}
}

// ReturnLikeOp returns an OpDef for `op %a, %b attr-dict : t1, t2` (or just
// `op`), a terminator.
func ReturnLikeOp(name string, verify func(*Operation) error) *OpDef {
	return &OpDef{
		Name: name,
		Parse: func(p *Parser, op *Operation) ([]Type, error) {
			vs, err := p.ParseOperandList()
			if err != nil {
				return nil, err
			}
			if err := p.ParseOptionalAttrDict(op); err != nil {
				return nil, err
			}
			if len(vs) > 0 {
				if _, err := p.ParseColonTypesOf(vs); err != nil {
					return nil, err
				}
			}
			op.Operands = vs
			return nil, nil
		},
		Print: func(p *Printer, op *Operation) {
			if len(op.Operands) > 0 {
				p.WriteString(" ")
				p.Operands(op.Operands)
			}
			p.AttrDict(op)
			if len(op.Operands) > 0 {
				p.WriteString(" : ")
				var ts []Type
				for _, v := range op.Operands {
					ts = append(ts, v.Type)
				}
				p.Types(ts)
			}
		},
		Verify: func(op *Operation) error {
			if op.Block != nil && op.Block.Terminator() != op {
				return OpErrorf(op, "must be the last operation in its block")
			}
			if verify != nil {
				return verify(op)
			}
			return nil
		},
	}
}

// SymbolTableOp returns an OpDef for `op [visibility] [@name] [attributes
// {..}] { body }`, a symbol table whose body needs no terminator. With
// named set the symbol name is required.
func SymbolTableOp(name string, named bool, verify func(*Operation) error) *OpDef {
	return &OpDef{
		Name: name,
		Parse: func(p *Parser, op *Operation) ([]Type, error) {
			p.parseVisibilityAttr(op)
			if named || p.tok.kind == tokSymbol {
				n, err := p.ParseSymbolName()
				if err != nil {
					return nil, err
				}
				op.Attrs = append(op.Attrs, NamedAttr{Name: "sym_name", Value: StringAttr{Value: n}})
			}
			if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
				return nil, err
			}
			r, err := p.ParseRegion(op, nil)
			if err != nil {
				return nil, err
			}
			if len(r.Blocks) == 0 {
				r.AddBlock()
			}
			return nil, nil
		},
		Print: PrintSymbolTableOp,
		Verify: func(op *Operation) error {
			if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
				return OpErrorf(op, "expects one region with one block")
			}
			if named && op.SymName() == "" {
				return OpErrorf(op, "requires a symbol name")
			}
			if verify != nil {
				return verify(op)
			}
			return nil
		},
		IsolatedFromAbove: true,
		SymbolTable:       true,
		NoTerminator:      true,
	}
}

// PrintVisibilityAndName prints ` [visibility] @name` from sym_visibility
// and sym_name.
func PrintVisibilityAndName(p *Printer, op *Operation) {
	if v, ok := op.Attr("sym_visibility").(StringAttr); ok {
		p.WriteString(" " + v.Value)
	}
	if n := op.SymName(); n != "" || op.HasAttr("sym_name") {
		p.WriteString(" ")
		p.Symbol(n)
	}
}

// PrintSymbolTableOp prints the SymbolTableOp format.
func PrintSymbolTableOp(p *Printer, op *Operation) {
	PrintVisibilityAndName(p, op)
	p.AttrDictWithKeyword(op, "sym_visibility", "sym_name")
	p.WriteString(" ")
	p.Region(op.Regions[0], false)
}

// IsSymbol reports whether the current token is a symbol name (@name);
// exported for dialect parsers.
func (p *Parser) IsSymbol() bool { return p.tok.kind == tokSymbol }
