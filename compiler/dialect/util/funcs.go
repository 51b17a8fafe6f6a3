package util

import (
	"strconv"

	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/ir"
)

func registerFuncs(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "util.func", Parse: parseFunc, Print: printFunc, Verify: verifyFunc, IsolatedFromAbove: true})
	r.RegisterOp(&ir.OpDef{Name: "util.initializer", Parse: parseInitializer, Print: printInitializer, Verify: verifyInitializer, IsolatedFromAbove: true})
	r.RegisterOp(&ir.OpDef{Name: "util.return", Aliases: []string{"util.initializer.return"}, Parse: parseReturn, Print: printReturn, Verify: verifyReturn})
	r.RegisterOp(&ir.OpDef{Name: "util.call", Parse: parseCall, Print: printCall, Verify: func(op *ir.Operation) error { return verifyCall(r, op) }})
}

// IsHostFunction reports whether op is a function whose body is host code:
// func.func, util.func or util.initializer (the ops the passes that
// rewrite host code walk, as opposed to executables' device code).
func IsHostFunction(op *ir.Operation) bool {
	switch op.Name {
	case "func.func", "util.func", "util.initializer":
		return true
	}
	return false
}

// FunctionType returns the function_type of a util.func (or of any op
// carrying one), or nil.
func FunctionType(op *ir.Operation) *ir.FunctionType { return function.Type(op) }

// tiedAttr returns the tied_operands array, or nil when no result is
// tied.
func tiedAttr(tied []int64) ir.Attribute {
	any := false
	arr := &ir.ArrayAttr{}
	for _, t := range tied {
		any = any || t >= 0
		arr.Elems = append(arr.Elems, ir.IndexAttr(t))
	}
	if !any {
		return nil
	}
	return arr
}

// tiedOf decodes op's tied_operands into one entry per result type (-1
// for untied).
func tiedOf(op *ir.Operation, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = -1
	}
	if arr, ok := op.Attr("tied_operands").(*ir.ArrayAttr); ok {
		for i, e := range arr.Elems {
			if ia, ok := e.(ir.IntegerAttr); ok && i < n {
				out[i] = ia.Value
			}
		}
	}
	return out
}

// parseTiedResults parses the result list of a util.func or util.call
// signature: `t`, `%x`, `%x as t`, or a parenthesized list of those (each
// with an optional attribute dictionary when withAttrs). lookup maps an
// operand name to its index and type.
func parseTiedResults(p *ir.Parser, withAttrs bool, lookup func(name string) (int, ir.Type, bool)) ([]ir.Type, []int64, []*ir.DictAttr, error) {
	var types []ir.Type
	var tied []int64
	var attrs []*ir.DictAttr
	one := func(allowAttrs bool) error {
		var t ir.Type
		ti := int64(-1)
		if p.IsValueID() {
			name, pos, err := p.ParseValueName()
			if err != nil {
				return err
			}
			i, at, ok := lookup(name)
			if !ok {
				return ir.Errorf(pos, "tied operand not found for result reference %%%s", name)
			}
			ti, t = int64(i), at
			if p.OptionalKeyword("as") {
				if t, err = p.ParseType(); err != nil {
					return err
				}
			}
		} else {
			var err error
			if t, err = p.ParseType(); err != nil {
				return err
			}
		}
		var d *ir.DictAttr
		if allowAttrs && p.Is("{") {
			var err error
			if d, err = p.ParseDictionary(); err != nil {
				return err
			}
		}
		types, tied, attrs = append(types, t), append(tied, ti), append(attrs, d)
		return nil
	}
	if !p.Optional("(") {
		// Without parentheses IREE still reads a comma-separated list
		// (`-> index, i64`), but without attribute dictionaries.
		for {
			if err := one(false); err != nil {
				return nil, nil, nil, err
			}
			if !p.Optional(",") {
				return types, tied, attrs, nil
			}
		}
	}
	if p.Optional(")") {
		return nil, nil, nil, nil
	}
	for {
		if err := one(withAttrs); err != nil {
			return nil, nil, nil, err
		}
		if p.Optional(")") {
			return types, tied, attrs, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, nil, nil, err
		}
	}
}

