package linalgext

import (
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
)

// AttentionOperands are an attention or online_attention op's operands
// by role.
type AttentionOperands struct {
	Query, Key, Value, Scale, Mask, Output *ir.Value
	// Max and Sum are online_attention's running row maximum and sum
	// (nil for attention).
	Max, Sum *ir.Value
	// Maps are the indexing maps, one per operand in operand order: query,
	// key, value, scale, mask (when there is one), output, max, sum.
	Maps []*ir.AffineMap
}

// OutputMap returns the output's indexing map.
func (a *AttentionOperands) OutputMap() *ir.AffineMap { return a.Maps[a.outputIndex()] }

func (a *AttentionOperands) outputIndex() int {
	if a.Mask != nil {
		return 5
	}
	return 4
}

// RowMaps returns online_attention's max and sum maps.
func (a *AttentionOperands) RowMaps() (max, sum *ir.AffineMap) {
	i := a.outputIndex()
	return a.Maps[i+1], a.Maps[i+2]
}

// AttentionOf reads an iree_linalg_ext.attention op, ins(Q, K, V, scale
// [, mask]) outs(O), or an online_attention, outs(O, max, sum), with
// indexing_maps over one iteration domain.
func AttentionOf(op *ir.Operation) (*AttentionOperands, error) {
	ins, outs := Ins(op), Outs(op)
	nouts, what := 1, "outs(output)"
	if op.Name == "iree_linalg_ext.online_attention" {
		nouts, what = 3, "outs(output, max, sum)"
	}
	if (len(ins) != 4 && len(ins) != 5) || len(outs) != nouts {
		return nil, ir.OpErrorf(op, "expects ins(query, key, value, scale[, mask]) and %s, found %d inputs and %d outputs", what, len(ins), len(outs))
	}
	a := &AttentionOperands{Query: ins[0], Key: ins[1], Value: ins[2], Scale: ins[3], Output: outs[0]}
	if len(ins) == 5 {
		a.Mask = ins[4]
	}
	if nouts == 3 {
		a.Max, a.Sum = outs[1], outs[2]
	}
	maps, ok := op.Attr("indexing_maps").(*ir.ArrayAttr)
	if !ok || len(maps.Elems) != len(ins)+len(outs) {
		return nil, ir.OpErrorf(op, "requires 'indexing_maps' with %d affine maps (one per operand)", len(ins)+len(outs))
	}
	operands := append(append([]*ir.Value(nil), ins...), outs...)
	for i, e := range maps.Elems {
		m, ok := e.(ir.AffineMapAttr)
		if !ok {
			return nil, ir.OpErrorf(op, "indexing_maps #%d is not an affine map", i)
		}
		if i > 0 && m.Map.NumDims != a.Maps[0].NumDims {
			return nil, ir.OpErrorf(op, "indexing_maps #%d has %d dimensions but #0 has %d", i, m.Map.NumDims, a.Maps[0].NumDims)
		}
		if r := len(shapeOf(operands[i])); len(m.Map.Results) != r {
			return nil, ir.OpErrorf(op, "indexing_maps #%d has %d results but operand #%d has rank %d", i, len(m.Map.Results), i, r)
		}
		seen := map[int]bool{}
		for _, x := range m.Map.Results {
			if x.Kind != ir.AffineDim || seen[x.Pos] {
				return nil, ir.OpErrorf(op, "indexing_maps #%d must be a projected permutation of the loop dimensions, found %s", i, m.Map)
			}
			seen[x.Pos] = true
		}
		a.Maps = append(a.Maps, m.Map)
	}
	return a, nil
}

