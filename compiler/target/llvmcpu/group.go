package llvmcpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// Row groups (loopnest.GroupAttr): a workgroup owns Tile consecutive rows
// and runs the group's stages on each row in turn. A stage before the
// last keeps its per-row result in a local of the row's iteration (in
// its storage type, so later stages read exactly what memory would have
// held): a per-row stage calls its body once; a row reduction runs its
// reduction loop as a loop nest does (split at its combiner into a
// vectorized part and an in-order or pairwise fold when the body allows,
// else in order). The last stage walks the row's remaining loops,
// innermost fastest, and stores its outputs to the group bindings. Every
// stage that reads the row reads it again, all but the first from the
// caches (a row of 8192 f32 is 32 KiB).

// groupStage is one stage of a row group being emitted.
type groupStage struct {
	k *loopnest.Kernel
	// bname is the body's C name; split its split form (nil: none).
	bname string
	split *splitBody
	// bindings are the stage's bindings and links their group links.
	bindings []loopnest.Binding
	links    []int
	// scalars name the C constants of the stage's scalar inputs, by input.
	scalars map[int]string
}

// loopGroup emits the entry point of a row group and its bodies,
// returning the constant and binding counts.
func (g *cgen) loopGroup(fn *ir.Operation, d *ir.DictAttr, cname string) (int, int, error) {
	grp, err := loopnest.DecodeGroup(d)
	if err != nil {
		return 0, 0, ir.OpErrorf(fn, "%v", err)
	}
	gbs := grp.Bindings()
	// Bodies (and their split forms) are written before the entry that
	// calls them.
	stages := make([]*groupStage, len(grp.Stages))
	for s, k := range grp.Stages {
		what := fmt.Sprintf("stage %d: ", s)
		body, bname, err := g.bodyFunc(fn, k, what)
		if err != nil {
			return 0, 0, err
		}
		st := &groupStage{k: k, bname: bname, bindings: k.Bindings(), links: grp.Links[s], scalars: map[int]string{}}
		if s < len(grp.Stages)-1 && len(k.Ranges) > grp.Rows {
			if st.split, err = g.splitReduction(k, body, bname); err != nil {
				return 0, 0, err
			}
		}
		for bi, b := range st.bindings {
			if _, err := storageType(b.Type.Elem); err != nil {
				return 0, 0, ir.OpErrorf(fn, "%sbinding %d: %v", what, bi, err)
			}
		}
		stages[s] = st
	}
	var entry strings.Builder
	w := &entry
	fmt.Fprintf(w, "static int %s(const gi_environment_t* env, const gi_dispatch_state_t* ds, const gi_workgroup_state_t* ws) {\n", cname)
	w.WriteString("  (void)env;\n")
	// The stages' scalar inputs, from the push constants in stage order.
	nc := 0
	for s, st := range stages {
		for i, o := range st.k.Inputs {
			if o.Scalar == nil {
				continue
			}
			ct, err := cType(o.Scalar)
			if err != nil {
				return 0, 0, ir.OpErrorf(fn, "stage %d: scalar input #%d: %v", s, i, err)
			}
			st.scalars[i] = fmt.Sprintf("gi_s%d_scalar%d", s, i)
			fmt.Fprintf(w, "  const %s %s = %s;\n", ct, st.scalars[i], fromConstant(o.Scalar, "ds->constants["+strconv.Itoa(nc)+"]"))
			nc++
		}
	}
	// Group bindings: shapes are static, so strides are literals; a
	// binding shorter than its shape fails the dispatch.
	strides := make([][]string, len(gbs))
	for l, b := range gbs {
		st, _ := storageType(b.Type.Elem)
		rank := len(b.Type.Shape)
		strides[l] = make([]string, rank)
		total := int64(1)
		for r := rank - 1; r >= 0; r-- {
			strides[l][r] = strconv.FormatInt(total, 10) + "LL"
			total *= b.Type.Shape[r]
		}
		fmt.Fprintf(w, "  if ((unsigned __int128)ds->binding_lengths[%d] < (unsigned __int128)%d * (unsigned __int128)%d) return 1;\n", l, elemSize(b.Type.Elem), total)
		q := "const "
		if b.Write {
			q = ""
		}
		fmt.Fprintf(w, "  %s%s* restrict gb%d = (%s%s*)ds->binding_ptrs[%d];\n", q, st, l, q, st, l)
	}
	// This workgroup's rows, each split into its row loop indices (the
	// last row loop fastest).
	fmt.Fprintf(w, "  const int64_t gi_lo = (int64_t)ws->workgroup_id_x * %dLL;\n", grp.Tile)
	fmt.Fprintf(w, "  const int64_t gi_hi = gi_lo + %dLL < %dLL ? gi_lo + %dLL : %dLL;\n", grp.Tile, grp.RowCount(), grp.Tile, grp.RowCount())
	w.WriteString("  for (int64_t gi_row = gi_lo; gi_row < gi_hi; ++gi_row) {\n")
	rows := grp.RowRanges()
	if grp.Rows == 1 {
		w.WriteString("    const int64_t d0 = gi_row;\n")
	} else {
		w.WriteString("    int64_t gi_rest = gi_row;\n")
		for r := grp.Rows - 1; r >= 1; r-- {
			fmt.Fprintf(w, "    const int64_t d%d = gi_rest %% %dLL;\n", r, rows[r])
			fmt.Fprintf(w, "    gi_rest /= %dLL;\n", rows[r])
		}
		w.WriteString("    const int64_t d0 = gi_rest;\n")
	}
	for s := range stages {
		if err := g.groupStage(w, grp, stages, s, strides); err != nil {
			return 0, 0, ir.OpErrorf(fn, "stage %d: %v", s, err)
		}
	}
	w.WriteString("  }\n  return 0;\n}\n\n")
	g.body.WriteString(entry.String())
	return nc, len(gbs), nil
}

