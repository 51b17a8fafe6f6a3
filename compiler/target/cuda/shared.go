package cuda

import (
	"fmt"

	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// Cooperative loop nests: a block's threads share a row reduction or a
// matmul block through shared memory (the decisions in package gpuloops).
// Barriers sit only where every thread of the block arrives: the loops
// around them have bounds that are the same for the whole block.

// call emits the body once with the given registers for the loop indices,
// the tensor inputs (by input position; scalars come from the nest) and
// the accumulators, and returns the registers of its results.
func (n *nest) call(dims, ins, accs []string) ([]string, error) {
	f := n.f
	blk := n.body.Body()
	if err := n.bind(dims, ins, accs); err != nil {
		return nil, err
	}
	for _, op := range blk.Ops {
		if op.Name == "func.return" {
			var out []string
			for _, v := range op.Operands {
				r, _, err := f.value(v)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
			if len(out) != len(n.k.Outputs) {
				return nil, fmt.Errorf("the body returns %d values for %d outputs", len(out), len(n.k.Outputs))
			}
			return out, nil
		}
		if err := f.loopNestOp(op); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("the loop-nest body has no func.return")
}

// partValue emits a shared reduction's body but for its combiner and
// returns the register of the value the combiner would fold into the
// accumulator (in the body's type). The accumulator has no other use
// (gpuloops.ReductionOf), so it needs no register.
func (n *nest) partValue(red *gpuloops.Reduction, dims, ins []string) (string, error) {
	f := n.f
	if err := n.bind(dims, ins, nil); err != nil {
		return "", err
	}
	for _, op := range n.body.Body().Ops {
		if op == red.Combiner || op.Name == "func.return" {
			continue
		}
		if err := f.loopNestOp(op); err != nil {
			return "", err
		}
	}
	r, _, err := f.value(red.Value)
	return r, err
}

// bind names the body's arguments: the loop indices, the tensor inputs
// (by input position; scalars come from the nest) and the accumulators
// (left unnamed when accs is nil).
func (n *nest) bind(dims, ins, accs []string) error {
	f := n.f
	blk := n.body.Body()
	nl := len(n.k.Ranges)
	for l := 0; l < nl; l++ {
		f.names[blk.Args[l]], f.kinds[blk.Args[l]] = dims[l], kindI64
	}
	for i, o := range n.k.Inputs {
		a := blk.Args[nl+i]
		if o.Scalar != nil {
			sk, err := loopNestKind(o.Scalar)
			if err != nil {
				return err
			}
			f.names[a], f.kinds[a] = n.scalars[i], sk
			continue
		}
		if o.Indexed {
			f.names[a], f.kinds[a] = ins[i], kindI64 // the binding's address
			continue
		}
		f.names[a], f.kinds[a] = ins[i], n.kinds[n.find("in", i)]
	}
	if accs == nil {
		return nil
	}
	for i := range n.k.Outputs {
		a := blk.Args[nl+len(n.k.Inputs)+i]
		f.names[a], f.kinds[a] = accs[i], n.kinds[n.find("out", i)]
	}
	return nil
}

// shared declares a block-shared array of bytes and returns a register
// with its address.
func (n *nest) shared(name string, bytes int) string {
	f := n.f
	sym := f.name + "_" + name
	f.decls = append(f.decls, fmt.Sprintf(".shared .align 8 .b8 %s[%d];", sym, bytes))
	r := f.reg("%r")
	f.line("mov.u32 \t%s, %s;", r, sym)
	return r
}

// decompose sets the parallel loop registers from the linear index i of
// the block's parallel iterations (the last parallel loop fastest).
func (n *nest) decompose(i string) {
	f := n.f
	if n.outer < 0 {
		return
	}
	rest := f.reg("%rd")
	f.line("mov.u64 \t%s, %s;", rest, i)
	for j := len(n.pars) - 1; j >= 1; j-- {
		p := n.pars[j]
		f.line("rem.u64 \t%s, %s, %s;", n.dims[p], rest, n.ranges[p])
		f.line("div.u64 \t%s, %s, %s;", rest, rest, n.ranges[p])
	}
	f.line("add.s64 \t%s, %s, %s;", n.dims[n.outer], n.lo, rest)
}

// ReductionUnroll is how many elements of its strided part a thread
// loads before it folds them: a bandwidth-bound reduction needs several
// independent loads in flight per thread, one at a time leaves most of
// the memory system idle (as in the vulkan-spirv target).
const ReductionUnroll = 4

// memoryBoundBlocks asks ptxas for at least four blocks of a
// bandwidth-bound kernel (reductions, elementwise loop nests) on a
// multiprocessor: 1024 threads with their unrolled loads in flight, in
// at most 64 registers a thread, which these kernels need far fewer of.
const memoryBoundBlocks = ".minnctapersm 4"

// reductionOf is gpuloops.ReductionOf for outputs whose parts the block
// can pass through shuffles and shared memory (sharedKind, and 16-bit
// floats, which cross a shuffle in the low half of a 32-bit register).
func reductionOf(k *loopnest.Kernel, body *ir.Operation, out ptxKind) *gpuloops.Reduction {
	if (!sharedKind(out) && !isHalf(out)) || k.FirstIndexed() >= 0 {
		return nil
	}
	r := gpuloops.ReductionOf(k, body)
	if r == nil {
		return nil
	}
	if _, _, ok := r.Identity(); !ok {
		return nil
	}
	return r
}

// identity sets reg to the reduction's identity.
func (n *nest) identity(red *gpuloops.Reduction, reg string, kind ptxKind) {
	fl, i, _ := red.Identity()
	switch kind {
	case kindF32:
		n.f.line("mov.f32 \t%s, %s;", reg, f32Lit(fl))
	case kindF64:
		n.f.line("mov.f64 \t%s, %s;", reg, f64Lit(fl))
	case kindF16, kindBF16:
		n.f.line("mov.b16 \t%s, 0x%04X;", reg, halfLit(fl, kind))
	case kindI32:
		n.f.line("mov.b32 \t%s, 0x%08X;", reg, uint32(i))
	default:
		n.f.line("mov.b64 \t%s, 0x%016X;", reg, uint64(i))
	}
}

// combine emits the reduction's combiner alone on registers a and b (in
// the places of its operands) and returns the result's register. f32
// registers of a reduction with wide parts (gpuloops.Reduction.WideParts)
// combine with the f32 op, rounded once (.rn, which ptxas does not
// contract into an fma), not with the combiner of the 16-bit type.
func (n *nest) combine(red *gpuloops.Reduction, a, b string, kind ptxKind) (string, error) {
	f, c := n.f, red.Combiner
	if kind == kindF32 && red.WideParts() {
		op := "add"
		if c.Name == "arith.mulf" {
			op = "mul"
		}
		r := f.reg("%f")
		f.line("%s.rn.f32 \t%s, %s, %s;", op, r, a, b)
		return r, nil
	}
	f.names[c.Operands[0]], f.kinds[c.Operands[0]] = a, kind
	f.names[c.Operands[1]], f.kinds[c.Operands[1]] = b, kind
	if err := f.loopNestOp(c); err != nil {
		return "", err
	}
	return f.names[c.Results[0]], nil
}

// butterfly combines p across the lanes of each group of width lanes of
// the warp (shfl.sync.bfly, widths a power of two up to 32), so that every
// lane ends with its group's total; p is updated in place. 64-bit values
// cross as two 32-bit halves, 16-bit ones in the low half of one.
func (n *nest) butterfly(red *gpuloops.Reduction, p string, kind ptxKind, width int) error {
	f := n.f
	for o := width / 2; o >= 1; o /= 2 {
		q := f.reg(kind.reg)
		if kind.size == 8 {
			lo, hi := f.reg("%r"), f.reg("%r")
			f.line("mov.b64 \t{%s, %s}, %s;", lo, hi, p)
			f.line("shfl.sync.bfly.b32 \t%s, %s, %d, 31, -1;", lo, lo, o)
			f.line("shfl.sync.bfly.b32 \t%s, %s, %d, 31, -1;", hi, hi, o)
			f.line("mov.b64 \t%s, {%s, %s};", q, lo, hi)
		} else if kind.size == 2 {
			w := f.reg("%r")
			f.line("cvt.u32.u16 \t%s, %s;", w, p)
			f.line("shfl.sync.bfly.b32 \t%s, %s, %d, 31, -1;", w, w, o)
			f.line("cvt.u16.u32 \t%s, %s;", q, w)
		} else {
			f.line("shfl.sync.bfly.b32 \t%s, %s, %d, 31, -1;", q, p, o)
		}
		t, err := n.combine(red, p, q, kind)
		if err != nil {
			return err
		}
		f.mov(p, t, kind)
	}
	return nil
}

// sharedReduction emits a reduction shared by the block
// (gpuloops.Reduction), one output element after another, or, when the
// block owns enough of them (gpuloops.WarpRows), one per warp at a time
// (warp w takes elements w, w + 8, ...). Each thread runs the body over a
// strided part of the row from the combiner's identity, loading
// ReductionUnroll elements (coalesced: neighbouring threads read
// neighbouring elements) before it folds them; each warp combines its
// parts with shfl.sync.bfly. A warp that owns its element folds the total
// into the accumulator's initial value and stores it from lane 0; for a
// block's element, lane 0 of each warp leaves the warp's total in shared
// memory, warp 0 combines the totals the same way and thread 0 stores.
// The combiner is the body's own op, so NaNs and signed zeros follow its
// semantics; but an f16 or bf16 sum or product keeps its parts in f32
// (gpuloops.Reduction.WideParts): the body but its combiner computes each
// element's value in the 16-bit type, which is widened and folded into
// the thread's f32 part; f32 crosses the shuffles and shared memory, and
// the initial value, widened, plus the total is rounded once to the
// 16-bit type when stored. This is the GLSL of the vulkan-spirv target
// (there, subgroups of any size) in PTX.
func (n *nest) sharedReduction(red *gpuloops.Reduction) error {
	f := n.f
	f.g.needISA(60) // shfl.sync
	f.perf = append(f.perf, memoryBoundBlocks)
	const warps = LoopNestBlockSize / 32
	warpRows := gpuloops.WarpRows(n.k, warps)
	out := n.find("out", 0)
	kind := n.kinds[out]
	// The parts' kind: f32 for wide parts, rounded to kind once, when
	// the total is stored.
	pk := kind
	if red.WideParts() {
		pk = kindF32
	}
	lane, warp := f.reg("%r"), f.reg("%r")
	f.line("and.b32 \t%s, %s, 31;", lane, n.tid)
	f.line("shr.u32 \t%s, %s, 5;", warp, n.tid)
	var myPart, lanePart string
	if !warpRows {
		part := n.shared("part", warps*pk.size)
		myPart, lanePart = f.reg("%r"), f.reg("%r")
		f.line("mad.lo.u32 \t%s, %s, %d, %s;", myPart, warp, pk.size, part)
		f.line("mad.lo.u32 \t%s, %s, %d, %s;", lanePart, lane, pk.size, part)
	}
	// The threads sharing a row, and the output elements a block's
	// threads (or a warp) step by.
	first, width, next := n.tid, LoopNestBlockSize, 1
	if warpRows {
		first, width, next = lane, 32, warps
	}
	i := f.reg("%rd")
	if warpRows {
		f.line("cvt.u64.u32 \t%s, %s;", i, warp)
	} else {
		f.line("mov.u64 \t%s, 0;", i)
	}
	f.body.WriteString("$L__out:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, i, n.count)
	f.line("@%s bra \t$L__exit;", n.bad)
	n.decompose(i)
	p, err := n.stridedParts(red, kind, pk, first, width, "$L__")
	if err != nil {
		return err
	}
	total := p
	if !warpRows {
		q := f.reg("%p")
		f.line("setp.eq.u32 \t%s, %s, 0;", q, lane)
		f.line("@%s st.shared.%s \t[%s], %s;", q, pk.mem, myPart, p)
		f.line("bar.sync \t0;")
		f.line("setp.ne.u32 \t%s, %s, 0;", n.bad, warp)
		f.line("@%s bra \t$L__next;", n.bad)
		// Warp 0: lane l < warps takes warp l's total, the others the
		// identity.
		total = f.reg(pk.reg)
		n.identity(red, total, pk)
		f.line("setp.lt.u32 \t%s, %s, %d;", q, lane, warps)
		f.line("@%s ld.shared.%s \t%s, [%s];", q, pk.mem, total, lanePart)
		if err := n.butterfly(red, total, pk, warps); err != nil {
			return err
		}
	}
	f.line("setp.ne.u32 \t%s, %s, 0;", n.bad, lane)
	f.line("@%s bra \t$L__next;", n.bad)
	acc := f.reg(kind.reg)
	if n.k.Outputs[0].Init {
		if err := n.load(n.find("init", 0), acc); err != nil {
			return err
		}
	} else {
		f.zero(acc, kind)
	}
	res, err := n.foldTotal(red, total, acc, kind, pk)
	if err != nil {
		return err
	}
	if err := n.store(out, res); err != nil {
		return err
	}
	f.body.WriteString("$L__next:\n")
	if !warpRows {
		f.line("bar.sync \t0;")
	}
	f.line("add.s64 \t%s, %s, %d;", i, i, next)
	f.line("bra.uni \t$L__out;")
	return nil
}

// inputs loads the nest's tensor inputs at its current loop indices (by
// input position; scalars are left empty, and an indexed input is its
// binding's address).
func (n *nest) inputs() ([]string, error) {
	ins := make([]string, len(n.k.Inputs))
	for x, o := range n.k.Inputs {
		if o.Scalar != nil {
			continue
		}
		bi := n.find("in", x)
		if o.Indexed {
			// The body reads the binding at offsets it computes.
			ins[x] = n.bases[bi]
			continue
		}
		ins[x] = n.f.reg(n.kinds[bi].reg)
		if err := n.load(bi, ins[x]); err != nil {
			return nil, err
		}
	}
	return ins, nil
}

// stridedParts emits a shared reduction's parts: each of width threads,
// from reduction index first on, runs the body over every width-th
// element of the row from the combiner's identity, ReductionUnroll loads
// in flight before it folds them (neighbouring threads read neighbouring
// elements), and the parts are then combined across each warp with
// shfl.sync.bfly, so that every lane holds its warp's total, which it
// returns (in pk, f32 for wide parts; see sharedReduction). Labels start
// with prefix; the reduction loop's index register is restored.
func (n *nest) stridedParts(red *gpuloops.Reduction, kind, pk ptxKind, first string, width int, prefix string) (string, error) {
	f := n.f
	r := red.Loop
	N := n.ranges[r]
	step := ReductionUnroll * width
	last := step - width
	// Whole groups while e < lim = max(N, last) - last, then single
	// elements.
	lim := f.reg("%rd")
	f.line("max.u64 \t%s, %s, %d;", lim, N, last)
	f.line("sub.s64 \t%s, %s, %d;", lim, lim, last)
	row := n.dims[r]
	defer func() { n.dims[r] = row }()
	p := f.reg(pk.reg)
	n.identity(red, p, pk)
	e := f.reg("%rd")
	f.line("cvt.u64.u32 \t%s, %s;", e, first)
	// fold loads the inputs at reduction indices e + j * width for j <
	// js, then runs the body on each in order.
	fold := func(js int) error {
		idx := make([]string, js)
		ins := make([][]string, js)
		for j := range idx {
			idx[j] = e
			if j > 0 {
				idx[j] = f.reg("%rd")
				f.line("add.s64 \t%s, %s, %d;", idx[j], e, j*width)
			}
			n.dims[r] = idx[j]
			var err error
			if ins[j], err = n.inputs(); err != nil {
				return err
			}
		}
		for j := range idx {
			dims := append([]string(nil), n.dims...)
			dims[r] = idx[j]
			if pk != kind {
				v, err := n.partValue(red, dims, ins[j])
				if err != nil {
					return err
				}
				t, err := n.combine(red, p, f.widen(v, kind), pk)
				if err != nil {
					return err
				}
				f.mov(p, t, pk)
				continue
			}
			t, err := n.call(dims, ins[j], []string{p})
			if err != nil {
				return err
			}
			f.mov(p, t[0], kind)
		}
		return nil
	}
	f.body.WriteString(prefix + "unrolled:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, e, lim)
	f.line("@%s bra \t%stail;", n.bad, prefix)
	if err := fold(ReductionUnroll); err != nil {
		return "", err
	}
	f.line("add.s64 \t%s, %s, %d;", e, e, step)
	f.line("bra.uni \t%sunrolled;", prefix)
	f.body.WriteString(prefix + "tail:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, e, N)
	f.line("@%s bra \t%stail_end;", n.bad, prefix)
	if err := fold(1); err != nil {
		return "", err
	}
	f.line("add.s64 \t%s, %s, %d;", e, e, width)
	f.line("bra.uni \t%stail;", prefix)
	f.body.WriteString(prefix + "tail_end:\n")
	if err := n.butterfly(red, p, pk, 32); err != nil {
		return "", err
	}
	return p, nil
}

// foldTotal folds a shared reduction's total (in pk) into the initial
// value acc (in kind) as the body does, in its operand order, and
// returns the result in kind: wide parts' f32 sum is rounded once.
func (n *nest) foldTotal(red *gpuloops.Reduction, total, acc string, kind, pk ptxKind) (string, error) {
	f := n.f
	if pk != kind {
		acc = f.widen(acc, kind)
	}
	a, b := total, acc
	if red.Value != red.Combiner.Operands[0] {
		a, b = acc, total
	}
	res, err := n.combine(red, a, b, pk)
	if err != nil {
		return "", err
	}
	if pk != kind {
		h := f.reg(kind.reg)
		f.narrow(h, res, kind)
		res = h
	}
	return res, nil
}

// initial loads the initial value of output i's accumulator at the
// nest's current loop indices: its init, or zero.
func (n *nest) initial(i int) (string, error) {
	kind := n.kinds[n.find("out", i)]
	acc := n.f.reg(kind.reg)
	if n.k.Outputs[i].Init {
		return acc, n.load(n.find("init", i), acc)
	}
	n.f.zero(acc, kind)
	return acc, nil
}

// initials is initial for every output, in order.
func (n *nest) initials() ([]string, error) {
	var accs []string
	for i := range n.k.Outputs {
		acc, err := n.initial(i)
		if err != nil {
			return nil, err
		}
		accs = append(accs, acc)
	}
	return accs, nil
}

// callStore emits the body at the loop indices dims with the inputs ins
// and accumulators accs, and stores its results to the outputs there.
func (n *nest) callStore(dims, ins, accs []string) error {
	res, err := n.call(dims, ins, accs)
	if err != nil {
		return err
	}
	copy(n.dims, dims)
	for i, r := range res {
		if err := n.store(n.find("out", i), r); err != nil {
			return err
		}
	}
	return nil
}