func verifyAttention(op *ir.Operation) error {
	a, err := AttentionOf(op)
	if err != nil {
		return err
	}
	for i, v := range []*ir.Value{a.Query, a.Key, a.Value, a.Output, a.Max, a.Sum} {
		if v == nil {
			continue
		}
		if _, ok := elem(v).(ir.FloatType); !ok || !isShaped(v) {
			return ir.OpErrorf(op, "%s must be a tensor of floats, found '%s'", []string{"query", "key", "value", "output", "max", "sum"}[i], ir.TypeString(v.Type))
		}
	}
	if _, ok := a.Scale.Type.(ir.FloatType); !ok {
		return ir.OpErrorf(op, "scale must be a float scalar, found '%s'", ir.TypeString(a.Scale.Type))
	}
	if a.Mask != nil {
		switch elem(a.Mask).(type) {
		case ir.FloatType, ir.IntegerType:
		default:
			return ir.OpErrorf(op, "mask must be a tensor of floats or i1, found '%s'", ir.TypeString(a.Mask.Type))
		}
	}
	// Every loop is sized by some operand and the operands agree on it.
	d := &linalg.Definition{Maps: a.Maps, Iterators: make([]string, a.Maps[0].NumDims)}
	if _, err := d.LoopRanges(op); err != nil {
		return err
	}
	dims := ClassifyAttention(a)
	if len(dims.K1) == 0 || len(dims.K2) == 0 {
		return ir.OpErrorf(op, "indexing_maps must give the query and key a shared reduction dimension (k1) and the key and value one the output lacks (k2)")
	}
	if len(a.Maps[3].Results) != 0 {
		return ir.OpErrorf(op, "the scale's indexing map must have no results")
	}
	if a.Max != nil {
		rows := map[int]bool{}
		for _, d := range append(append([]int(nil), dims.Batch...), dims.M...) {
			rows[d] = true
		}
		mx, sm := a.RowMaps()
		for i, m := range []*ir.AffineMap{mx, sm} {
			for _, e := range m.Results {
				if !rows[e.Pos] {
					return ir.OpErrorf(op, "the %s's indexing map %s may only use batch and m dimensions", []string{"max", "sum"}[i], m)
				}
			}
		}
	}
	b := body(op)
	if len(b.Args) != 1 {
		return ir.OpErrorf(op, "body must take one argument (the score), found %d", len(b.Args))
	}
	if _, ok := b.Args[0].Type.(ir.FloatType); !ok {
		return ir.OpErrorf(op, "body argument must be a float, found '%s'", ir.TypeString(b.Args[0].Type))
	}
	return expectBody(op, []ir.Type{b.Args[0].Type}, b.Args[0].Type)
}

// AttentionDims are the loop dimensions of an attention op by role, each
// list in increasing order, as IREE classifies them: batch (in the query
// and value, or in the key and output), m (query rows), k1 (the query-key
// contraction), k2 (the softmax and value contraction) and n (output
// columns).
type AttentionDims struct{ Batch, M, K1, K2, N []int }

// ClassifyAttention sorts the loop dimensions of an attention op.
func ClassifyAttention(a *AttentionOperands) AttentionDims {
	set := func(m *ir.AffineMap) map[int]bool {
		s := map[int]bool{}
		for _, e := range m.Results {
			s[e.Pos] = true
		}
		return s
	}
	q, k, v, o := set(a.Maps[0]), set(a.Maps[1]), set(a.Maps[2]), set(a.OutputMap())
	var out AttentionDims
	for d := 0; d < a.Maps[0].NumDims; d++ {
		switch {
		case q[d] && v[d] || k[d] && o[d]:
			out.Batch = append(out.Batch, d)
		case q[d] && k[d]:
			out.K1 = append(out.K1, d)
		case k[d]:
			out.K2 = append(out.K2, d)
		case q[d]:
			out.M = append(out.M, d)
		case v[d]:
			out.N = append(out.N, d)
		}
	}
	return out
}

func verifyArgCompare(op *ir.Operation) error {
	ins, outs := Ins(op), Outs(op)
	if (len(ins) != 1 && len(ins) != 2) || len(outs) != 2 {
		return ir.OpErrorf(op, "expects ins(values[, indices]) and outs(value, index), found %d inputs and %d outputs", len(ins), len(outs))
	}
	in := shapeOf(ins[0])
	d, err := dimension(op, len(in))
	if err != nil {
		return err
	}
	for i, o := range outs {
		if len(shapeOf(o)) != len(in)-1 {
			return ir.OpErrorf(op, "output #%d must have rank %d (the input's less the reduced dimension %d), found '%s'", i, len(in)-1, d, ir.TypeString(o.Type))
		}
	}
	if !ir.TypesEqual(elem(outs[0]), elem(ins[0])) {
		return ir.OpErrorf(op, "output value type '%s' differs from the input's element type '%s'", ir.TypeString(elem(outs[0])), ir.TypeString(elem(ins[0])))
	}
	switch elem(outs[1]).(type) {
	case ir.IntegerType, ir.IndexType:
	default:
		return ir.OpErrorf(op, "output index must hold integers, found '%s'", ir.TypeString(outs[1].Type))
	}
	base := ir.Segment(op, 2)
	if len(base) > 0 {
		if len(ins) == 2 {
			return ir.OpErrorf(op, "index_base cannot be combined with an explicit index input")
		}
		if _, ok := base[0].Type.(ir.IndexType); !ok || len(base) != 1 {
			return ir.OpErrorf(op, "index_base must be one index value")
		}
	}
	if len(ins) == 2 && !ir.TypesEqual(elem(ins[1]), elem(outs[1])) {
		return ir.OpErrorf(op, "input index type '%s' differs from the output index type '%s'", ir.TypeString(elem(ins[1])), ir.TypeString(elem(outs[1])))
	}
	return expectBody(op, []ir.Type{elem(ins[0]), elem(ins[0])}, ir.I1)
}

