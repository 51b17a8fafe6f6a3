package transform

import (
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
)

// This file holds the matcher ops that test one op's properties: its name,
// its structured (linalg) shape, its operands' types and its regions.

func registerMatchers(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "transform.match.operation_name", Parse: parseOperationName})
	r.RegisterOp(&ir.OpDef{Name: "transform.match.structured", Parse: parseMatchStructured})
	r.RegisterOp(ir.ReturnLikeOp("transform.match.structured.yield", nil))
	for _, name := range []string{"transform.match.structured.rank", "transform.match.structured.num_inputs", "transform.match.structured.num_inits"} {
		r.RegisterOp(&ir.OpDef{Name: name, Parse: parseOperandsFunctional})
	}
	r.RegisterOp(&ir.OpDef{Name: "transform.match.structured.dim", Parse: parseStructuredDim})
	r.RegisterOp(&ir.OpDef{Name: "transform.param.constant", Parse: parseParamConstant})
	r.RegisterOp(&ir.OpDef{Name: "transform.match.param.cmpi", Parse: parseCmpi})
	for _, name := range []string{"transform.get_operand", "transform.get_result"} {
		r.RegisterOp(&ir.OpDef{Name: name, Parse: parseIndexed})
	}
	r.RegisterOp(&ir.OpDef{Name: "transform.iree.match.cast_compatible_type", Parse: parseCastCompatibleType})
	r.RegisterOp(&ir.OpDef{Name: "transform.iree.match.dim_is_multiple_of", Parse: parseDimIsMultipleOf})
	r.RegisterOp(&ir.OpDef{Name: "transform.iree.match.regions", Parse: parseMatchRegions, NoTerminator: true})
}

// parseOperationName parses `%h ["a.b", ...] : t`.
func parseOperationName(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	names, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "op_names", Value: names})
	return parseOperandsTail(p, op, v)
}

// parseOperandsTail finishes `... [attr-dict] : t` for the single operand v.
func parseOperandsTail(p *ir.Parser, op *ir.Operation, v *ir.Value) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if _, err := p.ParseColonTypesOf([]*ir.Value{v}); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	return nil, nil
}

// parseMatchStructured parses `[failures(propagate|suppress)] %h :
// (t) -> (types) {body}`.
func parseMatchStructured(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.OptionalKeyword("failures") {
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		mode, err := p.ParseKeyword()
		if err != nil {
			return nil, err
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "failure_propagation_mode", Value: ir.StringAttr{Value: mode}})
	}
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	results, err := parseFunctionalType(p, op, op.Operands)
	if err != nil {
		return nil, err
	}
	if _, err := p.ParseRegion(op, nil); err != nil {
		return nil, err
	}
	return results, nil
}

// parseStructuredDim parses `%h[d, ...] [{parallel|reduction}] : t [-> t]`
// (dimensions may be negative, counted from the last).
func parseStructuredDim(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	dims, err := parseIndexList(p)
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "raw_dim_list", Value: dims})
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if _, err := p.ParseColonTypesOf([]*ir.Value{v}); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	if p.Optional("->") {
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		return []ir.Type{t}, nil
	}
	return nil, nil
}

// parseIndexList parses `[i, ...]` of possibly negative integers.
func parseIndexList(p *ir.Parser) (*ir.ArrayAttr, error) {
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	out := &ir.ArrayAttr{}
	for !p.Is("]") {
		neg := p.Optional("-")
		n, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		if neg {
			n = -n
		}
		out.Elems = append(out.Elems, ir.IntegerAttr{Value: n, Type: ir.IntegerType{Width: 64}})
		if !p.Optional(",") {
			break
		}
	}
	return out, p.Expect("]")
}

// parseParamConstant parses `value [: type] -> t`.
func parseParamConstant(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "value", Value: v})
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

// parseCmpi parses `pred %a, %b : t`.
func parseCmpi(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	pred, err := p.ParseKeyword()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "predicate", Value: ir.StringAttr{Value: pred}})
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if len(vs) != 2 {
		return nil, p.Errorf("transform.match.param.cmpi takes two operands, found %d", len(vs))
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if err := p.ResolveType(v, t, p.Pos()); err != nil {
			return nil, err
		}
	}
	op.Operands = vs
	return nil, nil
}

// parseIndexed parses `%h[i, ...] : (t) -> t`.
func parseIndexed(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	idx, err := parseIndexList(p)
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "raw_position_list", Value: idx})
	op.Operands = []*ir.Value{v}
	return parseFunctionalType(p, op, op.Operands)
}

