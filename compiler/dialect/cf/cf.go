// Package cf registers MLIR's control-flow dialect: the unstructured
// branches cf.br, cf.cond_br and cf.switch, and cf.assert. Their successors
// are kept in Operation.Successors and their operands in MLIR's generic
// order, with operandSegmentSizes where MLIR has it.
package cf

import (
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the cf ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "cf.br", Parse: parseBr, Print: printBr, Verify: verifyBr})
	r.RegisterOp(&ir.OpDef{Name: "cf.cond_br", Parse: parseCondBr, Print: printCondBr, Verify: verifyCondBr})
	r.RegisterOp(&ir.OpDef{Name: "cf.switch", Parse: parseSwitch, Print: printSwitch, Verify: verifySwitch})
	r.RegisterOp(&ir.OpDef{Name: "cf.assert", Parse: parseAssert, Print: printAssert, Verify: verifyAssert})
}

// isTerminator checks that op ends its block, as every branch must.
func isTerminator(op *ir.Operation) error {
	if op.Block != nil && op.Block.Terminator() != op {
		return ir.OpErrorf(op, "must be the last operation in the parent block")
	}
	return nil
}

// verifySegmentedBranch checks what cf.cond_br and cf.switch share: op
// ends its block and has three operand segments, the first holding exactly
// one operand (what names it).
func verifySegmentedBranch(op *ir.Operation, what string) error {
	if err := isTerminator(op); err != nil {
		return err
	}
	if err := ir.SegmentsValid(op, 3); err != nil {
		return err
	}
	if n := ir.SegmentSizes(op)[0]; n != 1 {
		return ir.OpErrorf(op, "requires exactly 1 %s operand, found %d", what, n)
	}
	return nil
}

// parseSuccessorAfter parses the punctuation sep and then a successor with
// its operands, `^bb(%a : t)`.
func parseSuccessorAfter(p *ir.Parser, sep string) (*ir.Block, []*ir.Value, error) {
	if err := p.Expect(sep); err != nil {
		return nil, nil, err
	}
	return p.ParseSuccessorAndUseList()
}

// cf.br ^dest(%a, %b : t1, t2) attr-dict
func parseBr(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	b, vs, err := p.ParseSuccessorAndUseList()
	if err != nil {
		return nil, err
	}
	op.Successors = []*ir.Block{b}
	op.Operands = vs
	return nil, p.ParseOptionalAttrDict(op)
}

func printBr(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	if len(op.Successors) == 1 {
		p.SuccessorAndUseList(op.Successors[0], op.Operands)
	}
	p.AttrDict(op)
}

func verifyBr(op *ir.Operation) error {
	if err := isTerminator(op); err != nil {
		return err
	}
	if len(op.Successors) != 1 {
		return ir.OpErrorf(op, "requires 1 successor but found %d", len(op.Successors))
	}
	return ir.VerifySuccessorOperands(op, "successor #0", op.Successors[0], op.Operands)
}

// CondBr gives structured access to a cf.cond_br: operands are the
// condition, then the true destination's operands, then the false
// destination's (operandSegmentSizes = [1, #true, #false]).
type CondBr struct{ Op *ir.Operation }

// Condition returns the i1 branch condition.
func (c CondBr) Condition() *ir.Value { return c.Op.Operands[0] }

// TrueOperands returns the values passed to the true destination.
func (c CondBr) TrueOperands() []*ir.Value { return ir.Segment(c.Op, 1) }

// FalseOperands returns the values passed to the false destination.
func (c CondBr) FalseOperands() []*ir.Value { return ir.Segment(c.Op, 2) }

// cf.cond_br %c, ^t(%a : t), ^f(%b : t) attr-dict
func parseCondBr(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	c, err := p.ParseTypedOperand(ir.I1)
	if err != nil {
		return nil, err
	}
	var weights *ir.DenseArrayAttr
	if p.OptionalKeyword("weights") {
		// Branch weights, as current MLIR writes them: weights([60, 40]).
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		if err := p.Expect("["); err != nil {
			return nil, err
		}
		weights = &ir.DenseArrayAttr{Elem: ir.I32, Values: []int64{}}
		for !p.Optional("]") {
			if len(weights.Values) > 0 {
				if err := p.Expect(","); err != nil {
					return nil, err
				}
			}
			w, err := p.ParseInteger()
			if err != nil {
				return nil, err
			}
			weights.Values = append(weights.Values, w)
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
	}
	t, tvs, err := parseSuccessorAfter(p, ",")
	if err != nil {
		return nil, err
	}
	f, fvs, err := parseSuccessorAfter(p, ",")
	if err != nil {
		return nil, err
	}
	op.Successors = []*ir.Block{t, f}
	op.Operands = append(append([]*ir.Value{c}, tvs...), fvs...)
	if weights != nil {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "branch_weights", Value: weights})
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(tvs), len(fvs))})
	return nil, p.ParseOptionalAttrDict(op)
}

