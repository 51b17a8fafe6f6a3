package stablehlo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// This file holds the custom forms of the shape, data-movement and
// contraction ops, as StableHLO's printers write them (and JAX, torch-mlir
// and IREE's tests with them):
//
//	stablehlo.transpose %x, dims = [1, 0] : (tensor<1x5xf32>) -> tensor<5x1xf32>
//	stablehlo.slice %x [0:2, 1:3:2] : (tensor<4x4xf32>) -> tensor<2x1xf32>
//	stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : ...
//
// Each clause parses into the attribute MLIR's generic form holds
// (permutation = array<i64: 1, 0> for the dims above). A clause is left
// out of the printed form, and its attribute printed in the attribute
// dictionary instead, when the attribute has a form the clause cannot
// spell (an MHLO dense<...> list, say); the parsers accept both.

// clauseKind says what a `name = value` clause holds.
type clauseKind int

const (
	listClause   clauseKind = iota // [1, 2]: an array<i64: ...> attribute
	intClause                      // 3: an i64 integer attribute
	boolClause                     // true: a bool attribute
	stringClause                   // "ab,bc->ac": a string attribute
	enumClause                     // PHILOX: the enum #stablehlo<attr PHILOX>, named by attr
)

// clause is one `keyword = value` clause of a custom form and the
// attribute it stands for.
type clause struct {
	keyword, attr string
	kind          clauseKind
}

// clauseForm describes the ops written `%a, %b, kw = v, ... attr-dict :
// types`: the clauses follow the operands, and the types are either a
// functional type or (sameType) the one type of the operands and result.
type clauseForm struct {
	clauses  []clause
	sameType bool
}

// clauseForms are the ops of that shape, by name without the dialect.
var clauseForms = map[string]clauseForm{
	"transpose":                {clauses: []clause{{"dims", "permutation", listClause}}},
	"broadcast_in_dim":         {clauses: []clause{{"dims", "broadcast_dimensions", listClause}}},
	"broadcast":                {clauses: []clause{{"sizes", "broadcast_sizes", listClause}}},
	"reverse":                  {clauses: []clause{{"dims", "dimensions", listClause}}, sameType: true},
	"dynamic_slice":            {clauses: []clause{{"sizes", "slice_sizes", listClause}}},
	"concatenate":              {clauses: []clause{{"dim", "dimension", intClause}}},
	"get_dimension_size":       {clauses: []clause{{"dim", "dimension", intClause}}},
	"pad":                      {clauses: []clause{{"low", "edge_padding_low", listClause}, {"high", "edge_padding_high", listClause}, {"interior", "interior_padding", listClause}}},
	"dynamic_iota":             {clauses: []clause{{"dim", "iota_dimension", intClause}}},
	"set_dimension_size":       {clauses: []clause{{"dim", "dimension", intClause}}},
	"dynamic_broadcast_in_dim": {clauses: []clause{{"dims", "broadcast_dimensions", listClause}}},
	"cholesky":                 {clauses: []clause{{"lower", "lower", boolClause}}, sameType: true},
	"einsum":                   {clauses: []clause{{"config", "einsum_config", stringClause}}},
	"unary_einsum":             {clauses: []clause{{"config", "einsum_config", stringClause}}},
	"rng_bit_generator":        {clauses: []clause{{"algorithm", "rng_algorithm", enumClause}}},
	"reshape":                  {},
	"dynamic_update_slice":     {},
	"dynamic_reshape":          {},
}

// registerForms adds the ops of this file under prefix pre.
func registerForms(r *ir.Registry, pre string) {
	for n, f := range clauseForms {
		f := f
		r.RegisterOp(&ir.OpDef{Name: pre + n,
			Parse: func(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) { return parseClauseForm(p, op, f) },
			Print: func(p *ir.Printer, op *ir.Operation) { printClauseForm(p, op, f) }})
	}
	r.RegisterOp(&ir.OpDef{Name: pre + "iota", Parse: parseIota, Print: printIota, Verify: verifyIota})
	r.RegisterOp(&ir.OpDef{Name: pre + "slice", Parse: parseSlice, Print: printSlice})
	r.RegisterOp(&ir.OpDef{Name: pre + "dot", Parse: parseDot, Print: printDot})
	r.RegisterOp(&ir.OpDef{Name: pre + "dot_general", Parse: parseDot, Print: printDot})
	r.RegisterOp(&ir.OpDef{Name: pre + "convolution", Parse: parseConvolution, Print: printConvolution})
	registerMoreForms(r, pre)
}

