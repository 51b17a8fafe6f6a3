package vulkan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// Matmuls of f16 operands accumulated in f32 on devices with cooperative
// matrices (NVIDIA's: the executable target's mma list has
// WMMA_F32_16x16x16_F16 and its subgroups are 32 wide) run on the tensor
// cores: 16 x 16 x 16 multiply-adds, which the driver lowers to mma
// instructions, written with GL_NV_cooperative_matrix (which the
// installed glslang knows) and rewritten to VK_KHR_cooperative_matrix
// after glslc unless the NV extension is asked for (coopkhr.go). The
// workgroup's 256 invocations, 8 subgroups of 32, compute blocks of 128 x
// 256 outputs (the tiled matmul's row tiles, with column blocks twice as
// wide: splitOf gives the grid half as many column groups), in steps of
// 32 along the reduction staged as f16 in shared memory (one pair of
// tiles, 27 KiB of Vulkan's 48; the next step is read from global memory
// into registers while the current one is multiplied); subgroup s owns
// 64 rows (s / 4) by 64 columns (s % 4) of the block, as 4 x 4 f32
// accumulator matrices. The f16 elements move as
// bits, 8 to a uvec4: neighbouring invocations copy neighbouring 16-byte
// chunks of a row of A or B, each with one load (through a uvec4 view of
// the binding) where the matrix starts at a multiple of 8 elements, its
// rows are a multiple of 8 long and the chunk is inside it, else element
// by element. Elements past the matrices are read as zeros, so any shape
// and alignment works. An accumulator goes straight to the output
// (coopMatStoreNV) where its 16 x 16 tile is inside the matrix and its
// rows start 16-byte aligned, else through a subgroup's 16 x 16 f32
// scratch with bounds checks. The products of f16 values are exact in
// f32, but the tensor cores sum each 16 of them in their own order, so
// the reduction is reassociated in steps of 16 (as cuda's mma.sync
// matmuls and IREE's cooperative-matrix pipeline do); the body must be
// the plain multiply-add linalg.matmul has.
//
// Measured on an H200 (4096^3, median of 5 x 3 calls, same run): 0.64
// ms on VK_KHR_cooperative_matrix; 128 x 128 blocks with 4 x 2
// accumulators a subgroup and steps of 64 took 0.70 ms, 0.99 ms on
// VK_NV_cooperative_matrix, whose matrices do not say which operand they
// are. cuda's mma.sync kernel takes 0.39 ms. Steps of 32 with 128 x 128
// blocks (0.83 ms), 2 x 4 accumulators (0.74), no memory operands on the
// matrix loads (0.71) and matrices loaded straight from the bindings
// instead of shared memory (1.4-1.8 ms) were no better. The driver
// gives this kernel 240 registers an invocation (pipeline statistics),
// so one workgroup runs on a multiprocessor; two stages of these tiles
// (54 KiB) do not fit Vulkan's 48, and the two-stage shapes that do (one
// barrier a step) were slower on the H200: 128 x 128 blocks with 4 x 2
// accumulators in steps of 32 (166 registers) 1.02 ms, in steps of 16
// (118 registers, two workgroups a multiprocessor) 0.81 ms, 128 x 256 in
// steps of 16 (190) 0.90 ms; 128 x 128 in one stage 0.97-1.01 ms.

// coopMMA is the cooperative matrix operation the kernel needs of the
// target (IREE's name).
const coopMMA = "WMMA_F32_16x16x16_F16"

// The cooperative-matrix kernel's shape: block rows and columns, step, threads, a
// subgroup's accumulators down and across (coopRows x coopCols of 16 x
// 16), tile pitches (in uvec4s of 8 f16 elements: a step's or a block's
// row and one more, so that the 8 rows of 16 bytes the driver reads from
// shared memory at once fall in different banks), and a subgroup's 16 x
// 16 f32 scratch.
const (
	coopBlock   = 128
	coopBlockN  = 256
	coopStep    = 32
	coopThreads = 256
	coopRows    = 4
	coopCols    = 4
	coopAPitch  = coopStep/8 + 1
	coopBPitch  = coopBlockN/8 + 1
	coopATile   = coopBlock * coopAPitch
	coopBTile   = coopStep * coopBPitch
	coopScratch = 256
	// coopShared is the shared memory the kernel takes, in bytes.
	coopShared = 16*(coopATile+coopBTile) + 4*coopScratch*coopThreads/32
)

