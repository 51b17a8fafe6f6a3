package cuda

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// LoopNestBlockSize is the thread block size of loop-nest kernels: eight
// warps, enough to hide latency on every arch from sm_52 to sm_90 while
// leaving room for several blocks per multiprocessor.
const LoopNestBlockSize = 256

// Narrow integers live in 32-bit registers, sign-extended from their
// width (re-extended with bfe after every op; unsigned ops mask their
// operands first), as the Vulkan target keeps them in ints. Index values
// are 64-bit.
var (
	kindI8  = ptxKind{reg: "%r", typ: "s32", bits: "b32", mem: "s8", size: 1}
	kindI16 = ptxKind{reg: "%r", typ: "s32", bits: "b32", mem: "s16", size: 2}
)

// loopNestKind extends kindOf with the types loop-nest bodies and tensors
// use beyond elementwise ones: i8, i16 and index.
func loopNestKind(t ir.Type) (ptxKind, error) {
	switch t := arith.ElementType(t).(type) {
	case ir.IndexType:
		return kindI64, nil
	case ir.IntegerType:
		switch t.Width {
		case 8:
			return kindI8, nil
		case 16:
			return kindI16, nil
		}
	}
	k, err := kindOf(t)
	if err != nil {
		return k, fmt.Errorf("element type %s is not supported by cuda code generation (supported: f16, bf16, f32, f64, i1, i8, i16, i32, i64, index)", ir.TypeString(t))
	}
	return k, nil
}

// narrowBits is the width of a narrow integer kind, or 0.
func narrowBits(k ptxKind) int {
	switch k {
	case kindI8:
		return 8
	case kindI16:
		return 16
	}
	return 0
}

