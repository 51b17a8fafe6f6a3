package tensor

import (
	"fmt"
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// This file holds the tensor ops beyond dim/empty/slices: casts, element
// access, reshapes, padding, concatenation, splats and generators. Each is
// kept in memory as MLIR's generic form (attribute names and operand order
// of MLIR's TensorOps.td) and parsed and printed in MLIR's custom form.

func registerOps(r *ir.Registry) {
	r.RegisterOp(ir.CastOp("tensor.cast", verifyCast))
	r.RegisterOp(ir.CastOp("tensor.bitcast", verifyBitcast))
	r.RegisterOp(&ir.OpDef{Name: "tensor.extract", Parse: parseExtract, Print: printExtract, Verify: verifyExtract})
	r.RegisterOp(&ir.OpDef{Name: "tensor.insert", Parse: parseInsert, Print: printInsert, Verify: verifyInsert})
	r.RegisterOp(&ir.OpDef{Name: "tensor.expand_shape", Parse: parseExpandShape, Print: printReshape, Verify: verifyExpandShape})
	r.RegisterOp(&ir.OpDef{Name: "tensor.collapse_shape", Parse: parseCollapseShape, Print: printReshape, Verify: verifyCollapseShape})
	r.RegisterOp(&ir.OpDef{Name: "tensor.pad", Parse: parsePad, Print: printPad, Verify: verifyPad})
	r.RegisterOp(ir.ReturnLikeOp("tensor.yield", verifyYield))
	r.RegisterOp(&ir.OpDef{Name: "tensor.concat", Parse: parseConcat, Print: printConcat, Verify: verifyConcat})
	r.RegisterOp(&ir.OpDef{Name: "tensor.splat", Parse: parseSplat, Print: printSplat, Verify: verifySplat})
	r.RegisterOp(&ir.OpDef{Name: "tensor.from_elements", Parse: parseFromElements, Print: printFromElements, Verify: verifyFromElements})
	r.RegisterOp(&ir.OpDef{Name: "tensor.generate", Parse: parseGenerate, Print: printGenerate, Verify: verifyGenerate})
}

// ranked returns v's type as a ranked tensor, or an error naming what.
func ranked(op *ir.Operation, t ir.Type, what string) (*ir.TensorType, error) {
	tt, ok := t.(*ir.TensorType)
	if !ok || tt.Unranked {
		return nil, ir.OpErrorf(op, "%s must be a ranked tensor, found '%s'", what, ir.TypeString(t))
	}
	return tt, nil
}

// castCompatible reports whether two tensor types can be cast into each
// other: same element type, and (when both are ranked) the same rank with
// static sizes agreeing where both are static.
func castCompatible(a, b ir.Type, sameElem bool) bool {
	at, ok1 := a.(*ir.TensorType)
	bt, ok2 := b.(*ir.TensorType)
	if !ok1 || !ok2 {
		return false
	}
	if sameElem && !ir.TypesEqual(at.Elem, bt.Elem) {
		return false
	}
	if at.Unranked || bt.Unranked {
		return true
	}
	if len(at.Shape) != len(bt.Shape) {
		return false
	}
	for i, d := range at.Shape {
		if d != ir.Dynamic && bt.Shape[i] != ir.Dynamic && d != bt.Shape[i] {
			return false
		}
	}
	return true
}

func verifyCast(op *ir.Operation) error {
	if !castCompatible(op.Operands[0].Type, op.Results[0].Type, true) {
		return ir.OpErrorf(op, "operand type '%s' and result type '%s' are cast incompatible", ir.TypeString(op.Operands[0].Type), ir.TypeString(op.Results[0].Type))
	}
	return nil
}

// ElemBits is the storage width in bits of a scalar element type, or 0.
func ElemBits(t ir.Type) int {
	switch t := t.(type) {
	case ir.IntegerType:
		return t.Width
	case ir.FloatType:
		switch t.Name {
		case "f16", "bf16":
			return 16
		case "f32":
			return 32
		case "f64":
			return 64
		}
	case ir.IndexType:
		return 64
	}
	return 0
}

func verifyBitcast(op *ir.Operation) error {
	a, b := op.Operands[0].Type, op.Results[0].Type
	at, ok1 := a.(*ir.TensorType)
	bt, ok2 := b.(*ir.TensorType)
	if !ok1 || !ok2 || !castCompatible(a, b, false) || ElemBits(at.Elem) == 0 || ElemBits(at.Elem) != ElemBits(bt.Elem) {
		return ir.OpErrorf(op, "operand type '%s' and result type '%s' are cast incompatible", ir.TypeString(a), ir.TypeString(b))
	}
	return nil
}

// parseIndexList parses `[%i, %j, ...]` of index operands.
func parseIndexList(p *ir.Parser) ([]*ir.Value, error) {
	return p.ParseDelimitedOperands("[", "]")
}

func resolveIndices(p *ir.Parser, vs []*ir.Value, pos ir.Pos) error {
	for _, v := range vs {
		if err := p.ResolveType(v, ir.IndexType{}, pos); err != nil {
			return err
		}
	}
	return nil
}

func printIndexList(p *ir.Printer, vs []*ir.Value) {
	p.WriteString("[")
	p.Operands(vs)
	p.WriteString("]")
}

// parseIndicesAndType parses `[%i, ...] attr-dict : tensor-type`, the end
// of tensor.extract and tensor.insert. The indices are left for the caller
// to type, after the tensor operands.
func parseIndicesAndType(p *ir.Parser, op *ir.Operation) ([]*ir.Value, ir.Type, *ir.TensorType, ir.Pos, error) {
	idx, err := parseIndexList(p)
	if err != nil {
		return nil, nil, nil, ir.Pos{}, err
	}
	ty, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, nil, nil, ir.Pos{}, err
	}
	tt, ok := ty.(*ir.TensorType)
	if !ok {
		return nil, nil, nil, ir.Pos{}, ir.Errorf(tpos, "expected a tensor type, found '%s'", ir.TypeString(ty))
	}
	return idx, ty, tt, tpos, nil
}

