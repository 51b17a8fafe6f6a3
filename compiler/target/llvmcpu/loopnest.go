package llvmcpu

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// loopNest emits a generated loop-nest kernel (the loopnest.Attr contract)
// and its scalar body, returning the constant and binding counts.
func (g *cgen) loopNest(fn *ir.Operation, d *ir.DictAttr, cname string) (int, int, error) {
	k, err := loopnest.DecodeIndexed(d)
	if err != nil {
		return 0, 0, ir.OpErrorf(fn, "%v", err)
	}
	body, bname, err := g.bodyFunc(fn, k, "loop-nest ")
	if err != nil {
		return 0, 0, err
	}
	nl, no := len(k.Ranges), len(k.Outputs)
	// The split form of a reduction body is emitted before the entry
	// function that may use it, and so is the epilogue.
	split, err := g.splitReduction(k, body, bname)
	if err != nil {
		return 0, 0, err
	}
	ename, err := g.epilogueFunc(fn, k)
	if err != nil {
		return 0, 0, err
	}
	dims := make([]string, nl)
	for i := range dims {
		dims[i] = "d" + strconv.Itoa(i)
	}
	// The entry is written on its own and appended at the end, so that
	// the functions it calls (a matmul's epilogue over a tile) can be
	// written before it as they are generated.
	var entry strings.Builder
	defer func() { g.body.WriteString(entry.String()) }()
	w := &entry
	fmt.Fprintf(w, "static int %s(const gi_environment_t* env, const gi_dispatch_state_t* ds, const gi_workgroup_state_t* ws) {\n", cname)
	w.WriteString("  (void)env; (void)ws;\n")
	// Sizes and row-major strides of every binding: static ones are
	// literals, dynamic ones come from the push constants in order.
	bindings := k.Bindings()
	sizes := make([][]string, len(bindings))
	strides := make([][]string, len(bindings))
	names := make([]string, len(bindings))
	nc := 0
	// Scalar inputs come first among the push constants.
	scalars := map[int]string{}
	for i, o := range k.Inputs {
		if o.Scalar == nil {
			continue
		}
		ct, err := cType(o.Scalar)
		if err != nil {
			return 0, 0, ir.OpErrorf(fn, "%v", err)
		}
		scalars[i] = "gi_scalar" + strconv.Itoa(i)
		fmt.Fprintf(w, "  const %s %s = %s;\n", ct, scalars[i], fromConstant(o.Scalar, "ds->constants["+strconv.Itoa(nc)+"]"))
		nc++
	}
	for bi, b := range bindings {
		ct, err := storageType(b.Type.Elem)
		if err != nil {
			return 0, 0, ir.OpErrorf(fn, "%v", err)
		}
		names[bi] = b.Role + strconv.Itoa(b.Index)
		rank := len(b.Type.Shape)
		sizes[bi] = make([]string, rank)
		strides[bi] = make([]string, rank)
		for r, sz := range b.Type.Shape {
			if sz == ir.Dynamic {
				sizes[bi][r] = fmt.Sprintf("gi_%s_size%d", names[bi], r)
				fmt.Fprintf(w, "  const int64_t %s = (int64_t)(uint32_t)ds->constants[%d];\n", sizes[bi][r], nc)
				nc++
			} else {
				sizes[bi][r] = strconv.FormatInt(sz, 10) + "LL"
			}
		}
		total := "1LL"
		for r := rank - 1; r >= 0; r-- {
			strides[bi][r] = total
			if r < rank-1 {
				strides[bi][r] = fmt.Sprintf("gi_%s_stride%d", names[bi], r)
				fmt.Fprintf(w, "  const int64_t %s = %s;\n", strides[bi][r], total)
			}
			total = fmt.Sprintf("%s * %s", strides[bi][r], sizes[bi][r])
		}
		// A binding shorter than its shape fails the dispatch rather than
		// reading or writing past it (in 128 bits: sizes come from 32-bit
		// constants, so their product cannot wrap).
		need := fmt.Sprintf("(unsigned __int128)%d", elemSize(b.Type.Elem))
		for _, sz := range sizes[bi] {
			need += " * (unsigned __int128)" + sz
		}
		fmt.Fprintf(w, "  if ((unsigned __int128)ds->binding_lengths[%d] < %s) return 1;\n", bi, need)
		if b.Indexed {
			// Computed offsets are clamped into the tensor, which needs
			// an element to clamp to.
			fmt.Fprintf(w, "  if (%s == 0) return 1;\n", sizes[bi][0])
		}
		q := ""
		if b.Role != "out" {
			q = "const "
		}
		fmt.Fprintf(w, "  %s%s* restrict %s = (%s%s*)ds->binding_ptrs[%d];\n", q, ct, names[bi], q, ct, bi)
	}
	// Loop ranges: static ones are literals; a dynamic one is the first
	// dimension its loop indexes directly. Every dimension a loop indexes
	// directly must equal its range, and constant indices must be inside
	// their dimensions.
	ranges := make([]string, nl)
	for l, r := range k.Ranges {
		if r != ir.Dynamic {
			ranges[l] = strconv.FormatInt(r, 10) + "LL"
		}
	}
	// A dynamic range is the size of a dimension the loop indexes
	// directly, in an operand that is not partial when there is one.
	for _, partial := range []bool{false, true} {
		for bi, b := range bindings {
			for r, e := range b.Map.Results {
				if e.Kind == ir.AffineDim && ranges[e.Pos] == "" && b.Partial == partial {
					ranges[e.Pos] = "gi_range" + strconv.Itoa(e.Pos)
					fmt.Fprintf(w, "  const int64_t %s = %s;\n", ranges[e.Pos], sizes[bi][r])
				}
			}
		}
	}
	for bi, b := range bindings {
		for r, e := range b.Map.Results {
			dyn := b.Type.Shape[r] == ir.Dynamic
			switch {
			case e.Kind == ir.AffineDim && (dyn || k.Ranges[e.Pos] == ir.Dynamic) && b.Partial:
				// A partly written output or partly read input may be
				// longer than the loop.
				fmt.Fprintf(w, "  if (%s > %s) return 1;\n", ranges[e.Pos], sizes[bi][r])
			case e.Kind == ir.AffineDim && (dyn || k.Ranges[e.Pos] == ir.Dynamic):
				fmt.Fprintf(w, "  if (%s != %s) return 1;\n", ranges[e.Pos], sizes[bi][r])
			case e.Kind == ir.AffineConst && dyn:
				fmt.Fprintf(w, "  if (%dLL >= %s) return 1;\n", e.Value, sizes[bi][r])
			}
		}
	}
	// Window indices (a convolution's input) the types do not prove in
	// bounds are checked here: with every loop they use at its last
	// iteration the index must be inside the dimension.
	for bi, b := range bindings {
		for r, e := range b.Map.Results {
			if e.Kind == ir.AffineDim || e.Kind == ir.AffineConst {
				continue
			}
			lin, ok := loopnest.Linear(e)
			if !ok {
				return 0, 0, ir.OpErrorf(fn, "binding %d: index %s is not a non-negative combination of loop indices", bi, e)
			}
			if hi, ok := lin.Max(k.Ranges); ok && b.Type.Shape[r] != ir.Dynamic && hi < b.Type.Shape[r] {
				continue
			}
			var ds []int
			for d := range lin.Coeffs {
				ds = append(ds, d)
			}
			sort.Ints(ds)
			conds := []string{"1"}
			terms := []string{strconv.FormatInt(lin.Const, 10) + "LL"}
			for _, d := range ds {
				conds = append(conds, ranges[d]+" > 0")
				terms = append(terms, fmt.Sprintf("%dLL * (%s - 1)", lin.Coeffs[d], ranges[d]))
			}
			fmt.Fprintf(w, "  if (%s && %s >= %s) return 1;\n", strings.Join(conds, " && "), strings.Join(terms, " + "), sizes[bi][r])
		}
	}
	// offset is the row-major element offset of a binding at its map.
	offset := func(bi int) (string, error) {
		m := bindings[bi].Map
		if len(m.Results) == 0 {
			return "0", nil
		}
		var terms []string
		for r, e := range m.Results {
			x, err := affineC(e, dims, nil)
			if err != nil {
				return "", err
			}
			terms = append(terms, fmt.Sprintf("(%s) * %s", x, strides[bi][r]))
		}
		return strings.Join(terms, " + "), nil
	}
	find := func(role string, i int) int {
		for bi, b := range bindings {
			if b.Role == role && b.Index == i {
				return bi
			}
		}
		return -1
	}
	// epilogueArgs are the arguments of the epilogue after the
	// accumulators: the epilogue inputs' elements at the current point.
	var epilogueArgs []string
	for i, o := range k.EpilogueInputs {
		off, err := offset(find("epilogue", i))
		if err != nil {
			return 0, 0, ir.OpErrorf(fn, "%v", err)
		}
		epilogueArgs = append(epilogueArgs, loadValue(g.helpers, o.Type.Elem, fmt.Sprintf("epilogue%d[%s]", i, off)))
	}
	pars := k.Parallel()
	// store writes the statements that store the finished accumulators
	// (C expressions) at the current point: through the epilogue when the
	// kernel has one.
	store := func(indent string, offs []string, accs []string) {
		if ename == "" {
			for i, o := range k.Outputs {
				fmt.Fprintf(w, "%sout%d[%s] = %s;\n", indent, i, offs[i], storeValue(g.helpers, o.Type.Elem, accs[i]))
			}
			return
		}
		var args []string
		for _, p := range pars {
			args = append(args, dims[p])
		}
		args = append(append(args, accs...), epilogueArgs...)
		fmt.Fprintf(w, "%s{\n", indent)
		for i, o := range k.Outputs {
			ct, _ := cType(o.Type.Elem)
			fmt.Fprintf(w, "%s  %s gi_r%d;\n", indent, ct, i)
			args = append(args, "&gi_r"+strconv.Itoa(i))
		}
		fmt.Fprintf(w, "%s  %s(%s);\n", indent, ename, strings.Join(args, ", "))
		for i, o := range k.Outputs {
			fmt.Fprintf(w, "%s  out%d[%s] = %s;\n", indent, i, offs[i], storeValue(g.helpers, o.Type.Elem, "gi_r"+strconv.Itoa(i)))
		}
		fmt.Fprintf(w, "%s}\n", indent)
	}
	if m, ok := matchMatmul(k, body); ok {
		if ename != "" {
			off, err := offset(find("out", 0))
			if err != nil {
				return 0, 0, ir.OpErrorf(fn, "%v", err)
			}
			g.matmulTile(k, m, cname, ename, bindings, strides, epilogueArgs, off)
		}
		g.matmulNest(w, k, m, find, strides, ranges, cname, ename != "")
		g.localPages[cname] = matmulLocalPages
		if k.Outputs[0].Acc != nil {
			g.localPages[cname] = matmulAccPages
		}
		return nc, len(bindings), nil
	}
	outer := k.OuterParallel()
	if outer >= 0 {
		fmt.Fprintf(w, "  const int64_t gi_lo = (int64_t)ws->workgroup_id_x * %dLL;\n", k.Tile)
		fmt.Fprintf(w, "  const int64_t gi_hi = gi_lo + %dLL < %s ? gi_lo + %dLL : %s;\n", k.Tile, ranges[outer], k.Tile, ranges[outer])
	} else {
		w.WriteString("  if (ws->workgroup_id_x != 0) return 0;\n")
	}
	indent := "  "
	open := func(i int) {
		if i == outer {
			fmt.Fprintf(w, "%sfor (int64_t d%d = gi_lo; d%d < gi_hi; ++d%d) {\n", indent, i, i, i)
		} else {
			fmt.Fprintf(w, "%sfor (int64_t d%d = 0; d%d < %s; ++d%d) {\n", indent, i, i, ranges[i], i)
		}
		indent += "  "
	}
	closeLoop := func() {
		indent = indent[2:]
		fmt.Fprintf(w, "%s}\n", indent)
	}
	reds := reductions(k)
	offs := make([]string, no)
	for i := range k.Outputs {
		off, err := offset(find("out", i))
		if err != nil {
			return 0, 0, ir.OpErrorf(fn, "%v", err)
		}
		offs[i] = off
	}
	args := append([]string(nil), dims...)
	for i := range k.Inputs {
		if n, ok := scalars[i]; ok {
			args = append(args, n)
			continue
		}
		if k.Inputs[i].Indexed {
			args = append(args, fmt.Sprintf("in%d", i))
			continue
		}
		off, err := offset(find("in", i))
		if err != nil {
			return 0, 0, ir.OpErrorf(fn, "%v", err)
		}
		args = append(args, loadValue(g.helpers, k.Inputs[i].Type.Elem, fmt.Sprintf("in%d[%s]", i, off)))
	}
	for i := range k.Outputs {
		args = append(args, "acc"+strconv.Itoa(i))
	}
	for i := range k.Outputs {
		args = append(args, "&acc"+strconv.Itoa(i))
	}
	call := fmt.Sprintf("%s(%s);", bname, strings.Join(args, ", "))
	initAcc := func(i int, o loopnest.Operand) string {
		ct, _ := cType(o.AccElem())
		if o.Init {
			// The init has the output's shape and map, so the same offset.
			return loadValue(g.helpers, o.AccElem(), fmt.Sprintf("init%d[%s]", i, offs[i]))
		}
		return "(" + ct + ")0"
	}
	accs := make([]string, no)
	for i := range accs {
		accs[i] = "acc" + strconv.Itoa(i)
	}
	// Loop order. By default the parallel loops are outside the reduction
	// loops and each output element accumulates in a local. When the last
	// parallel loop is the contiguous index of more operands than the
	// innermost reduction loop (a matmul's j against its k, a row
	// reduction's output and broadcast operands against its input), it
	// goes innermost instead and the outputs accumulate in place: each
	// output element still sees its reduction in order, and the inner loop
	// has no carried dependence, which clang vectorizes (across rows, for
	// a row reduction: measured faster than a row at a time).
	interchange := false
	if len(reds) > 0 && len(pars) > 0 {
		q, r := pars[len(pars)-1], reds[len(reds)-1]
		unit := func(l int) int {
			n := 0
			for _, b := range bindings {
				if m := b.Map.Results; len(m) > 0 && m[len(m)-1].Kind == ir.AffineDim && m[len(m)-1].Pos == l {
					n++
				}
			}
			return n
		}
		interchange = unit(q) > unit(r)
		// A reduction the contract lets us pair up, over operands none of
		// which the reduction loop walks with a stride (a row reduction),
		// stays row-wise and is reduced pairwise.
		if split != nil && split.assoc {
			strided := false
			for _, b := range bindings {
				m := b.Map.Results
				for _, e := range m[:max(len(m)-1, 0)] {
					if lin, ok := loopnest.Linear(e); !ok || lin.Coeffs[r] != 0 {
						strided = true
					}
				}
			}
			if !strided && (k.Ranges[r] == ir.Dynamic || k.Ranges[r] > pairwiseOver) {
				interchange = false
			}
		}
		// Interchanged, the outputs hold the accumulators until the
		// epilogue runs over the finished row; they cannot when the
		// accumulators have another element type.
		for _, o := range k.Outputs {
			interchange = interchange && o.Acc == nil
		}
	}
	if !interchange {
		for _, p := range pars {
			open(p)
		}
		for i, o := range k.Outputs {
			ct, _ := cType(o.AccElem())
			fmt.Fprintf(w, "%s%s acc%d = %s;\n", indent, ct, i, initAcc(i, o))
		}
		if split == nil || len(reds) == 0 {
			for _, r := range reds {
				open(r)
			}
			fmt.Fprintf(w, "%s%s\n", indent, call)
			for range reds {
				closeLoop()
			}
		} else {
			// The innermost reduction in chunks: the accumulator-free part
			// of the body for the whole chunk first (a loop without a
			// carried dependence, which clang vectorizes), then the
			// combiner folds the chunk into the accumulator in order.
			last := reds[len(reds)-1]
			for _, r := range reds[:len(reds)-1] {
				open(r)
			}
			chunkedReduction(w, indent, split, call, bname, ranges[last], last, k.Outputs[0].AccElem())
			for range reds[:len(reds)-1] {
				closeLoop()
			}
		}
		store(indent, offs, accs)
	} else {
		q := pars[len(pars)-1]
		for _, p := range pars[:len(pars)-1] {
			open(p)
		}
		open(q)
		for i, o := range k.Outputs {
			fmt.Fprintf(w, "%sout%d[%s] = %s;\n", indent, i, offs[i], storeValue(g.helpers, o.Type.Elem, initAcc(i, o)))
		}
		closeLoop()
		for _, r := range reds {
			open(r)
		}
		open(q)
		for i, o := range k.Outputs {
			ct, _ := cType(o.Type.Elem)
			fmt.Fprintf(w, "%s%s acc%d = %s;\n", indent, ct, i, loadValue(g.helpers, o.Type.Elem, fmt.Sprintf("out%d[%s]", i, offs[i])))
		}
		fmt.Fprintf(w, "%s%s\n", indent, call)
		for i, o := range k.Outputs {
			fmt.Fprintf(w, "%sout%d[%s] = %s;\n", indent, i, offs[i], storeValue(g.helpers, o.Type.Elem, "acc"+strconv.Itoa(i)))
		}
		if ename != "" {
			// The row of q is finished (and in cache): the epilogue
			// replaces each accumulator by the value it stores.
			closeLoop()
			for range reds {
				closeLoop()
			}
			open(q)
			for i, o := range k.Outputs {
				ct, _ := cType(o.Type.Elem)
				fmt.Fprintf(w, "%sconst %s acc%d = %s;\n", indent, ct, i, loadValue(g.helpers, o.Type.Elem, fmt.Sprintf("out%d[%s]", i, offs[i])))
			}
			store(indent, offs, accs)
		}
	}
	for indent != "  " {
		closeLoop()
	}
	w.WriteString("  return 0;\n}\n\n")
	return nc, len(bindings), nil
}