func printCondBr(p *ir.Printer, op *ir.Operation) {
	c := CondBr{op}
	p.WriteString(" ")
	p.Operand(c.Condition())
	if w, ok := op.Attr("branch_weights").(*ir.DenseArrayAttr); ok {
		p.WriteString(" weights([")
		for i, v := range w.Values {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(strconv.FormatInt(v, 10))
		}
		p.WriteString("])")
	}
	if len(op.Successors) == 2 {
		p.WriteString(", ")
		p.SuccessorAndUseList(op.Successors[0], c.TrueOperands())
		p.WriteString(", ")
		p.SuccessorAndUseList(op.Successors[1], c.FalseOperands())
	}
	p.AttrDict(op, "branch_weights", "operandSegmentSizes", "operand_segment_sizes")
}

func verifyCondBr(op *ir.Operation) error {
	if err := verifySegmentedBranch(op, "condition"); err != nil {
		return err
	}
	if len(op.Successors) != 2 {
		return ir.OpErrorf(op, "requires 2 successors but found %d", len(op.Successors))
	}
	if a := op.Attr("branch_weights"); a != nil {
		if w, ok := a.(*ir.DenseArrayAttr); !ok || len(w.Values) != 2 {
			return ir.OpErrorf(op, "'branch_weights' must be two i32 weights, one per successor, found %s", ir.AttrString(a))
		}
	}
	c := CondBr{op}
	if !ir.TypesEqual(c.Condition().Type, ir.I1) {
		return ir.OpErrorf(op, "operand #0 must be 1-bit signless integer, but got '%s'", ir.TypeString(c.Condition().Type))
	}
	if err := ir.VerifySuccessorOperands(op, "the true destination", op.Successors[0], c.TrueOperands()); err != nil {
		return err
	}
	return ir.VerifySuccessorOperands(op, "the false destination", op.Successors[1], c.FalseOperands())
}

// Switch gives structured access to a cf.switch: operands are the flag,
// the default destination's operands, then every case's operands in case
// order (operandSegmentSizes = [1, #default, #cases], with
// case_operand_segments splitting the last group); successors are the
// default destination then the cases; case_values is a dense vector of the
// flag's type, absent when there are no cases.
type Switch struct{ Op *ir.Operation }

// Flag returns the switched-on integer.
func (s Switch) Flag() *ir.Value { return s.Op.Operands[0] }

// DefaultOperands returns the values passed to the default destination.
func (s Switch) DefaultOperands() []*ir.Value { return ir.Segment(s.Op, 1) }

// CaseValues returns the case values in order.
func (s Switch) CaseValues() []int64 {
	d, ok := s.Op.Attr("case_values").(*ir.DenseAttr)
	if !ok {
		return nil
	}
	out := make([]int64, len(d.Elements))
	for i, e := range d.Elements {
		if ia, ok := e.(ir.IntegerAttr); ok {
			out[i] = ia.Value
		}
	}
	return out
}

// CaseOperands returns the values passed to case i's destination, or nil
// when the segments are malformed.
func (s Switch) CaseOperands(i int) []*ir.Value {
	segs, ok := s.Op.Attr("case_operand_segments").(*ir.DenseArrayAttr)
	all := ir.Segment(s.Op, 2)
	if !ok || i >= len(segs.Values) {
		return nil
	}
	start := int64(0)
	for _, n := range segs.Values[:i] {
		start += n
	}
	end := start + segs.Values[i]
	if start < 0 || end < start || end > int64(len(all)) {
		return nil
	}
	return all[start:end]
}

// cf.switch %flag : t, [ default: ^bb(%a : t), 42: ^bb(...), ... ] attr-dict
func parseSwitch(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	fpos := p.Pos()
	flag, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	ft, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	if _, ok := ft.(ir.IntegerType); !ok {
		if _, ok := ft.(ir.IndexType); !ok {
			return nil, ir.Errorf(tpos, "switch flag must be an integer or index, found '%s'", ir.TypeString(ft))
		}
	}
	if err := p.ResolveType(flag, ft, fpos); err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("default"); err != nil {
		return nil, err
	}
	def, defVs, err := parseSuccessorAfter(p, ":")
	if err != nil {
		return nil, err
	}
	succs := []*ir.Block{def}
	var values []ir.Attribute
	var caseVs []*ir.Value
	segs := &ir.DenseArrayAttr{Elem: ir.I32, Values: []int64{}}
	for p.Optional(",") {
		v, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		b, vs, err := parseSuccessorAfter(p, ":")
		if err != nil {
			return nil, err
		}
		values = append(values, ir.IntegerAttr{Value: v, Type: ft})
		succs = append(succs, b)
		caseVs = append(caseVs, vs...)
		segs.Values = append(segs.Values, int64(len(vs)))
	}
	if err := p.Expect("]"); err != nil {
		return nil, err
	}
	op.Operands = append(append([]*ir.Value{flag}, defVs...), caseVs...)
	op.Successors = succs
	if len(values) > 0 {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "case_values", Value: &ir.DenseAttr{
			Type: &ir.VectorType{Shape: []int64{int64(len(values))}, Elem: ft}, Elements: values, Nesting: []int{len(values)}}})
	}
	op.Attrs = append(op.Attrs,
		ir.NamedAttr{Name: "case_operand_segments", Value: segs},
		ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(defVs), len(caseVs))})
	return nil, p.ParseOptionalAttrDict(op)
}

