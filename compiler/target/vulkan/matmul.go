package vulkan

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// matmulShape is a loop nest that multiplies matrices: inputs A indexed
// (batch..., i, r) and B indexed (batch..., r, j), output (batch..., i, j),
// with i and j the last two parallel loops, r the only reduction loop and
// the same batch loops leading every map. Its body may be anything: the
// tiled kernel still gives each output element its reduction in order.
type matmulShape struct {
	i, j, r int
	batch   []int
	// Thread layout: tr x tc invocations, each computing rm x rn outputs
	// of a tm x tn block (tm = tr*rm, tn = tc*rn), over tk-long steps of r.
	tr, tc, rm, rn, tk int
}

// matmulOf recognizes a matmul-shaped kernel whose operands are 32-bit
// (unpacked) and picks its thread layout, or returns nil.
func matmulOf(k *loopnest.Kernel) *matmulShape {
	var pars, reds []int
	for l, it := range k.Iterators {
		if it == "parallel" {
			pars = append(pars, l)
		} else {
			reds = append(reds, l)
		}
	}
	if len(reds) != 1 || len(pars) < 2 || len(k.Inputs) != 2 || len(k.Outputs) != 1 || k.Inputs[0].Scalar != nil || k.Inputs[1].Scalar != nil {
		return nil
	}
	m := &matmulShape{i: pars[len(pars)-2], j: pars[len(pars)-1], r: reds[0], batch: pars[:len(pars)-2]}
	want := func(o loopnest.Operand, x, y int) bool {
		res := o.Map.Results
		if len(res) != len(m.batch)+2 {
			return false
		}
		for n, b := range m.batch {
			if res[n].Kind != ir.AffineDim || res[n].Pos != b {
				return false
			}
		}
		last := res[len(res)-2:]
		return last[0].Kind == ir.AffineDim && last[0].Pos == x && last[1].Kind == ir.AffineDim && last[1].Pos == y
	}
	if !want(k.Inputs[0], m.i, m.r) || !want(k.Inputs[1], m.r, m.j) || !want(k.Outputs[0], m.i, m.j) {
		return nil
	}
	for _, o := range []loopnest.Operand{k.Inputs[0], k.Inputs[1], k.Outputs[0]} {
		if kind, err := loopNestKind(o.Type.Elem); err != nil || kind.perWord != 1 {
			return nil
		}
	}
	// Rows a block can cover: the workgroup's tile of the first parallel
	// loop when that is i, else whole matrices of the batch. Blocks are 32
	// rows x 64 columns, 4 x 4 per invocation, when there are that many
	// rows; else as many rows as there are, up to 8, one per invocation
	// row, and wider column blocks.
	rows := k.Tile
	if len(m.batch) > 0 {
		rows = k.Ranges[m.i]
		if rows == ir.Dynamic {
			rows = 32
		}
	}
	if rows >= 32 {
		m.tr, m.tc, m.rm, m.rn, m.tk = 8, 16, 4, 4, 16
		return m
	}
	m.tr, m.rm = 1, 1
	for m.tr*2 <= int(rows) && m.tr < 8 {
		m.tr *= 2
	}
	m.tc = LoopNestWorkgroupSize / m.tr
	m.rn, m.tk = 2, 16
	if m.tc <= 16 {
		m.rn = 4
	}
	if m.tc*m.rn > 128 {
		// Keep the B tile within 8 KiB of the 16 KiB of shared memory
		// every device has.
		m.tk = 8
	}
	return m
}

