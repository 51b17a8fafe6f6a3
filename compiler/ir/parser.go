package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// maxNesting bounds the recursion depth of regions, attributes and types so
// hostile input cannot exhaust the stack.
const maxNesting = 200

// Parser reads MLIR text. Dialect packages drive it from their OpDef.Parse
// and AttrParseFunc hooks through its exported methods.
type Parser struct {
	lex         *lexer
	tok         token
	reg         *Registry
	attrAliases map[string]Attribute
	typeAliases map[string]Type
	scope       *scope
	depth       int
	// isolatedNext is set while parsing an op whose regions are isolated.
	isolatedNext bool
	// resourceUses are the dense_resource attributes parsed so far, given
	// their blobs when the file is done.
	resourceUses []resourceUse
}

type scope struct {
	parent     *scope // nil when isolated from above
	values     map[string][]*Value
	forward    map[string]*Value
	forwardPos map[string]Pos
	blocks     map[string]*Block
	blockPos   map[string]Pos
	defined    map[string]bool // blocks defined in this region
	region     *Region
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, values: map[string][]*Value{}, forward: map[string]*Value{},
		forwardPos: map[string]Pos{}, blocks: map[string]*Block{}, blockPos: map[string]Pos{}, defined: map[string]bool{}}
}

// Parse parses a whole source file. Ops outside an explicit top-level
// builtin.module are wrapped in an implicit one.
func Parse(file string, src []byte, reg *Registry) (*Module, error) {
	p := &Parser{lex: newLexer(file, string(src)), reg: reg,
		attrAliases: map[string]Attribute{}, typeAliases: map[string]Type{}}
	p.tok = p.lex.lex(0)
	m := &Module{}
	top := &Operation{Name: "builtin.module", Pos: Pos{File: file, Line: 1, Col: 1}}
	region := top.AddRegion()
	block := region.AddBlock()
	p.scope = newScope(nil)
	p.scope.region = region
	for p.tok.kind != tokEOF {
		if p.tok.kind == tokError {
			return nil, p.Errorf("%s", p.tok.text)
		}
		if (p.tok.kind == tokHash || p.tok.kind == tokBang) && p.peekIsAliasDef() {
			if err := p.parseAliasDef(m); err != nil {
				return nil, err
			}
			continue
		}
		if p.tok.kind == tokPunct && p.tok.text == "{" && strings.HasPrefix(p.lex.src[p.tok.off:], "{-#") {
			if err := p.parseFileMetadata(m); err != nil {
				return nil, err
			}
			continue
		}
		op, err := p.parseOperation()
		if err != nil {
			return nil, err
		}
		block.Append(op)
	}
	if err := p.closeScope(p.scope); err != nil {
		return nil, err
	}
	if err := p.resolveResources(m); err != nil {
		return nil, err
	}
	if len(block.Ops) == 1 && block.Ops[0].Name == "builtin.module" {
		m.Op = block.Ops[0]
		m.Op.Block = nil
	} else {
		m.Op = top
		m.Implicit = true
	}
	return m, nil
}

// ParseAttribute parses a standalone attribute string (no aliases).
func ParseAttribute(text string, reg *Registry) (Attribute, error) {
	p := &Parser{lex: newLexer("<attr>", text), reg: reg, attrAliases: map[string]Attribute{}, typeAliases: map[string]Type{}}
	p.tok = p.lex.lex(0)
	a, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, p.Errorf("unexpected %s after attribute", p.tok.describe())
	}
	return a, nil
}

func (p *Parser) peekIsAliasDef() bool {
	t := p.lex.lex(p.tok.end)
	return t.kind == tokPunct && t.text == "="
}

func (p *Parser) parseAliasDef(m *Module) error {
	name := p.tok.text
	isType := p.tok.kind == tokBang
	pos := p.Pos()
	p.next()
	p.next() // '='
	if isType {
		if _, dup := p.typeAliases[name]; dup {
			return Errorf(pos, "redefinition of type alias id '%s'", name)
		}
		t, err := p.ParseType()
		if err != nil {
			return err
		}
		p.typeAliases[name] = t
		m.TypeAliases = append(m.TypeAliases, NamedType{Name: name, Type: t})
		return nil
	}
	if _, dup := p.attrAliases[name]; dup {
		return Errorf(pos, "redefinition of attribute alias id '%s'", name)
	}
	a, err := p.ParseAttribute()
	if err != nil {
		return err
	}
	p.attrAliases[name] = a
	m.AttrAliases = append(m.AttrAliases, NamedAttr{Name: name, Value: a})
	return nil
}

func (p *Parser) next() { p.tok = p.lex.lex(p.tok.end) }

// reset repositions the parser at byte offset off.
func (p *Parser) reset(off int) { p.tok = p.lex.lex(off) }

// Pos returns the position of the current token.
func (p *Parser) Pos() Pos { return p.lex.pos(p.tok.off) }

// Errorf returns an error located at the current token.
func (p *Parser) Errorf(format string, args ...any) error {
	return Errorf(p.Pos(), format, args...)
}

// Is reports whether the current token is the punctuation s.
func (p *Parser) Is(s string) bool { return p.tok.kind == tokPunct && p.tok.text == s }

// IsKeyword reports whether the current token is the bare identifier kw.
func (p *Parser) IsKeyword(kw string) bool { return p.tok.kind == tokIdent && p.tok.text == kw }

// IsValueID reports whether the current token is an SSA value name.
func (p *Parser) IsValueID() bool { return p.tok.kind == tokValueID }

// IsString reports whether the current token is a string literal.
func (p *Parser) IsString() bool { return p.tok.kind == tokString }

// IsBlockID reports whether the current token is a block label.
func (p *Parser) IsBlockID() bool { return p.tok.kind == tokCaret }

// Optional consumes the punctuation s if present.
func (p *Parser) Optional(s string) bool {
	if p.Is(s) {
		p.next()
		return true
	}
	return false
}

// Expect consumes the punctuation s or fails.
func (p *Parser) Expect(s string) error {
	if p.tok.kind == tokError {
		return p.Errorf("%s", p.tok.text)
	}
	if !p.Optional(s) {
		return p.Errorf("expected '%s', found %s", s, p.tok.describe())
	}
	return nil
}

// OptionalKeyword consumes the bare identifier kw if present.
func (p *Parser) OptionalKeyword(kw string) bool {
	if p.IsKeyword(kw) {
		p.next()
		return true
	}
	return false
}

// ExpectKeyword consumes kw or fails.
func (p *Parser) ExpectKeyword(kw string) error {
	if !p.OptionalKeyword(kw) {
		return p.Errorf("expected '%s', found %s", kw, p.tok.describe())
	}
	return nil
}