func printSwitch(p *ir.Printer, op *ir.Operation) {
	s := Switch{op}
	p.WriteString(" ")
	p.Operand(s.Flag())
	p.WriteString(" : ")
	p.Type(s.Flag().Type)
	p.WriteString(", [")
	p.Indent()
	p.Newline(0)
	p.WriteString("default: ")
	if len(op.Successors) > 0 {
		p.SuccessorAndUseList(op.Successors[0], s.DefaultOperands())
	}
	for i, v := range s.CaseValues() {
		if i+1 >= len(op.Successors) {
			break
		}
		p.WriteString(",")
		p.Newline(0)
		p.WriteString(strconv.FormatInt(v, 10) + ": ")
		p.SuccessorAndUseList(op.Successors[i+1], s.CaseOperands(i))
	}
	p.Dedent()
	p.Newline(0)
	p.WriteString("]")
	p.AttrDict(op, "case_values", "case_operand_segments", "operandSegmentSizes", "operand_segment_sizes")
}

func verifySwitch(op *ir.Operation) error {
	if err := verifySegmentedBranch(op, "flag"); err != nil {
		return err
	}
	s := Switch{op}
	ft := s.Flag().Type
	switch ft.(type) {
	case ir.IntegerType, ir.IndexType:
	default:
		return ir.OpErrorf(op, "operand #0 must be integer or index, but got '%s'", ir.TypeString(ft))
	}
	segs, ok := op.Attr("case_operand_segments").(*ir.DenseArrayAttr)
	if !ok {
		return ir.OpErrorf(op, "requires a 'case_operand_segments' dense i32 array attribute")
	}
	ncases := 0
	if a := op.Attr("case_values"); a != nil {
		d, ok := a.(*ir.DenseAttr)
		if !ok || d.IsHex || d.Splat || int64(len(d.Elements)) != ir.NumElements(d.Type) {
			return ir.OpErrorf(op, "'case_values' must be a dense integer vector listing each case value, found %s", ir.AttrString(a))
		}
		if !ir.TypesEqual(d.Type.ElementType(), ft) {
			return ir.OpErrorf(op, "'case_values' should have same type as flag, but got '%s' vs '%s'", ir.TypeString(d.Type.ElementType()), ir.TypeString(ft))
		}
		ncases = len(d.Elements)
		seen := map[int64]bool{}
		for _, v := range s.CaseValues() {
			if seen[v] {
				return ir.OpErrorf(op, "has duplicate case value: %d", v)
			}
			seen[v] = true
		}
	}
	if len(op.Successors) != ncases+1 {
		return ir.OpErrorf(op, "number of case values (%d) should match number of case destinations (%d)", ncases, len(op.Successors)-1)
	}
	if len(segs.Values) != ncases {
		return ir.OpErrorf(op, "number of case operand segments (%d) should match number of case destinations (%d)", len(segs.Values), ncases)
	}
	sum := int64(0)
	for _, n := range segs.Values {
		if n < 0 {
			return ir.OpErrorf(op, "case_operand_segments has a negative entry")
		}
		sum += n
	}
	if sum != int64(len(ir.Segment(op, 2))) {
		return ir.OpErrorf(op, "case_operand_segments sums to %d but the op has %d case operands", sum, len(ir.Segment(op, 2)))
	}
	if err := ir.VerifySuccessorOperands(op, "the default destination", op.Successors[0], s.DefaultOperands()); err != nil {
		return err
	}
	for i := 0; i < ncases; i++ {
		if err := ir.VerifySuccessorOperands(op, "case #"+strconv.Itoa(i), op.Successors[i+1], s.CaseOperands(i)); err != nil {
			return err
		}
	}
	return nil
}

// cf.assert %cond, "message" attr-dict
func parseAssert(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	c, err := p.ParseTypedOperand(ir.I1)
	if err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	msg, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{c}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "msg", Value: ir.StringAttr{Value: msg}})
	return nil, p.ParseOptionalAttrDict(op)
}

func printAssert(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.WriteString(", ")
	if m := op.Attr("msg"); m != nil {
		p.Attr(m)
	}
	p.AttrDict(op, "msg")
}

func verifyAssert(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	if !ir.TypesEqual(op.Operands[0].Type, ir.I1) {
		return ir.OpErrorf(op, "operand #0 must be 1-bit signless integer, but got '%s'", ir.TypeString(op.Operands[0].Type))
	}
	if _, ok := op.Attr("msg").(ir.StringAttr); !ok {
		return ir.OpErrorf(op, "requires a string attribute 'msg'")
	}
	return nil
}