// parseRankedType parses `attr-dict : tensor-type` where the type must be
// a ranked tensor (tensor.splat, tensor.from_elements).
func parseRankedType(p *ir.Parser, op *ir.Operation) (ir.Type, *ir.TensorType, ir.Pos, error) {
	ty, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, nil, ir.Pos{}, err
	}
	tt, ok := ty.(*ir.TensorType)
	if !ok || tt.Unranked {
		return nil, nil, ir.Pos{}, ir.Errorf(tpos, "expected a ranked tensor type, found '%s'", ir.TypeString(ty))
	}
	return ty, tt, tpos, nil
}

// tensor.extract %t[%i, ...] attr-dict : tensor-type
func parseExtract(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	t, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	idx, ty, tt, tpos, err := parseIndicesAndType(p, op)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(t, ty, tpos); err != nil {
		return nil, err
	}
	if err := resolveIndices(p, idx, tpos); err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{t}, idx...)
	return []ir.Type{tt.Elem}, nil
}

func printExtract(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	printIndexList(p, op.Operands[1:])
	p.AttrDictColonType(op, op.Operands[0].Type)
}

func verifyIndices(op *ir.Operation, t *ir.TensorType, idx []*ir.Value, msg string) error {
	if len(idx) != len(t.Shape) {
		return ir.OpErrorf(op, "%s", msg)
	}
	for _, v := range idx {
		if _, ok := v.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "indices must be of type index, found '%s'", ir.TypeString(v.Type))
		}
	}
	return nil
}

