// Package linalgext registers IREE's iree_linalg_ext dialect: the ops
// beyond linalg's structured ones that IREE's programs use (attention,
// online_attention, arg_compare, sort, scan, topk, topk_v2, reverse,
// scatter, gather, map_load, map_store, the winograd transforms), the
// older pack and unpack spellings of linalg.pack/unpack, and the yield
// and index ops of their bodies.
//
// Most of these ops share one custom form, which this package reads from
// a table: an attribute dictionary, the op's keyword clauses
// (`dimension(1)`, `inclusive(true)`, `dimension_map = [0]`, ...), then
// `ins(%a, %b : A, B)`, `outs(%c : C)`, an optional `index_base(%i :
// index)` (arg_compare), the body region, and `-> result types` (reverse
// writes `: result types`). Operands are kept as ins followed by outs
// (and index_base), recorded in operandSegmentSizes as the Dec 2022 ops
// did; results default to one per tensor out. map_load and map_store have
// their own form: `%src into %dst { body } : A into B -> R`.
//
// The verifiers check what each op's lowering or a user needs to hear
// about: operand counts, ranks, element types and the body's arguments.
// Package conversion/linalgexttolinalg lowers the ops it can to linalg and
// tensor ops, and refuses the others at their location.
package linalgext

import (
	"strconv"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

// clause kinds of the table-driven custom form.
const (
	intParen  = iota // kw(3)
	boolParen        // kw(true)
	attrParen        // kw(<attribute>)
	listEq           // kw = [1, 2]
	listParen        // kw([1, 2])
	unitKw           // kw, present or not
)

type clause struct {
	kw   string
	kind int
}

// spec is one op's custom form and verifier.
type spec struct {
	clauses []clause
	region  bool
	// colonResults: results follow `:` and not `->` (reverse).
	colonResults bool
	indexBase    bool
	verify       func(op *ir.Operation) error
}

var specs = map[string]*spec{
	"iree_linalg_ext.attention":        {region: true, verify: verifyAttention},
	"iree_linalg_ext.online_attention": {region: true, verify: verifyAttention},
	"iree_linalg_ext.arg_compare":      {clauses: []clause{{"dimension", intParen}}, region: true, indexBase: true, verify: verifyArgCompare},
	"iree_linalg_ext.sort":             {clauses: []clause{{"dimension", intParen}}, region: true, verify: verifySort},
	"iree_linalg_ext.scan":             {clauses: []clause{{"dimension", intParen}, {"inclusive", boolParen}}, region: true, verify: verifyScan},
	"iree_linalg_ext.topk":             {clauses: []clause{{"dimension", intParen}}, region: true, verify: verifyTopk},
	"iree_linalg_ext.topk_v2":          {clauses: []clause{{"dimension", intParen}, {"is_sorted", unitKw}}, region: true, verify: verifyTopk},
	"iree_linalg_ext.reverse":          {clauses: []clause{{"dimensions", attrParen}}, colonResults: true, verify: verifyReverse},
	"iree_linalg_ext.scatter":          {clauses: []clause{{"dimension_map", listEq}, {"unique_indices", boolParen}}, region: true, verify: verifyScatter},
	"iree_linalg_ext.gather":           {clauses: []clause{{"dimension_map", listEq}}, verify: verifyGather},
	"iree_linalg_ext.winograd.input_transform": {clauses: []clause{{"output_tile_size", intParen}, {"kernel_size", intParen},
		{"image_dimensions", listParen}}, verify: verifyWinograd},
	"iree_linalg_ext.winograd.output_transform": {clauses: []clause{{"output_tile_size", intParen}, {"kernel_size", intParen},
		{"image_dimensions", listParen}}, verify: verifyWinograd},
}

// Register adds the iree_linalg_ext ops to r.
func Register(r *ir.Registry) {
	for name := range specs {
		r.RegisterOp(&ir.OpDef{Name: name, Parse: parseOp, Print: printOp, Verify: verifyOp})
	}
	r.RegisterOp(&ir.OpDef{Name: "iree_linalg_ext.map_load", Parse: parseMap, Print: printMap, Verify: verifyMap})
	r.RegisterOp(&ir.OpDef{Name: "iree_linalg_ext.map_store", Parse: parseMap, Print: printMap, Verify: verifyMap})
	r.RegisterOp(&ir.OpDef{Name: "iree_linalg_ext.pack", Parse: parseRelayout, Print: printRelayout, Verify: verifyRelayout})
	r.RegisterOp(&ir.OpDef{Name: "iree_linalg_ext.unpack", Parse: parseRelayout, Print: printRelayout, Verify: verifyRelayout})
	r.RegisterOp(ir.ReturnLikeOp("iree_linalg_ext.yield", verifyYield))
	r.RegisterOp(&ir.OpDef{Name: "iree_linalg_ext.index", Parse: parseIndex, Print: printIndex, Verify: verifyIndex})
}

// Ins returns an op's ins operands.
func Ins(op *ir.Operation) []*ir.Value { return ir.Segment(op, 0) }

// Outs returns an op's outs operands.
func Outs(op *ir.Operation) []*ir.Value { return ir.Segment(op, 1) }

func parseTypedList(p *ir.Parser, kw string) ([]*ir.Value, error) {
	if err := p.ExpectKeyword(kw); err != nil {
		return nil, err
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if len(vs) > 0 {
		pos := p.Pos()
		if err := p.Expect(":"); err != nil {
			return nil, err
		}
		ts, err := p.ParseTypeList()
		if err != nil {
			return nil, err
		}
		if err := p.ResolveTypes(vs, ts, pos); err != nil {
			return nil, err
		}
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	return vs, nil
}

func parseI64List(p *ir.Parser) (*ir.DenseArrayAttr, error) {
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	a := &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{}}
	for !p.Optional("]") {
		if len(a.Values) > 0 {
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		n, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		a.Values = append(a.Values, n)
	}
	return a, nil
}

func parseClause(p *ir.Parser, op *ir.Operation, c clause) error {
	if c.kind == unitKw {
		if p.OptionalKeyword(c.kw) {
			op.SetAttr(c.kw, ir.UnitAttr{})
		}
		return nil
	}
	if err := p.ExpectKeyword(c.kw); err != nil {
		return err
	}
	if c.kind == listEq {
		if err := p.Expect("="); err != nil {
			return err
		}
		l, err := parseI64List(p)
		if err != nil {
			return err
		}
		op.SetAttr(c.kw, l)
		return nil
	}
	if err := p.Expect("("); err != nil {
		return err
	}
	switch c.kind {
	case intParen:
		n, err := p.ParseInteger()
		if err != nil {
			return err
		}
		op.SetAttr(c.kw, ir.IntegerAttr{Value: n, Type: ir.I64})
	case boolParen:
		pos := p.Pos()
		kw, err := p.ParseKeyword()
		if err != nil {
			return err
		}
		if kw != "true" && kw != "false" {
			return ir.Errorf(pos, "expected true or false in %s(...), found '%s'", c.kw, kw)
		}
		op.SetAttr(c.kw, ir.BoolAttr{Value: kw == "true"})
	case listParen:
		l, err := parseI64List(p)
		if err != nil {
			return err
		}
		op.SetAttr(c.kw, l)
	case attrParen:
		a, err := p.ParseAttribute()
		if err != nil {
			return err
		}
		op.SetAttr(c.kw, a)
	}
	return p.Expect(")")
}

func parseOp(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	s := specs[op.Name]
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	for _, c := range s.clauses {
		if err := parseClause(p, op, c); err != nil {
			return nil, err
		}
	}
	var ins, outs, base []*ir.Value
	var err error
	if p.IsKeyword("ins") {
		if ins, err = parseTypedList(p, "ins"); err != nil {
			return nil, err
		}
	}
	if outs, err = parseTypedList(p, "outs"); err != nil {
		return nil, err
	}
	segments := []int{len(ins), len(outs)}
	if s.indexBase {
		if p.IsKeyword("index_base") {
			if base, err = parseTypedList(p, "index_base"); err != nil {
				return nil, err
			}
		}
		segments = append(segments, len(base))
	}
	op.Operands = append(append(append([]*ir.Value(nil), ins...), outs...), base...)
	op.SetAttr("operandSegmentSizes", ir.SegmentAttr(segments...))
	if s.region {
		if _, err := p.ParseRegion(op, nil); err != nil {
			return nil, err
		}
	}
	if s.colonResults && p.Optional(":") || !s.colonResults && p.Optional("->") {
		return p.ParseTypeList()
	}
	var results []ir.Type
	for _, v := range outs {
		if _, ok := v.Type.(*ir.TensorType); ok {
			results = append(results, v.Type)
		}
	}
	return results, nil
}

func printI64List(p *ir.Printer, a ir.Attribute) {
	p.WriteString("[")
	if l, ok := a.(*ir.DenseArrayAttr); ok {
		for i, v := range l.Values {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(strconv.FormatInt(v, 10))
		}
	}
	p.WriteString("]")
}

func printTypedList(p *ir.Printer, kw string, vs []*ir.Value) {
	p.WriteString(" " + kw + "(")
	p.Operands(vs)
	if len(vs) > 0 {
		p.WriteString(" : ")
		var ts []ir.Type
		for _, v := range vs {
			ts = append(ts, v.Type)
		}
		p.Types(ts)
	}
	p.WriteString(")")
}

func printOp(p *ir.Printer, op *ir.Operation) {
	s := specs[op.Name]
	elided := []string{"operandSegmentSizes"}
	for _, c := range s.clauses {
		elided = append(elided, c.kw)
	}
	p.AttrDict(op, elided...)
	for _, c := range s.clauses {
		a := op.Attr(c.kw)
		switch c.kind {
		case unitKw:
			if a != nil {
				p.WriteString(" " + c.kw)
			}
			continue
		case listEq:
			p.WriteString(" " + c.kw + " = ")
			printI64List(p, a)
			continue
		}
		p.WriteString(" " + c.kw + "(")
		switch c.kind {
		case listParen:
			printI64List(p, a)
		case intParen:
			if i, ok := a.(ir.IntegerAttr); ok {
				p.WriteString(strconv.FormatInt(i.Value, 10))
			}
		case boolParen:
			if b, ok := a.(ir.BoolAttr); ok {
				p.WriteString(strconv.FormatBool(b.Value))
			}
		default:
			p.Attr(a)
		}
		p.WriteString(")")
	}
	if len(Ins(op)) > 0 {
		printTypedList(p, "ins", Ins(op))
	}
	printTypedList(p, "outs", Outs(op))
	if s.indexBase {
		if base := ir.Segment(op, 2); len(base) > 0 {
			printTypedList(p, "index_base", base)
		}
	}
	if s.region && len(op.Regions) == 1 {
		p.WriteString(" ")
		p.Region(op.Regions[0], true)
	}
	if len(op.Results) > 0 {
		if s.colonResults {
			p.WriteString(" : ")
		} else {
			p.WriteString(" -> ")
		}
		var ts []ir.Type
		for _, r := range op.Results {
			ts = append(ts, r.Type)
		}
		p.Types(ts)
	}
}

// verifyOp checks what every table op shares: its operand segments, the
// attributes of its clauses, ranked tensor outs and one result per out of
// that out's type, then the op's own checks.
func verifyOp(op *ir.Operation) error {
	s := specs[op.Name]
	n := 2
	if s.indexBase {
		n = 3
	}
	if err := ir.SegmentsValid(op, n); err != nil {
		return err
	}
	for _, c := range s.clauses {
		a := op.Attr(c.kw)
		ok := true
		switch c.kind {
		case intParen:
			_, ok = a.(ir.IntegerAttr)
		case boolParen:
			_, ok = a.(ir.BoolAttr)
		case listEq, listParen:
			_, ok = a.(*ir.DenseArrayAttr)
		case attrParen:
			ok = a != nil
		}
		if !ok {
			return ir.OpErrorf(op, "requires the '%s' attribute", c.kw)
		}
	}
	outs := Outs(op)
	if len(outs) == 0 {
		return ir.OpErrorf(op, "expects at least one output (outs)")
	}
	for i, v := range append(append([]*ir.Value(nil), Ins(op)...), outs...) {
		if t, ok := v.Type.(*ir.TensorType); ok && t.Unranked {
			return ir.OpErrorf(op, "operand #%d must be a ranked tensor, found '%s'", i, ir.TypeString(v.Type))
		}
	}
	var tensorOuts []*ir.Value
	for i, v := range outs {
		switch v.Type.(type) {
		case *ir.TensorType:
			tensorOuts = append(tensorOuts, v)
		case *ir.MemRefType:
		default:
			return ir.OpErrorf(op, "output #%d must be a tensor or memref, found '%s'", i, ir.TypeString(v.Type))
		}
	}
	if len(op.Results) != len(tensorOuts) {
		return ir.OpErrorf(op, "expects %d results (one per tensor output), found %d", len(tensorOuts), len(op.Results))
	}
	for i, r := range op.Results {
		if !ir.TypesEqual(r.Type, tensorOuts[i].Type) {
			return ir.OpErrorf(op, "result #%d type '%s' does not match its output's type '%s'", i, ir.TypeString(r.Type), ir.TypeString(tensorOuts[i].Type))
		}
	}
	if s.region && (len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1) {
		return ir.OpErrorf(op, "expects a body region with one block")
	}
	return s.verify(op)
}

// shapeOf returns a shaped value's dimensions, or nil.
func shapeOf(v *ir.Value) []int64 {
	switch t := v.Type.(type) {
	case *ir.TensorType:
		return t.Shape
	case *ir.MemRefType:
		return t.Shape
	}
	return nil
}

func isShaped(v *ir.Value) bool {
	_, ok := v.Type.(ir.ShapedType)
	return ok
}

// expectCounts checks the number of ins and outs.
func expectCounts(op *ir.Operation, nins, nouts int) error {
	if len(Ins(op)) != nins || len(Outs(op)) != nouts {
		return ir.OpErrorf(op, "expects %d inputs and %d outputs, found %d and %d", nins, nouts, len(Ins(op)), len(Outs(op)))
	}
	return nil
}

// dimension reads the `dimension` clause and checks it against rank.
func dimension(op *ir.Operation, rank int) (int, error) {
	d, _ := op.IntAttr("dimension")
	if d < 0 || int(d) >= rank {
		return 0, ir.OpErrorf(op, "dimension %d is out of range for rank %d", d, rank)
	}
	return int(d), nil
}

// body returns the op's body block.
func body(op *ir.Operation) *ir.Block { return op.Regions[0].Blocks[0] }

// expectBody checks the body's argument types and that it yields one
// value of type yield (when yield is not nil).
func expectBody(op *ir.Operation, args []ir.Type, yield ir.Type) error {
	b := body(op)
	if len(b.Args) != len(args) {
		return ir.OpErrorf(op, "body must take %d arguments, found %d", len(args), len(b.Args))
	}
	for i, a := range b.Args {
		if !ir.TypesEqual(a.Type, args[i]) {
			return ir.OpErrorf(op, "body argument #%d must be '%s', found '%s'", i, ir.TypeString(args[i]), ir.TypeString(a.Type))
		}
	}
	t := b.Terminator()
	if t == nil || t.Name != "iree_linalg_ext.yield" {
		return ir.OpErrorf(op, "body must end with iree_linalg_ext.yield")
	}
	if yield != nil && (len(t.Operands) != 1 || !ir.TypesEqual(t.Operands[0].Type, yield)) {
		return ir.OpErrorf(op, "body must yield one '%s'", ir.TypeString(yield))
	}
	return nil
}

func elem(v *ir.Value) ir.Type { return arith.ElementType(v.Type) }

func verifyYield(op *ir.Operation) error {
	if p := op.ParentOp(); p == nil || len(p.Name) < len("iree_linalg_ext.") || p.Name[:len("iree_linalg_ext.")] != "iree_linalg_ext." {
		return ir.OpErrorf(op, "expected to be the terminator of an iree_linalg_ext op's body")
	}
	return nil
}

func parseIndex(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	n, err := p.ParseInteger()
	if err != nil {
		return nil, err
	}
	op.SetAttr("dim", ir.IntegerAttr{Value: n, Type: ir.I64})
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printIndex(p *ir.Printer, op *ir.Operation) {
	n, _ := op.IntAttr("dim")
	p.WriteString(" " + strconv.FormatInt(n, 10))
	p.AttrDict(op, "dim")
	p.WriteString(" : ")
	p.Type(op.Results[0].Type)
}

func verifyIndex(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if _, ok := op.Results[0].Type.(ir.IndexType); !ok {
		return ir.OpErrorf(op, "result must be index, found '%s'", ir.TypeString(op.Results[0].Type))
	}
	if n, ok := op.IntAttr("dim"); !ok || n < 0 {
		return ir.OpErrorf(op, "requires a non-negative 'dim' attribute")
	}
	if p := op.ParentOp(); p == nil || (p.Name != "iree_linalg_ext.attention" && p.Name != "iree_linalg_ext.online_attention") {
		return ir.OpErrorf(op, "expected to be inside the body of an iree_linalg_ext attention op")
	}
	return nil
}