// dialectOf returns the dialect of op's name ("stablehlo" or "mhlo").
func dialectOf(op *ir.Operation) string {
	return op.Name[:strings.IndexByte(op.Name, '.')]
}

// parseI64List parses `[1, 2, ...]`.
func parseI64List(p *ir.Parser) ([]int64, error) {
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	vs := []int64{}
	for !p.Optional("]") {
		if len(vs) > 0 {
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		n, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		vs = append(vs, n)
	}
	return vs, nil
}

func formatI64List(vs []int64) string {
	var b strings.Builder
	b.WriteString("[")
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
	b.WriteString("]")
	return b.String()
}

// i64Array returns op's attribute name when it is an array<i64: ...>.
func i64Array(op *ir.Operation, name string) ([]int64, bool) {
	a, ok := op.Attr(name).(*ir.DenseArrayAttr)
	if !ok || ir.TypeString(a.Elem) != "i64" {
		return nil, false
	}
	return a.Values, true
}

// i64Int returns op's attribute name when it is an i64 integer.
func i64Int(op *ir.Operation, name string) (int64, bool) {
	a, ok := op.Attr(name).(ir.IntegerAttr)
	if !ok || ir.TypeString(a.Type) != "i64" {
		return 0, false
	}
	return a.Value, true
}

func i64ArrayAttr(vs []int64) *ir.DenseArrayAttr {
	return &ir.DenseArrayAttr{Elem: ir.I64, Values: vs}
}

// parseOperandsUntilClause parses `%a, %b, ...` and reports whether a
// `,` followed by something other than an operand (a clause) ended it.
func parseOperandsUntilClause(p *ir.Parser) ([]*ir.Value, bool, error) {
	var vs []*ir.Value
	if !p.IsValueID() {
		return vs, false, nil
	}
	for {
		v, err := p.ParseOperand()
		if err != nil {
			return nil, false, err
		}
		vs = append(vs, v)
		if !p.Optional(",") {
			return vs, false, nil
		}
		if !p.IsValueID() {
			return vs, true, nil
		}
	}
}

// parseClause parses `keyword = value` for c into op's attributes.
func parseClause(p *ir.Parser, op *ir.Operation, c clause) error {
	if err := p.ExpectKeyword(c.keyword); err != nil {
		return err
	}
	if err := p.Expect("="); err != nil {
		return err
	}
	var a ir.Attribute
	switch c.kind {
	case listClause:
		vs, err := parseI64List(p)
		if err != nil {
			return err
		}
		a = i64ArrayAttr(vs)
	case intClause:
		n, err := p.ParseInteger()
		if err != nil {
			return err
		}
		a = ir.IntegerAttr{Value: n, Type: ir.I64}
	case boolClause:
		switch {
		case p.OptionalKeyword("true"):
			a = ir.BoolAttr{Value: true}
		case p.OptionalKeyword("false"):
			a = ir.BoolAttr{Value: false}
		default:
			return p.Errorf("expected true or false after '%s ='", c.keyword)
		}
	case stringClause:
		str, err := p.ParseString()
		if err != nil {
			return err
		}
		a = ir.StringAttr{Value: str}
	case enumClause:
		k, err := p.ParseKeyword()
		if err != nil {
			return err
		}
		a = &ir.OpaqueAttr{Name: dialectOf(op), Body: c.attr + " " + k}
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: c.attr, Value: a})
	return nil
}

