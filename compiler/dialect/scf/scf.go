// Package scf registers MLIR's structured control-flow dialect: scf.for,
// scf.if, scf.while with scf.condition, scf.execute_region, scf.index_switch
// and scf.yield.
//
// In memory each op is what MLIR's generic form shows: scf.for's operands
// are lower bound, upper bound, step and the iter_args initial values, its
// body block takes the induction variable then the iter_args; scf.if has a
// then region and an else region (empty when there is no else); every
// block ends in its terminator, including the scf.yield the custom form
// leaves out when nothing is yielded.
package scf

import (
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the scf ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "scf.for", Parse: parseFor, Print: printFor, Verify: verifyFor})
	r.RegisterOp(&ir.OpDef{Name: "scf.if", Parse: parseIf, Print: printIf, Verify: verifyIf})
	r.RegisterOp(&ir.OpDef{Name: "scf.while", Parse: parseWhile, Print: printWhile, Verify: verifyWhile})
	r.RegisterOp(&ir.OpDef{Name: "scf.condition", Parse: parseCondition, Print: printCondition, Verify: verifyCondition})
	r.RegisterOp(&ir.OpDef{Name: "scf.execute_region", Parse: parseExecuteRegion, Print: printExecuteRegion, Verify: verifyExecuteRegion})
	r.RegisterOp(&ir.OpDef{Name: "scf.index_switch", Parse: parseIndexSwitch, Print: printIndexSwitch, Verify: verifyIndexSwitch})
	r.RegisterOp(&ir.OpDef{Name: "scf.yield", Parse: parseYield, Print: printYield, Verify: verifyYield})
}

// types returns the types of vs.
func types(vs []*ir.Value) []ir.Type {
	out := make([]ir.Type, len(vs))
	for i, v := range vs {
		out[i] = v.Type
	}
	return out
}

// ensureYield gives each block of r an scf.yield terminator when its last
// op is not one (the custom form of a loop or if yielding nothing leaves it
// out), and gives an empty region its block.
func ensureYield(r *ir.Region, pos ir.Pos) {
	if len(r.Blocks) == 0 {
		r.AddBlock()
	}
	for _, b := range r.Blocks {
		if t := b.Terminator(); t == nil || t.Name != "scf.yield" {
			y := ir.NewOp("scf.yield", nil, nil, nil)
			y.Pos = pos
			b.Append(y)
		}
	}
}

// parseBodyRegion parses a region of op whose entry block takes args. When
// the op yields nothing (implicitYield), its custom form may leave out the
// blocks' scf.yield, which is then added.
func parseBodyRegion(p *ir.Parser, op *ir.Operation, args []ir.Argument, implicitYield bool) error {
	r, err := p.ParseRegion(op, args)
	if err != nil {
		return err
	}
	if implicitYield {
		ensureYield(r, op.Pos)
	}
	return nil
}

// yieldsResults checks that b, the region named what, ends in an
// scf.yield of op's result types.
func yieldsResults(op *ir.Operation, b *ir.Block, what string) error {
	y, err := yieldOf(op, b, what)
	if err != nil {
		return err
	}
	return checkYield(op, y, types(op.Results), "result")
}

// singleBlock checks that region i of op has exactly one block.
func singleBlock(op *ir.Operation, i int, what string) (*ir.Block, error) {
	if i >= len(op.Regions) || len(op.Regions[i].Blocks) != 1 {
		return nil, ir.OpErrorf(op, "expects the %s region to have exactly one block", what)
	}
	return op.Regions[i].Blocks[0], nil
}

// yieldOf returns b's terminator when it is scf.yield.
func yieldOf(op *ir.Operation, b *ir.Block, what string) (*ir.Operation, error) {
	t := b.Terminator()
	if t == nil || t.Name != "scf.yield" {
		return nil, ir.OpErrorf(op, "expects the %s region to end with 'scf.yield'", what)
	}
	return t, nil
}

// checkYield compares yielded values with the types they flow to.
func checkYield(op, y *ir.Operation, want []ir.Type, what string) error {
	if len(y.Operands) != len(want) {
		return ir.OpErrorf(y, "yields %d values but the parent '%s' expects %d (%s)", len(y.Operands), op.Name, len(want), what)
	}
	for i, v := range y.Operands {
		if !ir.TypesEqual(v.Type, want[i]) {
			return ir.OpErrorf(y, "type of yielded value #%d ('%s') does not match %s type '%s'", i, ir.TypeString(v.Type), what, ir.TypeString(want[i]))
		}
	}
	return nil
}