// loopNest emits the entry point of a linalg loop nest (the loopnest.Attr
// contract). Parameters are the binding pointers and then the 32-bit
// constants. Block b (linearly, ctaid.y * nctaid.x + ctaid.x, so a grid
// split into rows still covers every tile) owns tile b of the first
// parallel loop; its threads share the tile's parallel iterations with the
// last parallel loop fastest, and each runs the reduction loops of its
// output elements in order. Kernel parameters carry no buffer lengths, so
// only the conditions the constants decide are checked: when two
// dimensions one loop indexes differ, or a constant index is outside a
// dynamic dimension, the kernel returns without writing (CUDA has no
// per-dispatch status either).
func (g *ptxgen) loopNest(ex, fn *ir.Operation, d *ir.DictAttr) (Kernel, error) {
	k, err := loopnest.DecodeIndexed(d)
	if err != nil {
		return Kernel{}, ir.OpErrorf(fn, "%v", err)
	}
	if why := k.Fused(); why != "" {
		return Kernel{}, ir.OpErrorf(fn, "the loop nest has %s, which this target does not compile (dispatch formation fuses only for targets that do)", why)
	}
	body := g.funcs[k.Body]
	if body == nil || body.Body() == nil {
		return Kernel{}, ir.OpErrorf(fn, "loop-nest body @%s is not defined in the module", k.Body)
	}
	if len(body.Regions[0].Blocks) != 1 {
		return Kernel{}, ir.OpErrorf(body, "loop-nest bodies must have a single block")
	}
	ft := function.Type(body)
	nl, ni, no := len(k.Ranges), len(k.Inputs), len(k.Outputs)
	if ft == nil || len(ft.Inputs) != nl+ni+no || len(ft.Results) != no {
		return Kernel{}, ir.OpErrorf(body, "loop-nest body must take %d indices, %d inputs and %d accumulators and return %d values", nl, ni, no, no)
	}
	bindings := k.Bindings()
	kinds := make([]ptxKind, len(bindings))
	for bi, b := range bindings {
		if kinds[bi], err = loopNestKind(b.Type.Elem); err != nil {
			return Kernel{}, ir.OpErrorf(fn, "%s #%d: %v", map[string]string{"in": "input", "init": "init of output", "out": "output"}[b.Role], b.Index, err)
		}
	}
	nc := k.NumConstants()
	f, name, params, bases, err := g.entry(ex, "the loop nest", len(bindings), nc)
	if err != nil {
		return Kernel{}, err
	}
	// Scalars, then dynamic sizes, from the constants.
	ci := 0
	constant := func() string {
		r := f.reg("%r")
		f.line("ld.param.u32 \t%s, [%s_param_%d];", r, name, len(bindings)+ci)
		ci++
		return r
	}
	scalars := map[int]string{}
	for i, o := range k.Inputs {
		if o.Scalar == nil {
			continue
		}
		sk, err := loopNestKind(o.Scalar)
		if err != nil {
			return Kernel{}, ir.OpErrorf(fn, "scalar input #%d: %v", i, err)
		}
		r, ok := f.scalarConstant(sk, constant())
		if !ok {
			return Kernel{}, ir.OpErrorf(fn, "scalar input #%d of type %s cannot come from a 32-bit constant", i, ir.TypeString(o.Scalar))
		}
		scalars[i] = r
	}
	sizes := make([][]string, len(bindings))
	for bi, b := range bindings {
		sizes[bi] = make([]string, len(b.Type.Shape))
		for r, sz := range b.Type.Shape {
			s := f.reg("%rd")
			if sz == ir.Dynamic {
				f.line("cvt.u64.u32 \t%s, %s;", s, constant())
			} else {
				f.line("mov.u64 \t%s, %d;", s, sz)
			}
			sizes[bi][r] = s
		}
	}
	ranges := make([]string, nl)
	for l, r := range k.Ranges {
		if r != ir.Dynamic {
			ranges[l] = f.reg("%rd")
			f.line("mov.u64 \t%s, %d;", ranges[l], r)
		}
	}
	// A dynamic range is the size of a dimension the loop indexes
	// directly, in an operand that is not partial when there is one.
	for _, partial := range []bool{false, true} {
		for bi, b := range bindings {
			for r, e := range b.Map.Results {
				if e.Kind == ir.AffineDim && ranges[e.Pos] == "" && b.Partial == partial {
					ranges[e.Pos] = sizes[bi][r]
				}
			}
		}
	}
	bad := f.reg("%p")
	for bi, b := range bindings {
		if b.Indexed {
			// Computed offsets are clamped into the tensor, which needs
			// an element to clamp to.
			f.line("setp.eq.u64 \t%s, %s, 0;", bad, sizes[bi][0])
			f.line("@%s bra \t$L__exit;", bad)
		}
		for r, e := range b.Map.Results {
			dyn := b.Type.Shape[r] == ir.Dynamic
			switch {
			case e.Kind == ir.AffineDim && (dyn || k.Ranges[e.Pos] == ir.Dynamic) && ranges[e.Pos] != sizes[bi][r] && b.Partial:
				// A partly written output or partly read input may be
				// longer than the loop.
				f.line("setp.gt.u64 \t%s, %s, %s;", bad, ranges[e.Pos], sizes[bi][r])
				f.line("@%s bra \t$L__exit;", bad)
			case e.Kind == ir.AffineDim && (dyn || k.Ranges[e.Pos] == ir.Dynamic) && ranges[e.Pos] != sizes[bi][r]:
				f.line("setp.ne.u64 \t%s, %s, %s;", bad, ranges[e.Pos], sizes[bi][r])
				f.line("@%s bra \t$L__exit;", bad)
			case e.Kind == ir.AffineConst && dyn:
				f.line("setp.le.u64 \t%s, %s, %d;", bad, sizes[bi][r], e.Value)
				f.line("@%s bra \t$L__exit;", bad)
			}
		}
	}
	// Window indices (a convolution's input) that the types do not prove
	// in bounds: with every loop they use at its last iteration (when none
	// is empty), the index must be inside its dimension.
	windows := 0
	for bi, b := range bindings {
		for r, e := range b.Map.Results {
			if e.Kind == ir.AffineDim || e.Kind == ir.AffineConst {
				continue
			}
			lin, ok := loopnest.Linear(e)
			if !ok {
				return Kernel{}, ir.OpErrorf(fn, "binding %d: index %d (%s) is not a non-negative combination of loop indices", bi, r, e)
			}
			if hi, ok := lin.Max(k.Ranges); ok && b.Type.Shape[r] != ir.Dynamic && hi < b.Type.Shape[r] {
				continue
			}
			windows++
			skip := fmt.Sprintf("$L__window%d", windows)
			hi, t := f.reg("%rd"), f.reg("%rd")
			f.line("mov.u64 \t%s, %d;", hi, lin.Const)
			for _, d := range sortedDims(lin) {
				f.line("setp.eq.u64 \t%s, %s, 0;", bad, ranges[d])
				f.line("@%s bra \t%s;", bad, skip)
				f.line("sub.s64 \t%s, %s, 1;", t, ranges[d])
				f.line("mad.lo.s64 \t%s, %s, %d, %s;", hi, t, lin.Coeffs[d], hi)
			}
			f.line("setp.ge.u64 \t%s, %s, %s;", bad, hi, sizes[bi][r])
			f.line("@%s bra \t$L__exit;", bad)
			f.body.WriteString(skip + ":\n")
		}
	}
	// This block's tile and its count of parallel iterations.
	cy, nx, cx := f.reg("%r"), f.reg("%r"), f.reg("%r")
	f.line("mov.u32 \t%s, %%ctaid.y;", cy)
	f.line("mov.u32 \t%s, %%nctaid.x;", nx)
	f.line("mov.u32 \t%s, %%ctaid.x;", cx)
	tile := f.reg("%rd")
	f.line("mul.wide.u32 \t%s, %s, %s;", tile, cy, nx)
	cx64 := f.reg("%rd")
	f.line("cvt.u64.u32 \t%s, %s;", cx64, cx)
	f.line("add.s64 \t%s, %s, %s;", tile, tile, cx64)
	var pars, reds []int
	for i, it := range k.Iterators {
		if it == "parallel" {
			pars = append(pars, i)
		} else {
			reds = append(reds, i)
		}
	}
	outer := k.OuterParallel()
	count, lo, hi := f.reg("%rd"), f.reg("%rd"), f.reg("%rd")
	if outer >= 0 {
		f.line("mul.lo.s64 \t%s, %s, %d;", lo, tile, k.Tile)
		f.line("add.s64 \t%s, %s, %d;", hi, lo, k.Tile)
		f.line("min.u64 \t%s, %s, %s;", hi, hi, ranges[outer])
		f.line("setp.ge.u64 \t%s, %s, %s;", bad, lo, hi)
		f.line("@%s bra \t$L__exit;", bad)
		f.line("sub.s64 \t%s, %s, %s;", count, hi, lo)
		for _, p := range pars[1:] {
			f.line("mul.lo.s64 \t%s, %s, %s;", count, count, ranges[p])
		}
	} else {
		f.line("setp.ne.s64 \t%s, %s, 0;", bad, tile)
		f.line("@%s bra \t$L__exit;", bad)
		f.line("mov.u64 \t%s, 1;", count)
	}
	tid := f.reg("%r")
	f.line("mov.u32 \t%s, %%tid.x;", tid)
	iter := f.reg("%rd")
	f.line("cvt.u64.u32 \t%s, %s;", iter, tid)
	dims := make([]string, nl)
	for l := range dims {
		dims[l] = f.reg("%rd")
	}
	// addr is the address of binding bi's element at its map.
	addr := func(bi int) (string, error) {
		off := f.reg("%rd")
		f.line("mov.u64 \t%s, 0;", off)
		for r, e := range bindings[bi].Map.Results {
			var x string
			switch e.Kind {
			case ir.AffineDim:
				x = dims[e.Pos]
			case ir.AffineConst:
				x = f.reg("%rd")
				f.line("mov.u64 \t%s, %d;", x, e.Value)
			default:
				lin, ok := loopnest.Linear(e)
				if !ok {
					return "", fmt.Errorf("binding %d: index %d (%s) is not a non-negative combination of loop indices", bi, r, e)
				}
				x = f.reg("%rd")
				f.line("mov.u64 \t%s, %d;", x, lin.Const)
				for _, d := range sortedDims(lin) {
					f.line("mad.lo.s64 \t%s, %s, %d, %s;", x, dims[d], lin.Coeffs[d], x)
				}
			}
			f.line("mad.lo.s64 \t%s, %s, %s, %s;", off, off, sizes[bi][r], x)
		}
		a := f.reg("%rd")
		if s := kinds[bi].size; s > 1 {
			f.line("shl.b64 \t%s, %s, %d;", off, off, log2(s))
		}
		f.line("add.s64 \t%s, %s, %s;", a, bases[bi], off)
		return a, nil
	}
	load := func(bi int, dst string) error {
		a, err := addr(bi)
		if err != nil {
			return err
		}
		f.loadGlobal(dst, a, kinds[bi])
		return nil
	}
	store := func(bi int, src string) error {
		a, err := addr(bi)
		if err != nil {
			return err
		}
		f.storeGlobal(a, src, kinds[bi])
		return nil
	}
	find := func(role string, i int) int { return findBinding(bindings, role, i) }
	n := &nest{f: f, k: k, body: body, bindings: bindings, kinds: kinds, bases: bases, ranges: ranges, dims: dims,
		lo: lo, hi: hi, count: count, tid: tid, bad: bad, outer: outer, pars: pars, scalars: scalars,
		addr: addr, load: load, store: store, find: find}
	if red := reductionOf(k, body, kinds[find("out", 0)]); red != nil {
		if err := n.sharedReduction(red); err != nil {
			return Kernel{}, ir.OpErrorf(fn, "%v", err)
		}
		return n.finish(name, params, nc)
	}
	if m := tiledMatmulOf(k); m != nil {
		if err := n.tiledMatmul(m, matmulLayout(m, k)); err != nil {
			return Kernel{}, ir.OpErrorf(fn, "%v", err)
		}
		return n.finish(name, params, nc)
	}
	if len(reds) == 0 && outer >= 0 {
		// The loop below finishes the iterations the unrolled one left.
		if err := n.unrolled(iter); err != nil {
			return Kernel{}, ir.OpErrorf(fn, "%v", err)
		}
	}
	f.body.WriteString("$L__par:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", bad, iter, count)
	f.line("@%s bra \t$L__exit;", bad)
	if outer >= 0 {
		rest := f.reg("%rd")
		f.line("mov.u64 \t%s, %s;", rest, iter)
		for j := len(pars) - 1; j >= 1; j-- {
			p := pars[j]
			f.line("rem.u64 \t%s, %s, %s;", dims[p], rest, ranges[p])
			f.line("div.u64 \t%s, %s, %s;", rest, rest, ranges[p])
		}
		f.line("add.s64 \t%s, %s, %s;", dims[outer], lo, rest)
	}
	blk := body.Body()
	accs := make([]string, no)
	for i, o := range k.Outputs {
		bi := find("out", i)
		accs[i] = f.reg(kinds[bi].reg)
		f.names[blk.Args[nl+ni+i]] = accs[i]
		f.kinds[blk.Args[nl+ni+i]] = kinds[bi]
		if o.Init {
			if err := load(find("init", i), accs[i]); err != nil {
				return Kernel{}, ir.OpErrorf(fn, "%v", err)
			}
			continue
		}
		f.zero(accs[i], kinds[bi])
	}
	for l := 0; l < nl; l++ {
		f.names[blk.Args[l]] = dims[l]
		f.kinds[blk.Args[l]] = kindI64
	}
	for _, r := range reds {
		f.line("mov.u64 \t%s, 0;", dims[r])
		f.body.WriteString(fmt.Sprintf("$L__red%d:\n", r))
		f.line("setp.ge.u64 \t%s, %s, %s;", bad, dims[r], ranges[r])
		f.line("@%s bra \t$L__red%d_end;", bad, r)
	}
	for i, o := range k.Inputs {
		a := blk.Args[nl+i]
		if o.Scalar != nil {
			sk, _ := loopNestKind(o.Scalar)
			f.names[a], f.kinds[a] = scalars[i], sk
			continue
		}
		bi := find("in", i)
		if o.Indexed {
			// The body reads the binding at offsets it computes.
			f.names[a], f.kinds[a] = bases[bi], kindI64
			continue
		}
		r := f.define(a, kinds[bi])
		if err := load(bi, r); err != nil {
			return Kernel{}, ir.OpErrorf(fn, "%v", err)
		}
	}
	returned := false
	for _, op := range blk.Ops {
		if op.Name == "func.return" {
			if len(op.Operands) != no {
				return Kernel{}, ir.OpErrorf(op, "returns %d values; the body declares %d results", len(op.Operands), no)
			}
			// Through temporaries: a result may be another accumulator.
			tmps := make([]string, no)
			for i, v := range op.Operands {
				src, kind, err := f.value(v)
				if err != nil {
					return Kernel{}, ir.OpErrorf(op, "%v", err)
				}
				tmps[i] = f.reg(kind.reg)
				f.mov(tmps[i], src, kind)
			}
			for i, t := range tmps {
				f.mov(accs[i], t, kinds[find("out", i)])
			}
			returned = true
			continue
		}
		if err := f.loopNestOp(op); err != nil {
			return Kernel{}, err
		}
	}
	if !returned {
		return Kernel{}, ir.OpErrorf(body, "loop-nest body has no func.return")
	}
	for j := len(reds) - 1; j >= 0; j-- {
		r := reds[j]
		f.line("add.s64 \t%s, %s, 1;", dims[r], dims[r])
		f.line("bra.uni \t$L__red%d;", r)
		f.body.WriteString(fmt.Sprintf("$L__red%d_end:\n", r))
	}
	for i := range k.Outputs {
		if err := store(find("out", i), accs[i]); err != nil {
			return Kernel{}, ir.OpErrorf(fn, "%v", err)
		}
	}
	f.line("add.s64 \t%s, %s, %d;", iter, iter, LoopNestBlockSize)
	f.line("bra.uni \t$L__par;")
	f.body.WriteString("$L__exit:\n\tret;\n")
	f.emit(params, LoopNestBlockSize)
	return Kernel{Name: name, BlockSize: [3]uint32{LoopNestBlockSize, 1, 1}, ConstantCount: nc, BindingCount: len(bindings)}, nil
}