// clauseText returns c's `keyword = value` text for op, or false when
// op's attribute is absent or of a form the clause cannot spell.
func clauseText(op *ir.Operation, c clause) (string, bool) {
	switch c.kind {
	case listClause:
		if vs, ok := i64Array(op, c.attr); ok {
			return c.keyword + " = " + formatI64List(vs), true
		}
	case intClause:
		if n, ok := i64Int(op, c.attr); ok {
			return c.keyword + " = " + strconv.FormatInt(n, 10), true
		}
	case boolClause:
		if b, ok := op.Attr(c.attr).(ir.BoolAttr); ok {
			return c.keyword + " = " + strconv.FormatBool(b.Value), true
		}
	case stringClause:
		if str, ok := op.Attr(c.attr).(ir.StringAttr); ok {
			return c.keyword + " = " + ir.QuoteString(str.Value), true
		}
	case enumClause:
		if o, ok := op.Attr(c.attr).(*ir.OpaqueAttr); ok && o.Name == dialectOf(op) {
			if k, ok := strings.CutPrefix(o.Body, c.attr+" "); ok && !strings.ContainsAny(k, " ,\"") {
				return c.keyword + " = " + k, true
			}
		}
	}
	return "", false
}

// parseClauseForm parses `%a, ..., kw = v, ... attr-dict : types`. The
// clauses come all or none (none when the attributes are in the
// dictionary).
func parseClauseForm(p *ir.Parser, op *ir.Operation, f clauseForm) ([]ir.Type, error) {
	vs, more, err := parseOperandsUntilClause(p)
	if err != nil {
		return nil, err
	}
	if more {
		if len(f.clauses) == 0 {
			return nil, p.Errorf("expected an operand after ','")
		}
		for i, c := range f.clauses {
			if i > 0 {
				if err := p.Expect(","); err != nil {
					return nil, err
				}
			}
			if err := parseClause(p, op, c); err != nil {
				return nil, err
			}
		}
	}
	if !f.sameType {
		return parseFunctionTypeTail(p, op, vs)
	}
	return parseSameOrFunctionalTail(p, op, vs)
}

// parseSameOrFunctionalTail parses `attr-dict : type`, the one type of
// every operand and the result, or `attr-dict : (types) -> result`.
func parseSameOrFunctionalTail(p *ir.Parser, op *ir.Operation, vs []*ir.Value) ([]ir.Type, error) {
	if err := parseAttrDictSorted(p, op); err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	if f, ok := t.(*ir.FunctionType); ok {
		if err := p.ResolveTypes(vs, f.Inputs, tpos); err != nil {
			return nil, err
		}
		op.Operands = vs
		return f.Results, nil
	}
	ts := make([]ir.Type, len(vs))
	for i := range ts {
		ts[i] = t
	}
	if err := p.ResolveTypes(vs, ts, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return []ir.Type{t}, nil
}

func printClauseForm(p *ir.Printer, op *ir.Operation, f clauseForm) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	var texts, elided []string
	for _, c := range f.clauses {
		if t, ok := clauseText(op, c); ok {
			texts = append(texts, t)
			elided = append(elided, c.attr)
		}
	}
	if len(texts) == len(f.clauses) && len(texts) > 0 && len(op.Operands) > 0 {
		p.WriteString(", " + strings.Join(texts, ", "))
	} else {
		elided = nil
	}
	if f.sameType && len(op.Operands) == 1 && len(op.Results) == 1 && ir.TypeString(op.Operands[0].Type) == ir.TypeString(op.Results[0].Type) {
		p.AttrDict(op, elided...)
		p.WriteString(" : ")
		p.Type(op.Results[0].Type)
		return
	}
	printFunctionTypeTail(p, op, elided...)
}

// parseIota parses `dim = N attr-dict : type`.
func parseIota(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.IsKeyword("dim") {
		if err := parseClause(p, op, clause{"dim", "iota_dimension", intClause}); err != nil {
			return nil, err
		}
	}
	if err := parseAttrDictSorted(p, op); err != nil {
		return nil, err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printIota(p *ir.Printer, op *ir.Operation) {
	var elided []string
	if n, ok := i64Int(op, "iota_dimension"); ok {
		p.WriteString(" dim = " + strconv.FormatInt(n, 10))
		elided = append(elided, "iota_dimension")
	}
	p.AttrDict(op, elided...)
	p.WriteString(" : ")
	if len(op.Results) == 1 {
		p.Type(op.Results[0].Type)
	}
}

func verifyIota(op *ir.Operation) error {
	if len(op.Operands) != 0 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "takes no operands and has one result")
	}
	rt := Ranked(op.Results[0].Type)
	if rt == nil {
		return ir.OpErrorf(op, "result must be a ranked tensor, found '%s'", ir.TypeString(op.Results[0].Type))
	}
	d, ok := op.IntAttr("iota_dimension")
	if !ok {
		return ir.OpErrorf(op, "requires an integer iota_dimension attribute")
	}
	if d < 0 || d >= int64(len(rt.Shape)) {
		return ir.OpErrorf(op, "iota_dimension %d is out of range for rank %d", d, len(rt.Shape))
	}
	return nil
}

