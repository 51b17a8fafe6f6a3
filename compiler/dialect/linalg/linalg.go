// Package linalg registers MLIR's linalg structured ops on tensors:
// linalg.generic (with linalg.yield and linalg.index in its body) and the
// named ops fill, matmul, batch_matmul, quantized_matmul,
// quantized_batch_matmul, matvec, vecmat, dot, transpose,
// broadcast, reduce, map and copy.
//
// Every structured op keeps its operands as ins followed by outs (with
// operandSegmentSizes recording the split, as MLIR does) and has one
// result per tensor out. A named op is defined by the indexing maps,
// iterator types and scalar body of the linalg.generic it stands for
// (Definition); the verifier checks the operand shapes through those maps,
// and Generalize rewrites a named op into that generic, so later passes
// only need to understand linalg.generic.
package linalg

import (
	"strconv"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

// Named ops whose custom form ends with `-> result types`, as MLIR prints
// them; transpose, broadcast, reduce and map leave their results implicit.
var explicitResults = map[string]bool{
	"linalg.generic": true, "linalg.fill": true, "linalg.matmul": true, "linalg.batch_matmul": true,
	"linalg.matvec": true, "linalg.vecmat": true, "linalg.dot": true, "linalg.copy": true, "linalg.batch_matvec": true,
	"linalg.quantized_matmul": true, "linalg.quantized_batch_matmul": true,
	"linalg.matmul_transpose_a": true, "linalg.matmul_transpose_b": true,
	"linalg.batch_matmul_transpose_a": true, "linalg.batch_matmul_transpose_b": true,
	"linalg.conv_2d_nhwc_hwcf": true, "linalg.conv_2d_nchw_fchw": true, "linalg.depthwise_conv_2d_nhwc_hwc": true,
	"linalg.pooling_nhwc_sum": true, "linalg.pooling_nhwc_max": true, "linalg.pooling_nhwc_min": true,
	"linalg.pooling_nchw_sum": true, "linalg.pooling_nchw_max": true,
}

// NamedOps lists the named structured ops, each generalizable to
// linalg.generic.
var NamedOps = []string{
	"linalg.fill", "linalg.matmul", "linalg.batch_matmul", "linalg.matvec", "linalg.vecmat", "linalg.dot",
	"linalg.batch_matvec", "linalg.quantized_matmul", "linalg.quantized_batch_matmul", "linalg.transpose", "linalg.broadcast", "linalg.reduce", "linalg.map", "linalg.copy",
	// MLIR's named matmuls with a transposed operand (2023 to 2025, since
	// replaced by matmul and batch_matmul with indexing_maps), which
	// torch-mlir and IREE's importers emitted.
	"linalg.matmul_transpose_a", "linalg.matmul_transpose_b", "linalg.batch_matmul_transpose_a", "linalg.batch_matmul_transpose_b",
	"linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nchw_fchw", "linalg.depthwise_conv_2d_nhwc_hwc",
	"linalg.pooling_nhwc_sum", "linalg.pooling_nhwc_max", "linalg.pooling_nhwc_min",
	"linalg.pooling_nchw_sum", "linalg.pooling_nchw_max",
}

// Register adds the linalg ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "linalg.generic", Parse: parseStructured, Print: printStructured, Verify: verifyStructured})
	for _, n := range NamedOps {
		r.RegisterOp(&ir.OpDef{Name: n, Parse: parseStructured, Print: printStructured, Verify: verifyStructured})
	}
	r.RegisterOp(&ir.OpDef{Name: "linalg.softmax", Parse: parseSoftmax, Print: printSoftmax, Verify: verifySoftmax})
	r.RegisterOp(ir.ReturnLikeOp("linalg.yield", verifyYield))
	r.RegisterOp(&ir.OpDef{Name: "linalg.index", Parse: parseIndex, Print: printIndex, Verify: verifyIndex})
	registerRelayout(r)
	registerElementwise(r)
	r.RegisterAttr("linalg.iterator_type", parseIteratorTypeAttr)
}

// IteratorTypeAttr is #linalg.iterator_type<parallel|reduction>, the
// spelling of iterator_types in MLIR's generic op form.
type IteratorTypeAttr struct{ Value string }