// bodyFunc emits the kernel's body function once and returns it with its
// C name, after checking its signature against the contract: the loop
// indices, the inputs and the accumulators, returning the accumulators.
// what starts the error messages ("loop-nest ", "stage 1: ").
func (g *cgen) bodyFunc(fn *ir.Operation, k *loopnest.Kernel, what string) (*ir.Operation, string, error) {
	body := g.funcs[k.Body]
	if body == nil || body.Body() == nil {
		return nil, "", ir.OpErrorf(fn, "%sbody @%s is not defined in the module", what, k.Body)
	}
	ft := function.Type(body)
	nl, ni, no := len(k.Ranges), len(k.Inputs), len(k.Outputs)
	if ft == nil || len(ft.Inputs) != nl+ni+no || len(ft.Results) != no {
		return nil, "", ir.OpErrorf(body, "%sbody must take %d indices, %d inputs and %d accumulators and return %d values", what, nl, ni, no, no)
	}
	bname := "gi_body_" + sanitize(k.Body)
	if !g.staticFn[bname] {
		g.staticFn[bname] = true
		if err := g.scalarFunc(body, bname, ft); err != nil {
			return nil, "", err
		}
	}
	return body, bname, nil
}

// chunkedReduction writes the innermost reduction loop, d<last> over
// [0, rng), of a split reduction body into the accumulator acc0 (of C
// type ct): in chunks, the accumulator-free part of the body for the
// whole chunk first (a loop without a carried dependence, which clang
// vectorizes), then the combiner folds the chunk into the accumulator, in
// order or, when the combiner allows it and the reduction is long or
// accumulates in a half type, pairwise. call is the body's call statement
// at the current point, with &acc0 its last argument; acc is the
// accumulator's element type.
func chunkedReduction(w *strings.Builder, indent string, split *splitBody, call, bname, rng string, last int, acc ir.Type) {
	ct, _ := cType(acc)
	if split.assoc {
		// Reductions longer than pairwiseOver steps go pairwise; shorter
		// ones keep their order (bit-identical to in-order results, which
		// IREE's own tests expect of short rows). A half accumulator
		// rounds to 11 bits (bf16: 8) at every step, so in order its error
		// grows with the row (0.5% over a 300-element f16 softmax row): it
		// always goes pairwise.
		fmt.Fprintf(w, "%s%s gi_lv[64];\n", indent, ct)
		if halfKind(acc) != "" {
			fmt.Fprintf(w, "%sconst int gi_pair = 1;\n", indent)
		} else {
			fmt.Fprintf(w, "%sconst int gi_pair = %s > %d;\n", indent, rng, pairwiseOver)
		}
	}
	fmt.Fprintf(w, "%sfor (int64_t gi_kb = 0; gi_kb < %s; gi_kb += %d) {\n", indent, rng, reductionChunk)
	fmt.Fprintf(w, "%s  const int64_t gi_kn = %s - gi_kb < %d ? %s - gi_kb : %d;\n", indent, rng, reductionChunk, rng, reductionChunk)
	fmt.Fprintf(w, "%s  %s gi_v[%d];\n", indent, ct, reductionChunk)
	fmt.Fprintf(w, "%s  for (int64_t gi_t = 0; gi_t < gi_kn; ++gi_t) {\n", indent)
	fmt.Fprintf(w, "%s    const int64_t d%d = gi_kb + gi_t;\n", indent, last)
	fmt.Fprintf(w, "%s    %s\n", indent, strings.Replace(strings.Replace(call, bname+"(", split.pre+"(", 1), "&acc0)", "&gi_v[gi_t])", 1))
	fmt.Fprintf(w, "%s  }\n", indent)
	if !split.assoc {
		fmt.Fprintf(w, "%s  for (int64_t gi_t = 0; gi_t < gi_kn; ++gi_t) %s(acc0, gi_v[gi_t], &acc0);\n", indent, split.combine)
		fmt.Fprintf(w, "%s}\n", indent)
	} else {
		// Pairwise: a tree over the chunk, then the chunk sums in a
		// binary counter (level l holds the sum of 2^l chunks), folded at
		// the end. Rounding errors grow with log n rather than n (IREE's
		// vectorized reductions reassociate too; its tests expect that
		// accuracy). Each tree level pairs the first half with the second
		// (unit stride, so it vectorizes); an odd middle element waits
		// for the next level.
		fmt.Fprintf(w, "%s  if (!gi_pair) {\n", indent)
		fmt.Fprintf(w, "%s    for (int64_t gi_t = 0; gi_t < gi_kn; ++gi_t) %s(acc0, gi_v[gi_t], &acc0);\n", indent, split.combine)
		fmt.Fprintf(w, "%s    continue;\n%s  }\n", indent, indent)
		fmt.Fprintf(w, "%s  for (int64_t gi_m = gi_kn; gi_m > 1;) {\n", indent)
		fmt.Fprintf(w, "%s    const int64_t gi_h = gi_m / 2, gi_u = gi_m - gi_h;\n", indent)
		fmt.Fprintf(w, "%s    for (int64_t gi_t = 0; gi_t < gi_h; ++gi_t) %s(gi_v[gi_t], gi_v[gi_t + gi_u], &gi_v[gi_t]);\n", indent, split.combine)
		fmt.Fprintf(w, "%s    gi_m = gi_u;\n%s  }\n", indent, indent)
		fmt.Fprintf(w, "%s  %s gi_c = gi_v[0];\n", indent, ct)
		fmt.Fprintf(w, "%s  const int64_t gi_n = gi_kb / %d;\n", indent, reductionChunk)
		fmt.Fprintf(w, "%s  int gi_l = 0;\n", indent)
		fmt.Fprintf(w, "%s  for (; (gi_n >> gi_l) & 1; gi_l++) %s(gi_lv[gi_l], gi_c, &gi_c);\n", indent, split.combine)
		fmt.Fprintf(w, "%s  gi_lv[gi_l] = gi_c;\n", indent)
		fmt.Fprintf(w, "%s}\n", indent)
		fmt.Fprintf(w, "%sif (gi_pair) {\n", indent)
		fmt.Fprintf(w, "%s  const int64_t gi_chunks = (%s + %d) / %d;\n", indent, rng, reductionChunk-1, reductionChunk)
		fmt.Fprintf(w, "%s  int gi_have = 0;\n%s  %s gi_total = 0;\n", indent, indent, ct)
		fmt.Fprintf(w, "%s  for (int gi_l = 0; gi_l < 63; gi_l++) {\n", indent)
		fmt.Fprintf(w, "%s    if (!((gi_chunks >> gi_l) & 1)) continue;\n", indent)
		fmt.Fprintf(w, "%s    if (gi_have) %s(gi_lv[gi_l], gi_total, &gi_total); else gi_total = gi_lv[gi_l];\n", indent, split.combine)
		fmt.Fprintf(w, "%s    gi_have = 1;\n%s  }\n", indent, indent)
		fmt.Fprintf(w, "%s  if (gi_have) %s(acc0, gi_total, &acc0);\n", indent, split.combine)
		fmt.Fprintf(w, "%s}\n", indent)
	}
}

