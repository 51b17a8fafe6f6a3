package vulkan

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// matmulOf recognizes a matmul-shaped kernel whose operands are held one
// element per buffer element, with values of at most 32 bits (the shared
// tiles are 32-bit vec4s), and picks its layout for the device, or
// returns nil: 256 invocations in 128 x 128 blocks (cuda's) where the
// device runs that many with their tiles' shared memory, else 128 in
// 128 x 64 blocks, which every Vulkan device runs (gpuloops.MatmulThreads).
// An f16 matmul with body on a device with cooperative matrices uses them
// (coopOf), of workgroup scope where opts allow and its blocks are all
// whole (wholeBlocks); body may be nil where only the layout matters. The
// device is opts.Device.
func matmulOf(k *loopnest.Kernel, body *ir.Operation, opts GLSLOptions) *matmulShape {
	dev := opts.Device
	m := gpuloops.MatmulOf(k)
	if m == nil || k.FirstIndexed() >= 0 {
		return nil
	}
	for _, o := range []loopnest.Operand{k.Inputs[0], k.Inputs[1], k.Outputs[0]} {
		if kind, err := loopNestKind(o.Type.Elem); err != nil || kind.perWord != 1 || kind.bits > 32 {
			return nil
		}
	}
	if dev.MaxInvocations == 0 {
		dev = Portable
	}
	// The tiles hold 4-byte elements.
	shared := gpuloops.MatmulShared(dev.MaxSharedBytes / 4)
	threads := gpuloops.MatmulThreads(min(dev.MaxInvocations, dev.MaxWorkgroupSize[0]), shared)
	mm := &matmulShape{Matmul: m, Layout: m.Layout(k, threads, shared)}
	mm.coop = mm.TM() == coopBlock && mm.TN() == coopBlock && coopOf(k, body, dev)
	mm.whole = wholeBlocks(k, mm, opts)
	return mm
}

// splitOf is vulkan-spirv's target.Target.LoopNestSplit: a tiled
// matmul's tile is shared by its column groups, whose blocks are as wide
// as the layout for the device t describes makes them; any other
// kernel's tile has one workgroup. A target whose description is
// malformed gets the portable layout here; building its variant reports
// the error.
func splitOf(t *hal.ExecutableTargetAttr, d *ir.DictAttr) int64 {
	k, err := loopnest.Decode(d)
	if err != nil {
		return 1
	}
	dev, err := DeviceOf(t)
	if err != nil {
		dev = Portable
	}
	if m := matmulOf(k, nil, GLSLOptions{Device: dev}); m != nil {
		l := m.Layout
		if m.TM() == coopBlock && m.TN() == coopBlock && coopShaped(k, dev) {
			// Cooperative-matrix blocks are coopBlockN wide (a body
			// other than the multiply-add, which the split cannot see,
			// runs in the tiled kernel, each workgroup taking two of
			// its column blocks).
			l.RN = coopBlockN / l.TC
		}
		return m.ColumnGroups(k, l)
	}
	return 1
}

// localSize is the workgroup size of the shader g writes: its
// cooperative-matrix or tiled matmul's invocations, or
// LoopNestWorkgroupSize.
func (g *lnGen) localSize() int {
	if g.mm != nil && g.mm.coop {
		return coopThreads
	}
	if g.mm != nil {
		return g.mm.Threads()
	}
	return LoopNestWorkgroupSize
}

