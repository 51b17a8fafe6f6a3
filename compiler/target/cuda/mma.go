package cuda

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// The tensor-core matmul (mmaMatmul): a block of mmaThreads threads owns
// mmaBM x mmaBN outputs; its eight warps, two down and four across, own
// 64 x 32 each as 4 x 4 tiles of mma.sync fragments (m16n8k16 for 16-bit
// operands, m16n8k8 for tf32; 64 f32 accumulators a thread). The
// reduction advances 64 bytes of A's rows at a time (mmaSpec.bk: 32
// 16-bit elements or 16 f32) through mmaStages shared-memory stages
// filled with cp.async, so that two steps are in flight while the block
// computes a third.
const (
	mmaBM, mmaBN = 128, 128
	mmaStages    = 3
	mmaThreads   = LoopNestBlockSize
	// A stage holds the A tile (mmaBM rows of 64 bytes) and then the B
	// tile (a step's rows of mmaBN elements: 32 of 256 bytes, or 16 of
	// 512).
	mmaABytes     = mmaBM * 64
	mmaBBytes     = 8192
	mmaStageBytes = mmaABytes + mmaBBytes
	// mmaShared is the block's shared memory: 48 KiB, the most a kernel
	// may declare statically, so no launch attribute is needed.
	mmaShared = mmaStages * mmaStageBytes
)

// mmaMinArch is the first architecture with mma.sync.m16n8k16 for f16
// and bf16, m16n8k8 for tf32, ldmatrix and cp.async.
const mmaMinArch = 80

// TF32Key is the cuda executable target's configuration entry that lets
// f32 matmuls use tensor cores in TF32 (allow_tf32 = true; the flag
// --iree-cuda-allow-tf32 sets it in the targets that flags choose): their
// operands are rounded to TF32's 10-bit significand (cvt.rna.tf32.f32)
// and the products accumulated in f32, as cuBLAS does with TF32 allowed,
// so results are no longer those of the f32 loop; without it f32 matmuls
// stay exact f32 fma chains.
const TF32Key = "allow_tf32"

// Accumulate16Key is the cuda executable target's configuration entry
// (accumulate_16bit_in_f32 = true; --iree-cuda-accumulate-16bit-in-f32
// sets it) that lets matmuls whose body accumulates in f16 or bf16 run
// on tensor cores, summing in f32 and rounding once at the store. Without
// it they keep the program's rounding at every step of the reduction, as
// the CPU targets do and IREE's own tests expect (its
// large_linalg_matmul sums 2048 products of 1 and 0.01 in f16 to 20.28,
// where f32 sums give 20.48), in the tiled kernel.
const Accumulate16Key = "accumulate_16bit_in_f32"

// mmaAllow are the tensor-core uses an executable target allows beyond
// f16 and bf16 multiply-adds into f32.
type mmaAllow struct {
	// tf32: f32 matmuls in TF32 (TF32Key); acc16: 16-bit accumulators
	// summed in f32 (Accumulate16Key).
	tf32, acc16 bool
}

// mmaSpec is what the tensor-core path computes: A and B elements of
// type in ("f16", "bf16", or "tf32": f32 in memory), accumulated in f32
// and stored as out ("f32", or the 16-bit input type: rounded once, at
// the store).
type mmaSpec struct {
	in, out string
}

// elem is A's and B's element type in memory.
func (s mmaSpec) elem() string {
	if s.in == "tf32" {
		return "f32"
	}
	return s.in
}

// size is the bytes of an A or B element.
func (s mmaSpec) size() int {
	if s.in == "tf32" {
		return 4
	}
	return 2
}

// bk is the reduction's step: 64 bytes of A's rows.
func (s mmaSpec) bk() int { return 64 / s.size() }

// kmma is the reduction length of one mma.sync.
func (s mmaSpec) kmma() int { return s.bk() / 2 }

// mmaOf returns the tensor-core plan for a matmul-shaped nest, or "" and
// why not: the arch must have the instructions; A and B must be f16 or
// bf16 (both alike) with an f32 output, or one of their type where allow
// lets 16-bit accumulators sum in f32, or f32 with an f32 output where
// allow lets it use TF32; and the body must be a plain multiply-add (of
// the inputs extended to f32 for 16-bit inputs and an f32 output, else in
// the output's type).
func mmaOf(arch int, k *loopnest.Kernel, body *ir.Operation, allow mmaAllow) (mmaSpec, string) {
	if arch < mmaMinArch {
		return mmaSpec{}, fmt.Sprintf("tensor cores need sm_%d", mmaMinArch)
	}
	name := func(t ir.Type) string {
		if f, ok := t.(ir.FloatType); ok {
			return f.Name
		}
		return ir.TypeString(t)
	}
	s := mmaSpec{in: name(k.Inputs[0].Type.Elem), out: name(k.Outputs[0].Type.Elem)}
	if name(k.Inputs[1].Type.Elem) != s.in {
		return mmaSpec{}, "A and B differ in type"
	}
	switch {
	case s.in == "f32" && s.out == "f32" && allow.tf32:
		s.in = "tf32"
	case s.in == "f32":
		return mmaSpec{}, "f32 matmuls use tensor cores only with " + TF32Key
	case s.in != "f16" && s.in != "bf16":
		return mmaSpec{}, "A and B are not f16, bf16 or f32"
	case s.out != "f32" && s.out != s.in:
		return mmaSpec{}, "the output is neither f32 nor the inputs' type"
	case s.out != "f32" && !allow.acc16:
		return mmaSpec{}, "16-bit accumulators are summed in f32 on tensor cores only with " + Accumulate16Key
	}
	if !mmaBody(k, body, s) {
		return mmaSpec{}, "the body is not a multiply-add"
	}
	return s, ""
}