// util.func [visibility] @name(args) [-> results] [attributes {...}] [{ body }]
func parseFunc(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	args, named, ft, argAttrs, err := function.ParseNameAndArguments(p, op)
	if err != nil {
		return nil, err
	}
	var tied []int64
	var resAttrs []*ir.DictAttr
	if p.Optional("->") {
		lookup := func(name string) (int, ir.Type, bool) {
			for i, a := range args {
				if a.Name == name {
					return i, a.Type, true
				}
			}
			return 0, nil, false
		}
		if ft.Results, tied, resAttrs, err = parseTiedResults(p, true, lookup); err != nil {
			return nil, err
		}
	}
	if t := tiedAttr(tied); t != nil {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "tied_operands", Value: t})
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "function_type", Value: ir.TypeAttr{Type: ft}})
	dpos := p.Pos()
	var extra ir.Operation
	if err := p.ParseOptionalAttrDictWithKeyword(&extra); err != nil {
		return nil, err
	}
	for _, a := range extra.Attrs {
		switch a.Name {
		case "sym_visibility", "sym_name", "function_type":
			return nil, ir.Errorf(dpos, "'%s' is an inferred attribute and should not be specified in the explicit attribute dictionary", a.Name)
		}
		op.Attrs = append(op.Attrs, a)
	}
	function.AppendArgResAttrs(op, argAttrs, resAttrs)
	bpos := p.Pos()
	r, err := function.ParseBody(p, op, args, named)
	if err != nil {
		return nil, err
	}
	if r != nil && len(r.Blocks) == 0 {
		return nil, ir.Errorf(bpos, "expected non-empty function body")
	}
	return nil, nil
}

func printFunc(p *ir.Printer, op *ir.Operation) {
	ir.PrintVisibilityAndName(p, op)
	ft := FunctionType(op)
	if ft == nil {
		ft = &ir.FunctionType{}
	}
	body := op.Body()
	tied := tiedOf(op, len(ft.Results))
	// argName prints argument i's name: the body's value, or %argN for a
	// declaration (IREE names a declaration's arguments too, so that its
	// results can refer to them).
	argName := func(i int) {
		if body != nil && i < len(body.Args) {
			p.Operand(body.Args[i])
		} else {
			p.WriteString("%arg" + strconv.Itoa(i))
		}
	}
	p.WriteString("(")
	for i, t := range ft.Inputs {
		if i > 0 {
			p.WriteString(", ")
		}
		argName(i)
		p.WriteString(": ")
		p.Type(t)
		function.PrintArgResAttr(p, op, "arg_attrs", i)
	}
	p.WriteString(")")
	if len(ft.Results) > 0 {
		p.WriteString(" -> ")
		paren := len(ft.Results) != 1 || function.HasResultAttrs(op, len(ft.Results))
		if paren {
			p.WriteString("(")
		}
		for i, t := range ft.Results {
			if i > 0 {
				p.WriteString(", ")
			}
			if ti := tied[i]; ti >= 0 && int(ti) < len(ft.Inputs) {
				argName(int(ti))
				if !ir.TypesEqual(ft.Inputs[ti], t) {
					p.WriteString(" as ")
					p.Type(t)
				}
			} else {
				p.Type(t)
			}
			function.PrintArgResAttr(p, op, "res_attrs", i)
		}
		if paren {
			p.WriteString(")")
		}
	}
	p.AttrDictWithKeyword(op, "sym_visibility", "sym_name", "function_type", "tied_operands", "arg_attrs", "res_attrs")
	if len(op.Regions) > 0 && len(op.Regions[0].Blocks) > 0 {
		p.WriteString(" ")
		p.Region(op.Regions[0], false)
	}
}

