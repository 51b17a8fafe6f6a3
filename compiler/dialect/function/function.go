// Package function registers MLIR's func dialect: func.func, func.return
// and func.call. (The package is not named func, which is a Go keyword.)
package function

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the func ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "func.func", Parse: parseFunc, Print: printFunc, Verify: verifyFunc, IsolatedFromAbove: true})
	ret := ir.ReturnLikeOp("func.return", verifyReturn)
	ret.Aliases = []string{"return"}
	r.RegisterOp(ret)
	r.RegisterOp(&ir.OpDef{Name: "func.call", Aliases: []string{"call"}, Parse: parseCall, Print: printCall, Verify: func(op *ir.Operation) error { return verifyCall(r, op) }})
}

// Type returns the function type of a func.func, or nil.
func Type(op *ir.Operation) *ir.FunctionType {
	if ta, ok := op.Attr("function_type").(ir.TypeAttr); ok {
		if ft, ok := ta.Type.(*ir.FunctionType); ok {
			return ft
		}
	}
	return nil
}

// parseFunc parses func.func as MLIR does: the arguments are all named or
// all bare types; a body requires names, a declaration takes either form
// (IREE's samples declare their C kernels with names and no body). The
// names of a declaration are dropped, so it is the same IR as the unnamed
// spelling. Argument and result attribute dictionaries become arg_attrs and
// res_attrs (arrays of dictionaries, present only when one is non-empty).
func parseFunc(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	args, named, ft, argAttrs, err := ParseNameAndArguments(p, op)
	if err != nil {
		return nil, err
	}
	var resAttrs []*ir.DictAttr
	if p.Optional("->") {
		if ft.Results, resAttrs, err = p.ParseFunctionResultList(); err != nil {
			return nil, err
		}
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "function_type", Value: ir.TypeAttr{Type: ft}})
	AppendArgResAttrs(op, argAttrs, resAttrs)
	if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
		return nil, err
	}
	_, err = ParseBody(p, op, args, named)
	return nil, err
}

func printFunc(p *ir.Printer, op *ir.Operation) {
	ir.PrintVisibilityAndName(p, op)
	ft := Type(op)
	if ft == nil {
		ft = &ir.FunctionType{}
	}
	p.WriteString("(")
	body := op.Body()
	for i, t := range ft.Inputs {
		if i > 0 {
			p.WriteString(", ")
		}
		if body != nil && i < len(body.Args) {
			p.Operand(body.Args[i])
			p.WriteString(": ")
		}
		p.Type(t)
		PrintArgResAttr(p, op, "arg_attrs", i)
	}
	p.WriteString(")")
	if len(ft.Results) > 0 {
		p.WriteString(" -> ")
		if !HasResultAttrs(op, len(ft.Results)) {
			p.ResultTypes(ft.Results)
		} else {
			p.WriteString("(")
			for i, t := range ft.Results {
				if i > 0 {
					p.WriteString(", ")
				}
				p.Type(t)
				PrintArgResAttr(p, op, "res_attrs", i)
			}
			p.WriteString(")")
		}
	}
	p.AttrDictWithKeyword(op, "sym_visibility", "sym_name", "function_type", "arg_attrs", "res_attrs")
	if len(op.Regions) > 0 && len(op.Regions[0].Blocks) > 0 {
		p.WriteString(" ")
		p.Region(op.Regions[0], false)
	}
}

func verifyFunc(op *ir.Operation) error {
	ft, err := VerifySymbolAndType(op)
	if err != nil {
		return err
	}
	for _, c := range []struct {
		name, what string
		n          int
	}{{"arg_attrs", "arguments", len(ft.Inputs)}, {"res_attrs", "results", len(ft.Results)}} {
		a := op.Attr(c.name)
		if a == nil {
			continue
		}
		arr, ok := a.(*ir.ArrayAttr)
		if !ok {
			return ir.OpErrorf(op, "'%s' must be an array of dictionaries, found %s", c.name, ir.AttrString(a))
		}
		if len(arr.Elems) != c.n {
			return ir.OpErrorf(op, "'%s' has %d entries but the function has %d %s", c.name, len(arr.Elems), c.n, c.what)
		}
		for _, e := range arr.Elems {
			if _, ok := e.(*ir.DictAttr); !ok {
				return ir.OpErrorf(op, "'%s' must be an array of dictionaries, found %s", c.name, ir.AttrString(e))
			}
		}
	}
	return VerifyBody(op, ft)
}

