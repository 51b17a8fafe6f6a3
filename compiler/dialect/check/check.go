// Package check registers IREE's check dialect, the assertions of
// IREE-style e2e tests: check.expect_true, expect_false, expect_all_true,
// expect_eq, expect_eq_const, expect_almost_eq and expect_almost_eq_const.
//
// Every op but expect_true and expect_false takes an optional !hal.device
// first (`check.expect_eq<%device>(%a, %b)`); with one optional operand
// MLIR needs no operandSegmentSizes, so the operands are simply [device?,
// lhs, rhs?]. The _const forms keep the expected elements in `value`. The
// almost-equal forms always carry `atol` and `rtol` (f32), set to IREE's
// defaults (1e-4 and 0) when the source leaves them out, as MLIR fills in
// default-valued attributes; Dec 2022 programs, which could not spell
// them, read the same way.
package check

import (
	"math"
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// DefaultAtol and DefaultRtol are the tolerances of an almost-equal check
// that does not give them.
const (
	DefaultAtol = 1e-4
	DefaultRtol = 0.0
)

var f32 = ir.FloatType{Name: "f32"}

// Register adds the check ops to r.
func Register(r *ir.Registry) {
	for _, n := range []string{"expect_true", "expect_false"} {
		r.RegisterOp(&ir.OpDef{Name: "check." + n, Parse: parseScalar, Print: printScalar, Verify: verifyScalar})
	}
	for _, d := range []struct {
		name        string
		operands    int  // lhs, or lhs and rhs
		isConst     bool // rhs is the `value` attribute
		tolerances  bool
		floatOnly   bool
		integerOnly bool
	}{
		{name: "expect_all_true", operands: 1, integerOnly: true},
		{name: "expect_eq", operands: 2},
		{name: "expect_eq_const", operands: 1, isConst: true},
		{name: "expect_almost_eq", operands: 2, tolerances: true, floatOnly: true},
		{name: "expect_almost_eq_const", operands: 1, isConst: true, tolerances: true, floatOnly: true},
	} {
		d := d
		f := form{operands: d.operands, isConst: d.isConst, tolerances: d.tolerances, floatOnly: d.floatOnly, integerOnly: d.integerOnly}
		r.RegisterOp(&ir.OpDef{Name: "check." + d.name, Parse: f.parse, Print: f.print, Verify: f.verify})
	}
}

// Operands splits a check op's operands into the optional device and the
// compared values (lhs, and rhs for expect_eq and expect_almost_eq).
func Operands(op *ir.Operation) (device *ir.Value, values []*ir.Value) {
	vs := op.Operands
	if len(vs) > 0 && isDevice(vs[0].Type) {
		return vs[0], vs[1:]
	}
	return nil, vs
}

// Tolerances returns the atol and rtol of an almost-equal check, falling
// back to the defaults when an attribute is missing.
func Tolerances(op *ir.Operation) (atol, rtol float64) {
	atol, rtol = DefaultAtol, DefaultRtol
	if a, ok := op.Attr("atol").(ir.FloatAttr); ok {
		atol = a.Value
	}
	if a, ok := op.Attr("rtol").(ir.FloatAttr); ok {
		rtol = a.Value
	}
	return atol, rtol
}

func isDevice(t ir.Type) bool {
	d, ok := t.(*ir.DialectType)
	return ok && d.Name == "hal.device" && d.Body == ""
}

func isBufferView(t ir.Type) bool {
	d, ok := t.(*ir.DialectType)
	return ok && d.Name == "hal.buffer_view" && d.Body == ""
}

func isSignless(t ir.Type) bool {
	it, ok := t.(ir.IntegerType)
	return ok && it.Signedness == ir.Signless
}

// check.expect_true(%x) attr-dict : type
func parseScalar(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	t, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	return nil, p.ResolveType(v, t, tpos)
}

func printScalar(p *ir.Printer, op *ir.Operation) {
	p.WriteString("(")
	p.Operands(op.Operands)
	p.WriteString(")")
	p.AttrDict(op)
	if len(op.Operands) == 1 {
		p.WriteString(" : ")
		p.Type(op.Operands[0].Type)
	}
}

func verifyScalar(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	if t := op.Operands[0].Type; !isSignless(t) {
		return ir.OpErrorf(op, "operand #0 must be signless integer, but got '%s'", ir.TypeString(t))
	}
	return nil
}

// form is the shared assembly of the tensor checks:
//
//	check.op[<%device>](%lhs[, %rhs | , value][, atol X][, rtol Y]) attr-dict : type
type form struct {
	operands               int
	isConst                bool
	tolerances             bool
	floatOnly, integerOnly bool
}

func (f form) parse(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var device *ir.Value
	dpos := p.Pos()
	if p.Optional("<") {
		var err error
		if device, err = p.ParseOperand(); err != nil {
			return nil, err
		}
		if err := p.Expect(">"); err != nil {
			return nil, err
		}
		if err := p.ResolveType(device, &ir.DialectType{Name: "hal.device"}, dpos); err != nil {
			return nil, err
		}
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	var vs []*ir.Value
	for i := 0; i < f.operands; i++ {
		if i > 0 {
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	if f.isConst {
		if err := p.Expect(","); err != nil {
			return nil, err
		}
		vpos := p.Pos()
		a, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		if _, ok := a.(*ir.DenseAttr); !ok {
			return nil, ir.Errorf(vpos, "expected a dense elements attribute for the expected value, found %s", ir.AttrString(a))
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "value", Value: a})
	}
	if f.tolerances {
		atol, rtol := DefaultAtol, DefaultRtol
		for _, kw := range []string{"atol", "rtol"} {
			if !p.IsKeywordAfter(",", kw) {
				continue
			}
			p.Optional(",")
			p.OptionalKeyword(kw)
			v, err := parseFloat(p)
			if err != nil {
				return nil, err
			}
			if kw == "atol" {
				atol = v
			} else {
				rtol = v
			}
		}
		op.Attrs = append(op.Attrs,
			ir.NamedAttr{Name: "atol", Value: ir.FloatAttr{Value: atol, Type: f32}},
			ir.NamedAttr{Name: "rtol", Value: ir.FloatAttr{Value: rtol, Type: f32}})
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	t, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if err := p.ResolveType(v, t, tpos); err != nil {
			return nil, err
		}
	}
	if device != nil {
		vs = append([]*ir.Value{device}, vs...)
	}
	op.Operands = vs
	return nil, nil
}

// parseFloat consumes a possibly negative float or integer literal.
func parseFloat(p *ir.Parser) (float64, error) {
	pos := p.Pos()
	a, err := p.ParseAttribute()
	if err != nil {
		return 0, err
	}
	switch a := a.(type) {
	case ir.FloatAttr:
		return a.Value, nil
	case ir.IntegerAttr:
		return float64(a.Value), nil
	}
	return 0, ir.Errorf(pos, "expected a floating point tolerance, found %s", ir.AttrString(a))
}

// sameF32 compares two tolerances at the attribute's f32 precision.
func sameF32(a, b float64) bool { return float32(a) == float32(b) }

// formatF32 prints a tolerance as the shortest literal that reads back to
// the same f32.
func formatF32(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ir.FormatFloat(v, f32)
	}
	return ir.FormatFloat(mustParse(strconv.FormatFloat(v, 'g', -1, 32)), f32)
}

func mustParse(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

func (f form) print(p *ir.Printer, op *ir.Operation) {
	device, vs := Operands(op)
	if device != nil {
		p.WriteString("<")
		p.Operand(device)
		p.WriteString(">")
	}
	p.WriteString("(")
	p.Operands(vs)
	elided := []string{}
	if f.isConst {
		p.WriteString(", ")
		if v := op.Attr("value"); v != nil {
			p.Attr(v)
		}
		elided = append(elided, "value")
	}
	if f.tolerances {
		for _, c := range []struct {
			name string
			def  float64
		}{{"atol", DefaultAtol}, {"rtol", DefaultRtol}} {
			a, ok := op.Attr(c.name).(ir.FloatAttr)
			if !ok {
				continue
			}
			elided = append(elided, c.name)
			if !sameF32(a.Value, c.def) {
				p.WriteString(", " + c.name + " " + formatF32(a.Value))
			}
		}
	}
	p.WriteString(")")
	p.AttrDict(op, elided...)
	if len(vs) > 0 {
		p.WriteString(" : ")
		p.Type(vs[0].Type)
	}
}

func (f form) verify(op *ir.Operation) error {
	device, vs := Operands(op)
	if len(vs) != f.operands {
		n := f.operands
		if device != nil {
			n++
		}
		return ir.OpErrorf(op, "expected %d operands (with an optional leading !hal.device), but found %d", n, len(op.Operands))
	}
	t := vs[0].Type
	for i, v := range vs[1:] {
		if !ir.TypesEqual(v.Type, t) {
			return ir.OpErrorf(op, "failed to verify that all of {lhs, rhs} have same type: operand #%d is '%s', lhs is '%s'", i+1, ir.TypeString(v.Type), ir.TypeString(t))
		}
	}
	tt, isTensor := t.(*ir.TensorType)
	if !isTensor && (f.isConst || !isBufferView(t)) {
		if f.isConst {
			return ir.OpErrorf(op, "lhs must be a tensor, but got '%s'", ir.TypeString(t))
		}
		return ir.OpErrorf(op, "operands must be tensors or !hal.buffer_view, but got '%s'", ir.TypeString(t))
	}
	if isTensor {
		switch et := tt.ElementType(); {
		case f.floatOnly:
			if _, ok := et.(ir.FloatType); !ok {
				return ir.OpErrorf(op, "operands must be tensors of floating-point values, but got '%s'", ir.TypeString(t))
			}
		case f.integerOnly:
			if !isSignless(et) {
				return ir.OpErrorf(op, "operand must be a tensor of signless integers, but got '%s'", ir.TypeString(t))
			}
		}
	}
	if f.isConst {
		d, ok := op.Attr("value").(*ir.DenseAttr)
		if !ok {
			return ir.OpErrorf(op, "requires a dense elements attribute 'value'")
		}
		if !ir.TypesEqual(d.Type, t) {
			return ir.OpErrorf(op, "failed to verify that all of {lhs, value} have same type: value is '%s', lhs is '%s'", ir.TypeString(d.Type), ir.TypeString(t))
		}
	}
	if f.tolerances {
		for _, n := range []string{"atol", "rtol"} {
			a, ok := op.Attr(n).(ir.FloatAttr)
			if !ok || !ir.TypesEqual(a.Type, f32) {
				return ir.OpErrorf(op, "requires an f32 attribute '%s'", n)
			}
			if a.Value < 0 || math.IsNaN(a.Value) {
				return ir.OpErrorf(op, "'%s' must be a non-negative number, found %s", n, formatF32(a.Value))
			}
		}
	}
	return nil
}
