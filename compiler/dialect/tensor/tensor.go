// Package tensor registers MLIR's tensor dialect: dim, empty, the slicing
// ops extract_slice and insert_slice (static or dynamic offsets, sizes and
// strides), cast, bitcast, extract, insert, expand_shape, collapse_shape,
// pad (with its tensor.yield region), concat, splat, from_elements and
// generate.
package tensor

import (
	"math"
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the tensor ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "tensor.dim", Parse: parseDim, Print: printDim, Verify: verifyDim})
	r.RegisterOp(&ir.OpDef{Name: "tensor.empty", Parse: parseEmpty, Print: printEmpty, Verify: verifyEmpty})
	r.RegisterOp(&ir.OpDef{Name: "tensor.extract_slice", Parse: parseExtractSlice, Print: printExtractSlice, Verify: verifyExtractSlice})
	r.RegisterOp(&ir.OpDef{Name: "tensor.insert_slice", Parse: parseInsertSlice, Print: printInsertSlice, Verify: verifyInsertSlice})
	registerOps(r)
}

func parseDim(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	t, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	idx, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	ty, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(t, ty, tpos); err != nil {
		return nil, err
	}
	if err := p.ResolveType(idx, ir.IndexType{}, tpos); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{t, idx}
	return []ir.Type{ir.IndexType{}}, nil
}

func printDim(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	p.AttrDictColonType(op, op.Operands[0].Type)
}

func verifyDim(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 2); err != nil {
		return err
	}
	if _, ok := op.Operands[0].Type.(*ir.TensorType); !ok {
		return ir.OpErrorf(op, "operand #0 must be a tensor, found '%s'", ir.TypeString(op.Operands[0].Type))
	}
	return ir.ExpectResults(op, 1)
}

func parseEmpty(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseDelimitedOperands("(", ")")
	if err != nil {
		return nil, err
	}
	t, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	tt, ok := t.(*ir.TensorType)
	if !ok {
		return nil, ir.Errorf(tpos, "tensor.empty result must be a tensor, found '%s'", ir.TypeString(t))
	}
	if len(vs) != ir.NumDynamicDims(tt) {
		return nil, ir.Errorf(tpos, "incorrect number of dynamic sizes, has %d, expected %d", len(vs), ir.NumDynamicDims(tt))
	}
	for _, v := range vs {
		if err := p.ResolveType(v, ir.IndexType{}, tpos); err != nil {
			return nil, err
		}
	}
	op.Operands = vs
	return []ir.Type{t}, nil
}

func printEmpty(p *ir.Printer, op *ir.Operation) {
	p.WriteString("(")
	p.Operands(op.Operands)
	p.WriteString(")")
	p.AttrDictColonType(op, op.Results[0].Type)
}

func verifyEmpty(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	tt, ok := op.Results[0].Type.(*ir.TensorType)
	if !ok {
		return ir.OpErrorf(op, "result must be a tensor")
	}
	if len(op.Operands) != ir.NumDynamicDims(tt) {
		return ir.OpErrorf(op, "incorrect number of dynamic sizes, has %d, expected %d", len(op.Operands), ir.NumDynamicDims(tt))
	}
	return nil
}

// DynamicIndex marks a dynamic entry of static_offsets, static_sizes and
// static_strides: MLIR's ShapedType::kDynamic, the least int64.
const DynamicIndex int64 = math.MinInt64

// sliceAttrs are the names of the static parts of the offsets, sizes and
// strides lists, in operand-segment order.
var sliceAttrs = [3]string{"static_offsets", "static_sizes", "static_strides"}

// parseMixedList parses `[e, ...]` where each entry is an index SSA value or
// an integer literal; values are returned in order and the literal list has
// DynamicIndex where a value stood.
func parseMixedList(p *ir.Parser) ([]*ir.Value, *ir.DenseArrayAttr, error) {
	if err := p.Expect("["); err != nil {
		return nil, nil, err
	}
	static := &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{}}
	var vs []*ir.Value
	if p.Optional("]") {
		return vs, static, nil
	}
	for {
		if p.IsValueID() {
			pos := p.Pos()
			v, err := p.ParseOperand()
			if err != nil {
				return nil, nil, err
			}
			if err := p.ResolveType(v, ir.IndexType{}, pos); err != nil {
				return nil, nil, err
			}
			vs = append(vs, v)
			static.Values = append(static.Values, DynamicIndex)
		} else {
			n, err := p.ParseInteger()
			if err != nil {
				return nil, nil, err
			}
			static.Values = append(static.Values, n)
		}
		if p.Optional("]") {
			return vs, static, nil
		}
		if err := p.Expect(","); err != nil {
			return nil, nil, err
		}
	}
}