func verifyFunc(op *ir.Operation) error {
	ft, err := function.VerifySymbolAndType(op)
	if err != nil {
		return err
	}
	for i, t := range tiedOf(op, len(ft.Results)) {
		if t < -1 || t >= int64(len(ft.Inputs)) {
			return ir.OpErrorf(op, "result #%d is tied to argument %d, but the function has %d arguments", i, t, len(ft.Inputs))
		}
	}
	if a, ok := op.Attr("tied_operands").(*ir.ArrayAttr); ok && len(a.Elems) > len(ft.Results) {
		return ir.OpErrorf(op, "'tied_operands' has %d entries but the function has %d results", len(a.Elems), len(ft.Results))
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"arg_attrs", len(ft.Inputs)}, {"res_attrs", len(ft.Results)}} {
		if a := op.Attr(c.name); a != nil {
			arr, ok := a.(*ir.ArrayAttr)
			if !ok || len(arr.Elems) != c.n {
				return ir.OpErrorf(op, "'%s' must be an array of %d dictionaries, found %s", c.name, c.n, ir.AttrString(a))
			}
		}
	}
	return function.VerifyBody(op, ft)
}

// util.initializer [attributes {...}] { body }
func parseInitializer(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "function_type", Value: ir.TypeAttr{Type: &ir.FunctionType{}}})
	if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
		return nil, err
	}
	_, err := p.ParseRegion(op, []ir.Argument{})
	return nil, err
}

func printInitializer(p *ir.Printer, op *ir.Operation) {
	p.AttrDictWithKeyword(op, "function_type")
	p.WriteString(" ")
	p.Region(op.Regions[0], false)
}

func verifyInitializer(op *ir.Operation) error {
	if ft := FunctionType(op); ft == nil || len(ft.Inputs) != 0 || len(ft.Results) != 0 {
		return ir.OpErrorf(op, "requires 'function_type' to be () -> ()")
	}
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) == 0 {
		return ir.OpErrorf(op, "expects a non-empty body")
	}
	if len(op.Regions[0].Blocks[0].Args) != 0 {
		return ir.OpErrorf(op, "body must take no arguments")
	}
	for _, b := range op.Regions[0].Blocks {
		if b.Terminator() == nil {
			return ir.OpErrorf(op, "body block has no terminator")
		}
	}
	return nil
}

// util.return attr-dict [%a, ... : t, ...]
func parseReturn(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	vs, _, err := p.ParseOptionalOperandsColonTypes()
	op.Operands = vs
	return nil, err
}

func printReturn(p *ir.Printer, op *ir.Operation) {
	p.AttrDict(op)
	p.OperandsColonTypes(op.Operands)
}

func verifyReturn(op *ir.Operation) error {
	if op.Block != nil && op.Block.Terminator() != op {
		return ir.OpErrorf(op, "must be the last operation in the parent block")
	}
	parent := op.ParentOp()
	if parent == nil || (parent.Name != "util.func" && parent.Name != "util.initializer") {
		return ir.OpErrorf(op, "expects parent op to be one of 'util.initializer, util.func'")
	}
	ft := FunctionType(parent)
	if ft == nil {
		return nil
	}
	if len(op.Operands) != len(ft.Results) {
		return ir.OpErrorf(op, "has %d operands, but enclosing function-like op returns %d", len(op.Operands), len(ft.Results))
	}
	for i, v := range op.Operands {
		if !ir.TypesEqual(v.Type, ft.Results[i]) {
			return ir.OpErrorf(op, "type of return operand %d ('%s') doesn't match function result type ('%s')", i, ir.TypeString(v.Type), ir.TypeString(ft.Results[i]))
		}
	}
	return nil
}

