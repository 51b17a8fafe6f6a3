// Package affine registers affine.apply, which evaluates an affine_map on
// index values, affine.min/affine.max, which take the least or greatest
// of the map's results (IREE's ukernel samples clamp tile sizes with min),
// and affine.linearize_index/affine.delinearize_index, which convert
// between a multi-index and its row-major linear index over a basis of
// constants and values (IREE's map_load and map_store regions use them).
// ExpandIndexOps rewrites the latter two into arith ops for the passes
// after the input phase.
package affine

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the affine ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "affine.apply", Parse: parseApply, Print: printApply, Verify: verifyApply})
	for _, n := range []string{"affine.min", "affine.max"} {
		r.RegisterOp(&ir.OpDef{Name: n, Parse: parseApply, Print: printApply, Verify: verifyMinMax})
	}
	registerIndexOps(r)
}

// Map returns the affine map of an affine.apply, or nil.
func Map(op *ir.Operation) *ir.AffineMap {
	if m, ok := op.Attr("map").(ir.AffineMapAttr); ok {
		return m.Map
	}
	return nil
}

func parseApply(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	pos := p.Pos()
	a, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	m, ok := a.(ir.AffineMapAttr)
	if !ok {
		return nil, ir.Errorf(pos, "expected an affine map, found %s", ir.AttrString(a))
	}
	dims, err := p.ParseDelimitedOperands("(", ")")
	if err != nil {
		return nil, err
	}
	var syms []*ir.Value
	if p.Is("[") {
		if syms, err = p.ParseDelimitedOperands("[", "]"); err != nil {
			return nil, err
		}
	}
	if len(dims) != m.Map.NumDims || len(syms) != m.Map.NumSyms {
		return nil, ir.Errorf(pos, "affine map expects %d dimension and %d symbol operands, but %d and %d were given", m.Map.NumDims, m.Map.NumSyms, len(dims), len(syms))
	}
	op.Operands = append(dims, syms...)
	for _, v := range op.Operands {
		if err := p.ResolveType(v, ir.IndexType{}, pos); err != nil {
			return nil, err
		}
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "map", Value: m})
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	return []ir.Type{ir.IndexType{}}, nil
}

func printApply(p *ir.Printer, op *ir.Operation) {
	m := Map(op)
	p.WriteString(" ")
	p.Attr(op.Attr("map"))
	nd := 0
	if m != nil {
		nd = m.NumDims
	}
	if nd > len(op.Operands) {
		nd = len(op.Operands)
	}
	p.WriteString("(")
	p.Operands(op.Operands[:nd])
	p.WriteString(")")
	if len(op.Operands) > nd {
		p.WriteString("[")
		p.Operands(op.Operands[nd:])
		p.WriteString("]")
	}
	p.AttrDict(op, "map")
}

func verifyApply(op *ir.Operation) error {
	m := Map(op)
	if m == nil {
		return ir.OpErrorf(op, "requires an affine map attribute 'map'")
	}
	if len(m.Results) != 1 {
		return ir.OpErrorf(op, "mapping must produce one value, but produces %d", len(m.Results))
	}
	return verifyOperands(op, m)
}

func verifyMinMax(op *ir.Operation) error {
	m := Map(op)
	if m == nil {
		return ir.OpErrorf(op, "requires an affine map attribute 'map'")
	}
	if len(m.Results) == 0 {
		return ir.OpErrorf(op, "affine map must have at least one result")
	}
	return verifyOperands(op, m)
}

func verifyOperands(op *ir.Operation, m *ir.AffineMap) error {
	if len(op.Operands) != m.NumDims+m.NumSyms {
		return ir.OpErrorf(op, "operand count and affine map dimension and symbol count must match")
	}
	for i, v := range op.Operands {
		if _, ok := v.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "operand #%d must be index, found '%s'", i, ir.TypeString(v.Type))
		}
	}
	return ir.ExpectResults(op, 1)
}
