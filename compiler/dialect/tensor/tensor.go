// Package tensor registers tensor.dim and tensor.empty.
package tensor

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the tensor ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "tensor.dim", Parse: parseDim, Print: printDim, Verify: verifyDim})
	r.RegisterOp(&ir.OpDef{Name: "tensor.empty", Parse: parseEmpty, Print: printEmpty, Verify: verifyEmpty})
}

func parseDim(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	t, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	idx, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	ty, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(t, ty, tpos); err != nil {
		return nil, err
	}
	if err := p.ResolveType(idx, ir.IndexType{}, tpos); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{t, idx}
	return []ir.Type{ir.IndexType{}}, nil
}

func printDim(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Type(op.Operands[0].Type)
}

func verifyDim(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 2); err != nil {
		return err
	}
	if _, ok := op.Operands[0].Type.(*ir.TensorType); !ok {
		return ir.OpErrorf(op, "operand #0 must be a tensor, found '%s'", ir.TypeString(op.Operands[0].Type))
	}
	return ir.ExpectResults(op, 1)
}

func parseEmpty(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseDelimitedOperands("(", ")")
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
	tt, ok := t.(*ir.TensorType)
	if !ok {
		return nil, ir.Errorf(tpos, "tensor.empty result must be a tensor, found '%s'", ir.TypeString(t))
	}
	if len(vs) != ir.NumDynamicDims(tt) {
		return nil, ir.Errorf(tpos, "incorrect number of dynamic sizes, has %d, expected %d", len(vs), ir.NumDynamicDims(tt))
	}
	for _, v := range vs {
		if err := p.ResolveType(v, ir.IndexType{}, tpos); err != nil {
			return nil, err
		}
	}
	op.Operands = vs
	return []ir.Type{t}, nil
}

func printEmpty(p *ir.Printer, op *ir.Operation) {
	p.WriteString("(")
	p.Operands(op.Operands)
	p.WriteString(")")
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Type(op.Results[0].Type)
}

func verifyEmpty(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	tt, ok := op.Results[0].Type.(*ir.TensorType)
	if !ok {
		return ir.OpErrorf(op, "result must be a tensor")
	}
	if len(op.Operands) != ir.NumDynamicDims(tt) {
		return ir.OpErrorf(op, "incorrect number of dynamic sizes, has %d, expected %d", len(op.Operands), ir.NumDynamicDims(tt))
	}
	return nil
}