// parseSlice parses `%x [start:limit(:stride)?, ...] attr-dict :
// (t) -> r` into start_indices, limit_indices and strides.
func parseSlice(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if p.Optional("[") {
		starts, limits, strides := []int64{}, []int64{}, []int64{}
		for !p.Optional("]") {
			if len(starts) > 0 {
				if err := p.Expect(","); err != nil {
					return nil, err
				}
			}
			start, err := p.ParseInteger()
			if err != nil {
				return nil, err
			}
			if err := p.Expect(":"); err != nil {
				return nil, err
			}
			limit, err := p.ParseInteger()
			if err != nil {
				return nil, err
			}
			stride := int64(1)
			if p.Optional(":") {
				if stride, err = p.ParseInteger(); err != nil {
					return nil, err
				}
			}
			starts, limits, strides = append(starts, start), append(limits, limit), append(strides, stride)
		}
		op.Attrs = append(op.Attrs,
			ir.NamedAttr{Name: "start_indices", Value: i64ArrayAttr(starts)},
			ir.NamedAttr{Name: "limit_indices", Value: i64ArrayAttr(limits)},
			ir.NamedAttr{Name: "strides", Value: i64ArrayAttr(strides)})
	}
	return parseFunctionTypeTail(p, op, []*ir.Value{v})
}

func printSlice(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	starts, ok1 := i64Array(op, "start_indices")
	limits, ok2 := i64Array(op, "limit_indices")
	strides, ok3 := i64Array(op, "strides")
	var elided []string
	if ok1 && ok2 && ok3 && len(starts) == len(limits) && len(starts) == len(strides) {
		p.WriteString(" [")
		for i := range starts {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(strconv.FormatInt(starts[i], 10) + ":" + strconv.FormatInt(limits[i], 10))
			if strides[i] != 1 {
				p.WriteString(":" + strconv.FormatInt(strides[i], 10))
			}
		}
		p.WriteString("]")
		elided = []string{"start_indices", "limit_indices", "strides"}
	}
	printFunctionTypeTail(p, op, elided...)
}

// dotFields are the fields of #stablehlo.dot in the order MLIR prints
// them; the pretty form's clauses name them in pairs.
var dotFields = []string{"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"}

// parseDot parses dot's `%a, %b (, precision = [P, ...])? attr-dict :
// (t1, t2) -> r` and dot_general's, whose dimension clauses come first:
// `%a, %b, (batching_dims = [..] x [..],)? contracting_dims = [..] x
// [..] (, precision = [..])?`.
func parseDot(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	dialect := dialectOf(op)
	vs, more, err := parseOperandsUntilClause(p)
	if err != nil {
		return nil, err
	}
	general := strings.HasSuffix(op.Name, ".dot_general")
	if general && more && (p.IsKeyword("batching_dims") || p.IsKeyword("contracting_dims")) {
		dims := map[string][]int64{}
		for _, kw := range []string{"batching_dims", "contracting_dims"} {
			if kw == "batching_dims" && !p.IsKeyword(kw) {
				continue
			}
			if err := p.ExpectKeyword(kw); err != nil {
				return nil, err
			}
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			lhs, err := parseI64List(p)
			if err != nil {
				return nil, err
			}
			if err := p.ExpectKeyword("x"); err != nil {
				return nil, err
			}
			rhs, err := parseI64List(p)
			if err != nil {
				return nil, err
			}
			what := strings.TrimSuffix(kw, "_dims")
			dims["lhs_"+what+"_dimensions"], dims["rhs_"+what+"_dimensions"] = lhs, rhs
			more = p.Optional(",")
			if kw == "batching_dims" && !more {
				return nil, p.Errorf("expected ', contracting_dims = ...' after the batching dimensions")
			}
		}
		var fields []string
		for _, f := range dotFields {
			if len(dims[f]) > 0 {
				fields = append(fields, f+" = "+formatI64List(dims[f]))
			}
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "dot_dimension_numbers",
			Value: &ir.OpaqueAttr{Name: dialect + ".dot", Body: strings.Join(fields, ", "), Angled: true}})
	}
	if more && p.IsKeyword("precision") {
		if err := p.ExpectKeyword("precision"); err != nil {
			return nil, err
		}
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		if err := p.Expect("["); err != nil {
			return nil, err
		}
		var ps []ir.Attribute
		for !p.Optional("]") {
			if len(ps) > 0 {
				if err := p.Expect(","); err != nil {
					return nil, err
				}
			}
			k, err := p.ParseKeyword()
			if err != nil {
				return nil, err
			}
			ps = append(ps, &ir.OpaqueAttr{Name: dialect, Body: "precision " + k, Angled: true})
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "precision_config", Value: &ir.ArrayAttr{Elems: ps}})
		more = p.Optional(",")
	}
	if more {
		return nil, p.Errorf("expected an operand or a clause of '%s' after ','", op.Name)
	}
	return parseFunctionTypeTail(p, op, vs)
}

