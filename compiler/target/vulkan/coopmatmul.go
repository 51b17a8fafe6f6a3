package vulkan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// Matmuls of f16 operands accumulated in f32 on devices with cooperative
// matrices (NVIDIA's, VK_NV_cooperative_matrix: the executable target's
// mma list has WMMA_F32_16x16x16_F16 and its subgroups are 32 wide) run
// on the tensor cores: GL_NV_cooperative_matrix's 16 x 16 x 16
// multiply-adds, which the driver lowers to mma instructions. The
// workgroup's 256 invocations, 8 subgroups of 32, compute blocks of 128 x
// 128 outputs like the tiled matmul (the same column split and row
// tiles), in steps of 32 along the reduction staged as f16 in shared
// memory (two pairs of tiles, the next step read from global memory while
// the current one is multiplied, one barrier a step); subgroup s owns 32
// rows (s / 2) by 64 columns (s % 2) of the block, as 2 x 4 f32
// accumulator matrices. The f16 elements move as bits, 8 to a uvec4: an
// invocation copies 16 consecutive elements of a row of A and of B a
// step, as two 16-byte loads (through a uvec4 view of the binding) where
// the matrix starts at a multiple of 8 elements and its rows are a
// multiple of 8 long and the 16 are inside it, else element by element.
// Tiles pass through shared memory both ways, so any shape and alignment
// works: elements past the matrices are read as zeros and never stored;
// results go out through a subgroup's 16 x 16 f32 scratch with bounds
// checks. The products of f16 values are exact in
// f32, but the tensor cores sum each 16 of them in their own order, so
// the reduction is reassociated in steps of 16 (as cuda's mma.sync
// matmuls and IREE's cooperative-matrix pipeline do); the body must be
// the plain multiply-add linalg.matmul has.

// coopMMA is the cooperative matrix operation the kernel needs of the
// target (IREE's name).
const coopMMA = "WMMA_F32_16x16x16_F16"

// The cooperative-matrix kernel's shape: block, step, tile pitches (in
// uvec4s of 8 f16 elements, a step's or a block's row and one more, so
// that consecutive rows fall in different banks).
const (
	coopBlock   = 128
	coopStep    = 32
	coopThreads = 256
	coopAPitch  = coopStep/8 + 1
	coopBPitch  = coopBlock/8 + 1
	coopATile   = coopBlock * coopAPitch
	coopBTile   = coopStep * coopBPitch
	// coopScratch is a subgroup's 16 x 16 f32 matrix.
	coopScratch = 256
	// coopShared is the shared memory the kernel takes, in bytes.
	coopShared = 2*16*(coopATile+coopBTile) + 4*coopScratch*coopThreads/32
)

// coopOf reports whether a matmul-shaped kernel with body runs on
// cooperative matrices on dev: f16 operands, an f32 output, the
// multiply-add body, and a device with the operation, 32-wide subgroups
// and room for the tiles.
func coopOf(k *loopnest.Kernel, body *ir.Operation, dev Device) bool {
	if !slices.Contains(dev.MMA, coopMMA) || !slices.Equal(dev.SubgroupSizes, []int{32}) ||
		dev.MaxInvocations < coopThreads || dev.MaxWorkgroupSize[0] < coopThreads || dev.MaxSharedBytes < coopShared {
		return false
	}
	isType := func(t ir.Type, name string) bool { f, ok := t.(ir.FloatType); return ok && f.Name == name }
	if !isType(k.Inputs[0].Type.Elem, "f16") || !isType(k.Inputs[1].Type.Elem, "f16") || !isType(k.Outputs[0].Type.Elem, "f32") {
		return false
	}
	return mulAddF16(k, body)
}