// parseCastCompatibleType parses `%v = type : t`.
func parseCastCompatibleType(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect("="); err != nil {
		return nil, err
	}
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "type", Value: ir.TypeAttr{Type: t}})
	return parseOperandsTail(p, op, v)
}

// parseDimIsMultipleOf parses `%v[dim], n : t`.
func parseDimIsMultipleOf(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	dims, err := parseIndexList(p)
	if err != nil {
		return nil, err
	}
	if len(dims.Elems) != 1 {
		return nil, p.Errorf("expected one dimension index")
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	n, err := p.ParseInteger()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "dim", Value: dims.Elems[0]}, ir.NamedAttr{Name: "size", Value: ir.IndexAttr(n)})
	return parseOperandsTail(p, op, v)
}

// parseMatchRegions parses `%h : t {pattern}`.
func parseMatchRegions(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if _, err := parseOperandsTail(p, op, v); err != nil {
		return nil, err
	}
	_, err = p.ParseRegion(op, nil)
	return nil, err
}

// matchOp interprets the matcher ops; ok is false for ops that are not
// matchers.
func (in *interp) matchOp(op *ir.Operation, env map[*ir.Value]handle) (results []handle, ok bool, err error) {
	arg := func(i int) handle { return env[op.Operands[i]] }
	one := func() (*ir.Operation, error) {
		ops := arg(0).ops
		if len(ops) != 1 {
			return nil, ir.OpErrorf(op, "%s expects one payload op, found %d", op.Name, len(ops))
		}
		return ops[0], nil
	}
	oneValue := func() (*ir.Value, error) {
		vs := arg(0).values
		if len(vs) != 1 {
			return nil, ir.OpErrorf(op, "%s expects one payload value, found %d", op.Name, len(vs))
		}
		return vs[0], nil
	}
	intParam := func(i int) (int64, error) {
		ps := arg(i).params
		if len(ps) != 1 {
			return 0, ir.OpErrorf(op, "operand #%d holds %d parameters, expected one", i, len(ps))
		}
		n, isInt := ps[0].(ir.IntegerAttr)
		if !isInt {
			return 0, ir.OpErrorf(op, "operand #%d holds %s, not an integer", i, ir.AttrString(ps[0]))
		}
		return n.Value, nil
	}
	switch op.Name {
	case "transform.match.operation_name":
		names, _ := op.Attr("op_names").(*ir.ArrayAttr)
		for _, o := range arg(0).ops {
			found := false
			for _, n := range names.Elems {
				if s, isStr := n.(ir.StringAttr); isStr && s.Value == preprocessingName(o) {
					found = true
				}
			}
			if !found {
				return nil, true, noMatch(op, "%s is not one of %s", o.Name, ir.AttrString(names))
			}
		}
		return nil, true, nil
	case "transform.match.structured":
		o, err := one()
		if err != nil {
			return nil, true, err
		}
		if _, err := linalg.DefinitionOf(o); err != nil {
			return nil, true, noMatch(op, "%s is not a structured op", o.Name)
		}
		body := op.Regions[0].Blocks[0]
		inner := maps(env)
		inner[body.Args[0]] = handle{ops: []*ir.Operation{o}}
		for _, b := range body.Ops {
			if b.Name == "transform.match.structured.yield" {
				out := make([]handle, len(b.Operands))
				for i, v := range b.Operands {
					out[i] = inner[v]
				}
				return out, true, nil
			}
			res, err := in.op(b, inner)
			if err != nil {
				return nil, true, err
			}
			for i, r := range b.Results {
				if i < len(res) {
					inner[r] = res[i]
				}
			}
		}
		return nil, true, ir.OpErrorf(op, "the body has no transform.match.structured.yield")
	case "transform.match.structured.rank", "transform.match.structured.num_inputs", "transform.match.structured.num_inits", "transform.match.structured.dim":
		o, err := one()
		if err != nil {
			return nil, true, err
		}
		def, err := linalg.DefinitionOf(o)
		if err != nil {
			return nil, true, noMatch(op, "%s is not a structured op", o.Name)
		}
		var n int
		switch op.Name {
		case "transform.match.structured.rank":
			n = def.NumLoops()
		case "transform.match.structured.num_inputs":
			n = len(linalg.Ins(o))
		case "transform.match.structured.num_inits":
			n = len(linalg.Outs(o))
		default:
			if len(op.Results) > 0 {
				return nil, true, ir.OpErrorf(op, "transform.match.structured.dim with a result is not supported")
			}
			dims, _ := op.Attr("raw_dim_list").(*ir.ArrayAttr)
			for _, d := range dims.Elems {
				i := int(d.(ir.IntegerAttr).Value)
				if i < 0 {
					i += def.NumLoops()
				}
				if i < 0 || i >= def.NumLoops() {
					return nil, true, noMatch(op, "dimension %d is out of the op's %d loops", d.(ir.IntegerAttr).Value, def.NumLoops())
				}
				for _, kind := range []string{linalg.Parallel, linalg.Reduction} {
					if op.HasAttr(kind) && def.Iterators[i] != kind {
						return nil, true, noMatch(op, "loop %d is %s, not %s", i, def.Iterators[i], kind)
					}
				}
			}
			return nil, true, nil
		}
		return []handle{{params: []ir.Attribute{ir.IntegerAttr{Value: int64(n), Type: ir.IntegerType{Width: 64}}}}}, true, nil
	case "transform.param.constant":
		return []handle{{params: []ir.Attribute{op.Attr("value")}}}, true, nil
	case "transform.match.param.cmpi":
		a, err := intParam(0)
		if err != nil {
			return nil, true, err
		}
		b, err := intParam(1)
		if err != nil {
			return nil, true, err
		}
		pred := op.Attr("predicate").(ir.StringAttr).Value
		var holds bool
		switch pred {
		case "eq":
			holds = a == b
		case "ne":
			holds = a != b
		case "lt":
			holds = a < b
		case "le":
			holds = a <= b
		case "gt":
			holds = a > b
		case "ge":
			holds = a >= b
		default:
			return nil, true, ir.OpErrorf(op, "unknown predicate %q (eq, ne, lt, le, gt, ge)", pred)
		}
		if !holds {
			return nil, true, noMatch(op, "%d %s %d does not hold", a, pred, b)
		}
		return nil, true, nil
	case "transform.get_operand", "transform.get_result":
		o, err := one()
		if err != nil {
			return nil, true, err
		}
		list := o.Operands
		if op.Name == "transform.get_result" {
			list = o.Results
		}
		var out handle
		for _, p := range op.Attr("raw_position_list").(*ir.ArrayAttr).Elems {
			i := int(p.(ir.IntegerAttr).Value)
			if i < 0 || i >= len(list) {
				return nil, true, noMatch(op, "%s has no #%d", o.Name, i)
			}
			out.values = append(out.values, list[i])
		}
		return []handle{out}, true, nil
	case "transform.iree.match.cast_compatible_type":
		v, err := oneValue()
		if err != nil {
			return nil, true, err
		}
		want := op.Attr("type").(ir.TypeAttr).Type
		if !castCompatible(v.Type, want) {
			return nil, true, noMatch(op, "%s is not cast compatible with %s", ir.TypeString(v.Type), ir.TypeString(want))
		}
		return nil, true, nil
	case "transform.iree.match.dim_is_multiple_of":
		v, err := oneValue()
		if err != nil {
			return nil, true, err
		}
		st, isShaped := v.Type.(ir.ShapedType)
		d := int(op.Attr("dim").(ir.IntegerAttr).Value)
		size, _ := op.IntAttr("size")
		if !isShaped || d < 0 || d >= len(st.ShapeDims()) {
			return nil, true, noMatch(op, "%s has no dimension %d", ir.TypeString(v.Type), d)
		}
		// A dynamic size's divisibility would need an analysis of its
		// producers; it does not match.
		if n := st.ShapeDims()[d]; n == ir.Dynamic || size <= 0 || n%size != 0 {
			return nil, true, noMatch(op, "dimension %d of %s is not known to be a multiple of %d", d, ir.TypeString(v.Type), size)
		}
		return nil, true, nil
	case "transform.iree.match.regions":
		o, err := one()
		if err != nil {
			return nil, true, err
		}
		pat := op.Regions[0].Blocks[0].Ops
		if len(pat) != 1 {
			return nil, true, ir.OpErrorf(op, "the pattern must hold one op, found %d", len(pat))
		}
		if !sameRegions(pat[0], o, map[*ir.Value]*ir.Value{}, nil) {
			return nil, true, noMatch(op, "the regions of %s differ from the pattern's", o.Name)
		}
		return nil, true, nil
	}
	return nil, false, nil
}