// dotDimsText returns dot_general's dimension clauses for op, or false
// when its attribute is absent or holds fields the clauses cannot spell.
func dotDimsText(op *ir.Operation) (string, bool) {
	a, ok := op.Attr("dot_dimension_numbers").(*ir.OpaqueAttr)
	if !ok || a.Name != dialectOf(op)+".dot" {
		return "", false
	}
	f, ok := fieldLists(a.Body)
	if !ok {
		return "", false
	}
	for k := range f {
		if !contains(dotFields, k) {
			return "", false
		}
	}
	out := ""
	if len(f[dotFields[0]]) > 0 || len(f[dotFields[1]]) > 0 {
		out = "batching_dims = " + formatI64List(f[dotFields[0]]) + " x " + formatI64List(f[dotFields[1]]) + ", "
	}
	return out + "contracting_dims = " + formatI64List(f[dotFields[2]]) + " x " + formatI64List(f[dotFields[3]]), true
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// fieldLists reads a struct attribute body `key = [1, 2], key2 = 3` into
// integer lists; ok is false for any other text.
func fieldLists(body string) (map[string][]int64, bool) {
	out := map[string][]int64{}
	s := strings.TrimSpace(body)
	for s != "" {
		key, rest, ok := strings.Cut(s, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, ",[] ") {
			return nil, false
		}
		rest = strings.TrimSpace(rest)
		var val string
		if strings.HasPrefix(rest, "[") {
			if val, rest, ok = strings.Cut(rest[1:], "]"); !ok {
				return nil, false
			}
		} else {
			val, rest, _ = strings.Cut(rest, ",")
			rest = "," + rest
		}
		vs := []int64{}
		for _, e := range strings.Split(val, ",") {
			if e = strings.TrimSpace(e); e == "" {
				continue
			}
			v, err := strconv.ParseInt(e, 10, 64)
			if err != nil {
				return nil, false
			}
			vs = append(vs, v)
		}
		if _, dup := out[key]; dup {
			return nil, false
		}
		out[key] = vs
		rest = strings.TrimSpace(rest)
		if rest != "" && !strings.HasPrefix(rest, ",") {
			return nil, false
		}
		s = strings.TrimSpace(strings.TrimPrefix(rest, ","))
	}
	return out, true
}

// precisionText returns the precision clause's list for op, or false
// when precision_config is absent or not a list of the dialect's
// #stablehlo<precision X> attributes.
func precisionText(op *ir.Operation) (string, bool) {
	a, ok := op.Attr("precision_config").(*ir.ArrayAttr)
	if !ok {
		return "", false
	}
	var ks []string
	for _, e := range a.Elems {
		o, ok := e.(*ir.OpaqueAttr)
		if !ok || o.Name != dialectOf(op) {
			return "", false
		}
		k, ok := strings.CutPrefix(o.Body, "precision ")
		if !ok || strings.ContainsAny(k, " ,") {
			return "", false
		}
		ks = append(ks, k)
	}
	return "[" + strings.Join(ks, ", ") + "]", true
}

func printDot(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	var elided []string
	general := strings.HasSuffix(op.Name, ".dot_general")
	if general {
		t, ok := dotDimsText(op)
		if !ok {
			// Without the dimension clauses the rest must stay in the
			// dictionary too: the parser takes them in order.
			printFunctionTypeTail(p, op)
			return
		}
		p.WriteString(", " + t)
		elided = append(elided, "dot_dimension_numbers")
	}
	if t, ok := precisionText(op); ok {
		p.WriteString(", precision = " + t)
		elided = append(elided, "precision_config")
	}
	printFunctionTypeTail(p, op, elided...)
}

// registerMoreForms adds tuple, get_tuple_element, optimization_barrier
// and reduce_precision under prefix pre.
func registerMoreForms(r *ir.Registry, pre string) {
	r.RegisterOp(&ir.OpDef{Name: pre + "tuple", Parse: parseTuple, Print: printTuple})
	r.RegisterOp(&ir.OpDef{Name: pre + "get_tuple_element", Parse: parseGetTupleElement, Print: printGetTupleElement})
	r.RegisterOp(&ir.OpDef{Name: pre + "optimization_barrier", Parse: parseBarrier, Print: printBarrier})
	r.RegisterOp(&ir.OpDef{Name: pre + "reduce_precision", Parse: parseReducePrecision, Print: printReducePrecision})
	r.RegisterOp(&ir.OpDef{Name: pre + "composite", Parse: parseComposite, Print: printComposite})
	for _, n := range []string{"replica_id", "partition_id"} {
		r.RegisterOp(&ir.OpDef{Name: pre + n, Parse: parseNullary, Print: printNullary})
	}
}

// parseComposite parses `"name" %a, ... attr-dict : (types) -> results`,
// storing the name as the string attribute name.
func parseComposite(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	name, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "name", Value: ir.StringAttr{Value: name}})
	return parseFunctionTypeTail(p, op, vs)
}

