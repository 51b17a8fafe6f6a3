package flow

import (
	"github.com/goiree/goiree/compiler/ir"
)

// This file holds the flow.tensor.* ops a program may use on the host:
// constants, shape ties, reshapes and bitcasts, element loads and stores,
// splats, clones, slices and updates, and empty tensors. Each keeps its operands in IREE's
// order with operandSegmentSizes where IREE has more than one variadic
// group, and its dynamic dimensions as `{%d, ...}` after each tensor type.

func registerTensorOps(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "flow.tensor.constant", Parse: parseTensorConstant, Print: printTensorConstant, Verify: verifyTensorConstant})
	r.RegisterOp(&ir.OpDef{Name: "flow.tensor.dynamic_constant", Parse: parseTensorConstant, Print: printTensorConstant, Verify: verifyTensorConstant})
	r.RegisterOp(&ir.OpDef{Name: "flow.tensor.tie_shape", Parse: parseTieShape, Print: printTieShape, Verify: verifyTieShape})
	for _, n := range []string{"flow.tensor.reshape", "flow.tensor.bitcast"} {
		r.RegisterOp(&ir.OpDef{Name: n, Parse: parseReshape, Print: printReshape, Verify: verifyReshape})
	}
	r.RegisterOp(&ir.OpDef{Name: "flow.tensor.load", Parse: parseTensorLoad, Print: printTensorLoad, Verify: verifyTensorLoad})
	r.RegisterOp(&ir.OpDef{Name: "flow.tensor.store", Parse: parseTensorStore, Print: printTensorStore, Verify: verifyTensorStore})
	r.RegisterOp(&ir.OpDef{Name: "flow.tensor.splat", Parse: parseSplat, Print: printOperandTypeWithDims, Verify: verifySplat})
	r.RegisterOp(&ir.OpDef{Name: "flow.tensor.clone", Parse: parseClone, Print: printOperandTypeWithDims, Verify: verifyClone})
	r.RegisterOp(&ir.OpDef{Name: "flow.tensor.slice", Parse: parseSlice, Print: printSlice, Verify: verifySlice})
	r.RegisterOp(&ir.OpDef{Name: "flow.tensor.update", Parse: parseUpdate, Print: printUpdate, Verify: verifyUpdate})
	for _, n := range []string{"flow.tensor.empty", "flow.tensor.alloca"} {
		r.RegisterOp(&ir.OpDef{Name: n, Parse: parseEmpty, Print: printEmpty, Verify: verifyEmpty})
	}
}

// tensorOf returns t as a ranked tensor type, or an error naming what.
func tensorOf(op *ir.Operation, t ir.Type, what string) (*ir.TensorType, error) {
	tt, ok := t.(*ir.TensorType)
	if !ok || tt.Unranked {
		return nil, ir.OpErrorf(op, "%s must be a ranked tensor, but got '%s'", what, ir.TypeString(t))
	}
	return tt, nil
}

// checkDims checks that dims supplies one index value per dynamic
// dimension of t.
func checkDims(op *ir.Operation, t ir.Type, dims []*ir.Value, what string) error {
	if n := ir.DynamicDimCount(t); n != len(dims) {
		return ir.OpErrorf(op, "%s type '%s' has %d dynamic dimensions but %d dimension values were given", what, ir.TypeString(t), n, len(dims))
	}
	for _, d := range dims {
		if _, ok := d.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "dimension value '%%%s' must be index, but got '%s'", d.Name, ir.TypeString(d.Type))
		}
	}
	return nil
}

// parseTypeWithDims parses `type{%d, ...}` (the braces only for dynamic
// types).
func parseTypeWithDims(p *ir.Parser) (ir.Type, []*ir.Value, error) {
	t, err := p.ParseType()
	if err != nil {
		return nil, nil, err
	}
	dims, err := p.ParseDynamicDims(t)
	return t, dims, err
}

func printTypeWithDims(p *ir.Printer, t ir.Type, dims []*ir.Value) {
	p.Type(t)
	p.DynamicDims(dims)
}

