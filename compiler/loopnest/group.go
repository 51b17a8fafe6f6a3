package loopnest

import (
	"fmt"
	"slices"

	"github.com/goiree/goiree/compiler/ir"
)

// GroupAttr names the attribute that marks the entry function of a row
// group: a chain of loop-nest kernels (stages) that share their leading
// parallel loops (the rows) and run in one dispatch, each row's
// intermediate results kept by the workgroup that owns the row instead of
// going through memory. A softmax is one (the row's max, the sum of
// exp(x - max), then exp(x - max) / sum), and so is a layer norm. Its
// value is the dictionary Group.Dict writes:
//
//	{rows = R, tile = T, stages = [{kernel}, ...], links = [[l, ...], ...]}
//
// Each stage is a kernel dictionary (see Attr) whose ranges are static and
// whose first R loops are parallel with the same ranges in every stage.
// links holds one list per stage with one entry per binding of the stage
// (Kernel.Bindings order): a group binding (l >= 0), or the result of
// stage j (l = -1 - j, j before the stage), which is not a binding. Every
// stage but the last has one output, its own result (linked -1 - s),
// indexed by the row loops alone in order (d0, ..., dR-1), with the rows'
// shape, and besides the row loops it has no loops (a per-row value) or
// one reduction loop (a row reduction); an input or init linked to a
// stage's result is indexed the same way. The last stage's loops are all
// parallel and its outputs are group bindings. Group bindings are numbered
// densely, those the stages read before those the last stage writes, and
// one is never both; the dispatch's bindings are the group's. Stages have
// no epilogues, indexed inputs, accumulator types or partial operands.
//
// The group computes what running its stages in order does. Its workload
// is the number of rows (the row loops' ranges multiplied); rows are
// numbered with the last row loop fastest, and workgroup w owns rows
// w*T to w*T + T - 1 (a target with a LoopNestGridLimit numbers
// workgroups y * countX + x and skips those past the end). A row
// reduction may be reassociated as the contract allows for one kernel.
// The push constants are the scalar inputs of the stages, in stage order.
const GroupAttr = "goiree.loop_group"

// Group is the decoded form of the GroupAttr dictionary.
type Group struct {
	Rows   int
	Tile   int64
	Stages []*Kernel
	Links  [][]int
}

// StageResult reports whether link names a stage's result, and which.
func StageResult(link int) (int, bool) {
	if link < 0 {
		return -1 - link, true
	}
	return 0, false
}

// GroupBinding is one buffer of a group.
type GroupBinding struct {
	Type *ir.TensorType
	// Write is set on the bindings the last stage writes.
	Write bool
}

// Bindings lists the group's bindings in order.
func (g *Group) Bindings() []GroupBinding {
	var out []GroupBinding
	for s, k := range g.Stages {
		for bi, b := range k.Bindings() {
			l := g.Links[s][bi]
			if l < 0 {
				continue
			}
			for len(out) <= l {
				out = append(out, GroupBinding{})
			}
			out[l] = GroupBinding{Type: b.Type, Write: b.Role == "out"}
		}
	}
	return out
}

// NumConstants is the number of push constants: the stages' scalar
// inputs.
func (g *Group) NumConstants() int {
	n := 0
	for _, k := range g.Stages {
		n += k.NumConstants()
	}
	return n
}

// RowRanges returns the ranges of the row loops.
func (g *Group) RowRanges() []int64 {
	return g.Stages[0].Ranges[:g.Rows]
}

// RowCount returns the number of rows, the group's workload.
func (g *Group) RowCount() int64 {
	n := int64(1)
	for _, r := range g.RowRanges() {
		n *= r
	}
	return n
}

// Dict encodes the group as the GroupAttr dictionary.
func (g *Group) Dict() *ir.DictAttr {
	var stages, links []ir.Attribute
	for s, k := range g.Stages {
		stages = append(stages, k.Dict())
		var ls []ir.Attribute
		for _, l := range g.Links[s] {
			ls = append(ls, ir.IntegerAttr{Value: int64(l), Type: ir.I64})
		}
		links = append(links, &ir.ArrayAttr{Elems: ls})
	}
	return &ir.DictAttr{Entries: []ir.NamedAttr{
		{Name: "rows", Value: ir.IntegerAttr{Value: int64(g.Rows), Type: ir.I64}},
		{Name: "tile", Value: ir.IndexAttr(g.Tile)},
		{Name: "stages", Value: &ir.ArrayAttr{Elems: stages}},
		{Name: "links", Value: &ir.ArrayAttr{Elems: links}},
	}}
}

// rowMap reports whether m indexes by the first r loops alone, in order.
func rowMap(m *ir.AffineMap, r int) bool {
	if len(m.Results) != r {
		return false
	}
	for i, e := range m.Results {
		if e.Kind != ir.AffineDim || e.Pos != i {
			return false
		}
	}
	return true
}

