// Package stablehlo registers the StableHLO dialect and its predecessor
// MHLO (the same ops spelled mhlo.*), which IREE accepts as input
// dialects; package conversion/stablehlotolinalg lowers them.
//
// Each op parses in MLIR's generic form and, for the ops below, in the
// custom forms StableHLO's printers write (as JAX, torch-mlir and IREE's
// tests do):
//
//	%r = stablehlo.add %a, %b : tensor<4xf32>                  // one type for all
//	%r = stablehlo.convert %a : (tensor<4xi32>) -> tensor<4xf32> // functional
//	%s = stablehlo.select %p, %a, %b : tensor<i1>, tensor<f32>   // predicate type, type
//	%c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
//	%t = stablehlo.transpose %x, dims = [1, 0] : (tensor<1x5xf32>) -> tensor<5x1xf32>
//	%y = stablehlo.slice %x [0:2, 1:3:2] : (tensor<4x4xf32>) -> tensor<2x1xf32>
//	%d = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : ...
//	%v = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...} : ...
//	%r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : ...
//	%w:2 = stablehlo.while(%i = %0, %x = %1) : tensor<i32>, tensor<f32> cond { ... } do { ... }
//
// The elementwise ops, compare (`LT, %a, %b, TOTALORDER`), constant,
// return, rng, fft and custom_call are in stablehlo.go; transpose,
// reshape, broadcast_in_dim, broadcast, dynamic_broadcast_in_dim,
// reverse, iota, dynamic_iota, slice, concatenate, pad, dynamic_slice,
// dynamic_update_slice, dynamic_reshape, get_dimension_size,
// set_dimension_size, cholesky, einsum, unary_einsum, rng_bit_generator,
// tuple, get_tuple_element, optimization_barrier, reduce_precision, dot
// and dot_general in forms.go; convolution in conv.go; reduce and while
// in regions.go. The others (gather, scatter, sort, reduce_window,
// select_and_scatter, if, case, map, batch_norm_*, ...) are written in
// the generic form by StableHLO's printers too, and parse only so here. A clause parses into exactly the attribute the generic form holds
// (dims = [1, 0] into permutation = array<i64: 1, 0>; dim_numbers into
// #stablehlo.conv<raw ...>); attributes parsed with a custom form are
// sorted by name, as MLIR's attribute dictionaries are.
//
// Ops print in their custom forms; a clause whose attribute has a form
// the clause cannot spell (an MHLO dense<...> list, say) is left out and
// the attribute printed in the dictionary, which the parsers also accept.
package stablehlo