// mmaAllowed returns what the executable target of the variant that
// holds op allows (TF32Key, Accumulate16Key).
func mmaAllowed(op *ir.Operation) mmaAllow {
	for ; op != nil; op = op.ParentOp() {
		if op.Name == "hal.executable.variant" {
			t := hal.VariantTarget(op)
			if t == nil || t.Config == nil {
				return mmaAllow{}
			}
			on := func(key string) bool {
				b, ok := t.Config.Get(key).(ir.BoolAttr)
				return ok && b.Value
			}
			return mmaAllow{tf32: on(TF32Key), acc16: on(Accumulate16Key)}
		}
	}
	return mmaAllow{}
}

// mmaBody reports whether a matmul body is acc + x * y: in f32 of the
// inputs extended (arith.extf) for 16-bit inputs and an f32 output, else
// in the output's type (for a 16-bit output computed in f32 and rounded
// once at the store instead of at every step, where Accumulate16Key
// allows it).
func mmaBody(k *loopnest.Kernel, body *ir.Operation, s mmaSpec) bool {
	blk := body.Body()
	nl := len(k.Ranges)
	if blk == nil || len(blk.Args) != nl+3 {
		return false
	}
	x, y, acc := blk.Args[nl], blk.Args[nl+1], blk.Args[nl+2]
	// from maps a value to the input it is (through an extension to
	// f32 when the inputs are 16-bit and the output f32).
	from := map[*ir.Value]*ir.Value{}
	widen := s.elem() != s.out
	if !widen {
		from[x], from[y] = x, y
	}
	var prod, sum *ir.Value
	one := func(op *ir.Operation) bool { return len(op.Results) == 1 && len(op.Regions) == 0 }
	for i, op := range blk.Ops {
		switch {
		case op.Name == "arith.extf" && widen && one(op) && len(op.Operands) == 1 &&
			(op.Operands[0] == x || op.Operands[0] == y) && ir.TypeString(op.Results[0].Type) == "f32":
			from[op.Results[0]] = op.Operands[0]
		case op.Name == "arith.mulf" && prod == nil && one(op) && len(op.Operands) == 2:
			a, b := from[op.Operands[0]], from[op.Operands[1]]
			if !(a == x && b == y || a == y && b == x) {
				return false
			}
			prod = op.Results[0]
		case op.Name == "arith.addf" && prod != nil && sum == nil && one(op) && len(op.Operands) == 2 &&
			(op.Operands[0] == acc && op.Operands[1] == prod || op.Operands[0] == prod && op.Operands[1] == acc):
			sum = op.Results[0]
		case op.Name == "func.return" && i == len(blk.Ops)-1:
			return sum != nil && len(op.Operands) == 1 && op.Operands[0] == sum
		default:
			return false
		}
	}
	return false
}

