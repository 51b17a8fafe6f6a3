// Package stream registers the stream dialect ops used by stream-level
// custom dispatch executables: stream.executable, stream.executable.export,
// stream.binding.subspan, stream.dispatch.workgroup.id/count/size and
// stream.return.
package stream

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the stream ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(ir.SymbolTableOp("stream.executable", true, verifyExecutable))
	r.RegisterOp(&ir.OpDef{Name: "stream.executable.export", Parse: parseExport, Print: printExport, Verify: verifyExport, IsolatedFromAbove: true})
	r.RegisterOp(&ir.OpDef{Name: "stream.binding.subspan", Parse: parseSubspan, Print: printSubspan, Verify: verifySubspan})
	for _, n := range []string{"id", "count", "size"} {
		r.RegisterOp(ir.DimensionOp("stream.dispatch.workgroup."+n, "dimension"))
	}
	r.RegisterOp(ir.ReturnLikeOp("stream.return", nil))
}

func verifyExecutable(op *ir.Operation) error {
	mods := 0
	for _, o := range op.Body().Ops {
		switch o.Name {
		case "builtin.module":
			mods++
		case "stream.executable.export":
		default:
			return ir.OpErrorf(op, "may only contain stream.executable.export ops and one builtin.module, found '%s'", o.Name)
		}
	}
	if mods > 1 {
		return ir.OpErrorf(op, "must contain at most one builtin.module, found %d", mods)
	}
	return nil
}

func parseExport(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseSymbolDecl(op); err != nil {
		return nil, err
	}
	if p.Is("as") || p.IsKeyword("as") {
		p.ExpectKeyword("as")
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		ref, err := p.ParseSymbolRef()
		if err != nil {
			return nil, err
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "function_ref", Value: ref})
	}
	if p.OptionalKeyword("workgroups") {
		args, err := p.ParseArgumentList(true)
		if err != nil {
			return nil, err
		}
		if err := p.Expect("->"); err != nil {
			return nil, err
		}
		pos := p.Pos()
		res, err := p.ParseFunctionResultTypes()
		if err != nil {
			return nil, err
		}
		if len(res) != 3 {
			return nil, ir.Errorf(pos, "workgroup count region must return 3 values (x, y, z), found %d", len(res))
		}
		if _, err := p.ParseRegion(op, args); err != nil {
			return nil, err
		}
	} else {
		op.AddRegion()
	}
	if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
		return nil, err
	}
	return nil, nil
}

func printExport(p *ir.Printer, op *ir.Operation) {
	ir.PrintVisibilityAndName(p, op)
	if fr := op.Attr("function_ref"); fr != nil {
		p.WriteString(" as(")
		p.Attr(fr)
		p.WriteString(")")
	}
	if len(op.Regions) > 0 && len(op.Regions[0].Blocks) > 0 {
		p.WriteString(" workgroups")
		p.ArgList(op.Regions[0].Blocks[0].Args)
		p.WriteString(" -> (index, index, index) ")
		p.Region(op.Regions[0], false)
	}
	p.AttrDictWithKeyword(op, "sym_visibility", "sym_name", "function_ref")
}

func verifyExport(op *ir.Operation) error {
	if op.SymName() == "" {
		return ir.OpErrorf(op, "requires a symbol name")
	}
	if parent := op.ParentOp(); parent != nil && parent.Name != "stream.executable" {
		return ir.OpErrorf(op, "expects parent op 'stream.executable', found '%s'", parent.Name)
	}
	if len(op.Regions) != 1 {
		return nil
	}
	r := op.Regions[0]
	if len(r.Blocks) == 0 {
		return nil
	}
	for i, a := range r.Blocks[0].Args {
		if _, ok := a.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "workgroups argument #%d must be index, found '%s'", i, ir.TypeString(a.Type))
		}
	}
	// IREE's own samples end stream count regions with hal.return as often
	// as with stream.return; both mean the same here.
	return ir.VerifyCountReturns(op, r, "stream.return", "hal.return")
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