// parseSliceLists parses the `[offsets] [sizes] [strides]` of a slice op,
// appends the values to op.Operands and the static lists to its attributes,
// and returns the three value counts.
func parseSliceLists(p *ir.Parser, op *ir.Operation) ([3]int, error) {
	var counts [3]int
	for i, name := range sliceAttrs {
		vs, static, err := parseMixedList(p)
		if err != nil {
			return counts, err
		}
		counts[i] = len(vs)
		op.Operands = append(op.Operands, vs...)
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: name, Value: static})
	}
	return counts, nil
}

// printSliceLists prints `[offsets] [sizes] [strides]` from the static lists
// and the operands that follow the first skip ones.
func printSliceLists(p *ir.Printer, op *ir.Operation, skip int) {
	next := skip
	for i, name := range sliceAttrs {
		if i > 0 {
			p.WriteString(" ")
		}
		p.WriteString("[")
		static, _ := op.Attr(name).(*ir.DenseArrayAttr)
		if static != nil {
			for j, n := range static.Values {
				if j > 0 {
					p.WriteString(", ")
				}
				if n == DynamicIndex && next < len(op.Operands) {
					p.Operand(op.Operands[next])
					next++
				} else {
					p.WriteString(strconv.FormatInt(n, 10))
				}
			}
		}
		p.WriteString("]")
	}
}

// SliceSizes returns the static sizes of a slice op (DynamicIndex where a
// value gives the size), or nil.
func SliceSizes(op *ir.Operation) []int64 {
	if a, ok := op.Attr("static_sizes").(*ir.DenseArrayAttr); ok {
		return a.Values
	}
	return nil
}

func parseExtractSlice(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{src}
	counts, err := parseSliceLists(p, op)
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, counts[0], counts[1], counts[2])})
	rt, err := p.ParseAttrDictTypePair(op, src, "to")
	if err != nil {
		return nil, err
	}
	return []ir.Type{rt}, nil
}

func printExtractSlice(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	printSliceLists(p, op, 1)
	p.AttrDictTypePair(op, op.Operands[0].Type, "to", op.Results[0].Type, append(sliceAttrs[:], "operandSegmentSizes")...)
}

func verifyExtractSlice(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 4); err != nil {
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
	if err := verifySliceLists(op, 1, len(src.Shape)); err != nil {
		return err
	}
	if err := verifyInBounds(op, src); err != nil {
		return err
	}
	return verifySliceType(op, res, src.Elem, "result")
}

func parseInsertSlice(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("into"); err != nil {
		return nil, err
	}
	dst, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{src, dst}
	counts, err := parseSliceLists(p, op)
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, counts[0], counts[1], counts[2])})
	st, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("into"); err != nil {
		return nil, err
	}
	dt, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(src, st, tpos); err != nil {
		return nil, err
	}
	if err := p.ResolveType(dst, dt, tpos); err != nil {
		return nil, err
	}
	return []ir.Type{dt}, nil
}

func printInsertSlice(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.WriteString(" into ")
	p.Operand(op.Operands[1])
	printSliceLists(p, op, 2)
	p.AttrDictTypePair(op, op.Operands[0].Type, "into", op.Operands[1].Type, append(sliceAttrs[:], "operandSegmentSizes")...)
}

func verifyInsertSlice(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 5); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if len(ir.Segment(op, 0)) != 1 || len(ir.Segment(op, 1)) != 1 {
		return ir.OpErrorf(op, "expects one source and one destination operand")
	}
	src, err := ranked(op, op.Operands[0].Type, "source")
	if err != nil {
		return err
	}
	dst, err := ranked(op, op.Operands[1].Type, "destination")
	if err != nil {
		return err
	}
	if !ir.TypesEqual(op.Results[0].Type, dst) {
		return ir.OpErrorf(op, "result type '%s' must be the destination type '%s'", ir.TypeString(op.Results[0].Type), ir.TypeString(dst))
	}
	if err := verifySliceLists(op, 2, len(dst.Shape)); err != nil {
		return err
	}
	if err := verifyInBounds(op, dst); err != nil {
		return err
	}
	return verifySliceType(op, src, dst.Elem, "source")
}