// mmaMatmul emits a matmul-shaped nest on tensor cores (see mmaOf for
// which). The block walks its tile like tiledMatmul, in blocks of mmaBM
// x mmaBN outputs taking every nctaid.z-th column block from its
// ctaid.z-th. For each block, the reduction runs in steps of s.bk()
// through a ring of mmaStages shared stages: step s+2 is copied (16-byte
// cp.async.cg, whose source size zero-fills what is past the matrix)
// while step s is computed, with one barrier a step. A warp reads its A
// fragments with ldmatrix.x4 and its B fragments with ldmatrix.x4.trans
// (B is stored k-major; TF32 B fragments, 32-bit, one ld.shared a
// register), from tiles whose 16-byte chunks are XOR-swizzled so that
// the rows one ldmatrix phase reads fall in different banks, and
// accumulates in f32 with mma.sync. Outputs are stored from the
// accumulators (rounded to a 16-bit output once).
//
// The asynchronous 16-byte copies need A's and B's rows to start 16-byte
// aligned: both bases aligned and K and N multiples of 16 bytes (checked
// when the kernel runs, since bases and dynamic sizes are only known
// then). Otherwise each thread fills the same chunks element by element
// with bounds checks, and the outputs are stored one at a time.
func (n *nest) mmaMatmul(m *gpuloops.Matmul, s mmaSpec) error {
	f := n.f
	ia, ib, io := n.find("in", 0), n.find("in", 1), n.find("out", 0)
	I, J, R := m.I, m.J, m.R
	f.perf = append(f.perf, ".minnctapersm 2")
	fmt.Fprintf(&f.body, "\t// Tensor-core matmul (%s x %s -> %s, f32 accumulators): blocks of %dx%d outputs, 8 warps of 64x32,\n", s.in, s.in, s.out, mmaBM, mmaBN)
	esz, bk := s.size(), s.bk()
	fmt.Fprintf(&f.body, "\t// steps of %d along the reduction through %d cp.async stages of A %dx%d and B %dx%d.\n", bk, mmaStages, mmaBM, bk, bk, mmaBN)
	decl := func(typ string, names ...string) {
		f.decls = append(f.decls, fmt.Sprintf(".reg %s \t%s;", typ, strings.Join(names, ", ")))
	}
	sh := f.name + "_mma"
	f.decls = append(f.decls, fmt.Sprintf(".shared .align 128 .b8 %s[%d];", sh, mmaShared))
	decl(".b32", "%lane", "%wm", "%wn", "%K", "%N", "%rowlo", "%rowhi", "%row0", "%col0", "%cstep", "%kt", "%nkt", "%kfill",
		"%sm", "%cst", "%lst", "%cdst<4>", "%abase<2>", "%bbase<4>", "%ma<16>", "%mb<8>")
	decl(".b64", "%pa0", "%pb0", "%pc0", "%pi0", "%bt", "%nb", "%csrc<4>")
	decl(".pred", "%fast", "%cok<4>")
	decl(".f32", "%acc<64>")
	acc := func(mi, ni, e int) string { return fmt.Sprintf("%%acc%d", (mi*4+ni)*4+e) }
	tid := n.tid
	f.line("mov.u32 \t%%sm, %s;", sh)
	f.line("and.b32 \t%%lane, %s, 31;", tid)
	warp := f.reg("%r")
	f.line("shr.u32 \t%s, %s, 5;", warp, tid)
	f.line("shr.u32 \t%%wm, %s, 2;", warp)
	f.line("and.b32 \t%%wn, %s, 3;", warp)
	f.line("cvt.u32.u64 \t%%K, %s;", n.ranges[R])
	f.line("cvt.u32.u64 \t%%N, %s;", n.ranges[J])
	f.line("add.s32 \t%%nkt, %%K, %d;", bk-1)
	f.line("shr.u32 \t%%nkt, %%nkt, %d;", log2(bk))
	if n.outer == I {
		f.line("cvt.u32.u64 \t%%rowlo, %s;", n.lo)
		f.line("cvt.u32.u64 \t%%rowhi, %s;", n.hi)
		f.line("mov.u64 \t%%nb, 1;")
	} else {
		f.line("mov.u32 \t%%rowlo, 0;")
		f.line("cvt.u32.u64 \t%%rowhi, %s;", n.ranges[I])
		f.line("sub.s64 \t%%nb, %s, %s;", n.hi, n.lo)
		for _, b := range m.Batch[1:] {
			f.line("mul.lo.s64 \t%%nb, %%nb, %s;", n.ranges[b])
		}
	}
	// The shared addresses a lane's ldmatrix reads (less the stage's
	// offset) for each half ks of a step: A rows wm*64 + lane%16 (+16
	// per fragment row), chunk 2*ks + lane/16; for 16-bit B, k-rows
	// 16*ks + lane%8 + 8*(lane/8%2), chunk 4*wn + 2*p + lane/16 for
	// fragment pair p. A's chunk c of row r is stored at chunk c ^ (r/2
	// % 4), 16-bit B's chunk c of k-row r at c ^ (r % 8): the swizzles
	// the copies apply.
	l16, l8, lh, sw := f.reg("%r"), f.reg("%r"), f.reg("%r"), f.reg("%r")
	f.line("and.b32 \t%s, %%lane, 15;", l16)
	f.line("and.b32 \t%s, %%lane, 7;", l8)
	f.line("shr.u32 \t%s, %%lane, 4;", lh)
	f.line("shr.u32 \t%s, %s, 1;", sw, l16)
	f.line("and.b32 \t%s, %s, 3;", sw, sw)
	for ks := 0; ks < 2; ks++ {
		row, c := f.reg("%r"), f.reg("%r")
		f.line("mad.lo.u32 \t%s, %%wm, 64, %s;", row, l16)
		f.line("add.s32 \t%s, %s, %d;", c, lh, 2*ks)
		f.line("xor.b32 \t%s, %s, %s;", c, c, sw)
		f.line("shl.b32 \t%s, %s, 4;", c, c)
		f.line("mad.lo.u32 \t%%abase%d, %s, 64, %s;", ks, row, c)
		f.line("add.s32 \t%%abase%d, %%abase%d, %%sm;", ks, ks)
		if esz == 4 {
			continue
		}
		kr := f.reg("%r")
		f.line("shr.u32 \t%s, %%lane, 3;", kr)
		f.line("and.b32 \t%s, %s, 1;", kr, kr)
		f.line("mad.lo.u32 \t%s, %s, 8, %s;", kr, kr, l8)
		for p := 0; p < 2; p++ {
			c := f.reg("%r")
			f.line("mad.lo.u32 \t%s, %%wn, 4, %s;", c, lh)
			f.line("add.s32 \t%s, %s, %d;", c, c, 2*p)
			f.line("xor.b32 \t%s, %s, %s;", c, c, l8)
			f.line("shl.b32 \t%s, %s, 4;", c, c)
			b := fmt.Sprintf("%%bbase%d", 2*ks+p)
			f.line("mad.lo.u32 \t%s, %s, %d, %s;", b, kr, mmaBN*2, c)
			f.line("add.s32 \t%s, %s, %d;", b, b, mmaABytes+16*ks*mmaBN*2)
			f.line("add.s32 \t%s, %s, %%sm;", b, b)
		}
	}
	if esz == 4 {
		// TF32 B fragments are read one element a lane: b0 at k-row
		// t = lane%4 (b1 at t + 4) of fragment ni's column g = lane/4,
		// that is, chunk 8*wn + 2*ni + g/4, element g%4. B's chunk c of
		// k-row r is stored at c ^ 2*(r%4), which for these rows is
		// 8*wn + g/4 + 2*(ni ^ t): the 32 lanes hit 32 banks.
		t, g := f.reg("%r"), f.reg("%r")
		f.line("and.b32 \t%s, %%lane, 3;", t)
		f.line("shr.u32 \t%s, %%lane, 2;", g)
		for ni := 0; ni < 4; ni++ {
			c, e := f.reg("%r"), f.reg("%r")
			f.line("xor.b32 \t%s, %s, %d;", c, t, ni)
			f.line("shl.b32 \t%s, %s, 1;", c, c)
			f.line("shr.u32 \t%s, %s, 2;", e, g)
			f.line("add.s32 \t%s, %s, %s;", c, c, e)
			f.line("mad.lo.u32 \t%s, %%wn, 8, %s;", c, c)
			f.line("shl.b32 \t%s, %s, 4;", c, c)
			f.line("and.b32 \t%s, %s, 3;", e, g)
			f.line("mad.lo.u32 \t%s, %s, 4, %s;", c, e, c)
			b := fmt.Sprintf("%%bbase%d", ni)
			f.line("mad.lo.u32 \t%s, %s, %d, %s;", b, t, mmaBN*esz, c)
			f.line("add.s32 \t%s, %s, %d;", b, b, mmaABytes)
			f.line("add.s32 \t%s, %s, %%sm;", b, b)
		}
	}
	// The chunks this thread copies: A rows tid/4 and tid/4 + 64 at
	// chunk tid%4, B k-rows tid/cpr and tid/cpr + 256/cpr at chunk
	// tid%cpr, with cpr B's chunks a row (neighbouring threads read
	// neighbouring 16 bytes). A chunk holds per elements.
	per, cpr := 16/esz, mmaBN*esz/16
	type chunk struct {
		a        bool
		row, col string // A: row in the block, element column; B: k-row, element column in the block
	}
	var chunks [4]chunk
	for j := 0; j < 2; j++ {
		row, c, d := f.reg("%r"), f.reg("%r"), f.reg("%r")
		f.line("shr.u32 \t%s, %s, 2;", row, tid)
		f.line("add.s32 \t%s, %s, %d;", row, row, 64*j)
		f.line("and.b32 \t%s, %s, 3;", c, tid)
		f.line("shr.u32 \t%s, %s, 1;", d, row)
		f.line("and.b32 \t%s, %s, 3;", d, d)
		f.line("xor.b32 \t%s, %s, %s;", d, d, c)
		f.line("shl.b32 \t%s, %s, 4;", d, d)
		f.line("mad.lo.u32 \t%%cdst%d, %s, 64, %s;", j, row, d)
		col := f.reg("%r")
		f.line("shl.b32 \t%s, %s, %d;", col, c, log2(per))
		chunks[j] = chunk{a: true, row: row, col: col}
	}
	for j := 0; j < 2; j++ {
		row, c, d := f.reg("%r"), f.reg("%r"), f.reg("%r")
		f.line("shr.u32 \t%s, %s, %d;", row, tid, log2(cpr))
		f.line("add.s32 \t%s, %s, %d;", row, row, mmaThreads/cpr*j)
		f.line("and.b32 \t%s, %s, %d;", c, tid, cpr-1)
		// The swizzles the reads expect: chunk c of k-row r at c ^
		// (r % 8) for 16-bit elements, c ^ 2*(r % 4) for tf32.
		if esz == 2 {
			f.line("and.b32 \t%s, %s, 7;", d, row)
		} else {
			f.line("and.b32 \t%s, %s, 3;", d, row)
			f.line("shl.b32 \t%s, %s, 1;", d, d)
		}
		f.line("xor.b32 \t%s, %s, %s;", d, d, c)
		f.line("shl.b32 \t%s, %s, 4;", d, d)
		f.line("mad.lo.u32 \t%%cdst%d, %s, %d, %s;", 2+j, row, mmaBN*esz, d)
		f.line("add.s32 \t%%cdst%d, %%cdst%d, %d;", 2+j, 2+j, mmaABytes)
		col := f.reg("%r")
		f.line("shl.b32 \t%s, %s, %d;", col, c, log2(per))
		chunks[2+j] = chunk{row: row, col: col}
	}

	f.line("mov.u64 \t%%bt, 0;")
	f.body.WriteString("$L__mma_bt:\n")
	f.line("setp.ge.u64 \t%s, %%bt, %%nb;", n.bad)
	f.line("@%s bra \t$L__exit;", n.bad)
	if len(m.Batch) > 0 {
		rest := f.reg("%rd")
		f.line("mov.u64 \t%s, %%bt;", rest)
		for j := len(m.Batch) - 1; j >= 1; j-- {
			b := m.Batch[j]
			f.line("rem.u64 \t%s, %s, %s;", n.dims[b], rest, n.ranges[b])
			f.line("div.u64 \t%s, %s, %s;", rest, rest, n.ranges[b])
		}
		f.line("add.s64 \t%s, %s, %s;", n.dims[m.Batch[0]], n.lo, rest)
	}
	zero := f.reg("%rd")
	f.line("mov.u64 \t%s, 0;", zero)
	n.dims[I], n.dims[J], n.dims[R] = zero, zero, zero
	base := func(bi int, dst string) error {
		a, err := n.addr(bi)
		if err != nil {
			return err
		}
		f.line("mov.u64 \t%s, %s;", dst, a)
		return nil
	}
	if err := base(ia, "%pa0"); err != nil {
		return err
	}
	if err := base(ib, "%pb0"); err != nil {
		return err
	}
	if err := base(io, "%pc0"); err != nil {
		return err
	}
	init := -1
	if bi := n.find("init", 0); bi >= 0 && n.k.Outputs[0].Init {
		init = bi
		if err := base(bi, "%pi0"); err != nil {
			return err
		}
	}
	// fast: every row of A and B starts 16-byte aligned and so do C's
	// (and the init's) pairs of outputs.
	{
		t, t32, q := f.reg("%rd"), f.reg("%r"), f.reg("%p")
		f.line("or.b64 \t%s, %%pa0, %%pb0;", t)
		f.line("or.b64 \t%s, %s, %%pc0;", t, t)
		if init >= 0 {
			f.line("or.b64 \t%s, %s, %%pi0;", t, t)
		}
		f.line("and.b64 \t%s, %s, 15;", t, t)
		f.line("setp.eq.u64 \t%%fast, %s, 0;", t)
		f.line("or.b32 \t%s, %%K, %%N;", t32)
		f.line("and.b32 \t%s, %s, %d;", t32, t32, 16/esz-1)
		f.line("setp.eq.u32 \t%s, %s, 0;", q, t32)
		f.line("and.pred \t%%fast, %%fast, %s;", q)
	}
	f.line("mov.u32 \t%%row0, %%rowlo;")
	f.body.WriteString("$L__mma_r0:\n")
	f.line("setp.ge.u32 \t%s, %%row0, %%rowhi;", n.bad)
	f.line("@%s bra \t$L__mma_r0_end;", n.bad)
	cz, nz := f.reg("%r"), f.reg("%r")
	f.line("mov.u32 \t%s, %%ctaid.z;", cz)
	f.line("mov.u32 \t%s, %%nctaid.z;", nz)
	f.line("mul.lo.u32 \t%%col0, %s, %d;", cz, mmaBN)
	f.line("mul.lo.u32 \t%%cstep, %s, %d;", nz, mmaBN)
	f.body.WriteString("$L__mma_c0:\n")
	f.line("setp.ge.u32 \t%s, %%col0, %%N;", n.bad)
	f.line("@%s bra \t$L__mma_c0_end;", n.bad)
	// The copies' global addresses of step 0 and whether their rows
	// (A) and columns (B) are in the matrices; k is checked per step.
	for j, c := range chunks {
		ok := fmt.Sprintf("%%cok%d", j)
		src := fmt.Sprintf("%%csrc%d", j)
		if c.a {
			row := f.reg("%r")
			f.line("add.s32 \t%s, %%row0, %s;", row, c.row)
			f.line("setp.lt.u32 \t%s, %s, %%rowhi;", ok, row)
			n.rowAddr(src, "%pa0", row, "%K", c.col, esz)
		} else {
			col := f.reg("%r")
			f.line("add.s32 \t%s, %%col0, %s;", col, c.col)
			f.line("setp.lt.u32 \t%s, %s, %%N;", ok, col)
			n.rowAddr(src, "%pb0", c.row, "%N", col, esz)
		}
	}
	for mi := 0; mi < 4; mi++ {
		for ni := 0; ni < 4; ni++ {
			for e := 0; e < 4; e++ {
				f.line("mov.f32 \t%s, 0f00000000;", acc(mi, ni, e))
			}
		}
	}
	// fill copies step %kfill/bk into the stage at byte offset %lst
	// and advances the sources a step.
	bstep := f.reg("%rd")
	f.line("mul.wide.u32 \t%s, %%N, %d;", bstep, bk*esz)
	fill := func() {
		for j, c := range chunks {
			k := f.reg("%r")
			ok := f.reg("%p")
			if c.a {
				f.line("add.s32 \t%s, %%kfill, %s;", k, c.col)
			} else {
				f.line("add.s32 \t%s, %%kfill, %s;", k, c.row)
			}
			f.line("setp.lt.u32 \t%s, %s, %%K;", ok, k)
			f.line("and.pred \t%s, %s, %%cok%d;", ok, ok, j)
			dst := f.reg("%r")
			f.line("add.s32 \t%s, %%cdst%d, %%lst;", dst, j)
			f.line("add.s32 \t%s, %s, %%sm;", dst, dst)
			src := fmt.Sprintf("%%csrc%d", j)
			slowL, doneL := fmt.Sprintf("$L__mma_slow%d_%d", f.regs["%p"], j), fmt.Sprintf("$L__mma_filled%d_%d", f.regs["%p"], j)
			f.line("@!%%fast bra \t%s;", slowL)
			// A zero source size fills the chunk with zeros; the
			// address is the matrix's start then, which is valid.
			size, p := f.reg("%r"), f.reg("%rd")
			f.line("selp.b32 \t%s, 16, 0, %s;", size, ok)
			pbase := "%pa0"
			if !c.a {
				pbase = "%pb0"
			}
			f.line("selp.b64 \t%s, %s, %s, %s;", p, src, pbase, ok)
			f.line("cp.async.cg.shared.global \t[%s], [%s], 16, %s;", dst, p, size)
			f.line("bra.uni \t%s;", doneL)
			f.body.WriteString(slowL + ":\n")
			// Element by element, each checked against the matrix.
			var w [4]string
			for e := 0; e < per; e++ {
				v, pe := f.reg("%r"), f.reg("%p")
				f.line("mov.u32 \t%s, 0;", v)
				if c.a {
					ke := f.reg("%r")
					f.line("add.s32 \t%s, %s, %d;", ke, k, e)
					f.line("setp.lt.u32 \t%s, %s, %%K;", pe, ke)
				} else {
					ce := f.reg("%r")
					f.line("add.s32 \t%s, %%col0, %s;", ce, c.col)
					f.line("add.s32 \t%s, %s, %d;", ce, ce, e)
					f.line("setp.lt.u32 \t%s, %s, %%N;", pe, ce)
				}
				f.line("and.pred \t%s, %s, %s;", pe, pe, ok)
				if esz == 4 {
					f.line("@%s ld.global.b32 \t%s, [%s+%d];", pe, v, src, 4*e)
					w[e] = v
					continue
				}
				f.line("@%s ld.global.u16 \t%s, [%s+%d];", pe, v, src, 2*e)
				if e%2 == 0 {
					w[e/2] = v
				} else {
					f.line("mad.lo.u32 \t%s, %s, 65536, %s;", w[e/2], v, w[e/2])
				}
			}
			f.line("st.shared.v4.b32 \t[%s], {%s, %s, %s, %s};", dst, w[0], w[1], w[2], w[3])
			f.body.WriteString(doneL + ":\n")
			if c.a {
				f.line("add.s64 \t%s, %s, %d;", src, src, bk*esz)
			} else {
				f.line("add.s64 \t%s, %s, %s;", src, src, bstep)
			}
		}
		f.line("add.s32 \t%%kfill, %%kfill, %d;", bk)
	}
	// next advances a stage offset around the ring.
	next := func(r string) {
		p := f.reg("%p")
		f.line("add.s32 \t%s, %s, %d;", r, r, mmaStageBytes)
		f.line("setp.eq.u32 \t%s, %s, %d;", p, r, mmaShared)
		f.line("selp.b32 \t%s, 0, %s, %s;", r, r, p)
	}
	// Steps 0 and 1 into stages 0 and 1; a group each, empty or not,
	// so that wait_group counts steps.
	f.line("mov.u32 \t%%kfill, 0;")
	f.line("mov.u32 \t%%lst, 0;")
	for st := 0; st < mmaStages-1; st++ {
		skip := fmt.Sprintf("$L__mma_pro%d", st)
		f.line("setp.le.u32 \t%s, %%nkt, %d;", n.bad, st)
		f.line("@%s bra \t%s;", n.bad, skip)
		fill()
		f.body.WriteString(skip + ":\n")
		f.line("cp.async.commit_group;")
		next("%lst")
	}
	f.line("mov.u32 \t%%kt, 0;")
	f.line("mov.u32 \t%%cst, 0;")
	f.body.WriteString("$L__mma_k:\n")
	f.line("setp.ge.u32 \t%s, %%kt, %%nkt;", n.bad)
	f.line("@%s bra \t$L__mma_k_end;", n.bad)
	// Step kt has landed once at most one newer group is pending; the
	// barrier makes every thread's copies visible and tells that every
	// warp is done with the stage the next fill overwrites.
	f.line("cp.async.wait_group \t%d;", mmaStages-2)
	f.line("bar.sync \t0;")
	ahead := f.reg("%r")
	f.line("add.s32 \t%s, %%kt, %d;", ahead, mmaStages-1)
	f.line("setp.ge.u32 \t%s, %s, %%nkt;", n.bad, ahead)
	f.line("@%s bra \t$L__mma_ahead;", n.bad)
	fill()
	f.body.WriteString("$L__mma_ahead:\n")
	f.line("cp.async.commit_group;")
	next("%lst")
	ma := func(mi, r int) string { return fmt.Sprintf("%%ma%d", mi*4+r) }
	mb := func(ni, r int) string { return fmt.Sprintf("%%mb%d", ni*2+r) }
	mma := fmt.Sprintf("mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32", s.kmma(), s.in, s.in)
	var bs [4]string
	if esz == 4 {
		for ni := range bs {
			bs[ni] = f.reg("%r")
			f.line("add.s32 \t%s, %%bbase%d, %%cst;", bs[ni], ni)
		}
	}
	for ks := 0; ks < 2; ks++ {
		// A's fragments: for tf32, ldmatrix's 8x8 16-bit matrices are
		// 8x4 f32 ones, in the places of m16n8k8's A fragment.
		a := f.reg("%r")
		f.line("add.s32 \t%s, %%abase%d, %%cst;", a, ks)
		for mi := 0; mi < 4; mi++ {
			f.line("ldmatrix.sync.aligned.m8n8.x4.shared.b16 \t{%s, %s, %s, %s}, [%s+%d];", ma(mi, 0), ma(mi, 1), ma(mi, 2), ma(mi, 3), a, mi*16*64)
			if esz == 4 {
				for r := 0; r < 4; r++ {
					f.line("cvt.rna.tf32.f32 \t%s, %s;", ma(mi, r), ma(mi, r))
				}
			}
		}
		if esz == 4 {
			for ni := 0; ni < 4; ni++ {
				for h := 0; h < 2; h++ {
					f.line("ld.shared.b32 \t%s, [%s+%d];", mb(ni, h), bs[ni], (8*ks+4*h)*mmaBN*esz)
					f.line("cvt.rna.tf32.f32 \t%s, %s;", mb(ni, h), mb(ni, h))
				}
			}
		} else {
			for p := 0; p < 2; p++ {
				b := f.reg("%r")
				f.line("add.s32 \t%s, %%bbase%d, %%cst;", b, 2*ks+p)
				f.line("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 \t{%s, %s, %s, %s}, [%s];", mb(2*p, 0), mb(2*p, 1), mb(2*p+1, 0), mb(2*p+1, 1), b)
			}
		}
		for mi := 0; mi < 4; mi++ {
			for ni := 0; ni < 4; ni++ {
				d := fmt.Sprintf("{%s, %s, %s, %s}", acc(mi, ni, 0), acc(mi, ni, 1), acc(mi, ni, 2), acc(mi, ni, 3))
				f.line("%s \t%s, {%s, %s, %s, %s}, {%s, %s}, %s;", mma, d,
					ma(mi, 0), ma(mi, 1), ma(mi, 2), ma(mi, 3), mb(ni, 0), mb(ni, 1), d)
			}
		}
	}
	next("%cst")
	f.line("add.s32 \t%%kt, %%kt, 1;")
	f.line("bra.uni \t$L__mma_k;")
	f.body.WriteString("$L__mma_k_end:\n")
	// Every warp is done with the stages before the next block's
	// copies overwrite them.
	f.line("cp.async.wait_group \t0;")
	f.line("bar.sync \t0;")
	n.mmaStore(s, init, acc)
	f.line("add.s32 \t%%col0, %%col0, %%cstep;")
	f.line("bra.uni \t$L__mma_c0;")
	f.body.WriteString("$L__mma_c0_end:\n")
	f.line("add.s32 \t%%row0, %%row0, %d;", mmaBM)
	f.line("bra.uni \t$L__mma_r0;")
	f.body.WriteString("$L__mma_r0_end:\n")
	f.line("add.s64 \t%%bt, %%bt, 1;")
	f.line("bra.uni \t$L__mma_bt;")
	return nil
}