func verifyExtract(op *ir.Operation) error {
	if len(op.Operands) < 1 {
		return ir.OpErrorf(op, "expects a tensor operand")
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	t, err := ranked(op, op.Operands[0].Type, "operand #0")
	if err != nil {
		return err
	}
	if !ir.TypesEqual(op.Results[0].Type, t.Elem) {
		return ir.OpErrorf(op, "result type '%s' must be the element type of '%s'", ir.TypeString(op.Results[0].Type), ir.TypeString(t))
	}
	return verifyIndices(op, t, op.Operands[1:], "incorrect number of indices for extract_element")
}

// tensor.insert %scalar into %dest[%i, ...] attr-dict : tensor-type
func parseInsert(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	s, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("into"); err != nil {
		return nil, err
	}
	d, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	idx, ty, tt, tpos, err := parseIndicesAndType(p, op)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(s, tt.Elem, tpos); err != nil {
		return nil, err
	}
	if err := p.ResolveType(d, ty, tpos); err != nil {
		return nil, err
	}
	if err := resolveIndices(p, idx, tpos); err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{s, d}, idx...)
	return []ir.Type{ty}, nil
}

func printInsert(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.WriteString(" into ")
	p.Operand(op.Operands[1])
	printIndexList(p, op.Operands[2:])
	p.AttrDictColonType(op, op.Operands[1].Type)
}

func verifyInsert(op *ir.Operation) error {
	if len(op.Operands) < 2 {
		return ir.OpErrorf(op, "expects a scalar and a destination operand")
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	t, err := ranked(op, op.Operands[1].Type, "destination")
	if err != nil {
		return err
	}
	if !ir.TypesEqual(op.Operands[0].Type, t.Elem) {
		return ir.OpErrorf(op, "scalar type '%s' must be the element type of '%s'", ir.TypeString(op.Operands[0].Type), ir.TypeString(t))
	}
	if !ir.TypesEqual(op.Results[0].Type, t) {
		return ir.OpErrorf(op, "result type '%s' must be the destination type '%s'", ir.TypeString(op.Results[0].Type), ir.TypeString(t))
	}
	return verifyIndices(op, t, op.Operands[2:], "incorrect number of indices")
}

// Reassociation returns the groups of a reshape's reassociation attribute
// (for expand_shape the result dimensions of each source dimension, for
// collapse_shape the source dimensions of each result dimension), or nil.
func Reassociation(op *ir.Operation) [][]int64 {
	a, ok := op.Attr("reassociation").(*ir.ArrayAttr)
	if !ok {
		return nil
	}
	out := make([][]int64, 0, len(a.Elems))
	for _, g := range a.Elems {
		ga, ok := g.(*ir.ArrayAttr)
		if !ok {
			return nil
		}
		var dims []int64
		for _, e := range ga.Elems {
			ia, ok := e.(ir.IntegerAttr)
			if !ok {
				return nil
			}
			dims = append(dims, ia.Value)
		}
		out = append(out, dims)
	}
	return out
}

// parseReassociation parses `[[0, 1], [2]]` into MLIR's attribute: an
// array of arrays of i64.
func parseReassociation(p *ir.Parser) (ir.Attribute, error) {
	pos := p.Pos()
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	outer := &ir.ArrayAttr{Elems: []ir.Attribute{}}
	if p.Optional("]") {
		return outer, nil
	}
	for {
		if err := p.Expect("["); err != nil {
			return nil, err
		}
		g := &ir.ArrayAttr{Elems: []ir.Attribute{}}
		for !p.Optional("]") {
			if len(g.Elems) > 0 {
				if err := p.Expect(","); err != nil {
					return nil, err
				}
			}
			n, err := p.ParseInteger()
			if err != nil {
				return nil, err
			}
			g.Elems = append(g.Elems, ir.IntegerAttr{Value: n, Type: ir.I64})
		}
		if len(g.Elems) == 0 {
			return nil, ir.Errorf(pos, "reassociation groups must not be empty")
		}
		outer.Elems = append(outer.Elems, g)
		if p.Optional("]") {
			return outer, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, err
		}
	}
}

// tensor.expand_shape %src [[0, 1], ...] (output_shape [%d, 4, ...])?
//
//	attr-dict : src-type into result-type
//
// The output_shape list is the current spelling; without it (the older
// one) the op has only its reassociation, as MLIR's generic form had then.
func parseExpandShape(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	re, err := parseReassociation(p)
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{src}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "reassociation", Value: re})
	if p.OptionalKeyword("output_shape") {
		vs, static, err := parseMixedList(p)
		if err != nil {
			return nil, err
		}
		op.Operands = append(op.Operands, vs...)
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "static_output_shape", Value: static})
	}
	rt, err := p.ParseAttrDictTypePair(op, src, "into")
	if err != nil {
		return nil, err
	}
	return []ir.Type{rt}, nil
}

