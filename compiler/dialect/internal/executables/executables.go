// Package executables holds the assembly format that IREE's stream and
// flow dialects share for their executables: an `X.executable` symbol
// table of `X.executable.export` ops and one builtin.module, where an
// export may name its function (`as(@fn)`) and carry a workgroup count
// region (`workgroups(%a: index, ...) -> (index, index, index) {...}`).
package executables

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the executable op (name) and its export op (name +
// ".export") to r; count regions end with one of returns.
func Register(r *ir.Registry, name string, returns ...string) {
	export := name + ".export"
	r.RegisterOp(ir.SymbolTableOp(name, true, func(op *ir.Operation) error { return verifyExecutable(op, export) }))
	r.RegisterOp(&ir.OpDef{Name: export, Parse: parseExport, Print: printExport,
		Verify: func(op *ir.Operation) error { return verifyExport(op, name, returns) }, IsolatedFromAbove: true})
}

func verifyExecutable(op *ir.Operation, export string) error {
	mods := 0
	for _, o := range op.Body().Ops {
		switch o.Name {
		case "builtin.module":
			mods++
		case export:
		default:
			return ir.OpErrorf(op, "may only contain %s ops and one builtin.module, found '%s'", export, o.Name)
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

func verifyExport(op *ir.Operation, parentName string, returns []string) error {
	if op.SymName() == "" {
		return ir.OpErrorf(op, "requires a symbol name")
	}
	if parent := op.ParentOp(); parent != nil && parent.Name != parentName {
		return ir.OpErrorf(op, "expects parent op '%s', found '%s'", parentName, parent.Name)
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
	return ir.VerifyCountReturns(op, r, returns...)
}