// parseColonTypeWithDims parses `: type{%d, ...}` and returns where the
// type began, so that an operand the type does not fit is reported there.
func parseColonTypeWithDims(p *ir.Parser) (ir.Type, []*ir.Value, ir.Pos, error) {
	if err := p.Expect(":"); err != nil {
		return nil, nil, ir.Pos{}, err
	}
	pos := p.Pos()
	t, dims, err := parseTypeWithDims(p)
	return t, dims, pos, err
}

// parsedElementType returns the element type of t, parsed at pos, for
// ops whose syntax names a tensor type but whose operand or result is
// one of its elements.
func parsedElementType(t ir.Type, pos ir.Pos) (ir.Type, error) {
	tt, ok := t.(*ir.TensorType)
	if !ok {
		return nil, ir.Errorf(pos, "expected a tensor type, found '%s'", ir.TypeString(t))
	}
	return tt.Elem, nil
}

// parseSourceResultTypes parses `: type{%d} -> type{%d}` after the source
// operand src, typing src by the first type.
func parseSourceResultTypes(p *ir.Parser, src *ir.Value) (sdims []*ir.Value, rt ir.Type, rdims []*ir.Value, err error) {
	st, sdims, tpos, err := parseColonTypeWithDims(p)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := p.ResolveType(src, st, tpos); err != nil {
		return nil, nil, nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, nil, nil, err
	}
	rt, rdims, err = parseTypeWithDims(p)
	return sdims, rt, rdims, err
}

// verifySourceResult checks what flow.tensor.reshape and flow.tensor.slice
// share: nseg valid operand segments with one source in segment 0 and its
// dynamic dimensions in segment 1, one result whose dynamic dimensions are
// segment rdimSeg, and both ranked tensors.
func verifySourceResult(op *ir.Operation, nseg, rdimSeg int) (st, rt *ir.TensorType, err error) {
	if err := ir.SegmentsValid(op, nseg); err != nil {
		return nil, nil, err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return nil, nil, err
	}
	if len(ir.Segment(op, 0)) != 1 {
		return nil, nil, ir.OpErrorf(op, "expects exactly one source operand")
	}
	if st, err = tensorOf(op, op.Operands[0].Type, "source"); err != nil {
		return nil, nil, err
	}
	if rt, err = tensorOf(op, op.Results[0].Type, "result"); err != nil {
		return nil, nil, err
	}
	if err := checkDims(op, st, ir.Segment(op, 1), "source"); err != nil {
		return nil, nil, err
	}
	if err := checkDims(op, rt, ir.Segment(op, rdimSeg), "result"); err != nil {
		return nil, nil, err
	}
	return st, rt, nil
}

// printOperandTypeWithDims prints ` %x : type{%d} attr-dict-with-keyword`,
// the form of flow.tensor.splat and flow.tensor.clone, whose result's
// dynamic dimensions follow the one value operand.
func printOperandTypeWithDims(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.WriteString(" : ")
	printTypeWithDims(p, op.Results[0].Type, op.Operands[1:])
	p.AttrDictWithKeyword(op)
}

