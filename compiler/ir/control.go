package ir

// This file holds the parser and printer pieces of ops that branch between
// blocks (cf.br, cf.cond_br, cf.switch): successors and their operand lists.

// ParseSuccessor consumes a block reference ^name. A block not yet defined
// becomes a forward reference that must be defined before its region ends.
func (p *Parser) ParseSuccessor() (*Block, error) { return p.parseSuccessor() }

// ParseSuccessorAndUseList consumes `^bb` or `^bb(%a, %b : t1, t2)`, the
// successor form of MLIR's branch ops, and resolves the operand types.
func (p *Parser) ParseSuccessorAndUseList() (*Block, []*Value, error) {
	b, err := p.parseSuccessor()
	if err != nil {
		return nil, nil, err
	}
	if !p.Is("(") {
		return b, nil, nil
	}
	p.next()
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, nil, err
	}
	if len(vs) == 0 {
		return nil, nil, p.Errorf("expected SSA operand, found %s", p.tok.describe())
	}
	tpos := p.Pos()
	if err := p.Expect(":"); err != nil {
		return nil, nil, err
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return nil, nil, err
	}
	if err := p.ResolveTypes(vs, ts, tpos); err != nil {
		return nil, nil, err
	}
	if err := p.Expect(")"); err != nil {
		return nil, nil, err
	}
	return b, vs, nil
}

// Successor prints a block reference ^name.
func (p *Printer) Successor(b *Block) {
	if n, ok := p.blocks[b]; ok {
		p.w.WriteString("^" + n)
		return
	}
	p.w.WriteString("^<<UNKNOWN BLOCK>>")
}

// SuccessorAndUseList prints `^bb` or `^bb(%a, %b : t1, t2)`.
func (p *Printer) SuccessorAndUseList(b *Block, vs []*Value) {
	p.Successor(b)
	if len(vs) == 0 {
		return
	}
	p.w.WriteString("(")
	p.Operands(vs)
	p.w.WriteString(" : ")
	ts := make([]Type, len(vs))
	for i, v := range vs {
		ts[i] = v.Type
	}
	p.Types(ts)
	p.w.WriteString(")")
}

// VerifySuccessorOperands checks that a branch passes dest exactly the
// arguments it takes: as many values as dest has arguments, each of the
// argument's type, and that dest is a block of the branch's own region.
// which names the successor in messages ("successor #0", "default
// destination").
func VerifySuccessorOperands(op *Operation, which string, dest *Block, vs []*Value) error {
	if dest == nil {
		return OpErrorf(op, "%s is missing", which)
	}
	if op.Block == nil || dest.Region != op.Block.Region {
		return OpErrorf(op, "%s must be a block of the same region as the branch", which)
	}
	if len(vs) != len(dest.Args) {
		return OpErrorf(op, "branch has %d operands for %s, but target block has %d", len(vs), which, len(dest.Args))
	}
	for i, v := range vs {
		if !TypesEqual(v.Type, dest.Args[i].Type) {
			return OpErrorf(op, "type mismatch for bb argument #%d of %s: '%s' passed, block argument is '%s'", i, which, TypeString(v.Type), TypeString(dest.Args[i].Type))
		}
	}
	return nil
}

// ParseValueName consumes the name of a value being defined (`%name`, as
// in a loop's induction variable or an assignment list's left-hand side)
// and returns it without the '%' and with its position; unlike
// ParseOperand it records no use.
func (p *Parser) ParseValueName() (string, Pos, error) {
	if p.tok.kind != tokValueID {
		return "", p.Pos(), p.Errorf("expected SSA identifier, found %s", p.tok.describe())
	}
	name, pos := p.tok.text, p.Pos()
	p.next()
	return name, pos, nil
}

// IsKeywordAfter reports whether the current token is the punctuation
// punct and the token after it is the bare identifier kw, as in an
// optional `, atol 1.0e-4` group.
func (p *Parser) IsKeywordAfter(punct, kw string) bool {
	if !p.Is(punct) {
		return false
	}
	t := p.lex.lex(p.tok.end)
	return t.kind == tokIdent && t.text == kw
}