// For gives structured access to an scf.for.
type For struct{ Op *ir.Operation }

// LowerBound, UpperBound and Step return the loop bounds.
func (f For) LowerBound() *ir.Value { return f.Op.Operands[0] }

// UpperBound returns the exclusive upper bound.
func (f For) UpperBound() *ir.Value { return f.Op.Operands[1] }

// Step returns the step.
func (f For) Step() *ir.Value { return f.Op.Operands[2] }

// Inits returns the iter_args initial values.
func (f For) Inits() []*ir.Value { return f.Op.Operands[3:] }

// Body returns the loop body block.
func (f For) Body() *ir.Block { return f.Op.Body() }

// InductionVar returns the body's first argument.
func (f For) InductionVar() *ir.Value { return f.Body().Args[0] }

// IterArgs returns the body's loop-carried arguments.
func (f For) IterArgs() []*ir.Value { return f.Body().Args[1:] }

// Unsigned reports whether the bounds compare as unsigned integers.
func (f For) Unsigned() bool { return f.Op.HasAttr("unsignedCmp") }

// scf.for [unsigned] %iv = %lb to %ub step %s
//
//	[iter_args(%a = %init, ...) -> (t, ...)] [: ivtype] { body } attr-dict
func parseFor(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	unsigned := p.OptionalKeyword("unsigned")
	iv, ivPos, err := p.ParseValueName()
	if err != nil {
		return nil, err
	}
	if err := p.Expect("="); err != nil {
		return nil, err
	}
	bpos := p.Pos()
	lb, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("to"); err != nil {
		return nil, err
	}
	ub, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("step"); err != nil {
		return nil, err
	}
	step, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	var inits []*ir.Value
	var iterArgs []ir.Argument
	var results []ir.Type
	if p.OptionalKeyword("iter_args") {
		if iterArgs, inits, err = parseAssignments(p); err != nil {
			return nil, err
		}
		apos := p.Pos()
		if err := p.Expect("->"); err != nil {
			return nil, err
		}
		if results, err = p.ParseFunctionResultTypes(); err != nil {
			return nil, err
		}
		if len(results) != len(inits) {
			return nil, ir.Errorf(apos, "mismatch in number of loop-carried values and defined values: %d iter_args, %d result types", len(inits), len(results))
		}
		for i := range inits {
			iterArgs[i].Type = results[i]
		}
		if err := p.ResolveTypes(inits, results, apos); err != nil {
			return nil, err
		}
	}
	var ivType ir.Type = ir.IndexType{}
	if p.Is(":") {
		if ivType, err = p.ParseColonType(); err != nil {
			return nil, err
		}
	}
	for _, v := range []*ir.Value{lb, ub, step} {
		if err := p.ResolveType(v, ivType, bpos); err != nil {
			return nil, err
		}
	}
	args := append([]ir.Argument{{Name: iv, Type: ivType, Pos: ivPos}}, iterArgs...)
	if err := parseBodyRegion(p, op, args, len(inits) == 0); err != nil {
		return nil, err
	}
	if unsigned {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "unsignedCmp", Value: ir.UnitAttr{}})
	}
	op.Operands = append([]*ir.Value{lb, ub, step}, inits...)
	return results, p.ParseOptionalAttrDict(op)
}

// parseAssignments parses `(%a = %x, %b = %y)`, the region-argument
// assignment list of scf.for's iter_args and scf.while. The argument
// types are set by the caller.
func parseAssignments(p *ir.Parser) ([]ir.Argument, []*ir.Value, error) {
	if err := p.Expect("("); err != nil {
		return nil, nil, err
	}
	var args []ir.Argument
	var vals []*ir.Value
	if p.Optional(")") {
		return args, vals, nil
	}
	for {
		a, apos, err := p.ParseValueName()
		if err != nil {
			return nil, nil, err
		}
		if err := p.Expect("="); err != nil {
			return nil, nil, err
		}
		v, err := p.ParseOperand()
		if err != nil {
			return nil, nil, err
		}
		args = append(args, ir.Argument{Name: a, Pos: apos})
		vals = append(vals, v)
		if p.Optional(")") {
			return args, vals, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, nil, err
		}
	}
}

func printAssignments(p *ir.Printer, args, vals []*ir.Value) {
	p.WriteString("(")
	for i := range args {
		if i > 0 {
			p.WriteString(", ")
		}
		p.Operand(args[i])
		p.WriteString(" = ")
		p.Operand(vals[i])
	}
	p.WriteString(")")
}