// ParseKeyword consumes and returns a bare identifier.
func (p *Parser) ParseKeyword() (string, error) {
	if p.tok.kind != tokIdent {
		return "", p.Errorf("expected identifier, found %s", p.tok.describe())
	}
	s := p.tok.text
	p.next()
	return s, nil
}

// PeekKeyword returns the current bare identifier or "".
func (p *Parser) PeekKeyword() string {
	if p.tok.kind == tokIdent {
		return p.tok.text
	}
	return ""
}

// ParseString consumes a string literal.
func (p *Parser) ParseString() (string, error) {
	if p.tok.kind != tokString {
		if p.tok.kind == tokError {
			return "", p.Errorf("%s", p.tok.text)
		}
		return "", p.Errorf("expected string literal, found %s", p.tok.describe())
	}
	s := p.tok.text
	p.next()
	return s, nil
}

// ParseInteger consumes an optionally negative integer literal.
func (p *Parser) ParseInteger() (int64, error) {
	neg := false
	if p.Is("-") {
		t := p.lex.lex(p.tok.end)
		if t.kind != tokInt {
			return 0, p.Errorf("expected integer value, found %s", p.tok.describe())
		}
		neg = true
		p.next()
	}
	if p.tok.kind != tokInt {
		return 0, p.Errorf("expected integer value, found %s", p.tok.describe())
	}
	v, err := parseIntText(p.tok.text)
	if err != nil {
		return 0, p.Errorf("integer literal %s out of range", p.tok.text)
	}
	p.next()
	if neg {
		v = -v
	}
	return v, nil
}

// parseIntText converts an integer literal: decimal digits (leading zeros
// allowed, as MLIR reads 08 as eight, not as octal) or 0x and hex digits.
func parseIntText(s string) (int64, error) {
	base := 10
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		base, s = 16, s[2:]
	}
	v, err := strconv.ParseInt(s, base, 64)
	if err != nil {
		u, err2 := strconv.ParseUint(s, base, 64)
		if err2 != nil {
			return 0, err
		}
		return int64(u), nil
	}
	return v, nil
}

// ParseSymbolName consumes @name and returns name.
func (p *Parser) ParseSymbolName() (string, error) {
	if p.tok.kind != tokSymbol {
		return "", p.Errorf("expected symbol name, found %s", p.tok.describe())
	}
	s := p.tok.text
	p.next()
	return s, nil
}

// ParseSymbolRef consumes @a::@b::@c.
func (p *Parser) ParseSymbolRef() (SymbolRefAttr, error) {
	root, err := p.ParseSymbolName()
	if err != nil {
		return SymbolRefAttr{}, err
	}
	ref := SymbolRefAttr{Root: root}
	for p.Optional("::") {
		n, err := p.ParseSymbolName()
		if err != nil {
			return SymbolRefAttr{}, err
		}
		ref.Nested = append(ref.Nested, n)
	}
	return ref, nil
}

// ParseOptionalVisibility consumes public/private/nested and returns it.
func (p *Parser) ParseOptionalVisibility() string {
	for _, v := range []string{"public", "private", "nested"} {
		if p.OptionalKeyword(v) {
			return v
		}
	}
	return ""
}

// ParseSymbolDecl parses the `[visibility] @name` that opens a symbol's
// custom form into op's sym_visibility (when given) and sym_name
// attributes.
func (p *Parser) ParseSymbolDecl(op *Operation) error {
	p.parseVisibilityAttr(op)
	name, err := p.ParseSymbolName()
	if err != nil {
		return err
	}
	op.Attrs = append(op.Attrs, NamedAttr{Name: "sym_name", Value: StringAttr{Value: name}})
	return nil
}

// parseVisibilityAttr records an optional public/private/nested keyword as
// op's sym_visibility attribute.
func (p *Parser) parseVisibilityAttr(op *Operation) {
	if vis := p.ParseOptionalVisibility(); vis != "" {
		op.Attrs = append(op.Attrs, NamedAttr{Name: "sym_visibility", Value: StringAttr{Value: vis}})
	}
}

func (p *Parser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return p.Errorf("nesting too deep (more than %d levels)", maxNesting)
	}
	return nil
}

func (p *Parser) leave() { p.depth-- }

// ---- values ----

func (p *Parser) lookupValue(name string) *Value {
	base, idx := name, 0
	if i := strings.IndexByte(name, '#'); i >= 0 {
		base = name[:i]
		n, err := strconv.Atoi(name[i+1:])
		if err != nil {
			return nil
		}
		idx = n
	}
	for s := p.scope; s != nil; s = s.parent {
		if vs, ok := s.values[base]; ok {
			if idx < len(vs) {
				return vs[idx]
			}
			return nil
		}
		if v, ok := s.forward[name]; ok {
			return v
		}
	}
	return nil
}

// ParseOperand consumes an SSA use %name. A name not yet defined becomes a
// forward reference that must be defined before its region ends.
func (p *Parser) ParseOperand() (*Value, error) {
	if p.tok.kind != tokValueID {
		return nil, p.Errorf("expected SSA operand, found %s", p.tok.describe())
	}
	name := p.tok.text
	pos := p.Pos()
	p.next()
	if v := p.lookupValue(name); v != nil {
		return v, nil
	}
	if i := strings.IndexByte(name, '#'); i >= 0 {
		base := name[:i]
		for s := p.scope; s != nil; s = s.parent {
			if vs, ok := s.values[base]; ok {
				return nil, Errorf(pos, "result number %s out of range: '%%%s' has %d results", name[i+1:], base, len(vs))
			}
		}
	}
	v := &Value{Name: name, Pos: pos}
	p.scope.forward[name] = v
	p.scope.forwardPos[name] = pos
	return v, nil
}

// ParseOperandList consumes zero or more comma-separated operands.
func (p *Parser) ParseOperandList() ([]*Value, error) {
	var out []*Value
	if p.tok.kind != tokValueID {
		return nil, nil
	}
	for {
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !p.Optional(",") {
			return out, nil
		}
	}
}

// ParseDelimitedOperands consumes open operand-list close.
func (p *Parser) ParseDelimitedOperands(open, close string) ([]*Value, error) {
	if err := p.Expect(open); err != nil {
		return nil, err
	}
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(close); err != nil {
		return nil, err
	}
	return vs, nil
}

// ResolveType records the type of an operand use: it fixes the type of a
// forward reference and checks it against an already known value.
func (p *Parser) ResolveType(v *Value, t Type, pos Pos) error {
	if v.Type == nil {
		v.Type = t
		return nil
	}
	if !TypesEqual(v.Type, t) {
		return Errorf(pos, "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'",
			v.Name, TypeString(t), TypeString(v.Type))
	}
	return nil
}

// ResolveTypes resolves each operand with the matching type.
func (p *Parser) ResolveTypes(vs []*Value, ts []Type, pos Pos) error {
	if len(vs) != len(ts) {
		return Errorf(pos, "%d operands present, but expected %d", len(vs), len(ts))
	}
	for i := range vs {
		if err := p.ResolveType(vs[i], ts[i], pos); err != nil {
			return err
		}
	}
	return nil
}

