package tosa

import (
	"github.com/goiree/goiree/compiler/ir"
)

// The control-flow ops: tosa.cond_if and tosa.while_loop with tosa.yield.
// They print in the generic form (which both eras accept); the custom
// forms IREE's tests use parse:
//
//	%r = tosa.cond_if %c : tensor<i1> -> tensor<i32> { ... } else { ... }
//	%r = tosa.while_loop (%a = %x) : (tensor<i32>) -> tensor<i32> { ... } do { ^bb0(%a: tensor<i32>): ... }
//	tosa.yield %v : tensor<i32>

func registerControl(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "tosa.cond_if", Parse: parseCondIf, Verify: verifyCondIf})
	r.RegisterOp(&ir.OpDef{Name: "tosa.while_loop", Parse: parseWhileLoop, Verify: verifyWhileLoop})
	r.RegisterOp(&ir.OpDef{Name: "tosa.yield", Parse: parseYield, Print: printYield, Verify: verifyYield})
}

func parseCondIf(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	c, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	tpos := p.Pos()
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(c, t, tpos); err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	results, err := p.ParseFunctionResultTypes()
	if err != nil {
		return nil, err
	}
	if _, err := p.ParseRegion(op, []ir.Argument{}); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("else"); err != nil {
		return nil, err
	}
	if _, err := p.ParseRegion(op, []ir.Argument{}); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{c}
	return results, p.ParseOptionalAttrDictWithKeyword(op)
}

func parseWhileLoop(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	args := []ir.Argument{}
	var inits []*ir.Value
	for !p.Optional(")") {
		if len(args) > 0 {
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		name, pos, err := p.ParseValueName()
		if err != nil {
			return nil, err
		}
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		args = append(args, ir.Argument{Name: name, Pos: pos})
		inits = append(inits, v)
	}
	tpos := p.Pos()
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	ft, ok := t.(*ir.FunctionType)
	if !ok || len(ft.Inputs) != len(inits) {
		return nil, ir.Errorf(tpos, "expected a function type with %d inputs, found '%s'", len(inits), ir.TypeString(t))
	}
	if err := p.ResolveTypes(inits, ft.Inputs, tpos); err != nil {
		return nil, err
	}
	for i := range args {
		args[i].Type = ft.Inputs[i]
	}
	if _, err := p.ParseRegion(op, args); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("do"); err != nil {
		return nil, err
	}
	if _, err := p.ParseRegion(op, nil); err != nil {
		return nil, err
	}
	op.Operands = inits
	return ft.Results, p.ParseOptionalAttrDictWithKeyword(op)
}

func parseYield(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var vs []*ir.Value
	if p.IsValueID() {
		var err error
		if vs, err = p.ParseOperandList(); err != nil {
			return nil, err
		}
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if len(vs) > 0 {
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
	}
	op.Operands = vs
	return nil, nil
}

func printYield(p *ir.Printer, op *ir.Operation) {
	if len(op.Operands) > 0 {
		p.WriteString(" ")
		p.Operands(op.Operands)
	}
	p.AttrDict(op)
	if len(op.Operands) > 0 {
		p.WriteString(" : ")
		var ts []ir.Type
		for _, v := range op.Operands {
			ts = append(ts, v.Type)
		}
		p.Types(ts)
	}
}

func isBoolScalarTensor(t ir.Type) bool {
	r := Ranked(t)
	return r != nil && numElems(r) == 1 && ir.TypesEqual(r.Elem, ir.I1)
}

func numElems(t *ir.TensorType) int64 {
	n := int64(1)
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

// yieldTypes returns the operand types of the tosa.yield ending region i.
func yieldTypes(op *ir.Operation, i int, what string) ([]ir.Type, error) {
	if len(op.Regions[i].Blocks) != 1 {
		return nil, ir.OpErrorf(op, "expects the %s region to have one block", what)
	}
	b := op.Regions[i].Blocks[0]
	if len(b.Ops) == 0 || b.Ops[len(b.Ops)-1].Name != "tosa.yield" {
		return nil, ir.OpErrorf(op, "expects the %s region to end with 'tosa.yield'", what)
	}
	var ts []ir.Type
	for _, v := range b.Ops[len(b.Ops)-1].Operands {
		ts = append(ts, v.Type)
	}
	return ts, nil
}

func sameTypes(a, b []ir.Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !ir.TypesEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func resultTypes(op *ir.Operation) []ir.Type {
	var ts []ir.Type
	for _, v := range op.Results {
		ts = append(ts, v.Type)
	}
	return ts
}

// verifyCondIf checks a single-element i1 condition, then and else
// regions taking the remaining operands (none in the current form), and
// yields matching the results.
func verifyCondIf(op *ir.Operation) error {
	if len(op.Operands) < 1 || !isBoolScalarTensor(op.Operands[0].Type) {
		return ir.OpErrorf(op, "expects a single-element tensor<i1> condition")
	}
	if len(op.Regions) != 2 {
		return ir.OpErrorf(op, "expects then and else regions")
	}
	for i, what := range []string{"then", "else"} {
		ts, err := yieldTypes(op, i, what)
		if err != nil {
			return err
		}
		if !sameTypes(ts, resultTypes(op)) {
			return ir.OpErrorf(op, "the %s region yields %d values that do not match the op's %d results", what, len(ts), len(op.Results))
		}
		if n := len(op.Regions[i].Blocks[0].Args); n != len(op.Operands)-1 {
			return ir.OpErrorf(op, "the %s region takes %d arguments but the op passes %d", what, n, len(op.Operands)-1)
		}
	}
	return nil
}

// verifyWhileLoop checks a cond region yielding a single-element i1 and a
// body region yielding the loop-carried values.
func verifyWhileLoop(op *ir.Operation) error {
	if len(op.Regions) != 2 {
		return ir.OpErrorf(op, "expects cond and body regions")
	}
	var ins []ir.Type
	for _, v := range op.Operands {
		ins = append(ins, v.Type)
	}
	if !sameTypes(ins, resultTypes(op)) {
		return ir.OpErrorf(op, "results must have the operands' types")
	}
	cond, err := yieldTypes(op, 0, "cond")
	if err != nil {
		return err
	}
	if len(cond) != 1 || !isBoolScalarTensor(cond[0]) {
		return ir.OpErrorf(op, "the cond region must yield one single-element tensor<i1>")
	}
	body, err := yieldTypes(op, 1, "body")
	if err != nil {
		return err
	}
	if !sameTypes(body, ins) {
		return ir.OpErrorf(op, "the body region must yield the loop-carried values' types")
	}
	for i, what := range []string{"cond", "body"} {
		var args []ir.Type
		for _, a := range op.Regions[i].Blocks[0].Args {
			args = append(args, a.Type)
		}
		if !sameTypes(args, ins) {
			return ir.OpErrorf(op, "the %s region must take the loop-carried values", what)
		}
	}
	return nil
}

func verifyYield(op *ir.Operation) error {
	if p := op.ParentOp(); p == nil || (p.Name != "tosa.cond_if" && p.Name != "tosa.while_loop") {
		return ir.OpErrorf(op, "expects parent op 'tosa.cond_if' or 'tosa.while_loop'")
	}
	return nil
}
