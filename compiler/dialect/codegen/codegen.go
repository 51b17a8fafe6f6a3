// Package codegen registers the iree_codegen ops that custom dispatch
// shims use: iree_codegen.extract_strided_metadata, and
// iree_codegen.ukernel.generic, the call of a named microkernel (IREE's
// ukernel samples dispatch plugin functions with it).
package codegen

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the iree_codegen ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "iree_codegen.extract_strided_metadata", Parse: parseESM, Print: printESM, Verify: verifyESM})
	r.RegisterOp(&ir.OpDef{Name: "iree_codegen.ukernel.generic", Parse: parseUKernel, Print: printUKernel, Verify: verifyUKernel})
}

func parseESM(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
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
	if err := p.ResolveType(v, t, tpos); err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	return ts, nil
}

func printESM(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Type(op.Operands[0].Type)
	p.WriteString(" -> ")
	var ts []ir.Type
	for _, r := range op.Results {
		ts = append(ts, r.Type)
	}
	p.Types(ts)
}

func verifyESM(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	m, ok := op.Operands[0].Type.(*ir.MemRefType)
	if !ok {
		return ir.OpErrorf(op, "operand must be a memref, found '%s'", ir.TypeString(op.Operands[0].Type))
	}
	rank := len(m.Shape)
	if want := 2 + 2*rank; len(op.Results) != want {
		return ir.OpErrorf(op, "a rank-%d memref yields %d results (base, offset, sizes, strides), found %d", rank, want, len(op.Results))
	}
	base, ok := op.Results[0].Type.(*ir.MemRefType)
	if !ok || len(base.Shape) != 0 || !ir.TypesEqual(base.Elem, m.Elem) {
		return ir.OpErrorf(op, "base result must be a rank-0 memref of '%s'", ir.TypeString(m.Elem))
	}
	for i, r := range op.Results[1:] {
		if _, ok := r.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "result #%d must be index, found '%s'", i+1, ir.TypeString(r.Type))
		}
	}
	return nil
}

// UKernel gives structured access to an iree_codegen.ukernel.generic:
// operand segments ins, outs and other operands.
type UKernel struct{ Op *ir.Operation }

// Name returns the microkernel's function name.
func (u UKernel) Name() string {
	s, _ := u.Op.Attr("u_kernel_fn_name").(ir.StringAttr)
	return s.Value
}

// Inputs returns the ins operands.
func (u UKernel) Inputs() []*ir.Value { return ir.Segment(u.Op, 0) }

// Outputs returns the outs operands (the destinations).
func (u UKernel) Outputs() []*ir.Value { return ir.Segment(u.Op, 1) }

// Others returns the trailing scalar operands.
func (u UKernel) Others() []*ir.Value { return ir.Segment(u.Op, 2) }

// parseTypedGroup parses `(%a, %b : t1, t2)` after its keyword.
func parseTypedGroup(p *ir.Parser) ([]*ir.Value, error) {
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	tpos := p.Pos()
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveTypes(vs, ts, tpos); err != nil {
		return nil, err
	}
	return vs, p.Expect(")")
}

// parseUKernel parses IREE's declarative format:
//
//	attr-dict "name" (ins(...: ...))? (outs(...: ...))? ((...: ...))?
//	(fn_def_attrs {...})? (strided_dims([[...], ...]))? (-> types)?
func parseUKernel(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	name, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "u_kernel_fn_name", Value: ir.StringAttr{Value: name}})
	var groups [3][]*ir.Value
	if p.OptionalKeyword("ins") {
		if groups[0], err = parseTypedGroup(p); err != nil {
			return nil, err
		}
	}
	if p.OptionalKeyword("outs") {
		if groups[1], err = parseTypedGroup(p); err != nil {
			return nil, err
		}
	}
	if p.Is("(") {
		if groups[2], err = parseTypedGroup(p); err != nil {
			return nil, err
		}
	}
	if p.OptionalKeyword("fn_def_attrs") {
		d, err := p.ParseDictionary()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "fn_def_attrs", Value: d})
	}
	if p.OptionalKeyword("strided_dims") {
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		a, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "strided_dims", Value: a})
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
	}
	var results []ir.Type
	if p.Optional("->") {
		if results, err = p.ParseTypeList(); err != nil {
			return nil, err
		}
	}
	for _, g := range groups {
		op.Operands = append(op.Operands, g...)
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(groups[0]), len(groups[1]), len(groups[2]))})
	return results, nil
}