// coopOf reports whether a matmul-shaped kernel with body runs on
// cooperative matrices on dev: f16 operands, an f32 output, the
// multiply-add body, and a device with the operation, 32-wide subgroups
// and room for the tiles.
func coopOf(k *loopnest.Kernel, body *ir.Operation, dev Device) bool {
	return coopShaped(k, dev) && mulAddF16(k, body)
}

// coopShaped reports whether a matmul-shaped kernel has cooperative
// matrices' types on dev (coopOf without the body): f16 operands, an f32
// output, and a device with the operation, 32-wide subgroups and room
// for the tiles.
func coopShaped(k *loopnest.Kernel, dev Device) bool {
	if !slices.Contains(dev.MMA, coopMMA) || !slices.Equal(dev.SubgroupSizes, []int{32}) ||
		dev.MaxInvocations < coopThreads || dev.MaxWorkgroupSize[0] < coopThreads || dev.MaxSharedBytes < coopShared {
		return false
	}
	isType := func(t ir.Type, name string) bool { f, ok := t.(ir.FloatType); return ok && f.Name == name }
	return isType(k.Inputs[0].Type.Elem, "f16") && isType(k.Inputs[1].Type.Elem, "f16") && isType(k.Outputs[0].Type.Elem, "f32")
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
func (g *lnGen) coopSharedTiles(m *matmulShape) string {
	for _, e := range []string{"GL_NV_cooperative_matrix", "GL_KHR_memory_scope_semantics", "GL_KHR_shader_subgroup_basic",
		"GL_EXT_shader_explicit_arithmetic_types_float16", "GL_EXT_shader_16bit_storage"} {
		g.needs.exts[e] = true
	}
	var b strings.Builder
	if m.whole {
		// f16 views of the two operands for workgroupBlock's loads; no
		// shared memory of the kernel's own.
		for _, bi := range []int{g.find("in", 0), g.find("in", 1)} {
			fmt.Fprintf(&b, "layout(set = 0, binding = %d) readonly restrict buffer BH%d { float16_t v[]; } bh%d;\n", bi, bi, bi)
		}
		return b.String() + "\n"
	}
	for _, bi := range []int{g.find("in", 0), g.find("in", 1)} {
		fmt.Fprintf(&b, "layout(set = 0, binding = %d) readonly restrict buffer BQ%d { uvec4 v[]; } bq%d;\n", bi, bi, bi)
	}
	fmt.Fprintf(&b, "shared uvec4 sa[%d];\nshared uvec4 sb[%d];\nshared float sc[%d];\n\n", coopATile, coopBTile, coopScratch*coopThreads/32)
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
	if m.whole {
		fmt.Fprintf(w, "  // Cooperative matrices of workgroup scope: blocks of %dx%d outputs, all inside the matrices.\n", coopBlock, coopBlockN)
	} else {
		fmt.Fprintf(w, "  // Cooperative matrices: blocks of %dx%d outputs, 8 subgroups of 32 with %dx%d 16x16 f32 accumulators each,\n", coopBlock, coopBlockN, coopRows, coopCols)
		fmt.Fprintf(w, "  // steps of %d along the reduction in f16 through shared tiles A %dx%d (pitch %d uvec4s) and B %dx%d (pitch %d).\n",
			coopStep, coopBlock, coopStep, coopAPitch, coopStep, coopBlockN, coopBPitch)
		w.WriteString("  uint lid = gl_LocalInvocationID.x;\n  uint sg = gl_SubgroupID;\n  uint lane = gl_SubgroupInvocationID;\n")
		across := coopBlockN / (16 * coopCols)
		fmt.Fprintf(w, "  uint wr = (sg / %du) * %du;\n  uint wc = (sg %% %du) * %du;\n  uint scr = sg * 256u;\n", across, 16*coopRows, across, 16*coopCols)
	}
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
	fmt.Fprintf(w, "    for (uint c0 = gl_WorkGroupID.z * %du; c0 < %s; c0 += gl_NumWorkGroups.z * %du) {\n", coopBlockN, N, coopBlockN)
	if m.whole {
		g.workgroupBlock(m, iinit)
		w.WriteString("    }\n    }\n  }\n")
		return nil
	}
	accs := func(fn func(i, j int)) {
		for i := 0; i < coopRows; i++ {
			for j := 0; j < coopCols; j++ {
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
	// The copies: a tile of A (coopBlock rows of the step) or B (the
	// step's rows of coopBlock) is a sequence of uvec4 chunks of 8
	// elements, row by row; invocation lid copies chunks lid, lid + 256,
	// ... of each (neighbouring invocations read neighbouring chunks of a
	// row) into registers ga<n> and gb<n>, and from them into the tiles.
	const perA, perB = coopBlock * coopStep / 8 / coopThreads, coopBlockN * coopStep / 8 / coopThreads
	for n := 0; n < perA; n++ {
		fmt.Fprintf(w, "      uvec4 ga%d;\n", n)
	}
	for n := 0; n < perB; n++ {
		fmt.Fprintf(w, "      uvec4 gb%d;\n", n)
	}
	fmt.Fprintf(w, "      bool vecA = (aBase & 7u) == 0u && (%s & 7u) == 0u;\n      bool vecB = (bBase & 7u) == 0u && (%s & 7u) == 0u;\n", last(ia), last(ib))
	// copy8 reads the 8 elements of binding bi from q on into v: one
	// uvec4 load when vec, else element by element where ok(j).
	copy8 := func(ind string, bi int, q, vec, v string, ok func(j int) string) {
		fmt.Fprintf(w, "%sif (%s) {\n%s  %s = bq%d.v[%s >> 3];\n%s} else {\n", ind, vec, ind, v, bi, q, ind)
		for j := 0; j < 8; j++ {
			fmt.Fprintf(w, "%s  uint h%d = %s ? uint(b%d.v[%s + %du]) : 0u;\n", ind, j, ok(j), bi, q, j)
		}
		fmt.Fprintf(w, "%s  %s = uvec4(h0 | (h1 << 16), h2 | (h3 << 16), h4 | (h5 << 16), h6 | (h7 << 16));\n%s}\n", ind, v, ind)
	}
	const aRow, bRow = coopStep / 8, coopBlockN / 8 // chunks a row
	// fetch reads the step at reduction index k0 into the registers.
	fetch := func(ind, k0 string) {
		for n := 0; n < perA; n++ {
			c := n * coopThreads
			fmt.Fprintf(w, "%s{\n%s  uint row = r0 + (lid + %du) / %du;\n%s  uint kq = %s + ((lid + %du) %% %du) * 8u;\n%s  uint ap = aBase + row * %s + kq;\n",
				ind, ind, c, aRow, ind, k0, c, aRow, ind, last(ia))
			copy8(ind+"  ", ia, "ap", fmt.Sprintf("vecA && row < %s && kq + 8u <= %s", rowHi, K), fmt.Sprintf("ga%d", n), func(j int) string {
				return fmt.Sprintf("(row < %s && kq + %du < %s)", rowHi, j, K)
			})
			fmt.Fprintf(w, "%s}\n", ind)
		}
		for n := 0; n < perB; n++ {
			c := n * coopThreads
			fmt.Fprintf(w, "%s{\n%s  uint kb = %s + (lid + %du) / %du;\n%s  uint col = c0 + ((lid + %du) %% %du) * 8u;\n%s  uint bp = bBase + kb * %s + col;\n",
				ind, ind, k0, c, bRow, ind, c, bRow, ind, last(ib))
			copy8(ind+"  ", ib, "bp", fmt.Sprintf("vecB && kb < %s && col + 8u <= %s", K, N), fmt.Sprintf("gb%d", n), func(j int) string {
				return fmt.Sprintf("(kb < %s && col + %du < %s)", K, j, N)
			})
			fmt.Fprintf(w, "%s}\n", ind)
		}
	}
	// put writes the registers into the tiles.
	put := func(ind string) {
		for n := 0; n < perA; n++ {
			c := n * coopThreads
			fmt.Fprintf(w, "%ssa[((lid + %du) / %du) * %du + (lid + %du) %% %du] = ga%d;\n", ind, c, aRow, coopAPitch, c, aRow, n)
		}
		for n := 0; n < perB; n++ {
			c := n * coopThreads
			fmt.Fprintf(w, "%ssb[((lid + %du) / %du) * %du + (lid + %du) %% %du] = gb%d;\n", ind, c, bRow, coopBPitch, c, bRow, n)
		}
	}
	// step multiplies the tiles, 16 along the reduction at a time
	// (offsets and strides in uvec4s).
	step := func(ind string) {
		for kk := 0; kk < coopStep; kk += 16 {
			fmt.Fprintf(w, "%s{\n", ind)
			for i := 0; i < coopRows; i++ {
				fmt.Fprintf(w, "%s  %s fa%d;\n", ind, frag, i)
			}
			for j := 0; j < coopCols; j++ {
				fmt.Fprintf(w, "%s  %s fb%d;\n", ind, frag, j)
			}
			for i := 0; i < coopRows; i++ {
				fmt.Fprintf(w, "%s  coopMatLoadNV(fa%d, sa, %du + (wr + %du) * %du, %du, false);\n", ind, i, kk/8, 16*i, coopAPitch, coopAPitch)
			}
			for j := 0; j < coopCols; j++ {
				fmt.Fprintf(w, "%s  coopMatLoadNV(fb%d, sb, %du + ((wc + %du) >> 3), %du, false);\n", ind, j, kk*coopBPitch, 16*j, coopBPitch)
			}
			accs(func(i, j int) {
				fmt.Fprintf(w, "%s  %s = coopMatMulAddNV(fa%d, fb%d, %s);\n", ind, accName(i, j), i, j, accName(i, j))
			})
			fmt.Fprintf(w, "%s}\n", ind)
		}
	}
	// Each step waits for the workgroup to be done with the tiles, writes
	// the step's registers into them, waits again, starts reading the
	// next step into the registers and multiplies: the global reads have
	// a step of multiplies to arrive in. (On the H200 this one pair of
	// 64-long tiles beat two pairs of 32-long ones, reading two steps
	// ahead, by 2%; both fit Vulkan's 48 KiB, two pairs of 64 do not.)
	fetch("      ", "0u")
	fmt.Fprintf(w, "      for (uint k0 = 0u; k0 < %s; k0 += %du) {\n        barrier();\n", K, coopStep)
	put("        ")
	fmt.Fprintf(w, "        barrier();\n        if (k0 + %du < %s) {\n", coopStep, K)
	fetch("          ", fmt.Sprintf("(k0 + %du)", coopStep))
	w.WriteString("        }\n")
	step("        ")
	w.WriteString("      }\n      barrier();\n")
	// The accumulators go straight to the output where their 16 x 16
	// tile is inside it and its rows start at multiples of 4 elements
	// (coopMatStoreNV's 16-byte alignment), else through the subgroup's
	// scratch with bounds checks.
	direct := fmt.Sprintf("(cBase & 3u) == 0u && (%s & 3u) == 0u", last(io))
	accs(func(i, j int) {
		fmt.Fprintf(w, "      {\n        uint tr0 = r0 + wr + %du;\n        uint tc0 = c0 + wc + %du;\n", 16*i, 16*j)
		fmt.Fprintf(w, "        if (%s && tr0 + 16u <= %s && tc0 + 16u <= %s) {\n", direct, rowHi, N)
		fmt.Fprintf(w, "          coopMatStoreNV(%s, b%d.v, cBase + tr0 * %s + tc0, %s, false);\n        } else {\n", accName(i, j), io, last(io), last(io))
		fmt.Fprintf(w, "          coopMatStoreNV(%s, sc, scr, 16u, false);\n          subgroupMemoryBarrierShared();\n          subgroupBarrier();\n", accName(i, j))
		tileElems("          ", i, j, func(ind, row, col, e string) {
			fmt.Fprintf(w, "%sif (%s < %s && %s < %s) {\n%s%s}\n", ind, row, rowHi, col, N,
				g.store(ind+"  ", io, fmt.Sprintf("cBase + %s * %s + %s", row, last(io), col), "sc[scr + "+e+"]"), ind)
		})
		w.WriteString("          subgroupBarrier();\n        }\n      }\n")
	})
	w.WriteString("    }\n    }\n  }\n")
	return nil
}

// The workgroup-scope kernel (--iree-vulkan-cooperative-matrix=nv2):
// with VK_NV_cooperative_matrix2 a whole block's A slice (coopBlock x
// wgStep), B slice (wgStep x coopBlockN) and f32 accumulator are single
// matrices of the workgroup, loaded straight from the bindings, and the
// driver divides their product among its subgroups. The H200's driver
// offers such matrices to workgroups of up to 256 invocations, in
// granules of 32 x 32 x 16 (cooperativeMatrixFlexibleDimensions).
// Measured there (4096^3, median of 5 x 3 calls, same run as cuda's
// 0.374 ms): steps of 64 0.484 ms, of 32 0.524 ms, of 16 0.857 ms, of 128
// 2.05 ms; the subgroup-scope kernel 0.67 ms. Loading through
// SPV_NV_tensor_addressing's tensor layouts (a SPIR-V rewrite, since the
// installed glslang knows neither extension) took 0.484 ms against 0.482
// ms for the strided loads, so the kernel keeps the strided ones.
const wgStep = 64

// wholeBlocks reports whether the workgroup-scope kernel applies: the
// option is on, the matmul is not batched, and the static shapes prove
// that every block a workgroup owns lies wholly inside the matrices (the
// rows of each tile and the columns come in whole blocks), the reduction
// is a multiple of wgStep, and every operand's rows start 16-byte aligned
// (rows a multiple of 8 f16 or 4 f32 elements long, each block's start at
// the start of a row).
// Where they do not, the subgroup-scope kernel runs: a shader that also
// held it for the blocks that are not whole took 1.15 ms on the H200 for
// the 4096^3 matmul, whose whole blocks alone take 0.49 ms.
func wholeBlocks(k *loopnest.Kernel, m *matmulShape, opts GLSLOptions) bool {
	// Batched matmuls keep the subgroup-scope kernel: the workgroup-scope
	// one has only run on the device for single matmuls.
	if !opts.WorkgroupMatrices || !m.coop || len(m.Batch) > 0 {
		return false
	}
	multiple := func(l int, n int64) bool { return k.Ranges[l] != ir.Dynamic && k.Ranges[l]%n == 0 }
	if !multiple(m.R, wgStep) || !multiple(m.J, coopBlockN) || !multiple(m.I, coopBlock) {
		return false
	}
	if k.OuterParallel() == m.I && (k.Tile <= 0 || k.Tile%coopBlock != 0) {
		return false
	}
	aligned := func(b loopnest.Binding, n int64) bool {
		sh := b.Type.Shape
		if len(sh) == 0 || sh[len(sh)-1] == ir.Dynamic || sh[len(sh)-1]%n != 0 || len(b.Map.Results) != len(sh) {
			return false
		}
		// The last index is one of the matmul's own loops, which start
		// each block at 0 within the row.
		e := b.Map.Results[len(sh)-1]
		return e.Kind == ir.AffineDim && (e.Pos == m.I || e.Pos == m.J || e.Pos == m.R)
	}
	for _, b := range k.Bindings() {
		switch {
		case b.Role == "in" && b.Index < 2 && !aligned(b, 8):
			return false
		case (b.Role == "out" || b.Role == "init") && b.Index == 0 && !aligned(b, 4):
			return false
		}
	}
	return true
}

// workgroupBlock writes a block's body on workgroup-scope matrices (for
// kernels whose blocks are all whole: wholeBlocks). Every invocation of
// the workgroup runs it, as workgroup-scope operations require.
func (g *lnGen) workgroupBlock(m *matmulShape, iinit int) {
	w := &g.w
	ia, ib, io := g.find("in", 0), g.find("in", 1), g.find("out", 0)
	K := g.ranges[m.R]
	last := func(bi int) string { return g.sizes[bi][len(g.sizes[bi])-1] }
	acc := fmt.Sprintf("fcoopmatNV<32, gl_ScopeWorkgroup, %d, %d>", coopBlock, coopBlockN)
	fa := fmt.Sprintf("fcoopmatNV<16, gl_ScopeWorkgroup, %d, %d>", coopBlock, wgStep)
	fb := fmt.Sprintf("fcoopmatNV<16, gl_ScopeWorkgroup, %d, %d>", wgStep, coopBlockN)
	fmt.Fprintf(w, "      // Workgroup-scope matrices, %d along the reduction a step.\n", wgStep)
	if iinit >= 0 {
		fmt.Fprintf(w, "      %s wacc;\n      coopMatLoadNV(wacc, b%d.v, iBase + r0 * %s + c0, %s, false);\n", acc, iinit, last(iinit), last(iinit))
	} else {
		fmt.Fprintf(w, "      %s wacc = %s(0.0);\n", acc, acc)
	}
	fmt.Fprintf(w, "      for (uint k0 = 0u; k0 < %s; k0 += %du) {\n", K, wgStep)
	fmt.Fprintf(w, "        %s wa;\n        %s wb;\n", fa, fb)
	// The f16 operands are read through their bindings' f16 views.
	fmt.Fprintf(w, "        coopMatLoadNV(wa, bh%d.v, aBase + r0 * %s + k0, %s, false);\n", ia, last(ia), last(ia))
	fmt.Fprintf(w, "        coopMatLoadNV(wb, bh%d.v, bBase + k0 * %s + c0, %s, false);\n", ib, last(ib), last(ib))
	w.WriteString("        wacc = coopMatMulAddNV(wa, wb, wacc);\n      }\n")
	fmt.Fprintf(w, "      coopMatStoreNV(wacc, b%d.v, cBase + r0 * %s + c0, %s, false);\n", io, last(io), last(io))
}
