package vulkan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// GroupWorkgroupSize is the local size of row-group shaders on devices
// that allow it (groupThreads): a workgroup shares a whole row (of
// thousands of elements, a softmax's), so it takes twice a loop nest's
// invocations, as cuda's blocks of 256 threads do.
const GroupWorkgroupSize = 256

// groupThreads is the local size of row-group shaders on dev:
// GroupWorkgroupSize where the device allows it, else a loop nest's.
func groupThreads(dev Device) int {
	if dev.MaxInvocations >= GroupWorkgroupSize && dev.MaxWorkgroupSize[0] >= GroupWorkgroupSize {
		return GroupWorkgroupSize
	}
	return LoopNestWorkgroupSize
}

// groupStage is one stage of a row group being written.
type groupStage struct {
	g *lnGen
	// result is the variable of the stage's per-row result (all but the
	// last stage); shared is true when the workgroup computes it together
	// and broadcasts it through the shared variable "sh<s>".
	result string
	shared bool
}

// generateGroup returns the compute shader of a row group
// (loopnest.GroupAttr). Workgroup w owns rows w*T to w*T+T-1 (the grid
// linearized as y * countX + x, those past the last row returning) and
// runs the stages on each row in order, every invocation holding the
// row's stage results in variables: a per-row stage (no loops beyond the
// rows) is computed by every invocation alike; a row reduction of
// gpuloops.ReductionOf's shape is shared by the workgroup as a loop
// nest's shared reduction is (strided parts, ReductionUnroll loads in
// flight, subgroup shuffles, the subgroups' parts in shared memory), its
// first invocation folds the total into the initial value and writes it
// to a shared variable that every invocation reads after a barrier; any
// other reduction every invocation runs in order by itself. The last
// stage spreads the row's remaining iterations over the invocations,
// ElementwiseUnroll per step with the loads first, as loop nests without
// reductions do. The row is read from memory by every stage that reads
// it; the stages after the first find it in the caches.
func generateGroup(funcs map[string]*ir.Operation, fn *ir.Operation, d *ir.DictAttr, opts GLSLOptions) (string, error) {
	grp, err := loopnest.DecodeGroup(d)
	if err != nil {
		return "", ir.OpErrorf(fn, "%v", err)
	}
	needs := newGLSLNeeds()
	helpers := newScalarGen(needs, opts.Device)
	gbs := grp.Bindings()
	gkinds := make([]elemKind, len(gbs))
	var w strings.Builder
	fmt.Fprintf(&w, "layout(local_size_x = %d, local_size_y = 1, local_size_z = 1) in;\n", groupThreads(opts.Device))
	var conds []string
	for l, b := range gbs {
		if gkinds[l], err = needs.kind(b.Type.Elem); err != nil {
			return "", ir.OpErrorf(fn, "group binding %d: %v", l, err)
		}
		q := "readonly "
		if b.Write {
			q = ""
		}
		fmt.Fprintf(&w, "layout(set = 0, binding = %d) %srestrict buffer B%d { %s v[]; } b%d;\n", l, q, l, gkinds[l].buf, l)
		// A binding shorter than its shape leaves the outputs unwritten,
		// as a loop nest's prologue does (Vulkan has no dispatch status).
		need := int64(1)
		for _, sz := range b.Type.Shape {
			need *= sz
		}
		if per := int64(gkinds[l].perWord); per > 1 {
			need = (need + per - 1) / per
		}
		if need > 0xffffffff {
			return "", ir.OpErrorf(fn, "group binding %d of type %s does not fit the 32-bit indices of vulkan-spirv dispatches", l, ir.TypeString(b.Type))
		}
		conds = append(conds, fmt.Sprintf("uint(b%d.v.length()) < %du", l, need))
	}
	if n := grp.NumConstants(); n > 0 {
		fmt.Fprintf(&w, "layout(push_constant) uniform Constants { uint c[%d]; } pc;\n", n)
	}
	w.WriteString("\n")
	last := len(grp.Stages) - 1
	stages := make([]*groupStage, len(grp.Stages))
	var funcText, sharedText strings.Builder
	for s := range grp.Stages {
		st, err := newGroupStage(funcs, fn, grp, s, stages[:s], gkinds, needs, helpers, opts)
		if err != nil {
			return "", err
		}
		stages[s] = st
		funcText.WriteString(st.g.w.String())
		st.g.w.Reset()
		if s < last {
			kind := st.g.kinds[st.g.find("out", 0)]
			if st.shared {
				fmt.Fprintf(&sharedText, "shared %s sh%d;\n", kind.value, s)
			}
		}
	}
	if sharedText.Len() > 0 {
		sharedText.WriteString("\n")
	}
	var main strings.Builder
	main.WriteString("void main() {\n")
	nconst := 0
	for s, st := range stages {
		st.g.nconst = nconst
		if err := st.g.scalarInputs(); err != nil {
			return "", ir.OpErrorf(fn, "stage %d: %v", s, err)
		}
		nconst = st.g.nconst
		main.WriteString(st.g.w.String())
		st.g.w.Reset()
	}
	fmt.Fprintf(&main, "  if (%s) {\n    return;\n  }\n", strings.Join(conds, " ||\n      "))
	rows := grp.RowRanges()
	main.WriteString("  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;\n")
	fmt.Fprintf(&main, "  uint rowLo = tile * %du;\n  uint rowHi = min(%du, rowLo + %du);\n", grp.Tile, grp.RowCount(), grp.Tile)
	main.WriteString("  if (rowLo >= rowHi) {\n    return;\n  }\n")
	// Every invocation walks the same rows, so the barriers of the
	// shared reductions are reached by all of them.
	main.WriteString("  for (uint row = rowLo; row < rowHi; row++) {\n    uint rest = row;\n")
	for l := len(rows) - 1; l >= 1; l-- {
		fmt.Fprintf(&main, "    uint d%d = rest %% %du;\n    rest /= %du;\n", l, rows[l], rows[l])
	}
	main.WriteString("    uint d0 = rest;\n")
	for s, st := range stages {
		if err := st.emit(grp.Rows, s == last); err != nil {
			return "", ir.OpErrorf(fn, "stage %d: %v", s, err)
		}
		main.WriteString(st.g.w.String())
	}
	main.WriteString("  }\n}\n")
	if err := needs.check(opts.Device); err != nil {
		return "", ir.OpErrorf(fn, "%v", err)
	}
	w.WriteString(needs.helperText())
	w.WriteString(helpers.helperText())
	w.WriteString(funcText.String())
	w.WriteString(sharedText.String())
	w.WriteString(main.String())
	return needs.header("// Generated by goiree's vulkan-spirv target: a row group.\n") + w.String(), nil
}