func printTypedGroup(p *ir.Printer, kw string, vs []*ir.Value) {
	if len(vs) == 0 {
		return
	}
	p.WriteString(" " + kw + "(")
	p.Operands(vs)
	p.WriteString(" : ")
	ts := make([]ir.Type, len(vs))
	for i, v := range vs {
		ts[i] = v.Type
	}
	p.Types(ts)
	p.WriteString(")")
}

func printUKernel(p *ir.Printer, op *ir.Operation) {
	u := UKernel{op}
	p.AttrDict(op, "u_kernel_fn_name", "fn_def_attrs", "strided_dims", "operandSegmentSizes")
	p.WriteString(" " + ir.QuoteString(u.Name()))
	printTypedGroup(p, "ins", u.Inputs())
	printTypedGroup(p, "outs", u.Outputs())
	printTypedGroup(p, "", u.Others())
	if d := op.Attr("fn_def_attrs"); d != nil {
		p.WriteString(" fn_def_attrs ")
		p.Attr(d)
	}
	if a := op.Attr("strided_dims"); a != nil {
		p.WriteString(" strided_dims(")
		p.Attr(a)
		p.WriteString(")")
	}
	if len(op.Results) > 0 {
		p.WriteString(" -> ")
		ts := make([]ir.Type, len(op.Results))
		for i, v := range op.Results {
			ts[i] = v.Type
		}
		p.Types(ts)
	}
}

// verifyUKernel checks the destination-style contract: one result per
// tensor destination, of the destination's type, and none for memref
// destinations; strided_dims, when given, has a list per ins and outs
// operand.
func verifyUKernel(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 3); err != nil {
		return err
	}
	u := UKernel{op}
	if s, ok := op.Attr("u_kernel_fn_name").(ir.StringAttr); !ok || s.Value == "" {
		return ir.OpErrorf(op, "requires a non-empty 'u_kernel_fn_name' string attribute")
	}
	var tensors []*ir.Value
	for i, v := range u.Outputs() {
		switch v.Type.(type) {
		case *ir.TensorType:
			tensors = append(tensors, v)
		case *ir.MemRefType:
		default:
			return ir.OpErrorf(op, "outs operand #%d must be a ranked tensor or memref, found '%s'", i, ir.TypeString(v.Type))
		}
	}
	if len(tensors) != len(op.Results) {
		return ir.OpErrorf(op, "has %d tensor outs operands but %d results; each tensor destination gives one result", len(tensors), len(op.Results))
	}
	for i, v := range tensors {
		if !ir.TypesEqual(v.Type, op.Results[i].Type) {
			return ir.OpErrorf(op, "result #%d has type '%s' but its destination has type '%s'", i, ir.TypeString(op.Results[i].Type), ir.TypeString(v.Type))
		}
	}
	if a := op.Attr("fn_def_attrs"); a != nil {
		if _, ok := a.(*ir.DictAttr); !ok {
			return ir.OpErrorf(op, "'fn_def_attrs' must be a dictionary, found %s", ir.AttrString(a))
		}
	}
	if a := op.Attr("strided_dims"); a != nil {
		arr, ok := a.(*ir.ArrayAttr)
		if !ok {
			return ir.OpErrorf(op, "'strided_dims' must be an array of index lists, found %s", ir.AttrString(a))
		}
		if n := len(u.Inputs()) + len(u.Outputs()); len(arr.Elems) != n {
			return ir.OpErrorf(op, "'strided_dims' has %d lists but the op has %d ins and outs operands", len(arr.Elems), n)
		}
		for _, e := range arr.Elems {
			if _, ok := e.(*ir.ArrayAttr); !ok {
				return ir.OpErrorf(op, "'strided_dims' must be an array of index lists, found %s", ir.AttrString(e))
			}
		}
	}
	return nil
}
