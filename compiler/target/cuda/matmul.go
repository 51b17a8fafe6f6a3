package cuda

import (
	"fmt"

	"github.com/goiree/goiree/compiler/gpuloops"
)

// tiledMatmul emits a matmul-shaped nest in blocks of l.TM() x l.TN()
// outputs: for each l.TK-long step of the reduction the block's threads
// stage the A and B tiles in shared memory, then every thread advances
// its l.RM x l.RN accumulators, held in registers, by those steps in
// order (the body runs once per output element and step, as in the
// sequential kernel). A block takes every nctaid.z-th block of columns
// from its ctaid.z-th (see splitOf).
func (n *nest) tiledMatmul(m *gpuloops.Matmul, l gpuloops.Layout) error {
	f := n.f
	k := n.k
	ia, ib, io := n.find("in", 0), n.find("in", 1), n.find("out", 0)
	ka, kb, ko := n.kinds[ia], n.kinds[ib], n.kinds[io]
	tm, tn := l.TM(), l.TN()
	sa := n.shared("a", tm*l.TK*ka.size)
	sb := n.shared("b", l.TK*tn*kb.size)
	tr, tc := f.reg("%r"), f.reg("%r")
	f.line("div.u32 \t%s, %s, %d;", tr, n.tid, l.TC)
	f.line("rem.u32 \t%s, %s, %d;", tc, n.tid, l.TC)
	tr64, tc64 := f.reg("%rd"), f.reg("%rd")
	f.line("cvt.u64.u32 \t%s, %s;", tr64, tr)
	f.line("cvt.u64.u32 \t%s, %s;", tc64, tc)
	I, J, R := m.I, m.J, m.R
	N, K := n.ranges[J], n.ranges[R]
	rowLo, rowHi, nb := f.reg("%rd"), f.reg("%rd"), f.reg("%rd")
	if n.outer == I {
		f.line("mov.u64 \t%s, %s;", rowLo, n.lo)
		f.line("mov.u64 \t%s, %s;", rowHi, n.hi)
		f.line("mov.u64 \t%s, 1;", nb)
	} else {
		f.line("mov.u64 \t%s, 0;", rowLo)
		f.line("mov.u64 \t%s, %s;", rowHi, n.ranges[I])
		f.line("sub.s64 \t%s, %s, %s;", nb, n.hi, n.lo)
		for _, b := range m.Batch[1:] {
			f.line("mul.lo.s64 \t%s, %s, %s;", nb, nb, n.ranges[b])
		}
	}
	// inside emits a branch to skip when row >= rowHi or col >= its
	// bound.
	inside := func(row, rhi, col, chi, skip string) {
		p1, p2 := f.reg("%p"), f.reg("%p")
		f.line("setp.lt.u64 \t%s, %s, %s;", p1, row, rhi)
		f.line("setp.lt.u64 \t%s, %s, %s;", p2, col, chi)
		f.line("and.pred \t%s, %s, %s;", p1, p1, p2)
		f.line("@!%s bra \t%s;", p1, skip)
	}
	bt := f.reg("%rd")
	f.line("mov.u64 \t%s, 0;", bt)
	f.body.WriteString("$L__bt:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, bt, nb)
	f.line("@%s bra \t$L__exit;", n.bad)
	if len(m.Batch) > 0 {
		rest := f.reg("%rd")
		f.line("mov.u64 \t%s, %s;", rest, bt)
		for j := len(m.Batch) - 1; j >= 1; j-- {
			b := m.Batch[j]
			f.line("rem.u64 \t%s, %s, %s;", n.dims[b], rest, n.ranges[b])
			f.line("div.u64 \t%s, %s, %s;", rest, rest, n.ranges[b])
		}
		f.line("add.s64 \t%s, %s, %s;", n.dims[m.Batch[0]], n.lo, rest)
	}
	r0, c0, k0 := f.reg("%rd"), f.reg("%rd"), f.reg("%rd")
	f.line("mov.u64 \t%s, %s;", r0, rowLo)
	f.body.WriteString("$L__r0:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, r0, rowHi)
	f.line("@%s bra \t$L__r0_end;", n.bad)
	cz, nz, cstep := f.reg("%r"), f.reg("%r"), f.reg("%rd")
	f.line("mov.u32 \t%s, %%ctaid.z;", cz)
	f.line("mov.u32 \t%s, %%nctaid.z;", nz)
	f.line("mul.wide.u32 \t%s, %s, %d;", c0, cz, tn)
	f.line("mul.wide.u32 \t%s, %s, %d;", cstep, nz, tn)
	f.body.WriteString("$L__c0:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, c0, N)
	f.line("@%s bra \t$L__c0_end;", n.bad)
	// This thread's rows and columns of the block.
	rows, cols := make([]string, l.RM), make([]string, l.RN)
	for a := range rows {
		rows[a] = f.reg("%rd")
		f.line("add.s64 \t%s, %s, %s;", rows[a], r0, tr64)
		if a > 0 {
			f.line("add.s64 \t%s, %s, %d;", rows[a], rows[a], l.TR*a)
		}
	}
	for b := range cols {
		cols[b] = f.reg("%rd")
		f.line("add.s64 \t%s, %s, %s;", cols[b], c0, tc64)
		if b > 0 {
			f.line("add.s64 \t%s, %s, %d;", cols[b], cols[b], l.TC*b)
		}
	}
	accs := make([][]string, l.RM)
	for a := range accs {
		accs[a] = make([]string, l.RN)
		for b := range accs[a] {
			accs[a][b] = f.reg(ko.reg)
			f.zero(accs[a][b], ko)
			if k.Outputs[0].Init {
				skip := fmt.Sprintf("$L__init%d_%d", a, b)
				inside(rows[a], rowHi, cols[b], N, skip)
				n.dims[I], n.dims[J] = rows[a], cols[b]
				if err := n.load(n.find("init", 0), accs[a][b]); err != nil {
					return err
				}
				f.body.WriteString(skip + ":\n")
			}
		}
	}
	f.line("mov.u64 \t%s, 0;", k0)
	f.body.WriteString("$L__k0:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, k0, K)
	f.line("@%s bra \t$L__k0_end;", n.bad)
	// stage copies a tile of count elements, element e at (e / width,
	// e % width) of the tile, into shared memory at base.
	stage := func(label string, bi int, kind ptxKind, base string, count, width, rowLoop int, rowBase, rowHi string, colLoop int, colBase, colHi string) error {
		e := f.reg("%rd")
		f.line("cvt.u64.u32 \t%s, %s;", e, n.tid)
		f.body.WriteString(label + ":\n")
		f.line("setp.ge.u64 \t%s, %s, %d;", n.bad, e, count)
		f.line("@%s bra \t%s_end;", n.bad, label)
		row, col := f.reg("%rd"), f.reg("%rd")
		f.line("div.u64 \t%s, %s, %d;", row, e, width)
		f.line("rem.u64 \t%s, %s, %d;", col, e, width)
		f.line("add.s64 \t%s, %s, %s;", row, row, rowBase)
		f.line("add.s64 \t%s, %s, %s;", col, col, colBase)
		v := f.reg(kind.reg)
		f.zero(v, kind)
		inside(row, rowHi, col, colHi, label+"_zero")
		n.dims[rowLoop], n.dims[colLoop] = row, col
		if err := n.load(bi, v); err != nil {
			return err
		}
		f.body.WriteString(label + "_zero:\n")
		e32, ad := f.reg("%r"), f.reg("%r")
		f.line("cvt.u32.u64 \t%s, %s;", e32, e)
		f.line("mad.lo.u32 \t%s, %s, %d, %s;", ad, e32, kind.size, base)
		f.line("st.shared.%s \t[%s], %s;", kind.mem, ad, v)
		f.line("add.s64 \t%s, %s, %d;", e, e, LoopNestBlockSize)
		f.line("bra.uni \t%s;", label)
		f.body.WriteString(label + "_end:\n")
		return nil
	}
	if err := stage("$L__sa", ia, ka, sa, tm*l.TK, l.TK, I, r0, rowHi, R, k0, K); err != nil {
		return err
	}
	if err := stage("$L__sb", ib, kb, sb, l.TK*tn, tn, R, k0, K, J, c0, N); err != nil {
		return err
	}
	f.line("bar.sync \t0;")
	kn, kk := f.reg("%rd"), f.reg("%rd")
	f.line("sub.s64 \t%s, %s, %s;", kn, K, k0)
	f.line("min.u64 \t%s, %s, %d;", kn, kn, l.TK)
	f.line("mov.u64 \t%s, 0;", kk)
	f.body.WriteString("$L__kk:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", n.bad, kk, kn)
	f.line("@%s bra \t$L__kk_end;", n.bad)
	kk32, kidx := f.reg("%r"), f.reg("%rd")
	f.line("cvt.u32.u64 \t%s, %s;", kk32, kk)
	f.line("add.s64 \t%s, %s, %s;", kidx, k0, kk)
	xs, ys := make([]string, l.RM), make([]string, l.RN)
	for a := range xs {
		idx, ad := f.reg("%r"), f.reg("%r")
		f.line("add.u32 \t%s, %s, %d;", idx, tr, l.TR*a)
		f.line("mad.lo.u32 \t%s, %s, %d, %s;", idx, idx, l.TK, kk32)
		f.line("mad.lo.u32 \t%s, %s, %d, %s;", ad, idx, ka.size, sa)
		xs[a] = f.reg(ka.reg)
		f.line("ld.shared.%s \t%s, [%s];", ka.mem, xs[a], ad)
	}
	for b := range ys {
		idx, ad := f.reg("%r"), f.reg("%r")
		f.line("add.u32 \t%s, %s, %d;", idx, tc, l.TC*b)
		f.line("mad.lo.u32 \t%s, %s, %d, %s;", idx, kk32, tn, idx)
		f.line("mad.lo.u32 \t%s, %s, %d, %s;", ad, idx, kb.size, sb)
		ys[b] = f.reg(kb.reg)
		f.line("ld.shared.%s \t%s, [%s];", kb.mem, ys[b], ad)
	}
	dims := append([]string(nil), n.dims...)
	dims[R] = kidx
	for a := range xs {
		for b := range ys {
			dims[I], dims[J] = rows[a], cols[b]
			res, err := n.call(dims, []string{xs[a], ys[b]}, []string{accs[a][b]})
			if err != nil {
				return err
			}
			f.mov(accs[a][b], res[0], ko)
		}
	}
	f.line("add.s64 \t%s, %s, 1;", kk, kk)
	f.line("bra.uni \t$L__kk;")
	f.body.WriteString("$L__kk_end:\n")
	f.line("bar.sync \t0;")
	f.line("add.s64 \t%s, %s, %d;", k0, k0, l.TK)
	f.line("bra.uni \t$L__k0;")
	f.body.WriteString("$L__k0_end:\n")
	for a := range accs {
		for b := range accs[a] {
			skip := fmt.Sprintf("$L__store%d_%d", a, b)
			inside(rows[a], rowHi, cols[b], N, skip)
			n.dims[I], n.dims[J] = rows[a], cols[b]
			if err := n.store(io, accs[a][b]); err != nil {
				return err
			}
			f.body.WriteString(skip + ":\n")
		}
	}
	f.line("add.s64 \t%s, %s, %s;", c0, c0, cstep)
	f.line("bra.uni \t$L__c0;")
	f.body.WriteString("$L__c0_end:\n")
	f.line("add.s64 \t%s, %s, %d;", r0, r0, tm)
	f.line("bra.uni \t$L__r0;")
	f.body.WriteString("$L__r0_end:\n")
	f.line("add.s64 \t%s, %s, 1;", bt, bt)
	f.line("bra.uni \t$L__bt;")
	return nil
}