import (
	"sort"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// Prefixes are the dialect names the ops are registered under.
var Prefixes = []string{"stablehlo.", "mhlo."}

// Arity maps each elementwise op (without the dialect prefix) to its
// operand count. All operands and the result share a shape.
var Arity = map[string]int{
	"add": 2, "subtract": 2, "multiply": 2, "divide": 2, "remainder": 2,
	"maximum": 2, "minimum": 2, "power": 2, "atan2": 2,
	"and": 2, "or": 2, "xor": 2,
	"shift_left": 2, "shift_right_logical": 2, "shift_right_arithmetic": 2,
	"negate": 1, "abs": 1, "exponential": 1, "exponential_minus_one": 1,
	"log": 1, "log_plus_one": 1, "tanh": 1, "sqrt": 1, "rsqrt": 1, "cbrt": 1,
	"floor": 1, "ceil": 1, "sign": 1, "not": 1, "sine": 1, "cosine": 1,
	"logistic": 1, "round_nearest_even": 1, "round_nearest_afz": 1,
	"convert": 1, "select": 3, "clamp": 3, "compare": 2, "is_finite": 1, "bitcast_convert": 1,
	"complex": 2, "real": 1, "imag": 1,
}

// Register adds the StableHLO and MHLO elementwise ops (complex, real and
// imag among them), constant, rng, fft, custom_call and the return that
// ends the bodies of reductions to r.
func Register(r *ir.Registry) {
	for _, pre := range Prefixes {
		for n, arity := range Arity {
			n, arity := n, arity
			r.RegisterOp(&ir.OpDef{Name: pre + n, Parse: parseElementwise, Print: printElementwise,
				Verify: func(op *ir.Operation) error { return verifyElementwise(op, n, arity) }})
		}
		r.RegisterOp(&ir.OpDef{Name: pre + "constant", Parse: parseConstant, Print: printConstant, Verify: verifyConstant})
		r.RegisterOp(&ir.OpDef{Name: pre + "return", Parse: parseReturn, Print: printReturn, Verify: verifyReturn})
		r.RegisterOp(&ir.OpDef{Name: pre + "rng", Parse: parseRng, Print: printRng, Verify: verifyRng})
		r.RegisterOp(&ir.OpDef{Name: pre + "fft", Parse: parseFft, Print: printFft, Verify: verifyFft})
		r.RegisterOp(&ir.OpDef{Name: pre + "custom_call", Parse: parseCustomCall, Print: printCustomCall, Verify: verifyCustomCall})
		registerForms(r, pre)
		registerRegionOps(r, pre)
		name := pre[:len(pre)-1]
		r.RegisterAttr(name, func(p *ir.Parser) (ir.Attribute, error) { return parseEnumAttr(p, name) })
	}
}

// parseEnumAttr parses the dialect's enum attributes in their short form,
// `#stablehlo<comparison_direction GT>`, into an opaque attribute whose
// body is the enum's name and case; EnumCase reads them back.
func parseEnumAttr(p *ir.Parser, dialect string) (ir.Attribute, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	kind, err := p.ParseKeyword()
	if err != nil {
		return nil, err
	}
	value, err := p.ParseKeyword()
	if err != nil {
		return nil, err
	}
	body := kind + " " + value
	// MLIR reads a dialect attribute's body as balanced text in which a
	// string literal is one token, brackets inside it included; so
	// `#mhlo<precision DEFAULT">, #mhlo<"precision DEFAULT>`, as IREE's
	// older tests write a list of two, is one attribute. Its trailing
	// string and words are kept in the body.
	for p.IsString() {
		s, err := p.ParseString()
		if err != nil {
			return nil, err
		}
		body += " " + ir.QuoteString(s)
		for k := p.PeekKeyword(); k != ""; k = p.PeekKeyword() {
			p.ParseKeyword()
			body += " " + k
		}
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	return &ir.OpaqueAttr{Name: dialect, Body: body}, nil
}

// EnumCase returns the case of enum attribute kind (e.g.
// "comparison_direction") held in op's attribute attr, written either
// `#stablehlo<kind CASE>` or `#stablehlo.kind<CASE>` (and likewise for
// mhlo); ok is false when attr is absent or of another form.
func EnumCase(op *ir.Operation, attr, kind string) (string, bool) {
	a, ok := op.Attr(attr).(*ir.OpaqueAttr)
	if !ok {
		return "", false
	}
	for _, pre := range Prefixes {
		if a.Name == pre+kind {
			return strings.TrimSpace(a.Body), true
		}
		if a.Name == pre[:len(pre)-1] {
			if c, ok := strings.CutPrefix(a.Body, kind+" "); ok {
				return strings.TrimSpace(c), true
			}
		}
	}
	return "", false
}

// parseElementwise parses `%a, %b attr-dict : type` (every operand and
// the result of that type) or `... : (t1, t2) -> t3`.
func parseElementwise(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var vs []*ir.Value
	var err error
	if strings.HasSuffix(op.Name, ".compare") && p.PeekKeyword() != "" {
		vs, err = parseCompareOperands(p, op)
	} else {
		vs, err = p.ParseOperandList()
	}
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if strings.HasSuffix(op.Name, ".compare") {
		// Sorted as MLIR's dictionaries are, so that the direction and
		// type clauses read back in the dictionary's order.
		sort.SliceStable(op.Attrs, func(i, j int) bool { return op.Attrs[i].Name < op.Attrs[j].Name })
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	if p.Is("(") {
		ft, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		f, ok := ft.(*ir.FunctionType)
		if !ok {
			return nil, ir.Errorf(tpos, "expected a function type, found '%s'", ir.TypeString(ft))
		}
		if len(f.Inputs) != len(vs) {
			return nil, ir.Errorf(tpos, "%d operands but %d operand types", len(vs), len(f.Inputs))
		}
		if err := p.ResolveTypes(vs, f.Inputs, tpos); err != nil {
			return nil, err
		}
		op.Operands = vs
		return f.Results, nil
	}
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	ts := make([]ir.Type, len(vs))
	for i := range ts {
		ts[i] = t
	}
	// complex's one type is its result's: the operands are its real and
	// imaginary parts.
	if strings.HasSuffix(op.Name, ".complex") {
		if parts := complexParts(t); parts != nil {
			for i := range ts {
				ts[i] = parts
			}
		}
	}
	// select's `: pred-type, type` types its predicate apart from the
	// other operands and the result.
	if strings.HasSuffix(op.Name, ".select") && p.Optional(",") {
		if t, err = p.ParseType(); err != nil {
			return nil, err
		}
		for i := 1; i < len(ts); i++ {
			ts[i] = t
		}
	}
	if err := p.ResolveTypes(vs, ts, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return []ir.Type{t}, nil
}

// complexParts returns the type of the real and imaginary parts of a
// tensor of complex numbers t (the same shape, the complex's element
// type), or nil when t is not one.
func complexParts(t ir.Type) ir.Type {
	tt, ok := t.(*ir.TensorType)
	if !ok {
		return nil
	}
	c, ok := tt.Elem.(*ir.ComplexType)
	if !ok {
		return nil
	}
	return &ir.TensorType{Shape: tt.Shape, Elem: c.Elem, Unranked: tt.Unranked, Encoding: tt.Encoding}
}

// parseCompareOperands parses compare's own form, `DIR, %a, %b (, TYPE)?`,
// storing the direction and comparison type as enum attributes.
func parseCompareOperands(p *ir.Parser, op *ir.Operation) ([]*ir.Value, error) {
	dialect := strings.TrimSuffix(op.Name, ".compare")
	dir, err := p.ParseKeyword()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "comparison_direction", Value: &ir.OpaqueAttr{Name: dialect, Body: "comparison_direction " + dir}})
	var vs []*ir.Value
	for i := 0; i < 2; i++ {
		if err := p.Expect(","); err != nil {
			return nil, err
		}
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	if p.Optional(",") {
		typ, err := p.ParseKeyword()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "compare_type", Value: &ir.OpaqueAttr{Name: dialect, Body: "comparison_type " + typ}})
	}
	return vs, nil
}

// compareClauses returns compare's `DIR` and `, TYPE` clause texts when
// its enum attributes have the short forms the clauses parse into.
func compareClauses(op *ir.Operation) (dir, typ string, elided []string, ok bool) {
	dialect := dialectOf(op)
	short := func(name, kind string) (string, bool) {
		a, isOpaque := op.Attr(name).(*ir.OpaqueAttr)
		if !isOpaque || a.Name != dialect {
			return "", false
		}
		c, found := strings.CutPrefix(a.Body, kind+" ")
		return c, found && c != "" && !strings.ContainsAny(c, " ,\"")
	}
	if dir, ok = short("comparison_direction", "comparison_direction"); !ok || len(op.Operands) != 2 {
		return "", "", nil, false
	}
	elided = []string{"comparison_direction"}
	if op.Attr("compare_type") != nil {
		t, tok := short("compare_type", "comparison_type")
		if !tok {
			return "", "", nil, false
		}
		typ = ", " + t
		elided = append(elided, "compare_type")
	}
	return dir, typ, elided, true
}

func printElementwise(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	if dir, typ, elided, ok := compareClauses(op); ok && strings.HasSuffix(op.Name, ".compare") {
		p.WriteString(dir + ", ")
		p.Operands(op.Operands)
		p.WriteString(typ)
		p.AttrDict(op, elided...)
	} else {
		p.Operands(op.Operands)
		p.AttrDict(op)
	}
	p.WriteString(" : ")
	same := len(op.Results) == 1
	for _, v := range op.Operands {
		same = same && ir.TypeString(v.Type) == ir.TypeString(op.Results[0].Type)
	}
	if same {
		p.Types([]ir.Type{op.Results[0].Type})
		return
	}
	if strings.HasSuffix(op.Name, ".complex") && len(op.Operands) == 2 && len(op.Results) == 1 {
		if parts := complexParts(op.Results[0].Type); parts != nil &&
			ir.TypeString(op.Operands[0].Type) == ir.TypeString(parts) && ir.TypeString(op.Operands[1].Type) == ir.TypeString(parts) {
			p.Types([]ir.Type{op.Results[0].Type})
			return
		}
	}
	if strings.HasSuffix(op.Name, ".select") && len(op.Operands) == 3 && len(op.Results) == 1 {
		rt := ir.TypeString(op.Results[0].Type)
		if ir.TypeString(op.Operands[1].Type) == rt && ir.TypeString(op.Operands[2].Type) == rt {
			p.Types([]ir.Type{op.Operands[0].Type, op.Results[0].Type})
			return
		}
	}
	var ins, outs []ir.Type
	for _, v := range op.Operands {
		ins = append(ins, v.Type)
	}
	for _, v := range op.Results {
		outs = append(outs, v.Type)
	}
	p.WriteString("(")
	p.Types(ins)
	p.WriteString(") -> ")
	p.ResultTypes(outs)
}

// parseConstant parses `attr-dict dense<...> : type`.
func parseConstant(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	pos := p.Pos()
	a, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	d, ok := a.(*ir.DenseAttr)
	if !ok {
		return nil, ir.Errorf(pos, "constant value must be a dense elements attribute, found %s", ir.AttrString(a))
	}
	op.Attrs = append([]ir.NamedAttr{{Name: "value", Value: d}}, op.Attrs...)
	return []ir.Type{d.Type}, nil
}

func printConstant(p *ir.Printer, op *ir.Operation) {
	p.AttrDict(op, "value")
	p.WriteString(" ")
	p.Attr(op.Attr("value"))
}

// Ranked returns t as a ranked tensor type, or nil.
func Ranked(t ir.Type) *ir.TensorType {
	if tt, ok := t.(*ir.TensorType); ok && !tt.Unranked {
		return tt
	}
	return nil
}

func verifyConstant(op *ir.Operation) error {
	d, ok := op.Attr("value").(*ir.DenseAttr)
	if !ok {
		return ir.OpErrorf(op, "requires a dense elements 'value' attribute")
	}
	if len(op.Operands) != 0 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "takes no operands and has one result")
	}
	if ir.TypeString(d.Type) != ir.TypeString(op.Results[0].Type) {
		return ir.OpErrorf(op, "value of type '%s' does not match result type '%s'", ir.TypeString(d.Type), ir.TypeString(op.Results[0].Type))
	}
	return nil
}