func printFor(p *ir.Printer, op *ir.Operation) {
	f := For{op}
	if f.Unsigned() {
		p.WriteString(" unsigned")
	}
	p.WriteString(" ")
	p.Operand(f.InductionVar())
	p.WriteString(" = ")
	p.Operand(f.LowerBound())
	p.WriteString(" to ")
	p.Operand(f.UpperBound())
	p.WriteString(" step ")
	p.Operand(f.Step())
	if len(f.Inits()) > 0 {
		p.WriteString(" iter_args")
		printAssignments(p, f.IterArgs(), f.Inits())
		p.WriteString(" -> ")
		p.WriteString("(")
		p.Types(types(op.Results))
		p.WriteString(")")
	}
	if _, ok := f.InductionVar().Type.(ir.IndexType); !ok {
		p.WriteString(" : ")
		p.Type(f.InductionVar().Type)
	}
	p.WriteString(" ")
	if len(f.Inits()) > 0 {
		p.Region(op.Regions[0], false)
	} else {
		p.RegionElidingTerminators(op.Regions[0], false)
	}
	p.AttrDict(op, "unsignedCmp")
}

func verifyFor(op *ir.Operation) error {
	if len(op.Operands) < 3 {
		return ir.OpErrorf(op, "expects lower bound, upper bound and step operands, found %d operands", len(op.Operands))
	}
	if len(op.Regions) != 1 {
		return ir.OpErrorf(op, "expects one region")
	}
	body, err := singleBlock(op, 0, "body")
	if err != nil {
		return err
	}
	f := For{op}
	t := f.LowerBound().Type
	switch t.(type) {
	case ir.IndexType, ir.IntegerType:
	default:
		return ir.OpErrorf(op, "lower bound must be a signless integer or index, found '%s'", ir.TypeString(t))
	}
	if !ir.TypesEqual(f.UpperBound().Type, t) || !ir.TypesEqual(f.Step().Type, t) {
		return ir.OpErrorf(op, "failed to verify that all of {lowerBound, upperBound, step} have same type")
	}
	if len(body.Args) != len(op.Operands)-2 {
		return ir.OpErrorf(op, "expected the body to take the induction variable and %d iter_args, found %d arguments", len(op.Operands)-3, len(body.Args))
	}
	if !ir.TypesEqual(body.Args[0].Type, t) {
		return ir.OpErrorf(op, "expected induction variable to be same type as bounds and step")
	}
	inits := f.Inits()
	if len(inits) != len(op.Results) {
		return ir.OpErrorf(op, "mismatch in number of loop-carried values and defined values")
	}
	for i, v := range inits {
		if !ir.TypesEqual(v.Type, op.Results[i].Type) || !ir.TypesEqual(body.Args[i+1].Type, op.Results[i].Type) {
			return ir.OpErrorf(op, "types mismatch between iter operand #%d ('%s'), region argument ('%s') and result ('%s')", i, ir.TypeString(v.Type), ir.TypeString(body.Args[i+1].Type), ir.TypeString(op.Results[i].Type))
		}
	}
	y, err := yieldOf(op, body, "body")
	if err != nil {
		return err
	}
	return checkYield(op, y, types(op.Results), "loop result")
}

// If gives structured access to an scf.if.
type If struct{ Op *ir.Operation }

// Condition returns the i1 condition.
func (f If) Condition() *ir.Value { return f.Op.Operands[0] }

// Then returns the then block.
func (f If) Then() *ir.Block { return f.Op.Regions[0].Blocks[0] }

// Else returns the else block, or nil when there is none.
func (f If) Else() *ir.Block {
	if len(f.Op.Regions) < 2 || len(f.Op.Regions[1].Blocks) == 0 {
		return nil
	}
	return f.Op.Regions[1].Blocks[0]
}

// scf.if %c [-> (t, ...)] { then } [else { else }] attr-dict
func parseIf(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	c, err := p.ParseTypedOperand(ir.I1)
	if err != nil {
		return nil, err
	}
	var results []ir.Type
	if p.Optional("->") {
		if results, err = p.ParseFunctionResultTypes(); err != nil {
			return nil, err
		}
	}
	if err := parseBodyRegion(p, op, nil, len(results) == 0); err != nil {
		return nil, err
	}
	if p.OptionalKeyword("else") {
		if err := parseBodyRegion(p, op, nil, len(results) == 0); err != nil {
			return nil, err
		}
	} else {
		op.AddRegion()
	}
	op.Operands = []*ir.Value{c}
	return results, p.ParseOptionalAttrDict(op)
}