// nest is a loop-nest kernel being emitted: the state that its prologue
// computed and the helpers that address its bindings.
type nest struct {
	f        *fngen
	k        *loopnest.Kernel
	body     *ir.Operation
	bindings []loopnest.Binding
	kinds    []ptxKind
	bases    []string // per binding: the register of its global address
	ranges   []string // per loop: a register
	// dims are the loop index registers, which addr reads when called:
	// a caller may point an entry at another register first.
	dims                    []string
	lo, hi, count, tid, bad string
	outer                   int
	pars                    []int
	scalars                 map[int]string
	addr                    func(bi int) (string, error)
	load                    func(bi int, dst string) error
	store                   func(bi int, src string) error
	find                    func(role string, i int) int
	// locals are the registers of a row group's earlier stages' results
	// (group.go), by stage.
	locals []string
}

// ElementwiseUnroll is how many iterations a thread of a loop nest
// without reduction loops (elementwise and broadcast kernels) runs per
// step: all their loads come first, so that several are in flight per
// thread, which a bandwidth-bound kernel needs (as in the vulkan-spirv
// target).
const ElementwiseUnroll = 4

// unrolled emits the loop over a block's parallel iterations in steps of
// ElementwiseUnroll per thread, from iteration iter (the thread's first),
// leaving iter at the first iteration it did not run. Neighbouring
// threads still take neighbouring iterations (iter, iter + block size,
// ...), so each load and store of a step is coalesced.
func (n *nest) unrolled(iter string) error {
	f := n.f
	f.perf = append(f.perf, memoryBoundBlocks)
	step := ElementwiseUnroll * LoopNestBlockSize
	last := step - LoopNestBlockSize
	lim := f.reg("%rd")
	f.line("max.u64 \t%s, %s, %d;", lim, n.count, last)
	f.line("sub.s64 \t%s, %s, %d;", lim, lim, last)
	f.line("setp.eq.u64 \t%s, %s, 0;", n.bad, lim)
	f.line("@%s bra \t$L__par;", n.bad)
	saved := append([]string(nil), n.dims...)
	defer copy(n.dims, saved)
	// The indices of iteration iter as digits cur (the last parallel
	// loop fastest), and those of a step of the block size as st: each
	// next element's indices are the digits plus the step's, with
	// carries, instead of a division per loop per element. (Every range
	// is positive here: count is.)
	pars, outer := n.pars, n.outer
	cur, st := make([]string, len(n.dims)), make([]string, len(n.dims))
	for _, p := range pars {
		cur[p], st[p] = f.reg("%rd"), f.reg("%rd")
	}
	copy(n.dims, cur)
	n.decompose(iter)
	rest := f.reg("%rd")
	f.line("mov.u64 \t%s, %d;", rest, LoopNestBlockSize)
	for q := len(pars) - 1; q >= 1; q-- {
		p := pars[q]
		f.line("rem.u64 \t%s, %s, %s;", st[p], rest, n.ranges[p])
		f.line("div.u64 \t%s, %s, %s;", rest, rest, n.ranges[p])
	}
	f.line("mov.u64 \t%s, %s;", st[outer], rest)
	carry := f.reg("%p")
	advance := func() {
		for q := len(pars) - 1; q >= 0; q-- {
			p := pars[q]
			f.line("add.s64 \t%s, %s, %s;", cur[p], cur[p], st[p])
			if q < len(pars)-1 {
				f.line("@%s add.s64 \t%s, %s, 1;", carry, cur[p], cur[p])
			}
			if q >= 1 {
				f.line("setp.ge.u64 \t%s, %s, %s;", carry, cur[p], n.ranges[p])
				f.line("@%s sub.s64 \t%s, %s, %s;", carry, cur[p], cur[p], n.ranges[p])
			}
		}
	}
	f.body.WriteString("$L__unrolled:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, iter, lim)
	f.line("@%s bra \t$L__par;", n.bad)
	dims := make([][]string, ElementwiseUnroll)
	ins := make([][]string, ElementwiseUnroll)
	accs := make([][]string, ElementwiseUnroll)
	for j := range dims {
		dims[j] = make([]string, len(n.dims))
		for l := range dims[j] {
			dims[j][l] = f.reg("%rd")
		}
		for _, p := range pars {
			f.line("mov.u64 \t%s, %s;", dims[j][p], cur[p])
		}
		advance()
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
	f.line("add.s64 \t%s, %s, %d;", iter, iter, step)
	f.line("bra.uni \t$L__unrolled;")
	return nil
}

// finish ends the kernel and writes it.
func (n *nest) finish(name string, params []string, nc int) (Kernel, error) {
	n.f.body.WriteString("$L__exit:\n\tret;\n")
	n.f.emit(params, LoopNestBlockSize)
	return Kernel{Name: name, BlockSize: [3]uint32{LoopNestBlockSize, 1, 1}, ConstantCount: nc, BindingCount: len(n.bindings)}, nil
}

// sharedKind reports whether values of a kind can be staged in shared
// memory by the cooperative paths: 32- and 64-bit scalars.
func sharedKind(k ptxKind) bool {
	return k == kindF32 || k == kindF64 || k == kindI32 || k == kindI64
}

// tiledMatmulOf returns the matmul shape of a kernel that loopNest tiles
// in shared memory (its A, B and C elements all of sharedKind), or nil.
func tiledMatmulOf(k *loopnest.Kernel) *gpuloops.Matmul {
	m := gpuloops.MatmulOf(k)
	if m == nil || k.FirstIndexed() >= 0 {
		return nil
	}
	for _, o := range []loopnest.Operand{k.Inputs[0], k.Inputs[1], k.Outputs[0]} {
		if kind, err := loopNestKind(o.Type.Elem); err != nil || !sharedKind(kind) && !isHalf(kind) {
			return nil
		}
	}
	return m
}

// splitOf is cuda's target.Target.LoopNestSplit: a tiled matmul's tile is
// shared by its column groups; any other kernel's tile has one block.
func splitOf(d *ir.DictAttr) int64 {
	k, err := loopnest.Decode(d)
	if err != nil {
		return 1
	}
	if m := tiledMatmulOf(k); m != nil {
		return m.ColumnGroups(k, matmulLayout(m, k))
	}
	return 1
}

// emit writes the function: its parameters, register declarations and
// body.
func (f *fngen) emit(params []string, block int) {
	g := f.g
	fmt.Fprintf(&g.out, "\n.visible .entry %s(\n%s\n)\n.maxntid %d, 1, 1\n", f.name, strings.Join(params, ",\n"), block)
	for _, d := range f.perf {
		g.out.WriteString(d + "\n")
	}
	g.out.WriteString("{\n")
	classes := []struct{ class, decl string }{
		{"%p", ".pred"}, {"%rs", ".b16"}, {"%h", ".b16"}, {"%r", ".b32"}, {"%rd", ".b64"}, {"%f", ".f32"}, {"%fd", ".f64"},
	}
	for _, c := range classes {
		if n := f.regs[c.class]; n > 0 {
			fmt.Fprintf(&g.out, "\t.reg %s \t%s<%d>;\n", c.decl, c.class, n+1)
		}
	}
	for _, d := range f.decls {
		fmt.Fprintf(&g.out, "\t%s\n", d)
	}
	g.out.WriteString("\n")
	g.out.WriteString(f.body.String())
	g.out.WriteString("}\n")
}

// zero sets r to the zero of its kind.
func (f *fngen) zero(r string, k ptxKind) {
	switch {
	case k == kindPred:
		t := f.reg("%r")
		f.line("mov.u32 \t%s, 0;", t)
		f.line("setp.ne.u32 \t%s, %s, 0;", r, t)
	case k == kindF32:
		f.line("mov.f32 \t%s, 0f00000000;", r)
	case k == kindF64:
		f.line("mov.f64 \t%s, 0d0000000000000000;", r)
	default:
		f.line("mov.%s \t%s, 0;", k.bits, r)
	}
}

// mov copies a register of kind k.
func (f *fngen) mov(dst, src string, k ptxKind) {
	if k == kindPred {
		f.line("mov.pred \t%s, %s;", dst, src)
		return
	}
	f.line("mov.%s \t%s, %s;", k.bits, dst, src)
}

// unsignedOperand lists the ops that read their integer operands as
// unsigned, so narrow ones are zero-extended first.
var unsignedOperand = map[string]bool{
	"arith.divui": true, "arith.remui": true, "arith.shrui": true, "arith.maxui": true,
	"arith.minui": true, "arith.uitofp": true,
}

// loopNestOp emits one scalar op of a loop-nest or elementwise body: casts
// involving index and narrow integers here, everything else through op,
// with narrow results re-extended.
func (f *fngen) loopNestOp(op *ir.Operation) error {
	if len(op.Results) != 1 {
		return ir.OpErrorf(op, "'%s' cannot be used in a cuda %s body", op.Name, f.bodyKind())
	}
	rk, err := loopNestKind(op.Results[0].Type)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	var sk ptxKind
	if len(op.Operands) > 0 {
		if sk, err = loopNestKind(op.Operands[0].Type); err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
	}
	switch op.Name {
	case "tensor.extract":
		return f.indexedRead(op, rk)
	case "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci":
		if narrowBits(sk) > 0 || narrowBits(rk) > 0 || op.Name == "arith.index_cast" || op.Name == "arith.index_castui" {
			return f.intCast(op, sk, rk)
		}
	case "arith.cmpi":
		if n := narrowBits(sk); n > 0 && isUnsignedCmp(op) {
			return f.withZeroExtended(op, n)
		}
	case "arith.sitofp":
		if narrowBits(sk) > 0 {
			// Already sign-extended in 32 bits.
			return f.op(op)
		}
	}
	if n := narrowBits(sk); n > 0 && unsignedOperand[op.Name] {
		if err := f.withZeroExtended(op, n); err != nil {
			return err
		}
	} else if err := f.op(op); err != nil {
		return err
	}
	if n := narrowBits(rk); n > 0 {
		r := f.names[op.Results[0]]
		f.line("bfe.s32 \t%s, %s, 0, %d;", r, r, n)
	}
	return nil
}

// indexedRead emits tensor.extract %t[%off] of a loop nest's indexed
// input, whose argument names the binding's global address: a load of
// element off (inside the tensor; see loopnest.Attr) of kind rk.
func (f *fngen) indexedRead(op *ir.Operation, rk ptxKind) error {
	if len(op.Operands) != 2 || !f.loopNest {
		return ir.OpErrorf(op, "only reads of a loop nest's indexed input at one offset are supported by cuda code generation")
	}
	base, bk, err := f.value(op.Operands[0])
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	off, ok, err := f.value(op.Operands[1])
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	if bk != kindI64 || ok != kindI64 {
		return ir.OpErrorf(op, "only reads of a loop nest's indexed input at one offset are supported by cuda code generation")
	}
	a := f.reg("%rd")
	if s := rk.size; s > 1 {
		f.line("shl.b64 \t%s, %s, %d;", a, off, log2(s))
		f.line("add.s64 \t%s, %s, %s;", a, base, a)
	} else {
		f.line("add.s64 \t%s, %s, %s;", a, base, off)
	}
	f.loadGlobal(f.define(op.Results[0], rk), a, rk)
	return nil
}

// withZeroExtended emits op with its narrow operands masked to n bits.
func (f *fngen) withZeroExtended(op *ir.Operation, n int) error {
	saved := map[*ir.Value]string{}
	for _, v := range op.Operands {
		r, k, err := f.value(v)
		if err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		if narrowBits(k) == 0 {
			continue
		}
		if _, done := saved[v]; done {
			continue
		}
		m := f.reg("%r")
		f.line("and.b32 \t%s, %s, %d;", m, r, 1<<n-1)
		saved[v] = r
		f.names[v] = m
	}
	err := f.op(op)
	for v, r := range saved {
		f.names[v] = r
	}
	return err
}

func isUnsignedCmp(op *ir.Operation) bool {
	n, _ := op.IntAttr("predicate")
	return n >= 0 && int(n) < len(arith.CmpIPredicates) && arith.CmpIPredicates[n][0] == 'u'
}

// intCast emits integer casts where index or a narrow integer is involved.
func (f *fngen) intCast(op *ir.Operation, sk, rk ptxKind) error {
	if len(op.Operands) != 1 {
		return ir.OpErrorf(op, "expects 1 operand, found %d", len(op.Operands))
	}
	src, _, err := f.value(op.Operands[0])
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	if sk.float || rk.float || sk == kindPred || rk == kindPred {
		return f.op(op)
	}
	r := f.define(op.Results[0], rk)
	zext := op.Name == "arith.extui" || op.Name == "arith.index_castui"
	if n := narrowBits(sk); n > 0 && zext {
		m := f.reg("%r")
		f.line("and.b32 \t%s, %s, %d;", m, src, 1<<n-1)
		src = m
	}
	switch {
	case sk.size <= 4 && rk == kindI64 && zext:
		f.line("cvt.u64.u32 \t%s, %s;", r, src)
	case sk.size <= 4 && rk == kindI64:
		f.line("cvt.s64.s32 \t%s, %s;", r, src)
	case sk == kindI64 && rk == kindI64:
		f.line("mov.b64 \t%s, %s;", r, src)
	case sk == kindI64:
		f.line("cvt.u32.u64 \t%s, %s;", r, src)
	default:
		f.line("mov.b32 \t%s, %s;", r, src)
	}
	if n := narrowBits(rk); n > 0 {
		f.line("bfe.s32 \t%s, %s, 0, %d;", r, r, n)
	}
	return nil
}

// sortedDims lists the loops a linear index uses, in order.
func sortedDims(lin loopnest.LinearIndex) []int {
	var ds []int
	for d, c := range lin.Coeffs {
		if c != 0 {
			ds = append(ds, d)
		}
	}
	sort.Ints(ds)
	return ds
}

// scalarConstant emits a scalar input of kind sk from the register c of
// its 32-bit push constant (IREE passes f32 by its bits, narrower
// integers and 16-bit floats in the low bits, index truncated) and
// returns the register; false for a kind a constant cannot carry.
func (f *fngen) scalarConstant(sk ptxKind, c string) (string, bool) {
	r := f.reg(sk.reg)
	switch {
	case sk == kindF32 || sk == kindI32:
		f.line("mov.b32 \t%s, %s;", r, c)
	case narrowBits(sk) > 0:
		f.line("bfe.s32 \t%s, %s, 0, %d;", r, c, narrowBits(sk))
	case sk == kindI64:
		f.line("cvt.u64.u32 \t%s, %s;", r, c)
	case isHalf(sk): // in the constant's low 16 bits
		f.line("cvt.u16.u32 \t%s, %s;", r, c)
	case sk == kindPred:
		t := f.reg("%r")
		f.line("and.b32 \t%s, %s, 1;", t, c)
		f.line("setp.ne.u32 \t%s, %s, 0;", r, t)
	default:
		return "", false
	}
	return r, true
}

// entry starts the function of a generated entry point for export ex
// with nb binding pointers and nc 32-bit constants as parameters (what
// names the kind of kernel, for the error when ex's layout disagrees):
// its generator, name, parameter declarations, and the registers of the
// bindings' global addresses.
func (g *ptxgen) entry(ex *ir.Operation, what string, nb, nc int) (*fngen, string, []string, []string, error) {
	if l := hal.ExportLayout(ex); l != nil && (len(l.AllBindings()) != nb || int(l.ConstantCount()) != nc) {
		return nil, "", nil, nil, ir.OpErrorf(ex, "layout has %d bindings and %d constants; %s needs %d and %d", len(l.AllBindings()), l.ConstantCount(), what, nb, nc)
	}
	name := sanitize(ex.SymName())
	f := &fngen{g: g, name: name, regs: map[string]int{}, names: map[*ir.Value]string{}, kinds: map[*ir.Value]ptxKind{}, loopNest: true}
	var params []string
	for i := 0; i < nb; i++ {
		params = append(params, fmt.Sprintf("\t.param .u64 %s_param_%d", name, i))
	}
	for i := 0; i < nc; i++ {
		params = append(params, fmt.Sprintf("\t.param .u32 %s_param_%d", name, nb+i))
	}
	bases := make([]string, nb)
	for bi := range bases {
		bases[bi] = f.reg("%rd")
		f.line("ld.param.u64 \t%s, [%s_param_%d];", bases[bi], name, bi)
		f.line("cvta.to.global.u64 \t%s, %s;", bases[bi], bases[bi])
	}
	return f, name, params, bases, nil
}

// loadGlobal loads the element of kind k at global address a into dst:
// i1 is a byte, which becomes a predicate.
func (f *fngen) loadGlobal(dst, a string, k ptxKind) {
	if k == kindPred {
		h := f.reg("%rs")
		f.line("ld.global.u8 \t%s, [%s];", h, a)
		f.line("setp.ne.s16 \t%s, %s, 0;", dst, h)
		return
	}
	f.line("ld.global.%s \t%s, [%s];", k.mem, dst, a)
}

// storeGlobal stores src, of kind k, to global address a: a predicate
// as a byte of 0 or 1, a narrow integer in its width.
func (f *fngen) storeGlobal(a, src string, k ptxKind) {
	switch {
	case k == kindPred:
		h := f.reg("%rs")
		f.line("selp.u16 \t%s, 1, 0, %s;", h, src)
		f.line("st.global.u8 \t[%s], %s;", a, h)
	case narrowBits(k) > 0:
		f.line("st.global.u%d \t[%s], %s;", narrowBits(k), a, src)
	default:
		f.line("st.global.%s \t[%s], %s;", k.mem, a, src)
	}
}

// findBinding returns the position in bindings of the binding with role
// and index i, or -1.
func findBinding(bindings []loopnest.Binding, role string, i int) int {
	for bi, b := range bindings {
		if b.Role == role && b.Index == i {
			return bi
		}
	}
	return -1
}