// tiledMatmul writes the body of main for a matmul-shaped kernel (after
// the tile's bounds): the workgroup walks its tile in blocks of tm x tn
// outputs; for each step of tk along r its invocations stage the A and B
// tiles in shared memory, then every invocation advances its rm x rn
// accumulators, held in registers, by those steps in order.
func (g *lnGen) tiledMatmul(m *matmulShape) error {
	w := &g.w
	k := g.k
	ia, ib, io := g.find("in", 0), g.find("in", 1), g.find("out", 0)
	ka, kb, ko := g.kinds[ia], g.kinds[ib], g.kinds[io]
	tm, tn := m.tr*m.rm, m.tc*m.rn
	outer := k.OuterParallel()
	rowLo, rowHi := "0u", g.ranges[m.i]
	var nb string
	if outer == m.i {
		rowLo, rowHi, nb = "lo", "hi", "1u"
	} else {
		nb = "(hi - lo)"
		for _, b := range m.batch[1:] {
			nb = fmt.Sprintf("mulSat(%s, %s)", nb, g.ranges[b])
		}
	}
	fmt.Fprintf(w, "  uint lid = gl_LocalInvocationID.x;\n  uint tr = lid / %du;\n  uint tc = lid %% %du;\n", m.tc, m.tc)
	fmt.Fprintf(w, "  for (uint bt = 0u; bt < %s; bt++) {\n", nb)
	if len(m.batch) > 0 {
		w.WriteString("    uint rest = bt;\n")
		for n := len(m.batch) - 1; n >= 1; n-- {
			b := m.batch[n]
			fmt.Fprintf(w, "    uint d%d = rest %% %s;\n    rest /= %s;\n", b, g.ranges[b], g.ranges[b])
		}
		fmt.Fprintf(w, "    uint d%d = lo + rest;\n", m.batch[0])
	}
	fmt.Fprintf(w, "    for (uint r0 = %s; r0 < %s; r0 += %du) {\n", rowLo, rowHi, tm)
	fmt.Fprintf(w, "    for (uint c0 = 0u; c0 < %s; c0 += %du) {\n", g.ranges[m.j], tn)
	fmt.Fprintf(w, "      %s acc[%d][%d];\n", ko.value, m.rm, m.rn)
	offO, err := g.offset(io)
	if err != nil {
		return err
	}
	at := func(rm, rn string) string {
		return fmt.Sprintf("uint d%d = r0 + tr + %du * %s;\n        uint d%d = c0 + tc + %du * %s;\n", m.i, m.tr, rm, m.j, m.tc, rn)
	}
	fmt.Fprintf(w, "      for (uint a = 0u; a < %du; a++) {\n      for (uint b = 0u; b < %du; b++) {\n        %s", m.rm, m.rn, at("a", "b"))
	init := zero(ko)
	if k.Outputs[0].Init {
		init = g.load(g.find("init", 0), offO)
	}
	fmt.Fprintf(w, "        acc[a][b] = %s;\n", zero(ko))
	if init != zero(ko) {
		fmt.Fprintf(w, "        if (d%d < %s && d%d < %s) {\n          acc[a][b] = %s;\n        }\n", m.i, rowHi, m.j, g.ranges[m.j], init)
	}
	w.WriteString("      }\n      }\n")
	fmt.Fprintf(w, "      for (uint k0 = 0u; k0 < %s; k0 += %du) {\n", g.ranges[m.r], m.tk)
	offA, err := g.offset(ia)
	if err != nil {
		return err
	}
	offB, err := g.offset(ib)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "        for (uint e = lid; e < %du; e += %du) {\n          uint d%d = r0 + e / %du;\n          uint d%d = k0 + e %% %du;\n", tm*m.tk, LoopNestWorkgroupSize, m.i, m.tk, m.r, m.tk)
	fmt.Fprintf(w, "          sa[e] = %s;\n          if (d%d < %s && d%d < %s) {\n            sa[e] = %s;\n          }\n        }\n", zero(ka), m.i, rowHi, m.r, g.ranges[m.r], g.load(ia, offA))
	fmt.Fprintf(w, "        for (uint e = lid; e < %du; e += %du) {\n          uint d%d = k0 + e / %du;\n          uint d%d = c0 + e %% %du;\n", m.tk*tn, LoopNestWorkgroupSize, m.r, tn, m.j, tn)
	fmt.Fprintf(w, "          sb[e] = %s;\n          if (d%d < %s && d%d < %s) {\n            sb[e] = %s;\n          }\n        }\n", zero(kb), m.r, g.ranges[m.r], m.j, g.ranges[m.j], g.load(ib, offB))
	w.WriteString("        barrier();\n")
	fmt.Fprintf(w, "        uint kn = min(%du, %s - k0);\n", m.tk, g.ranges[m.r])
	w.WriteString("        for (uint kk = 0u; kk < kn; kk++) {\n")
	fmt.Fprintf(w, "          %s x[%d];\n          %s y[%d];\n", ka.value, m.rm, kb.value, m.rn)
	fmt.Fprintf(w, "          for (uint a = 0u; a < %du; a++) {\n            x[a] = sa[(tr + %du * a) * %du + kk];\n          }\n", m.rm, m.tr, m.tk)
	fmt.Fprintf(w, "          for (uint b = 0u; b < %du; b++) {\n            y[b] = sb[kk * %du + tc + %du * b];\n          }\n", m.rn, tn, m.tc)
	var args []string
	for l := range k.Ranges {
		switch l {
		case m.i:
			args = append(args, fmt.Sprintf("int(r0 + tr + %du * a)", m.tr))
		case m.j:
			args = append(args, fmt.Sprintf("int(c0 + tc + %du * b)", m.tc))
		case m.r:
			args = append(args, "int(k0 + kk)")
		default:
			args = append(args, fmt.Sprintf("int(d%d)", l))
		}
	}
	fmt.Fprintf(w, "          for (uint a = 0u; a < %du; a++) {\n          for (uint b = 0u; b < %du; b++) {\n", m.rm, m.rn)
	fmt.Fprintf(w, "            body(%s, x[a], y[b], acc[a][b], acc[a][b]);\n          }\n          }\n        }\n        barrier();\n      }\n", strings.Join(args, ", "))
	fmt.Fprintf(w, "      for (uint a = 0u; a < %du; a++) {\n      for (uint b = 0u; b < %du; b++) {\n        %s", m.rm, m.rn, at("a", "b"))
	fmt.Fprintf(w, "        if (d%d < %s && d%d < %s) {\n%s        }\n      }\n      }\n", m.i, rowHi, m.j, g.ranges[m.j], g.store("          ", io, offO, "acc[a][b]"))
	w.WriteString("    }\n    }\n  }\n")
	return nil
}

// sharedTiles declares the shared A and B tiles of a tiled matmul.
func (g *lnGen) sharedTiles(m *matmulShape) string {
	ka, kb := g.kinds[g.find("in", 0)], g.kinds[g.find("in", 1)]
	return fmt.Sprintf("shared %s sa[%d];\nshared %s sb[%d];\n\n", ka.value, m.tr*m.rm*m.tk, kb.value, m.tk*m.tc*m.rn)
}
