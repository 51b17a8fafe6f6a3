package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// AffineKind is the kind of an affine expression node.
type AffineKind int

// Affine expression kinds.
const (
	AffineDim AffineKind = iota
	AffineSym
	AffineConst
	AffineAdd
	AffineMul
	AffineMod
	AffineFloorDiv
	AffineCeilDiv
)

// AffineExpr is a node of an affine expression tree. Dim/Sym use Pos,
// Const uses Value, binary kinds use LHS and RHS.
type AffineExpr struct {
	Kind     AffineKind
	Pos      int
	Value    int64
	LHS, RHS *AffineExpr
}

// AffineMap is (d0, ...)[s0, ...] -> (exprs).
type AffineMap struct {
	NumDims, NumSyms int
	Results          []*AffineExpr
}

// String prints the map in MLIR syntax (without affine_map<>).
func (m *AffineMap) String() string {
	var b strings.Builder
	b.WriteString("(")
	for i := 0; i < m.NumDims; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "d%d", i)
	}
	b.WriteString(")")
	if m.NumSyms > 0 {
		b.WriteString("[")
		for i := 0; i < m.NumSyms; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "s%d", i)
		}
		b.WriteString("]")
	}
	b.WriteString(" -> (")
	for i, r := range m.Results {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	b.WriteString(")")
	return b.String()
}

func (e *AffineExpr) prec() int {
	switch e.Kind {
	case AffineAdd:
		return 1
	case AffineMul, AffineMod, AffineFloorDiv, AffineCeilDiv:
		return 2
	}
	return 3
}

// String prints the expression.
func (e *AffineExpr) String() string {
	switch e.Kind {
	case AffineDim:
		return "d" + strconv.Itoa(e.Pos)
	case AffineSym:
		return "s" + strconv.Itoa(e.Pos)
	case AffineConst:
		return strconv.FormatInt(e.Value, 10)
	}
	wrap := func(x *AffineExpr, min int) string {
		if x.prec() < min || (x.Kind == AffineConst && x.Value < 0 && min > 1) {
			return "(" + x.String() + ")"
		}
		return x.String()
	}
	switch e.Kind {
	case AffineAdd:
		// a + b * -1 prints as a - b; a + -c prints as a - c.
		if e.RHS.Kind == AffineMul && e.RHS.RHS.Kind == AffineConst && e.RHS.RHS.Value == -1 {
			return e.LHS.String() + " - " + wrap(e.RHS.LHS, 2)
		}
		if e.RHS.Kind == AffineConst && e.RHS.Value < 0 {
			return e.LHS.String() + " - " + strconv.FormatInt(-e.RHS.Value, 10)
		}
		return e.LHS.String() + " + " + wrap(e.RHS, 2)
	case AffineMul:
		return wrap(e.LHS, 2) + " * " + wrap(e.RHS, 3)
	case AffineMod:
		return wrap(e.LHS, 2) + " mod " + wrap(e.RHS, 3)
	case AffineFloorDiv:
		return wrap(e.LHS, 2) + " floordiv " + wrap(e.RHS, 3)
	case AffineCeilDiv:
		return wrap(e.LHS, 2) + " ceildiv " + wrap(e.RHS, 3)
	}
	return "?"
}

// Eval evaluates the expression for the given dimension and symbol values.
func (e *AffineExpr) Eval(dims, syms []int64) (int64, error) {
	switch e.Kind {
	case AffineDim:
		if e.Pos >= len(dims) {
			return 0, fmt.Errorf("affine expression uses d%d but only %d dims are given", e.Pos, len(dims))
		}
		return dims[e.Pos], nil
	case AffineSym:
		if e.Pos >= len(syms) {
			return 0, fmt.Errorf("affine expression uses s%d but only %d symbols are given", e.Pos, len(syms))
		}
		return syms[e.Pos], nil
	case AffineConst:
		return e.Value, nil
	}
	l, err := e.LHS.Eval(dims, syms)
	if err != nil {
		return 0, err
	}
	r, err := e.RHS.Eval(dims, syms)
	if err != nil {
		return 0, err
	}
	switch e.Kind {
	case AffineAdd:
		return l + r, nil
	case AffineMul:
		return l * r, nil
	}
	if r == 0 {
		return 0, fmt.Errorf("affine division by zero in %s", e)
	}
	switch e.Kind {
	case AffineMod:
		m := l % r
		if m < 0 {
			m += r
		}
		return m, nil
	case AffineFloorDiv:
		q := l / r
		if (l%r != 0) && ((l < 0) != (r < 0)) {
			q--
		}
		return q, nil
	default: // ceildiv
		q := l / r
		if (l%r != 0) && ((l < 0) == (r < 0)) {
			q++
		}
		return q, nil
	}
}

