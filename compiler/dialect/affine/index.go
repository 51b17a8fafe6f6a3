package affine

import (
	"math"
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// affine.linearize_index and affine.delinearize_index convert between a
// multi-index and its row-major linear index over a basis (the sizes of
// the dimensions):
//
//	%l = affine.linearize_index disjoint [%i, %j] by (%n, 4) : index
//	%r:2 = affine.delinearize_index %l into (%n, 4) : index, index
//
// Each basis is a mixed list: constants in static_basis, values (index)
// in the operands, marked by DynamicBasis in static_basis. The outermost
// basis element may be left out; linearize_index never reads it and
// delinearize_index leaves its first result unbounded. disjoint asserts
// that every index is inside its basis element (no carry between them).

// DynamicBasis marks an entry of static_basis whose value is an operand:
// MLIR's ShapedType::kDynamic, the least int64.
const DynamicBasis int64 = math.MinInt64

func registerIndexOps(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "affine.linearize_index", Parse: parseLinearize, Print: printLinearize, Verify: verifyLinearize})
	r.RegisterOp(&ir.OpDef{Name: "affine.delinearize_index", Parse: parseDelinearize, Print: printDelinearize, Verify: verifyDelinearize})
}

// parseBasis parses `(b, ...)` where each entry is an index value or an
// integer literal.
func parseBasis(p *ir.Parser) ([]*ir.Value, *ir.DenseArrayAttr, error) {
	static := &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{}}
	if err := p.Expect("("); err != nil {
		return nil, nil, err
	}
	var vs []*ir.Value
	if p.Optional(")") {
		return vs, static, nil
	}
	for {
		if p.IsValueID() {
			pos := p.Pos()
			v, err := p.ParseOperand()
			if err != nil {
				return nil, nil, err
			}
			if err := p.ResolveType(v, ir.IndexType{}, pos); err != nil {
				return nil, nil, err
			}
			vs = append(vs, v)
			static.Values = append(static.Values, DynamicBasis)
		} else {
			n, err := p.ParseInteger()
			if err != nil {
				return nil, nil, err
			}
			static.Values = append(static.Values, n)
		}
		if p.Optional(")") {
			return vs, static, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, nil, err
		}
	}
}

// printBasis prints `(b, ...)` from static_basis and the dynamic basis
// values dyn.
func printBasis(p *ir.Printer, op *ir.Operation, dyn []*ir.Value) {
	p.WriteString("(")
	static, _ := op.Attr("static_basis").(*ir.DenseArrayAttr)
	next := 0
	if static != nil {
		for i, n := range static.Values {
			if i > 0 {
				p.WriteString(", ")
			}
			if n == DynamicBasis && next < len(dyn) {
				p.Operand(dyn[next])
				next++
			} else {
				p.WriteString(strconv.FormatInt(n, 10))
			}
		}
	}
	p.WriteString(")")
}

func parseLinearize(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	pos := p.Pos()
	disjoint := p.OptionalKeyword("disjoint")
	idx, err := p.ParseDelimitedOperands("[", "]")
	if err != nil {
		return nil, err
	}
	if err := p.ResolveTypes(idx, repeatIndex(len(idx)), pos); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("by"); err != nil {
		return nil, err
	}
	dyn, static, err := parseBasis(p)
	if err != nil {
		return nil, err
	}
	op.Operands = append(idx, dyn...)
	if disjoint {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "disjoint", Value: ir.UnitAttr{}})
	}
	op.Attrs = append(op.Attrs,
		ir.NamedAttr{Name: "static_basis", Value: static},
		ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(idx), len(dyn))})
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printLinearize(p *ir.Printer, op *ir.Operation) {
	if op.HasAttr("disjoint") {
		p.WriteString(" disjoint")
	}
	idx, dyn := ir.Segment(op, 0), ir.Segment(op, 1)
	p.WriteString(" [")
	p.Operands(idx)
	p.WriteString("] by ")
	printBasis(p, op, dyn)
	p.AttrDict(op, "disjoint", "static_basis", "operandSegmentSizes")
	p.WriteString(" : ")
	if len(op.Results) == 1 {
		p.Type(op.Results[0].Type)
	}
}

func parseDelinearize(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	pos := p.Pos()
	x, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(x, ir.IndexType{}, pos); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("into"); err != nil {
		return nil, err
	}
	dyn, static, err := parseBasis(p)
	if err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{x}, dyn...)
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "static_basis", Value: static})
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	var ts []ir.Type
	for {
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
		if !p.Optional(",") {
			return ts, nil
		}
	}
}

func printDelinearize(p *ir.Printer, op *ir.Operation) {
	if len(op.Operands) == 0 {
		return
	}
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.WriteString(" into ")
	printBasis(p, op, op.Operands[1:])
	p.AttrDict(op, "static_basis")
	p.WriteString(" : ")
	for i, r := range op.Results {
		if i > 0 {
			p.WriteString(", ")
		}
		p.Type(r.Type)
	}
}

func repeatIndex(n int) []ir.Type {
	ts := make([]ir.Type, n)
	for i := range ts {
		ts[i] = ir.IndexType{}
	}
	return ts
}

// verifyBasis checks static_basis against the dynamic basis operands dyn:
// one operand per DynamicBasis entry, every constant positive, every
// operand an index.
func verifyBasis(op *ir.Operation, dyn []*ir.Value) ([]int64, error) {
	static, ok := op.Attr("static_basis").(*ir.DenseArrayAttr)
	if !ok {
		return nil, ir.OpErrorf(op, "requires a static_basis array attribute")
	}
	n := 0
	for _, b := range static.Values {
		switch {
		case b == DynamicBasis:
			n++
		case b <= 0:
			return nil, ir.OpErrorf(op, "no zero or negative basis elements may be static (found %d)", b)
		}
	}
	if n != len(dyn) {
		return nil, ir.OpErrorf(op, "static_basis has %d dynamic entries but %d basis values are given", n, len(dyn))
	}
	for i, v := range op.Operands {
		if _, ok := v.Type.(ir.IndexType); !ok {
			return nil, ir.OpErrorf(op, "operand #%d must be index, found '%s'", i, ir.TypeString(v.Type))
		}
	}
	return static.Values, nil
}

func verifyLinearize(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 2); err != nil {
		return err
	}
	basis, err := verifyBasis(op, ir.Segment(op, 1))
	if err != nil {
		return err
	}
	n := len(ir.Segment(op, 0))
	if len(basis) != n && len(basis) != n-1 {
		return ir.OpErrorf(op, "should be passed a basis of %d or %d elements for %d indices, found %d", n, n-1, n, len(basis))
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if _, ok := op.Results[0].Type.(ir.IndexType); !ok {
		return ir.OpErrorf(op, "result must be index, found '%s'", ir.TypeString(op.Results[0].Type))
	}
	return nil
}

func verifyDelinearize(op *ir.Operation) error {
	if len(op.Operands) == 0 {
		return ir.OpErrorf(op, "requires a linear index operand")
	}
	basis, err := verifyBasis(op, op.Operands[1:])
	if err != nil {
		return err
	}
	n := len(op.Results)
	if n == 0 {
		return ir.OpErrorf(op, "must produce at least one result")
	}
	if len(basis) != n && len(basis) != n-1 {
		return ir.OpErrorf(op, "should return %d or %d results for a basis of %d elements, found %d", len(basis), len(basis)+1, len(basis), n)
	}
	for i, r := range op.Results {
		if _, ok := r.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "result #%d must be index, found '%s'", i, ir.TypeString(r.Type))
		}
	}
	return nil
}
