package loopnest

import (
	"fmt"
	"slices"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// Row groups (see GroupAttr) are formed before epilogues: a chain of row
// reductions and the ops that consume their results, written as IREE's
// softmax decomposition or a layer norm writes them, becomes one dispatch
// when every target compiles groups, instead of one dispatch per op that
// each read the whole input again from memory.

// groupsFor reports whether every target compiles row groups.
func groupsFor(targets []*hal.ExecutableTargetAttr) bool {
	for _, t := range targets {
		if tg, ok := target.Lookup(t.Backend); !ok || !tg.LoopNestGroups {
			return false
		}
	}
	return len(targets) > 0
}

// rowStage returns the number of row loops of op as a stage before the
// last of a group: a structured op (a fill included) with one result of
// static shape, indexed by its first loops in order, and besides them no
// loops or one reduction loop, all static. It returns 0 for any other op.
func rowStage(op *ir.Operation) int {
	if !IsStructured(op) || len(op.Results) != 1 || len(linalg.Outs(op)) != 1 {
		return 0
	}
	def, err := linalg.DefinitionOf(op)
	if err != nil {
		return 0
	}
	ranges, err := def.LoopRanges(op)
	if err != nil || slices.Contains(ranges, ir.Dynamic) {
		return 0
	}
	tt, ok := op.Results[0].Type.(*ir.TensorType)
	if !ok || tt.Unranked || len(tt.Shape) == 0 {
		return 0
	}
	r := len(tt.Shape)
	out := def.Maps[len(def.Maps)-1]
	if !rowMap(out, r) || !slices.Equal(tt.Shape, ranges[:min(r, len(ranges))]) {
		return 0
	}
	switch {
	case len(ranges) == r:
	case len(ranges) == r+1 && def.Iterators[r] == "reduction":
	default:
		return 0
	}
	return r
}

// rowGroups finds the groups to form among ops (the structured ops of fn
// to dispatch, in program order). Each group lists its stages in program
// order, the last one the consumer whose results leave the group.
func rowGroups(fn *ir.Operation, ops []*ir.Operation) [][]*ir.Operation {
	pending := map[*ir.Operation]bool{}
	for _, o := range ops {
		pending[o] = IsStructured(o)
	}
	var groups [][]*ir.Operation
	for i := len(ops) - 1; i >= 0; i-- {
		c := ops[i]
		if !pending[c] {
			continue
		}
		members := groupAt(fn, c, pending)
		if members == nil {
			continue
		}
		for _, m := range members {
			pending[m] = false
		}
		groups = append(groups, members)
	}
	slices.Reverse(groups)
	return groups
}

// groupAt returns the group whose last stage is c, or nil: c's loops are
// all parallel and static, and the ops it reads through row-stage
// producers (transitively, inputs and the inits of reductions) are pending
// row stages whose results nothing else uses, at least one of them a
// reduction.
func groupAt(fn, c *ir.Operation, pending map[*ir.Operation]bool) []*ir.Operation {
	if c.Name == "linalg.fill" || len(c.Results) == 0 {
		return nil
	}
	def, err := linalg.DefinitionOf(c)
	if err != nil || slices.Contains(def.Iterators, "reduction") {
		return nil
	}
	ranges, err := def.LoopRanges(c)
	if err != nil || slices.Contains(ranges, ir.Dynamic) {
		return nil
	}
	// The rows are the leading loops of c by which it reads a row stage's
	// result: fewer than all of c's loops, so that each row has elements
	// (a matmul's bias and relu, read elementwise, are not a row group).
	rows := 0
	for i, v := range linalg.Ins(c) {
		if p := v.Op; p != nil && pending[p] {
			if r := rowStage(p); r > 0 && r < len(ranges) && rowMap(def.Maps[i], r) {
				rows = r
				break
			}
		}
	}
	if rows == 0 {
		return nil
	}
	// The stages: the row stages whose results the members read by the
	// row loops alone, as inputs or as a reduction's init.
	in := map[*ir.Operation]bool{c: true}
	queue := []*ir.Operation{c}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		md, err := linalg.DefinitionOf(m)
		if err != nil {
			return nil
		}
		vals := linalg.Ins(m)
		if m != c {
			vals = append(slices.Clone(vals), linalg.Outs(m)...)
		}
		for i, v := range vals {
			p := v.Op
			if p == nil || in[p] || !pending[p] || i >= len(md.Maps) || !rowMap(md.Maps[i], rows) || rowStage(p) != rows {
				continue
			}
			in[p] = true
			queue = append(queue, p)
		}
	}
	var members []*ir.Operation
	reduces := false
	ok := true
	ir.Walk(fn, func(o *ir.Operation) bool {
		if in[o] {
			members = append(members, o)
		}
		return true
	})
	for _, m := range members {
		if m == c {
			continue
		}
		d, _ := linalg.DefinitionOf(m)
		reduces = reduces || slices.Contains(d.Iterators, "reduction")
		res := m.Results[0]
		if !slices.Equal(res.Type.(*ir.TensorType).Shape, ranges[:rows]) {
			return nil
		}
		// Every use is by a member, indexed by the row loops alone.
		ir.Walk(fn, func(o *ir.Operation) bool {
			for i, v := range o.Operands {
				if v != res {
					continue
				}
				if !in[o] {
					ok = false
					continue
				}
				ud, err := linalg.DefinitionOf(o)
				if err != nil || i >= len(ud.Maps) || !rowMap(ud.Maps[i], rows) {
					ok = false
				}
			}
			return true
		})
	}
	if !ok || !reduces || members[len(members)-1] != c {
		return nil
	}
	// The whole group must satisfy the contract; a chain it does not
	// describe stays one dispatch per op.
	if _, _, _, err := buildGroup(fn, members, "group", rows); err != nil {
		return nil
	}
	return members
}