// mulAddF16 reports whether a matmul body is linalg.matmul's for f16
// operands and an f32 accumulator: both operands extended to f32,
// multiplied, and added to the accumulator, nothing else.
func mulAddF16(k *loopnest.Kernel, body *ir.Operation) bool {
	if body == nil || body.Body() == nil {
		return false
	}
	blk := body.Body()
	nl := len(k.Ranges)
	if len(blk.Args) != nl+3 || len(blk.Ops) != 5 {
		return false
	}
	x, y, acc := blk.Args[nl], blk.Args[nl+1], blk.Args[nl+2]
	ext1, ext2, mul, add, ret := blk.Ops[0], blk.Ops[1], blk.Ops[2], blk.Ops[3], blk.Ops[4]
	one := func(op *ir.Operation, name string, a *ir.Value) bool {
		return op.Name == name && len(op.Operands) == 1 && op.Operands[0] == a && len(op.Results) == 1
	}
	pair := func(op *ir.Operation, name string, a, b *ir.Value) bool {
		return op.Name == name && len(op.Operands) == 2 && len(op.Results) == 1 && len(op.Regions) == 0 &&
			(op.Operands[0] == a && op.Operands[1] == b || op.Operands[0] == b && op.Operands[1] == a)
	}
	if !one(ext1, "arith.extf", x) || !one(ext2, "arith.extf", y) {
		return false
	}
	return pair(mul, "arith.mulf", ext1.Results[0], ext2.Results[0]) && pair(add, "arith.addf", acc, mul.Results[0]) &&
		ret.Name == "func.return" && len(ret.Operands) == 1 && ret.Operands[0] == add.Results[0]
}

// coopSharedTiles declares the f16 tiles (as uvec4s), the subgroups'
// f32 scratch, and uvec4 views of the two f16 bindings (Vulkan lets
// variables of compatible types share a binding).
func (g *lnGen) coopSharedTiles() string {
	for _, e := range []string{"GL_NV_cooperative_matrix", "GL_KHR_memory_scope_semantics", "GL_KHR_shader_subgroup_basic",
		"GL_EXT_shader_explicit_arithmetic_types_float16", "GL_EXT_shader_16bit_storage"} {
		g.needs.exts[e] = true
	}
	var b strings.Builder
	for _, bi := range []int{g.find("in", 0), g.find("in", 1)} {
		fmt.Fprintf(&b, "layout(set = 0, binding = %d) readonly restrict buffer BQ%d { uvec4 v[]; } bq%d;\n", bi, bi, bi)
	}
	fmt.Fprintf(&b, "shared uvec4 sa[%d];\nshared uvec4 sb[%d];\nshared float sc[%d];\n\n", 2*coopATile, 2*coopBTile, coopScratch*coopThreads/32)
	return b.String()
}

