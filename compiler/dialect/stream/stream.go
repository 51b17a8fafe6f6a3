// Package stream registers the stream dialect ops used by stream-level
// custom dispatch executables: stream.executable, stream.executable.export,
// stream.binding.subspan, stream.dispatch.workgroup.id/count/size and
// stream.return.
package stream

import (
	"github.com/goiree/goiree/compiler/dialect/internal/executables"
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the stream ops to r.
func Register(r *ir.Registry) {
	// IREE's own samples end stream count regions with hal.return as often
	// as with stream.return; both mean the same here.
	executables.Register(r, "stream.executable", "stream.return", "hal.return")
	r.RegisterOp(&ir.OpDef{Name: "stream.binding.subspan", Parse: parseSubspan, Print: printSubspan, Verify: verifySubspan})
	for _, n := range []string{"id", "count", "size"} {
		r.RegisterOp(ir.DimensionOp("stream.dispatch.workgroup."+n, "dimension"))
	}
	r.RegisterOp(ir.ReturnLikeOp("stream.return", nil))
}

func parseSubspan(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	b, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	off, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect("]"); err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	bt, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(b, bt, tpos); err != nil {
		return nil, err
	}
	if err := p.ResolveType(off, ir.IndexType{}, tpos); err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	dims, err := p.ParseDynamicDims(t)
	if err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{b, off}, dims...)
	return []ir.Type{t}, nil
}

func printSubspan(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.WriteString("[")
	p.Operand(op.Operands[1])
	p.WriteString("]")
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Type(op.Operands[0].Type)
	p.WriteString(" -> ")
	p.Type(op.Results[0].Type)
	p.DynamicDims(op.Operands[2:])
}

func verifySubspan(op *ir.Operation) error {
	if len(op.Operands) < 2 {
		return ir.OpErrorf(op, "expects a binding and an offset operand")
	}
	if dt, ok := op.Operands[0].Type.(*ir.DialectType); !ok || dt.Name != "stream.binding" {
		return ir.OpErrorf(op, "operand #0 must be !stream.binding, found '%s'", ir.TypeString(op.Operands[0].Type))
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if n := ir.DynamicDimCount(op.Results[0].Type); n != len(op.Operands)-2 {
		return ir.OpErrorf(op, "result type '%s' has %d dynamic dimensions but %d dimension values were given", ir.TypeString(op.Results[0].Type), n, len(op.Operands)-2)
	}
	return nil
}