// elemSize is the byte size of a scalar element type in a buffer.
func elemSize(t ir.Type) int {
	switch t := t.(type) {
	case ir.FloatType:
		switch t.Name {
		case "f16", "bf16":
			return 2
		case "f64":
			return 8
		}
		return 4
	case ir.IntegerType:
		if t.Width <= 8 {
			return 1
		}
		return t.Width / 8
	case ir.IndexType:
		return 8
	}
	return 0
}

// pairwiseOver is the reduction length above which an associative
// reduction is reduced pairwise.
const pairwiseOver = 1024

// reductionChunk is the reduction steps whose accumulator-free part a
// split reduction computes at once.
const reductionChunk = 256

// splitBody names the two C functions of a reduction body split at its
// combiner: pre computes the value folded in (same parameters as the
// body, the accumulator unused), combine folds it: acc = combine(acc, v).
type splitBody struct {
	pre, combine string
	// assoc is set when the combiner is associative and commutative, so
	// the contract lets the chunk be reduced pairwise.
	assoc bool
}

// assocCombiners are the combiners a reduction may reassociate (the
// kernel contract): float results then differ by rounding only.
var assocCombiners = map[string]bool{
	"arith.addf": true, "arith.mulf": true, "arith.maximumf": true, "arith.minimumf": true,
	"arith.maxnumf": true, "arith.minnumf": true, "arith.addi": true, "arith.muli": true,
	"arith.andi": true, "arith.ori": true, "arith.xori": true, "arith.maxsi": true,
	"arith.minsi": true, "arith.maxui": true, "arith.minui": true,
}

