package transform

import (
	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the transform ops the interpreter runs to r. They print in
// the generic form; only their custom syntax is parsed.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "transform.named_sequence", Parse: parseNamedSequence, IsolatedFromAbove: true})
	r.RegisterOp(ir.ReturnLikeOp("transform.yield", nil))
	for _, name := range []string{"transform.get_defining_op", "transform.util.get_nearest_symbol_table"} {
		r.RegisterOp(&ir.OpDef{Name: name, Parse: parseOperandsFunctional})
	}
	r.RegisterOp(&ir.OpDef{Name: "transform.structured.match", Parse: parseStructuredMatch})
	r.RegisterOp(&ir.OpDef{Name: "transform.foreach", Parse: parseForeach, NoTerminator: true})
	r.RegisterOp(&ir.OpDef{Name: "transform.foreach_match", Parse: parseForeachMatch})
	r.RegisterOp(&ir.OpDef{Name: "transform.util.import_symbol", Parse: parseImportSymbol})
	for _, name := range []string{"transform.util.cast_and_call", "transform.func.cast_and_call"} {
		r.RegisterOp(&ir.OpDef{Name: name, Parse: parseCastAndCall, NoTerminator: true})
	}
	r.RegisterOp(&ir.OpDef{Name: "transform.type_conversion.tensor.cast_shape_dynamic_dims", Parse: parseAttrDictOnly})
	r.RegisterOp(&ir.OpDef{Name: "transform.apply_dce", Parse: parseApplyDCE})
	r.RegisterOp(&ir.OpDef{Name: "transform.iree.match.cast_compatible_dag_from_root", Parse: parseDAGFromRoot, NoTerminator: true})
	r.RegisterOp(&ir.OpDef{Name: "transform.apply_registered_pass", Parse: parseApplyRegisteredPass})
	registerMatchers(r)
}

// parseNamedSequence parses `@name(%arg: type {attrs}, ...) [-> (types)]
// [attributes {...}] {body}`, the func.func form.
func parseNamedSequence(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	args, named, ft, argAttrs, err := function.ParseNameAndArguments(p, op)
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
	function.AppendArgResAttrs(op, argAttrs, resAttrs)
	if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
		return nil, err
	}
	_, err = function.ParseBody(p, op, args, named)
	return nil, err
}

// parseFunctionalType parses `[attr-dict] : (inputs) -> results`, gives
// the inputs' types to vs and returns the results.
func parseFunctionalType(p *ir.Parser, op *ir.Operation, vs []*ir.Value) ([]ir.Type, error) {
	t, pos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	ft, ok := t.(*ir.FunctionType)
	if !ok {
		return nil, ir.Errorf(pos, "expected a function type (operand types) -> (result types), found '%s'", ir.TypeString(t))
	}
	if err := p.ResolveTypes(vs, ft.Inputs, pos); err != nil {
		return nil, err
	}
	return ft.Results, nil
}

// parseOperandsFunctional parses `%a, ... : (types) -> types`.
func parseOperandsFunctional(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	op.Operands = vs
	return parseFunctionalType(p, op, vs)
}

// parseOperandsColonTypes parses `%a, ... [attr-dict] : types`, one type
// per operand, with no results.
func parseOperandsColonTypes(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if _, err := p.ParseColonTypesOf(vs); err != nil {
		return nil, err
	}
	op.Operands = vs
	return nil, nil
}

// parseStructuredMatch parses `ops{["a.b", ...]} in %h : (t) -> t`.
func parseStructuredMatch(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.OptionalKeyword("ops") {
		if err := p.Expect("{"); err != nil {
			return nil, err
		}
		names, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		if err := p.Expect("}"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "ops", Value: names})
	}
	if err := p.ExpectKeyword("in"); err != nil {
		return nil, err
	}
	return parseOperandsFunctional(p, op)
}

// parseForeach parses `%h, ... : types [-> types] {region}`.
func parseForeach(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if _, err := p.ParseColonTypesOf(vs); err != nil {
		return nil, err
	}
	op.Operands = vs
	var results []ir.Type
	if p.Optional("->") {
		if results, err = p.ParseFunctionResultTypes(); err != nil {
			return nil, err
		}
	}
	if _, err := p.ParseRegion(op, nil); err != nil {
		return nil, err
	}
	return results, nil
}

