package cuda

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// matmulShared is the shared memory a tiled matmul's tiles may take, in
// elements: 48 KiB (what a block may declare statically on every arch)
// of 8-byte ones.
const matmulShared = 48 * 1024 / 8

// matmulLayout is the block layout of a tiled matmul on cuda.
func matmulLayout(m *gpuloops.Matmul, k *loopnest.Kernel) gpuloops.Layout {
	return m.Layout(k, LoopNestBlockSize, matmulShared)
}

// tiledMatmul emits a matmul-shaped nest, the same algorithm as the
// vulkan-spirv target's GLSL (compiler/target/vulkan/matmul.go) written
// out in PTX: the block walks its tile in blocks of l.TM() x l.TN()
// outputs, taking every nctaid.z-th block of columns from its ctaid.z-th
// (see splitOf). For each l.TK-long step of the reduction its threads
// stage the A tile (transposed) and the B tile in shared memory, reading
// global memory in runs of 4 elements (one ld.global.v4 where the matrix
// is 16-byte aligned and its rows a multiple of 4 elements long); then
// every thread reads its runs of rows and columns with ld.shared.v4 and
// advances its l.RM x l.RN accumulators, held in registers, by the step
// in order. The steps of whole tiles are unrolled, with the shared
// addresses as immediates and no bounds checks; the last, shorter tile
// checks them. A body that multiplies its inputs and adds the product to
// the accumulator becomes one fma (mad for integers), as drivers contract
// the GLSL; any other body runs as written once per element and step.
// Indices within the matrices are 32-bit (dynamic sizes are 32-bit
// constants), addresses 64-bit. A matmul that tensor cores can compute
// (mmaOf: f16 or bf16 multiply-adds into f32 from sm_80) goes to mmaMatmul
// instead; 16-bit elements that cannot are staged here one at a time.
func (n *nest) tiledMatmul(m *gpuloops.Matmul, l gpuloops.Layout) error {
	if s, why := mmaOf(n.f.g.arch.Number(), n.k, n.body, mmaAllowed(n.body)); why == "" {
		return n.mmaMatmul(m, s)
	}
	f := n.f
	k := n.k
	ia, ib, io := n.find("in", 0), n.find("in", 1), n.find("out", 0)
	ka, kb, ko := n.kinds[ia], n.kinds[ib], n.kinds[io]
	tm, tn, tk, pa := l.TM(), l.TN(), l.TK, l.APitch()
	vm, vn := l.VM(), l.VN()
	const threads = LoopNestBlockSize
	I, J, R := m.I, m.J, m.R
	mac := macOf(k, n.body)
	if mac != "" && ko.size == 4 {
		// Two blocks a multiprocessor, so that one computes while the
		// other waits at its barrier: ptxas keeps to 128 registers a
		// thread (64 accumulators, 16 fragment elements, the copies'
		// registers and addresses fit).
		f.perf = append(f.perf, ".minnctapersm 2")
	}
	ga := min(4, tk) // A is read in runs of ga steps
	fmt.Fprintf(&f.body, "\t// Tiled matmul: blocks of %dx%d outputs, %dx%d threads with %dx%d accumulators each (in runs of %dx%d),\n", tm, tn, l.TR, l.TC, l.RM, l.RN, vm, vn)
	fmt.Fprintf(&f.body, "\t// steps of %d along the reduction; shared A %dx%d (transposed, pitch %d) and B %dx%d.\n", tk, tk, tm, pa, tk, tn)
	decl := func(typ string, names ...string) {
		f.decls = append(f.decls, fmt.Sprintf(".reg %s \t%s;", typ, strings.Join(names, ", ")))
	}
	regType := map[string]string{"%f": ".f32", "%fd": ".f64", "%r": ".b32", "%rd": ".b64", "%h": ".b16"}
	shA, shB := f.name+"_a", f.name+"_b"
	f.decls = append(f.decls,
		fmt.Sprintf(".shared .align 16 .b8 %s[%d];", shA, 2*l.ATile()*ka.size),
		fmt.Sprintf(".shared .align 16 .b8 %s[%d];", shB, 2*l.BTile()*kb.size))
	decl(".b32", "%tr", "%tc", "%K", "%N", "%rowlo", "%rowhi", "%row0", "%col0", "%cstep", "%k0", "%rm0", "%cn0", "%sha", "%shb", "%sat", "%sbt",
		"%abuf", "%bbuf", "%anext", "%bnext", "%sac", "%sbc")
	decl(".b64", "%pa0", "%pb0", "%pc0", "%bstep", "%bt", "%nb")
	decl(".pred", "%veca", "%vecb", "%more")
	decl(regType[ko.reg], fmt.Sprintf("%%acc<%d>", l.RM*l.RN))
	decl(regType[ka.reg], fmt.Sprintf("%%x<%d>", l.RM))
	decl(regType[kb.reg], fmt.Sprintf("%%y<%d>", l.RN))
	acc := func(a, b int) string { return fmt.Sprintf("%%acc%d", a*l.RN+b) }
	f.line("mov.u32 \t%%sha, %s;", shA)
	f.line("mov.u32 \t%%shb, %s;", shB)
	f.line("div.u32 \t%%tr, %s, %d;", n.tid, l.TC)
	f.line("rem.u32 \t%%tc, %s, %d;", n.tid, l.TC)
	f.line("mad.lo.u32 \t%%sat, %%tr, %d, %%sha;", vm*ka.size)
	f.line("mad.lo.u32 \t%%sbt, %%tc, %d, %%shb;", vn*kb.size)
	f.line("cvt.u32.u64 \t%%K, %s;", n.ranges[R])
	f.line("cvt.u32.u64 \t%%N, %s;", n.ranges[J])
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
	// B's pointers advance by TK rows a step.
	f.line("mul.wide.u32 \t%%bstep, %%N, %d;", tk*kb.size)
	// rowAddr sets dst to base + (row * length + col) elements of size.
	rowAddr := func(dst, base, row, length, col string, size int) {
		t, c := f.reg("%rd"), f.reg("%rd")
		f.line("mul.wide.u32 \t%s, %s, %s;", t, row, length)
		f.line("cvt.u64.u32 \t%s, %s;", c, col)
		f.line("add.s64 \t%s, %s, %s;", t, t, c)
		f.line("shl.b64 \t%s, %s, %d;", t, t, log2(size))
		f.line("add.s64 \t%s, %s, %s;", dst, base, t)
	}
	// aligned sets p when base is 16-byte aligned and length a multiple
	// of 4 (of 4-byte elements): rows of such a matrix start aligned.
	aligned := func(p, base, length string) {
		t, t32, q := f.reg("%rd"), f.reg("%r"), f.reg("%p")
		f.line("and.b64 \t%s, %s, 15;", t, base)
		f.line("setp.eq.u64 \t%s, %s, 0;", p, t)
		f.line("and.b32 \t%s, %s, 3;", t32, length)
		f.line("setp.eq.u32 \t%s, %s, 0;", q, t32)
		f.line("and.pred \t%s, %s, %s;", p, p, q)
	}
	f.line("mov.u64 \t%%bt, 0;")
	f.body.WriteString("$L__mm_bt:\n")
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
	// The batch's matrices: element (i, j) of one is at its base + (i *
	// its row length + j) elements.
	zero := f.reg("%rd")
	f.line("mov.u64 \t%s, 0;", zero)
	n.dims[I], n.dims[J], n.dims[R] = zero, zero, zero
	bases := map[int]string{}
	for _, bi := range []int{ia, ib, io, n.find("init", 0)} {
		if bi < 0 {
			continue
		}
		a, err := n.addr(bi)
		if err != nil {
			return err
		}
		bases[bi] = a
	}
	f.line("mov.u64 \t%%pa0, %s;", bases[ia])
	f.line("mov.u64 \t%%pb0, %s;", bases[ib])
	f.line("mov.u64 \t%%pc0, %s;", bases[io])
	// The vector forms need 4-byte elements in runs of 4.
	vecA, vecB := ka.size == 4 && ga == 4, kb.size == 4
	if vecA {
		aligned("%veca", "%pa0", "%K")
	}
	if vecB {
		aligned("%vecb", "%pb0", "%N")
	}
	f.line("mov.u32 \t%%row0, %%rowlo;")
	f.body.WriteString("$L__mm_r0:\n")
	f.line("setp.ge.u32 \t%s, %%row0, %%rowhi;", n.bad)
	f.line("@%s bra \t$L__mm_r0_end;", n.bad)
	cz, nz := f.reg("%r"), f.reg("%r")
	f.line("mov.u32 \t%s, %%ctaid.z;", cz)
	f.line("mov.u32 \t%s, %%nctaid.z;", nz)
	f.line("mul.lo.u32 \t%%col0, %s, %d;", cz, tn)
	f.line("mul.lo.u32 \t%%cstep, %s, %d;", nz, tn)
	f.body.WriteString("$L__mm_c0:\n")
	f.line("setp.ge.u32 \t%s, %%col0, %%N;", n.bad)
	f.line("@%s bra \t$L__mm_c0_end;", n.bad)
	f.line("mad.lo.u32 \t%%rm0, %%tr, %d, %%row0;", vm)
	f.line("mad.lo.u32 \t%%cn0, %%tc, %d, %%col0;", vn)
	// thread computes this thread's rows of the block and whether each
	// of its rows and columns is in the matrix: where they are used, so
	// that none of them is live across the reduction.
	thread := func() (rows, rowOK, colOK []string) {
		rows, rowOK, colOK = make([]string, l.RM), make([]string, l.RM), make([]string, l.RN)
		for a := range rowOK {
			rows[a], rowOK[a] = f.reg("%r"), f.reg("%p")
			f.line("add.s32 \t%s, %%rm0, %d;", rows[a], l.RowOf(a))
			f.line("setp.lt.u32 \t%s, %s, %%rowhi;", rowOK[a], rows[a])
		}
		for b := range colOK {
			c := f.reg("%r")
			colOK[b] = f.reg("%p")
			f.line("add.s32 \t%s, %%cn0, %d;", c, l.ColOf(b))
			f.line("setp.lt.u32 \t%s, %s, %%N;", colOK[b], c)
		}
		return rows, rowOK, colOK
	}
	// each visits the thread's elements of an output-shaped matrix at
	// base with a predicate that they are in it and their address.
	each := func(base string, size int, fn func(a, b int, p, addr string)) {
		rows, rowOK, colOK := thread()
		for a := 0; a < l.RM; a++ {
			ptr := f.reg("%rd")
			rowAddr(ptr, base, rows[a], "%N", "%cn0", size)
			for b := 0; b < l.RN; b++ {
				p := f.reg("%p")
				f.line("and.pred \t%s, %s, %s;", p, rowOK[a], colOK[b])
				fn(a, b, p, fmt.Sprintf("%s+%d", ptr, l.ColOf(b)*size))
			}
		}
	}
	for a := 0; a < l.RM; a++ {
		for b := 0; b < l.RN; b++ {
			f.zero(acc(a, b), ko)
		}
	}
	if bi := n.find("init", 0); bi >= 0 && k.Outputs[0].Init {
		each(bases[bi], n.kinds[bi].size, func(a, b int, p, addr string) {
			f.line("@%s ld.global.%s \t%s, [%s];", p, n.kinds[bi].mem, acc(a, b), addr)
		})
	}
	// The copies of the tiles: which element runs this thread copies,
	// where it reads them (the pointers advance a step at a time),
	// which registers hold them between the read and the write, and
	// where in a pair of tiles it writes them.
	type copyA struct {
		in, ok, kq, ptr, dst string // in: "" where every thread has a run
		v                    []string
	}
	// inGroups returns a predicate that run e is one of a tile's groups
	// runs, or "" where every thread has one.
	inGroups := func(e string, groups int) string {
		if groups%threads == 0 {
			return ""
		}
		p := f.reg("%p")
		f.line("setp.lt.u32 \t%s, %s, %d;", p, e, groups)
		return p
	}
	// and sets p to p && q, where q may be "" (true).
	and := func(p, q string) {
		if q != "" {
			f.line("and.pred \t%s, %s, %s;", p, p, q)
		}
	}
	guard := func(p string) string {
		if p == "" {
			return ""
		}
		return "@" + p + " "
	}
	var as []copyA
	for it := 0; it*threads < tm*tk/ga; it++ {
		c := copyA{ok: f.reg("%p"), kq: f.reg("%r"), ptr: f.reg("%rd"), dst: f.reg("%r")}
		for j := 0; j < ga; j++ {
			c.v = append(c.v, f.reg(ka.reg))
		}
		e, mm, row := f.reg("%r"), f.reg("%r"), f.reg("%r")
		f.line("add.s32 \t%s, %s, %d;", e, n.tid, it*threads)
		c.in = inGroups(e, tm*tk/ga)
		f.line("shr.u32 \t%s, %s, %d;", mm, e, log2(tk/ga))
		f.line("and.b32 \t%s, %s, %d;", c.kq, e, tk/ga-1)
		f.line("shl.b32 \t%s, %s, %d;", c.kq, c.kq, log2(ga))
		f.line("add.s32 \t%s, %%row0, %s;", row, mm)
		f.line("setp.lt.u32 \t%s, %s, %%rowhi;", c.ok, row)
		and(c.ok, c.in)
		rowAddr(c.ptr, "%pa0", row, "%K", c.kq, ka.size)
		f.line("mad.lo.u32 \t%s, %s, %d, %s;", c.dst, c.kq, pa, mm)
		f.line("mad.lo.u32 \t%s, %s, %d, %%sha;", c.dst, c.dst, ka.size)
		as = append(as, c)
	}
	type copyB struct {
		in, kr, col, ok, ptr, dst string // ok: the run's first column is in the matrix
		v                         []string
	}
	var bs []copyB
	for it := 0; it*threads < tk*tn/4; it++ {
		c := copyB{kr: f.reg("%r"), col: f.reg("%r"), ok: f.reg("%p"), ptr: f.reg("%rd"), dst: f.reg("%r")}
		for j := 0; j < 4; j++ {
			c.v = append(c.v, f.reg(kb.reg))
		}
		e, nq := f.reg("%r"), f.reg("%r")
		f.line("add.s32 \t%s, %s, %d;", e, n.tid, it*threads)
		c.in = inGroups(e, tk*tn/4)
		f.line("shr.u32 \t%s, %s, %d;", c.kr, e, log2(tn/4))
		f.line("and.b32 \t%s, %s, %d;", nq, e, tn/4-1)
		f.line("shl.b32 \t%s, %s, 2;", nq, nq)
		f.line("add.s32 \t%s, %%col0, %s;", c.col, nq)
		f.line("setp.lt.u32 \t%s, %s, %%N;", c.ok, c.col)
		and(c.ok, c.in)
		rowAddr(c.ptr, "%pb0", c.kr, "%N", c.col, kb.size)
		f.line("mad.lo.u32 \t%s, %s, %d, %s;", c.dst, c.kr, tn, nq)
		f.line("mad.lo.u32 \t%s, %s, %d, %%shb;", c.dst, c.dst, kb.size)
		bs = append(bs, c)
	}
	// fetchA and fetchB read a step's runs into the copies' registers
	// (zero outside the matrix) and advance the pointers to the next
	// step: vector is whether the aligned forms may be used, tail
	// whether the step is the last, shorter one (and k0 its index).
	fetchA := func(vector, tail bool) {
		for _, c := range as {
			for _, v := range c.v {
				f.zero(v, ka)
			}
			switch {
			case vector:
				f.line("@%s ld.global.v4.%s \t{%s}, [%s];", c.ok, ka.mem, strings.Join(c.v, ", "), c.ptr)
			case tail:
				for j, v := range c.v {
					kj, p := f.reg("%r"), f.reg("%p")
					f.line("add.s32 \t%s, %%k0, %s;", kj, c.kq)
					f.line("add.s32 \t%s, %s, %d;", kj, kj, j)
					f.line("setp.lt.u32 \t%s, %s, %%K;", p, kj)
					f.line("and.pred \t%s, %s, %s;", p, p, c.ok)
					f.line("@%s ld.global.%s \t%s, [%s+%d];", p, ka.mem, v, c.ptr, j*ka.size)
				}
			default:
				for j, v := range c.v {
					f.line("@%s ld.global.%s \t%s, [%s+%d];", c.ok, ka.mem, v, c.ptr, j*ka.size)
				}
			}
			if !tail {
				f.line("add.s64 \t%s, %s, %d;", c.ptr, c.ptr, tk*ka.size)
			}
		}
	}
	fetchB := func(vector, tail bool) {
		for _, c := range bs {
			for _, v := range c.v {
				f.zero(v, kb)
			}
			// A vector run is whole where its first column is in the
			// matrix (the rows' length is a multiple of 4); a scalar
			// one checks each column, and the last step each row.
			var kok string
			if tail {
				kr := f.reg("%r")
				kok = f.reg("%p")
				f.line("add.s32 \t%s, %%k0, %s;", kr, c.kr)
				f.line("setp.lt.u32 \t%s, %s, %%K;", kok, kr)
			}
			if vector {
				f.line("@%s ld.global.v4.%s \t{%s}, [%s];", c.ok, kb.mem, strings.Join(c.v, ", "), c.ptr)
			} else {
				for j, v := range c.v {
					cj, p := f.reg("%r"), f.reg("%p")
					f.line("add.s32 \t%s, %s, %d;", cj, c.col, j)
					f.line("setp.lt.u32 \t%s, %s, %%N;", p, cj)
					and(p, c.in)
					and(p, kok)
					f.line("@%s ld.global.%s \t%s, [%s+%d];", p, kb.mem, v, c.ptr, j*kb.size)
				}
			}
			if !tail {
				f.line("add.s64 \t%s, %s, %%bstep;", c.ptr, c.ptr)
			}
		}
	}
	// either emits the vector form of a read under p, else the scalar
	// one; only the scalar one where vectors cannot be.
	either := func(label string, can bool, p string, emit func(vector bool)) {
		if !can {
			emit(false)
			return
		}
		f.line("@!%s bra \t%s_scalar;", p, label)
		emit(true)
		f.line("bra.uni \t%s_done;", label)
		f.body.WriteString(label + "_scalar:\n")
		emit(false)
		f.body.WriteString(label + "_done:\n")
	}
	fetch := func(label string) {
		either(label+"_a", vecA, "%veca", func(v bool) { fetchA(v, false) })
		either(label+"_b", vecB, "%vecb", func(v bool) { fetchB(v, false) })
	}
	// put writes the copies' registers into the pair of tiles aoff and
	// boff bytes from the first.
	put := func(aoff, boff string) {
		for _, c := range as {
			d := f.reg("%r")
			f.line("add.s32 \t%s, %s, %s;", d, c.dst, aoff)
			for j, v := range c.v {
				f.line("%sst.shared.%s \t[%s+%d], %s;", guard(c.in), ka.mem, d, j*pa*ka.size, v)
			}
		}
		for _, c := range bs {
			d := f.reg("%r")
			f.line("add.s32 \t%s, %s, %s;", d, c.dst, boff)
			if kb.size == 4 {
				f.line("%sst.shared.v4.%s \t[%s], {%s};", guard(c.in), kb.mem, d, strings.Join(c.v, ", "))
				continue
			}
			for j, v := range c.v {
				f.line("%sst.shared.%s \t[%s+%d], %s;", guard(c.in), kb.mem, d, j*kb.size, v)
			}
		}
	}
	// step advances the accumulators by one step of the staged tiles,
	// whose rows start at sa and sb (plus offA and offB bytes); kidx is
	// the step's reduction index (for a body that reads it).
	rows64, cols64 := make([]string, l.RM), make([]string, l.RN)
	if mac == "" {
		rows, _, _ := thread()
		for a := range rows64 {
			rows64[a] = f.reg("%rd")
			f.line("cvt.u64.u32 \t%s, %s;", rows64[a], rows[a])
		}
		for b := range cols64 {
			c := f.reg("%r")
			cols64[b] = f.reg("%rd")
			f.line("add.s32 \t%s, %%cn0, %d;", c, l.ColOf(b))
			f.line("cvt.u64.u32 \t%s, %s;", cols64[b], c)
		}
	}
	step := func(sa string, offA int, sb string, offB int, kidx func() string) error {
		x := func(a int) string { return fmt.Sprintf("%%x%d", a) }
		y := func(b int) string { return fmt.Sprintf("%%y%d", b) }
		for gr := 0; gr < l.RM/vm; gr++ {
			off := offA + l.RowOf(gr*vm)*ka.size
			if vm == 4 && ka.size == 4 {
				f.line("ld.shared.v4.%s \t{%s, %s, %s, %s}, [%s+%d];", ka.mem, x(4*gr), x(4*gr+1), x(4*gr+2), x(4*gr+3), sa, off)
				continue
			}
			for j := 0; j < vm; j++ {
				f.line("ld.shared.%s \t%s, [%s+%d];", ka.mem, x(gr*vm+j), sa, off+j*ka.size)
			}
		}
		for gr := 0; gr < l.RN/vn; gr++ {
			off := offB + l.ColOf(gr*vn)*kb.size
			if vn == 4 && kb.size == 4 {
				f.line("ld.shared.v4.%s \t{%s, %s, %s, %s}, [%s+%d];", kb.mem, y(4*gr), y(4*gr+1), y(4*gr+2), y(4*gr+3), sb, off)
				continue
			}
			for j := 0; j < vn; j++ {
				f.line("ld.shared.%s \t%s, [%s+%d];", kb.mem, y(gr*vn+j), sb, off+j*kb.size)
			}
		}
		var dims []string
		if mac == "" {
			dims = append([]string(nil), n.dims...)
			dims[R] = kidx()
		}
		for a := 0; a < l.RM; a++ {
			for b := 0; b < l.RN; b++ {
				if mac != "" {
					f.line("%s \t%s, %s, %s, %s;", mac, acc(a, b), x(a), y(b), acc(a, b))
					continue
				}
				dims[I], dims[J] = rows64[a], cols64[b]
				res, err := n.call(dims, []string{x(a), y(b)}, []string{acc(a, b)})
				if err != nil {
					return err
				}
				f.mov(acc(a, b), res[0], ko)
			}
		}
		return nil
	}
	// The first whole step goes into pair 0 (%abuf and %bbuf are the
	// byte offsets of the pair being computed from, 0 or one pair's
	// size); each whole step reads the next whole one before computing
	// and writes it into the other pair after, then one barrier.
	aBytes, bBytes := l.ATile()*ka.size, l.BTile()*kb.size
	f.line("mov.u32 \t%%k0, 0;")
	f.line("mov.u32 \t%%abuf, 0;")
	f.line("mov.u32 \t%%bbuf, 0;")
	f.line("setp.lt.u32 \t%s, %%K, %d;", n.bad, tk)
	f.line("@%s bra \t$L__mm_k0;", n.bad)
	fetch("$L__mm_first")
	put("%abuf", "%bbuf")
	f.line("bar.sync \t0;")
	f.body.WriteString("$L__mm_k0:\n")
	left := f.reg("%r")
	f.line("sub.s32 \t%s, %%K, %%k0;", left)
	f.line("setp.lt.u32 \t%s, %s, %d;", n.bad, left, tk)
	f.line("@%s bra \t$L__mm_k0_end;", n.bad)
	f.line("sub.s32 \t%s, %s, %d;", left, left, tk)
	f.line("setp.ge.u32 \t%%more, %s, %d;", left, tk)
	f.line("@!%%more bra \t$L__mm_next_done;")
	fetch("$L__mm_next")
	f.body.WriteString("$L__mm_next_done:\n")
	f.line("add.s32 \t%%sac, %%sat, %%abuf;")
	f.line("add.s32 \t%%sbc, %%sbt, %%bbuf;")
	for kk := 0; kk < tk; kk++ {
		err := step("%sac", kk*pa*ka.size, "%sbc", kk*tn*kb.size, func() string {
			r, r64 := f.reg("%r"), f.reg("%rd")
			f.line("add.s32 \t%s, %%k0, %d;", r, kk)
			f.line("cvt.u64.u32 \t%s, %s;", r64, r)
			return r64
		})
		if err != nil {
			return err
		}
	}
	f.line("xor.b32 \t%%anext, %%abuf, %d;", aBytes)
	f.line("xor.b32 \t%%bnext, %%bbuf, %d;", bBytes)
	f.line("@!%%more bra \t$L__mm_put_done;")
	put("%anext", "%bnext")
	f.body.WriteString("$L__mm_put_done:\n")
	f.line("bar.sync \t0;")
	f.line("mov.u32 \t%%abuf, %%anext;")
	f.line("mov.u32 \t%%bbuf, %%bnext;")
	f.line("add.s32 \t%%k0, %%k0, %d;", tk)
	f.line("bra.uni \t$L__mm_k0;")
	f.body.WriteString("$L__mm_k0_end:\n")
	// The last, shorter step, into the pair the last whole step did not
	// compute from.
	f.line("setp.ge.u32 \t%s, %%k0, %%K;", n.bad)
	f.line("@%s bra \t$L__mm_tail_end;", n.bad)
	fetchA(false, true)
	fetchB(false, true)
	put("%abuf", "%bbuf")
	f.line("bar.sync \t0;")
	kk, sa, sb := f.reg("%r"), f.reg("%r"), f.reg("%r")
	f.line("mov.u32 \t%s, %%k0;", kk)
	f.line("add.s32 \t%s, %%sat, %%abuf;", sa)
	f.line("add.s32 \t%s, %%sbt, %%bbuf;", sb)
	f.body.WriteString("$L__mm_tail:\n")
	f.line("setp.ge.u32 \t%s, %s, %%K;", n.bad, kk)
	f.line("@%s bra \t$L__mm_tail_done;", n.bad)
	err := step(sa, 0, sb, 0, func() string {
		r64 := f.reg("%rd")
		f.line("cvt.u64.u32 \t%s, %s;", r64, kk)
		return r64
	})
	if err != nil {
		return err
	}
	f.line("add.s32 \t%s, %s, 1;", kk, kk)
	f.line("add.s32 \t%s, %s, %d;", sa, sa, pa*ka.size)
	f.line("add.s32 \t%s, %s, %d;", sb, sb, tn*kb.size)
	f.line("bra.uni \t$L__mm_tail;")
	f.body.WriteString("$L__mm_tail_done:\n")
	f.line("bar.sync \t0;")
	f.body.WriteString("$L__mm_tail_end:\n")
	each("%pc0", ko.size, func(a, b int, p, addr string) {
		f.line("@%s st.global.%s \t[%s], %s;", p, ko.mem, addr, acc(a, b))
	})
	f.line("add.s32 \t%%col0, %%col0, %%cstep;")
	f.line("bra.uni \t$L__mm_c0;")
	f.body.WriteString("$L__mm_c0_end:\n")
	f.line("add.s32 \t%%row0, %%row0, %d;", tm)
	f.line("bra.uni \t$L__mm_r0;")
	f.body.WriteString("$L__mm_r0_end:\n")
	f.line("add.s64 \t%%bt, %%bt, 1;")
	f.line("bra.uni \t$L__mm_bt;")
	return nil
}

