package hal

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Target conditions: a hal.dispatch.extern target may carry
// `if(%device: !hal.device) -> i1 { ... hal.return %ok : i1 }`, a host
// region that decides at run time whether the target's variant may run on
// the device; outlining moves it into the variant as
// hal.executable.condition. hal.device.query answers device questions
// inside such regions (and in workgroup count regions).

func registerConditionOps(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "hal.executable.condition", Parse: parseCondition, Print: printCondition, Verify: verifyCondition, IsolatedFromAbove: true})
	r.RegisterOp(&ir.OpDef{Name: "hal.device.query", Parse: parseDeviceQuery, Print: printDeviceQuery, Verify: verifyDeviceQuery})
}

// parseConditionRegion parses `(%device: !hal.device) -> i1 { ... }` and
// appends the region to op.
func parseConditionRegion(p *ir.Parser, op *ir.Operation) error {
	args, err := p.ParseArgumentList(true)
	if err != nil {
		return err
	}
	if err := p.Expect("->"); err != nil {
		return err
	}
	pos := p.Pos()
	res, err := p.ParseFunctionResultTypes()
	if err != nil {
		return err
	}
	if len(res) != 1 || !isI1(res[0]) {
		return ir.Errorf(pos, "target condition region must return one i1")
	}
	_, err = p.ParseRegion(op, args)
	return err
}

// printConditionRegion prints `(%device: !hal.device) -> i1 { ... }`.
func printConditionRegion(p *ir.Printer, r *ir.Region) {
	p.ArgList(r.Blocks[0].Args)
	p.WriteString(" -> i1 ")
	p.Region(r, false)
}

func isI1(t ir.Type) bool {
	it, ok := t.(ir.IntegerType)
	return ok && it.Width == 1
}

func isDevice(t ir.Type) bool {
	dt, ok := t.(*ir.DialectType)
	return ok && dt.Name == "hal.device"
}

// verifyConditionRegion applies IREE's rules: the region takes one
// !hal.device and every hal.return returns one i1.
func verifyConditionRegion(op *ir.Operation, r *ir.Region) error {
	if len(r.Blocks) == 0 {
		return nil
	}
	if args := r.Blocks[0].Args; len(args) != 1 || !isDevice(args[0].Type) {
		return ir.OpErrorf(op, "target condition region must take a !hal.device")
	}
	for _, b := range r.Blocks {
		t := b.Terminator()
		if t == nil || t.Name != "hal.return" {
			return ir.OpErrorf(op, "target condition region must end with 'hal.return'")
		}
		if len(t.Operands) != 1 || !isI1(t.Operands[0].Type) {
			return ir.OpErrorf(t, "target condition region must return a single i1 result")
		}
	}
	return nil
}

func parseCondition(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := parseConditionRegion(p, op); err != nil {
		return nil, err
	}
	return nil, p.ParseOptionalAttrDictWithKeyword(op)
}

func printCondition(p *ir.Printer, op *ir.Operation) {
	if len(op.Regions) == 1 && len(op.Regions[0].Blocks) > 0 {
		printConditionRegion(p, op.Regions[0])
	}
	p.AttrDictWithKeyword(op)
}

func verifyCondition(op *ir.Operation) error {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) == 0 {
		return ir.OpErrorf(op, "requires a condition region")
	}
	if parent := op.ParentOp(); parent != nil && parent.Name != "hal.executable.variant" {
		return ir.OpErrorf(op, "must be inside a hal.executable.variant, not '%s'", parent.Name)
	}
	return verifyConditionRegion(op, op.Regions[0])
}

// Condition returns the hal.executable.condition of a variant, or nil.
func Condition(variant *ir.Operation) *ir.Operation {
	if variant.Body() == nil {
		return nil
	}
	for _, o := range variant.Body().Ops {
		if o.Name == "hal.executable.condition" {
			return o
		}
	}
	return nil
}

// ---- hal.device.query ----

// `%ok, %value = hal.device.query<%device : !hal.device>
//
//	key("category" :: "key") : i1, T [= default]`
func parseDeviceQuery(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	pos := p.Pos()
	dev, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	dt, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(dev, dt, pos); err != nil {
		return nil, err
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("key"); err != nil {
		return nil, err
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	category, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	if err := p.Expect("::"); err != nil {
		return nil, err
	}
	key, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{dev}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "category", Value: ir.StringAttr{Value: category}},
		ir.NamedAttr{Name: "key", Value: ir.StringAttr{Value: key}})
	if p.Optional("=") {
		d, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "default_value", Value: d})
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	return ts, nil
}

func printDeviceQuery(p *ir.Printer, op *ir.Operation) {
	p.WriteString("<")
	p.Operand(op.Operands[0])
	p.WriteString(" : ")
	p.Type(op.Operands[0].Type)
	p.WriteString("> key(")
	p.Attr(op.Attr("category"))
	p.WriteString(" :: ")
	p.Attr(op.Attr("key"))
	p.WriteString(") : ")
	var ts []ir.Type
	for _, r := range op.Results {
		ts = append(ts, r.Type)
	}
	p.Types(ts)
	if d := op.Attr("default_value"); d != nil {
		p.WriteString(" = ")
		p.Attr(d)
	}
	p.AttrDict(op, "category", "key", "default_value")
}

func verifyDeviceQuery(op *ir.Operation) error {
	if len(op.Operands) != 1 || !isDevice(op.Operands[0].Type) {
		return ir.OpErrorf(op, "queries a !hal.device operand")
	}
	if len(op.Results) != 2 || !isI1(op.Results[0].Type) {
		return ir.OpErrorf(op, "returns (i1 ok, value): two results, the first i1")
	}
	switch t := op.Results[1].Type.(type) {
	case ir.IntegerType:
		if t.Width != 1 && t.Width != 32 && t.Width != 64 {
			return ir.OpErrorf(op, "value type must be i1, i32, i64 or index, found '%s'", ir.TypeString(t))
		}
	case ir.IndexType:
	default:
		return ir.OpErrorf(op, "value type must be i1, i32, i64 or index, found '%s'", ir.TypeString(t))
	}
	if _, ok := op.Attr("category").(ir.StringAttr); !ok {
		return ir.OpErrorf(op, "requires a string 'category'")
	}
	if _, ok := op.Attr("key").(ir.StringAttr); !ok {
		return ir.OpErrorf(op, "requires a string 'key'")
	}
	return nil
}