// verifySameTypeWithDims checks flow.tensor.tie_shape and
// flow.tensor.clone: one operand typed as the ranked tensor result, then
// the result's dynamic dimensions (what names them in messages).
func verifySameTypeWithDims(op *ir.Operation, what string) error {
	if len(op.Operands) < 1 {
		return ir.OpErrorf(op, "expects an operand")
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if !ir.TypesEqual(op.Operands[0].Type, op.Results[0].Type) {
		return ir.OpErrorf(op, "failed to verify that all of {operand, result} have same type")
	}
	if _, err := tensorOf(op, op.Results[0].Type, "result"); err != nil {
		return err
	}
	return checkDims(op, op.Results[0].Type, op.Operands[1:], what)
}

// flow.tensor.constant attr-dict value                    (HEAD)
// flow.tensor.dynamic_constant attr-dict value -> type    (HEAD)
// flow.tensor.constant value attr-dict -> type            (Dec 2022)
//
// The Dec 2022 op, a constant the compiler may not fold whose result may
// erase static dimensions, is what HEAD calls flow.tensor.dynamic_constant,
// and reads as that.
func parseTensorConstant(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	vpos := p.Pos()
	v, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	if o, ok := v.(*ir.OpaqueAttr); ok && o.Type == nil && p.Is(":") {
		// A dialect attribute standing for tensor contents, typed by the
		// tensor: #flow.parameter.named<"scope"::"key"> : tensor<20xf32>.
		typed := *o
		if typed.Type, err = p.ParseColonType(); err != nil {
			return nil, err
		}
		v = &typed
	}
	vt := constantType(v)
	if vt == nil {
		return nil, ir.Errorf(vpos, "expected a tensor constant value (dense<...> : tensor<...>), found %s", ir.AttrString(v))
	}
	op.Attrs = append([]ir.NamedAttr{{Name: "value", Value: v}}, op.Attrs...)
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if !p.Optional("->") {
		if op.Name == "flow.tensor.dynamic_constant" {
			return nil, p.Errorf("expected '->' and the result type of flow.tensor.dynamic_constant")
		}
		return []ir.Type{vt}, nil
	}
	op.Name = "flow.tensor.dynamic_constant"
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printTensorConstant(p *ir.Printer, op *ir.Operation) {
	p.AttrDict(op, "value")
	p.WriteString(" ")
	if v := op.Attr("value"); v != nil {
		p.Attr(v)
	}
	if op.Name == "flow.tensor.dynamic_constant" {
		p.WriteString(" -> ")
		p.Type(op.Results[0].Type)
	}
}

func verifyTensorConstant(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 0); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	t := constantType(op.Attr("value"))
	if t == nil {
		return ir.OpErrorf(op, "requires a 'value' attribute of tensor type (dense<...> or a typed dialect attribute)")
	}
	rt, err := tensorOf(op, op.Results[0].Type, "result")
	if err != nil {
		return err
	}
	if op.Name == "flow.tensor.constant" {
		if !ir.TypesEqual(t, rt) {
			return ir.OpErrorf(op, "failed to verify that all of {value, result} have same type: value is '%s', result is '%s'", ir.TypeString(t), ir.TypeString(rt))
		}
		return nil
	}
	vt, ok := t.(*ir.TensorType)
	if !ok || len(vt.Shape) != len(rt.Shape) || !ir.TypesEqual(vt.Elem, rt.Elem) {
		return ir.OpErrorf(op, "value type '%s' is not compatible with result type '%s' (same rank and element type, dimensions static or dynamic)", ir.TypeString(t), ir.TypeString(rt))
	}
	for i, n := range rt.Shape {
		if n != ir.Dynamic && n != vt.Shape[i] {
			return ir.OpErrorf(op, "result dimension %d is %d but the value's is %d", i, n, vt.Shape[i])
		}
	}
	return nil
}

// constantType returns the tensor type of a constant's value: a dense
// attribute's, or a typed dialect attribute's; nil otherwise.
func constantType(a ir.Attribute) ir.Type {
	var t ir.Type
	switch a := a.(type) {
	case *ir.DenseAttr:
		t = a.Type
	case *ir.OpaqueAttr:
		t = a.Type
	}
	if _, ok := t.(*ir.TensorType); !ok {
		return nil
	}
	return t
}

// flow.tensor.tie_shape %x attr-dict : type{%d...}
func parseTieShape(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	t, dims, tpos, err := parseColonTypeWithDims(p)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(v, t, tpos); err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{v}, dims...)
	return []ir.Type{t}, nil
}

func printTieShape(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.AttrDict(op)
	p.WriteString(" : ")
	printTypeWithDims(p, op.Results[0].Type, op.Operands[1:])
}

func verifyTieShape(op *ir.Operation) error { return verifySameTypeWithDims(op, "result") }

// Reshape gives structured access to flow.tensor.reshape and
// flow.tensor.bitcast: operands source, source dims, result dims.
type Reshape struct{ Op *ir.Operation }

// Source returns the reshaped tensor.
func (r Reshape) Source() *ir.Value { return r.Op.Operands[0] }

// SourceDims returns the source's dynamic dimensions.
func (r Reshape) SourceDims() []*ir.Value { return ir.Segment(r.Op, 1) }

// ResultDims returns the result's dynamic dimensions.
func (r Reshape) ResultDims() []*ir.Value { return ir.Segment(r.Op, 2) }

// %src : type{%d} -> type{%d} attr-dict-with-keyword
func parseReshape(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	sdims, rt, rdims, err := parseSourceResultTypes(p, src)
	if err != nil {
		return nil, err
	}
	op.Operands = append(append([]*ir.Value{src}, sdims...), rdims...)
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(sdims), len(rdims))})
	return []ir.Type{rt}, p.ParseOptionalAttrDictWithKeyword(op)
}

