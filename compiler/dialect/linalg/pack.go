package linalg

import (
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// linalg.pack and linalg.unpack change a tensor's layout into tiles and
// back (MLIR's relayout ops):
//
//	%p = linalg.pack %src [padding_value(%pad : T)] [outer_dims_perm = [..]]
//	    inner_dims_pos = [..] inner_tiles = [4, %t] into %dest attr-dict
//	    : tensor<..> -> tensor<..>
//	%u = linalg.unpack %p [outer_dims_perm = [..]] inner_dims_pos = [..]
//	    inner_tiles = [..] into %dest attr-dict : tensor<..> -> tensor<..>
//
// Each dimension inner_dims_pos[j] of the unpacked tensor is cut into
// tiles of inner_tiles[j]; the packed tensor has the unpacked rank's
// outer dimensions (the number of tiles, or the whole dimension when it is
// not tiled), permuted by outer_dims_perm, followed by one dimension per
// tile. A pack pads the last tile with padding_value; an unpack drops what
// lies beyond its destination. Operands are MLIR's: source, dest, then
// (pack) the optional padding value and the dynamic tile sizes, with
// operandSegmentSizes; the static tiles are static_inner_tiles, with
// DynamicTile where an operand gives the size.

// DynamicTile marks a tile in static_inner_tiles whose size is an operand
// (MLIR's ShapedType::kDynamic in that list).
const DynamicTile int64 = -1 << 63

// Relayout is a pack or unpack op's content, whatever its spelling
// (linalg.pack or the older iree_linalg_ext.pack).
type Relayout struct {
	Unpack        bool
	Source, Dest  *ir.Value
	Padding       *ir.Value // nil when the pack has no padding_value
	OuterDimsPerm []int64   // empty: the identity
	InnerDimsPos  []int64
	StaticTiles   []int64     // DynamicTile where TileValues gives the size
	TileValues    []*ir.Value // the dynamic tiles, in order
}

func registerRelayout(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "linalg.pack", Parse: parseRelayoutOp, Print: printRelayoutOp, Verify: verifyRelayoutOp})
	r.RegisterOp(&ir.OpDef{Name: "linalg.unpack", Parse: parseRelayoutOp, Print: printRelayoutOp, Verify: verifyRelayoutOp})
}