// groupStage writes stage s of a row group at the current row: the
// stage's result into the local gi_r<s>, or for the last stage its loops
// over the rest of the row, storing the outputs.
func (g *cgen) groupStage(w *strings.Builder, grp *loopnest.Group, stages []*groupStage, s int, strides [][]string) error {
	st := stages[s]
	k := st.k
	nl := len(k.Ranges)
	dims := make([]string, nl)
	for i := range dims {
		dims[i] = "d" + strconv.Itoa(i)
	}
	// element is the C expression of binding bi's element at the current
	// point, as a value: an earlier stage's local, or the group binding
	// at the binding's map.
	element := func(bi int) (string, error) {
		b := st.bindings[bi]
		if j, ok := loopnest.StageResult(st.links[bi]); ok {
			return loadValue(g.helpers, b.Type.Elem, "gi_r"+strconv.Itoa(j)), nil
		}
		off, err := groupOffset(b, strides[st.links[bi]], dims)
		if err != nil {
			return "", err
		}
		return loadValue(g.helpers, b.Type.Elem, fmt.Sprintf("gb%d[%s]", st.links[bi], off)), nil
	}
	find := func(role string, i int) int {
		for bi, b := range st.bindings {
			if b.Role == role && b.Index == i {
				return bi
			}
		}
		return -1
	}
	args := append([]string(nil), dims...)
	for i := range k.Inputs {
		if n, ok := st.scalars[i]; ok {
			args = append(args, n)
			continue
		}
		x, err := element(find("in", i))
		if err != nil {
			return err
		}
		args = append(args, x)
	}
	for i := range k.Outputs {
		args = append(args, "acc"+strconv.Itoa(i))
	}
	for i := range k.Outputs {
		args = append(args, "&acc"+strconv.Itoa(i))
	}
	call := fmt.Sprintf("%s(%s);", st.bname, strings.Join(args, ", "))
	indent := "    "
	fmt.Fprintf(w, "%s// stage %d: @%s\n", indent, s, k.Body)
	if s < len(stages)-1 {
		o := k.Outputs[0]
		sct, _ := storageType(o.Type.Elem)
		fmt.Fprintf(w, "%s%s gi_r%d;\n", indent, sct, s)
	}
	fmt.Fprintf(w, "%s{\n", indent)
	indent += "  "
	// Accumulators start from the init (an earlier stage's result or a
	// group binding) or zero.
	open := 0
	if s == len(stages)-1 {
		for l := grp.Rows; l < nl; l++ {
			fmt.Fprintf(w, "%sfor (int64_t d%d = 0; d%d < %dLL; ++d%d) {\n", indent, l, l, k.Ranges[l], l)
			indent += "  "
			open++
		}
	}
	for i, o := range k.Outputs {
		ct, _ := cType(o.Type.Elem)
		init := "(" + ct + ")0"
		if o.Init {
			x, err := element(find("init", i))
			if err != nil {
				return err
			}
			init = x
		}
		fmt.Fprintf(w, "%s%s acc%d = %s;\n", indent, ct, i, init)
	}
	switch {
	case s == len(stages)-1:
		fmt.Fprintf(w, "%s%s\n", indent, call)
		for i, o := range k.Outputs {
			bi := find("out", i)
			off, err := groupOffset(st.bindings[bi], strides[st.links[bi]], dims)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%sgb%d[%s] = %s;\n", indent, st.links[bi], off, storeValue(g.helpers, o.Type.Elem, "acc"+strconv.Itoa(i)))
		}
		for ; open > 0; open-- {
			indent = indent[2:]
			fmt.Fprintf(w, "%s}\n", indent)
		}
	case nl == grp.Rows:
		// A per-row value.
		fmt.Fprintf(w, "%s%s\n", indent, call)
	case st.split != nil:
		chunkedReduction(w, indent, st.split, call, st.bname, strconv.FormatInt(k.Ranges[nl-1], 10)+"LL", nl-1, k.Outputs[0].Type.Elem)
	default:
		fmt.Fprintf(w, "%sfor (int64_t d%d = 0; d%d < %dLL; ++d%d) %s\n", indent, nl-1, nl-1, k.Ranges[nl-1], nl-1, call)
	}
	if s < len(stages)-1 {
		fmt.Fprintf(w, "%sgi_r%d = %s;\n", indent, s, storeValue(g.helpers, k.Outputs[0].Type.Elem, "acc0"))
	}
	indent = indent[2:]
	fmt.Fprintf(w, "%s}\n", indent)
	return nil
}

// groupOffset is the row-major element offset of a stage binding in the
// group binding whose strides are given, at the binding's map.
func groupOffset(b loopnest.Binding, strides, dims []string) (string, error) {
	if len(b.Map.Results) == 0 {
		return "0", nil
	}
	var terms []string
	for r, e := range b.Map.Results {
		x, err := affineC(e, dims, nil)
		if err != nil {
			return "", err
		}
		terms = append(terms, fmt.Sprintf("(%s) * %s", x, strides[r]))
	}
	return strings.Join(terms, " + "), nil
}