func printReshape(p *ir.Printer, op *ir.Operation) {
	r := Reshape{op}
	p.WriteString(" ")
	p.Operand(r.Source())
	p.WriteString(" : ")
	printTypeWithDims(p, r.Source().Type, r.SourceDims())
	p.WriteString(" -> ")
	printTypeWithDims(p, op.Results[0].Type, r.ResultDims())
	p.AttrDictWithKeyword(op, "operandSegmentSizes", "operand_segment_sizes")
}

func verifyReshape(op *ir.Operation) error {
	st, rt, err := verifySourceResult(op, 3, 2)
	if err != nil {
		return err
	}
	if op.Name == "flow.tensor.reshape" {
		if !ir.TypesEqual(st.Elem, rt.Elem) {
			return ir.OpErrorf(op, "failed to verify that all of {source, result} have same element type: '%s' vs '%s'", ir.TypeString(st.Elem), ir.TypeString(rt.Elem))
		}
		if a, b := ir.NumElements(st), ir.NumElements(rt); a >= 0 && b >= 0 && a != b {
			return ir.OpErrorf(op, "source '%s' has %d elements but result '%s' has %d", ir.TypeString(st), a, ir.TypeString(rt), b)
		}
	}
	return nil
}

// TensorLoad gives structured access to flow.tensor.load: operands
// source, source dims, indices.
type TensorLoad struct{ Op *ir.Operation }

// Source returns the tensor read from.
func (l TensorLoad) Source() *ir.Value { return l.Op.Operands[0] }

// SourceDims returns the source's dynamic dimensions.
func (l TensorLoad) SourceDims() []*ir.Value { return ir.Segment(l.Op, 1) }

// Indices returns the element's indices (none for a rank-0 tensor).
func (l TensorLoad) Indices() []*ir.Value { return ir.Segment(l.Op, 2) }

// parseIndices parses an optional `[%i, ...]`, typing each value index.
func parseIndices(p *ir.Parser) ([]*ir.Value, error) {
	if !p.Is("[") {
		return nil, nil
	}
	pos := p.Pos()
	vs, err := p.ParseDelimitedOperands("[", "]")
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if err := p.ResolveType(v, ir.IndexType{}, pos); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

func printIndices(p *ir.Printer, vs []*ir.Value) {
	if len(vs) == 0 {
		return
	}
	p.WriteString("[")
	p.Operands(vs)
	p.WriteString("]")
}

// flow.tensor.load %src[%i...] : type{%d} attr-dict-with-keyword
func parseTensorLoad(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	idx, err := parseIndices(p)
	if err != nil {
		return nil, err
	}
	t, dims, tpos, err := parseColonTypeWithDims(p)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(src, t, tpos); err != nil {
		return nil, err
	}
	elem, err := parsedElementType(t, tpos)
	if err != nil {
		return nil, err
	}
	op.Operands = append(append([]*ir.Value{src}, dims...), idx...)
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(dims), len(idx))})
	return []ir.Type{elem}, p.ParseOptionalAttrDictWithKeyword(op)
}

func printTensorLoad(p *ir.Printer, op *ir.Operation) {
	l := TensorLoad{op}
	p.WriteString(" ")
	p.Operand(l.Source())
	printIndices(p, l.Indices())
	p.WriteString(" : ")
	printTypeWithDims(p, l.Source().Type, l.SourceDims())
	p.AttrDictWithKeyword(op, "operandSegmentSizes", "operand_segment_sizes")
}

// checkIndices checks one index value per dimension of t.
func checkIndices(op *ir.Operation, t *ir.TensorType, idx []*ir.Value) error {
	if len(idx) != len(t.Shape) {
		return ir.OpErrorf(op, "'%s' has rank %d but %d indices were given", ir.TypeString(t), len(t.Shape), len(idx))
	}
	for _, v := range idx {
		if _, ok := v.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "index '%%%s' must be index, but got '%s'", v.Name, ir.TypeString(v.Type))
		}
	}
	return nil
}