// tensor.collapse_shape %src [[0, 1], ...] attr-dict : src-type into result-type
func parseCollapseShape(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	re, err := parseReassociation(p)
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{src}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "reassociation", Value: re})
	rt, err := p.ParseAttrDictTypePair(op, src, "into")
	if err != nil {
		return nil, err
	}
	return []ir.Type{rt}, nil
}

func printReshape(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.WriteString(" ")
	p.Attr(op.Attr("reassociation"))
	if static, ok := op.Attr("static_output_shape").(*ir.DenseArrayAttr); ok {
		p.WriteString(" output_shape ")
		printMixed(p, static.Values, op.Operands[1:])
	}
	p.AttrDictTypePair(op, op.Operands[0].Type, "into", op.Results[0].Type, "reassociation", "static_output_shape")
}

// printMixed prints `[a, %v, ...]`: the static list with the values in
// order where it has DynamicIndex.
func printMixed(p *ir.Printer, static []int64, vs []*ir.Value) {
	p.WriteString("[")
	next := 0
	for j, n := range static {
		if j > 0 {
			p.WriteString(", ")
		}
		if n == DynamicIndex && next < len(vs) {
			p.Operand(vs[next])
			next++
		} else {
			p.WriteString(strconv.FormatInt(n, 10))
		}
	}
	p.WriteString("]")
}

// verifyReassociation checks that the groups partition [0, expandedRank)
// in order, one group per collapsed dimension, and that each collapsed
// size is the product of its group's expanded sizes (dynamic when any of
// them is).
func verifyReassociation(op *ir.Operation, collapsed, expanded *ir.TensorType) error {
	groups := Reassociation(op)
	if groups == nil {
		return ir.OpErrorf(op, "requires a 'reassociation' attribute: an array of arrays of dimension indices")
	}
	if len(groups) != len(collapsed.Shape) {
		return ir.OpErrorf(op, "expected rank of the collapsed type(%d) to be the number of reassociation maps(%d)", len(collapsed.Shape), len(groups))
	}
	next := int64(0)
	for _, g := range groups {
		for _, d := range g {
			if d != next {
				return ir.OpErrorf(op, "expected reassociation map #%d to be valid and contiguous", next)
			}
			next++
		}
	}
	if next != int64(len(expanded.Shape)) && len(groups) > 0 {
		return ir.OpErrorf(op, "expected the reassociation to cover the %d dimensions of the expanded type, it covers %d", len(expanded.Shape), next)
	}
	if len(groups) == 0 && len(expanded.Shape) > 0 {
		for _, d := range expanded.Shape {
			if d != 1 {
				return ir.OpErrorf(op, "collapsing to a rank-0 tensor needs every expanded dimension to be 1")
			}
		}
	}
	for i, g := range groups {
		prod, dyn := int64(1), false
		for _, d := range g {
			if s := expanded.Shape[d]; s == ir.Dynamic {
				dyn = true
			} else {
				prod *= s
			}
		}
		c := collapsed.Shape[i]
		switch {
		case dyn && c != ir.Dynamic:
			return ir.OpErrorf(op, "expected dimension %d of collapsed type to be dynamic since one or more of the corresponding dimensions in the expanded type is dynamic", i)
		case !dyn && c != prod:
			return ir.OpErrorf(op, "expected dimension %d of collapsed type to be static value of %d", i, prod)
		}
	}
	return nil
}

func verifyReshapeTypes(op *ir.Operation) (src, res *ir.TensorType, err error) {
	if len(op.Operands) < 1 {
		return nil, nil, ir.OpErrorf(op, "expects a source operand")
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return nil, nil, err
	}
	if src, err = ranked(op, op.Operands[0].Type, "source"); err != nil {
		return nil, nil, err
	}
	if res, err = ranked(op, op.Results[0].Type, "result"); err != nil {
		return nil, nil, err
	}
	if !ir.TypesEqual(src.Elem, res.Elem) {
		return nil, nil, ir.OpErrorf(op, "source and result element types differ ('%s' and '%s')", ir.TypeString(src.Elem), ir.TypeString(res.Elem))
	}
	return src, res, nil
}

