package cuda

import (
	"fmt"
	"maps"
	"slices"

	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// Row groups (loopnest.GroupAttr): a block owns Tile rows, one after
// another, and runs the group's stages on each row in order. A stage's
// per-row result stays in a register of every thread: a per-row stage
// (no loops beyond the rows) is computed by every thread alike; a row
// reduction of gpuloops.ReductionOf's shape is shared by the block as in
// sharedReduction (strided parts, ReductionUnroll loads in flight,
// shfl.sync.bfly within warps, warp totals through shared memory), except
// that every warp reads all the warp totals back and combines them in the
// same order, so every thread holds the row's total without a second
// barrier; any other reduction is run in order by every thread. The last
// stage spreads the row's remaining iterations over the threads,
// ElementwiseUnroll per step with the loads first, as loop nests without
// reductions do. Rows then go through memory once: the stages after the
// first read the row again, from the caches.

// groupStage is one stage of a row group being emitted.
type groupStage struct {
	n     *nest
	links []int
	// rows is the number of row loops.
	rows int
	// local is the register of the stage's result once emitted; kind its
	// kind.
	local string
	kind  ptxKind
	// red is the reduction of a row-reduction stage the block shares
	// (reductionOf), nil for any other stage; cache holds the group
	// bindings whose rows are kept in shared memory, by group binding.
	red   *gpuloops.Reduction
	cache map[int]rowCacheUse
}

// rowCacheUse is a group binding's row kept in shared memory: the
// register with its address, and the stage that reads it from global
// memory (and stores it); later stages read the copy.
type rowCacheUse struct {
	base  string
	first int
}

// rowCacheBytes bounds the shared memory a block keeps rows in (of the
// 48 KiB a block may declare statically), leaving room for the
// reductions' totals.
const rowCacheBytes = 32 << 10

// rowCache is a group binding whose rows rowCaches keeps: its first
// reader and the row's size in bytes.
type rowCache struct {
	first, bytes int
}

// rowCaches chooses the group bindings whose rows a block keeps in
// shared memory while it works on the row: those read by two stages or
// more, each a shared row reduction or the last stage, with one loop
// beyond the rows, all reading the binding by the row loops and that
// loop in order, so that every thread reads the same elements in every
// stage (elements tid, tid + 256, ...: the reductions' and the last
// stage's distribution) and needs no barrier to read back what it
// stored. Later stages then read shared memory instead of the caches, in
// rows of up to rowCacheBytes together.
func rowCaches(grp *loopnest.Group, stages []*groupStage) map[int]rowCache {
	last := len(stages) - 1
	readers := map[int][]int{}
	ok := map[int]bool{}
	inner := map[int]int64{}
	for s, st := range stages {
		k := st.n.k
		for bi, b := range st.n.bindings {
			l := st.links[bi]
			if l < 0 || b.Role != "in" {
				continue
			}
			if _, seen := ok[l]; !seen {
				ok[l] = true
			}
			fits := len(k.Ranges) == grp.Rows+1 && (s == last || st.red != nil) && st.n.kinds[bi] != kindPred && len(b.Map.Results) == grp.Rows+1
			for r, e := range b.Map.Results {
				fits = fits && e.Kind == ir.AffineDim && e.Pos == r
			}
			if n, seen := inner[l]; fits && seen && n != k.Ranges[grp.Rows] {
				fits = false
			}
			if !fits {
				ok[l] = false
				continue
			}
			inner[l] = k.Ranges[grp.Rows]
			if !slices.Contains(readers[l], s) {
				readers[l] = append(readers[l], s)
			}
		}
	}
	out := map[int]rowCache{}
	total := 0
	for l := range len(grp.Bindings()) {
		if !ok[l] || len(readers[l]) < 2 {
			continue
		}
		st := stages[readers[l][0]]
		size := 0
		for bi := range st.n.bindings {
			if st.links[bi] == l {
				size = st.n.kinds[bi].size
			}
		}
		bytes := int(inner[l]) * size
		if total+bytes > rowCacheBytes {
			continue
		}
		total += bytes
		out[l] = rowCache{first: readers[l][0], bytes: bytes}
	}
	return out
}

// loopGroup emits the entry point of a row group. Parameters are the group
// binding pointers and then the 32-bit constants (the stages' scalars).
func (g *ptxgen) loopGroup(ex, fn *ir.Operation, d *ir.DictAttr) (Kernel, error) {
	grp, err := loopnest.DecodeGroup(d)
	if err != nil {
		return Kernel{}, ir.OpErrorf(fn, "%v", err)
	}
	gbs := grp.Bindings()
	gkinds := make([]ptxKind, len(gbs))
	for l, b := range gbs {
		if gkinds[l], err = loopNestKind(b.Type.Elem); err != nil {
			return Kernel{}, ir.OpErrorf(fn, "group binding %d: %v", l, err)
		}
	}
	nc := grp.NumConstants()
	f, name, params, gbases, err := g.entry(ex, "the row group", len(gbs), nc)
	if err != nil {
		return Kernel{}, err
	}
	tid := f.reg("%r")
	f.line("mov.u32 \t%s, %%tid.x;", tid)
	bad := f.reg("%p")
	rows := grp.RowRanges()
	rowDims := make([]string, grp.Rows)
	for r := range rowDims {
		rowDims[r] = f.reg("%rd")
	}
	ci := len(gbs)
	stages := make([]*groupStage, len(grp.Stages))
	for s, k := range grp.Stages {
		st, err := g.groupStage(f, fn, grp, s, k, gbases, gkinds, rowDims, tid, bad, &ci)
		if err != nil {
			return Kernel{}, err
		}
		stages[s] = st
	}
	// Rows kept in shared memory (rowCache), declared once.
	caches := rowCaches(grp, stages)
	for _, l := range slices.Sorted(maps.Keys(caches)) {
		c := caches[l]
		base := stages[c.first].n.shared(fmt.Sprintf("row%d", l), c.bytes)
		for _, st := range stages {
			st.cache[l] = rowCacheUse{base: base, first: c.first}
		}
	}
	// This block's rows.
	cy, nx, cx := f.reg("%r"), f.reg("%r"), f.reg("%r")
	f.line("mov.u32 \t%s, %%ctaid.y;", cy)
	f.line("mov.u32 \t%s, %%nctaid.x;", nx)
	f.line("mov.u32 \t%s, %%ctaid.x;", cx)
	row, hi := f.reg("%rd"), f.reg("%rd")
	f.line("mul.wide.u32 \t%s, %s, %s;", row, cy, nx)
	cx64 := f.reg("%rd")
	f.line("cvt.u64.u32 \t%s, %s;", cx64, cx)
	f.line("add.s64 \t%s, %s, %s;", row, row, cx64)
	f.line("mul.lo.s64 \t%s, %s, %d;", row, row, grp.Tile)
	f.line("add.s64 \t%s, %s, %d;", hi, row, grp.Tile)
	f.line("min.u64 \t%s, %s, %d;", hi, hi, grp.RowCount())
	f.body.WriteString("$L__row:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", bad, row, hi)
	f.line("@%s bra \t$L__exit;", bad)
	rest := f.reg("%rd")
	f.line("mov.u64 \t%s, %s;", rest, row)
	for r := grp.Rows - 1; r >= 1; r-- {
		f.line("rem.u64 \t%s, %s, %d;", rowDims[r], rest, rows[r])
		f.line("div.u64 \t%s, %s, %d;", rest, rest, rows[r])
	}
	f.line("mov.u64 \t%s, %s;", rowDims[0], rest)
	for s, st := range stages {
		var err error
		switch {
		case s == len(stages)-1:
			err = g.lastStage(st, stages, s)
		case len(st.n.k.Ranges) == grp.Rows:
			err = rowStage(st, stages, s)
		default:
			err = reduceStage(st, stages, s)
		}
		if err != nil {
			return Kernel{}, ir.OpErrorf(fn, "stage %d: %v", s, err)
		}
	}
	if grp.Tile > 1 {
		// The next row's reductions reuse the shared totals.
		f.line("bar.sync \t0;")
	}
	f.line("add.s64 \t%s, %s, 1;", row, row)
	f.line("bra.uni \t$L__row;")
	f.body.WriteString("$L__exit:\n\tret;\n")
	f.emit(params, LoopNestBlockSize)
	return Kernel{Name: name, BlockSize: [3]uint32{LoopNestBlockSize, 1, 1}, ConstantCount: nc, BindingCount: len(gbs)}, nil
}

// groupStage prepares the nest of stage s: its bindings address the group
// bindings they link to, or read the register of an earlier stage's
// result; its scalars come from the constants from *ci on.
func (g *ptxgen) groupStage(f *fngen, fn *ir.Operation, grp *loopnest.Group, s int, k *loopnest.Kernel, gbases []string, gkinds []ptxKind, rowDims []string, tid, bad string, ci *int) (*groupStage, error) {
	body := g.funcs[k.Body]
	if body == nil || body.Body() == nil || len(body.Regions[0].Blocks) != 1 {
		return nil, ir.OpErrorf(fn, "stage %d: body @%s is not a single-block function of the module", s, k.Body)
	}
	nl := len(k.Ranges)
	bindings := k.Bindings()
	st := &groupStage{links: grp.Links[s], rows: grp.Rows, cache: map[int]rowCacheUse{}}
	kinds := make([]ptxKind, len(bindings))
	bases := make([]string, len(bindings))
	for bi, b := range bindings {
		kind, err := loopNestKind(b.Type.Elem)
		if err != nil {
			return nil, ir.OpErrorf(fn, "stage %d binding %d: %v", s, bi, err)
		}
		kinds[bi] = kind
		if l := st.links[bi]; l >= 0 {
			bases[bi] = gbases[l]
			if gkinds[l] != kind {
				return nil, ir.OpErrorf(fn, "stage %d binding %d: element type differs from group binding %d", s, bi, l)
			}
		}
	}
	st.kind, _ = loopNestKind(k.Outputs[0].Type.Elem)
	if s < len(grp.Stages)-1 && len(k.Ranges) == grp.Rows+1 {
		st.red = reductionOf(k, body, st.kind)
	}
	scalars := map[int]string{}
	for i, o := range k.Inputs {
		if o.Scalar == nil {
			continue
		}
		sk, err := loopNestKind(o.Scalar)
		if err != nil {
			return nil, ir.OpErrorf(fn, "stage %d scalar input #%d: %v", s, i, err)
		}
		c := f.reg("%r")
		f.line("ld.param.u32 \t%s, [%s_param_%d];", c, f.name, *ci)
		*ci++
		r, ok := f.scalarConstant(sk, c)
		if !ok {
			return nil, ir.OpErrorf(fn, "stage %d scalar input #%d of type %s cannot come from a 32-bit constant", s, i, ir.TypeString(o.Scalar))
		}
		scalars[i] = r
	}
	ranges := make([]string, nl)
	dims := make([]string, nl)
	for l, r := range k.Ranges {
		ranges[l] = f.reg("%rd")
		f.line("mov.u64 \t%s, %d;", ranges[l], r)
		if l < grp.Rows {
			dims[l] = rowDims[l]
		} else {
			dims[l] = f.reg("%rd")
		}
	}
	n := &nest{f: f, k: k, body: body, bindings: bindings, kinds: kinds, bases: bases, ranges: ranges, dims: dims,
		tid: tid, bad: bad, outer: -1, scalars: scalars}
	n.find = func(role string, i int) int { return findBinding(bindings, role, i) }
	// Group shapes are static, so addresses are sums of constant
	// multiples of the loop indices.
	n.addr = func(bi int) (string, error) {
		b := bindings[bi]
		off := f.reg("%rd")
		f.line("mov.u64 \t%s, 0;", off)
		stride := int64(kinds[bi].size)
		for r := len(b.Map.Results) - 1; r >= 0; r-- {
			e := b.Map.Results[r]
			switch e.Kind {
			case ir.AffineDim:
				f.line("mad.lo.s64 \t%s, %s, %d, %s;", off, dims[e.Pos], stride, off)
			case ir.AffineConst:
				f.line("add.s64 \t%s, %s, %d;", off, off, e.Value*stride)
			default:
				lin, ok := loopnest.Linear(e)
				if !ok {
					return "", fmt.Errorf("binding %d: index %d (%s) is not a non-negative combination of loop indices", bi, r, e)
				}
				f.line("add.s64 \t%s, %s, %d;", off, off, lin.Const*stride)
				for _, d := range sortedDims(lin) {
					f.line("mad.lo.s64 \t%s, %s, %d, %s;", off, dims[d], lin.Coeffs[d]*stride, off)
				}
			}
			stride *= b.Type.Shape[r]
		}
		a := f.reg("%rd")
		f.line("add.s64 \t%s, %s, %s;", a, bases[bi], off)
		return a, nil
	}
	n.load = func(bi int, dst string) error {
		if j, ok := loopnest.StageResult(st.links[bi]); ok {
			// An earlier stage's result, indexed by the rows alone.
			f.mov(dst, n.locals[j], kinds[bi])
			return nil
		}
		c, cached := st.cache[st.links[bi]]
		var at string
		if cached {
			// The row's element at the inner index, which this thread
			// stored itself in the stage that read it first.
			at = f.reg("%r")
			i32 := f.reg("%r")
			f.line("cvt.u32.u64 \t%s, %s;", i32, dims[grp.Rows])
			f.line("mad.lo.u32 \t%s, %s, %d, %s;", at, i32, kinds[bi].size, c.base)
			if c.first != s {
				f.line("ld.shared.%s \t%s, [%s];", kinds[bi].mem, dst, at)
				return nil
			}
		}
		a, err := n.addr(bi)
		if err != nil {
			return err
		}
		if cached {
			f.line("ld.global.%s \t%s, [%s];", kinds[bi].mem, dst, a)
			f.line("st.shared.%s \t[%s], %s;", kinds[bi].mem, at, dst)
			return nil
		}
		f.loadGlobal(dst, a, kinds[bi])
		return nil
	}
	n.store = func(bi int, src string) error {
		a, err := n.addr(bi)
		if err != nil {
			return err
		}
		f.storeGlobal(a, src, kinds[bi])
		return nil
	}
	st.n = n
	return st, nil
}

// share gives the nest the registers of the earlier stages' results.
func share(st *groupStage, stages []*groupStage, s int) {
	st.n.locals = make([]string, s)
	for j := 0; j < s; j++ {
		st.n.locals[j] = stages[j].local
	}
}

// rowStage computes a per-row stage in every thread.
func rowStage(st *groupStage, stages []*groupStage, s int) error {
	n := st.n
	share(st, stages, s)
	ins, err := n.inputs()
	if err != nil {
		return err
	}
	acc, err := n.initial(0)
	if err != nil {
		return err
	}
	res, err := n.call(n.dims, ins, []string{acc})
	if err != nil {
		return err
	}
	st.local = n.f.reg(st.kind.reg)
	n.f.mov(st.local, res[0], st.kind)
	return nil
}

// reduceStage computes a row reduction: shared by the block when it has
// gpuloops.ReductionOf's shape, else in order by every thread.
func reduceStage(st *groupStage, stages []*groupStage, s int) error {
	n := st.n
	f := n.f
	share(st, stages, s)
	r := len(n.k.Ranges) - 1
	st.local = f.reg(st.kind.reg)
	red := st.red
	if red == nil {
		acc, err := n.initial(0)
		if err != nil {
			return err
		}
		f.mov(st.local, acc, st.kind)
		loop := fmt.Sprintf("$L__s%d_serial", s)
		f.line("mov.u64 \t%s, 0;", n.dims[r])
		f.body.WriteString(loop + ":\n")
		f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, n.dims[r], n.ranges[r])
		f.line("@%s bra \t%s_end;", n.bad, loop)
		ins, err := n.inputs()
		if err != nil {
			return err
		}
		res, err := n.call(n.dims, ins, []string{st.local})
		if err != nil {
			return err
		}
		f.mov(st.local, res[0], st.kind)
		f.line("add.s64 \t%s, %s, 1;", n.dims[r], n.dims[r])
		f.line("bra.uni \t%s;", loop)
		f.body.WriteString(loop + "_end:\n")
		return nil
	}
	f.g.needISA(60) // shfl.sync
	const warps = LoopNestBlockSize / 32
	kind := st.kind
	pk := kind
	if red.WideParts() {
		pk = kindF32
	}
	lane, warp := f.reg("%r"), f.reg("%r")
	f.line("and.b32 \t%s, %s, 31;", lane, n.tid)
	f.line("shr.u32 \t%s, %s, 5;", warp, n.tid)
	part := n.shared(fmt.Sprintf("part%d", s), warps*pk.size)
	// Lane l reads warp l % warps's total back, so that each group of
	// warps lanes holds all of them.
	myPart, lanePart, which := f.reg("%r"), f.reg("%r"), f.reg("%r")
	f.line("mad.lo.u32 \t%s, %s, %d, %s;", myPart, warp, pk.size, part)
	f.line("and.b32 \t%s, %s, %d;", which, lane, warps-1)
	f.line("mad.lo.u32 \t%s, %s, %d, %s;", lanePart, which, pk.size, part)
	p, err := n.stridedParts(red, kind, pk, n.tid, LoopNestBlockSize, fmt.Sprintf("$L__s%d_", s))
	if err != nil {
		return err
	}
	q := f.reg("%p")
	f.line("setp.eq.u32 \t%s, %s, 0;", q, lane)
	f.line("@%s st.shared.%s \t[%s], %s;", q, pk.mem, myPart, p)
	f.line("bar.sync \t0;")
	// Every group of warps lanes combines the warp totals alike, so
	// every thread ends with the same total.
	total := f.reg(pk.reg)
	f.line("ld.shared.%s \t%s, [%s];", pk.mem, total, lanePart)
	if err := n.butterfly(red, total, pk, warps); err != nil {
		return err
	}
	acc, err := n.initial(0)
	if err != nil {
		return err
	}
	res, err := n.foldTotal(red, total, acc, kind, pk)
	if err != nil {
		return err
	}
	f.mov(st.local, res, kind)
	return nil
}