func verifySort(op *ir.Operation) error {
	outs := Outs(op)
	if len(Ins(op)) != 0 {
		return ir.OpErrorf(op, "sorts its outputs in place and takes no inputs, found %d", len(Ins(op)))
	}
	shape := shapeOf(outs[0])
	if _, err := dimension(op, len(shape)); err != nil {
		return err
	}
	var args []ir.Type
	for i, o := range outs {
		if !sameShape(shapeOf(o), shape) {
			return ir.OpErrorf(op, "output #%d '%s' must have the shape of output #0 '%s'", i, ir.TypeString(o.Type), ir.TypeString(outs[0].Type))
		}
		args = append(args, elem(o), elem(o))
	}
	return expectBody(op, args, ir.I1)
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && a[i] != ir.Dynamic && b[i] != ir.Dynamic {
			return false
		}
	}
	return true
}

func verifyScan(op *ir.Operation) error {
	if err := expectCounts(op, 1, 2); err != nil {
		return err
	}
	in, out, acc := Ins(op)[0], Outs(op)[0], Outs(op)[1]
	d, err := dimension(op, len(shapeOf(in)))
	if err != nil {
		return err
	}
	if !sameShape(shapeOf(in), shapeOf(out)) || !ir.TypesEqual(elem(in), elem(out)) {
		return ir.OpErrorf(op, "output '%s' must have the input's type '%s'", ir.TypeString(out.Type), ir.TypeString(in.Type))
	}
	if len(shapeOf(acc)) != len(shapeOf(in))-1 {
		return ir.OpErrorf(op, "accumulator must have rank %d (the input's less the scanned dimension %d), found '%s'", len(shapeOf(in))-1, d, ir.TypeString(acc.Type))
	}
	return expectBody(op, []ir.Type{elem(in), elem(in)}, elem(in))
}

func verifyTopk(op *ir.Operation) error {
	ins, outs := Ins(op), Outs(op)
	if len(ins) != 1 && len(ins) != 2 {
		return ir.OpErrorf(op, "expects ins(values[, indices]), found %d inputs", len(ins))
	}
	if len(outs) != 2 && !(op.Name == "iree_linalg_ext.topk_v2" && len(outs) == 1) {
		return ir.OpErrorf(op, "expects outs(values, indices), found %d outputs", len(outs))
	}
	in := shapeOf(ins[0])
	d, err := dimension(op, len(in))
	if err != nil {
		return err
	}
	for i, o := range outs {
		s := shapeOf(o)
		if len(s) != len(in) {
			return ir.OpErrorf(op, "output #%d must have the input's rank %d, found '%s'", i, len(in), ir.TypeString(o.Type))
		}
		if s[d] != ir.Dynamic && in[d] != ir.Dynamic && s[d] > in[d] {
			return ir.OpErrorf(op, "output #%d keeps %d values along dimension %d but the input has %d", i, s[d], d, in[d])
		}
	}
	return expectBody(op, []ir.Type{elem(ins[0]), elem(ins[0])}, ir.I1)
}

// ReverseDims returns the dimensions a reverse op flips.
func ReverseDims(op *ir.Operation) []int64 {
	var out []int64
	switch a := op.Attr("dimensions").(type) {
	case *ir.DenseAttr:
		for _, e := range a.Elements {
			if i, ok := e.(ir.IntegerAttr); ok {
				out = append(out, i.Value)
			}
		}
	case *ir.DenseArrayAttr:
		out = a.Values
	}
	return out
}

func verifyReverse(op *ir.Operation) error {
	if err := expectCounts(op, 1, 1); err != nil {
		return err
	}
	in, out := Ins(op)[0], Outs(op)[0]
	if !sameShape(shapeOf(in), shapeOf(out)) || !ir.TypesEqual(elem(in), elem(out)) {
		return ir.OpErrorf(op, "output '%s' must have the input's type '%s'", ir.TypeString(out.Type), ir.TypeString(in.Type))
	}
	seen := map[int64]bool{}
	for _, d := range ReverseDims(op) {
		if d < 0 || int(d) >= len(shapeOf(in)) || seen[d] {
			return ir.OpErrorf(op, "dimensions %v must be distinct dimensions of the rank-%d input", ReverseDims(op), len(shapeOf(in)))
		}
		seen[d] = true
	}
	if len(seen) == 0 {
		return ir.OpErrorf(op, "dimensions must name at least one dimension")
	}
	return nil
}