func verifyExpandShape(op *ir.Operation) error {
	src, res, err := verifyReshapeTypes(op)
	if err != nil {
		return err
	}
	if len(res.Shape) < len(src.Shape) {
		return ir.OpErrorf(op, "expected rank expansion, but found source rank %d > result rank %d", len(src.Shape), len(res.Shape))
	}
	if err := verifyReassociation(op, src, res); err != nil {
		return err
	}
	static, ok := op.Attr("static_output_shape").(*ir.DenseArrayAttr)
	if !ok {
		// The older form: the result type alone gives the shape, and a
		// group may hold at most one dynamic size (found from the source).
		if len(op.Operands) != 1 {
			return ir.OpErrorf(op, "has %d output_shape values but no static_output_shape attribute", len(op.Operands)-1)
		}
		for i, g := range Reassociation(op) {
			n := 0
			for _, d := range g {
				if res.Shape[d] == ir.Dynamic {
					n++
				}
			}
			if n > 1 {
				return ir.OpErrorf(op, "group %d expands to %d dynamic sizes; give them with output_shape", i, n)
			}
		}
		return nil
	}
	if len(static.Values) != len(res.Shape) {
		return ir.OpErrorf(op, "expected number of static shape dims to be equal to the output rank (%d) but found %d inputs instead", len(res.Shape), len(static.Values))
	}
	dyn := 0
	for i, n := range static.Values {
		if n == DynamicIndex {
			dyn++
			if res.Shape[i] != ir.Dynamic {
				return ir.OpErrorf(op, "invalid output shape provided at pos %d", i)
			}
			continue
		}
		if res.Shape[i] != n {
			return ir.OpErrorf(op, "invalid output shape provided at pos %d", i)
		}
	}
	if dyn != len(op.Operands)-1 {
		return ir.OpErrorf(op, "'static_output_shape' has %d dynamic entries but %d values were given", dyn, len(op.Operands)-1)
	}
	for _, v := range op.Operands[1:] {
		if _, ok := v.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "output_shape values must be index, found '%s'", ir.TypeString(v.Type))
		}
	}
	return nil
}

func verifyCollapseShape(op *ir.Operation) error {
	src, res, err := verifyReshapeTypes(op)
	if err != nil {
		return err
	}
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	if len(res.Shape) > len(src.Shape) {
		return ir.OpErrorf(op, "expected rank reduction, but found source rank %d < result rank %d", len(src.Shape), len(res.Shape))
	}
	return verifyReassociation(op, res, src)
}

// tensor.pad %src (nofold)? low[...] high[...] { region } attr-dict
//
//	: src-type to result-type
func parsePad(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{src}
	nofold := p.OptionalKeyword("nofold")
	var counts [2]int
	for i, kw := range []string{"low", "high"} {
		if err := p.ExpectKeyword(kw); err != nil {
			return nil, err
		}
		vs, static, err := parseMixedList(p)
		if err != nil {
			return nil, err
		}
		counts[i] = len(vs)
		op.Operands = append(op.Operands, vs...)
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "static_" + kw, Value: static})
	}
	if nofold {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "nofold", Value: ir.UnitAttr{}})
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, counts[0], counts[1])})
	if _, err := p.ParseRegion(op, nil); err != nil {
		return nil, err
	}
	rt, err := p.ParseAttrDictTypePair(op, src, "to")
	if err != nil {
		return nil, err
	}
	return []ir.Type{rt}, nil
}