// mmaStore adds the init's values (when the output has one) to the
// accumulators and stores them: a thread's fragment (mi, ni) holds
// columns 2*(lane%4) and the next of rows lane/4 and lane/4 + 8 of the
// warp's 16 x 8 tile (mi, ni). Pairs go as one store on the fast path.
func (n *nest) mmaStore(s mmaSpec, init int, acc func(mi, ni, e int) string) {
	f := n.f
	g, t := f.reg("%r"), f.reg("%r")
	f.line("shr.u32 \t%s, %%lane, 2;", g)
	f.line("and.b32 \t%s, %%lane, 3;", t)
	row0, col0 := f.reg("%r"), f.reg("%r")
	f.line("mad.lo.u32 \t%s, %%wm, 64, %s;", row0, g)
	f.line("add.s32 \t%s, %s, %%row0;", row0, row0)
	f.line("mad.lo.u32 \t%s, %%wn, 16, %s;", col0, t)
	f.line("shl.b32 \t%s, %s, 1;", col0, col0)
	f.line("add.s32 \t%s, %s, %%col0;", col0, col0)
	size := 4
	if s.out != "f32" {
		size = 2
	}
	for _, fast := range []bool{true, false} {
		label := "$L__mma_store_slow"
		if fast {
			f.line("@!%%fast bra \t%s;", label)
		} else {
			f.body.WriteString(label + ":\n")
		}
		for mi := 0; mi < 4; mi++ {
			for h := 0; h < 2; h++ {
				row, rok, rowp, initp := f.reg("%r"), f.reg("%p"), f.reg("%rd"), f.reg("%rd")
				f.line("add.s32 \t%s, %s, %d;", row, row0, mi*16+h*8)
				f.line("setp.lt.u32 \t%s, %s, %%rowhi;", rok, row)
				n.rowAddr(rowp, "%pc0", row, "%N", col0, size)
				if init >= 0 {
					n.rowAddr(initp, "%pi0", row, "%N", col0, size)
				}
				for ni := 0; ni < 4; ni++ {
					c0, c1 := acc(mi, ni, 2*h), acc(mi, ni, 2*h+1)
					col, off := f.reg("%r"), ni*8*size
					f.line("add.s32 \t%s, %s, %d;", col, col0, ni*8)
					if fast {
						// N is a multiple of 8: the pair is in or out.
						p := f.reg("%p")
						f.line("setp.lt.u32 \t%s, %s, %%N;", p, col)
						f.line("and.pred \t%s, %s, %s;", p, p, rok)
						n.mmaPair(s, p, rowp, initp, init >= 0, off, c0, c1)
						continue
					}
					for e, c := range []string{c0, c1} {
						ce, p := f.reg("%r"), f.reg("%p")
						f.line("add.s32 \t%s, %s, %d;", ce, col, e)
						f.line("setp.lt.u32 \t%s, %s, %%N;", p, ce)
						f.line("and.pred \t%s, %s, %s;", p, p, rok)
						n.mmaOne(s, p, rowp, initp, init >= 0, off+e*size, c)
					}
				}
			}
		}
		if fast {
			f.line("bra.uni \t$L__mma_stored;")
		}
	}
	f.body.WriteString("$L__mma_stored:\n")
}