// newGroupStage prepares stage s of grp: its loop-nest generator with the
// stage's bindings mapped to group bindings and earlier stages' results,
// and its body (and combine) functions written to the generator's text.
func newGroupStage(funcs map[string]*ir.Operation, fn *ir.Operation, grp *loopnest.Group, s int, prev []*groupStage, gkinds []elemKind, needs *glslNeeds, helpers *scalarGen, opts GLSLOptions) (*groupStage, error) {
	k := grp.Stages[s]
	body := funcs[k.Body]
	if body == nil || body.Body() == nil {
		return nil, ir.OpErrorf(fn, "stage %d: body @%s is not defined in the module", s, k.Body)
	}
	ft := function.Type(body)
	nl, ni, no := len(k.Ranges), len(k.Inputs), len(k.Outputs)
	if ft == nil || len(ft.Inputs) != nl+ni+no || len(ft.Results) != no {
		return nil, ir.OpErrorf(body, "stage %d: the body must take %d indices, %d inputs and %d accumulators and return %d values", s, nl, ni, no, no)
	}
	g := &lnGen{k: k, bindings: k.Bindings(), scalars: map[int]string{}, opts: opts, needs: needs,
		suffix: "_" + strconv.Itoa(s), helpers: helpers, threads: groupThreads(opts.Device)}
	st := &groupStage{g: g}
	g.bufs = make([]int, len(g.bindings))
	g.vals = make([]string, len(g.bindings))
	for bi, b := range g.bindings {
		kind, err := needs.kind(b.Type.Elem)
		if err != nil {
			return nil, ir.OpErrorf(fn, "stage %d: %s #%d: %v", s, roleName(b.Role), b.Index, err)
		}
		g.kinds = append(g.kinds, kind)
		l := grp.Links[s][bi]
		j, ok := loopnest.StageResult(l)
		switch {
		case !ok:
			g.bufs[bi] = l
			if gkinds[l] != kind {
				return nil, ir.OpErrorf(fn, "stage %d: %s #%d is stored unlike group binding %d", s, roleName(b.Role), b.Index, l)
			}
		case b.Role == "out":
			// Filled in below, once the stage's kind of reduction is
			// known.
		default:
			g.vals[bi] = prev[j].result
		}
	}
	// Sizes and ranges are static in a group.
	g.sizes = make([][]string, len(g.bindings))
	for bi, b := range g.bindings {
		for _, sz := range b.Type.Shape {
			g.sizes[bi] = append(g.sizes[bi], strconv.FormatInt(sz, 10)+"u")
		}
	}
	for _, r := range k.Ranges {
		g.ranges = append(g.ranges, strconv.FormatInt(r, 10)+"u")
	}
	if s < len(grp.Stages)-1 {
		st.result = "r" + strconv.Itoa(s)
		out := g.find("out", 0)
		g.vals[out] = st.result
		if len(k.Ranges) > grp.Rows {
			if g.red = reductionOf(k, body); g.red != nil {
				st.shared = true
				g.vals[out] = "sh" + strconv.Itoa(s)
				if !opts.NoSubgroups {
					needs.exts["GL_KHR_shader_subgroup_basic"] = true
					needs.exts["GL_KHR_shader_subgroup_shuffle"] = true
				}
			}
		}
	}
	if err := g.bodyFunction(body, ft); err != nil {
		return nil, err
	}
	if g.red != nil {
		kind := g.kinds[g.find("out", 0)]
		fmt.Fprintf(&g.w, "shared %s %s[%d];\n\n", kind.value, g.fn("part"), g.size())
		if err := g.combineFunction(kind); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// emit writes the stage's code for the row at d0, ..., d<rows-1> into
// the generator's text.
func (st *groupStage) emit(rows int, last bool) error {
	g := st.g
	w := &g.w
	k := g.k
	if !last {
		kind := g.kinds[g.find("out", 0)]
		var reds []int
		for l := rows; l < len(k.Ranges); l++ {
			reds = append(reds, l)
		}
		if st.shared {
			// The loop nest's shared reduction, in a block of its own.
			if err := g.sharedReduction(); err != nil {
				return err
			}
			text := g.w.String()
			g.w.Reset()
			fmt.Fprintf(w, "    {\n%s    }\n    %s %s = sh%s;\n", indentLines(text, "  "), kind.value, st.result, g.suffix[1:])
			return nil
		}
		// Every invocation computes the row's value alike.
		fmt.Fprintf(w, "    %s %s;\n    {\n", kind.value, st.result)
		if err := g.element("      ", reds); err != nil {
			return err
		}
		w.WriteString("    }\n")
		return nil
	}
	var cols []int
	for l := rows; l < len(k.Ranges); l++ {
		cols = append(cols, l)
	}
	if len(cols) == 0 {
		w.WriteString("    if (gl_LocalInvocationID.x == 0u) {\n")
		if err := g.element("      ", nil); err != nil {
			return err
		}
		w.WriteString("    }\n")
		return nil
	}
	// The row's remaining iterations, as the parallel loops of one tile
	// of a loop nest whose first loop is cols[0]: unrolled steps, then
	// the elements they left.
	count := int64(1)
	for _, l := range cols {
		count *= k.Ranges[l]
	}
	fmt.Fprintf(w, "  uint lo = 0u;\n  uint count = %du;\n", count)
	if err := g.unrolled(cols, cols[0]); err != nil {
		return err
	}
	fmt.Fprintf(w, "  for (; i < count; i += %du) {\n    uint rest = i;\n", g.size())
	for q := len(cols) - 1; q >= 1; q-- {
		l := cols[q]
		fmt.Fprintf(w, "    uint d%d = rest %% %s;\n    rest /= %s;\n", l, g.ranges[l], g.ranges[l])
	}
	fmt.Fprintf(w, "    uint d%d = rest;\n", cols[0])
	if err := g.element("    ", nil); err != nil {
		return err
	}
	w.WriteString("  }\n")
	text := g.w.String()
	g.w.Reset()
	fmt.Fprintf(w, "    {\n%s    }\n", indentLines(text, "    "))
	return nil
}

// indentLines puts indent before every line of text.
func indentLines(text, indent string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = indent + l
		}
	}
	return strings.Join(lines, "")
}