func printPad(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	if op.Attr("nofold") != nil {
		p.WriteString(" nofold")
	}
	for i, kw := range []string{"low", "high"} {
		p.WriteString(" " + kw)
		static, _ := op.Attr("static_" + kw).(*ir.DenseArrayAttr)
		var vals []int64
		if static != nil {
			vals = static.Values
		}
		printMixed(p, vals, ir.Segment(op, 1+i))
	}
	p.WriteString(" ")
	if len(op.Regions) == 1 {
		p.Region(op.Regions[0], true)
	}
	p.AttrDictTypePair(op, op.Operands[0].Type, "to", op.Results[0].Type, "static_low", "static_high", "nofold", "operandSegmentSizes")
}

// PadAmounts returns a pad's static low and high lists (DynamicIndex where
// a value gives the amount).
func PadAmounts(op *ir.Operation) (low, high []int64) {
	if a, ok := op.Attr("static_low").(*ir.DenseArrayAttr); ok {
		low = a.Values
	}
	if a, ok := op.Attr("static_high").(*ir.DenseArrayAttr); ok {
		high = a.Values
	}
	return low, high
}

// verifyBody checks a pad or generate region: one block taking one index
// per dimension of t, ending in a tensor.yield of t's element type.
func verifyBody(op *ir.Operation, t *ir.TensorType) error {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return ir.OpErrorf(op, "expects a region with one block")
	}
	b := op.Regions[0].Blocks[0]
	if len(b.Args) != len(t.Shape) {
		return ir.OpErrorf(op, "must have one body argument per input dimension (expected %d, found %d)", len(t.Shape), len(b.Args))
	}
	for _, a := range b.Args {
		if _, ok := a.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "all body arguments must be index")
		}
	}
	if len(b.Ops) == 0 || b.Ops[len(b.Ops)-1].Name != "tensor.yield" {
		return ir.OpErrorf(op, "body must be terminated with a 'tensor.yield' operation")
	}
	y := b.Ops[len(b.Ops)-1]
	if len(y.Operands) != 1 || !ir.TypesEqual(y.Operands[0].Type, t.Elem) {
		return ir.OpErrorf(y, "must yield one value of the element type '%s'", ir.TypeString(t.Elem))
	}
	return nil
}

func verifyPad(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 3); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if len(ir.Segment(op, 0)) != 1 {
		return ir.OpErrorf(op, "expects one source operand")
	}
	src, err := ranked(op, op.Operands[0].Type, "source")
	if err != nil {
		return err
	}
	res, err := ranked(op, op.Results[0].Type, "result")
	if err != nil {
		return err
	}
	low, high := PadAmounts(op)
	for i, l := range [][]int64{low, high} {
		name := []string{"static_low", "static_high"}[i]
		if len(l) != len(src.Shape) {
			return ir.OpErrorf(op, "expected %d %s values (one per dimension), found %d", len(src.Shape), name[len("static_"):], len(l))
		}
		dyn := 0
		for _, n := range l {
			if n == DynamicIndex {
				dyn++
			} else if n < 0 {
				return ir.OpErrorf(op, "%s padding %d is negative", name[len("static_"):], n)
			}
		}
		if vs := ir.Segment(op, 1+i); len(vs) != dyn {
			return ir.OpErrorf(op, "'%s' has %d dynamic entries but %d values were given", name, dyn, len(vs))
		}
		for _, v := range ir.Segment(op, 1+i) {
			if _, ok := v.Type.(ir.IndexType); !ok {
				return ir.OpErrorf(op, "padding values must be index, found '%s'", ir.TypeString(v.Type))
			}
		}
	}
	want := &ir.TensorType{Elem: src.Elem}
	for i, d := range src.Shape {
		if d == ir.Dynamic || low[i] == DynamicIndex || high[i] == DynamicIndex {
			want.Shape = append(want.Shape, ir.Dynamic)
		} else {
			want.Shape = append(want.Shape, d+low[i]+high[i])
		}
	}
	if !castCompatible(res, want, true) {
		return ir.OpErrorf(op, "specified type '%s' does not match the inferred type '%s'", ir.TypeString(res), ir.TypeString(want))
	}
	return verifyBody(op, res)
}