// ParseRelayoutClauses parses what follows the source of a pack or unpack
// up to and including `into %dest`: padding_value (when padding is true),
// outer_dims_perm, inner_dims_pos, inner_tiles. The dest's type is left
// for the caller to resolve.
func ParseRelayoutClauses(p *ir.Parser, padding bool) (*Relayout, error) {
	r := &Relayout{}
	if padding && p.OptionalKeyword("padding_value") {
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		pos := p.Pos()
		t, err := p.ParseColonType()
		if err != nil {
			return nil, err
		}
		if err := p.ResolveType(v, t, pos); err != nil {
			return nil, err
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		r.Padding = v
	}
	if p.OptionalKeyword("outer_dims_perm") {
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		l, err := parseI64List(p)
		if err != nil {
			return nil, err
		}
		r.OuterDimsPerm = l.Values
	}
	if err := p.ExpectKeyword("inner_dims_pos"); err != nil {
		return nil, err
	}
	if err := p.Expect("="); err != nil {
		return nil, err
	}
	l, err := parseI64List(p)
	if err != nil {
		return nil, err
	}
	r.InnerDimsPos = l.Values
	if err := p.ExpectKeyword("inner_tiles"); err != nil {
		return nil, err
	}
	if err := p.Expect("="); err != nil {
		return nil, err
	}
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	r.StaticTiles = []int64{}
	for !p.Optional("]") {
		if len(r.StaticTiles) > 0 {
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		if p.IsValueID() {
			pos := p.Pos()
			v, err := p.ParseOperand()
			if err != nil {
				return nil, err
			}
			if err := p.ResolveType(v, ir.IndexType{}, pos); err != nil {
				return nil, err
			}
			r.TileValues = append(r.TileValues, v)
			r.StaticTiles = append(r.StaticTiles, DynamicTile)
			continue
		}
		n, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		r.StaticTiles = append(r.StaticTiles, n)
	}
	if err := p.ExpectKeyword("into"); err != nil {
		return nil, err
	}
	if r.Dest, err = p.ParseOperand(); err != nil {
		return nil, err
	}
	return r, nil
}

// SetAttrs records r's lists on op under MLIR's names (outer_dims_perm
// only when it is not empty, as MLIR leaves a default-valued attribute
// out).
func (r *Relayout) SetAttrs(op *ir.Operation) {
	if len(r.OuterDimsPerm) > 0 {
		op.SetAttr("outer_dims_perm", &ir.DenseArrayAttr{Elem: ir.I64, Values: r.OuterDimsPerm})
	}
	op.SetAttr("inner_dims_pos", &ir.DenseArrayAttr{Elem: ir.I64, Values: r.InnerDimsPos})
	op.SetAttr("static_inner_tiles", &ir.DenseArrayAttr{Elem: ir.I64, Values: r.StaticTiles})
}

// RelayoutAttrs names the attributes SetAttrs writes, which the custom
// forms spell as clauses.
var RelayoutAttrs = []string{"outer_dims_perm", "inner_dims_pos", "static_inner_tiles", "operandSegmentSizes"}

// PrintClauses prints what ParseRelayoutClauses reads.
func (r *Relayout) PrintClauses(p *ir.Printer) {
	list := func(vs []int64) {
		p.WriteString("[")
		for i, v := range vs {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(strconv.FormatInt(v, 10))
		}
		p.WriteString("]")
	}
	if r.Padding != nil {
		p.WriteString(" padding_value(")
		p.Operand(r.Padding)
		p.WriteString(" : ")
		p.Type(r.Padding.Type)
		p.WriteString(")")
	}
	if len(r.OuterDimsPerm) > 0 {
		p.WriteString(" outer_dims_perm = ")
		list(r.OuterDimsPerm)
	}
	p.WriteString(" inner_dims_pos = ")
	list(r.InnerDimsPos)
	p.WriteString(" inner_tiles = [")
	next := 0
	for i, t := range r.StaticTiles {
		if i > 0 {
			p.WriteString(", ")
		}
		if t == DynamicTile && next < len(r.TileValues) {
			p.Operand(r.TileValues[next])
			next++
		} else {
			p.WriteString(strconv.FormatInt(t, 10))
		}
	}
	p.WriteString("] into ")
	p.Operand(r.Dest)
}

// readLists fills r's lists from op's attributes.
func (r *Relayout) readLists(op *ir.Operation) error {
	get := func(name string, required bool) ([]int64, error) {
		a := op.Attr(name)
		if a == nil && !required {
			return nil, nil
		}
		l, ok := a.(*ir.DenseArrayAttr)
		if !ok {
			return nil, ir.OpErrorf(op, "requires a '%s' array<i64: ...> attribute", name)
		}
		return l.Values, nil
	}
	var err error
	if r.OuterDimsPerm, err = get("outer_dims_perm", false); err != nil {
		return err
	}
	if r.InnerDimsPos, err = get("inner_dims_pos", true); err != nil {
		return err
	}
	r.StaticTiles, err = get("static_inner_tiles", true)
	return err
}

// RelayoutOf reads a linalg.pack or linalg.unpack.
func RelayoutOf(op *ir.Operation) (*Relayout, error) {
	r := &Relayout{Unpack: op.Name == "linalg.unpack"}
	if err := r.readLists(op); err != nil {
		return nil, err
	}
	if r.Unpack {
		if len(op.Operands) < 2 {
			return nil, ir.OpErrorf(op, "expects a source and a destination, found %d operands", len(op.Operands))
		}
		r.Source, r.Dest, r.TileValues = op.Operands[0], op.Operands[1], op.Operands[2:]
		return r, nil
	}
	if err := ir.SegmentsValid(op, 4); err != nil {
		return nil, err
	}
	if len(ir.Segment(op, 0)) != 1 || len(ir.Segment(op, 1)) != 1 || len(ir.Segment(op, 2)) > 1 {
		return nil, ir.OpErrorf(op, "expects one source, one destination and at most one padding value")
	}
	r.Source, r.Dest, r.TileValues = op.Operands[0], op.Operands[1], ir.Segment(op, 3)
	if pad := ir.Segment(op, 2); len(pad) == 1 {
		r.Padding = pad[0]
	}
	return r, nil
}

func parseRelayoutOp(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	r, err := ParseRelayoutClauses(p, op.Name == "linalg.pack")
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	pos := p.Pos()
	st, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	dt, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveTypes([]*ir.Value{src, r.Dest}, []ir.Type{st, dt}, pos); err != nil {
		return nil, err
	}
	r.Source = src
	r.SetAttrs(op)
	op.Operands = []*ir.Value{src, r.Dest}
	if op.Name == "linalg.pack" {
		npad := 0
		if r.Padding != nil {
			op.Operands = append(op.Operands, r.Padding)
			npad = 1
		}
		op.SetAttr("operandSegmentSizes", ir.SegmentAttr(1, 1, npad, len(r.TileValues)))
	}
	op.Operands = append(op.Operands, r.TileValues...)
	return []ir.Type{dt}, nil
}

func printRelayoutOp(p *ir.Printer, op *ir.Operation) {
	r, err := RelayoutOf(op)
	if err != nil {
		p.WriteString(" <<invalid: " + err.Error() + ">>")
		return
	}
	p.WriteString(" ")
	p.Operand(r.Source)
	r.PrintClauses(p)
	p.AttrDict(op, RelayoutAttrs...)
	p.WriteString(" : ")
	p.Type(r.Source.Type)
	p.WriteString(" -> ")
	p.Type(r.Dest.Type)
}

func verifyRelayoutOp(op *ir.Operation) error {
	r, err := RelayoutOf(op)
	if err != nil {
		return err
	}
	return VerifyRelayout(op, r)
}

// PackedShape returns the packed shape that unpacked dimensions, tiled
// as r says, give: ceil(size / tile) tiles per tiled dimension (dynamic
// when either is), permuted by outer_dims_perm, then the tiles. It
// assumes r's lists are valid (VerifyRelayout).
func (r *Relayout) PackedShape(unpacked []int64) []int64 {
	outer := append([]int64(nil), unpacked...)
	for j, d := range r.InnerDimsPos {
		t := r.StaticTiles[j]
		if outer[d] != ir.Dynamic && t != DynamicTile {
			outer[d] = (outer[d] + t - 1) / t
		} else {
			outer[d] = ir.Dynamic
		}
	}
	var out []int64
	for k := range outer {
		out = append(out, outer[r.OuterDim(k)])
	}
	for _, t := range r.StaticTiles {
		if t == DynamicTile {
			t = ir.Dynamic
		}
		out = append(out, t)
	}
	return out
}

// OuterDim returns the unpacked dimension that packed outer dimension k
// counts the tiles of.
func (r *Relayout) OuterDim(k int) int {
	if len(r.OuterDimsPerm) == 0 {
		return k
	}
	return int(r.OuterDimsPerm[k])
}

// TileOf returns the position in the tile lists of unpacked dimension d,
// or -1 when d is not tiled.
func (r *Relayout) TileOf(d int) int {
	for j, p := range r.InnerDimsPos {
		if int(p) == d {
			return j
		}
	}
	return -1
}

// VerifyRelayout checks a pack or unpack: ranked tensors of one element
// type, lists that fit the unpacked rank, positive tiles, a packed type
// that matches the tiling where sizes are static, full tiles when a pack
// has no padding value, and one result of the destination's type.
func VerifyRelayout(op *ir.Operation, r *Relayout) error {
	st, ok1 := r.Source.Type.(*ir.TensorType)
	dt, ok2 := r.Dest.Type.(*ir.TensorType)
	if !ok1 || !ok2 || st.Unranked || dt.Unranked {
		return ir.OpErrorf(op, "source and destination must be ranked tensors, found '%s' and '%s'", ir.TypeString(r.Source.Type), ir.TypeString(r.Dest.Type))
	}
	if !ir.TypesEqual(st.Elem, dt.Elem) {
		return ir.OpErrorf(op, "source element type '%s' differs from the destination's '%s'", ir.TypeString(st.Elem), ir.TypeString(dt.Elem))
	}
	unpacked, packed, packedWhat := st, dt, "destination"
	if r.Unpack {
		unpacked, packed, packedWhat = dt, st, "source"
	}
	n, k := len(unpacked.Shape), len(r.InnerDimsPos)
	if len(r.StaticTiles) != k {
		return ir.OpErrorf(op, "has %d inner_tiles but %d inner_dims_pos entries; they must pair up", len(r.StaticTiles), k)
	}
	dyn := 0
	for j, t := range r.StaticTiles {
		switch {
		case t == DynamicTile:
			dyn++
		case t <= 0:
			return ir.OpErrorf(op, "inner tile #%d must be positive, found %d", j, t)
		}
	}
	if dyn != len(r.TileValues) {
		return ir.OpErrorf(op, "has %d dynamic inner tiles but %d tile operands", dyn, len(r.TileValues))
	}
	if k > n {
		return ir.OpErrorf(op, "inner_dims_pos %v has more entries than the %d dimensions of the unpacked type '%s'", r.InnerDimsPos, n, ir.TypeString(unpacked))
	}
	seen := make([]bool, n)
	for _, d := range r.InnerDimsPos {
		if d < 0 || int(d) >= n || seen[d] {
			return ir.OpErrorf(op, "inner_dims_pos %v must name distinct dimensions of the unpacked type '%s'", r.InnerDimsPos, ir.TypeString(unpacked))
		}
		seen[d] = true
	}
	if len(r.OuterDimsPerm) > 0 && !isPermutation(r.OuterDimsPerm, n) {
		return ir.OpErrorf(op, "outer_dims_perm %v is not a permutation of [0, %d)", r.OuterDimsPerm, n)
	}
	if len(packed.Shape) != n+k {
		return ir.OpErrorf(op, "the packed %s '%s' must have rank %d (the unpacked rank %d plus %d tiles)", packedWhat, ir.TypeString(packed), n+k, n, k)
	}
	want := r.PackedShape(unpacked.Shape)
	for i, w := range want {
		got := packed.Shape[i]
		if w == ir.Dynamic || got == ir.Dynamic || w == got {
			continue
		}
		if i >= n {
			return ir.OpErrorf(op, "inner tile #%d is %d but dimension %d of the packed %s '%s' is %d", i-n, w, i, packedWhat, ir.TypeString(packed), got)
		}
		d := r.OuterDim(i)
		if j := r.TileOf(d); j >= 0 {
			return ir.OpErrorf(op, "dimension %d of the packed %s '%s' is %d but %s dimension %d (%d) in tiles of %d needs %d", i, packedWhat, ir.TypeString(packed), got,
				unpackedWhat(r), d, unpacked.Shape[d], r.StaticTiles[j], w)
		}
		return ir.OpErrorf(op, "dimension %d of the packed %s '%s' is %d but untiled %s dimension %d is %d", i, packedWhat, ir.TypeString(packed), got, unpackedWhat(r), d, w)
	}
	if !r.Unpack {
		if r.Padding == nil {
			for j, d := range r.InnerDimsPos {
				s, t := unpacked.Shape[d], r.StaticTiles[j]
				if s != ir.Dynamic && t != DynamicTile && s%t != 0 {
					return ir.OpErrorf(op, "source dimension %d (%d) is not a multiple of its tile %d: without padding_value a pack takes only full tiles", d, s, t)
				}
			}
		} else if !ir.TypesEqual(r.Padding.Type, st.Elem) {
			return ir.OpErrorf(op, "padding_value type '%s' differs from the element type '%s'", ir.TypeString(r.Padding.Type), ir.TypeString(st.Elem))
		}
	}
	if len(op.Results) != 1 || !ir.TypesEqual(op.Results[0].Type, dt) {
		return ir.OpErrorf(op, "expects one result of the destination's type '%s'", ir.TypeString(dt))
	}
	return nil
}

func unpackedWhat(r *Relayout) string {
	if r.Unpack {
		return "destination"
	}
	return "source"
}