func verifyScatter(op *ir.Operation) error {
	ins, outs := Ins(op), Outs(op)
	if (len(ins) != 2 && len(ins) != 3) || len(outs) != 1 {
		return ir.OpErrorf(op, "expects ins(updates, indices[, mask]) and outs(original), found %d inputs and %d outputs", len(ins), len(outs))
	}
	if _, ok := elem(ins[1]).(ir.IntegerType); !ok {
		if _, ok := elem(ins[1]).(ir.IndexType); !ok {
			return ir.OpErrorf(op, "indices must hold integers, found '%s'", ir.TypeString(ins[1].Type))
		}
	}
	return expectBody(op, []ir.Type{elem(ins[0]), elem(outs[0])}, elem(outs[0]))
}

func verifyGather(op *ir.Operation) error {
	ins, outs := Ins(op), Outs(op)
	if (len(ins) != 2 && len(ins) != 3) || len(outs) != 1 {
		return ir.OpErrorf(op, "expects ins(source, indices[, mask]) and outs(output), found %d inputs and %d outputs", len(ins), len(outs))
	}
	if !ir.TypesEqual(elem(ins[0]), elem(outs[0])) {
		return ir.OpErrorf(op, "output element type '%s' differs from the source's '%s'", ir.TypeString(elem(outs[0])), ir.TypeString(elem(ins[0])))
	}
	switch elem(ins[1]).(type) {
	case ir.IntegerType, ir.IndexType:
	default:
		return ir.OpErrorf(op, "indices must hold integers, found '%s'", ir.TypeString(ins[1].Type))
	}
	return nil
}

func verifyWinograd(op *ir.Operation) error {
	if err := expectCounts(op, 1, 1); err != nil {
		return err
	}
	img, _ := op.Attr("image_dimensions").(*ir.DenseArrayAttr)
	if len(img.Values) != 2 {
		return ir.OpErrorf(op, "image_dimensions must name 2 dimensions, found %v", img.Values)
	}
	if !ir.TypesEqual(elem(Ins(op)[0]), elem(Outs(op)[0])) {
		return ir.OpErrorf(op, "input and output element types differ ('%s' and '%s')", ir.TypeString(elem(Ins(op)[0])), ir.TypeString(elem(Outs(op)[0])))
	}
	return nil
}

// map_load and map_store: `%src into %dst { body } : A into B (-> R)?`.
func parseMap(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
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
	if _, err := p.ParseRegion(op, nil); err != nil {
		return nil, err
	}
	pos := p.Pos()
	st, err := p.ParseColonType()
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
	if err := p.ResolveTypes([]*ir.Value{src, dst}, []ir.Type{st, dt}, pos); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{src, dst}
	if p.Optional("->") {
		return p.ParseTypeList()
	}
	return nil, nil
}

func printMap(p *ir.Printer, op *ir.Operation) {
	p.AttrDict(op)
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.WriteString(" into ")
	p.Operand(op.Operands[1])
	if len(op.Regions) == 1 {
		p.WriteString(" ")
		p.Region(op.Regions[0], true)
	}
	p.WriteString(" : ")
	p.Type(op.Operands[0].Type)
	p.WriteString(" into ")
	p.Type(op.Operands[1].Type)
	if len(op.Results) > 0 {
		p.WriteString(" -> ")
		var ts []ir.Type
		for _, r := range op.Results {
			ts = append(ts, r.Type)
		}
		p.Types(ts)
	}
}

// verifyMap checks map_load (the body maps each output index to a source
// index and a padding value) and map_store (each input index to an
// output index and a mask bit).
func verifyMap(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 2); err != nil {
		return err
	}
	src, dst := op.Operands[0], op.Operands[1]
	if !isShaped(src) || !isShaped(dst) {
		return ir.OpErrorf(op, "source and output must be shaped, found '%s' and '%s'", ir.TypeString(src.Type), ir.TypeString(dst.Type))
	}
	if _, ok := dst.Type.(*ir.TensorType); ok && (len(op.Results) != 1 || !ir.TypesEqual(op.Results[0].Type, dst.Type)) {
		return ir.OpErrorf(op, "expects one result of the output's type '%s'", ir.TypeString(dst.Type))
	}
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return ir.OpErrorf(op, "expects a body region with one block")
	}
	from, to := dst, src
	last := elem(src)
	if op.Name == "iree_linalg_ext.map_store" {
		from, to, last = src, dst, ir.I1
	}
	b := body(op)
	if len(b.Args) != len(shapeOf(from)) {
		return ir.OpErrorf(op, "body must take %d index arguments, found %d", len(shapeOf(from)), len(b.Args))
	}
	t := b.Terminator()
	if t == nil || t.Name != "iree_linalg_ext.yield" {
		return ir.OpErrorf(op, "body must end with iree_linalg_ext.yield")
	}
	if len(t.Operands) != len(shapeOf(to))+1 || !ir.TypesEqual(t.Operands[len(t.Operands)-1].Type, last) {
		return ir.OpErrorf(op, "body must yield %d indices and a '%s'", len(shapeOf(to)), ir.TypeString(last))
	}
	return nil
}