// splitReduction splits a one-output reduction body whose accumulator is
// used once, by a binary op whose result the body returns (acc + f(x),
// max(acc, f(x))), when f(x) is more than an input: computing f over a
// chunk first keeps each output's reduction order and lets clang
// vectorize f. It returns nil when the body has another shape.
func (g *cgen) splitReduction(k *loopnest.Kernel, body *ir.Operation, bname string) (*splitBody, error) {
	if len(k.Outputs) != 1 || len(reductions(k)) == 0 || k.FirstIndexed() >= 0 {
		return nil, nil
	}
	b := body.Body()
	acc := b.Args[len(k.Ranges)+len(k.Inputs)]
	var comb, ret *ir.Operation
	uses := 0
	for _, o := range b.Ops {
		for _, v := range o.Operands {
			if v == acc {
				uses++
				comb = o
			}
		}
		if o.Name == "func.return" {
			ret = o
		}
	}
	if uses != 1 || ret == nil || len(ret.Operands) != 1 || len(comb.Operands) != 2 || len(comb.Results) != 1 ||
		ret.Operands[0] != comb.Results[0] || comb.Name == "func.return" || len(comb.Regions) > 0 {
		return nil, nil
	}
	v := comb.Operands[0]
	if v == acc {
		v = comb.Operands[1]
	}
	assoc := assocCombiners[comb.Name] && len(comb.Attrs) == 0
	if v == acc || !ir.TypesEqual(v.Type, acc.Type) || v.Op == nil && !assoc {
		return nil, nil // f(x) is an argument: nothing to vectorize or pair
	}
	for _, o := range b.Ops {
		if o != comb && o != ret {
			for _, x := range o.Operands {
				if x == comb.Results[0] {
					return nil, nil
				}
			}
		}
	}
	sp := &splitBody{pre: bname + "_pre", combine: bname + "_combine", assoc: assoc}
	if g.staticFn[sp.pre] {
		return sp, nil
	}
	g.staticFn[sp.pre] = true
	// pre: the body returning v.
	mapping := map[*ir.Value]*ir.Value{}
	pre := ir.Clone(body, mapping)
	pb := pre.Body()
	var drop []*ir.Operation
	for _, o := range pb.Ops {
		switch o.Name {
		case "func.return":
			o.Operands[0] = mapping[v]
		}
		if len(o.Results) == 1 && o.Results[0] == mapping[comb.Results[0]] {
			drop = append(drop, o)
		}
	}
	for _, o := range drop {
		o.Remove()
	}
	if err := g.scalarFunc(pre, sp.pre, function.Type(body)); err != nil {
		return nil, err
	}
	// combine: (acc, v) -> acc with the combiner alone.
	ft := &ir.FunctionType{Inputs: []ir.Type{acc.Type, acc.Type}, Results: []ir.Type{acc.Type}}
	cf := ir.NewOp("func.func", nil, nil, []ir.NamedAttr{
		{Name: "sym_name", Value: ir.StringAttr{Value: sp.combine}},
		{Name: "function_type", Value: ir.TypeAttr{Type: ft}},
	})
	cb := cf.AddRegion().AddBlock(acc.Type, acc.Type)
	c := ir.Clone(comb, map[*ir.Value]*ir.Value{acc: cb.Args[0], v: cb.Args[1]})
	cb.Append(c)
	cb.Append(ir.NewOp("func.return", []*ir.Value{c.Results[0]}, nil, nil))
	if err := g.scalarFunc(cf, sp.combine, ft); err != nil {
		return nil, err
	}
	return sp, nil
}