// mmaPair stores two neighbouring accumulators c0, c1 at [ptr+off] under
// p (as one 8-byte store for f32), adding the init's pair first when
// there is one.
func (n *nest) mmaPair(s mmaSpec, p, ptr, initp string, hasInit bool, off int, c0, c1 string) {
	f := n.f
	if s.out == "f32" {
		if hasInit {
			x, y := f.reg("%f"), f.reg("%f")
			f.line("@%s ld.global.v2.f32 \t{%s, %s}, [%s+%d];", p, x, y, initp, off)
			f.line("add.rn.f32 \t%s, %s, %s;", c0, c0, x)
			f.line("add.rn.f32 \t%s, %s, %s;", c1, c1, y)
		}
		f.line("@%s st.global.v2.f32 \t[%s+%d], {%s, %s};", p, ptr, off, c0, c1)
		return
	}
	// Two 16-bit stores: 4-byte ones would need the pair packed.
	n.mmaOne(s, p, ptr, initp, hasInit, off, c0)
	n.mmaOne(s, p, ptr, initp, hasInit, off+2, c1)
}

// mmaOne stores one accumulator c at [ptr+off] under p, adding the
// init's value first when there is one.
func (n *nest) mmaOne(s mmaSpec, p, ptr, initp string, hasInit bool, off int, c string) {
	f := n.f
	if s.out == "f32" {
		if hasInit {
			x := f.reg("%f")
			f.line("mov.f32 \t%s, 0f00000000;", x)
			f.line("@%s ld.global.f32 \t%s, [%s+%d];", p, x, initp, off)
			f.line("add.rn.f32 \t%s, %s, %s;", c, c, x)
		}
		f.line("@%s st.global.f32 \t[%s+%d], %s;", p, ptr, off, c)
		return
	}
	k := kindF16
	if s.out == "bf16" {
		k = kindBF16
	}
	h := f.reg("%h")
	if hasInit {
		f.line("mov.b16 \t%s, 0;", h)
		f.line("@%s ld.global.b16 \t%s, [%s+%d];", p, h, initp, off)
		f.line("add.rn.f32 \t%s, %s, %s;", c, c, f.widen(h, k))
	}
	f.narrow(h, c, k)
	f.line("@%s st.global.b16 \t[%s+%d], %s;", p, ptr, off, h)
}

// rowAddr sets dst to base + (row * length + col) elements of size bytes
// (row, length and col 32-bit registers).
func (n *nest) rowAddr(dst, base, row, length, col string, size int) {
	f := n.f
	t, c := f.reg("%rd"), f.reg("%rd")
	f.line("mul.wide.u32 \t%s, %s, %s;", t, row, length)
	f.line("cvt.u64.u32 \t%s, %s;", c, col)
	f.line("add.s64 \t%s, %s, %s;", t, t, c)
	if size > 1 {
		f.line("shl.b64 \t%s, %s, %d;", t, t, log2(size))
	}
	f.line("add.s64 \t%s, %s, %s;", dst, base, t)
}