// The Dec 2022 spelling of pack and unpack:
//
//	iree_linalg_ext.pack attr-dict %src [padding_value(%p : T)]
//	    [outer_dims_perm = [..]] inner_dims_pos = [..] inner_tiles = [..]
//	    into %dest : (SrcType DestType) -> ResultType
//
// with operands (inputs, outputs, inner_tiles, padding_value) in
// operandSegmentSizes (unpack: the first three).

// RelayoutOf reads an iree_linalg_ext.pack or unpack.
func RelayoutOf(op *ir.Operation) (*linalg.Relayout, error) {
	r := &linalg.Relayout{Unpack: op.Name == "iree_linalg_ext.unpack"}
	n := 4
	if r.Unpack {
		n = 3
	}
	if err := ir.SegmentsValid(op, n); err != nil {
		return nil, err
	}
	if len(ir.Segment(op, 0)) != 1 || len(ir.Segment(op, 1)) != 1 {
		return nil, ir.OpErrorf(op, "expects one input and one output")
	}
	r.Source, r.Dest, r.TileValues = op.Operands[0], op.Operands[1], ir.Segment(op, 2)
	if !r.Unpack {
		switch pad := ir.Segment(op, 3); len(pad) {
		case 0:
		case 1:
			r.Padding = pad[0]
		default:
			return nil, ir.OpErrorf(op, "expects at most one padding value")
		}
	}
	get := func(name string) []int64 {
		if l, ok := op.Attr(name).(*ir.DenseArrayAttr); ok {
			return l.Values
		}
		return nil
	}
	r.OuterDimsPerm, r.InnerDimsPos, r.StaticTiles = get("outer_dims_perm"), get("inner_dims_pos"), get("static_inner_tiles")
	if r.StaticTiles == nil {
		return nil, ir.OpErrorf(op, "requires a 'static_inner_tiles' array<i64: ...> attribute")
	}
	return r, nil
}

func parseRelayout(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	src, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	r, err := linalg.ParseRelayoutClauses(p, op.Name == "iree_linalg_ext.pack")
	if err != nil {
		return nil, err
	}
	pos := p.Pos()
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	st, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	dt, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	if err := p.ResolveTypes([]*ir.Value{src, r.Dest}, []ir.Type{st, dt}, pos); err != nil {
		return nil, err
	}
	r.SetAttrs(op)
	op.Operands = append([]*ir.Value{src, r.Dest}, r.TileValues...)
	segs := []int{1, 1, len(r.TileValues)}
	if op.Name == "iree_linalg_ext.pack" {
		if r.Padding != nil {
			op.Operands = append(op.Operands, r.Padding)
			segs = append(segs, 1)
		} else {
			segs = append(segs, 0)
		}
	}
	op.SetAttr("operandSegmentSizes", ir.SegmentAttr(segs...))
	if p.Optional("->") {
		return p.ParseTypeList()
	}
	return nil, nil
}

func printRelayout(p *ir.Printer, op *ir.Operation) {
	r, err := RelayoutOf(op)
	if err != nil {
		p.WriteString(" <<invalid: " + err.Error() + ">>")
		return
	}
	p.AttrDict(op, linalg.RelayoutAttrs...)
	p.WriteString(" ")
	p.Operand(r.Source)
	r.PrintClauses(p)
	p.WriteString(" : (")
	p.Type(r.Source.Type)
	p.WriteString(" ")
	p.Type(r.Dest.Type)
	p.WriteString(")")
	if len(op.Results) > 0 {
		p.WriteString(" -> ")
		p.Types([]ir.Type{op.Results[0].Type})
	}
}

func verifyRelayout(op *ir.Operation) error {
	r, err := RelayoutOf(op)
	if err != nil {
		return err
	}
	return linalg.VerifyRelayout(op, r)
}