// buildGroup describes the group of members (in program order) as its
// stages' kernels, the group, and the host tensors its dispatch reads (its
// read bindings, in order).
func buildGroup(fn *ir.Operation, members []*ir.Operation, name string, rows int) ([]*structuredKernel, *Group, []*ir.Value, error) {
	last := len(members) - 1
	stageOf := map[*ir.Value]int{}
	var stages []*structuredKernel
	g := &Group{Rows: rows, Tile: 1}
	for s, m := range members {
		st, err := kernelOf(fn, m, fmt.Sprintf("%s_stage%d", name, s))
		if err != nil {
			return nil, nil, nil, err
		}
		// A stage's tile means nothing in a group (the group's tile
		// does), but a kernel dictionary has one.
		st.k.Tile = 1
		stages = append(stages, st)
		g.Stages = append(g.Stages, st.k)
		if s < last {
			stageOf[m.Results[0]] = s
		}
	}
	// Reads first, numbered by first use; then the last stage's outputs.
	var reads []*ir.Value
	readAt := map[*ir.Value]int{}
	link := func(v *ir.Value) int {
		if j, ok := stageOf[v]; ok {
			return -1 - j
		}
		if l, ok := readAt[v]; ok {
			return l
		}
		readAt[v] = len(reads)
		reads = append(reads, v)
		return readAt[v]
	}
	for s, st := range stages {
		var ls []int
		ins, inits := st.dv.ins, st.dv.inits
		nout := 0
		for _, b := range st.k.Bindings() {
			switch b.Role {
			case "in":
				ls = append(ls, link(ins[0]))
				ins = ins[1:]
			case "init":
				ls = append(ls, link(inits[0]))
				inits = inits[1:]
			case "out":
				if s < last {
					ls = append(ls, -1-s)
				} else {
					ls = append(ls, -2-nout) // numbered below
					nout++
				}
			default:
				return nil, nil, nil, fmt.Errorf("stage %d: a %s binding cannot be grouped", s, b.Role)
			}
		}
		g.Links = append(g.Links, ls)
	}
	for i, l := range g.Links[last] {
		if l <= -2 && g.Stages[last].Bindings()[i].Role == "out" {
			g.Links[last][i] = len(reads) + (-2 - l)
		}
	}
	if _, err := DecodeGroup(g.Dict()); err != nil {
		return nil, nil, nil, err
	}
	return stages, g, reads, nil
}

