// Package codegen registers the iree_codegen ops that custom dispatch
// shims use: iree_codegen.extract_strided_metadata.
package codegen

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the iree_codegen ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "iree_codegen.extract_strided_metadata", Parse: parseESM, Print: printESM, Verify: verifyESM})
}

func parseESM(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(v, t, tpos); err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	return ts, nil
}

func printESM(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Type(op.Operands[0].Type)
	p.WriteString(" -> ")
	var ts []ir.Type
	for _, r := range op.Results {
		ts = append(ts, r.Type)
	}
	p.Types(ts)
}

func verifyESM(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	m, ok := op.Operands[0].Type.(*ir.MemRefType)
	if !ok {
		return ir.OpErrorf(op, "operand must be a memref, found '%s'", ir.TypeString(op.Operands[0].Type))
	}
	rank := len(m.Shape)
	if want := 2 + 2*rank; len(op.Results) != want {
		return ir.OpErrorf(op, "a rank-%d memref yields %d results (base, offset, sizes, strides), found %d", rank, want, len(op.Results))
	}
	base, ok := op.Results[0].Type.(*ir.MemRefType)
	if !ok || len(base.Shape) != 0 || !ir.TypesEqual(base.Elem, m.Elem) {
		return ir.OpErrorf(op, "base result must be a rank-0 memref of '%s'", ir.TypeString(m.Elem))
	}
	for i, r := range op.Results[1:] {
		if _, ok := r.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "result #%d must be index, found '%s'", i+1, ir.TypeString(r.Type))
		}
	}
	return nil
}