// lastStage runs the last stage over the row's remaining iterations,
// spread over the block's threads, ElementwiseUnroll at a time with the
// loads first.
func (g *ptxgen) lastStage(st *groupStage, stages []*groupStage, s int) error {
	n := st.n
	f := n.f
	share(st, stages, s)
	rows := st.rows
	inner := int64(1)
	for _, r := range n.k.Ranges[rows:] {
		inner *= r
	}
	i := f.reg("%rd")
	f.line("cvt.u64.u32 \t%s, %s;", i, n.tid)
	// decompose sets the inner loop indices from the row's iteration it
	// (the last loop fastest).
	decompose := func(it string, dims []string) {
		rest := f.reg("%rd")
		f.line("mov.u64 \t%s, %s;", rest, it)
		for l := len(dims) - 1; l > rows; l-- {
			f.line("rem.u64 \t%s, %s, %d;", dims[l], rest, n.k.Ranges[l])
			f.line("div.u64 \t%s, %s, %d;", rest, rest, n.k.Ranges[l])
		}
		if rows < len(dims) {
			f.line("mov.u64 \t%s, %s;", dims[rows], rest)
		}
	}
	step := int64(ElementwiseUnroll * LoopNestBlockSize)
	lim := max(inner-(step-LoopNestBlockSize), 0)
	run := func(js int) error {
		dims := make([][]string, js)
		ins := make([][]string, js)
		accs := make([][]string, js)
		for j := range dims {
			dims[j] = append([]string(nil), n.dims...)
			for l := rows; l < len(dims[j]); l++ {
				dims[j][l] = f.reg("%rd")
			}
			it := i
			if j > 0 {
				it = f.reg("%rd")
				f.line("add.s64 \t%s, %s, %d;", it, i, j*LoopNestBlockSize)
			}
			decompose(it, dims[j])
			copy(n.dims, dims[j])
			var err error
			if ins[j], err = n.inputs(); err != nil {
				return err
			}
			if accs[j], err = n.initials(); err != nil {
				return err
			}
		}
		for j := range dims {
			if err := n.callStore(dims[j], ins[j], accs[j]); err != nil {
				return err
			}
		}
		return nil
	}
	saved := append([]string(nil), n.dims...)
	defer copy(n.dims, saved)
	f.body.WriteString("$L__last_unrolled:\n")
	f.line("setp.ge.u64 \t%s, %s, %d;", n.bad, i, lim)
	f.line("@%s bra \t$L__last_tail;", n.bad)
	if err := run(ElementwiseUnroll); err != nil {
		return err
	}
	f.line("add.s64 \t%s, %s, %d;", i, i, step)
	f.line("bra.uni \t$L__last_unrolled;")
	f.body.WriteString("$L__last_tail:\n")
	f.line("setp.ge.u64 \t%s, %s, %d;", n.bad, i, inner)
	f.line("@%s bra \t$L__last_end;", n.bad)
	if err := run(1); err != nil {
		return err
	}
	f.line("add.s64 \t%s, %s, %d;", i, i, LoopNestBlockSize)
	f.line("bra.uni \t$L__last_tail;")
	f.body.WriteString("$L__last_end:\n")
	return nil
}