// verifySliceLists checks that the offsets, sizes and strides (operand
// segments first, first+1, first+2) each have one entry per dimension of
// the sliced tensor and one value per dynamic entry.
func verifySliceLists(op *ir.Operation, first, rank int) error {
	for i, name := range sliceAttrs {
		static, ok := op.Attr(name).(*ir.DenseArrayAttr)
		if !ok {
			return ir.OpErrorf(op, "requires a '%s' dense i64 array attribute", name)
		}
		if len(static.Values) != rank {
			return ir.OpErrorf(op, "expected %d %s values (one per dimension), found %d", rank, name[len("static_"):], len(static.Values))
		}
		dyn := 0
		for _, n := range static.Values {
			if n == DynamicIndex {
				dyn++
			}
		}
		if vs := ir.Segment(op, first+i); len(vs) != dyn {
			return ir.OpErrorf(op, "'%s' has %d dynamic entries but %d values were given", name, dyn, len(vs))
		}
		for _, v := range ir.Segment(op, first+i) {
			if _, ok := v.Type.(ir.IndexType); !ok {
				return ir.OpErrorf(op, "%s values must be index, found '%s'", name[len("static_"):], ir.TypeString(v.Type))
			}
		}
	}
	return nil
}

// verifySliceType checks that the slice's tensor type (the extract result
// or the insert source) has the shape the sizes give, or that shape with
// some unit dimensions dropped (a rank-reduced slice), as MLIR requires.
func verifySliceType(op *ir.Operation, t *ir.TensorType, elem ir.Type, what string) error {
	want := &ir.TensorType{Elem: elem}
	for _, n := range SliceSizes(op) {
		if n == DynamicIndex {
			n = ir.Dynamic
		}
		want.Shape = append(want.Shape, n)
	}
	if !ir.TypesEqual(t.Elem, elem) || !rankReducedFrom(t.Shape, want.Shape) {
		return ir.OpErrorf(op, "expected %s type to be '%s' or a rank-reduced version of it, found '%s'", what, ir.TypeString(want), ir.TypeString(t))
	}
	return nil
}

// rankReducedFrom reports whether got is full with some of its static 1
// dimensions removed (or is full itself).
func rankReducedFrom(got, full []int64) bool {
	i := 0
	for _, d := range full {
		if i < len(got) && got[i] == d {
			i++
			continue
		}
		if d != 1 {
			return false
		}
	}
	return i == len(got)
}

// SliceParams returns a slice op's static offsets, sizes and strides
// (DynamicIndex where a value gives the entry).
func SliceParams(op *ir.Operation) (offsets, sizes, strides []int64) {
	var out [3][]int64
	for i, name := range sliceAttrs {
		if a, ok := op.Attr(name).(*ir.DenseArrayAttr); ok {
			out[i] = a.Values
		}
	}
	return out[0], out[1], out[2]
}

// verifyInBounds checks, where the offsets, sizes, strides and the sliced
// dimension are all static, that the slice lies inside the tensor, as
// MLIR's verifier does.
func verifyInBounds(op *ir.Operation, t *ir.TensorType) error {
	offs, sizes, strides := SliceParams(op)
	for d, dim := range t.Shape {
		o, n, s := offs[d], sizes[d], strides[d]
		if o == DynamicIndex || n == DynamicIndex || s == DynamicIndex || dim == ir.Dynamic {
			continue
		}
		if o < 0 || n < 0 {
			return ir.OpErrorf(op, "offset %d and size %d of dimension %d must be non-negative", o, n, d)
		}
		if n == 0 {
			continue
		}
		if o >= dim {
			return ir.OpErrorf(op, "offset %d is out-of-bounds: %d >= %d", d, o, dim)
		}
		if last := o + (n-1)*s; last >= dim || last < 0 {
			return ir.OpErrorf(op, "slice along dimension %d runs out-of-bounds: %d >= %d", d, last, dim)
		}
	}
	return nil
}

// ReducedDims maps each dimension of a slice (its sizes, DynamicIndex
// where dynamic) to the dimension of the rank-reduced type t it becomes,
// or -1 for a unit dimension t drops, matching greedily from the left as
// MLIR does.
func ReducedDims(sizes []int64, t *ir.TensorType) []int {
	out := make([]int, len(sizes))
	j := 0
	for k, n := range sizes {
		if n == DynamicIndex {
			n = ir.Dynamic
		}
		if j < len(t.Shape) && t.Shape[j] == n {
			out[k] = j
			j++
		} else {
			out[k] = -1
		}
	}
	return out
}

// Strided returns the affine expression off + stride * d_dim, or the
// constant off when dim is -1, written as MLIR prints it (no `* 1`, no
// `+ 0`).
func Strided(dim int, off, stride int64) *ir.AffineExpr {
	c := &ir.AffineExpr{Kind: ir.AffineConst, Value: off}
	if dim < 0 {
		return c
	}
	e := &ir.AffineExpr{Kind: ir.AffineDim, Pos: dim}
	if stride != 1 {
		e = &ir.AffineExpr{Kind: ir.AffineMul, LHS: e, RHS: &ir.AffineExpr{Kind: ir.AffineConst, Value: stride}}
	}
	if off != 0 {
		e = &ir.AffineExpr{Kind: ir.AffineAdd, LHS: e, RHS: c}
	}
	return e
}