// DecodeGroup reads a group from its GroupAttr dictionary and checks it
// against the contract.
func DecodeGroup(d *ir.DictAttr) (*Group, error) {
	g := &Group{}
	rows, ok := d.Get("rows").(ir.IntegerAttr)
	if !ok || rows.Value < 1 {
		return nil, fmt.Errorf("%s needs rows, a positive count of row loops", GroupAttr)
	}
	g.Rows = int(rows.Value)
	tile, ok := d.Get("tile").(ir.IntegerAttr)
	if !ok || tile.Value < 1 {
		return nil, fmt.Errorf("%s needs a positive tile", GroupAttr)
	}
	g.Tile = tile.Value
	stages, ok := d.Get("stages").(*ir.ArrayAttr)
	if !ok || len(stages.Elems) < 2 {
		return nil, fmt.Errorf("%s needs at least two stages", GroupAttr)
	}
	links, ok := d.Get("links").(*ir.ArrayAttr)
	if !ok || len(links.Elems) != len(stages.Elems) {
		return nil, fmt.Errorf("%s needs one list of links per stage", GroupAttr)
	}
	for s, e := range stages.Elems {
		sd, ok := e.(*ir.DictAttr)
		if !ok {
			return nil, fmt.Errorf("stage %d must be a dictionary", s)
		}
		k, err := DecodeIndexed(sd)
		if err != nil {
			return nil, fmt.Errorf("stage %d: %w", s, err)
		}
		la, ok := links.Elems[s].(*ir.ArrayAttr)
		if !ok {
			return nil, fmt.Errorf("stage %d: links must be an array of integers", s)
		}
		var ls []int
		for _, l := range la.Elems {
			v, ok := l.(ir.IntegerAttr)
			if !ok {
				return nil, fmt.Errorf("stage %d: links must be an array of integers", s)
			}
			ls = append(ls, int(v.Value))
		}
		g.Stages = append(g.Stages, k)
		g.Links = append(g.Links, ls)
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	return g, nil
}

// check verifies the contract's conditions on a group.
func (g *Group) check() error {
	last := len(g.Stages) - 1
	rows := g.Stages[0].Ranges
	if len(rows) < g.Rows {
		return fmt.Errorf("stage 0 has %d loops, fewer than the %d row loops", len(rows), g.Rows)
	}
	rows = rows[:g.Rows]
	var types []*ir.TensorType
	written := map[int]bool{}
	read := map[int]bool{}
	for s, k := range g.Stages {
		if k.Epilogue != "" || k.FirstIndexed() >= 0 {
			return fmt.Errorf("stage %d: a stage has no epilogue and no indexed inputs", s)
		}
		if len(k.Ranges) < g.Rows || !slices.Equal(k.Ranges[:g.Rows], rows) {
			return fmt.Errorf("stage %d: its first %d loops must have the row ranges %v", s, g.Rows, rows)
		}
		for l, r := range k.Ranges {
			if r == ir.Dynamic {
				return fmt.Errorf("stage %d: loop d%d is dynamic; a group's loops are static", s, l)
			}
			if l < g.Rows && k.Iterators[l] != "parallel" {
				return fmt.Errorf("stage %d: row loop d%d must be parallel", s, l)
			}
		}
		reds := reductions(k.Iterators)
		if s < last {
			if len(k.Outputs) != 1 || len(k.Ranges) > g.Rows+1 || len(k.Ranges) == g.Rows+1 && len(reds) != 1 {
				return fmt.Errorf("stage %d: a stage before the last has one output and, besides the row loops, no loops or one reduction loop", s)
			}
			o := k.Outputs[0]
			if !rowMap(o.Map, g.Rows) || !slices.Equal(o.Type.Shape, rows) {
				return fmt.Errorf("stage %d: its result must be indexed by the row loops alone, with their shape", s)
			}
		} else if len(reds) > 0 {
			return fmt.Errorf("stage %d: the last stage's loops must be parallel", s)
		}
		bs := k.Bindings()
		if len(g.Links[s]) != len(bs) {
			return fmt.Errorf("stage %d has %d bindings and %d links", s, len(bs), len(g.Links[s]))
		}
		types = append(types, k.Outputs[0].Type)
		for bi, b := range bs {
			if b.Acc != nil || b.Partial {
				return fmt.Errorf("stage %d: binding %d has an accumulator type or is partial", s, bi)
			}
			l := g.Links[s][bi]
			if j, ok := StageResult(l); ok {
				switch {
				case b.Role == "out" && j != s || b.Role != "out" && j >= s:
					return fmt.Errorf("stage %d: binding %d links to stage %d's result, which it cannot", s, bi, j)
				case b.Role == "out" && s == last:
					return fmt.Errorf("stage %d: the last stage's outputs are group bindings", s)
				case !rowMap(b.Map, g.Rows):
					return fmt.Errorf("stage %d: binding %d reads stage %d's result not by the row loops alone", s, bi, j)
				case !slices.Equal(b.Type.Shape, types[j].Shape) || !ir.TypesEqual(b.Type.Elem, types[j].Elem):
					return fmt.Errorf("stage %d: binding %d has another type than stage %d's result", s, bi, j)
				}
				continue
			}
			if b.Role == "out" && s != last {
				return fmt.Errorf("stage %d: its output must be its own result (link %d)", s, -1-s)
			}
			if b.Role == "out" {
				if written[l] || read[l] {
					return fmt.Errorf("group binding %d is written twice or both read and written", l)
				}
				written[l] = true
			} else {
				if written[l] {
					return fmt.Errorf("group binding %d is both read and written", l)
				}
				read[l] = true
			}
		}
	}
	bs := g.Bindings()
	for l, b := range bs {
		if b.Type == nil {
			return fmt.Errorf("group binding %d is not linked by any stage", l)
		}
		if !b.Write && l > 0 && bs[l-1].Write {
			return fmt.Errorf("group binding %d is read after written ones; reads come first", l)
		}
	}
	// Every link to a group binding agrees with its type.
	for s, k := range g.Stages {
		for bi, b := range k.Bindings() {
			if l := g.Links[s][bi]; l >= 0 && (!slices.Equal(b.Type.Shape, bs[l].Type.Shape) || !ir.TypesEqual(b.Type.Elem, bs[l].Type.Elem)) {
				return fmt.Errorf("stage %d: binding %d has another type than group binding %d", s, bi, l)
			}
		}
	}
	return nil
}
