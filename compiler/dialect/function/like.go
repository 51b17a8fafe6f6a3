package function

import "github.com/goiree/goiree/compiler/ir"

// This file holds the parts of func.func's syntax and rules that other
// function-like ops (util.func) share: the symbol and argument list, the
// arg_attrs/res_attrs arrays, the optional body, and the checks of a body
// against the function type.

// ParseNameAndArguments parses `[visibility] @name(args)`, recording the
// symbol on op. It returns the arguments, whether they were named
// (%x: type) rather than bare types, a function type holding their types
// as inputs, and each argument's attribute dictionary (nil for none).
func ParseNameAndArguments(p *ir.Parser, op *ir.Operation) ([]ir.Argument, bool, *ir.FunctionType, []*ir.DictAttr, error) {
	if err := p.ParseSymbolDecl(op); err != nil {
		return nil, false, nil, nil, err
	}
	args, named, err := p.ParseFunctionArgumentList()
	if err != nil {
		return nil, false, nil, nil, err
	}
	ft := &ir.FunctionType{}
	argAttrs := make([]*ir.DictAttr, len(args))
	for i, a := range args {
		ft.Inputs = append(ft.Inputs, a.Type)
		argAttrs[i] = a.Attrs
	}
	return args, named, ft, argAttrs, nil
}

// AppendArgResAttrs adds arg_attrs and res_attrs to op, each only when one
// of its dictionaries is non-empty, as MLIR does.
func AppendArgResAttrs(op *ir.Operation, argAttrs, resAttrs []*ir.DictAttr) {
	if a := attrArray(argAttrs); a != nil {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "arg_attrs", Value: a})
	}
	if a := attrArray(resAttrs); a != nil {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "res_attrs", Value: a})
	}
}

// ParseBody parses a function's `{ body }` if one follows, its entry block
// taking args; it returns nil when there is none (a declaration). A body
// needs named arguments.
func ParseBody(p *ir.Parser, op *ir.Operation, args []ir.Argument, named bool) (*ir.Region, error) {
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
	return p.ParseRegion(op, args)
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

// PrintArgResAttr prints ` {...}`, entry i of op's arg_attrs or res_attrs
// (name), when that dictionary is non-empty.
func PrintArgResAttr(p *ir.Printer, op *ir.Operation, name string, i int) {
	if d := dictAt(op, name, i); d != nil {
		p.WriteString(" ")
		p.Attr(d)
	}
}

// HasResultAttrs reports whether any of op's n results has a non-empty
// res_attrs dictionary (the result list is then parenthesized).
func HasResultAttrs(op *ir.Operation, n int) bool {
	for i := 0; i < n; i++ {
		if dictAt(op, "res_attrs", i) != nil {
			return true
		}
	}
	return false
}

// VerifySymbolAndType checks that a function-like op has a function_type,
// a symbol name and at most one region, and returns its type.
func VerifySymbolAndType(op *ir.Operation) (*ir.FunctionType, error) {
	ft := Type(op)
	if ft == nil {
		return nil, ir.OpErrorf(op, "requires a 'function_type' attribute of function type")
	}
	if op.SymName() == "" {
		return nil, ir.OpErrorf(op, "requires a symbol name")
	}
	if len(op.Regions) > 1 {
		return nil, ir.OpErrorf(op, "expects at most one region")
	}
	return ft, nil
}

// VerifyBody checks a function-like op against its type ft: a body's
// entry block takes ft's inputs and each block ends in a terminator; an op
// without a body (a declaration) must not be public.
func VerifyBody(op *ir.Operation, ft *ir.FunctionType) error {
	body := op.Body()
	if body == nil {
		if v, ok := op.Attr("sym_visibility").(ir.StringAttr); !ok || v.Value == "public" {
			return ir.OpErrorf(op, "symbol declaration cannot have public visibility")
		}
		return nil
	}
	if len(body.Args) != len(ft.Inputs) {
		return ir.OpErrorf(op, "entry block has %d arguments but the function type has %d inputs", len(body.Args), len(ft.Inputs))
	}
	for i, a := range body.Args {
		if !ir.TypesEqual(a.Type, ft.Inputs[i]) {
			return ir.OpErrorf(op, "type of entry block argument #%d ('%s') must match the type of the corresponding argument in the function signature ('%s')", i, ir.TypeString(a.Type), ir.TypeString(ft.Inputs[i]))
		}
	}
	for _, b := range op.Regions[0].Blocks {
		if b.Terminator() == nil {
			return ir.OpErrorf(op, "body block has no terminator")
		}
	}
	return nil
}