func verifyYield(op *ir.Operation) error {
	if p := op.ParentOp(); p != nil && p.Name != "tensor.pad" && p.Name != "tensor.generate" {
		return ir.OpErrorf(op, "expects parent op to be one of 'tensor.generate, tensor.pad'")
	}
	return ir.ExpectOperands(op, 1)
}

// tensor.concat dim(N) %a, %b attr-dict : (types) -> result-type
func parseConcat(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ExpectKeyword("dim"); err != nil {
		return nil, err
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	d, err := p.ParseInteger()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: d, Type: ir.I64}})
	ft, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	f, ok := ft.(*ir.FunctionType)
	if !ok || len(f.Results) != 1 {
		return nil, ir.Errorf(tpos, "expected a function type '(inputs) -> result', found '%s'", ir.TypeString(ft))
	}
	if len(f.Inputs) != len(vs) {
		return nil, ir.Errorf(tpos, "%d operands present, but expected %d", len(vs), len(f.Inputs))
	}
	if err := p.ResolveTypes(vs, f.Inputs, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return f.Results, nil
}

func printConcat(p *ir.Printer, op *ir.Operation) {
	d, _ := op.IntAttr("dim")
	fmt.Fprintf(printerWriter{p}, " dim(%d) ", d)
	p.Operands(op.Operands)
	p.AttrDict(op, "dim")
	p.WriteString(" : (")
	for i, v := range op.Operands {
		if i > 0 {
			p.WriteString(", ")
		}
		p.Type(v.Type)
	}
	p.WriteString(") -> ")
	p.Type(op.Results[0].Type)
}

// printerWriter lets fmt write through an ir.Printer.
type printerWriter struct{ p *ir.Printer }

func (w printerWriter) Write(b []byte) (int, error) {
	w.p.WriteString(string(b))
	return len(b), nil
}

// ConcatDim returns a concat's dimension.
func ConcatDim(op *ir.Operation) int64 {
	d, _ := op.IntAttr("dim")
	return d
}

func verifyConcat(op *ir.Operation) error {
	if len(op.Operands) == 0 {
		return ir.OpErrorf(op, "requires at least one input")
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	res, err := ranked(op, op.Results[0].Type, "result")
	if err != nil {
		return err
	}
	if _, ok := op.Attr("dim").(ir.IntegerAttr); !ok {
		return ir.OpErrorf(op, "requires an integer 'dim' attribute")
	}
	dim := ConcatDim(op)
	if dim < 0 || dim >= int64(len(res.Shape)) {
		return ir.OpErrorf(op, "concatenation dim must be less than the tensor rank (%d), found %d", len(res.Shape), dim)
	}
	want := append([]int64(nil), res.Shape...)
	want[dim] = 0
	for i, v := range op.Operands {
		t, err := ranked(op, v.Type, fmt.Sprintf("input #%d", i))
		if err != nil {
			return err
		}
		if len(t.Shape) != len(res.Shape) {
			return ir.OpErrorf(op, "rank of concatenated inputs must match result rank (input #%d has rank %d, the result %d)", i, len(t.Shape), len(res.Shape))
		}
		if !ir.TypesEqual(t.Elem, res.Elem) {
			return ir.OpErrorf(op, "inputs and result element type must match (input #%d has '%s', the result '%s')", i, ir.TypeString(t.Elem), ir.TypeString(res.Elem))
		}
		for d, s := range t.Shape {
			if int64(d) == dim {
				if s == ir.Dynamic || want[dim] == ir.Dynamic {
					want[dim] = ir.Dynamic
				} else {
					want[dim] += s
				}
				continue
			}
			if s != ir.Dynamic && res.Shape[d] != ir.Dynamic && s != res.Shape[d] {
				return ir.OpErrorf(op, "static concatenation size mismatch along non-concatenated dimension %d: input #%d has %d, the result %d", d, i, s, res.Shape[d])
			}
		}
	}
	if res.Shape[dim] != ir.Dynamic && want[dim] != ir.Dynamic && res.Shape[dim] != want[dim] {
		return ir.OpErrorf(op, "result type '%s' does not match the inferred concatenated size %d along dimension %d", ir.TypeString(res), want[dim], dim)
	}
	return nil
}

// tensor.splat %v ([%d, ...])? attr-dict : tensor-type
func parseSplat(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	var dims []*ir.Value
	if p.Is("[") {
		if dims, err = parseIndexList(p); err != nil {
			return nil, err
		}
	}
	ty, tt, tpos, err := parseRankedType(p, op)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(v, tt.Elem, tpos); err != nil {
		return nil, err
	}
	if err := resolveIndices(p, dims, tpos); err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{v}, dims...)
	return []ir.Type{ty}, nil
}

