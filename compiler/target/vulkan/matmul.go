package vulkan

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// matmulOf recognizes a matmul-shaped kernel whose operands are held one
// element per buffer word and picks its layout, or returns nil.
func matmulOf(k *loopnest.Kernel) *matmulShape {
	m := gpuloops.MatmulOf(k)
	if m == nil {
		return nil
	}
	for _, o := range []loopnest.Operand{k.Inputs[0], k.Inputs[1], k.Outputs[0]} {
		if kind, err := loopNestKind(o.Type.Elem); err != nil || kind.perWord != 1 {
			return nil
		}
	}
	return &matmulShape{Matmul: m, Layout: m.Layout(k, LoopNestWorkgroupSize)}
}

// splitOf is vulkan-spirv's target.Target.LoopNestSplit: a tiled
// matmul's tile is shared by its column groups; any other kernel's tile
// has one workgroup.
func splitOf(d *ir.DictAttr) int64 {
	k, err := loopnest.Decode(d)
	if err != nil {
		return 1
	}
	if m := matmulOf(k); m != nil {
		return m.ColumnGroups(k, m.Layout)
	}
	return 1
}

// tiledMatmul writes the body of main for a matmul-shaped kernel (after
// the tile's bounds): the workgroup walks its tile in blocks of TM x TN
// outputs, taking every gl_NumWorkGroups.z-th block of columns from its
// gl_WorkGroupID.z-th (see splitOf). For each TK-long step of the
// reduction its invocations stage the A tile (transposed) and the B tile
// in shared memory, reading global memory in runs of 4 consecutive
// elements; then every invocation reads its runs of rows and columns as
// vec4s and advances its RM x RN accumulators, held in variables, by the
// step in order (the body runs once per output element and step, as in
// the sequential kernel). The steps of whole tiles run with no bounds
// checks; the last, shorter tile checks them. Rows and columns past the matrix read zeros and are never stored.
func (g *lnGen) tiledMatmul(m *matmulShape) error {
	w := &g.w
	k := g.k
	l := m.Layout
	ia, ib, io := g.find("in", 0), g.find("in", 1), g.find("out", 0)
	ka, kb, ko := g.kinds[ia], g.kinds[ib], g.kinds[io]
	tm, tn, tk, pa := l.TM(), l.TN(), l.TK, l.APitch()
	vm, vn := l.VM(), l.VN()
	const threads = LoopNestWorkgroupSize
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
	fmt.Fprintf(w, "  // steps of %d along the reduction; shared A %dx%d (transposed, pitch %d) and B %dx%d.\n", tk, tk, tm, pa, tk, tn)
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
	// stage writes the copies of one step's tiles into shared memory;
	// tail checks the reduction index too.
	stage := func(tail bool) {
		ga := min(4, tk)
		groups := tm * tk / ga
		for it := 0; it*threads < groups; it++ {
			w.WriteString("        {\n")
			fmt.Fprintf(w, "          uint e = lid + %du;\n", it*threads)
			ind := "          "
			if (it+1)*threads > groups {
				fmt.Fprintf(w, "          if (e < %du) {\n", groups)
				ind += "  "
			}
			fmt.Fprintf(w, "%suint m = e / %du;\n%suint kq = (e %% %du) * %du;\n", ind, tk/ga, ind, tk/ga, ga)
			fmt.Fprintf(w, "%suint row = r0 + m;\n%suint ap = aBase + row * %s + k0 + kq;\n", ind, ind, last(ia))
			for j := 0; j < ga; j++ {
				fmt.Fprintf(w, "%s%s v%d = %s;\n", ind, ka.value, j, zero(ka))
			}
			fmt.Fprintf(w, "%sif (row < %s) {\n", ind, rowHi)
			for j := 0; j < ga; j++ {
				ld := fmt.Sprintf("%s  v%d = %s;\n", ind, j, g.load(ia, fmt.Sprintf("ap + %du", j)))
				if tail {
					ld = fmt.Sprintf("%s  if (k0 + kq + %du < %s) {\n  %s%s  }\n", ind, j, K, ld, ind)
				}
				w.WriteString(ld)
			}
			fmt.Fprintf(w, "%s}\n", ind)
			for j := 0; j < ga; j++ {
				fmt.Fprintf(w, "%s{\n%s  uint s = (kq + %du) * %du + m;\n%s  sa[s >> 2][s & 3u] = v%d;\n%s}\n", ind, ind, j, pa, ind, j, ind)
			}
			if (it+1)*threads > groups {
				w.WriteString("          }\n")
			}
			w.WriteString("        }\n")
		}
		groups = tk * tn / 4
		for it := 0; it*threads < groups; it++ {
			w.WriteString("        {\n")
			fmt.Fprintf(w, "          uint e = lid + %du;\n", it*threads)
			ind := "          "
			if (it+1)*threads > groups {
				fmt.Fprintf(w, "          if (e < %du) {\n", groups)
				ind += "  "
			}
			fmt.Fprintf(w, "%suint kr = e / %du;\n%suint nq = (e %% %du) * 4u;\n", ind, tn/4, ind, tn/4)
			fmt.Fprintf(w, "%suint col = c0 + nq;\n%suint bp = bBase + (k0 + kr) * %s + col;\n", ind, ind, last(ib))
			var vs []string
			for j := 0; j < 4; j++ {
				fmt.Fprintf(w, "%s%s v%d = %s;\n", ind, kb.value, j, zero(kb))
				vs = append(vs, fmt.Sprintf("v%d", j))
			}
			cond := ""
			if tail {
				cond = fmt.Sprintf("k0 + kr < %s && ", K)
			}
			for j := 0; j < 4; j++ {
				fmt.Fprintf(w, "%sif (%scol + %du < %s) {\n%s  v%d = %s;\n%s}\n", ind, cond, j, N, ind, j, g.load(ib, fmt.Sprintf("bp + %du", j)), ind)
			}
			fmt.Fprintf(w, "%ssb[kr * %du + (nq >> 2)] = %s(%s);\n", ind, tn/4, vec4Of(kb), strings.Join(vs, ", "))
			if (it+1)*threads > groups {
				w.WriteString("          }\n")
			}
			w.WriteString("        }\n")
		}
	}
	// step advances the accumulators by step kk of the staged tiles.
	step := func(ind, kk string) {
		w.WriteString(ind + "{\n")
		for gr := 0; gr < l.RM/vm; gr++ {
			if vm == 4 {
				fmt.Fprintf(w, "%s  %s x%d = sa[%s * %du + tr + %du];\n", ind, vec4Of(ka), gr, kk, pa/4, gr*l.TR)
				continue
			}
			for j := 0; j < vm; j++ {
				fmt.Fprintf(w, "%s  uint xs%d = %s * %du + tr * %du + %du;\n", ind, j, kk, pa, vm, j)
			}
		}
		for gr := 0; gr < l.RN/vn; gr++ {
			fmt.Fprintf(w, "%s  %s y%d = sb[%s * %du + tc + %du];\n", ind, vec4Of(kb), gr, kk, tn/4, gr*l.TC)
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
	fmt.Fprintf(w, "      uint k0 = 0u;\n      for (; %s - k0 >= %du; k0 += %du) {\n", K, tk, tk)
	stage(false)
	w.WriteString("        barrier();\n")
	// A loop of a constant count, which the driver unrolls: written out,
	// its 8 x 64 calls of the body take glslc's optimizer seconds.
	fmt.Fprintf(w, "        for (uint kk = 0u; kk < %du; kk++) {\n", tk)
	step("          ", "kk")
	w.WriteString("        }\n        barrier();\n      }\n      if (k0 < " + K + ") {\n")
	stage(true)
	fmt.Fprintf(w, "        barrier();\n        for (uint kk = 0u; kk < %s - k0; kk++) {\n", K)
	step("          ", "kk")
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

// sharedTiles declares the shared A and B tiles of a tiled matmul, as
// vectors of 4 elements.
func (g *lnGen) sharedTiles(m *matmulShape) string {
	ka, kb := g.kinds[g.find("in", 0)], g.kinds[g.find("in", 1)]
	return fmt.Sprintf("shared %s sa[%d];\nshared %s sb[%d];\n\n", vec4Of(ka), m.TK*m.APitch()/4, vec4Of(kb), m.TK*m.TN()/4)
}