// coopMatmul writes the body of main for a matmul on cooperative
// matrices (see the comment at the top of the file), after the tile's
// bounds: the batch and block loops are the tiled matmul's.
func (g *lnGen) coopMatmul(m *matmulShape) error {
	w := &g.w
	k := g.k
	ia, ib, io := g.find("in", 0), g.find("in", 1), g.find("out", 0)
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
	const acc = "fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>"
	const frag = "fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>"
	fmt.Fprintf(w, "  // Cooperative matrices: blocks of %dx%d outputs, 8 subgroups of 32 with 2x4 16x16 f32 accumulators each,\n", coopBlock, coopBlock)
	fmt.Fprintf(w, "  // steps of %d along the reduction in f16; two pairs of shared tiles, A %dx%d (pitch %d uvec4s) and B %dx%d (pitch %d).\n",
		coopStep, coopBlock, coopStep, coopAPitch, coopStep, coopBlock, coopBPitch)
	w.WriteString("  uint lid = gl_LocalInvocationID.x;\n  uint sg = gl_SubgroupID;\n  uint lane = gl_SubgroupInvocationID;\n")
	w.WriteString("  uint wr = (sg >> 1u) * 32u;\n  uint wc = (sg & 1u) * 64u;\n  uint scr = sg * 256u;\n")
	fmt.Fprintf(w, "  for (uint bt = 0u; bt < %s; bt++) {\n", nb)
	if len(m.Batch) > 0 {
		w.WriteString("    uint rest = bt;\n")
		for n := len(m.Batch) - 1; n >= 1; n-- {
			b := m.Batch[n]
			fmt.Fprintf(w, "    uint d%d = rest %% %s;\n    rest /= %s;\n", b, g.ranges[b], g.ranges[b])
		}
		fmt.Fprintf(w, "    uint d%d = lo + rest;\n", m.Batch[0])
	}
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
	fmt.Fprintf(w, "    for (uint r0 = %s; r0 < %s; r0 += %du) {\n", rowLo, rowHi, coopBlock)
	fmt.Fprintf(w, "    for (uint c0 = gl_WorkGroupID.z * %du; c0 < %s; c0 += gl_NumWorkGroups.z * %du) {\n", coopBlock, N, coopBlock)
	accs := func(fn func(i, j int)) {
		for i := 0; i < 2; i++ {
			for j := 0; j < 4; j++ {
				fn(i, j)
			}
		}
	}
	accName := func(i, j int) string { return fmt.Sprintf("acc%d_%d", i, j) }
	// The 8 elements of a subgroup's 16 x 16 scratch that lane e0 =
	// lane * 8 covers: row e >> 4, column e & 15 of the accumulator's
	// tile at rows wr + 16 i, columns wc + 16 j of the block.
	tileElems := func(ind string, i, j int, fn func(ind, row, col, e string)) {
		fmt.Fprintf(w, "%sfor (uint q = 0u; q < 8u; q++) {\n", ind)
		fmt.Fprintf(w, "%s  uint e = lane * 8u + q;\n%s  uint row = r0 + wr + %du + (e >> 4);\n%s  uint col = c0 + wc + %du + (e & 15u);\n", ind, ind, 16*i, ind, 16*j)
		fn(ind+"  ", "row", "col", "e")
		fmt.Fprintf(w, "%s}\n", ind)
	}
	accs(func(i, j int) {
		fmt.Fprintf(w, "      %s %s = %s(0.0);\n", acc, accName(i, j), acc)
	})
	if iinit >= 0 {
		accs(func(i, j int) {
			tileElems("      ", i, j, func(ind, row, col, e string) {
				fmt.Fprintf(w, "%ssc[scr + %s] = (%s < %s && %s < %s) ? %s : 0.0;\n", ind, e, row, rowHi, col, N,
					g.load(iinit, fmt.Sprintf("iBase + %s * %s + %s", row, last(iinit), col)))
			})
			fmt.Fprintf(w, "      subgroupMemoryBarrierShared();\n      subgroupBarrier();\n")
			fmt.Fprintf(w, "      coopMatLoadNV(%s, sc, scr, 16u, false);\n      subgroupBarrier();\n", accName(i, j))
		})
	}
	// The copies: invocation lid reads 16 consecutive elements of a row
	// of A (row lid / 2, half lid % 2 of the step) and of B (step row lid
	// / 8, columns 16 (lid % 8) on) into two uvec4s each, then writes them
	// into a pair of tiles.
	fmt.Fprintf(w, "      uvec4 ua0, ua1, ub0, ub1;\n      uint am = lid >> 1u;\n      uint akq = (lid & 1u) * 16u;\n      uint bkr = lid >> 3u;\n      uint bcc = (lid & 7u) * 16u;\n")
	fmt.Fprintf(w, "      bool vecA = (aBase & 7u) == 0u && (%s & 7u) == 0u;\n      bool vecB = (bBase & 7u) == 0u && (%s & 7u) == 0u;\n", last(ia), last(ib))
	// copy16 reads the 16 elements of binding bi from p on into v0 and
	// v1: two uvec4 loads when vec, else element by element where ok(j).
	copy16 := func(ind string, bi int, p, vec, v0, v1 string, ok func(j int) string) {
		fmt.Fprintf(w, "%sif (%s) {\n%s  %s = bq%d.v[%s >> 3];\n%s  %s = bq%d.v[(%s >> 3) + 1u];\n%s} else {\n", ind, vec, ind, v0, bi, p, ind, v1, bi, p, ind)
		for j := 0; j < 16; j++ {
			fmt.Fprintf(w, "%s  uint h%d = %s ? uint(b%d.v[%s + %du]) : 0u;\n", ind, j, ok(j), bi, p, j)
		}
		for n, v := range []string{v0, v1} {
			var words []string
			for q := 0; q < 4; q++ {
				words = append(words, fmt.Sprintf("h%d | (h%d << 16)", 8*n+2*q, 8*n+2*q+1))
			}
			fmt.Fprintf(w, "%s  %s = uvec4(%s);\n", ind, v, strings.Join(words, ", "))
		}
		fmt.Fprintf(w, "%s}\n", ind)
	}
	fetch := func(ind, k0 string) {
		fmt.Fprintf(w, "%s{\n%s  uint row = r0 + am;\n%s  uint kq = %s + akq;\n%s  uint ap = aBase + row * %s + kq;\n", ind, ind, ind, k0, ind, last(ia))
		copy16(ind+"  ", ia, "ap", fmt.Sprintf("vecA && row < %s && kq + 16u <= %s", rowHi, K), "ua0", "ua1", func(j int) string {
			return fmt.Sprintf("(row < %s && kq + %du < %s)", rowHi, j, K)
		})
		fmt.Fprintf(w, "%s  uint kb = %s + bkr;\n%s  uint col = c0 + bcc;\n%s  uint bp = bBase + kb * %s + col;\n", ind, k0, ind, ind, last(ib))
		copy16(ind+"  ", ib, "bp", fmt.Sprintf("vecB && kb < %s && col + 16u <= %s", K, N), "ub0", "ub1", func(j int) string {
			return fmt.Sprintf("(kb < %s && col + %du < %s)", K, j, N)
		})
		fmt.Fprintf(w, "%s}\n", ind)
	}
	put := func(ind, buf string) {
		fmt.Fprintf(w, "%s{\n%s  uint sp = %s * %du + am * %du + (lid & 1u) * 2u;\n%s  uint tp = %s * %du + bkr * %du + (lid & 7u) * 2u;\n",
			ind, ind, buf, coopATile, coopAPitch, ind, buf, coopBTile, coopBPitch)
		fmt.Fprintf(w, "%s  sa[sp] = ua0;\n%s  sa[sp + 1u] = ua1;\n%s  sb[tp] = ub0;\n%s  sb[tp + 1u] = ub1;\n%s}\n", ind, ind, ind, ind, ind)
	}
	// step multiplies the step's tiles at buf, 16 along the reduction at
	// a time (offsets and strides in uvec4s).
	step := func(ind, buf string) {
		fmt.Fprintf(w, "%sfor (uint kk = 0u; kk < %du; kk += 16u) {\n", ind, coopStep)
		fmt.Fprintf(w, "%s  %s fa0, fa1, fb0, fb1, fb2, fb3;\n", ind, frag)
		for i := 0; i < 2; i++ {
			fmt.Fprintf(w, "%s  coopMatLoadNV(fa%d, sa, %s * %du + (wr + %du) * %du + (kk >> 3), %du, false);\n", ind, i, buf, coopATile, 16*i, coopAPitch, coopAPitch)
		}
		for j := 0; j < 4; j++ {
			fmt.Fprintf(w, "%s  coopMatLoadNV(fb%d, sb, %s * %du + kk * %du + ((wc + %du) >> 3), %du, false);\n", ind, j, buf, coopBTile, coopBPitch, 16*j, coopBPitch)
		}
		accs(func(i, j int) {
			fmt.Fprintf(w, "%s  %s = coopMatMulAddNV(fa%d, fb%d, %s);\n", ind, accName(i, j), i, j, accName(i, j))
		})
		fmt.Fprintf(w, "%s}\n", ind)
	}
	w.WriteString("      uint cur = 0u;\n")
	fetch("      ", "0u")
	put("      ", "0u")
	w.WriteString("      barrier();\n")
	fmt.Fprintf(w, "      for (uint k0 = 0u; k0 < %s; k0 += %du) {\n", K, coopStep)
	fmt.Fprintf(w, "        bool more = k0 + %du < %s;\n        if (more) {\n", coopStep, K)
	fetch("          ", fmt.Sprintf("(k0 + %du)", coopStep))
	w.WriteString("        }\n")
	step("        ", "cur")
	w.WriteString("        if (more) {\n")
	put("          ", "(1u - cur)")
	w.WriteString("        }\n        barrier();\n        cur = 1u - cur;\n      }\n")
	accs(func(i, j int) {
		fmt.Fprintf(w, "      coopMatStoreNV(%s, sc, scr, 16u, false);\n      subgroupMemoryBarrierShared();\n      subgroupBarrier();\n", accName(i, j))
		tileElems("      ", i, j, func(ind, row, col, e string) {
			fmt.Fprintf(w, "%sif (%s < %s && %s < %s) {\n%s%s}\n", ind, row, rowHi, col, N,
				g.store(ind+"  ", io, fmt.Sprintf("cBase + %s * %s + %s", row, last(io), col), "sc[scr + "+e+"]"), ind)
		})
		w.WriteString("      subgroupBarrier();\n")
	})
	w.WriteString("    }\n    }\n  }\n")
	return nil
}
