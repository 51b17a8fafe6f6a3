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
	if err := p.ParseSymbolDecl(op); err != nil {
		return nil, err
	}
	args, named, err := p.ParseFunctionArgumentList()
	if err != nil {
		return nil, err
	}
	ft := &ir.FunctionType{}
	argAttrs := make([]*ir.DictAttr, len(args))
	for i, a := range args {
		ft.Inputs = append(ft.Inputs, a.Type)
		argAttrs[i] = a.Attrs
	}
	var resAttrs []*ir.DictAttr
	if p.Optional("->") {
		if ft.Results, resAttrs, err = p.ParseFunctionResultList(); err != nil {
			return nil, err
		}
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "function_type", Value: ir.TypeAttr{Type: ft}})
	if a := attrArray(argAttrs); a != nil {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "arg_attrs", Value: a})
	}
	if a := attrArray(resAttrs); a != nil {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "res_attrs", Value: a})
	}
	if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
		return nil, err
	}
	if !p.Is("{") {
		return nil, nil
	}
	if !named && len(args) > 0 {
		return nil, p.Errorf("expected named arguments (%%name: type) for a function with a body")
	}
	// The attributes live in arg_attrs; the entry block's values carry none.
	for i := range args {
		args[i].Attrs = nil
	}
	if args == nil {
		args = []ir.Argument{}
	}
	if _, err := p.ParseRegion(op, args); err != nil {
		return nil, err
	}
	return nil, nil
}

// attrArray returns the array of per-argument (or per-result) dictionaries,
// with {} for absent ones, or nil when every one is absent or empty (MLIR
// omits the attribute then).
func attrArray(ds []*ir.DictAttr) *ir.ArrayAttr {
	some := false
	elems := make([]ir.Attribute, len(ds))
	for i, d := range ds {
		if d == nil {
			d = &ir.DictAttr{}
		}
		some = some || len(d.Entries) > 0
		elems[i] = d
	}
	if !some {
		return nil
	}
	return &ir.ArrayAttr{Elems: elems}
}

// dictAt returns the non-empty dictionary at index i of op's array
// attribute name, or nil.
func dictAt(op *ir.Operation, name string, i int) *ir.DictAttr {
	arr, ok := op.Attr(name).(*ir.ArrayAttr)
	if !ok || i >= len(arr.Elems) {
		return nil
	}
	if d, ok := arr.Elems[i].(*ir.DictAttr); ok && len(d.Entries) > 0 {
		return d
	}
	return nil
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
		if d := dictAt(op, "arg_attrs", i); d != nil {
			p.WriteString(" ")
			p.Attr(d)
		}
	}
	p.WriteString(")")
	if len(ft.Results) > 0 {
		p.WriteString(" -> ")
		withAttrs := false
		for i := range ft.Results {
			withAttrs = withAttrs || dictAt(op, "res_attrs", i) != nil
		}
		if !withAttrs {
			p.ResultTypes(ft.Results)
		} else {
			p.WriteString("(")
			for i, t := range ft.Results {
				if i > 0 {
					p.WriteString(", ")
				}
				p.Type(t)
				if d := dictAt(op, "res_attrs", i); d != nil {
					p.WriteString(" ")
					p.Attr(d)
				}
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
	ft := Type(op)
	if ft == nil {
		return ir.OpErrorf(op, "requires a 'function_type' attribute of function type")
	}
	if op.SymName() == "" {
		return ir.OpErrorf(op, "requires a symbol name")
	}
	if len(op.Regions) > 1 {
		return ir.OpErrorf(op, "expects at most one region")
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
	if body := op.Body(); body != nil {
		if len(body.Args) != len(ft.Inputs) {
			return ir.OpErrorf(op, "entry block has %d arguments but the function type has %d inputs", len(body.Args), len(ft.Inputs))
		}
		for i, a := range body.Args {
			if !ir.TypesEqual(a.Type, ft.Inputs[i]) {
				return ir.OpErrorf(op, "type of entry block argument #%d ('%s') must match the type of the corresponding argument in the function signature ('%s')", i, ir.TypeString(a.Type), ir.TypeString(ft.Inputs[i]))
			}
		}
		for _, b := range op.Regions[0].Blocks {
			t := b.Terminator()
			if t == nil {
				return ir.OpErrorf(op, "body block has no terminator")
			}
		}
	} else if v, ok := op.Attr("sym_visibility").(ir.StringAttr); !ok || v.Value == "public" {
		return ir.OpErrorf(op, "symbol declaration cannot have public visibility")
	}
	return nil
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
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	t, err := p.ParseColonType()
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
