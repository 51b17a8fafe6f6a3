package cuda

import (
	"math"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

// 16-bit floats (f16, bf16) live in .b16 registers (%h) and in memory as
// 16 bits. Every op rounds its result to the 16-bit type, as IEEE
// arithmetic in that type would: where the arch has the instruction for the
// type it is used (f16 add/sub/mul/fma/setp from sm_53, f16 and bf16
// min/max and bf16 fma from sm_80, bf16 add/sub/mul/setp from sm_90);
// otherwise the operands are widened to f32 (exactly), the op runs in f32
// and its result is rounded once to the 16-bit type. That is the correctly
// rounded result for + - * / and sqrt: f32 has at least 2p+2 bits for both
// types (p = 11 for f16, 8 for bf16), so rounding twice cannot differ from
// rounding once; min, max, compares, floor/ceil/trunc and conversions to
// integers are exact in f32; the math library's functions (mathlib.go)
// are within an ulp in f32 already. fma is not among them (f32 fma then
// a second rounding can miss a tie), so without the native instruction it
// runs in f64 with round-to-odd (below), as do conversions whose first
// rounding could otherwise land on a tie.

var (
	kindF16  = ptxKind{reg: "%h", typ: "f16", bits: "b16", mem: "b16", size: 2, float: true}
	kindBF16 = ptxKind{reg: "%h", typ: "bf16", bits: "b16", mem: "b16", size: 2, float: true}
)

// isHalf reports whether k is a 16-bit float kind.
func isHalf(k ptxKind) bool { return k == kindF16 || k == kindBF16 }

// halfBits rounds v to the nearest value of a binary format with mant
// stored significand bits and exponent bias (f16: 10, 15; bf16: 7, 127),
// ties to even, subnormals kept, overflow to infinity, and returns its
// bits. NaNs become the quiet NaN of v's sign.
func halfBits(v float64, mant, bias int) uint16 {
	var sign uint16
	if math.Signbit(v) {
		sign = 0x8000
	}
	inf := uint16(2*bias+1) << mant
	switch {
	case math.IsNaN(v):
		return sign | inf | 1<<(mant-1)
	case math.IsInf(v, 0):
		return sign | inf
	case v == 0:
		return sign
	}
	a := math.Abs(v)
	_, e := math.Frexp(a) // a = m * 2^e with m in [0.5, 1)
	e--
	minE := 1 - bias
	if e < minE {
		e = minE // subnormal: the quantum of the smallest binade
	}
	// a in units of the quantum 2^(e-mant), rounded: bits of the
	// significand, carrying into the exponent when it rounds up to the
	// next binade.
	r := math.RoundToEven(math.Ldexp(a, mant-e))
	bits := uint64(e-minE)<<mant + uint64(r)
	if bits >= uint64(inf) {
		return sign | inf
	}
	return sign | uint16(bits)
}

// halfLit is the bits of v in kind k (f16 or bf16).
func halfLit(v float64, k ptxKind) uint16 {
	if k == kindBF16 {
		return halfBits(v, 7, 127)
	}
	return halfBits(v, 10, 15)
}

// nativeHalf reports whether the arch has the 16-bit instruction for a
// binary or ternary float op of kind k ("add", "sub", "mul", "fma",
// "setp", "minmax"), and marks the PTX ISA that introduced it as needed.
func (f *fngen) nativeHalf(what string, k ptxKind) bool {
	sm := f.g.arch.Number()
	need, isa := 0, 0
	switch {
	case k == kindF16 && what == "minmax":
		need, isa = 80, 70
	case k == kindF16:
		need, isa = 53, 42
	case what == "fma" || what == "minmax":
		need, isa = 80, 70
	default: // bf16 add, sub, mul, setp
		need, isa = 90, 78
	}
	if sm < need {
		return false
	}
	f.g.needISA(isa)
	return true
}

// widen returns an f32 register holding the 16-bit float in h (exact).
func (f *fngen) widen(h string, k ptxKind) string {
	r := f.reg("%f")
	if k == kindF16 {
		f.line("cvt.f32.f16 \t%s, %s;", r, h)
		return r
	}
	// A bf16 is the high half of the f32 with the same value.
	t := f.reg("%r")
	f.line("cvt.u32.u16 \t%s, %s;", t, h)
	f.line("shl.b32 \t%s, %s, 16;", t, t)
	f.line("mov.b32 \t%s, %s;", r, t)
	return r
}

// narrow rounds the f32 in x to the 16-bit float kind k (nearest, ties to
// even) into h.
func (f *fngen) narrow(h, x string, k ptxKind) {
	if k == kindF16 {
		f.line("cvt.rn.f16.f32 \t%s, %s;", h, x)
		return
	}
	if f.g.arch.Number() >= 80 {
		f.g.needISA(70)
		f.line("cvt.rn.bf16.f32 \t%s, %s;", h, x)
		return
	}
	// Before sm_80: add half an ulp of bf16 less one, plus the lsb that
	// the result keeps (ties to even), and drop the low 16 bits; a
	// carry reaches the exponent and, past the largest bf16, infinity. A
	// NaN keeps its sign and high payload and is made quiet.
	b, t := f.reg("%r"), f.reg("%r")
	f.line("mov.b32 \t%s, %s;", b, x)
	f.line("shr.u32 \t%s, %s, 16;", t, b)
	f.line("and.b32 \t%s, %s, 1;", t, t)
	f.line("add.s32 \t%s, %s, 32767;", t, t)
	f.line("add.s32 \t%s, %s, %s;", t, t, b)
	f.line("shr.u32 \t%s, %s, 16;", t, t)
	nan := f.reg("%p")
	f.line("setp.nan.f32 \t%s, %s, %s;", nan, x, x)
	f.line("@%s shr.u32 \t%s, %s, 16;", nan, t, b)
	f.line("@%s or.b32 \t%s, %s, 64;", nan, t, t)
	f.line("cvt.u16.u32 \t%s, %s;", h, t)
}

// roundToOddF32 rounds the f64 in x to f32 towards zero and, when that
// was inexact, sets the result's lowest bit (round to odd): an odd f32
// is never a tie of the 16-bit formats, whose ulps are at least 2^13 f32
// ulps (bf16: 2^16), so a second rounding to either is the correct
// rounding of x.
func (f *fngen) roundToOddF32(x string) string {
	t, back := f.reg("%f"), f.reg("%fd")
	f.line("cvt.rz.f32.f64 \t%s, %s;", t, x)
	f.line("cvt.f64.f32 \t%s, %s;", back, t)
	return f.oddIfInexact(t, "ne.f64", back, x)
}

// oddIfInexact sets the lowest bit of the f32 t when setp.cmp of a and b
// holds (the rounding to t was inexact) and returns t's register.
func (f *fngen) oddIfInexact(t, cmp, a, b string) string {
	p, bits := f.reg("%p"), f.reg("%r")
	f.line("setp.%s \t%s, %s, %s;", cmp, p, a, b)
	f.line("mov.b32 \t%s, %s;", bits, t)
	f.line("@%s or.b32 \t%s, %s, 1;", p, bits, bits)
	f.line("mov.b32 \t%s, %s;", t, bits)
	return t
}

// f64ToHalf rounds the f64 in x to the 16-bit float kind k into h.
func (f *fngen) f64ToHalf(h, x string, k ptxKind) {
	switch {
	case k == kindF16:
		f.line("cvt.rn.f16.f64 \t%s, %s;", h, x)
	case f.g.arch.Number() >= 90:
		f.g.needISA(78)
		f.line("cvt.rn.bf16.f64 \t%s, %s;", h, x)
	default:
		f.narrow(h, f.roundToOddF32(x), k)
	}
}

// halfFMA emits fma of 16-bit floats a*b+c without the native
// instruction: the product of two 16-bit floats is exact in f64, the sum
// is rounded to f64 and its error recovered exactly (TwoSum); when the
// sum was inexact and its last bit is even, it moves one ulp towards the
// exact value (round to odd, 53 bits, at least p+2 for both formats), so
// that the final rounding to the 16-bit type is that of the exact a*b+c.
func (f *fngen) halfFMA(r string, a []string, k ptxKind) {
	w := make([]string, 3)
	for i, x := range a {
		w[i] = f.reg("%fd")
		f.line("cvt.f64.f32 \t%s, %s;", w[i], f.widen(x, k))
	}
	p, s := f.reg("%fd"), f.reg("%fd")
	f.line("mul.rn.f64 \t%s, %s, %s;", p, w[0], w[1])
	f.line("add.rn.f64 \t%s, %s, %s;", s, p, w[2])
	bb, t1, t2, t3, e := f.reg("%fd"), f.reg("%fd"), f.reg("%fd"), f.reg("%fd"), f.reg("%fd")
	f.line("sub.rn.f64 \t%s, %s, %s;", bb, s, p)
	f.line("sub.rn.f64 \t%s, %s, %s;", t1, s, bb)
	f.line("sub.rn.f64 \t%s, %s, %s;", t2, p, t1)
	f.line("sub.rn.f64 \t%s, %s, %s;", t3, w[2], bb)
	f.line("add.rn.f64 \t%s, %s, %s;", e, t2, t3)
	// step is +1 when e and s have one sign (the exact value is further
	// from zero than s), else -1; it applies when e != 0 (false for a
	// NaN e: infinite operands) and s's last bit is 0.
	sb, eb, step, lsb := f.reg("%rd"), f.reg("%rd"), f.reg("%rd"), f.reg("%rd")
	f.line("mov.b64 \t%s, %s;", sb, s)
	f.line("mov.b64 \t%s, %s;", eb, e)
	f.line("xor.b64 \t%s, %s, %s;", step, sb, eb)
	f.line("shr.s64 \t%s, %s, 63;", step, step)
	f.line("shl.b64 \t%s, %s, 1;", step, step)
	f.line("or.b64 \t%s, %s, 1;", step, step)
	f.line("and.b64 \t%s, %s, 1;", lsb, sb)
	inexact, even := f.reg("%p"), f.reg("%p")
	f.line("setp.ne.f64 \t%s, %s, 0d0000000000000000;", inexact, e)
	f.line("setp.eq.u64 \t%s, %s, 0;", even, lsb)
	f.line("and.pred \t%s, %s, %s;", inexact, inexact, even)
	f.line("@%s add.s64 \t%s, %s, %s;", inexact, sb, sb, step)
	f.line("mov.b64 \t%s, %s;", s, sb)
	f.f64ToHalf(r, s, k)
}

// intToBF16 converts the integer in src (PTX type st: s32, u32, s64, u64)
// to bf16 before sm_90, which has no cvt to bf16 from integers: rounded to
// f32 towards zero, with the last bit set when that was inexact (round to
// odd), then rounded to bf16.
func (f *fngen) intToBF16(h, src, st string) {
	t := f.reg("%f")
	f.line("cvt.rz.f32.%s \t%s, %s;", st, t, src)
	back := f.reg("%r")
	if st[1:] == "64" {
		back = f.reg("%rd")
	}
	f.line("cvt.rzi.%s.f32 \t%s, %s;", st, back, t)
	f.narrow(h, f.oddIfInexact(t, "ne."+st, back, src), kindBF16)
}

// halfOp emits an op that reads or produces a 16-bit float, reporting
// false when op is not one (op then handles it).
func (f *fngen) halfOp(op *ir.Operation, rk ptxKind) (bool, error) {
	ks := make([]ptxKind, len(op.Operands))
	regs := make([]string, len(op.Operands))
	half := isHalf(rk)
	for i, v := range op.Operands {
		r, k, err := f.value(v)
		if err != nil {
			return true, ir.OpErrorf(op, "%v", err)
		}
		regs[i], ks[i] = r, k
		half = half || isHalf(k)
	}
	if !half {
		return false, nil
	}
	res := op.Results[0]
	same := func(n int) error {
		if len(op.Operands) != n {
			return ir.OpErrorf(op, "expects %d operands, found %d", n, len(op.Operands))
		}
		for _, k := range ks {
			if k != rk {
				return ir.OpErrorf(op, "'%s' needs operands of its result type", op.Name)
			}
		}
		return nil
	}
	switch op.Name {
	case "arith.addf", "arith.subf", "arith.mulf":
		if err := same(2); err != nil {
			return true, err
		}
		opc := map[string]string{"arith.addf": "add", "arith.subf": "sub", "arith.mulf": "mul"}[op.Name]
		if f.nativeHalf(opc, rk) {
			f.line("%s.rn.%s \t%s, %s, %s;", opc, rk.typ, f.define(res, rk), regs[0], regs[1])
			return true, nil
		}
	case "math.fma":
		if err := same(3); err != nil {
			return true, err
		}
		r := f.define(res, rk)
		if f.nativeHalf("fma", rk) {
			f.line("fma.rn.%s \t%s, %s, %s, %s;", rk.typ, r, regs[0], regs[1], regs[2])
		} else {
			f.halfFMA(r, regs, rk)
		}
		return true, nil
	case "arith.maxnumf", "arith.minnumf", "arith.maximumf", "arith.minimumf":
		if err := same(2); err != nil {
			return true, err
		}
		if f.nativeHalf("minmax", rk) {
			opc := map[string]string{"arith.maxnumf": "max", "arith.minnumf": "min", "arith.maximumf": "max.NaN", "arith.minimumf": "min.NaN"}[op.Name]
			f.line("%s.%s \t%s, %s, %s;", opc, rk.typ, f.define(res, rk), regs[0], regs[1])
			return true, nil
		}
	case "arith.negf", "math.absf":
		// The sign bit alone, as the f32 forms do.
		if err := same(1); err != nil {
			return true, err
		}
		if op.Name == "arith.negf" {
			f.line("xor.b16 \t%s, %s, 0x8000;", f.define(res, rk), regs[0])
		} else {
			f.line("and.b16 \t%s, %s, 0x7FFF;", f.define(res, rk), regs[0])
		}
		return true, nil
	case "arith.cmpf":
		if len(op.Operands) != 2 || ks[0] != ks[1] {
			return true, ir.OpErrorf(op, "cmpf needs two operands of one float type")
		}
		p, err := predicate(op, arith.CmpFPredicates)
		if err != nil {
			return true, err
		}
		if p != "true" && p != "false" && f.nativeHalf("setp", ks[0]) {
			f.line("setp.%s.%s \t%s, %s, %s;", cmpfOps[p], ks[0].typ, f.define(res, kindPred), regs[0], regs[1])
			return true, nil
		}
	case "arith.select":
		if len(op.Operands) != 3 || ks[1] != rk || ks[2] != rk {
			return true, ir.OpErrorf(op, "select needs an i1 condition and two values of its result type")
		}
		f.line("selp.b16 \t%s, %s, %s, %s;", f.define(res, rk), regs[1], regs[2], regs[0])
		return true, nil
	case "arith.bitcast":
		if len(op.Operands) != 1 || ks[0].size != 2 || rk.size != 2 {
			return true, ir.OpErrorf(op, "bitcast needs types of one width")
		}
		r := f.define(res, rk)
		switch {
		case isHalf(ks[0]) && isHalf(rk):
			f.line("mov.b16 \t%s, %s;", r, regs[0])
		case isHalf(rk): // from an i16, which lives sign-extended in 32 bits
			f.line("cvt.u16.u32 \t%s, %s;", r, regs[0])
		default:
			f.line("cvt.s32.s16 \t%s, %s;", r, regs[0])
		}
		return true, nil
	case "arith.truncf", "arith.extf":
		if len(op.Operands) != 1 || !ks[0].float || !rk.float {
			return true, ir.OpErrorf(op, "%s converts between float types", op.Name)
		}
		src := regs[0]
		if isHalf(ks[0]) {
			// Exact: every f16 and bf16 is an f32.
			src = f.widen(src, ks[0])
		}
		switch {
		case isHalf(rk) && ks[0] == kindF64:
			f.f64ToHalf(f.define(res, rk), src, rk)
		case isHalf(rk):
			f.narrow(f.define(res, rk), src, rk)
		case rk == kindF32:
			f.names[res], f.kinds[res] = src, rk
		default:
			f.line("cvt.%s.f32 \t%s, %s;", rk.typ, f.define(res, rk), src)
		}
		return true, nil
	case "arith.sitofp", "arith.uitofp":
		if len(op.Operands) != 1 || ks[0].float || !isHalf(rk) {
			return true, ir.OpErrorf(op, "%s converts integers to floats", op.Name)
		}
		if rk == kindF16 {
			// Through f32: integers of magnitude up to 2^24 are exact
			// there, and any larger one is past the largest f16
			// (65504) both before and after the rounding to f32, so
			// the result is the correctly rounded one (infinity).
			break
		}
		src, sk := regs[0], ks[0]
		if sk == kindPred {
			t := f.reg("%r")
			v := "1"
			if op.Name == "arith.sitofp" {
				v = "-1"
			}
			f.line("selp.s32 \t%s, %s, 0, %s;", t, v, src)
			src, sk = t, kindI32
		}
		st := sk.typ
		if op.Name == "arith.uitofp" {
			st = sk.unsigned()
		}
		r := f.define(res, rk)
		if f.g.arch.Number() >= 90 {
			f.g.needISA(78)
			f.line("cvt.rn.bf16.%s \t%s, %s;", st, r, src)
		} else {
			f.intToBF16(r, src, st)
		}
		return true, nil
	}
	return true, f.viaF32(op)
}

// viaF32 emits op with its 16-bit float operands widened to f32 and its
// result, when a 16-bit float, computed in f32 and rounded to its type.
func (f *fngen) viaF32(op *ir.Operation) error {
	saved := map[*ir.Value][2]any{}
	for _, v := range op.Operands {
		if _, done := saved[v]; done {
			continue
		}
		r, k, _ := f.value(v)
		if !isHalf(k) {
			continue
		}
		saved[v] = [2]any{r, k}
		f.names[v], f.kinds[v] = f.widen(r, k), kindF32
	}
	rk, err := f.kind(op.Results[0].Type)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	f.wide = true
	err = f.op(op)
	f.wide = false
	for v, s := range saved {
		f.names[v], f.kinds[v] = s[0].(string), s[1].(ptxKind)
	}
	if err != nil || !isHalf(rk) {
		return err
	}
	res := op.Results[0]
	wide := f.names[res]
	f.narrow(f.define(res, rk), wide, rk)
	return nil
}