func printComposite(p *ir.Printer, op *ir.Operation) {
	name, ok := op.Attr("name").(ir.StringAttr)
	if !ok {
		// Without its name the op does not verify; the dictionary keeps
		// what it has.
		printGenericTail(p, op)
		return
	}
	p.WriteString(" " + ir.QuoteString(name.Value))
	if len(op.Operands) > 0 {
		p.WriteString(" ")
		p.Operands(op.Operands)
	}
	printFunctionTypeTail(p, op, "name")
}

// parseNullary parses `attr-dict : type`, the form of the ops with no
// operands and one result (replica_id, partition_id).
func parseNullary(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := parseAttrDictSorted(p, op); err != nil {
		return nil, err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printNullary(p *ir.Printer, op *ir.Operation) {
	if len(op.Operands) != 0 || len(op.Results) != 1 {
		printGenericTail(p, op)
		return
	}
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Type(op.Results[0].Type)
}

// parseTuple parses `%a, ... attr-dict : tuple<...>`; the operands take
// the tuple's element types.
func parseTuple(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if err := parseAttrDictSorted(p, op); err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	tt, ok := t.(*ir.TupleType)
	if !ok {
		return nil, ir.Errorf(tpos, "expected a tuple type, found '%s'", ir.TypeString(t))
	}
	if len(tt.Elems) != len(vs) {
		return nil, ir.Errorf(tpos, "%d operands but a tuple of %d elements", len(vs), len(tt.Elems))
	}
	if err := p.ResolveTypes(vs, tt.Elems, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return []ir.Type{t}, nil
}

func printTuple(p *ir.Printer, op *ir.Operation) {
	tt, ok := op.Results[0].Type.(*ir.TupleType)
	same := ok && len(tt.Elems) == len(op.Operands)
	for i := 0; same && i < len(op.Operands); i++ {
		same = ir.TypeString(tt.Elems[i]) == ir.TypeString(op.Operands[i].Type)
	}
	if !same {
		p.WriteString(" ")
		p.Operands(op.Operands)
		printFunctionTypeTail(p, op)
		return
	}
	if len(op.Operands) > 0 {
		p.WriteString(" ")
		p.Operands(op.Operands)
	}
	p.AttrDict(op)
	p.WriteString(" : ")
	p.Type(tt)
}

// parseGetTupleElement parses `%t[i] attr-dict : (tuple<...>) -> t`,
// storing i as the i32 attribute index.
func parseGetTupleElement(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if p.Optional("[") {
		i, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		if err := p.Expect("]"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "index", Value: ir.IntegerAttr{Value: i, Type: ir.IntegerType{Width: 32}}})
	}
	return parseFunctionTypeTail(p, op, []*ir.Value{v})
}

func printGetTupleElement(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	var elided []string
	if a, ok := op.Attr("index").(ir.IntegerAttr); ok && ir.TypeString(a.Type) == "i32" && len(op.Operands) == 1 {
		p.WriteString("[" + strconv.FormatInt(a.Value, 10) + "]")
		elided = append(elided, "index")
	}
	printFunctionTypeTail(p, op, elided...)
}

// parseBarrier parses optimization_barrier's `%a, ... attr-dict : t, ...`
// (or `()` for none): each result has its operand's type.
func parseBarrier(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.Optional("(") {
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		return nil, parseAttrDictSorted(p, op)
	}
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if err := parseAttrDictSorted(p, op); err != nil {
		return nil, err
	}
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
	op.Operands = vs
	return ts, nil
}

func printBarrier(p *ir.Printer, op *ir.Operation) {
	same := len(op.Operands) == len(op.Results)
	for i := 0; same && i < len(op.Operands); i++ {
		same = ir.TypeString(op.Operands[i].Type) == ir.TypeString(op.Results[i].Type)
	}
	if !same {
		// Not a barrier that verifies; printed so that it still reads
		// as what it is.
		printGenericTail(p, op)
		return
	}
	if len(op.Operands) == 0 {
		p.WriteString("()")
		p.AttrDict(op)
		return
	}
	p.WriteString(" ")
	p.Operands(op.Operands)
	p.AttrDict(op)
	var ts []ir.Type
	for _, v := range op.Operands {
		ts = append(ts, v.Type)
	}
	p.WriteString(" : ")
	p.Types(ts)
}

// parseReducePrecision parses `%x, format = eEmM attr-dict : type`,
// storing E and M as the i32 attributes exponent_bits and mantissa_bits.
func parseReducePrecision(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, more, err := parseOperandsUntilClause(p)
	if err != nil {
		return nil, err
	}
	if more {
		if err := p.ExpectKeyword("format"); err != nil {
			return nil, err
		}
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		pos := p.Pos()
		f, err := p.ParseKeyword()
		if err != nil {
			return nil, err
		}
		var e, m int64
		if n, _ := fmt.Sscanf(f, "e%dm%d", &e, &m); n != 2 || f != fmt.Sprintf("e%dm%d", e, m) {
			return nil, ir.Errorf(pos, "expected a format such as e8m10, found '%s'", f)
		}
		i32 := ir.IntegerType{Width: 32}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "exponent_bits", Value: ir.IntegerAttr{Value: e, Type: i32}},
			ir.NamedAttr{Name: "mantissa_bits", Value: ir.IntegerAttr{Value: m, Type: i32}})
	}
	return parseSameOrFunctionalTail(p, op, vs)
}

func printReducePrecision(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	var elided []string
	e, ok1 := op.Attr("exponent_bits").(ir.IntegerAttr)
	m, ok2 := op.Attr("mantissa_bits").(ir.IntegerAttr)
	if ok1 && ok2 && ir.TypeString(e.Type) == "i32" && ir.TypeString(m.Type) == "i32" && e.Value >= 0 && m.Value >= 0 {
		p.WriteString(fmt.Sprintf(", format = e%dm%d", e.Value, m.Value))
		elided = []string{"exponent_bits", "mantissa_bits"}
	}
	if len(op.Operands) == 1 && len(op.Results) == 1 && ir.TypeString(op.Operands[0].Type) == ir.TypeString(op.Results[0].Type) {
		p.AttrDict(op, elided...)
		p.WriteString(" : ")
		p.Type(op.Results[0].Type)
		return
	}
	printFunctionTypeTail(p, op, elided...)
}