func verifyElementwise(op *ir.Operation, name string, arity int) error {
	if len(op.Operands) != arity || len(op.Results) != 1 {
		return ir.OpErrorf(op, "expects %d operands and one result, found %d and %d", arity, len(op.Operands), len(op.Results))
	}
	rt := Ranked(op.Results[0].Type)
	if rt == nil {
		return ir.OpErrorf(op, "result must be a ranked tensor, found '%s'", ir.TypeString(op.Results[0].Type))
	}
	for i, v := range op.Operands {
		t := Ranked(v.Type)
		if t == nil {
			return ir.OpErrorf(op, "operand #%d must be a ranked tensor, found '%s'", i, ir.TypeString(v.Type))
		}
		// select and clamp take a scalar (rank-0) predicate or bound.
		if len(t.Shape) == 0 && (name == "select" && i == 0 || name == "clamp" && i != 1) {
			continue
		}
		if len(t.Shape) != len(rt.Shape) {
			return ir.OpErrorf(op, "operand #%d has rank %d but the result has rank %d", i, len(t.Shape), len(rt.Shape))
		}
		for d := range t.Shape {
			if t.Shape[d] != rt.Shape[d] && t.Shape[d] >= 0 && rt.Shape[d] >= 0 {
				return ir.OpErrorf(op, "operand #%d shape '%s' does not match the result's '%s'", i, ir.TypeString(v.Type), ir.TypeString(op.Results[0].Type))
			}
		}
	}
	return nil
}

