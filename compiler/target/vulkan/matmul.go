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
// the tile's bounds): the workgroup walks its tile in blocks of tm x tn
// outputs, taking every gl_NumWorkGroups.z-th block of columns from its
// gl_WorkGroupID.z-th (see splitOf); for each step of tk along r its
// invocations stage the A and B tiles in shared memory, then every
// invocation advances its rm x rn accumulators, held in registers, by
// those steps in order.
func (g *lnGen) tiledMatmul(m *matmulShape) error {
	w := &g.w
	k := g.k
	ia, ib, io := g.find("in", 0), g.find("in", 1), g.find("out", 0)
	ka, kb, ko := g.kinds[ia], g.kinds[ib], g.kinds[io]
	tm, tn := m.TM(), m.TN()
	outer := k.OuterParallel()
	rowLo, rowHi := "0u", g.ranges[m.I]
	var nb string
	if outer == m.I {
		rowLo, rowHi, nb = "lo", "hi", "1u"
	} else {
		nb = "(hi - lo)"
		for _, b := range m.Batch[1:] {
			nb = fmt.Sprintf("mulSat(%s, %s)", nb, g.ranges[b])
		}
	}
	fmt.Fprintf(w, "  uint lid = gl_LocalInvocationID.x;\n  uint tr = lid / %du;\n  uint tc = lid %% %du;\n", m.TC, m.TC)
	fmt.Fprintf(w, "  for (uint bt = 0u; bt < %s; bt++) {\n", nb)
	if len(m.Batch) > 0 {
		w.WriteString("    uint rest = bt;\n")
		for n := len(m.Batch) - 1; n >= 1; n-- {
			b := m.Batch[n]
			fmt.Fprintf(w, "    uint d%d = rest %% %s;\n    rest /= %s;\n", b, g.ranges[b], g.ranges[b])
		}
		fmt.Fprintf(w, "    uint d%d = lo + rest;\n", m.Batch[0])
	}
	fmt.Fprintf(w, "    for (uint r0 = %s; r0 < %s; r0 += %du) {\n", rowLo, rowHi, tm)
	fmt.Fprintf(w, "    for (uint c0 = gl_WorkGroupID.z * %du; c0 < %s; c0 += gl_NumWorkGroups.z * %du) {\n", tn, g.ranges[m.J], tn)
	fmt.Fprintf(w, "      %s acc[%d][%d];\n", ko.value, m.RM, m.RN)
	offO, err := g.offset(io)
	if err != nil {
		return err
	}
	at := func(rm, rn string) string {
		return fmt.Sprintf("uint d%d = r0 + tr + %du * %s;\n        uint d%d = c0 + tc + %du * %s;\n", m.I, m.TR, rm, m.J, m.TC, rn)
	}
	fmt.Fprintf(w, "      for (uint a = 0u; a < %du; a++) {\n      for (uint b = 0u; b < %du; b++) {\n        %s", m.RM, m.RN, at("a", "b"))
	init := zero(ko)
	if k.Outputs[0].Init {
		init = g.load(g.find("init", 0), offO)
	}
	fmt.Fprintf(w, "        acc[a][b] = %s;\n", zero(ko))
	if init != zero(ko) {
		fmt.Fprintf(w, "        if (d%d < %s && d%d < %s) {\n          acc[a][b] = %s;\n        }\n", m.I, rowHi, m.J, g.ranges[m.J], init)
	}
	w.WriteString("      }\n      }\n")
	fmt.Fprintf(w, "      for (uint k0 = 0u; k0 < %s; k0 += %du) {\n", g.ranges[m.R], m.TK)
	offA, err := g.offset(ia)
	if err != nil {
		return err
	}
	offB, err := g.offset(ib)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "        for (uint e = lid; e < %du; e += %du) {\n          uint d%d = r0 + e / %du;\n          uint d%d = k0 + e %% %du;\n", tm*m.TK, LoopNestWorkgroupSize, m.I, m.TK, m.R, m.TK)
	fmt.Fprintf(w, "          sa[e] = %s;\n          if (d%d < %s && d%d < %s) {\n            sa[e] = %s;\n          }\n        }\n", zero(ka), m.I, rowHi, m.R, g.ranges[m.R], g.load(ia, offA))
	fmt.Fprintf(w, "        for (uint e = lid; e < %du; e += %du) {\n          uint d%d = k0 + e / %du;\n          uint d%d = c0 + e %% %du;\n", m.TK*tn, LoopNestWorkgroupSize, m.R, tn, m.J, tn)
	fmt.Fprintf(w, "          sb[e] = %s;\n          if (d%d < %s && d%d < %s) {\n            sb[e] = %s;\n          }\n        }\n", zero(kb), m.R, g.ranges[m.R], m.J, g.ranges[m.J], g.load(ib, offB))
	w.WriteString("        barrier();\n")
	fmt.Fprintf(w, "        uint kn = min(%du, %s - k0);\n", m.TK, g.ranges[m.R])
	w.WriteString("        for (uint kk = 0u; kk < kn; kk++) {\n")
	fmt.Fprintf(w, "          %s x[%d];\n          %s y[%d];\n", ka.value, m.RM, kb.value, m.RN)
	fmt.Fprintf(w, "          for (uint a = 0u; a < %du; a++) {\n            x[a] = sa[(tr + %du * a) * %du + kk];\n          }\n", m.RM, m.TR, m.TK)
	fmt.Fprintf(w, "          for (uint b = 0u; b < %du; b++) {\n            y[b] = sb[kk * %du + tc + %du * b];\n          }\n", m.RN, tn, m.TC)
	var args []string
	for l := range k.Ranges {
		switch l {
		case m.I:
			args = append(args, fmt.Sprintf("int(r0 + tr + %du * a)", m.TR))
		case m.J:
			args = append(args, fmt.Sprintf("int(c0 + tc + %du * b)", m.TC))
		case m.R:
			args = append(args, "int(k0 + kk)")
		default:
			args = append(args, fmt.Sprintf("int(d%d)", l))
		}
	}
	fmt.Fprintf(w, "          for (uint a = 0u; a < %du; a++) {\n          for (uint b = 0u; b < %du; b++) {\n", m.RM, m.RN)
	fmt.Fprintf(w, "            body(%s, x[a], y[b], acc[a][b], acc[a][b]);\n          }\n          }\n        }\n        barrier();\n      }\n", strings.Join(args, ", "))
	fmt.Fprintf(w, "      for (uint a = 0u; a < %du; a++) {\n      for (uint b = 0u; b < %du; b++) {\n        %s", m.RM, m.RN, at("a", "b"))
	fmt.Fprintf(w, "        if (d%d < %s && d%d < %s) {\n%s        }\n      }\n      }\n", m.I, rowHi, m.J, g.ranges[m.J], g.store("          ", io, offO, "acc[a][b]"))
	w.WriteString("    }\n    }\n  }\n")
	return nil
}

// sharedTiles declares the shared A and B tiles of a tiled matmul.
func (g *lnGen) sharedTiles(m *matmulShape) string {
	ka, kb := g.kinds[g.find("in", 0)], g.kinds[g.find("in", 1)]
	return fmt.Sprintf("shared %s sa[%d];\nshared %s sb[%d];\n\n", ka.value, m.TM()*m.TK, kb.value, m.TK*m.TN())
}
