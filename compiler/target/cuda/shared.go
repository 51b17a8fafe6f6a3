package cuda

import "fmt"

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
	nl := len(n.k.Ranges)
	for l := 0; l < nl; l++ {
		f.names[blk.Args[l]], f.kinds[blk.Args[l]] = dims[l], kindI64
	}
	for i, o := range n.k.Inputs {
		a := blk.Args[nl+i]
		if o.Scalar != nil {
			sk, err := loopNestKind(o.Scalar)
			if err != nil {
				return nil, err
			}
			f.names[a], f.kinds[a] = n.scalars[i], sk
			continue
		}
		f.names[a], f.kinds[a] = ins[i], n.kinds[n.find("in", i)]
	}
	for i := range n.k.Outputs {
		a := blk.Args[nl+len(n.k.Inputs)+i]
		f.names[a], f.kinds[a] = accs[i], n.kinds[n.find("out", i)]
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

// selp is the selp type suffix of a kind.
func selpType(k ptxKind) string {
	if k.float {
		return k.typ
	}
	return k.bits
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

// sharedReduction emits a row reduction over loop r shared by the block:
// for each output element of the tile in turn, every thread combines a
// strided part of the row (starting from an element, as the body names
// no identity), the parts are combined pairwise in shared memory, and
// thread 0 combines the total into the accumulator's initial value and
// stores it. The body is one associative and commutative op, so the order
// of combination changes only the rounding of float sums and products.
func (n *nest) sharedReduction(r int) error {
	f := n.f
	in, out := n.find("in", 0), n.find("out", 0)
	kind := n.kinds[out]
	pbase := n.shared("part", LoopNestBlockSize*kind.size)
	hbase := n.shared("have", LoopNestBlockSize*4)
	myP, myH := f.reg("%r"), f.reg("%r")
	f.line("mad.lo.u32 \t%s, %s, %d, %s;", myP, n.tid, kind.size, pbase)
	f.line("mad.lo.u32 \t%s, %s, 4, %s;", myH, n.tid, hbase)
	one := f.reg("%r")
	f.line("mov.u32 \t%s, 1;", one)
	i := f.reg("%rd")
	f.line("mov.u64 \t%s, 0;", i)
	f.body.WriteString("$L__out:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, i, n.count)
	f.line("@%s bra \t$L__exit;", n.bad)
	n.decompose(i)
	p, hv := f.reg(kind.reg), f.reg("%r")
	f.zero(p, kind)
	f.line("mov.u32 \t%s, 0;", hv)
	f.line("cvt.u64.u32 \t%s, %s;", n.dims[r], n.tid)
	f.body.WriteString("$L__part:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, n.dims[r], n.ranges[r])
	f.line("@%s bra \t$L__part_end;", n.bad)
	x := f.reg(kind.reg)
	if err := n.load(in, x); err != nil {
		return err
	}
	t, err := n.call(n.dims, []string{x}, []string{p})
	if err != nil {
		return err
	}
	q := f.reg("%p")
	f.line("setp.ne.u32 \t%s, %s, 0;", q, hv)
	f.line("selp.%s \t%s, %s, %s, %s;", selpType(kind), p, t[0], x, q)
	f.line("mov.u32 \t%s, 1;", hv)
	f.line("add.s64 \t%s, %s, %d;", n.dims[r], n.dims[r], LoopNestBlockSize)
	f.line("bra.uni \t$L__part;")
	f.body.WriteString("$L__part_end:\n")
	f.line("st.shared.%s \t[%s], %s;", kind.mem, myP, p)
	f.line("st.shared.u32 \t[%s], %s;", myH, hv)
	f.line("bar.sync \t0;")
	for s := LoopNestBlockSize / 2; s >= 1; s /= 2 {
		skip := fmt.Sprintf("$L__step%d", s)
		f.line("setp.ge.u32 \t%s, %s, %d;", n.bad, n.tid, s)
		f.line("@%s bra \t%s;", n.bad, skip)
		h2 := f.reg("%r")
		f.line("ld.shared.u32 \t%s, [%s+%d];", h2, myH, 4*s)
		f.line("setp.eq.u32 \t%s, %s, 0;", n.bad, h2)
		f.line("@%s bra \t%s;", n.bad, skip)
		other, mine, h1 := f.reg(kind.reg), f.reg(kind.reg), f.reg("%r")
		f.line("ld.shared.%s \t%s, [%s+%d];", kind.mem, other, myP, kind.size*s)
		f.line("ld.shared.%s \t%s, [%s];", kind.mem, mine, myP)
		f.line("ld.shared.u32 \t%s, [%s];", h1, myH)
		t, err := n.call(n.dims, []string{other}, []string{mine})
		if err != nil {
			return err
		}
		mineHas := f.reg("%p")
		f.line("setp.ne.u32 \t%s, %s, 0;", mineHas, h1)
		f.line("selp.%s \t%s, %s, %s, %s;", selpType(kind), other, t[0], other, mineHas)
		f.line("st.shared.%s \t[%s], %s;", kind.mem, myP, other)
		f.line("st.shared.u32 \t[%s], %s;", myH, one)
		f.body.WriteString(skip + ":\n")
		f.line("bar.sync \t0;")
	}
	f.line("setp.ne.u32 \t%s, %s, 0;", n.bad, n.tid)
	f.line("@%s bra \t$L__next;", n.bad)
	acc := f.reg(kind.reg)
	if n.k.Outputs[0].Init {
		if err := n.load(n.find("init", 0), acc); err != nil {
			return err
		}
	} else {
		f.zero(acc, kind)
	}
	h := f.reg("%r")
	f.line("ld.shared.u32 \t%s, [%s];", h, hbase)
	f.line("setp.eq.u32 \t%s, %s, 0;", n.bad, h)
	f.line("@%s bra \t$L__store;", n.bad)
	total := f.reg(kind.reg)
	f.line("ld.shared.%s \t%s, [%s];", kind.mem, total, pbase)
	t, err = n.call(n.dims, []string{total}, []string{acc})
	if err != nil {
		return err
	}
	f.mov(acc, t[0], kind)
	f.body.WriteString("$L__store:\n")
	if err := n.store(out, acc); err != nil {
		return err
	}
	f.body.WriteString("$L__next:\n")
	f.line("bar.sync \t0;")
	f.line("add.s64 \t%s, %s, 1;", i, i)
	f.line("bra.uni \t$L__out;")
	return nil
}