func printIf(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	if len(op.Results) > 0 {
		p.WriteString(" -> (")
		p.Types(types(op.Results))
		p.WriteString(")")
	}
	region := p.Region
	if len(op.Results) == 0 {
		region = p.RegionElidingTerminators
	}
	p.WriteString(" ")
	region(op.Regions[0], false)
	if len(op.Regions) > 1 && len(op.Regions[1].Blocks) > 0 {
		p.WriteString(" else ")
		region(op.Regions[1], false)
	}
	p.AttrDict(op)
}

func verifyIf(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	if !ir.TypesEqual(op.Operands[0].Type, ir.I1) {
		return ir.OpErrorf(op, "operand #0 must be 1-bit signless integer, but got '%s'", ir.TypeString(op.Operands[0].Type))
	}
	if len(op.Regions) != 2 {
		return ir.OpErrorf(op, "expects a then region and an else region")
	}
	then, err := singleBlock(op, 0, "then")
	if err != nil {
		return err
	}
	blocks := []*ir.Block{then}
	if len(op.Regions[1].Blocks) > 0 {
		els, err := singleBlock(op, 1, "else")
		if err != nil {
			return err
		}
		blocks = append(blocks, els)
	} else if len(op.Results) > 0 {
		return ir.OpErrorf(op, "must have an else block if defining values")
	}
	for i, b := range blocks {
		what := [2]string{"then", "else"}[i]
		if len(b.Args) != 0 {
			return ir.OpErrorf(op, "expects the %s region to have no arguments", what)
		}
		if err := yieldsResults(op, b, what); err != nil {
			return err
		}
	}
	return nil
}

// While gives structured access to an scf.while: operands are the initial
// values passed to the before region, whose scf.condition forwards values
// to the after region (or out as results), whose scf.yield feeds the before
// region again.
type While struct{ Op *ir.Operation }

// Before returns the condition block.
func (w While) Before() *ir.Block { return w.Op.Regions[0].Blocks[0] }

// After returns the body block.
func (w While) After() *ir.Block { return w.Op.Regions[1].Blocks[0] }