// PrintAttr implements ir.Attribute.
func (a IteratorTypeAttr) PrintAttr(w *ir.AsmWriter) {
	w.WriteString("#linalg.iterator_type<" + a.Value + ">")
}

func parseIteratorTypeAttr(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	pos := p.Pos()
	kw, err := p.ParseKeyword()
	if err != nil {
		return nil, err
	}
	if kw != "parallel" && kw != "reduction" {
		return nil, ir.Errorf(pos, "unknown iterator type '%s' (expected parallel or reduction)", kw)
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	return IteratorTypeAttr{Value: kw}, nil
}

// Ins returns the input operands of a structured op.
func Ins(op *ir.Operation) []*ir.Value {
	if s := ir.SegmentSizes(op); len(s) == 2 && int(s[0]) <= len(op.Operands) {
		return op.Operands[:s[0]]
	}
	return nil
}

// Outs returns the init (output) operands of a structured op.
func Outs(op *ir.Operation) []*ir.Value {
	if s := ir.SegmentSizes(op); len(s) == 2 && int(s[0]) <= len(op.Operands) {
		return op.Operands[s[0]:]
	}
	return op.Operands
}

// parseTypedOperands parses `kw(%a, %b : t1, t2)`.
func parseTypedOperands(p *ir.Parser, kw string) ([]*ir.Value, error) {
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

// parseI64List parses `[1, 2]` into a dense i64 array.
func parseI64List(p *ir.Parser) (*ir.DenseArrayAttr, error) {
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	a := &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{}}
	if p.Optional("]") {
		return a, nil
	}
	for {
		n, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		a.Values = append(a.Values, n)
		if p.Optional("]") {
			return a, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, err
		}
	}
}

// trailingAttr names the `name = [..]` list a named op spells after outs.
func trailingAttr(name string) string {
	switch name {
	case "linalg.transpose":
		return "permutation"
	case "linalg.broadcast", "linalg.reduce":
		return "dimensions"
	}
	return ""
}

// hasRegion reports whether an op spells its body in the custom form.
func hasRegion(name string) bool {
	return name == "linalg.generic" || name == "linalg.reduce" || name == "linalg.map"
}

func parseStructured(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	// reduce and map accept MLIR's short form `{ arith.addf }` naming the
	// single op of their body before ins.
	var shortBody string
	var shortPos ir.Pos
	// Neither prints an attribute dictionary before ins, so a brace there
	// always opens the short form.
	if (op.Name == "linalg.reduce" || op.Name == "linalg.map") && p.Optional("{") {
		shortPos = p.Pos()
		kw, err := p.ParseKeyword()
		if err != nil {
			return nil, err
		}
		shortBody = kw
		if err := p.Expect("}"); err != nil {
			return nil, err
		}
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	// matmul and batch_matmul may spell their maps before ins (MLIR since
	// 2024: transposed and broadcast operands).
	if (op.Name == "linalg.matmul" || op.Name == "linalg.batch_matmul") && p.OptionalKeyword("indexing_maps") {
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		a, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		op.SetAttr("indexing_maps", a)
	}
	var ins []*ir.Value
	if p.IsKeyword("ins") {
		var err error
		if ins, err = parseTypedOperands(p, "ins"); err != nil {
			return nil, err
		}
	}
	outs, err := parseTypedOperands(p, "outs")
	if err != nil {
		return nil, err
	}
	op.Operands = append(append([]*ir.Value(nil), ins...), outs...)
	op.SetAttr("operandSegmentSizes", ir.SegmentAttr(len(ins), len(outs)))
	if a := trailingAttr(op.Name); a != "" {
		if err := p.ExpectKeyword(a); err != nil {
			return nil, err
		}
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		l, err := parseI64List(p)
		if err != nil {
			return nil, err
		}
		op.SetAttr(a, l)
	}
	if p.OptionalKeyword("attrs") {
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		if err := p.ParseOptionalAttrDict(op); err != nil {
			return nil, err
		}
	} else if op.Name != "linalg.generic" {
		if err := p.ParseOptionalAttrDict(op); err != nil {
			return nil, err
		}
	}
	if hasRegion(op.Name) {
		switch {
		case shortBody != "":
			if err := buildShortBody(op, shortBody, shortPos, ins, outs); err != nil {
				return nil, err
			}
		case op.Name == "linalg.generic":
			if _, err := p.ParseRegion(op, nil); err != nil {
				return nil, err
			}
		default:
			args, err := p.ParseArgumentList(true)
			if err != nil {
				return nil, err
			}
			if _, err := p.ParseRegion(op, args); err != nil {
				return nil, err
			}
		}
	}
	var results []ir.Type
	if p.Optional("->") {
		ts, err := p.ParseFunctionResultTypes()
		if err != nil {
			return nil, err
		}
		results = ts
	} else {
		for _, v := range outs {
			if _, ok := v.Type.(*ir.TensorType); ok {
				results = append(results, v.Type)
			}
		}
	}
	return results, nil
}

// buildShortBody makes the body of `linalg.map { arith.addf }` and
// `linalg.reduce { arith.addf }`: the named op applied to the block
// arguments, yielded.
func buildShortBody(op *ir.Operation, name string, pos ir.Pos, ins, outs []*ir.Value) error {
	var ts []ir.Type
	for _, v := range ins {
		ts = append(ts, arith.ElementType(v.Type))
	}
	if op.Name == "linalg.reduce" {
		for _, v := range outs {
			ts = append(ts, arith.ElementType(v.Type))
		}
	}
	if len(outs) != 1 {
		return ir.Errorf(pos, "the short form { %s } needs exactly one init, found %d", name, len(outs))
	}
	r := op.AddRegion()
	b := r.AddBlock(ts...)
	body := ir.NewOp(name, append([]*ir.Value(nil), b.Args...), []ir.Type{arith.ElementType(outs[0].Type)}, nil)
	body.Pos = pos
	b.Append(body)
	y := ir.NewOp("linalg.yield", []*ir.Value{body.Results[0]}, nil, nil)
	y.Pos = pos
	b.Append(y)
	return nil
}

func printTypedOperands(p *ir.Printer, kw string, vs []*ir.Value) {
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

func printStructured(p *ir.Printer, op *ir.Operation) {
	elided := []string{"operandSegmentSizes"}
	if a := trailingAttr(op.Name); a != "" {
		elided = append(elided, a)
	}
	if op.Name == "linalg.generic" {
		// MLIR prints the trait (maps, iterators) before ins and every
		// other attribute after outs with `attrs =`.
		var trait, rest []string
		for _, a := range op.Attrs {
			switch a.Name {
			case "operandSegmentSizes":
			case "indexing_maps", "iterator_types", "doc", "library_call":
				trait = append(trait, a.Name)
			default:
				rest = append(rest, a.Name)
			}
		}
		p.AttrDict(op, append(elided, rest...)...)
		if len(Ins(op)) > 0 {
			printTypedOperands(p, "ins", Ins(op))
		}
		printTypedOperands(p, "outs", Outs(op))
		if len(rest) > 0 {
			p.WriteString(" attrs =")
			p.AttrDict(op, append(elided, trait...)...)
		}
	} else {
		printTypedOperands(p, "ins", Ins(op))
		printTypedOperands(p, "outs", Outs(op))
		if a := trailingAttr(op.Name); a != "" {
			p.WriteString(" " + a + " = [")
			if l, ok := op.Attr(a).(*ir.DenseArrayAttr); ok {
				for i, v := range l.Values {
					if i > 0 {
						p.WriteString(", ")
					}
					p.WriteString(strconv.FormatInt(v, 10))
				}
			}
			p.WriteString("]")
		}
		p.AttrDict(op, elided...)
	}
	if hasRegion(op.Name) && len(op.Regions) == 1 {
		if op.Name == "linalg.generic" {
			p.WriteString(" ")
			p.Region(op.Regions[0], true)
		} else if b := op.Regions[0].Blocks; len(b) == 1 {
			p.WriteString(" ")
			p.ArgList(b[0].Args)
			p.WriteString(" ")
			p.Region(op.Regions[0], false)
		}
	}
	if explicitResults[op.Name] && len(op.Results) > 0 {
		p.WriteString(" -> ")
		var ts []ir.Type
		for _, r := range op.Results {
			ts = append(ts, r.Type)
		}
		p.ResultTypes(ts)
	}
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

// enclosingStructured returns the structured op whose body holds op.
func enclosingStructured(op *ir.Operation) *ir.Operation {
	parent := op.ParentOp()
	if parent == nil || (parent.Name != "linalg.generic" && parent.Name != "linalg.reduce" && parent.Name != "linalg.map") {
		return nil
	}
	return parent
}

func verifyIndex(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if _, ok := op.Results[0].Type.(ir.IndexType); !ok {
		return ir.OpErrorf(op, "result must be index, found '%s'", ir.TypeString(op.Results[0].Type))
	}
	n, ok := op.IntAttr("dim")
	if !ok || n < 0 {
		return ir.OpErrorf(op, "requires a non-negative 'dim' attribute")
	}
	parent := enclosingStructured(op)
	if parent == nil {
		return ir.OpErrorf(op, "expected to be inside a linalg structured op's body")
	}
	d, err := DefinitionOf(parent)
	if err == nil && int(n) >= len(d.Iterators) {
		return ir.OpErrorf(op, "dimension %d is out of range: the op has %d loops", n, len(d.Iterators))
	}
	return nil
}

func verifyYield(op *ir.Operation) error {
	parent := enclosingStructured(op)
	if parent == nil {
		return ir.OpErrorf(op, "expected to be the terminator of a linalg structured op's body")
	}
	outs := Outs(parent)
	if len(op.Operands) != len(outs) {
		return ir.OpErrorf(op, "yields %d values but the op has %d outputs", len(op.Operands), len(outs))
	}
	for i, v := range op.Operands {
		want := arith.ElementType(outs[i].Type)
		if !ir.TypesEqual(v.Type, want) {
			return ir.OpErrorf(op, "type of yield operand #%d ('%s') does not match the element type of output #%d ('%s')",
				i, ir.TypeString(v.Type), i, ir.TypeString(want))
		}
	}
	return nil
}

func verifyStructured(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 2); err != nil {
		return err
	}
	outs := Outs(op)
	if len(outs) == 0 {
		return ir.OpErrorf(op, "expects at least one output (outs)")
	}
	var tensorOuts []*ir.Value
	for i, v := range append(append([]*ir.Value(nil), Ins(op)...), outs...) {
		switch v.Type.(type) {
		case *ir.TensorType, *ir.MemRefType:
		default:
			if i >= len(Ins(op)) {
				return ir.OpErrorf(op, "output #%d must be a tensor or memref, found '%s'", i-len(Ins(op)), ir.TypeString(v.Type))
			}
		}
	}
	for _, v := range outs {
		if _, ok := v.Type.(*ir.TensorType); ok {
			tensorOuts = append(tensorOuts, v)
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
	d, err := DefinitionOf(op)
	if err != nil {
		return err
	}
	ranges, err := d.LoopRanges(op)
	if err != nil {
		return err
	}
	if err := verifyWindows(op, d, ranges); err != nil {
		return err
	}
	if hasRegion(op.Name) {
		return verifyBody(op, d)
	}
	return nil
}

// verifyBody checks the body block's arguments against the operands'
// element types (map's body takes no output argument).
func verifyBody(op *ir.Operation, d *Definition) error {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return ir.OpErrorf(op, "expects a body region with one block")
	}
	b := op.Regions[0].Blocks[0]
	vals := append(append([]*ir.Value(nil), Ins(op)...), Outs(op)...)
	if op.Name == "linalg.map" {
		vals = Ins(op)
	}
	if len(b.Args) != len(vals) {
		return ir.OpErrorf(op, "body has %d arguments but the op has %d operands that it reads", len(b.Args), len(vals))
	}
	for i, a := range b.Args {
		if want := arith.ElementType(vals[i].Type); !ir.TypesEqual(a.Type, want) {
			return ir.OpErrorf(op, "body argument #%d has type '%s' but the operand's element type is '%s'", i, ir.TypeString(a.Type), ir.TypeString(want))
		}
	}
	if t := b.Terminator(); t == nil || t.Name != "linalg.yield" {
		return ir.OpErrorf(op, "body must end with linalg.yield")
	}
	return nil
}