func verifyTensorLoad(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 3); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	l := TensorLoad{op}
	st, err := tensorOf(op, l.Source().Type, "source")
	if err != nil {
		return err
	}
	if err := checkDims(op, st, l.SourceDims(), "source"); err != nil {
		return err
	}
	if err := checkIndices(op, st, l.Indices()); err != nil {
		return err
	}
	if !ir.TypesEqual(op.Results[0].Type, st.Elem) {
		return ir.OpErrorf(op, "result type '%s' does not match the element type of '%s'", ir.TypeString(op.Results[0].Type), ir.TypeString(st))
	}
	return nil
}

// TensorStore gives structured access to flow.tensor.store: operands
// value, target, target dims, indices.
type TensorStore struct{ Op *ir.Operation }

// Value returns the stored element.
func (s TensorStore) Value() *ir.Value { return s.Op.Operands[0] }

// Target returns the tensor written to.
func (s TensorStore) Target() *ir.Value { return s.Op.Operands[1] }

// TargetDims returns the target's dynamic dimensions.
func (s TensorStore) TargetDims() []*ir.Value { return ir.Segment(s.Op, 2) }

// Indices returns the element's indices.
func (s TensorStore) Indices() []*ir.Value { return ir.Segment(s.Op, 3) }

// flow.tensor.store %v, %target[%i...] : type{%d} attr-dict-with-keyword
func parseTensorStore(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	target, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	idx, err := parseIndices(p)
	if err != nil {
		return nil, err
	}
	t, dims, tpos, err := parseColonTypeWithDims(p)
	if err != nil {
		return nil, err
	}
	elem, err := parsedElementType(t, tpos)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveTypes([]*ir.Value{v, target}, []ir.Type{elem, t}, tpos); err != nil {
		return nil, err
	}
	op.Operands = append(append([]*ir.Value{v, target}, dims...), idx...)
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, len(dims), len(idx))})
	return []ir.Type{t}, p.ParseOptionalAttrDictWithKeyword(op)
}

func printTensorStore(p *ir.Printer, op *ir.Operation) {
	s := TensorStore{op}
	p.WriteString(" ")
	p.Operand(s.Value())
	p.WriteString(", ")
	p.Operand(s.Target())
	printIndices(p, s.Indices())
	p.WriteString(" : ")
	printTypeWithDims(p, s.Target().Type, s.TargetDims())
	p.AttrDictWithKeyword(op, "operandSegmentSizes", "operand_segment_sizes")
}

func verifyTensorStore(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 4); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	s := TensorStore{op}
	tt, err := tensorOf(op, s.Target().Type, "target")
	if err != nil {
		return err
	}
	if !ir.TypesEqual(op.Results[0].Type, tt) {
		return ir.OpErrorf(op, "failed to verify that all of {target, result} have same type")
	}
	if !ir.TypesEqual(s.Value().Type, tt.Elem) {
		return ir.OpErrorf(op, "value type '%s' does not match the element type of '%s'", ir.TypeString(s.Value().Type), ir.TypeString(tt))
	}
	if err := checkDims(op, tt, s.TargetDims(), "target"); err != nil {
		return err
	}
	return checkIndices(op, tt, s.Indices())
}

// flow.tensor.splat %v : type{%d} attr-dict-with-keyword
func parseSplat(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	t, dims, tpos, err := parseColonTypeWithDims(p)
	if err != nil {
		return nil, err
	}
	elem, err := parsedElementType(t, tpos)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(v, elem, tpos); err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{v}, dims...)
	return []ir.Type{t}, p.ParseOptionalAttrDictWithKeyword(op)
}

func verifySplat(op *ir.Operation) error {
	if len(op.Operands) < 1 {
		return ir.OpErrorf(op, "expects a value operand")
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	tt, err := tensorOf(op, op.Results[0].Type, "result")
	if err != nil {
		return err
	}
	if !ir.TypesEqual(op.Operands[0].Type, tt.Elem) {
		return ir.OpErrorf(op, "value type '%s' does not match the element type of '%s'", ir.TypeString(op.Operands[0].Type), ir.TypeString(tt))
	}
	return checkDims(op, tt, op.Operands[1:], "result")
}

// flow.tensor.clone %x : type{%d} attr-dict-with-keyword
func parseClone(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	t, dims, tpos, err := parseColonTypeWithDims(p)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(v, t, tpos); err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{v}, dims...)
	return []ir.Type{t}, p.ParseOptionalAttrDictWithKeyword(op)
}