// tiledMatmul writes the body of main for a matmul-shaped kernel (after
// the tile's bounds): the workgroup walks its tile in blocks of TM x TN
// outputs, taking every gl_NumWorkGroups.z-th block of columns from its
// gl_WorkGroupID.z-th (see splitOf). The reduction goes in TK-long steps
// through two pairs of shared tiles, A (transposed) and B: while the
// invocations compute a step from one pair, they read the next step's
// elements from global memory (in runs of 4 consecutive ones) and then
// write them to the other pair, with one barrier a step. Every invocation
// reads its runs of rows and columns of a step as vec4s and advances its
// RM x RN accumulators, held in variables, by the step in order (the body
// runs once per output element and step, as in the sequential kernel).
// The whole steps run with no bounds checks but the block's rows and
// columns; the last, shorter one checks the reduction index too. Rows and
// columns past the matrix read zeros and are never stored.
func (g *lnGen) tiledMatmul(m *matmulShape) error {
	if m.coop {
		return g.coopMatmul(m)
	}
	w := &g.w
	k := g.k
	l := m.Layout
	ia, ib, io := g.find("in", 0), g.find("in", 1), g.find("out", 0)
	ka, kb, ko := g.kinds[ia], g.kinds[ib], g.kinds[io]
	tm, tn, tk, pa := l.TM(), l.TN(), l.TK, l.APitch()
	vm, vn := l.VM(), l.VN()
	threads := l.Threads()
	I, J, R := m.I, m.J, m.R
	K, N := g.ranges[R], g.ranges[J]
	last := func(bi int) string { return g.sizes[bi][len(g.sizes[bi])-1] }
	outer := k.OuterParallel()
	rowLo, rowHi := "0u", g.ranges[I]
	var nb string
	if outer == I {
		rowLo, rowHi, nb = "lo", "hi", "1u"
	} else {
		nb = "(hi - lo)"
		for _, b := range m.Batch[1:] {
			nb = fmt.Sprintf("mulSat(%s, %s)", nb, g.ranges[b])
		}
	}
	fmt.Fprintf(w, "  // Tiled matmul: blocks of %dx%d outputs, %dx%d invocations with %dx%d accumulators each (in runs of %dx%d),\n", tm, tn, l.TR, l.TC, l.RM, l.RN, vm, vn)
	fmt.Fprintf(w, "  // steps of %d along the reduction; two pairs of shared tiles, A %dx%d (transposed, pitch %d) and B %dx%d.\n", tk, tk, tm, pa, tk, tn)
	fmt.Fprintf(w, "  uint lid = gl_LocalInvocationID.x;\n  uint tr = lid / %du;\n  uint tc = lid %% %du;\n", l.TC, l.TC)
	fmt.Fprintf(w, "  for (uint bt = 0u; bt < %s; bt++) {\n", nb)
	if len(m.Batch) > 0 {
		w.WriteString("    uint rest = bt;\n")
		for n := len(m.Batch) - 1; n >= 1; n-- {
			b := m.Batch[n]
			fmt.Fprintf(w, "    uint d%d = rest %% %s;\n    rest /= %s;\n", b, g.ranges[b], g.ranges[b])
		}
		fmt.Fprintf(w, "    uint d%d = lo + rest;\n", m.Batch[0])
	}
	// The offsets of the batch's matrices: element (i, j) of one is at
	// its base + i * (its row length) + j.
	bases := []int{ia, ib, io}
	names := []string{"aBase", "bBase", "cBase"}
	iinit := -1
	if k.Outputs[0].Init {
		iinit = g.find("init", 0)
		bases = append(bases, iinit)
		names = append(names, "iBase")
	}
	fmt.Fprintf(w, "    uint %s;\n    {\n      uint d%d = 0u;\n      uint d%d = 0u;\n      uint d%d = 0u;\n", strings.Join(names, ", "), I, J, R)
	for n, bi := range bases {
		off, err := g.offset(bi)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "      %s = %s;\n", names[n], off)
	}
	w.WriteString("    }\n")
	fmt.Fprintf(w, "    for (uint r0 = %s; r0 < %s; r0 += %du) {\n", rowLo, rowHi, tm)
	fmt.Fprintf(w, "    for (uint c0 = gl_WorkGroupID.z * %du; c0 < %s; c0 += gl_NumWorkGroups.z * %du) {\n", tn, N, tn)
	fmt.Fprintf(w, "      uint rm0 = r0 + tr * %du;\n      uint cn0 = c0 + tc * %du;\n", vm, vn)
	acc := func(a, b int) string { return fmt.Sprintf("acc%d_%d", a, b) }
	for a := 0; a < l.RM; a++ {
		for b := 0; b < l.RN; b++ {
			fmt.Fprintf(w, "      %s %s = %s;\n", ko.value, acc(a, b), zero(ko))
		}
	}
	if iinit >= 0 {
		for a := 0; a < l.RM; a++ {
			fmt.Fprintf(w, "      if (rm0 + %du < %s) {\n", l.RowOf(a), rowHi)
			for b := 0; b < l.RN; b++ {
				col := fmt.Sprintf("cn0 + %du", l.ColOf(b))
				fmt.Fprintf(w, "        if (%s < %s) {\n          %s = %s;\n        }\n", col, N, acc(a, b), g.load(iinit, fmt.Sprintf("iBase + (rm0 + %du) * %s + %s", l.RowOf(a), last(iinit), col)))
			}
			w.WriteString("      }\n")
		}
	}
	// The copies: invocation lid copies runs number lid, lid + threads,
	// ... of each tile, through the variables ga<it>_<j> and gb<it>_<j>.
	ga := min(4, tk)
	groupsA, groupsB := tm*tk/ga, tk*tn/4
	for it := 0; it*threads < groupsA; it++ {
		for j := 0; j < ga; j++ {
			fmt.Fprintf(w, "      %s ga%d_%d;\n", ka.value, it, j)
		}
	}
	for it := 0; it*threads < groupsB; it++ {
		for j := 0; j < 4; j++ {
			fmt.Fprintf(w, "      %s gb%d_%d;\n", kb.value, it, j)
		}
	}
	// each writes, for every run this invocation copies of a tile of
	// groups runs, the run's index e (and whether it is one) around
	// what fn writes.
	each := func(ind string, groups int, fn func(ind string, it int)) {
		for it := 0; it*threads < groups; it++ {
			fmt.Fprintf(w, "%s{\n%s  uint e = lid + %du;\n", ind, ind, it*threads)
			in := ind + "  "
			if (it+1)*threads > groups {
				fmt.Fprintf(w, "%sif (e < %du) {\n", in, groups)
				in += "  "
			}
			fn(in, it)
			if (it+1)*threads > groups {
				fmt.Fprintf(w, "%s  }\n", ind)
			}
			fmt.Fprintf(w, "%s}\n", ind)
		}
	}
	// fetch reads the runs of the step at reduction index k into the
	// variables; tail checks the index against the reduction's length.
	fetch := func(ind, k string, tail bool) {
		each(ind, groupsA, func(ind string, it int) {
			fmt.Fprintf(w, "%suint m = e / %du;\n%suint kq = (e %% %du) * %du;\n", ind, tk/ga, ind, tk/ga, ga)
			fmt.Fprintf(w, "%suint row = r0 + m;\n%suint ap = aBase + row * %s + %s + kq;\n", ind, ind, last(ia), k)
			for j := 0; j < ga; j++ {
				fmt.Fprintf(w, "%sga%d_%d = %s;\n", ind, it, j, zero(ka))
			}
			fmt.Fprintf(w, "%sif (row < %s) {\n", ind, rowHi)
			for j := 0; j < ga; j++ {
				ld := fmt.Sprintf("%s  ga%d_%d = %s;\n", ind, it, j, g.load(ia, fmt.Sprintf("ap + %du", j)))
				if tail {
					ld = fmt.Sprintf("%s  if (%s + kq + %du < %s) {\n  %s%s  }\n", ind, k, j, K, ld, ind)
				}
				w.WriteString(ld)
			}
			fmt.Fprintf(w, "%s}\n", ind)
		})
		each(ind, groupsB, func(ind string, it int) {
			fmt.Fprintf(w, "%suint kr = e / %du;\n%suint col = c0 + (e %% %du) * 4u;\n", ind, tn/4, ind, tn/4)
			fmt.Fprintf(w, "%suint bp = bBase + (%s + kr) * %s + col;\n", ind, k, last(ib))
			cond := ""
			if tail {
				cond = fmt.Sprintf("%s + kr < %s && ", k, K)
			}
			for j := 0; j < 4; j++ {
				fmt.Fprintf(w, "%sgb%d_%d = %s;\n", ind, it, j, zero(kb))
				fmt.Fprintf(w, "%sif (%scol + %du < %s) {\n%s  gb%d_%d = %s;\n%s}\n", ind, cond, j, N, ind, it, j, g.load(ib, fmt.Sprintf("bp + %du", j)), ind)
			}
		})
	}
	// put writes the variables into the pair of tiles at buf (0 or 1).
	put := func(ind, buf string) {
		each(ind, groupsA, func(ind string, it int) {
			fmt.Fprintf(w, "%suint s = %s * %du + (e %% %du) * %du * %du + e / %du;\n", ind, buf, l.ATile(), tk/ga, ga, pa, tk/ga)
			for j := 0; j < ga; j++ {
				fmt.Fprintf(w, "%ssa[(s + %du) >> 2][(s + %du) & 3u] = ga%d_%d;\n", ind, j*pa, j*pa, it, j)
			}
		})
		each(ind, groupsB, func(ind string, it int) {
			fmt.Fprintf(w, "%ssb[%s * %du + e] = %s(gb%d_0, gb%d_1, gb%d_2, gb%d_3);\n", ind, buf, l.BTile()/4, vec4Of(kb), it, it, it, it)
		})
	}
	// step advances the accumulators by step kk of the pair of tiles at
	// buf.
	step := func(ind, buf, kk string) {
		w.WriteString(ind + "{\n")
		for gr := 0; gr < l.RM/vm; gr++ {
			if vm == 4 {
				fmt.Fprintf(w, "%s  %s x%d = sa[%s * %du + %s * %du + tr + %du];\n", ind, vec4Of(ka), gr, buf, l.ATile()/4, kk, pa/4, gr*l.TR)
				continue
			}
			for j := 0; j < vm; j++ {
				fmt.Fprintf(w, "%s  uint xs%d = %s * %du + %s * %du + tr * %du + %du;\n", ind, j, buf, l.ATile(), kk, pa, vm, j)
			}
		}
		for gr := 0; gr < l.RN/vn; gr++ {
			fmt.Fprintf(w, "%s  %s y%d = sb[%s * %du + %s * %du + tc + %du];\n", ind, vec4Of(kb), gr, buf, l.BTile()/4, kk, tn/4, gr*l.TC)
		}
		x := func(a int) string {
			if vm == 4 {
				return fmt.Sprintf("x%d[%d]", a/4, a%4)
			}
			return fmt.Sprintf("sa[xs%d >> 2][xs%d & 3u]", a, a)
		}
		for a := 0; a < l.RM; a++ {
			for b := 0; b < l.RN; b++ {
				var args []string
				for lp := range k.Ranges {
					switch lp {
					case I:
						args = append(args, fmt.Sprintf("int(rm0 + %du)", l.RowOf(a)))
					case J:
						args = append(args, fmt.Sprintf("int(cn0 + %du)", l.ColOf(b)))
					case R:
						args = append(args, fmt.Sprintf("int(k0 + %s)", kk))
					default:
						args = append(args, fmt.Sprintf("int(d%d)", lp))
					}
				}
				fmt.Fprintf(w, "%s  body(%s, %s, y%d[%d], %s, %s);\n", ind, strings.Join(args, ", "), x(a), b/4, b%4, acc(a, b), acc(a, b))
			}
		}
		w.WriteString(ind + "}\n")
	}
	// The first whole step goes into pair 0; each whole step fetches the
	// next whole one before computing and puts it into the other pair
	// after. The loop over a step's reduction indices has a constant
	// count, which the driver unrolls: written out, its 8 x 64 calls of
	// the body take glslc's optimizer seconds.
	fmt.Fprintf(w, "      uint k0 = 0u;\n      uint cur = 0u;\n      if (%s >= %du) {\n", K, tk)
	fetch("        ", "0u", false)
	put("        ", "0u")
	w.WriteString("        barrier();\n      }\n")
	fmt.Fprintf(w, "      for (; %s - k0 >= %du; k0 += %du) {\n", K, tk, tk)
	fmt.Fprintf(w, "        bool more = %s - k0 - %du >= %du;\n        if (more) {\n", K, tk, tk)
	fetch("          ", fmt.Sprintf("(k0 + %du)", tk), false)
	fmt.Fprintf(w, "        }\n        for (uint kk = 0u; kk < %du; kk++) {\n", tk)
	step("          ", "cur", "kk")
	w.WriteString("        }\n        if (more) {\n")
	put("          ", "(1u - cur)")
	w.WriteString("        }\n        barrier();\n        cur = 1u - cur;\n      }\n")
	// The last, shorter step, into the pair the last whole step did not
	// compute from.
	fmt.Fprintf(w, "      if (k0 < %s) {\n", K)
	fetch("        ", "k0", true)
	put("        ", "cur")
	fmt.Fprintf(w, "        barrier();\n        for (uint kk = 0u; kk < %s - k0; kk++) {\n", K)
	step("          ", "cur", "kk")
	w.WriteString("        }\n        barrier();\n      }\n")
	for a := 0; a < l.RM; a++ {
		fmt.Fprintf(w, "      if (rm0 + %du < %s) {\n", l.RowOf(a), rowHi)
		for b := 0; b < l.RN; b++ {
			col := fmt.Sprintf("cn0 + %du", l.ColOf(b))
			fmt.Fprintf(w, "        if (%s < %s) {\n%s        }\n", col, N, g.store("          ", io, fmt.Sprintf("cBase + (rm0 + %du) * %s + %s", l.RowOf(a), last(io), col), acc(a, b)))
		}
		w.WriteString("      }\n")
	}
	w.WriteString("    }\n    }\n  }\n")
	return nil
}

// vec4Of is the 4-vector type of a kind's values.
func vec4Of(k elemKind) string {
	if k.value == "int" {
		return "ivec4"
	}
	return "vec4"
}

// sharedTiles declares the two pairs of shared A and B tiles of a tiled
// matmul, as vectors of 4 elements.
func (g *lnGen) sharedTiles(m *matmulShape) string {
	if m.coop {
		return g.coopSharedTiles(m)
	}
	ka, kb := g.kinds[g.find("in", 0)], g.kinds[g.find("in", 1)]
	return fmt.Sprintf("shared %s sa[%d];\nshared %s sb[%d];\n\n", vec4Of(ka), 2*m.ATile()/4, vec4Of(kb), 2*m.BTile()/4)
}