// parseReturn parses `%a, %b attr-dict : t1, t2` (or nothing but the
// attributes, for a return of no values).
func parseReturn(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	if len(vs) > 0 {
		if err := p.Expect(":"); err != nil {
			return nil, err
		}
		tpos := p.Pos()
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

func printReturn(p *ir.Printer, op *ir.Operation) {
	if len(op.Operands) > 0 {
		p.WriteString(" ")
		p.Operands(op.Operands)
	}
	p.AttrDict(op)
	if len(op.Operands) > 0 {
		var ts []ir.Type
		for _, v := range op.Operands {
			ts = append(ts, v.Type)
		}
		p.WriteString(" : ")
		p.Types(ts)
	}
}

// verifyReturn checks that return ends the body of an op (its operands
// are checked against that op by its lowering).
func verifyReturn(op *ir.Operation) error {
	if len(op.Results) != 0 {
		return ir.OpErrorf(op, "has no results")
	}
	if op.ParentOp() == nil || op.Block.Ops[len(op.Block.Ops)-1] != op {
		return ir.OpErrorf(op, "must end the body of an op")
	}
	return nil
}

// parseRng parses `%a, %b, %shape, distribution = KIND attr-dict :
// (t1, t2, t3) -> t`, storing KIND as the rng_distribution enum attribute.
func parseRng(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	dialect := strings.TrimSuffix(op.Name, ".rng")
	var vs []*ir.Value
	for {
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
		if !p.Optional(",") {
			break
		}
		if !p.IsValueID() {
			if err := p.ExpectKeyword("distribution"); err != nil {
				return nil, err
			}
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			kind, err := p.ParseKeyword()
			if err != nil {
				return nil, err
			}
			op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "rng_distribution", Value: &ir.OpaqueAttr{Name: dialect, Body: "rng_distribution " + kind}})
			break
		}
	}
	return parseFunctionTypeTail(p, op, vs)
}