func (p *Parser) defineValues(name string, vs []*Value, pos Pos) error {
	for s := p.scope; s != nil; s = s.parent {
		if _, dup := s.values[name]; dup {
			return Errorf(pos, "redefinition of SSA value '%%%s'", name)
		}
	}
	for i, v := range vs {
		key := name
		if len(vs) > 1 {
			key = name + "#" + strconv.Itoa(i)
		}
		fw, ok := p.scope.forward[key]
		if !ok && i == 0 && len(vs) > 1 {
			fw, ok = p.scope.forward[name]
			key = name
		}
		if ok {
			if fw.Type != nil && !TypesEqual(fw.Type, v.Type) {
				return Errorf(p.scope.forwardPos[key], "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'",
					key, TypeString(fw.Type), TypeString(v.Type))
			}
			// The placeholder becomes the real value so earlier uses see it.
			*fw = *v
			vs[i] = fw
			if v.Op != nil {
				v.Op.Results[v.Index] = fw
			}
			if v.Block != nil {
				v.Block.Args[v.Index] = fw
			}
			delete(p.scope.forward, key)
			delete(p.scope.forwardPos, key)
		}
		v.Name = name
	}
	for _, v := range vs {
		v.Name = name
	}
	p.scope.values[name] = vs
	return nil
}

// closeScope reports unresolved names or hands them to the parent scope.
func (p *Parser) closeScope(s *scope) error {
	for name, b := range s.blocks {
		if !s.defined[name] {
			_ = b
			return Errorf(s.blockPos[name], "reference to an undefined block '^%s'", name)
		}
	}
	if len(s.forward) == 0 {
		return nil
	}
	if s.parent == nil {
		// Report the earliest unresolved use.
		var first string
		var fp Pos
		for n, pos := range s.forwardPos {
			if first == "" || pos.Line < fp.Line || (pos.Line == fp.Line && pos.Col < fp.Col) {
				first, fp = n, pos
			}
		}
		return Errorf(fp, "use of undeclared SSA value name '%%%s'", first)
	}
	for n, v := range s.forward {
		s.parent.forward[n] = v
		s.parent.forwardPos[n] = s.forwardPos[n]
	}
	return nil
}

// ---- operations ----

type resultName struct {
	name  string
	count int
	pos   Pos
}

func (p *Parser) parseOperation() (*Operation, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var names []resultName
	total := 0
	if p.tok.kind == tokValueID {
		for {
			if p.tok.kind != tokValueID {
				return nil, p.Errorf("expected SSA value name, found %s", p.tok.describe())
			}
			rn := resultName{name: p.tok.text, count: 1, pos: p.Pos()}
			if strings.Contains(rn.name, "#") {
				return nil, p.Errorf("result name '%%%s' must not have a result number", rn.name)
			}
			p.next()
			if p.Optional(":") {
				n, err := p.ParseInteger()
				if err != nil {
					return nil, err
				}
				if n < 1 || n > 1<<16 {
					return nil, p.Errorf("expected a positive result count")
				}
				rn.count = int(n)
			}
			names = append(names, rn)
			total += rn.count
			if !p.Optional(",") {
				break
			}
		}
		if err := p.Expect("="); err != nil {
			return nil, err
		}
	}
	pos := p.Pos()
	var op *Operation
	var err error
	switch p.tok.kind {
	case tokString:
		op, err = p.parseGenericOp()
	case tokIdent:
		op, err = p.parseCustomOp()
	case tokError:
		return nil, p.Errorf("%s", p.tok.text)
	default:
		return nil, p.Errorf("expected operation name in quotes or a custom op name, found %s", p.tok.describe())
	}
	if err != nil {
		return nil, err
	}
	op.Pos = pos
	if p.IsKeyword("loc") {
		loc, err := p.parseLocation()
		if err != nil {
			return nil, err
		}
		op.Loc = loc
	}
	if len(names) > 0 && total != len(op.Results) {
		return nil, Errorf(pos, "operation defines %d results but was provided %d to bind", len(op.Results), total)
	}
	i := 0
	for _, rn := range names {
		vs := op.Results[i : i+rn.count]
		for _, v := range vs {
			v.Pos = rn.pos
		}
		if err := p.defineValues(rn.name, vs, rn.pos); err != nil {
			return nil, err
		}
		i += rn.count
	}
	return op, nil
}