// Eval applies the map.
func (m *AffineMap) Eval(dims, syms []int64) ([]int64, error) {
	out := make([]int64, len(m.Results))
	for i, r := range m.Results {
		v, err := r.Eval(dims, syms)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// parseAffineMapBody parses `(d0, d1)[s0] -> (exprs)` after `affine_map<`.
func (p *Parser) parseAffineMapBody() (*AffineMap, error) {
	names := map[string]*AffineExpr{}
	m := &AffineMap{}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	if !p.Optional(")") {
		for {
			id, err := p.ParseKeyword()
			if err != nil {
				return nil, err
			}
			if _, dup := names[id]; dup {
				return nil, p.Errorf("redefinition of affine identifier '%s'", id)
			}
			names[id] = &AffineExpr{Kind: AffineDim, Pos: m.NumDims}
			m.NumDims++
			if p.Optional(")") {
				break
			}
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
	}
	if p.Optional("[") {
		if !p.Optional("]") {
			for {
				id, err := p.ParseKeyword()
				if err != nil {
					return nil, err
				}
				if _, dup := names[id]; dup {
					return nil, p.Errorf("redefinition of affine identifier '%s'", id)
				}
				names[id] = &AffineExpr{Kind: AffineSym, Pos: m.NumSyms}
				m.NumSyms++
				if p.Optional("]") {
					break
				}
				if err := p.Expect(","); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	if !p.Optional(")") {
		for {
			e, err := p.parseAffineSum(names, 0)
			if err != nil {
				return nil, err
			}
			m.Results = append(m.Results, e)
			if p.Optional(")") {
				break
			}
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

const maxAffineDepth = 100

func (p *Parser) parseAffineSum(names map[string]*AffineExpr, depth int) (*AffineExpr, error) {
	l, err := p.parseAffineProduct(names, depth)
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.Optional("+"):
			r, err := p.parseAffineProduct(names, depth)
			if err != nil {
				return nil, err
			}
			l = &AffineExpr{Kind: AffineAdd, LHS: l, RHS: r}
		case p.Optional("-"):
			r, err := p.parseAffineProduct(names, depth)
			if err != nil {
				return nil, err
			}
			if r.Kind == AffineConst {
				l = &AffineExpr{Kind: AffineAdd, LHS: l, RHS: &AffineExpr{Kind: AffineConst, Value: -r.Value}}
			} else {
				l = &AffineExpr{Kind: AffineAdd, LHS: l, RHS: &AffineExpr{Kind: AffineMul, LHS: r, RHS: &AffineExpr{Kind: AffineConst, Value: -1}}}
			}
		default:
			return l, nil
		}
	}
}

func (p *Parser) parseAffineProduct(names map[string]*AffineExpr, depth int) (*AffineExpr, error) {
	l, err := p.parseAffineAtom(names, depth)
	if err != nil {
		return nil, err
	}
	for {
		var kind AffineKind
		switch {
		case p.Optional("*"):
			kind = AffineMul
		case p.OptionalKeyword("mod"):
			kind = AffineMod
		case p.OptionalKeyword("floordiv"):
			kind = AffineFloorDiv
		case p.OptionalKeyword("ceildiv"):
			kind = AffineCeilDiv
		default:
			return l, nil
		}
		r, err := p.parseAffineAtom(names, depth)
		if err != nil {
			return nil, err
		}
		if kind != AffineMul && r.Kind != AffineConst && r.Kind != AffineSym {
			return nil, p.Errorf("non-affine expression: right operand of %s must be a constant or symbol", map[AffineKind]string{AffineMod: "mod", AffineFloorDiv: "floordiv", AffineCeilDiv: "ceildiv"}[kind])
		}
		l = &AffineExpr{Kind: kind, LHS: l, RHS: r}
	}
}

func (p *Parser) parseAffineAtom(names map[string]*AffineExpr, depth int) (*AffineExpr, error) {
	if depth > maxAffineDepth {
		return nil, p.Errorf("affine expression nested too deeply")
	}
	switch {
	case p.Optional("("):
		e, err := p.parseAffineSum(names, depth+1)
		if err != nil {
			return nil, err
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		return e, nil
	case p.Optional("-"):
		e, err := p.parseAffineAtom(names, depth+1)
		if err != nil {
			return nil, err
		}
		if e.Kind == AffineConst {
			return &AffineExpr{Kind: AffineConst, Value: -e.Value}, nil
		}
		return &AffineExpr{Kind: AffineMul, LHS: e, RHS: &AffineExpr{Kind: AffineConst, Value: -1}}, nil
	case p.tok.kind == tokInt:
		v, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		return &AffineExpr{Kind: AffineConst, Value: v}, nil
	case p.tok.kind == tokIdent:
		id := p.tok.text
		e, ok := names[id]
		if !ok {
			return nil, p.Errorf("use of undeclared affine identifier '%s'", id)
		}
		p.next()
		return e, nil
	}
	return nil, p.Errorf("expected affine expression, found %s", p.tok.describe())
}