func printRng(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	// The distribution prints in the op's own clause when its attribute
	// has the form that clause parses into (#stablehlo<rng_distribution
	// X>), so that the custom form reads back the same.
	elided := []string{}
	if a, ok := op.Attr("rng_distribution").(*ir.OpaqueAttr); ok && a.Name == strings.TrimSuffix(op.Name, ".rng") {
		if kind, short := strings.CutPrefix(a.Body, "rng_distribution "); short {
			p.WriteString(", distribution = " + kind)
			elided = append(elided, "rng_distribution")
		}
	}
	printFunctionTypeTail(p, op, elided...)
}

// verifyRng checks rng's operands (two rank-0 parameters of the result's
// element type and a rank-1 shape) and its distribution.
func verifyRng(op *ir.Operation) error {
	if len(op.Operands) != 3 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "expects 3 operands and one result, found %d and %d", len(op.Operands), len(op.Results))
	}
	rt := Ranked(op.Results[0].Type)
	if rt == nil {
		return ir.OpErrorf(op, "result must be a ranked tensor, found '%s'", ir.TypeString(op.Results[0].Type))
	}
	for i, v := range op.Operands[:2] {
		if t := Ranked(v.Type); t == nil || len(t.Shape) != 0 || ir.TypeString(t.Elem) != ir.TypeString(rt.Elem) {
			return ir.OpErrorf(op, "operand #%d must be a rank-0 tensor of '%s', found '%s'", i, ir.TypeString(rt.Elem), ir.TypeString(v.Type))
		}
	}
	if t := Ranked(op.Operands[2].Type); t == nil || len(t.Shape) != 1 {
		return ir.OpErrorf(op, "the shape operand must be a rank-1 tensor, found '%s'", ir.TypeString(op.Operands[2].Type))
	}
	switch kind, _ := EnumCase(op, "rng_distribution", "rng_distribution"); kind {
	case "UNIFORM", "NORMAL":
		return nil
	case "":
		return ir.OpErrorf(op, "requires an rng_distribution attribute such as #stablehlo<rng_distribution UNIFORM>")
	default:
		return ir.OpErrorf(op, "unknown rng_distribution '%s'", kind)
	}
}

