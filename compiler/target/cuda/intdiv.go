package cuda

import "github.com/goiree/goiree/compiler/ir"

// Integer division as the other targets compute it, without the
// undefined cases: PTX leaves a quotient by zero machine-specific and
// INT_MIN / -1 overflows, where the CPU targets' helpers give 0 (the
// remainder: the dividend) for a zero divisor and the wrapped -a (the
// remainder: 0) for -1. The division runs on a safe divisor (1 in those
// two cases) and selects the defined results after. floordivsi and
// ceildivsi correct the truncated quotient by one where the remainder
// is not zero and its sign and the divisor's differ (floor) or agree
// (ceil).

// intDivOps are the ops intDiv emits.
var intDivOps = map[string]bool{
	"arith.divsi": true, "arith.remsi": true, "arith.divui": true, "arith.remui": true,
	"arith.floordivsi": true, "arith.ceildivsi": true,
}

// intDiv emits one of intDivOps for result kind rk (an integer kind; the
// operands of unsigned ops are already zero-extended when narrow).
func (f *fngen) intDiv(op *ir.Operation, rk ptxKind) error {
	name := op.Name
	a, ks, err := f.operands(op, 2)
	if err != nil {
		return err
	}
	if ks[0].float || ks[0].typ == "pred" || ks[0] != rk || ks[1] != rk {
		return ir.OpErrorf(op, "'%s' needs integer operands of its result's type", name)
	}
	unsigned := name == "arith.divui" || name == "arith.remui"
	typ := rk.typ
	if unsigned {
		typ = rk.unsigned()
	}
	// special: the divisor is 0, or -1 for the signed ops.
	zero, minus1, special := f.reg("%p"), "", ""
	f.line("setp.eq.%s \t%s, %s, 0;", rk.typ, zero, a[1])
	special = zero
	if !unsigned {
		minus1, special = f.reg("%p"), f.reg("%p")
		f.line("setp.eq.%s \t%s, %s, -1;", rk.typ, minus1, a[1])
		f.line("or.pred \t%s, %s, %s;", special, zero, minus1)
	}
	b := f.reg(rk.reg)
	f.line("selp.%s \t%s, 1, %s, %s;", rk.bits, b, a[1], special)
	r := f.define(op.Results[0], rk)
	switch name {
	case "arith.divui":
		f.line("div.%s \t%s, %s, %s;", typ, r, a[0], b)
		f.line("selp.%s \t%s, 0, %s, %s;", rk.bits, r, r, zero)
	case "arith.remui", "arith.remsi":
		// rem by 1 is 0, what -1 gives; a zero divisor gives a.
		f.line("rem.%s \t%s, %s, %s;", typ, r, a[0], b)
		f.line("selp.%s \t%s, %s, %s, %s;", rk.bits, r, a[0], r, zero)
	default: // divsi, floordivsi, ceildivsi
		q, neg := f.reg(rk.reg), f.reg(rk.reg)
		f.line("div.%s \t%s, %s, %s;", typ, q, a[0], b)
		f.line("neg.%s \t%s, %s;", typ, neg, a[0])
		f.line("selp.%s \t%s, %s, %s, %s;", rk.bits, q, neg, q, minus1)
		f.line("selp.%s \t%s, 0, %s, %s;", rk.bits, q, q, zero)
		if name == "arith.divsi" {
			f.line("mov.%s \t%s, %s;", rk.bits, r, q)
			return nil
		}
		// The remainder on the safe divisor is 0 for both special
		// cases, so they take no correction.
		rem, inexact, rneg, bneg, fix := f.reg(rk.reg), f.reg("%p"), f.reg("%p"), f.reg("%p"), f.reg("%p")
		f.line("rem.%s \t%s, %s, %s;", typ, rem, a[0], b)
		f.line("setp.ne.%s \t%s, %s, 0;", typ, inexact, rem)
		f.line("setp.lt.%s \t%s, %s, 0;", typ, rneg, rem)
		f.line("setp.lt.%s \t%s, %s, 0;", typ, bneg, a[1])
		f.line("xor.pred \t%s, %s, %s;", fix, rneg, bneg)
		if name == "arith.ceildivsi" {
			f.line("not.pred \t%s, %s;", fix, fix)
		}
		f.line("and.pred \t%s, %s, %s;", fix, fix, inexact)
		step := "sub"
		if name == "arith.ceildivsi" {
			step = "add"
		}
		f.line("selp.%s \t%s, 1, 0, %s;", rk.bits, rem, fix)
		f.line("%s.%s \t%s, %s, %s;", step, typ, r, q, rem)
	}
	return nil
}