func verifyReturn(op *ir.Operation) error {
	parent := op.ParentOp()
	if parent == nil || parent.Name != "func.func" {
		return ir.OpErrorf(op, "expects parent op 'func.func'")
	}
	ft := Type(parent)
	if ft == nil {
		return nil
	}
	if len(op.Operands) != len(ft.Results) {
		return ir.OpErrorf(op, "has %d operands, but enclosing function (@%s) returns %d", len(op.Operands), parent.SymName(), len(ft.Results))
	}
	for i, v := range op.Operands {
		if !ir.TypesEqual(v.Type, ft.Results[i]) {
			return ir.OpErrorf(op, "type of return operand %d ('%s') doesn't match function result type ('%s') in function @%s", i, ir.TypeString(v.Type), ir.TypeString(ft.Results[i]), parent.SymName())
		}
	}
	return nil
}

func parseCall(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	ref, err := p.ParseSymbolRef()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "callee", Value: ref})
	vs, err := p.ParseDelimitedOperands("(", ")")
	if err != nil {
		return nil, err
	}
	t, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	ft, ok := t.(*ir.FunctionType)
	if !ok {
		return nil, ir.Errorf(tpos, "expected function type, found '%s'", ir.TypeString(t))
	}
	if err := p.ResolveTypes(vs, ft.Inputs, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return ft.Results, nil
}

func printCall(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Attr(op.Attr("callee"))
	p.WriteString("(")
	p.Operands(op.Operands)
	p.WriteString(")")
	p.AttrDict(op, "callee")
	p.WriteString(" : (")
	var ins, outs []ir.Type
	for _, v := range op.Operands {
		ins = append(ins, v.Type)
	}
	for _, v := range op.Results {
		outs = append(outs, v.Type)
	}
	p.Types(ins)
	p.WriteString(") -> ")
	p.ResultTypes(outs)
}

func verifyCall(r *ir.Registry, op *ir.Operation) error {
	ref, ok := op.Attr("callee").(ir.SymbolRefAttr)
	if !ok {
		return ir.OpErrorf(op, "requires a 'callee' symbol reference attribute")
	}
	ops, err := ir.ResolveSymbolRef(r, op, ref)
	if err != nil {
		return err
	}
	callee := ops[len(ops)-1]
	ft := Type(callee)
	if callee.Name != "func.func" || ft == nil {
		return ir.OpErrorf(op, "'%s' does not reference a valid function", ir.AttrString(ref))
	}
	if len(ft.Inputs) != len(op.Operands) {
		return ir.OpErrorf(op, "incorrect number of operands for callee: %d given, @%s takes %d", len(op.Operands), callee.SymName(), len(ft.Inputs))
	}
	for i, v := range op.Operands {
		if !ir.TypesEqual(v.Type, ft.Inputs[i]) {
			return ir.OpErrorf(op, "operand type mismatch: expected operand type '%s', but provided '%s' for operand number %d", ir.TypeString(ft.Inputs[i]), ir.TypeString(v.Type), i)
		}
	}
	if len(ft.Results) != len(op.Results) {
		return ir.OpErrorf(op, "incorrect number of results for callee: %d given, @%s returns %d", len(op.Results), callee.SymName(), len(ft.Results))
	}
	for i, v := range op.Results {
		if !ir.TypesEqual(v.Type, ft.Results[i]) {
			return ir.OpErrorf(op, "result type mismatch at index %d: expected '%s', but provided '%s'", i, ir.TypeString(ft.Results[i]), ir.TypeString(v.Type))
		}
	}
	return nil
}