// parseFft parses `%x (, type = KIND, length = [n, ...])? attr-dict :
// (t) -> t`, storing KIND as the fft_type enum attribute and the lengths
// as the i64 array fft_length.
func parseFft(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	dialect := strings.TrimSuffix(op.Name, ".fft")
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	// The clauses are left out when the attributes are written in the
	// attribute dictionary instead.
	if p.Optional(",") {
		if err := parseFftClauses(p, op, dialect); err != nil {
			return nil, err
		}
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
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
	f, ok := ft.(*ir.FunctionType)
	if !ok || len(f.Inputs) != 1 {
		return nil, ir.Errorf(tpos, "expected a function type of one input, found '%s'", ir.TypeString(ft))
	}
	if err := p.ResolveTypes([]*ir.Value{v}, f.Inputs, tpos); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	return f.Results, nil
}

// parseFftClauses parses `type = KIND, length = [n, ...]`.
func parseFftClauses(p *ir.Parser, op *ir.Operation, dialect string) error {
	if err := p.ExpectKeyword("type"); err != nil {
		return err
	}
	if err := p.Expect("="); err != nil {
		return err
	}
	kind, err := p.ParseKeyword()
	if err != nil {
		return err
	}
	for _, s := range []string{",", "length", "=", "["} {
		if s == "length" {
			err = p.ExpectKeyword(s)
		} else {
			err = p.Expect(s)
		}
		if err != nil {
			return err
		}
	}
	var lengths []int64
	for !p.Optional("]") {
		if len(lengths) > 0 {
			if err := p.Expect(","); err != nil {
				return err
			}
		}
		n, err := p.ParseInteger()
		if err != nil {
			return err
		}
		lengths = append(lengths, n)
	}
	op.Attrs = append(op.Attrs,
		ir.NamedAttr{Name: "fft_type", Value: &ir.OpaqueAttr{Name: dialect, Body: "fft_type " + kind}},
		ir.NamedAttr{Name: "fft_length", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: lengths}})
	return nil
}

// printFft prints the type and length clauses when the attributes have
// the forms they parse into, and the attributes otherwise.
func printFft(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	elided := []string{}
	t, _ := op.Attr("fft_type").(*ir.OpaqueAttr)
	l, lok := op.Attr("fft_length").(*ir.DenseArrayAttr)
	kind, short := "", false
	if t != nil && t.Name == strings.TrimSuffix(op.Name, ".fft") {
		kind, short = strings.CutPrefix(t.Body, "fft_type ")
	}
	if short && lok && len(op.Operands) == 1 {
		p.WriteString(", type = " + kind + ", length = [")
		for i, n := range l.Values {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(strconv.FormatInt(n, 10))
		}
		p.WriteString("]")
		elided = append(elided, "fft_type", "fft_length")
	}
	printFunctionTypeTail(p, op, elided...)
}