// scf.while [(%a = %init, ...)] : (t, ...) -> (r, ...) { before } do { after } attr-dict-with-keyword
func parseWhile(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var args []ir.Argument
	var inits []*ir.Value
	if p.Is("(") {
		var err error
		if args, inits, err = parseAssignments(p); err != nil {
			return nil, err
		}
	}
	tpos := p.Pos()
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	ft, ok := t.(*ir.FunctionType)
	if !ok {
		return nil, ir.Errorf(tpos, "expected a function type, found '%s'", ir.TypeString(t))
	}
	if len(ft.Inputs) != len(inits) {
		return nil, ir.Errorf(tpos, "expected as many input types as operands (expected %d got %d)", len(inits), len(ft.Inputs))
	}
	if err := p.ResolveTypes(inits, ft.Inputs, tpos); err != nil {
		return nil, err
	}
	for i := range args {
		args[i].Type = ft.Inputs[i]
	}
	if args == nil {
		args = []ir.Argument{}
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

func printWhile(p *ir.Printer, op *ir.Operation) {
	w := While{op}
	if len(op.Operands) > 0 {
		p.WriteString(" ")
		printAssignments(p, w.Before().Args, op.Operands)
	}
	p.WriteString(" : (")
	p.Types(types(op.Operands))
	p.WriteString(") -> ")
	p.ResultTypes(types(op.Results))
	p.WriteString(" ")
	p.Region(op.Regions[0], false)
	p.WriteString(" do ")
	p.Region(op.Regions[1], true)
	p.AttrDictWithKeyword(op)
}

func verifyWhile(op *ir.Operation) error {
	if len(op.Regions) != 2 {
		return ir.OpErrorf(op, "expects a before region and an after region")
	}
	before, err := singleBlock(op, 0, "before")
	if err != nil {
		return err
	}
	after, err := singleBlock(op, 1, "after")
	if err != nil {
		return err
	}
	if len(before.Args) != len(op.Operands) {
		return ir.OpErrorf(op, "expects the before region to take %d arguments (one per operand), found %d", len(op.Operands), len(before.Args))
	}
	for i, v := range op.Operands {
		if !ir.TypesEqual(v.Type, before.Args[i].Type) {
			return ir.OpErrorf(op, "type of operand #%d ('%s') does not match before region argument ('%s')", i, ir.TypeString(v.Type), ir.TypeString(before.Args[i].Type))
		}
	}
	c := before.Terminator()
	if c == nil || c.Name != "scf.condition" {
		return ir.OpErrorf(op, "expects the before region to terminate with 'scf.condition'")
	}
	fwd := types(c.Operands[min(1, len(c.Operands)):])
	if len(fwd) != len(op.Results) || len(fwd) != len(after.Args) {
		return ir.OpErrorf(op, "scf.condition forwards %d values, but the op has %d results and the after region takes %d arguments", len(fwd), len(op.Results), len(after.Args))
	}
	for i, t := range fwd {
		if !ir.TypesEqual(t, op.Results[i].Type) || !ir.TypesEqual(t, after.Args[i].Type) {
			return ir.OpErrorf(op, "forwarded value #%d has type '%s', but the result is '%s' and the after region argument is '%s'", i, ir.TypeString(t), ir.TypeString(op.Results[i].Type), ir.TypeString(after.Args[i].Type))
		}
	}
	y, err := yieldOf(op, after, "after")
	if err != nil {
		return err
	}
	return checkYield(op, y, types(before.Args), "before region argument")
}

// scf.condition(%c) attr-dict [%a, ... : t, ...]
func parseCondition(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	c, err := p.ParseTypedOperand(ir.I1)
	if err != nil {
		return nil, err
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	vs, _, err := p.ParseOptionalOperandsColonTypes()
	if err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{c}, vs...)
	return nil, nil
}

func printCondition(p *ir.Printer, op *ir.Operation) {
	p.WriteString("(")
	if len(op.Operands) > 0 {
		p.Operand(op.Operands[0])
	}
	p.WriteString(")")
	p.AttrDict(op)
	if len(op.Operands) > 1 {
		p.OperandsColonTypes(op.Operands[1:])
	}
}

func verifyCondition(op *ir.Operation) error {
	if op.Block != nil && op.Block.Terminator() != op {
		return ir.OpErrorf(op, "must be the last operation in the parent block")
	}
	if parent := op.ParentOp(); parent == nil || parent.Name != "scf.while" || op.Block.Region != parent.Regions[0] {
		return ir.OpErrorf(op, "expects parent op 'scf.while' (in its before region)")
	}
	if len(op.Operands) == 0 || !ir.TypesEqual(op.Operands[0].Type, ir.I1) {
		return ir.OpErrorf(op, "operand #0 must be 1-bit signless integer")
	}
	return nil
}

// scf.execute_region [-> (t, ...)] [no_inline] { ... } attr-dict
func parseExecuteRegion(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var results []ir.Type
	if p.Optional("->") {
		var err error
		if results, err = p.ParseFunctionResultTypes(); err != nil {
			return nil, err
		}
	}
	if p.OptionalKeyword("no_inline") {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "no_inline", Value: ir.UnitAttr{}})
	}
	if _, err := p.ParseRegion(op, nil); err != nil {
		return nil, err
	}
	return results, p.ParseOptionalAttrDict(op)
}

func printExecuteRegion(p *ir.Printer, op *ir.Operation) {
	if len(op.Results) > 0 {
		p.WriteString(" -> ")
		p.ResultTypes(types(op.Results))
	}
	if op.HasAttr("no_inline") {
		p.WriteString(" no_inline")
	}
	p.WriteString(" ")
	p.Region(op.Regions[0], false)
	p.AttrDict(op, "no_inline")
}

func verifyExecuteRegion(op *ir.Operation) error {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) == 0 {
		return ir.OpErrorf(op, "region needs to have at least one block")
	}
	if len(op.Regions[0].Blocks[0].Args) > 0 {
		return ir.OpErrorf(op, "region cannot have any arguments")
	}
	for _, b := range op.Regions[0].Blocks {
		t := b.Terminator()
		if t == nil {
			return ir.OpErrorf(op, "block has no terminator")
		}
		if t.Name == "scf.yield" {
			if err := checkYield(op, t, types(op.Results), "result"); err != nil {
				return err
			}
		}
	}
	return nil
}

// IndexSwitch gives structured access to an scf.index_switch: one index
// operand, `cases` (an i64 array) and the regions default first, then one
// per case in order.
type IndexSwitch struct{ Op *ir.Operation }

// Cases returns the case values.
func (s IndexSwitch) Cases() []int64 {
	if a, ok := s.Op.Attr("cases").(*ir.DenseArrayAttr); ok {
		return a.Values
	}
	return nil
}