func verifyClone(op *ir.Operation) error { return verifySameTypeWithDims(op, "operand") }

// flow.tensor.empty : type{%d} attr-dict-with-keyword (and flow.tensor.alloca)
func parseEmpty(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	t, dims, err := parseTypeWithDims(p)
	if err != nil {
		return nil, err
	}
	op.Operands = dims
	return []ir.Type{t}, p.ParseOptionalAttrDictWithKeyword(op)
}

func printEmpty(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" : ")
	printTypeWithDims(p, op.Results[0].Type, op.Operands)
	p.AttrDictWithKeyword(op)
}

func verifyEmpty(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if _, err := tensorOf(op, op.Results[0].Type, "result"); err != nil {
		return err
	}
	return checkDims(op, op.Results[0].Type, op.Operands, "result")
}

// Slice gives structured access to flow.tensor.slice: operands source,
// source dims, start indices, lengths, result dims.
type Slice struct{ Op *ir.Operation }

// Source returns the sliced tensor.
func (s Slice) Source() *ir.Value { return s.Op.Operands[0] }

// SourceDims returns the source's dynamic dimensions.
func (s Slice) SourceDims() []*ir.Value { return ir.Segment(s.Op, 1) }

// StartIndices returns the slice's offsets, one per dimension.
func (s Slice) StartIndices() []*ir.Value { return ir.Segment(s.Op, 2) }

// Lengths returns the slice's sizes, one per dimension.
func (s Slice) Lengths() []*ir.Value { return ir.Segment(s.Op, 3) }

// ResultDims returns the result's dynamic dimensions.
func (s Slice) ResultDims() []*ir.Value { return ir.Segment(s.Op, 4) }

// parseIndexList parses `%a, %b` up to (not including) a keyword or `]`,
// typing each value index.
func parseIndexList(p *ir.Parser) ([]*ir.Value, error) {
	pos := p.Pos()
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if err := p.ResolveType(v, ir.IndexType{}, pos); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// flow.tensor.slice %src[%i... for %l...] : type{%d} -> type{%d} attr-dict-with-keyword
func parseSlice(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	starts, err := parseIndexList(p)
	if err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("for"); err != nil {
		return nil, err
	}
	lengths, err := parseIndexList(p)
	if err != nil {
		return nil, err
	}
	if err := p.Expect("]"); err != nil {
		return nil, err
	}
	sdims, rt, rdims, err := parseSourceResultTypes(p, src)
	if err != nil {
		return nil, err
	}
	op.Operands = append(append(append(append([]*ir.Value{src}, sdims...), starts...), lengths...), rdims...)
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(sdims), len(starts), len(lengths), len(rdims))})
	return []ir.Type{rt}, p.ParseOptionalAttrDictWithKeyword(op)
}

func printSlice(p *ir.Printer, op *ir.Operation) {
	s := Slice{op}
	p.WriteString(" ")
	p.Operand(s.Source())
	p.WriteString("[")
	p.Operands(s.StartIndices())
	p.WriteString(" for ")
	p.Operands(s.Lengths())
	p.WriteString("] : ")
	printTypeWithDims(p, s.Source().Type, s.SourceDims())
	p.WriteString(" -> ")
	printTypeWithDims(p, op.Results[0].Type, s.ResultDims())
	p.AttrDictWithKeyword(op, "operandSegmentSizes", "operand_segment_sizes")
}

func verifySlice(op *ir.Operation) error {
	st, rt, err := verifySourceResult(op, 5, 4)
	if err != nil {
		return err
	}
	s := Slice{op}
	if len(s.StartIndices()) != len(st.Shape) || len(s.Lengths()) != len(st.Shape) {
		return ir.OpErrorf(op, "'%s' has rank %d but %d start indices and %d lengths were given", ir.TypeString(st), len(st.Shape), len(s.StartIndices()), len(s.Lengths()))
	}
	if len(rt.Shape) != len(st.Shape) || !ir.TypesEqual(st.Elem, rt.Elem) {
		return ir.OpErrorf(op, "result '%s' must have the rank and element type of the source '%s'", ir.TypeString(rt), ir.TypeString(st))
	}
	return nil
}