// parseForeachMatch parses `[restrict_root] [flatten_results] in %root,
// ... @matcher -> @action, ... [attr-dict] : (types) -> types`; the pairs
// become the matchers and actions arrays.
func parseForeachMatch(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	for _, kw := range []string{"restrict_root", "flatten_results"} {
		if p.OptionalKeyword(kw) {
			op.Attrs = append(op.Attrs, ir.NamedAttr{Name: kw, Value: ir.UnitAttr{}})
		}
	}
	if err := p.ExpectKeyword("in"); err != nil {
		return nil, err
	}
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	op.Operands = vs
	matchers, actions := &ir.ArrayAttr{}, &ir.ArrayAttr{}
	for {
		m, err := p.ParseSymbolRef()
		if err != nil {
			return nil, err
		}
		if err := p.Expect("->"); err != nil {
			return nil, err
		}
		a, err := p.ParseSymbolRef()
		if err != nil {
			return nil, err
		}
		matchers.Elems = append(matchers.Elems, m)
		actions.Elems = append(actions.Elems, a)
		if !p.Optional(",") {
			break
		}
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "matchers", Value: matchers}, ir.NamedAttr{Name: "actions", Value: actions})
	return parseFunctionalType(p, op, vs)
}

// parseImportSymbol parses `@sym into %table [if undefined] : (t) -> t`.
func parseImportSymbol(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	ref, err := p.ParseSymbolRef()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "symbol", Value: ref})
	if err := p.ExpectKeyword("into"); err != nil {
		return nil, err
	}
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	if p.OptionalKeyword("if") {
		if err := p.ExpectKeyword("undefined"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "if_undefined", Value: ir.UnitAttr{}})
	}
	return parseFunctionalType(p, op, op.Operands)
}

// parseCastAndCall parses `%func(%ins, ...) [-> %outs, ...] after|before
// %point [{conversions}] : (types) -> t`. The operands are the function,
// the inputs, the outputs and the insertion point; num_inputs and
// num_outputs count them, insert_after the keyword.
func parseCastAndCall(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var vs []*ir.Value
	if p.IsSymbol() {
		ref, err := p.ParseSymbolRef()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "function_name", Value: ref})
	} else {
		fn, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		vs = append(vs, fn)
	}
	var ins, outs []*ir.Value
	var err error
	if p.Is("(") {
		if ins, err = p.ParseDelimitedOperands("(", ")"); err != nil {
			return nil, err
		}
	}
	if p.Optional("->") {
		if outs, err = p.ParseOperandList(); err != nil {
			return nil, err
		}
	}
	after := p.OptionalKeyword("after")
	if !after {
		if err := p.ExpectKeyword("before"); err != nil {
			return nil, p.Errorf("expected 'after' or 'before' and the insertion point")
		}
	}
	point, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	vs = append(append(append(vs, ins...), outs...), point)
	op.Operands = vs
	op.Attrs = append(op.Attrs,
		ir.NamedAttr{Name: "num_inputs", Value: ir.IndexAttr(int64(len(ins)))},
		ir.NamedAttr{Name: "num_outputs", Value: ir.IndexAttr(int64(len(outs)))},
		ir.NamedAttr{Name: "insert_after", Value: ir.BoolAttr{Value: after}})
	if p.Is("{") {
		if _, err := p.ParseRegion(op, nil); err != nil {
			return nil, err
		}
	}
	return parseFunctionalType(p, op, vs)
}

// parseAttrDictOnly parses an optional attribute dictionary.
func parseAttrDictOnly(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	return nil, p.ParseOptionalAttrDict(op)
}

// parseApplyDCE parses `to %h : t`.
func parseApplyDCE(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ExpectKeyword("to"); err != nil {
		return nil, err
	}
	return parseOperandsColonTypes(p, op)
}

// parseDAGFromRoot parses `%root {pattern} : (t) -> (types)`.
func parseDAGFromRoot(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	if _, err := p.ParseRegion(op, nil); err != nil {
		return nil, err
	}
	return parseFunctionalType(p, op, op.Operands)
}