func printSplat(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	if len(op.Operands) > 1 {
		printIndexList(p, op.Operands[1:])
	}
	p.AttrDictColonType(op, op.Results[0].Type)
}

func verifySplat(op *ir.Operation) error {
	if len(op.Operands) < 1 {
		return ir.OpErrorf(op, "expects a scalar operand")
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	t, err := ranked(op, op.Results[0].Type, "result")
	if err != nil {
		return err
	}
	if !ir.TypesEqual(op.Operands[0].Type, t.Elem) {
		return ir.OpErrorf(op, "operand type '%s' must be the result's element type '%s'", ir.TypeString(op.Operands[0].Type), ir.TypeString(t.Elem))
	}
	if n := ir.NumDynamicDims(t); len(op.Operands)-1 != n {
		return ir.OpErrorf(op, "incorrect number of dynamic sizes, has %d, expected %d", len(op.Operands)-1, n)
	}
	return nil
}

// tensor.from_elements %a, %b, ... attr-dict : tensor-type
func parseFromElements(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	ty, tt, tpos, err := parseRankedType(p, op)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if err := p.ResolveType(v, tt.Elem, tpos); err != nil {
			return nil, err
		}
	}
	op.Operands = vs
	return []ir.Type{ty}, nil
}

func printFromElements(p *ir.Printer, op *ir.Operation) {
	if len(op.Operands) > 0 {
		p.WriteString(" ")
		p.Operands(op.Operands)
	}
	p.AttrDictColonType(op, op.Results[0].Type)
}

func verifyFromElements(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	t, err := ranked(op, op.Results[0].Type, "result")
	if err != nil {
		return err
	}
	n := int64(1)
	for _, d := range t.Shape {
		if d == ir.Dynamic {
			return ir.OpErrorf(op, "result must be statically shaped, found '%s'", ir.TypeString(t))
		}
		n *= d
	}
	if int64(len(op.Operands)) != n {
		return ir.OpErrorf(op, "has %d elements but the result type '%s' needs %d", len(op.Operands), ir.TypeString(t), n)
	}
	for i, v := range op.Operands {
		if !ir.TypesEqual(v.Type, t.Elem) {
			return ir.OpErrorf(op, "element #%d has type '%s', expected the result's element type '%s'", i, ir.TypeString(v.Type), ir.TypeString(t.Elem))
		}
	}
	return nil
}

// tensor.generate %d, ... { region } attr-dict : tensor-type
func parseGenerate(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if _, err := p.ParseRegion(op, nil); err != nil {
		return nil, err
	}
	ty, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	if err := resolveIndices(p, vs, tpos); err != nil {
		return nil, err
	}
	op.Operands = vs
	return []ir.Type{ty}, nil
}

func printGenerate(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	if len(op.Operands) > 0 {
		p.Operands(op.Operands)
		p.WriteString(" ")
	}
	if len(op.Regions) == 1 {
		p.Region(op.Regions[0], true)
	}
	p.AttrDictColonType(op, op.Results[0].Type)
}

func verifyGenerate(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	t, err := ranked(op, op.Results[0].Type, "result")
	if err != nil {
		return err
	}
	if n := ir.NumDynamicDims(t); len(op.Operands) != n {
		return ir.OpErrorf(op, "must have as many index operands as dynamic extents in the result type (%d), found %d", n, len(op.Operands))
	}
	for _, v := range op.Operands {
		if _, ok := v.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "dynamic extents must be index, found '%s'", ir.TypeString(v.Type))
		}
	}
	return verifyBody(op, t)
}