// Default returns the default region's block.
func (s IndexSwitch) Default() *ir.Block { return s.Op.Regions[0].Blocks[0] }

// Case returns case i's block.
func (s IndexSwitch) Case(i int) *ir.Block { return s.Op.Regions[i+1].Blocks[0] }

// scf.index_switch %arg attr-dict [-> types] (case N { ... })* default { ... }
func parseIndexSwitch(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	arg, err := p.ParseTypedOperand(ir.IndexType{})
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	var results []ir.Type
	if p.Optional("->") {
		if results, err = p.ParseTypeList(); err != nil {
			return nil, err
		}
	}
	// The default region comes first in the op but last in the text, so
	// the case regions are parsed onto the op and moved behind it.
	cases := &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{}}
	for p.OptionalKeyword("case") {
		v, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		if err := parseBodyRegion(p, op, nil, len(results) == 0); err != nil {
			return nil, err
		}
		cases.Values = append(cases.Values, v)
	}
	if err := p.ExpectKeyword("default"); err != nil {
		return nil, err
	}
	if err := parseBodyRegion(p, op, nil, len(results) == 0); err != nil {
		return nil, err
	}
	last := len(op.Regions) - 1
	op.Regions = append([]*ir.Region{op.Regions[last]}, op.Regions[:last]...)
	op.Operands = []*ir.Value{arg}
	op.Attrs = append([]ir.NamedAttr{{Name: "cases", Value: cases}}, op.Attrs...)
	return results, nil
}

func printIndexSwitch(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.AttrDict(op, "cases")
	if len(op.Results) > 0 {
		p.WriteString(" -> ")
		p.Types(types(op.Results))
	}
	for i, v := range (IndexSwitch{op}).Cases() {
		if i+1 >= len(op.Regions) {
			break
		}
		p.Newline(0)
		p.WriteString("case " + strconv.FormatInt(v, 10) + " ")
		p.Region(op.Regions[i+1], false)
	}
	p.Newline(0)
	p.WriteString("default ")
	p.Region(op.Regions[0], false)
}

func verifyIndexSwitch(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	if _, ok := op.Operands[0].Type.(ir.IndexType); !ok {
		return ir.OpErrorf(op, "operand #0 must be index, but got '%s'", ir.TypeString(op.Operands[0].Type))
	}
	cases := (IndexSwitch{op}).Cases()
	if _, ok := op.Attr("cases").(*ir.DenseArrayAttr); !ok {
		return ir.OpErrorf(op, "requires a 'cases' i64 array attribute")
	}
	if len(op.Regions) != len(cases)+1 {
		return ir.OpErrorf(op, "has %d case regions but %d case values", len(op.Regions)-1, len(cases))
	}
	seen := map[int64]bool{}
	for _, v := range cases {
		if seen[v] {
			return ir.OpErrorf(op, "has duplicate case value: %d", v)
		}
		seen[v] = true
	}
	for i := range op.Regions {
		what := "default"
		if i > 0 {
			what = "case " + strconv.FormatInt(cases[i-1], 10)
		}
		b, err := singleBlock(op, i, what)
		if err != nil {
			return err
		}
		if err := yieldsResults(op, b, what); err != nil {
			return err
		}
	}
	return nil
}

// scf.yield attr-dict [%a, ... : t, ...]
func parseYield(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	vs, _, err := p.ParseOptionalOperandsColonTypes()
	op.Operands = vs
	return nil, err
}

func printYield(p *ir.Printer, op *ir.Operation) {
	p.AttrDict(op)
	p.OperandsColonTypes(op.Operands)
}

func verifyYield(op *ir.Operation) error {
	if op.Block != nil && op.Block.Terminator() != op {
		return ir.OpErrorf(op, "must be the last operation in the parent block")
	}
	switch parent := op.ParentOp(); {
	case parent == nil:
		return ir.OpErrorf(op, "expects parent op to be one of 'scf.execute_region, scf.for, scf.if, scf.index_switch, scf.while'")
	case parent.Name == "scf.while" && op.Block.Region == parent.Regions[0]:
		return ir.OpErrorf(op, "cannot end the before region of 'scf.while' (use 'scf.condition')")
	case parent.Name == "scf.execute_region", parent.Name == "scf.for", parent.Name == "scf.if", parent.Name == "scf.while", parent.Name == "scf.index_switch":
		return nil
	default:
		return ir.OpErrorf(op, "expects parent op to be one of 'scf.execute_region, scf.for, scf.if, scf.index_switch, scf.while'")
	}
}