// util.call @callee(%a, ...) attr-dict : (t, ...) -> results
// where results are `t`, `%a`, `%a as t` or a parenthesized list of them.
func parseCall(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	name, err := p.ParseSymbolName()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "callee", Value: ir.SymbolRefAttr{Root: name}})
	vs, err := p.ParseDelimitedOperands("(", ")")
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	var ins []ir.Type
	if !p.Optional(")") {
		if ins, err = p.ParseTypeList(); err != nil {
			return nil, err
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
	}
	if err := p.ResolveTypes(vs, ins, tpos); err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	lookup := func(n string) (int, ir.Type, bool) {
		for i, v := range vs {
			if v.Name == n {
				return i, ins[i], true
			}
		}
		return 0, nil, false
	}
	results, tied, _, err := parseTiedResults(p, false, lookup)
	if err != nil {
		return nil, err
	}
	if t := tiedAttr(tied); t != nil {
		op.SetAttr("tied_operands", t)
	}
	op.Operands = vs
	return results, nil
}

func printCall(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	if c := op.Attr("callee"); c != nil {
		p.Attr(c)
	}
	p.WriteString("(")
	p.Operands(op.Operands)
	p.WriteString(")")
	p.AttrDict(op, "callee", "tied_operands")
	p.WriteString(" : (")
	ins := make([]ir.Type, len(op.Operands))
	for i, v := range op.Operands {
		ins[i] = v.Type
	}
	p.Types(ins)
	p.WriteString(") -> ")
	tied := tiedOf(op, len(op.Results))
	if len(op.Results) != 1 {
		p.WriteString("(")
	}
	for i, r := range op.Results {
		if i > 0 {
			p.WriteString(", ")
		}
		if t := tied[i]; t >= 0 && int(t) < len(op.Operands) {
			p.Operand(op.Operands[t])
			if !ir.TypesEqual(op.Operands[t].Type, r.Type) {
				p.WriteString(" as ")
				p.Type(r.Type)
			}
		} else {
			p.Type(r.Type)
		}
	}
	if len(op.Results) != 1 {
		p.WriteString(")")
	}
}

func verifyCall(r *ir.Registry, op *ir.Operation) error {
	ref, ok := op.Attr("callee").(ir.SymbolRefAttr)
	if !ok || len(ref.Nested) > 0 {
		return ir.OpErrorf(op, "requires a 'callee' flat symbol reference attribute")
	}
	var callee *ir.Operation
	for t := ir.NearestSymbolTable(r, op); t != nil && callee == nil; t = ir.NearestSymbolTable(r, t) {
		callee = ir.LookupSymbolIn(t, ref.Root)
	}
	if callee == nil {
		return ir.OpErrorf(op, "refers to an undefined function @%s", ref.Root)
	}
	ft := FunctionType(callee)
	if (callee.Name != "util.func" && callee.Name != "func.func") || ft == nil {
		return ir.OpErrorf(op, "'@%s' does not reference a valid function", ref.Root)
	}
	if len(ft.Inputs) != len(op.Operands) {
		return ir.OpErrorf(op, "incorrect number of operands for callee: %d given, @%s takes %d", len(op.Operands), ref.Root, len(ft.Inputs))
	}
	for i, v := range op.Operands {
		if !ir.TypesEqual(v.Type, ft.Inputs[i]) {
			return ir.OpErrorf(op, "operand type mismatch: expected operand type '%s', but provided '%s' for operand number %d", ir.TypeString(ft.Inputs[i]), ir.TypeString(v.Type), i)
		}
	}
	if len(ft.Results) != len(op.Results) {
		return ir.OpErrorf(op, "incorrect number of results for callee: %d given, @%s returns %d", len(op.Results), ref.Root, len(ft.Results))
	}
	for i, v := range op.Results {
		if !ir.TypesEqual(v.Type, ft.Results[i]) {
			return ir.OpErrorf(op, "result type mismatch at index %d: expected '%s', but provided '%s'", i, ir.TypeString(ft.Results[i]), ir.TypeString(v.Type))
		}
	}
	for i, t := range tiedOf(op, len(op.Results)) {
		if t < -1 || t >= int64(len(op.Operands)) {
			return ir.OpErrorf(op, "result #%d is tied to operand %d, but the call has %d operands", i, t, len(op.Operands))
		}
	}
	return nil
}