// epilogueFunc emits the kernel's epilogue function, if it has one, and
// returns its C name ("" without). Its signature must be the contract's:
// the parallel indices, the accumulators and the epilogue inputs'
// elements, returning the stored values.
func (g *cgen) epilogueFunc(fn *ir.Operation, k *loopnest.Kernel) (string, error) {
	if k.Epilogue == "" {
		return "", nil
	}
	epi := g.funcs[k.Epilogue]
	if epi == nil || epi.Body() == nil {
		return "", ir.OpErrorf(fn, "loop-nest epilogue @%s is not defined in the module", k.Epilogue)
	}
	want := &ir.FunctionType{}
	for range k.Parallel() {
		want.Inputs = append(want.Inputs, ir.IndexType{})
	}
	for _, o := range k.Outputs {
		want.Inputs = append(want.Inputs, o.AccElem())
		want.Results = append(want.Results, o.Type.Elem)
	}
	for _, o := range k.EpilogueInputs {
		want.Inputs = append(want.Inputs, o.Type.Elem)
	}
	ft := function.Type(epi)
	if ft == nil || !ir.TypesEqual(ft, want) {
		return "", ir.OpErrorf(epi, "loop-nest epilogue must have type %s (parallel indices, accumulators, epilogue input elements -> stored values)", ir.TypeString(want))
	}
	ename := "gi_epilogue_" + sanitize(k.Epilogue)
	if !g.staticFn[ename] {
		g.staticFn[ename] = true
		if err := g.scalarFunc(epi, ename, ft); err != nil {
			return "", err
		}
	}
	return ename, nil
}

func reductions(k *loopnest.Kernel) []int {
	var out []int
	for l, it := range k.Iterators {
		if it == "reduction" {
			out = append(out, l)
		}
	}
	return out
}