// formGroup replaces the members of a group (see rowGroups) by one
// dispatch of a generated executable whose entry is the group.
func formGroup(module, fn *ir.Operation, members []*ir.Operation, name string, targets []*hal.ExecutableTargetAttr) error {
	c := members[len(members)-1]
	// Built again rather than kept from rowGroups: the dispatches formed
	// since then replaced some of the values the stages read.
	stages, g, reads, err := buildGroup(fn, members, name, rowStage(members[0]))
	if err != nil {
		return ir.OpErrorf(c, "internal error: forming the row group: %v", err)
	}
	var fns []*ir.Operation
	var scalars []*ir.Value
	for _, st := range stages {
		fns = append(fns, st.body)
		scalars = append(scalars, st.dv.scalars...)
	}
	layout := &hal.PipelineLayoutAttr{Constants: int64(g.NumConstants())}
	for _, b := range g.Bindings() {
		if b.Write {
			layout.Bindings = append(layout.Bindings, hal.Binding{Type: "storage_buffer"})
		} else {
			layout.Bindings = append(layout.Bindings, hal.Binding{Type: "storage_buffer", Flags: []string{"ReadOnly"}})
		}
	}
	// Each target's workgroups take rows in tiles, as many as its
	// LoopNestWorkgroups budget asks (one row each on a GPU unless there
	// are more rows than the budget).
	gridOf := func(t *hal.ExecutableTargetAttr) hal.Grid {
		gr := hal.Grid{Tile: 1, Z: 1}
		budget := int64(MaxWorkgroups)
		if tg, ok := target.Lookup(t.Backend); ok {
			gr.Limit = tg.LoopNestGridLimit
			if tg.LoopNestWorkgroups > 0 {
				budget = tg.LoopNestWorkgroups
			}
		}
		gr.Tile = max(1, (g.RowCount()+budget-1)/budget)
		return gr
	}
	for _, t := range targets {
		if tile := gridOf(t).Tile; t == targets[0] || tile < g.Tile {
			g.Tile = tile
		}
	}
	gen := &hal.GeneratedExecutable{
		Name: name, Export: name, Layout: layout, Tile: g.Tile, Targets: targets,
		VariantName: variantName, Grid: gridOf,
		Module: func(t *hal.ExecutableTargetAttr, mb *ir.Block) error {
			for _, f := range fns {
				mb.Append(ir.Clone(f, nil))
			}
			gt := *g
			gt.Tile = gridOf(t).Tile
			entry := ir.NewOp("func.func", nil, nil, []ir.NamedAttr{
				{Name: "sym_name", Value: ir.StringAttr{Value: name}},
				{Name: "function_type", Value: ir.TypeAttr{Type: &ir.FunctionType{}}},
				{Name: GroupAttr, Value: gt.Dict()},
			})
			entry.AddRegion().AddBlock().Append(ir.NewOp("func.return", nil, nil, nil))
			mb.Append(entry)
			return nil
		},
	}
	exe, err := gen.Build()
	if err != nil {
		return err
	}
	ir.Walk(exe, func(o *ir.Operation) bool {
		if !o.Pos.IsValid() {
			o.Pos = c.Pos
		}
		return true
	})
	module.Body().InsertBefore(fn, exe)

	workload := ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(g.RowCount())}})
	workload.Pos = c.Pos
	args := slices.Concat(scalars, reads)
	var resultTypes []ir.Type
	for _, r := range c.Results {
		resultTypes = append(resultTypes, r.Type)
	}
	d := ir.NewOp("flow.dispatch", append([]*ir.Value{workload.Results[0]}, args...), resultTypes, nil)
	d.Attrs = []ir.NamedAttr{
		{Name: "entry_points", Value: &ir.ArrayAttr{Elems: []ir.Attribute{ir.SymbolRefAttr{Root: name, Nested: []string{name}}}}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(args), 0, 0)},
	}
	d.Pos, d.Loc = c.Pos, c.Loc
	c.Block.InsertBefore(c, workload)
	c.Block.InsertBefore(c, d)
	for i, r := range c.Results {
		d.Results[i].Name = r.Name
		ir.ReplaceAllUsesWith(fn, r, d.Results[i])
	}
	for i := len(members) - 1; i >= 0; i-- {
		members[i].Remove()
	}
	for _, st := range stages {
		removeUnusedConstants(fn, st.consts)
	}
	return nil
}