// verifyFft checks fft's operand and result count, its type and that it
// has a length.
func verifyFft(op *ir.Operation) error {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "expects one operand and one result, found %d and %d", len(op.Operands), len(op.Results))
	}
	switch kind, _ := EnumCase(op, "fft_type", "fft_type"); kind {
	case "FFT", "IFFT", "RFFT", "IRFFT":
	case "":
		return ir.OpErrorf(op, "requires an fft_type attribute such as #stablehlo<fft_type RFFT>")
	default:
		return ir.OpErrorf(op, "unknown fft_type '%s'", kind)
	}
	if op.Attr("fft_length") == nil {
		return ir.OpErrorf(op, "requires an fft_length attribute")
	}
	return nil
}

// parseCustomCall parses `@target(%a, ...) attr-dict : (t, ...) -> r`,
// storing the target as call_target_name.
func parseCustomCall(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	target, err := p.ParseSymbolName()
	if err != nil {
		return nil, err
	}
	vs, err := p.ParseDelimitedOperands("(", ")")
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "call_target_name", Value: ir.StringAttr{Value: target}})
	return parseFunctionTypeTail(p, op, vs)
}

func printCustomCall(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	target, _ := op.Attr("call_target_name").(ir.StringAttr)
	p.Symbol(target.Value)
	p.WriteString("(")
	p.Operands(op.Operands)
	p.WriteString(")")
	p.AttrDict(op, "call_target_name")
	var ins, outs []ir.Type
	for _, v := range op.Operands {
		ins = append(ins, v.Type)
	}
	for _, v := range op.Results {
		outs = append(outs, v.Type)
	}
	p.WriteString(" : (")
	p.Types(ins)
	p.WriteString(") -> ")
	p.ResultTypes(outs)
}

func verifyCustomCall(op *ir.Operation) error {
	if t, ok := op.Attr("call_target_name").(ir.StringAttr); !ok || t.Value == "" {
		return ir.OpErrorf(op, "requires a string call_target_name")
	}
	return nil
}

// printFunctionTypeTail prints ` {attrs} : (operand types) -> results`,
// what parseFunctionTypeTail parses, leaving out the elided attributes.
func printFunctionTypeTail(p *ir.Printer, op *ir.Operation, elided ...string) {
	p.AttrDict(op, elided...)
	var ins, outs []ir.Type
	for _, v := range op.Operands {
		ins = append(ins, v.Type)
	}
	for _, v := range op.Results {
		outs = append(outs, v.Type)
	}
	p.WriteString(" : (")
	p.Types(ins)
	p.WriteString(") -> ")
	p.ResultTypes(outs)
}

// parseFunctionTypeTail parses `attr-dict : (operand types) -> results`,
// the end of the custom forms that list their operands first (rng,
// custom_call): it types vs by the function type's inputs, makes them
// op's operands and returns the result types.
func parseFunctionTypeTail(p *ir.Parser, op *ir.Operation, vs []*ir.Value) ([]ir.Type, error) {
	if err := parseAttrDictSorted(p, op); err != nil {
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
	f, ok := ft.(*ir.FunctionType)
	if !ok {
		return nil, ir.Errorf(tpos, "expected a function type, found '%s'", ir.TypeString(ft))
	}
	if err := p.ResolveTypes(vs, f.Inputs, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return f.Results, nil
}

// parseAttrDictSorted parses the optional attribute dictionary of a
// custom form and sorts op's attributes by name, the order of MLIR's
// attribute dictionaries: the clauses before the dictionary and the
// dictionary then make one attribute list whatever the order written, so
// that printing the custom form and reading it back keeps the op's
// generic form.
func parseAttrDictSorted(p *ir.Parser, op *ir.Operation) error {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return err
	}
	sort.SliceStable(op.Attrs, func(i, j int) bool { return op.Attrs[i].Name < op.Attrs[j].Name })
	return nil
}