// Update gives structured access to flow.tensor.update: operands target,
// target dims, start indices, update, update dims; the result is the
// target with the update written at the start indices.
type Update struct{ Op *ir.Operation }

// Target returns the tensor written into.
func (u Update) Target() *ir.Value { return u.Op.Operands[0] }

// TargetDims returns the target's dynamic dimensions.
func (u Update) TargetDims() []*ir.Value { return ir.Segment(u.Op, 1) }

// StartIndices returns where the update goes, one index per dimension.
func (u Update) StartIndices() []*ir.Value { return ir.Segment(u.Op, 2) }

// Value returns the tensor written.
func (u Update) Value() *ir.Value {
	if vs := ir.Segment(u.Op, 3); len(vs) == 1 {
		return vs[0]
	}
	return nil
}

// UpdateDims returns the update's dynamic dimensions.
func (u Update) UpdateDims() []*ir.Value { return ir.Segment(u.Op, 4) }

// flow.tensor.update %update, %target[%i...] : type{%d} -> %target as type{%d} attr-dict-with-keyword
func parseUpdate(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	upd, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	target, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	starts, err := parseIndexList(p)
	if err != nil {
		return nil, err
	}
	if err := p.Expect("]"); err != nil {
		return nil, err
	}
	ut, udims, tpos, err := parseColonTypeWithDims(p)
	if err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	if p.IsValueID() {
		// The result names the target it is tied to: `%target as type`.
		if _, _, err := p.ParseValueName(); err != nil {
			return nil, err
		}
		if err := p.ExpectKeyword("as"); err != nil {
			return nil, err
		}
	}
	rpos := p.Pos()
	rt, tdims, err := parseTypeWithDims(p)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(upd, ut, tpos); err != nil {
		return nil, err
	}
	if err := p.ResolveType(target, rt, rpos); err != nil {
		return nil, err
	}
	op.Operands = append(append(append(append([]*ir.Value{target}, tdims...), starts...), upd), udims...)
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(tdims), len(starts), 1, len(udims))})
	return []ir.Type{rt}, p.ParseOptionalAttrDictWithKeyword(op)
}

func printUpdate(p *ir.Printer, op *ir.Operation) {
	u := Update{op}
	p.WriteString(" ")
	if v := u.Value(); v != nil {
		p.Operand(v)
		p.WriteString(", ")
	}
	p.Operand(u.Target())
	p.WriteString("[")
	p.Operands(u.StartIndices())
	p.WriteString("] : ")
	if v := u.Value(); v != nil {
		printTypeWithDims(p, v.Type, u.UpdateDims())
	}
	p.WriteString(" -> ")
	p.Operand(u.Target())
	p.WriteString(" as ")
	printTypeWithDims(p, op.Results[0].Type, u.TargetDims())
	p.AttrDictWithKeyword(op, "operandSegmentSizes", "operand_segment_sizes")
}

func verifyUpdate(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 5); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	u := Update{op}
	if len(ir.Segment(op, 0)) != 1 || u.Value() == nil {
		return ir.OpErrorf(op, "expects exactly one target and one update operand")
	}
	tt, err := tensorOf(op, u.Target().Type, "target")
	if err != nil {
		return err
	}
	ut, err := tensorOf(op, u.Value().Type, "update")
	if err != nil {
		return err
	}
	if !ir.TypesEqual(op.Results[0].Type, tt) {
		return ir.OpErrorf(op, "failed to verify that all of {target, result} have same type")
	}
	if err := checkDims(op, tt, u.TargetDims(), "target"); err != nil {
		return err
	}
	if err := checkDims(op, ut, u.UpdateDims(), "update"); err != nil {
		return err
	}
	if len(u.StartIndices()) != len(tt.Shape) {
		return ir.OpErrorf(op, "'%s' has rank %d but %d start indices were given", ir.TypeString(tt), len(tt.Shape), len(u.StartIndices()))
	}
	if len(ut.Shape) != len(tt.Shape) || !ir.TypesEqual(ut.Elem, tt.Elem) {
		return ir.OpErrorf(op, "update '%s' must have the rank and element type of the target '%s'", ir.TypeString(ut), ir.TypeString(tt))
	}
	return nil
}