func (p *Parser) parseGenericOp() (*Operation, error) {
	name := p.tok.text
	if name == "" || !strings.Contains(name, ".") {
		return nil, p.Errorf("operation name %q must be of the form 'dialect.op'", name)
	}
	p.next()
	op := &Operation{Name: name}
	def := p.reg.Op(name)
	if def != nil {
		op.Name = def.Name
	}
	operands, err := p.ParseDelimitedOperands("(", ")")
	if err != nil {
		return nil, err
	}
	if p.Optional("[") {
		for {
			b, err := p.parseSuccessor()
			if err != nil {
				return nil, err
			}
			op.Successors = append(op.Successors, b)
			if p.Optional("]") {
				break
			}
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
	}
	if p.Is("<") {
		p.next()
		d, err := p.parseDict()
		if err != nil {
			return nil, err
		}
		if err := p.Expect(">"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, d.Entries...)
	}
	if p.Is("(") {
		p.next()
		for {
			r, err := p.parseRegionFor(op, def != nil && def.IsolatedFromAbove, nil)
			if err != nil {
				return nil, err
			}
			op.Regions = append(op.Regions, r)
			r.Op = op
			if p.Optional(")") {
				break
			}
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	ft, ok := t.(*FunctionType)
	if !ok {
		return nil, Errorf(tpos, "expected function type")
	}
	if err := p.ResolveTypes(operands, ft.Inputs, tpos); err != nil {
		return nil, err
	}
	op.Operands = operands
	for i, rt := range ft.Results {
		op.Results = append(op.Results, &Value{Type: rt, Op: op, Index: i})
	}
	return op, nil
}

func (p *Parser) parseSuccessor() (*Block, error) {
	if p.tok.kind != tokCaret {
		return nil, p.Errorf("expected block name, found %s", p.tok.describe())
	}
	name := p.tok.text
	pos := p.Pos()
	p.next()
	s := p.scope
	if b, ok := s.blocks[name]; ok {
		return b, nil
	}
	b := &Block{Name: name}
	s.blocks[name] = b
	s.blockPos[name] = pos
	return b, nil
}

func (p *Parser) parseCustomOp() (*Operation, error) {
	name := p.tok.text
	namePos := p.Pos()
	def := p.reg.Op(name)
	if def == nil {
		return nil, Errorf(namePos, "custom op '%s' is unknown", name)
	}
	if def.Parse == nil {
		return nil, Errorf(namePos, "op '%s' has no custom assembly; use the generic form", def.Name)
	}
	p.next()
	op := &Operation{Name: def.Name, Pos: namePos}
	saved := p.isolatedNext
	p.isolatedNext = def.IsolatedFromAbove
	types, err := def.Parse(p, op)
	p.isolatedNext = saved
	if err != nil {
		return nil, err
	}
	for i, t := range types {
		op.Results = append(op.Results, &Value{Type: t, Op: op, Index: i})
	}
	for _, r := range op.Regions {
		r.Op = op
	}
	return op, nil
}

// Argument is a region entry argument parsed by ParseArgumentList.
type Argument struct {
	Name  string
	Type  Type
	Attrs *DictAttr
	Pos   Pos
}

// ParseArgumentList consumes `(%a: t {attrs}?, ...)`. When named is false it
// accepts bare types instead (function declarations).
func (p *Parser) ParseArgumentList(named bool) ([]Argument, error) {
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	var out []Argument
	if p.Optional(")") {
		return out, nil
	}
	for {
		a := Argument{Pos: p.Pos()}
		if named {
			if p.tok.kind != tokValueID {
				return nil, p.Errorf("expected SSA identifier, found %s", p.tok.describe())
			}
			a.Name = p.tok.text
			p.next()
			if err := p.Expect(":"); err != nil {
				return nil, err
			}
		}
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		a.Type = t
		if p.Is("{") {
			p.next()
			d, err := p.parseDictBody()
			if err != nil {
				return nil, err
			}
			a.Attrs = d
		}
		if p.IsKeyword("loc") {
			if _, err := p.parseLocation(); err != nil {
				return nil, err
			}
		}
		out = append(out, a)
		if p.Optional(")") {
			return out, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, err
		}
	}
}

// ParseFunctionArgumentList consumes a function signature's argument list
// the way MLIR's function_interface_impl does: either every argument is
// named (`%a: t {attrs}? loc(..)?`, as a definition must be and a
// declaration may be) or none is (`t {attrs}? loc(..)?`). named reports the
// form; it is false for `()`. Mixing the forms fails with MLIR's messages.
func (p *Parser) ParseFunctionArgumentList() (args []Argument, named bool, err error) {
	if err := p.Expect("("); err != nil {
		return nil, false, err
	}
	if p.Optional(")") {
		return nil, false, nil
	}
	for {
		a := Argument{Pos: p.Pos()}
		if p.IsValueID() {
			if len(args) > 0 && !named {
				return nil, false, p.Errorf("expected type instead of SSA identifier")
			}
			named = true
			a.Name = p.tok.text
			p.next()
			if err := p.Expect(":"); err != nil {
				return nil, false, err
			}
		} else if named {
			return nil, false, p.Errorf("expected SSA identifier, found %s", p.tok.describe())
		}
		if a.Type, err = p.ParseType(); err != nil {
			return nil, false, err
		}
		if a.Attrs, err = p.parseOptionalArgAttrs(); err != nil {
			return nil, false, err
		}
		args = append(args, a)
		if p.Optional(")") {
			return args, named, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, false, err
		}
	}
}

// ParseFunctionResultList consumes what follows `->` in a function
// signature: one type, or `(t {attrs}? loc(..)?, ...)` (possibly `()`).
// attrs[i] is nil where result i has no attribute dictionary.
func (p *Parser) ParseFunctionResultList() (types []Type, attrs []*DictAttr, err error) {
	if !p.Optional("(") {
		t, err := p.ParseType()
		if err != nil {
			return nil, nil, err
		}
		return []Type{t}, []*DictAttr{nil}, nil
	}
	if p.Optional(")") {
		return nil, nil, nil
	}
	for {
		t, err := p.ParseType()
		if err != nil {
			return nil, nil, err
		}
		d, err := p.parseOptionalArgAttrs()
		if err != nil {
			return nil, nil, err
		}
		types = append(types, t)
		attrs = append(attrs, d)
		if p.Optional(")") {
			return types, attrs, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, nil, err
		}
	}
}

// parseOptionalArgAttrs consumes the `{attrs}? loc(..)?` tail of a function
// argument or result; the location is accepted and dropped.
func (p *Parser) parseOptionalArgAttrs() (*DictAttr, error) {
	var d *DictAttr
	if p.Is("{") {
		var err error
		if d, err = p.parseDict(); err != nil {
			return nil, err
		}
	}
	if p.IsKeyword("loc") {
		if _, err := p.parseLocation(); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// ParseRegion consumes `{ ... }`. When args is non-nil, they become the
// entry block's arguments (named by the custom syntax before the region).
func (p *Parser) ParseRegion(op *Operation, args []Argument) (*Region, error) {
	r, err := p.parseRegionFor(op, p.isolatedNext, args)
	if err != nil {
		return nil, err
	}
	r.Op = op
	op.Regions = append(op.Regions, r)
	return r, nil
}

func (p *Parser) parseRegionFor(op *Operation, isolated bool, args []Argument) (*Region, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := p.Expect("{"); err != nil {
		return nil, err
	}
	saved := p.isolatedNext
	p.isolatedNext = false
	defer func() { p.isolatedNext = saved }()
	r := &Region{Op: op}
	outer := p.scope
	parent := outer
	if isolated {
		parent = nil
	}
	s := newScope(parent)
	s.region = r
	p.scope = s
	defer func() { p.scope = outer }()
	var cur *Block
	if args != nil {
		cur = r.AddBlock()
		for i, a := range args {
			v := &Value{Type: a.Type, Block: cur, Index: i, Pos: a.Pos, Attrs: a.Attrs}
			cur.Args = append(cur.Args, v)
			if err := p.defineValues(a.Name, []*Value{v}, a.Pos); err != nil {
				return nil, err
			}
		}
	}
	for !p.Is("}") {
		if p.tok.kind == tokEOF {
			return nil, p.Errorf("expected '}' to end region, found end of file")
		}
		if p.tok.kind == tokCaret {
			if args != nil && cur == r.Blocks[0] && len(cur.Ops) == 0 {
				return nil, p.Errorf("invalid block name in region with named arguments")
			}
			b, err := p.parseBlockHeader(r)
			if err != nil {
				return nil, err
			}
			cur = b
			continue
		}
		if cur == nil {
			cur = r.AddBlock()
		}
		o, err := p.parseOperation()
		if err != nil {
			return nil, err
		}
		cur.Append(o)
	}
	p.next()
	if err := p.closeScope(s); err != nil {
		return nil, err
	}
	return r, nil
}

func (p *Parser) parseBlockHeader(r *Region) (*Block, error) {
	name := p.tok.text
	pos := p.Pos()
	p.next()
	s := p.scope
	if s.defined[name] {
		return nil, Errorf(pos, "redefinition of block '^%s'", name)
	}
	b, ok := s.blocks[name]
	if !ok {
		b = &Block{Name: name}
		s.blocks[name] = b
	}
	s.defined[name] = true
	b.Region = r
	b.Name = name
	r.Blocks = append(r.Blocks, b)
	if p.Is("(") {
		args, err := p.ParseArgumentList(true)
		if err != nil {
			return nil, err
		}
		for i, a := range args {
			v := &Value{Type: a.Type, Block: b, Index: i, Pos: a.Pos}
			b.Args = append(b.Args, v)
			if err := p.defineValues(a.Name, []*Value{v}, a.Pos); err != nil {
				return nil, err
			}
		}
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	return b, nil
}

// parseLocation consumes loc(...) and keeps its body text.
func (p *Parser) parseLocation() (Attribute, error) {
	if err := p.ExpectKeyword("loc"); err != nil {
		return nil, err
	}
	if !p.Is("(") {
		return nil, p.Errorf("expected '(' in location, found %s", p.tok.describe())
	}
	body, err := p.rawBalanced('(', ')')
	if err != nil {
		return nil, err
	}
	return LocationAttr{Body: strings.TrimSpace(body)}, nil
}

// rawBalanced consumes a balanced group starting at the current token
// (which must be the open character) and returns the text inside it.
// Inside a '<' group, (), [] and {} nest too, and each closer must match
// the innermost opener: `<-)` is unbalanced, not a group holding "-".
func (p *Parser) rawBalanced(open, close byte) (string, error) {
	src := p.lex.src
	start := p.tok.off
	closer := map[byte]byte{'<': '>', '(': ')', '[': ']', '{': '}'}
	var want []byte // the closers still expected, innermost last
	for i := start; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			_, e, errMsg := p.lex.lexString(i)
			if errMsg != "" {
				return "", Errorf(p.lex.pos(i), "%s", errMsg)
			}
			i = e - 1
		case c == '-' && i+1 < len(src) && src[i+1] == '>':
			i++
		case c == open || (open == '<' && (c == '(' || c == '[' || c == '{')):
			want = append(want, closer[c])
		case c == close || (open == '<' && (c == ')' || c == ']' || c == '}')):
			if len(want) == 0 || want[len(want)-1] != c {
				return "", Errorf(p.lex.pos(i), "unbalanced '%c' in '%c' group", c, open)
			}
			want = want[:len(want)-1]
			if len(want) == 0 {
				body := src[start+1 : i]
				p.reset(i + 1)
				return body, nil
			}
		}
	}
	return "", Errorf(p.lex.pos(start), "unbalanced '%c'", open)
}

// ---- attribute dictionaries ----

// ParseOptionalAttrDict parses `{...}` if present and appends its entries
// to op.
func (p *Parser) ParseOptionalAttrDict(op *Operation) error {
	if !p.Is("{") {
		return nil
	}
	d, err := p.parseDict()
	if err != nil {
		return err
	}
	return appendAttrs(op, d.Entries, p)
}

// ParseOptionalAttrDictWithKeyword parses `attributes {...}` if present.
func (p *Parser) ParseOptionalAttrDictWithKeyword(op *Operation) error {
	if !p.OptionalKeyword("attributes") {
		return nil
	}
	if !p.Is("{") {
		return p.Errorf("expected '{' after 'attributes', found %s", p.tok.describe())
	}
	return p.ParseOptionalAttrDict(op)
}

func appendAttrs(op *Operation, entries []NamedAttr, p *Parser) error {
	for _, e := range entries {
		if op.HasAttr(e.Name) {
			return p.Errorf("attribute '%s' occurs more than once", e.Name)
		}
		op.Attrs = append(op.Attrs, e)
	}
	return nil
}

func (p *Parser) parseDict() (*DictAttr, error) {
	if err := p.Expect("{"); err != nil {
		return nil, err
	}
	return p.parseDictBody()
}

func (p *Parser) parseDictBody() (*DictAttr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	d := &DictAttr{}
	if p.Optional("}") {
		return d, nil
	}
	seen := map[string]bool{}
	for {
		var key string
		kpos := p.Pos()
		switch p.tok.kind {
		case tokIdent, tokString:
			key = p.tok.text
			p.next()
		default:
			return nil, p.Errorf("expected attribute name, found %s", p.tok.describe())
		}
		if seen[key] {
			return nil, Errorf(kpos, "duplicate key '%s' in dictionary attribute", key)
		}
		seen[key] = true
		var v Attribute = UnitAttr{}
		if p.Optional("=") {
			a, err := p.ParseAttribute()
			if err != nil {
				return nil, err
			}
			if o, ok := a.(*OpaqueAttr); ok && o.Type == nil && p.Is(":") {
				// Only a type can follow an entry's value here: a dialect
				// attribute typed by a builtin type, as a util.global's
				// initial_value = #util.byte_pattern<1> : tensor<8xf32>.
				typed := *o
				if typed.Type, err = p.ParseColonType(); err != nil {
					return nil, err
				}
				a = &typed
			}
			v = a
		}
		d.Entries = append(d.Entries, NamedAttr{Name: key, Value: v})
		if p.Optional("}") {
			return d, nil
		}
		if p.tok.kind == tokError {
			return nil, p.Errorf("%s", p.tok.text)
		}
		if !p.Optional(",") {
			return nil, p.Errorf("expected ',' or '}' in attribute dictionary, found %s", p.tok.describe())
		}
	}
}

// ParseDictionary consumes `{...}` and returns it.
func (p *Parser) ParseDictionary() (*DictAttr, error) { return p.parseDict() }

// ---- attributes ----

// ParseAttribute consumes one attribute value.
func (p *Parser) ParseAttribute() (Attribute, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	switch p.tok.kind {
	case tokError:
		return nil, p.Errorf("%s", p.tok.text)
	case tokString:
		s := p.tok.text
		p.next()
		return StringAttr{Value: s}, nil
	case tokInt, tokFloat:
		return p.parseNumberAttr(false)
	case tokSymbol:
		return p.ParseSymbolRef()
	case tokHash:
		return p.parseHashAttr()
	case tokBang:
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		return TypeAttr{Type: t}, nil
	case tokPunct:
		switch p.tok.text {
		case "-":
			return p.parseNumberAttr(true)
		case "[":
			p.next()
			arr := &ArrayAttr{}
			if p.Optional("]") {
				return arr, nil
			}
			for {
				e, err := p.ParseAttribute()
				if err != nil {
					return nil, err
				}
				arr.Elems = append(arr.Elems, e)
				if p.Optional("]") {
					return arr, nil
				}
				if err := p.Expect(","); err != nil {
					return nil, err
				}
			}
		case "{":
			return p.parseDict()
		case "(":
			t, err := p.ParseType()
			if err != nil {
				return nil, err
			}
			return TypeAttr{Type: t}, nil
		}
	case tokIdent:
		switch p.tok.text {
		case "true", "false":
			v := p.tok.text == "true"
			p.next()
			if p.Optional(":") {
				t, err := p.ParseType()
				if err != nil {
					return nil, err
				}
				b := int64(0)
				if v {
					b = 1
				}
				return IntegerAttr{Value: b, Type: t}, nil
			}
			return BoolAttr{Value: v}, nil
		case "unit":
			p.next()
			return UnitAttr{}, nil
		case "dense":
			return p.parseDense()
		case "dense_resource":
			return p.parseDenseResource()
		case "array":
			return p.parseDenseArray()
		case "affine_map":
			p.next()
			if err := p.Expect("<"); err != nil {
				return nil, err
			}
			m, err := p.parseAffineMapBody()
			if err != nil {
				return nil, err
			}
			if err := p.Expect(">"); err != nil {
				return nil, err
			}
			return AffineMapAttr{Map: m}, nil
		case "loc":
			return p.parseLocation()
		case "strided":
			return p.parseStrided()
		}
		if p.isTypeStart() {
			t, err := p.ParseType()
			if err != nil {
				return nil, err
			}
			return TypeAttr{Type: t}, nil
		}
	}
	return nil, p.Errorf("expected attribute value, found %s", p.tok.describe())
}

func (p *Parser) parseNumberAttr(neg bool) (Attribute, error) {
	pos := p.Pos()
	if neg {
		p.next()
	}
	tok := p.tok
	if tok.kind != tokInt && tok.kind != tokFloat {
		return nil, p.Errorf("expected integer or float literal, found %s", tok.describe())
	}
	p.next()
	var t Type
	if p.Optional(":") {
		var err error
		if t, err = p.ParseType(); err != nil {
			return nil, err
		}
	}
	return makeNumber(tok, neg, t, pos)
}

func makeNumber(tok token, neg bool, t Type, pos Pos) (Attribute, error) {
	if tok.kind == tokFloat {
		v, err := strconv.ParseFloat(tok.text, 64)
		if err != nil {
			return nil, Errorf(pos, "invalid float literal %s", tok.text)
		}
		if neg {
			v = -v
		}
		if t == nil {
			t = FloatType{Name: "f64"}
		}
		if _, ok := t.(FloatType); !ok {
			return nil, Errorf(pos, "floating point value not valid for specified type '%s'", TypeString(t))
		}
		return FloatAttr{Value: v, Type: t}, nil
	}
	v, err := parseIntText(tok.text)
	if err != nil {
		return nil, Errorf(pos, "integer literal %s out of range", tok.text)
	}
	if neg {
		v = -v
	}
	if t == nil {
		t = I64
	}
	switch tt := t.(type) {
	case FloatType:
		if strings.HasPrefix(tok.text, "0x") {
			u := uint64(v)
			switch tt.Name {
			case "f32":
				return FloatAttr{Value: float64(float32frombits(uint32(u))), Type: t}, nil
			case "f16":
				return FloatAttr{Value: decodeMinifloat(u, 5, 10), Type: t}, nil
			case "bf16":
				return FloatAttr{Value: decodeMinifloat(u, 8, 7), Type: t}, nil
			}
			return FloatAttr{Value: float64frombits(u), Type: t}, nil
		}
		return FloatAttr{Value: float64(v), Type: t}, nil
	case IntegerType, IndexType:
		return IntegerAttr{Value: v, Type: t}, nil
	}
	return nil, Errorf(pos, "integer value not valid for specified type '%s'", TypeString(t))
}

func (p *Parser) parseHashAttr() (Attribute, error) {
	name := p.tok.text
	pos := p.Pos()
	if a, ok := p.attrAliases[name]; ok {
		p.next()
		return a, nil
	}
	if fn, ok := p.reg.attrs[name]; ok && p.reg != nil {
		p.next()
		a, err := fn(p)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	if !isDialectName(name) {
		return nil, Errorf(pos, "undefined symbol alias id '%s'", name)
	}
	p.next()
	a := &OpaqueAttr{Name: name}
	if p.Is("<") {
		body, err := p.rawBalanced('<', '>')
		if err != nil {
			return nil, err
		}
		a.Body = body
		a.Angled = true
	}
	if p.Is(":") {
		t := p.lex.lex(p.tok.end)
		if t.kind == tokBang {
			p.next()
			ty, err := p.ParseType()
			if err != nil {
				return nil, err
			}
			a.Type = ty
		}
	}
	return a, nil
}

func (p *Parser) parseDenseArray() (Attribute, error) {
	p.next()
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	a := &DenseArrayAttr{Elem: t}
	if p.Optional(":") {
		for {
			if p.IsKeyword("true") || p.IsKeyword("false") {
				v := int64(0)
				if p.tok.text == "true" {
					v = 1
				}
				p.next()
				a.Values = append(a.Values, v)
			} else {
				v, err := p.ParseInteger()
				if err != nil {
					return nil, err
				}
				a.Values = append(a.Values, v)
			}
			if !p.Optional(",") {
				break
			}
		}
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	return a, nil
}

type denseLit struct {
	tok   token
	neg   bool
	boolV *bool
	pos   Pos
	// im is the imaginary part of a complex literal (re, im), whose real
	// part is this literal.
	im *denseLit
}

func (p *Parser) parseDense() (Attribute, error) {
	p.next()
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	a := &DenseAttr{}
	var lits []denseLit
	var nesting []int
	litPos := p.Pos()
	switch {
	case p.tok.kind == tokString:
		s := p.tok.text
		if !strings.HasPrefix(s, "0x") {
			return nil, p.Errorf("expected hex string starting with 0x in dense attribute")
		}
		data, err := decodeHex(s[2:])
		if err != nil {
			return nil, p.Errorf("invalid hex data in dense attribute: %v", err)
		}
		a.Hex, a.IsHex = data, true
		p.next()
	case p.Is("["):
		var err error
		nesting, err = p.parseDenseList(&lits, 0)
		if err != nil {
			return nil, err
		}
	case p.Is(">"):
		// dense<> : empty
	default:
		l, err := p.parseDenseScalar()
		if err != nil {
			return nil, err
		}
		lits = append(lits, l)
		a.Splat = true
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	st, ok := t.(ShapedType)
	if !ok {
		return nil, Errorf(tpos, "elements literal must be a shaped type, got '%s'", TypeString(t))
	}
	a.Type = st
	a.Nesting = nesting
	if a.IsHex {
		return a, nil
	}
	if !a.Splat {
		n := NumElements(st)
		if n >= 0 && int64(len(lits)) != n {
			return nil, Errorf(litPos, "inferred shape of elements literal (%d elements) does not match type '%s' (%d elements)", len(lits), TypeString(t), n)
		}
	}
	et := st.ElementType()
	ct, isComplex := et.(*ComplexType)
	for _, l := range lits {
		var e Attribute
		if isComplex != (l.im != nil) {
			if isComplex {
				return nil, Errorf(l.pos, "expected a complex literal (re, im) for element type '%s'", TypeString(et))
			}
			return nil, Errorf(l.pos, "complex literal for element type '%s'", TypeString(et))
		}
		if isComplex {
			re, err := makeNumber(l.tok, l.neg, ct.Elem, l.pos)
			if err != nil {
				return nil, err
			}
			im, err := makeNumber(l.im.tok, l.im.neg, ct.Elem, l.im.pos)
			if err != nil {
				return nil, err
			}
			a.Elements = append(a.Elements, ComplexAttr{Re: re, Im: im})
			continue
		}
		if l.boolV != nil {
			v := int64(0)
			if *l.boolV {
				v = 1
			}
			e = IntegerAttr{Value: v, Type: et}
		} else {
			e, err = makeNumber(l.tok, l.neg, et, l.pos)
			if err != nil {
				return nil, err
			}
		}
		a.Elements = append(a.Elements, e)
	}
	return a, nil
}

func (p *Parser) parseDenseScalar() (denseLit, error) {
	if p.Optional("(") {
		// A complex element: (re, im).
		re, err := p.parseDenseScalar()
		if err != nil {
			return re, err
		}
		if err := p.Expect(","); err != nil {
			return re, err
		}
		im, err := p.parseDenseScalar()
		if err != nil {
			return re, err
		}
		if re.im != nil || im.im != nil {
			return re, Errorf(re.pos, "complex literal parts must be numbers")
		}
		re.im = &im
		return re, p.Expect(")")
	}
	l := denseLit{pos: p.Pos()}
	if p.IsKeyword("true") || p.IsKeyword("false") {
		v := p.tok.text == "true"
		l.boolV = &v
		p.next()
		return l, nil
	}
	if p.Optional("-") {
		l.neg = true
	}
	if p.tok.kind != tokInt && p.tok.kind != tokFloat {
		return l, p.Errorf("expected element literal of primitive type, found %s", p.tok.describe())
	}
	l.tok = p.tok
	p.next()
	return l, nil
}

func (p *Parser) parseDenseList(lits *[]denseLit, depth int) ([]int, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	var inner []int
	count := 0
	if p.Optional("]") {
		return []int{0}, nil
	}
	for {
		if p.Is("[") {
			sub, err := p.parseDenseList(lits, depth+1)
			if err != nil {
				return nil, err
			}
			if count > 0 && !equalInts(sub, inner) {
				return nil, p.Errorf("tensor literal is invalid; ranks or shapes are not consistent")
			}
			inner = sub
		} else {
			if count > 0 && inner != nil {
				return nil, p.Errorf("tensor literal is invalid; ranks are not consistent between elements")
			}
			l, err := p.parseDenseScalar()
			if err != nil {
				return nil, err
			}
			*lits = append(*lits, l)
		}
		count++
		if p.Optional("]") {
			break
		}
		if err := p.Expect(","); err != nil {
			return nil, err
		}
	}
	return append([]int{count}, inner...), nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func decodeHex(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("odd number of hex digits")
	}
	out := make([]byte, len(s)/2)
	for i := 0; i < len(out); i++ {
		a, b := s[2*i], s[2*i+1]
		if !isHex(a) || !isHex(b) {
			return nil, fmt.Errorf("non-hex character")
		}
		out[i] = hexVal(a)<<4 | hexVal(b)
	}
	return out, nil
}

// ---- types ----

func (p *Parser) isTypeStart() bool {
	if p.tok.kind == tokBang {
		return true
	}
	if p.tok.kind != tokIdent {
		return p.Is("(")
	}
	s := p.tok.text
	switch s {
	case "index", "none", "tensor", "memref", "vector", "tuple", "complex":
		return true
	}
	if floatNames[s] {
		return true
	}
	_, ok := parseIntTypeName(s)
	return ok
}

func parseIntTypeName(s string) (IntegerType, bool) {
	t := IntegerType{}
	switch {
	case strings.HasPrefix(s, "si"):
		t.Signedness, s = Signed, s[2:]
	case strings.HasPrefix(s, "ui"):
		t.Signedness, s = Unsigned, s[2:]
	case strings.HasPrefix(s, "i"):
		s = s[1:]
	default:
		return t, false
	}
	if s == "" || len(s) > 8 {
		return t, false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return t, false
		}
	}
	w, _ := strconv.Atoi(s)
	if w < 1 || w > 1<<24 {
		return t, false
	}
	t.Width = w
	return t, true
}

// ParseType consumes one type.
func (p *Parser) ParseType() (Type, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	switch p.tok.kind {
	case tokError:
		return nil, p.Errorf("%s", p.tok.text)
	case tokBang:
		name := p.tok.text
		if t, ok := p.typeAliases[name]; ok {
			p.next()
			return t, nil
		}
		if !isDialectName(name) {
			return nil, p.Errorf("undefined symbol alias id '%s'", name)
		}
		p.next()
		t := &DialectType{Name: name}
		if p.Is("<") {
			body, err := p.rawBalanced('<', '>')
			if err != nil {
				return nil, err
			}
			t.Body = body
		}
		return t, nil
	case tokPunct:
		if p.Is("(") {
			p.next()
			var ins []Type
			if !p.Optional(")") {
				var err error
				if ins, err = p.parseTypeListUntil(")"); err != nil {
					return nil, err
				}
			}
			if err := p.Expect("->"); err != nil {
				return nil, err
			}
			outs, err := p.ParseFunctionResultTypes()
			if err != nil {
				return nil, err
			}
			return &FunctionType{Inputs: ins, Results: outs}, nil
		}
	case tokIdent:
		s := p.tok.text
		switch s {
		case "index":
			p.next()
			return IndexType{}, nil
		case "none":
			p.next()
			return NoneType{}, nil
		case "tensor", "memref", "vector":
			return p.parseShaped(s)
		case "tuple":
			p.next()
			if err := p.Expect("<"); err != nil {
				return nil, err
			}
			t := &TupleType{}
			if !p.Optional(">") {
				ts, err := p.parseTypeListUntil(">")
				if err != nil {
					return nil, err
				}
				t.Elems = ts
			}
			return t, nil
		case "complex":
			p.next()
			if err := p.Expect("<"); err != nil {
				return nil, err
			}
			e, err := p.ParseType()
			if err != nil {
				return nil, err
			}
			if err := p.Expect(">"); err != nil {
				return nil, err
			}
			return &ComplexType{Elem: e}, nil
		}
		if floatNames[s] {
			p.next()
			return FloatType{Name: s}, nil
		}
		if it, ok := parseIntTypeName(s); ok {
			p.next()
			return it, nil
		}
	}
	return nil, p.Errorf("expected type, found %s", p.tok.describe())
}

// parseTypeListUntil parses `t, t, ... close` (close consumed).
func (p *Parser) parseTypeListUntil(close string) ([]Type, error) {
	var out []Type
	for {
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if p.Optional(close) {
			return out, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, err
		}
	}
}

// ParseTypeList consumes one or more comma-separated types.
func (p *Parser) ParseTypeList() ([]Type, error) {
	var out []Type
	for {
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if !p.Optional(",") {
			return out, nil
		}
	}
}

// ParseFunctionResultTypes consumes `t` or `(t, ...)` (possibly `()`).
func (p *Parser) ParseFunctionResultTypes() ([]Type, error) {
	if p.Is("(") {
		// A parenthesised list, unless it is a function type used as a
		// single result; treat `(` as a list.
		p.next()
		if p.Optional(")") {
			return nil, nil
		}
		return p.parseTypeListUntil(")")
	}
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	return []Type{t}, nil
}

func (p *Parser) parseShaped(kind string) (Type, error) {
	p.next()
	if !p.Is("<") {
		return nil, p.Errorf("expected '<' in %s type, found %s", kind, p.tok.describe())
	}
	src := p.lex.src
	off := p.tok.end
	var shape []int64
	unranked := false
	for {
		off = p.lex.skipSpace(off)
		if off >= len(src) {
			break
		}
		c := src[off]
		if c == '*' && kind != "vector" && len(shape) == 0 && !unranked {
			e := p.lex.skipSpace(off + 1)
			if e < len(src) && src[e] == 'x' {
				unranked = true
				off = e + 1
				continue
			}
			return nil, Errorf(p.lex.pos(off), "expected 'x' in dimension list")
		}
		if c == '?' {
			e := p.lex.skipSpace(off + 1)
			if e >= len(src) || src[e] != 'x' {
				return nil, Errorf(p.lex.pos(e), "expected 'x' in dimension list")
			}
			if kind == "vector" {
				return nil, Errorf(p.lex.pos(off), "vector types must have static shape")
			}
			shape = append(shape, Dynamic)
			off = e + 1
			continue
		}
		if isDigit(c) {
			e := off
			for e < len(src) && isDigit(src[e]) {
				e++
			}
			if e < len(src) && src[e] == 'x' {
				n, err := strconv.ParseInt(src[off:e], 10, 64)
				if err != nil || n > 1<<40 {
					return nil, Errorf(p.lex.pos(off), "invalid dimension %s", src[off:e])
				}
				shape = append(shape, n)
				off = e + 1
				continue
			}
			return nil, Errorf(p.lex.pos(e), "expected 'x' in dimension list")
		}
		break
	}
	p.reset(off)
	elem, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	switch kind {
	case "tensor":
		t := &TensorType{Shape: shape, Elem: elem, Unranked: unranked}
		if p.Optional(",") {
			enc, err := p.ParseAttribute()
			if err != nil {
				return nil, err
			}
			t.Encoding = enc
		}
		if err := p.Expect(">"); err != nil {
			return nil, err
		}
		return t, nil
	case "memref":
		t := &MemRefType{Shape: shape, Elem: elem, Unranked: unranked}
		if p.Optional(",") {
			a, err := p.ParseAttribute()
			if err != nil {
				return nil, err
			}
			_, isMap := a.(AffineMapAttr)
			_, isStrided := a.(StridedLayoutAttr)
			if isMap || isStrided || p.Is(",") {
				t.Layout = a
				if p.Optional(",") {
					if t.MemorySpace, err = p.ParseAttribute(); err != nil {
						return nil, err
					}
				}
			} else {
				t.MemorySpace = a
			}
		}
		if err := p.Expect(">"); err != nil {
			return nil, err
		}
		return t, nil
	default:
		if err := p.Expect(">"); err != nil {
			return nil, err
		}
		if len(shape) == 0 {
			return nil, p.Errorf("vector types must have at least one dimension")
		}
		return &VectorType{Shape: shape, Elem: elem}, nil
	}
}

// ParseColonType consumes `: type`.
func (p *Parser) ParseColonType() (Type, error) {
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	return p.ParseType()
}

// ParseDynamicDims consumes `{%a, %b}` when t has dynamic dimensions (and
// nothing otherwise), resolving each value as index.
func (p *Parser) ParseDynamicDims(t Type) ([]*Value, error) {
	n := DynamicDimCount(t)
	if n == 0 && !p.Is("{") {
		return nil, nil
	}
	pos := p.Pos()
	if !p.Is("{") {
		return nil, p.Errorf("expected '{' with %d dynamic dimension values for type '%s'", n, TypeString(t))
	}
	vs, err := p.ParseDelimitedOperands("{", "}")
	if err != nil {
		return nil, err
	}
	if len(vs) != n {
		return nil, Errorf(pos, "type '%s' has %d dynamic dimensions but %d dimension values were given", TypeString(t), n, len(vs))
	}
	for _, v := range vs {
		if err := p.ResolveType(v, IndexType{}, pos); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// PeekAfter returns the first character of the token that follows the
// current one when the current token is the punctuation s ("" otherwise).
func (p *Parser) PeekAfter(s string) string {
	if !p.Is(s) {
		return ""
	}
	t := p.lex.lex(p.tok.end)
	switch t.kind {
	case tokValueID:
		return "%"
	case tokEOF:
		return ""
	}
	if t.end > t.off {
		return p.lex.src[t.off : t.off+1]
	}
	return ""
}

// isDialectName reports whether s has the form dialect.name.
func isDialectName(s string) bool {
	i := strings.IndexByte(s, '.')
	return i > 0 && i < len(s)-1 && isLetter(s[0]) || i > 0 && i < len(s)-1 && s[0] == '_'
}

// parseStrided parses a memref layout `strided<[s, ...][, offset: o]>`, each
// stride and the offset an integer or ? (DynamicStride).
func (p *Parser) parseStrided() (Attribute, error) {
	p.next()
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	dimOrDynamic := func() (int64, error) {
		if p.Optional("?") {
			return DynamicStride, nil
		}
		neg := p.Optional("-")
		n, err := p.ParseInteger()
		if neg {
			n = -n
		}
		return n, err
	}
	a := StridedLayoutAttr{Strides: []int64{}}
	for !p.Is("]") {
		n, err := dimOrDynamic()
		if err != nil {
			return nil, err
		}
		a.Strides = append(a.Strides, n)
		if !p.Optional(",") {
			break
		}
	}
	if err := p.Expect("]"); err != nil {
		return nil, err
	}
	if p.Optional(",") {
		if err := p.ExpectKeyword("offset"); err != nil {
			return nil, err
		}
		if err := p.Expect(":"); err != nil {
			return nil, err
		}
		n, err := dimOrDynamic()
		if err != nil {
			return nil, err
		}
		a.Offset = n
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	return a, nil
}