// macOf returns the instruction that a matmul's body amounts to when it
// multiplies its two inputs and adds the product to the accumulator
// (fma.rn for floats, mad.lo for integers, of the output's type), or "".
func macOf(k *loopnest.Kernel, body *ir.Operation) string {
	blk := body.Body()
	nl := len(k.Ranges)
	if blk == nil || len(blk.Args) != nl+3 || len(blk.Ops) != 3 {
		return ""
	}
	x, y, acc := blk.Args[nl], blk.Args[nl+1], blk.Args[nl+2]
	mul, add, ret := blk.Ops[0], blk.Ops[1], blk.Ops[2]
	kind, err := loopNestKind(acc.Type)
	t := ir.TypeString(acc.Type)
	if err != nil || ir.TypeString(x.Type) != t || ir.TypeString(y.Type) != t {
		return ""
	}
	var want [2]string
	var inst string
	switch kind {
	case kindF32, kindF64:
		want, inst = [2]string{"arith.mulf", "arith.addf"}, "fma.rn."+kind.typ
	case kindI32, kindI64:
		want, inst = [2]string{"arith.muli", "arith.addi"}, "mad.lo."+kind.typ
	default:
		return ""
	}
	pair := func(op *ir.Operation, a, b *ir.Value) bool {
		return len(op.Operands) == 2 && len(op.Results) == 1 && len(op.Regions) == 0 &&
			(op.Operands[0] == a && op.Operands[1] == b || op.Operands[0] == b && op.Operands[1] == a)
	}
	if mul.Name != want[0] || add.Name != want[1] || !pair(mul, x, y) || !pair(add, acc, mul.Results[0]) ||
		ret.Name != "func.return" || len(ret.Operands) != 1 || ret.Operands[0] != add.Results[0] {
		return ""
	}
	return inst
}
