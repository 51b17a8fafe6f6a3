package cuda

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"sync"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

// The math library: exp, exp2, expm1, log, log2, log10, log1p, sin, cos,
// tan, tanh, erf, atan, atan2, powf and fpowi, accurate to a few ulp over
// their whole domain (infinities, NaN, signed zeros, subnormals and huge
// arguments included), emitted inline where an op uses them. PTX's .approx
// instructions are not used: their errors (ex2 and lg2 scaled by a rounded
// constant, sin and cos of large arguments) are far beyond that.
//
// f64 functions compute in double with the usual reductions: exp through
// x = k ln2 + r (ln2 in two parts) and a Taylor polynomial of e^r on
// |r| <= ln2/2, the 2^k applied in two steps so that overflow and gradual
// underflow round once; log through x = m 2^e and 2 atanh((m-1)/(m+1))
// carried in double-double, which pow needs (y log|x| is then exact enough
// that the result keeps a few ulp for every y); sin, cos and tan through
// x = k pi/2 + r with pi/2 in three doubles (Cody and Waite with fma) for
// |x| < 2^20 and by the bits of 2/pi (Payne and Hanek) beyond, then Taylor
// polynomials on |r| <= pi/4; erf by its Maclaurin series below 1 and
// as 1 - erfc with erfc's continued fraction from there; atan through 1/x
// and (x-1)/(x+1) to |x| <= tan(pi/8) and its series.
//
// f32 exp and exp2 compute in f32 without branches (softmax is bound by
// them): the same reduction, a degree-7 polynomial and two exact scalings;
// within 1 ulp. f32 erf computes in f64 without loops (erf32). Every other
// f32 function runs the f64 routine and rounds once, within 1 ulp. f16 and bf16 go through f32 (half.go) and round once
// more.

// libmOps are the math ops this file computes, by operand count.
var libmOps = map[string]int{
	"math.exp": 1, "math.exp2": 1, "math.expm1": 1, "math.log": 1, "math.log2": 1, "math.log10": 1, "math.log1p": 1,
	"math.sin": 1, "math.cos": 1, "math.tan": 1, "math.tanh": 1, "math.erf": 1, "math.atan": 1,
	"math.atan2": 2, "math.powf": 2, "math.fpowi": 2,
}

// mathConstants are the constants the routines need beyond double
// precision, computed once from series in big.Float.
type mathConstants struct {
	ln2Hi, ln2Lo       float64 // ln2Hi has 32 significant bits: k*ln2Hi is exact for |k| < 2^21
	ln2HiF, ln2LoF     float64 // f32 exp's: ln2HiF has 16 bits
	log2eHi, log2eLo   float64
	log10eHi, log10eLo float64
	lg2Hi, lg2Lo       float64 // log10(2); lg2Hi has 32 bits
	pio2               [3]float64
	pio4Hi, pio4Lo     float64
	piHi, piLo         float64
	twoOverSqrtPi      float64
	tanPi8             float64
	// twoOverPi holds a zero word and then the first 19*64 bits of the
	// binary fraction of 2/pi, most significant first.
	twoOverPi [20]uint64
}

var mathConst = sync.OnceValue(computeMathConstants)

const mathPrec = 1500

// bigAtanhInv returns atanh(1/n) (alternate false) or atan(1/n)
// (alternate true) by their series.
func bigSeriesInv(n int64, alternate bool) *big.Float {
	sum := new(big.Float).SetPrec(mathPrec)
	pow := new(big.Float).SetPrec(mathPrec).Quo(big.NewFloat(1).SetPrec(mathPrec), big.NewFloat(float64(n)).SetPrec(mathPrec))
	n2 := new(big.Float).SetPrec(mathPrec).SetInt64(n * n)
	eps := new(big.Float).SetPrec(mathPrec).SetMantExp(big.NewFloat(1), -mathPrec-8)
	term := new(big.Float).SetPrec(mathPrec)
	for k := int64(0); ; k++ {
		term.Quo(pow, new(big.Float).SetPrec(mathPrec).SetInt64(2*k+1))
		if alternate && k%2 == 1 {
			sum.Sub(sum, term)
		} else {
			sum.Add(sum, term)
		}
		if term.Cmp(eps) < 0 {
			return sum
		}
		pow.Quo(pow, n2)
	}
}

// split returns v rounded to a double with at most bits significant bits
// (toward zero) and the rest rounded to a double.
func split(v *big.Float, bits uint) (hi, lo float64) {
	h := new(big.Float).SetMode(big.ToZero).SetPrec(bits).Set(v)
	hi, _ = h.Float64()
	lo, _ = new(big.Float).SetPrec(mathPrec).Sub(v, h).Float64()
	return hi, lo
}

func computeMathConstants() *mathConstants {
	nf := func(x float64) *big.Float { return new(big.Float).SetPrec(mathPrec).SetFloat64(x) }
	mul := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(mathPrec).Mul(a, b) }
	quo := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(mathPrec).Quo(a, b) }
	ln2 := mul(nf(2), bigSeriesInv(3, false))
	// ln 10 = 3 ln 2 + ln(5/4), ln(5/4) = 2 atanh(1/9).
	ln10 := new(big.Float).SetPrec(mathPrec).Add(mul(nf(3), ln2), mul(nf(2), bigSeriesInv(9, false)))
	// Machin: pi = 16 atan(1/5) - 4 atan(1/239).
	pi := new(big.Float).SetPrec(mathPrec).Sub(mul(nf(16), bigSeriesInv(5, true)), mul(nf(4), bigSeriesInv(239, true)))
	c := &mathConstants{}
	c.ln2Hi, c.ln2Lo = split(ln2, 32)
	c.ln2HiF, _ = split(ln2, 16)
	lo, _ := new(big.Float).SetPrec(mathPrec).Sub(ln2, nf(c.ln2HiF)).Float64()
	c.ln2LoF = float64(float32(lo))
	c.log2eHi, c.log2eLo = split(quo(nf(1), ln2), 53)
	c.log10eHi, c.log10eLo = split(quo(nf(1), ln10), 53)
	c.lg2Hi, c.lg2Lo = split(quo(ln2, ln10), 32)
	rest := quo(pi, nf(2))
	for i := range c.pio2 {
		c.pio2[i], _ = split(rest, 53)
		rest.Sub(rest, nf(c.pio2[i]))
	}
	c.pio4Hi, c.pio4Lo = split(quo(pi, nf(4)), 53)
	c.piHi, c.piLo = split(pi, 53)
	sq := new(big.Float).SetPrec(mathPrec).Sqrt(pi)
	c.twoOverSqrtPi, _ = quo(nf(2), sq).Float64()
	// tan(pi/8) = sqrt(2) - 1.
	c.tanPi8, _ = new(big.Float).SetPrec(mathPrec).Sub(new(big.Float).SetPrec(mathPrec).Sqrt(nf(2)), nf(1)).Float64()
	frac := quo(nf(2), pi)
	for i := 1; i < len(c.twoOverPi); i++ {
		frac.SetMantExp(frac, 64)
		w, _ := frac.Uint64()
		c.twoOverPi[i] = w
		frac.Sub(frac, new(big.Float).SetPrec(mathPrec).SetUint64(w))
	}
	return c
}

// ins emits one instruction: its opcode and operands.
func (f *fngen) ins(opc string, args ...string) {
	f.line("%s \t%s;", opc, strings.Join(args, ", "))
}

func (f *fngen) fd() string { return f.reg("%fd") }

// hornerK evaluates c[0] + c[1] x + ... in kind k's float type by fma.
func (f *fngen) hornerK(k ptxKind, x string, c []float64) string {
	lit := f64Lit
	if k == kindF32 {
		lit = f32Lit
	}
	p := f.reg(k.reg)
	f.ins("mov."+k.typ, p, lit(c[len(c)-1]))
	for i := len(c) - 2; i >= 0; i-- {
		f.ins("fma.rn."+k.typ, p, p, x, lit(c[i]))
	}
	return p
}

// taylor returns the coefficients 1/(from+n)! for n = 0..count-1.
func taylor(from, count int) []float64 {
	c := make([]float64, count)
	fact := 1.0
	for i := 2; i <= from; i++ {
		fact *= float64(i)
	}
	for n := range c {
		if n > 0 {
			fact *= float64(from + n)
		}
		c[n] = 1 / fact
	}
	return c
}

// libm emits op, one of libmOps, on f32 or f64 (16-bit floats reach it
// widened to f32 through viaF32).
func (f *fngen) libm(op *ir.Operation, rk ptxKind) error {
	n := libmOps[op.Name]
	a, ks, err := f.operands(op, n)
	if err != nil {
		return err
	}
	if op.Name == "math.fpowi" {
		return f.fpowi(op, rk, a, ks)
	}
	for _, k := range ks {
		if k != rk || k != kindF32 && k != kindF64 {
			return ir.OpErrorf(op, "'%s' needs float operands of its result type (f16, bf16, f32 or f64) in cuda code generation, found %s", op.Name, ir.TypeString(arith.ElementType(op.Results[0].Type)))
		}
	}
	r := f.define(op.Results[0], rk)
	if rk == kindF64 {
		f.libm64(op.Name, r, a)
		return nil
	}
	switch op.Name {
	case "math.erf":
		f.erf32(r, a[0])
		return nil
	case "math.exp":
		f.exp32(r, a[0], false)
		return nil
	case "math.exp2":
		f.exp32(r, a[0], true)
		return nil
	}
	// Every other f32 function: the f64 routine, rounded once.
	w := make([]string, len(a))
	for i, x := range a {
		w[i] = f.fd()
		f.ins("cvt.f64.f32", w[i], x)
	}
	d := f.fd()
	f.libm64(op.Name, d, w)
	f.ins("cvt.rn.f32.f64", r, d)
	return nil
}

// fpowi emits math.fpowi, x to an integer power n (i32 or i64): pow of x
// and n as a double in f64 (the f32 result rounded once), with the sign
// taken from n's own parity where x is negative (an i64 beyond 2^53
// rounds to an even double).
func (f *fngen) fpowi(op *ir.Operation, rk ptxKind, a []string, ks []ptxKind) error {
	if ks[0] != rk || rk != kindF32 && rk != kindF64 || ks[1] != kindI32 && ks[1] != kindI64 {
		return ir.OpErrorf(op, "'%s' needs a float base of its result type (f16, bf16, f32 or f64) and an i32 or i64 exponent in cuda code generation", op.Name)
	}
	r := f.define(op.Results[0], rk)
	x := a[0]
	if rk == kindF32 {
		x = f.fd()
		f.ins("cvt.f64.f32", x, a[0])
	}
	y, odd := f.fd(), f.reg("%p")
	f.ins("cvt.rn.f64."+ks[1].typ, y, a[1])
	bit := f.reg(ks[1].reg)
	f.ins("and."+ks[1].bits, bit, a[1], "1")
	f.ins("setp.ne."+ks[1].typ, odd, bit, "0")
	d := f.fd()
	f.pow64(d, x, y)
	xb, neg := f.reg("%rd"), f.reg("%p")
	f.ins("mov.b64", xb, x)
	f.ins("setp.lt.s64", neg, xb, "0")
	f.ins("@"+neg+" abs.f64", d, d)
	f.ins("and.pred", neg, neg, odd)
	f.ins("@"+neg+" neg.f64", d, d)
	if rk == kindF32 {
		f.ins("cvt.rn.f32.f64", r, d)
	} else {
		f.ins("mov.f64", r, d)
	}
	return nil
}

// libm64 emits the f64 function name of the registers a into r.
func (f *fngen) libm64(name, r string, a []string) {
	switch name {
	case "math.exp":
		f.exp64(r, a[0], "")
	case "math.exp2":
		f.exp2_64(r, a[0])
	case "math.expm1":
		f.expm1_64(r, a[0])
	case "math.log", "math.log2", "math.log10":
		f.log64(r, a[0], name)
	case "math.log1p":
		f.log1p64(r, a[0])
	case "math.sin", "math.cos", "math.tan":
		f.trig64(r, a[0], name)
	case "math.tanh":
		f.tanh64(r, a[0])
	case "math.erf":
		f.erf64(r, a[0])
	case "math.atan":
		f.atan64(r, a[0])
	case "math.atan2":
		f.atan2_64(r, a[0], a[1])
	case "math.powf":
		f.pow64(r, a[0], a[1])
	}
}

// exp32 emits e^x (2^x with two) on f32 without branches: x clamped to
// where the result is neither 0 nor infinite for certain, k the integer
// nearest x log2(e) (x) found by adding 1.5 * 2^23, whose low bits are
// then k (no conversion instructions, which run at a quarter of the
// rate of arithmetic or less: a softmax computes exp twice per element),
// r = x - k ln2 with ln2 in two parts (the first product exact), e^r by
// its Taylor polynomial to r^7 (2^r by the polynomial in r ln2), times
// 2^(k/2) and 2^(k - k/2): the first product is exact and the second
// rounds once, also into the subnormals. NaN stays NaN.
func (f *fngen) exp32(r, x string, two bool) {
	c := mathConst()
	const magic = 12582912 // 1.5 * 2^23: k + magic has k in its low bits
	xc, kf, k := f.reg("%f"), f.reg("%f"), f.reg("%f")
	lo, hi := -104.0, 89.0
	if two {
		lo, hi = -151, 128
	}
	f.ins("max.f32", xc, x, f32Lit(lo))
	f.ins("min.f32", xc, xc, f32Lit(hi))
	var p string
	if two {
		f.ins("add.rn.f32", kf, xc, f32Lit(magic))
		f.ins("sub.rn.f32", k, kf, f32Lit(magic))
		t := f.reg("%f")
		f.ins("sub.rn.f32", t, xc, k)
		co := taylor(0, 8)
		for i := range co {
			co[i] *= math.Pow(math.Ln2, float64(i))
		}
		p = f.hornerK(kindF32, t, co)
	} else {
		f.ins("fma.rn.f32", kf, xc, f32Lit(math.Log2E), f32Lit(magic))
		f.ins("sub.rn.f32", k, kf, f32Lit(magic))
		t := f.reg("%f")
		f.ins("fma.rn.f32", t, k, f32Lit(-c.ln2HiF), xc)
		f.ins("fma.rn.f32", t, k, f32Lit(-c.ln2LoF), t)
		p = f.hornerK(kindF32, t, taylor(0, 8))
	}
	ki, k1, k2 := f.reg("%r"), f.reg("%r"), f.reg("%r")
	f.ins("mov.b32", ki, kf)
	f.ins("sub.s32", ki, ki, fmt.Sprintf("%d", math.Float32bits(magic)))
	f.ins("shr.s32", k1, ki, "1")
	f.ins("sub.s32", k2, ki, k1)
	s1, s2 := f.reg("%f"), f.reg("%f")
	for _, kk := range [][2]string{{k1, s1}, {k2, s2}} {
		f.ins("add.s32", kk[0], kk[0], "127")
		f.ins("shl.b32", kk[0], kk[0], "23")
		f.ins("mov.b32", kk[1], kk[0])
	}
	f.ins("mul.rn.f32", p, p, s1)
	f.ins("mul.rn.f32", r, p, s2)
	nan := f.reg("%p")
	f.ins("setp.nan.f32", nan, x, x)
	f.ins("@"+nan+" add.rn.f32", r, x, x)
}

// scale64 sets r to p * 2^k for the integral double kf in [-2044, 2046],
// in two steps (2^(k/2), then 2^(k - k/2)) so that only the last product
// rounds.
func (f *fngen) scale64(r, p, kf string) {
	ki, k1, k2 := f.reg("%r"), f.reg("%r"), f.reg("%r")
	f.ins("cvt.rzi.s32.f64", ki, kf)
	f.ins("shr.s32", k1, ki, "1")
	f.ins("sub.s32", k2, ki, k1)
	s1, s2 := f.fd(), f.fd()
	for _, kk := range [][2]string{{k1, s1}, {k2, s2}} {
		b := f.reg("%rd")
		f.ins("add.s32", kk[0], kk[0], "1023")
		f.ins("cvt.s64.s32", b, kk[0])
		f.ins("shl.b64", b, b, "52")
		f.ins("mov.b64", kk[1], b)
	}
	t := f.fd()
	f.ins("mul.rn.f64", t, p, s1)
	f.ins("mul.rn.f64", r, t, s2)
}

// pow2_64 returns a register holding 2^k for the integer register k (s32)
// in [-1022, 1023].
func (f *fngen) pow2_64(k string) string {
	t, b, d := f.reg("%r"), f.reg("%rd"), f.fd()
	f.ins("add.s32", t, k, "1023")
	f.ins("cvt.s64.s32", b, t)
	f.ins("shl.b64", b, b, "52")
	f.ins("mov.b64", d, b)
	return d
}

// nanThrough makes r NaN (the operand's own) where x is NaN.
func (f *fngen) nanThrough(r, x, typ string) {
	p := f.reg("%p")
	f.ins("setp.nan."+typ, p, x, x)
	f.ins("@"+p+" add.rn."+typ, r, x, x)
}

// exp64 emits e^(x+lo) in f64 (lo is "" or a register with |lo| far below
// ulp(x)/2 where x is below 1100 in magnitude): k = rint(x log2(e)),
// r = x - k ln2 (+ lo), e^r by Taylor to r^13 (truncation below 5e-18
// relative on |r| <= ln2/2), scaled by 2^k.
func (f *fngen) exp64(r, x, lo string) {
	c := mathConst()
	xc, kf, t := f.fd(), f.fd(), f.fd()
	f.ins("max.f64", xc, x, f64Lit(-1100))
	f.ins("min.f64", xc, xc, f64Lit(1100))
	f.ins("mul.rn.f64", kf, xc, f64Lit(c.log2eHi))
	f.ins("cvt.rni.f64.f64", kf, kf)
	f.ins("fma.rn.f64", t, kf, f64Lit(-c.ln2Hi), xc)
	if lo != "" {
		f.ins("add.rn.f64", t, t, lo)
	}
	f.ins("fma.rn.f64", t, kf, f64Lit(-c.ln2Lo), t)
	p := f.hornerK(kindF64, t, taylor(0, 14))
	f.scale64(r, p, kf)
	f.nanThrough(r, x, "f64")
}

// exp2_64 emits 2^x in f64: k = rint(x), 2^(x-k) (exact argument) by the
// Taylor polynomial of e^r at r = (x-k) ln2, scaled by 2^k.
func (f *fngen) exp2_64(r, x string) {
	xc, kf, t := f.fd(), f.fd(), f.fd()
	f.ins("max.f64", xc, x, f64Lit(-1100))
	f.ins("min.f64", xc, xc, f64Lit(1100))
	f.ins("cvt.rni.f64.f64", kf, xc)
	f.ins("sub.rn.f64", t, xc, kf)
	f.ins("mul.rn.f64", t, t, f64Lit(math.Ln2))
	p := f.hornerK(kindF64, t, taylor(0, 14))
	f.scale64(r, p, kf)
	f.nanThrough(r, x, "f64")
}

// expm1_64 emits e^x - 1 in f64: with k and r as for exp (x clamped to
// [-40, 710], beyond which the result is -1 or infinite), e^r - 1 = r q(r)
// by Taylor to r^15, and the result 2 (2^(k-1) (e^r - 1) + (2^(k-1) -
// 1/2)) with one rounding in the fma; k = 0 takes r q(r) itself (x
// unchanged: zeros keep their sign, subnormals their bits).
func (f *fngen) expm1_64(r, x string) {
	c := mathConst()
	xc, kf, t := f.fd(), f.fd(), f.fd()
	f.ins("max.f64", xc, x, f64Lit(-40))
	f.ins("min.f64", xc, xc, f64Lit(710))
	f.ins("mul.rn.f64", kf, xc, f64Lit(c.log2eHi))
	f.ins("cvt.rni.f64.f64", kf, kf)
	f.ins("fma.rn.f64", t, kf, f64Lit(-c.ln2Hi), xc)
	f.ins("fma.rn.f64", t, kf, f64Lit(-c.ln2Lo), t)
	q := f.hornerK(kindF64, t, taylor(1, 15))
	e := f.fd()
	f.ins("mul.rn.f64", e, t, q)
	ki := f.reg("%r")
	f.ins("cvt.rzi.s32.f64", ki, kf)
	f.ins("sub.s32", ki, ki, "1")
	s := f.pow2_64(ki)
	h := f.fd()
	f.ins("sub.rn.f64", h, s, f64Lit(0.5))
	f.ins("fma.rn.f64", r, s, e, h)
	f.ins("add.rn.f64", r, r, r)
	z := f.reg("%p")
	f.ins("setp.eq.f64", z, kf, f64Lit(0))
	f.ins("@"+z+" mul.rn.f64", r, xc, q) // r q(r) with r = x, its zero's sign kept
	f.nanThrough(r, x, "f64")
}

// logDD emits log(x) for a positive finite x (subnormals included) as a
// double-double hi + lo: x = m 2^e with m in [sqrt(1/2), sqrt(2)),
// f = (m-1)/(m+1) with its rounding error fl (m+1 split exactly; one
// division), log m = 2f + 2fl + 2f^3 (1/3 + f^2/5 + ...) with the series
// to f^23 (truncation below 1e-19 relative), plus e ln2 in two parts.
func (f *fngen) logDD(x string) (hi, lo string) {
	c := mathConst()
	sub := f.reg("%p")
	xs := f.fd()
	f.ins("setp.lt.f64", sub, x, f64Lit(0x1p-1022))
	f.ins("mul.rn.f64", xs, x, f64Lit(0x1p54))
	f.ins("selp.f64", xs, xs, x, sub)
	u, e, mb := f.reg("%rd"), f.reg("%rd"), f.reg("%rd")
	f.ins("mov.b64", u, xs)
	f.ins("shr.u64", e, u, "52")
	f.ins("and.b64", e, e, "2047")
	f.ins("sub.s64", e, e, "1023")
	f.ins("@"+sub+" sub.s64", e, e, "54")
	f.ins("and.b64", mb, u, "4503599627370495") // the fraction bits
	f.ins("or.b64", mb, mb, "4607182418800017408")
	m := f.fd()
	f.ins("mov.b64", m, mb)
	big := f.reg("%p")
	f.ins("setp.gt.f64", big, m, f64Lit(math.Sqrt2))
	f.ins("@"+big+" mul.rn.f64", m, m, f64Lit(0.5))
	f.ins("@"+big+" add.s64", e, e, "1")
	ef := f.fd()
	f.ins("cvt.rn.f64.s64", ef, e)
	num, dh, dl, t := f.fd(), f.fd(), f.fd(), f.fd()
	f.ins("sub.rn.f64", num, m, f64Lit(1))
	f.ins("add.rn.f64", dh, m, f64Lit(1))
	f.ins("sub.rn.f64", t, dh, f64Lit(1))
	f.ins("sub.rn.f64", dl, m, t) // m + 1 = dh + dl exactly
	fh, fl := f.fd(), f.fd()
	f.ins("div.rn.f64", fh, num, dh)
	f.ins("neg.f64", t, fh)
	f.ins("fma.rn.f64", fl, t, dh, num)
	f.ins("fma.rn.f64", fl, t, dl, fl)
	// The residual over m + 1, which is (1 - f)/2: a correction of
	// relative size 2^-53 needs no division.
	f.ins("fma.rn.f64", t, fh, f64Lit(-0.5), f64Lit(0.5))
	f.ins("mul.rn.f64", fl, fl, t)
	z := f.fd()
	f.ins("mul.rn.f64", z, fh, fh)
	co := make([]float64, 11)
	for i := range co {
		co[i] = 2 / float64(2*i+3)
	}
	p := f.hornerK(kindF64, z, co)
	f.ins("mul.rn.f64", p, p, z)
	f.ins("mul.rn.f64", p, p, fh) // the series beyond 2f
	f.ins("fma.rn.f64", p, fl, f64Lit(2), p)
	// hi + lo = e ln2Hi + 2 fh + (p + e ln2Lo), e ln2Hi exact and at
	// least twice 2 fh in magnitude where not 0.
	a, s, er := f.fd(), f.fd(), f.fd()
	f.ins("mul.rn.f64", a, ef, f64Lit(c.ln2Hi))
	f.ins("add.rn.f64", fh, fh, fh)
	f.ins("add.rn.f64", s, a, fh)
	f.ins("sub.rn.f64", er, s, a)
	f.ins("sub.rn.f64", er, fh, er)
	f.ins("fma.rn.f64", p, ef, f64Lit(c.ln2Lo), p)
	f.ins("add.rn.f64", p, p, er)
	hi, lo = f.fd(), f.fd()
	f.ins("add.rn.f64", hi, s, p)
	f.ins("sub.rn.f64", lo, hi, s)
	f.ins("sub.rn.f64", lo, p, lo)
	return hi, lo
}

// log64 emits log, log2 or log10 in f64 from logDD (log2 and log10 scale
// the double-double by their constant in two parts): 0 gives -infinity,
// negative numbers and NaN NaN, +infinity itself.
func (f *fngen) log64(r, x, name string) {
	c := mathConst()
	hi, lo := f.logDD(x)
	switch name {
	case "math.log":
		f.ins("mov.f64", r, hi)
	default:
		kh, kl := c.log2eHi, c.log2eLo
		if name == "math.log10" {
			kh, kl = c.log10eHi, c.log10eLo
		}
		t := f.fd()
		f.ins("mul.rn.f64", t, lo, f64Lit(kh))
		f.ins("fma.rn.f64", t, hi, f64Lit(kl), t)
		f.ins("fma.rn.f64", r, hi, f64Lit(kh), t)
	}
	f.logSpecials(r, x)
}

// logSpecials sets log's results at 0 (-infinity), below 0 and NaN
// (NaN) and +infinity (itself).
func (f *fngen) logSpecials(r, x string) {
	p := f.reg("%p")
	f.ins("setp.eq.f64", p, x, f64Lit(0))
	f.ins("@"+p+" mov.f64", r, f64Lit(math.Inf(-1)))
	f.ins("setp.eq.f64", p, x, f64Lit(math.Inf(1)))
	f.ins("@"+p+" mov.f64", r, x)
	f.ins("setp.ltu.f64", p, x, f64Lit(0))
	f.ins("@"+p+" mov.f64", r, f64Lit(math.NaN()))
}

// log1p64 emits log(1+x) in f64: u = 1+x rounded, log u in double-double
// (logDD) plus the rounding error of u over u, (x - (u-1))/u (exact to
// first order); x itself where u is 1 (zeros keep their sign); -infinity
// at -1, NaN below it and for NaN, infinity at infinity.
func (f *fngen) log1p64(r, x string) {
	u := f.fd()
	f.ins("add.rn.f64", u, x, f64Lit(1))
	hi, lo := f.logDD(u)
	d := f.fd()
	f.ins("sub.rn.f64", d, u, f64Lit(1))
	f.ins("sub.rn.f64", d, x, d)
	f.ins("div.rn.f64", d, d, u)
	f.ins("add.rn.f64", d, d, lo)
	f.ins("add.rn.f64", r, hi, d)
	p := f.reg("%p")
	f.ins("setp.eq.f64", p, u, f64Lit(1))
	f.ins("@"+p+" mov.f64", r, x)
	f.ins("setp.eq.f64", p, x, f64Lit(math.Inf(1)))
	f.ins("@"+p+" mov.f64", r, x)
	f.ins("setp.eq.f64", p, x, f64Lit(-1))
	f.ins("@"+p+" mov.f64", r, f64Lit(math.Inf(-1)))
	f.ins("setp.ltu.f64", p, x, f64Lit(-1))
	f.ins("@"+p+" mov.f64", r, f64Lit(math.NaN()))
	f.nanThrough(r, x, "f64")
}

// trig64 emits sin, cos or tan in f64: x = k pi/2 + r, |r| <= pi/4, then
// the Taylor polynomials of sin r (to r^19) and cos r (to r^20) chosen and
// negated by k mod 4 (tan: sin/cos or -cos/sin). Below 2^20, r = ((x -
// k p1) - k p2) - k p3 with pi/2 = p1 + p2 + p3 and fma (the first step
// exact); beyond, on a branch, Payne and Hanek's reduction: x = M 2^E
// with M an integer of 53 bits, the 192 bits of 2/pi that matter at E
// (picked from 19 words by E), M times them modulo 2^192 (three 64-bit
// products), whose top 128 bits are x 2/pi modulo 4 to 2^-126; its top
// two bits (rounded) are k mod 4 and the rest, a fraction in [-1/2, 1/2),
// times pi/2 in double-double is r. Infinities and NaN give NaN, and sin
// and tan of |x| < 2^-26 are x.
func (f *fngen) trig64(res, x, name string) {
	c := mathConst()
	ax := f.fd()
	f.ins("abs.f64", ax, x)
	kf, r := f.fd(), f.fd()
	f.ins("mul.rn.f64", kf, x, f64Lit(2/math.Pi))
	f.ins("cvt.rni.f64.f64", kf, kf)
	f.ins("fma.rn.f64", r, kf, f64Lit(-c.pio2[0]), x)
	f.ins("fma.rn.f64", r, kf, f64Lit(-c.pio2[1]), r)
	f.ins("fma.rn.f64", r, kf, f64Lit(-c.pio2[2]), r)
	q := f.reg("%r")
	f.ins("cvt.rzi.s32.f64", q, kf)
	big := f.reg("%p")
	done := f.reg("$L__trig_done")
	f.ins("setp.ge.f64", big, ax, f64Lit(0x1p20))
	f.ins("@!"+big+" bra", done)
	f.payneHanek(r, q, x, ax)
	f.body.WriteString(done + ":\n")
	if name == "math.cos" {
		f.ins("add.s32", q, q, "1") // cos x = sin(x + pi/2)
	}
	r2 := f.fd()
	f.ins("mul.rn.f64", r2, r, r)
	sc := make([]float64, 9) // sin r = r + r^3 (-1/6 + r^2/120 - ...)
	for i := range sc {
		sc[i] = taylor(2*i+3, 1)[0]
		if i%2 == 0 {
			sc[i] = -sc[i]
		}
	}
	ps := f.hornerK(kindF64, r2, sc)
	s, t := f.fd(), f.fd()
	f.ins("mul.rn.f64", t, r2, r)
	f.ins("fma.rn.f64", s, t, ps, r)
	cc := make([]float64, 10) // cos r = 1 + r^2 (-1/2 + r^2/24 - ...)
	for i := range cc {
		cc[i] = taylor(2*i+2, 1)[0]
		if i%2 == 0 {
			cc[i] = -cc[i]
		}
	}
	pc := f.hornerK(kindF64, r2, cc)
	co := f.fd()
	f.ins("fma.rn.f64", co, r2, pc, f64Lit(1))
	odd, neg := f.reg("%r"), f.reg("%r")
	f.ins("and.b32", odd, q, "1")
	f.ins("and.b32", neg, q, "2")
	po, pn := f.reg("%p"), f.reg("%p")
	f.ins("setp.ne.s32", po, odd, "0")
	f.ins("setp.ne.s32", pn, neg, "0")
	if name == "math.tan" {
		num, den := f.fd(), f.fd()
		f.ins("neg.f64", t, co)
		f.ins("selp.f64", num, t, s, po)
		f.ins("selp.f64", den, s, co, po)
		f.ins("div.rn.f64", res, num, den)
	} else {
		f.ins("selp.f64", res, co, s, po)
		f.ins("@"+pn+" neg.f64", res, res)
	}
	if name != "math.cos" {
		f.ins("setp.lt.f64", po, ax, f64Lit(0x1p-26))
		f.ins("@"+po+" mov.f64", res, x)
	}
	f.ins("testp.finite.f64", po, x)
	f.ins("@!"+po+" sub.rn.f64", res, x, x)
}

// payneHanek sets r and q (k mod 4, as an s32) for x with |x| = ax >= 2^20
// (see trig64); infinities give garbage that trig64 replaces.
func (f *fngen) payneHanek(r, q, x, ax string) {
	c := mathConst()
	u, m, e := f.reg("%rd"), f.reg("%rd"), f.reg("%r")
	f.ins("mov.b64", u, ax)
	f.ins("and.b64", m, u, "4503599627370495")
	f.ins("or.b64", m, m, "4503599627370496") // M, the implicit bit set
	f.ins("shr.u64", u, u, "52")
	f.ins("cvt.u32.u64", e, u)
	// The window's first bit is bit E-1 of 2/pi (bit j weighs 2^-j), bit
	// E+62 of twoOverPi with its zero word first: word g>>6, bit g&63.
	g, w, sh, rs := f.reg("%r"), f.reg("%r"), f.reg("%r"), f.reg("%r")
	f.ins("sub.s32", g, e, fmtInt(1075-62))
	f.ins("shr.u32", w, g, "6")
	f.ins("and.b32", sh, g, "63")
	f.ins("mov.u32", rs, "64")
	f.ins("sub.s32", rs, rs, sh)
	t := [4]string{f.reg("%rd"), f.reg("%rd"), f.reg("%rd"), f.reg("%rd")}
	p := f.reg("%p")
	for i := 0; i+3 < len(c.twoOverPi); i++ {
		f.ins("setp.eq.u32", p, w, fmtInt(int64(i)))
		for j := range t {
			f.ins("@"+p+" mov.b64", t[j], fmtHex(c.twoOverPi[i+j]))
		}
	}
	var win [3]string // most significant first
	for j := range win {
		a, b := f.reg("%rd"), f.reg("%rd")
		f.ins("shl.b64", a, t[j], sh)
		f.ins("shr.u64", b, t[j+1], rs)
		f.ins("or.b64", a, a, b)
		win[j] = a
	}
	h0, l1, h1, l2 := f.reg("%rd"), f.reg("%rd"), f.reg("%rd"), f.reg("%rd")
	f.ins("mul.hi.u64", h0, m, win[2])
	f.ins("mul.lo.u64", l1, m, win[1])
	f.ins("mul.hi.u64", h1, m, win[1])
	f.ins("mul.lo.u64", l2, m, win[0])
	y1, y2, cy := f.reg("%rd"), f.reg("%rd"), f.reg("%rd")
	f.ins("add.u64", y1, h0, l1)
	f.ins("setp.lt.u64", p, y1, l1)
	f.ins("selp.u64", cy, "1", "0", p)
	f.ins("add.u64", y2, h1, l2)
	f.ins("add.u64", y2, y2, cy)
	// Round to the nearest multiple of 2^126: add a half, take the top
	// two bits as k and the rest, less the half, as a signed fraction.
	f.ins("add.u64", y2, y2, fmtInt(1<<61))
	k64 := f.reg("%rd")
	f.ins("shr.u64", k64, y2, "62")
	f.ins("cvt.u32.u64", q, k64)
	f.ins("and.b64", y2, y2, fmtInt(1<<62-1))
	f.ins("sub.s64", y2, y2, fmtInt(1<<61))
	// F = y2 2^-62 + y1 2^-126, as a double-double: a = y2 rounded, b the
	// rest (y2 - a) 2^64 + y1 rounded.
	a, d, b, lo := f.fd(), f.reg("%rd"), f.fd(), f.fd()
	f.ins("cvt.rn.f64.s64", a, y2)
	f.ins("cvt.rzi.s64.f64", d, a)
	f.ins("sub.s64", d, y2, d)
	f.ins("cvt.rn.f64.s64", b, d)
	f.ins("cvt.rn.f64.u64", lo, y1)
	f.ins("fma.rn.f64", b, b, f64Lit(0x1p64), lo)
	f.ins("mul.rn.f64", a, a, f64Lit(0x1p-62))
	f.ins("mul.rn.f64", b, b, f64Lit(0x1p-126))
	s, er := f.fd(), f.fd()
	f.ins("add.rn.f64", s, a, b)
	f.ins("sub.rn.f64", er, s, a)
	f.ins("sub.rn.f64", er, b, er)
	// r = (s + er) pi/2.
	ph := 2 * c.pio4Hi
	pl := 2 * c.pio4Lo
	rh, rl := f.fd(), f.fd()
	f.ins("mul.rn.f64", rh, s, f64Lit(ph))
	f.ins("neg.f64", rl, rh)
	f.ins("fma.rn.f64", rl, s, f64Lit(ph), rl)
	t2 := f.fd()
	f.ins("mul.rn.f64", t2, er, f64Lit(ph))
	f.ins("fma.rn.f64", t2, s, f64Lit(pl), t2)
	f.ins("add.rn.f64", rl, rl, t2)
	f.ins("add.rn.f64", r, rh, rl)
	// Negative x: -r and -k.
	neg := f.reg("%p")
	f.ins("setp.lt.f64", neg, x, f64Lit(0))
	f.ins("@"+neg+" neg.f64", r, r)
	f.ins("@"+neg+" neg.s32", q, q)
}

// tanh64 emits tanh in f64: with a = |x|, t = e^(2a) - 1 and t/(t+2),
// 1 from a = 22 on (where it rounds to 1), the sign of x copied on.
func (f *fngen) tanh64(r, x string) {
	a, t := f.fd(), f.fd()
	f.ins("abs.f64", a, x)
	f.ins("add.rn.f64", t, a, a)
	e := f.fd()
	f.expm1_64(e, t)
	d := f.fd()
	f.ins("add.rn.f64", d, e, f64Lit(2))
	f.ins("div.rn.f64", d, e, d)
	p := f.reg("%p")
	f.ins("setp.ge.f64", p, a, f64Lit(22))
	f.ins("@"+p+" mov.f64", d, f64Lit(1))
	f.ins("copysign.f64", r, x, d)
}

// erf64 emits erf in f64, from a = |x| with the sign of x copied on:
// below 1, a times its Maclaurin series in a^2 to a^40 (truncation below
// 1e-20; the first term dominates); from 1 to 6, 1 - erfc(a) with
// erfc(a) = e^(-a^2) / (sqrt(pi) t), t Laplace's continued fraction
// a + (1/2)/(a + 1/(a + (3/2)/(a + ...))) evaluated backwards from level
// 200/a^2 + 8 (a loop: 208 levels at 1, 13 near 6; relative error below
// 3e-16, which 1 - erfc shrinks), e^(-a^2) from the exact square (hi + lo:
// e^-hi (1 - lo)); from 6 on (and at infinity) 1. NaN stays NaN.
func (f *fngen) erf64(r, x string) {
	c := mathConst()
	a := f.fd()
	f.ins("abs.f64", a, x)
	hi, lo, m := f.fd(), f.fd(), f.fd()
	f.ins("mul.rn.f64", hi, a, a)
	f.ins("neg.f64", m, hi)
	f.ins("fma.rn.f64", lo, a, a, m)
	co := make([]float64, 21)
	fact := 1.0
	for n := range co {
		if n > 0 {
			fact *= float64(n)
		}
		co[n] = c.twoOverSqrtPi / (fact * float64(2*n+1))
		if n%2 == 1 {
			co[n] = -co[n]
		}
	}
	p := f.hornerK(kindF64, hi, co)
	f.ins("mul.rn.f64", p, p, a)
	// The continued fraction, skipped below 1, from 6 on and for NaN.
	t, k, d := f.fd(), f.fd(), f.fd()
	f.ins("mov.f64", t, a)
	done, loop := f.reg("$L__erf_done"), f.reg("$L__erf")
	small, big := f.reg("%p"), f.reg("%p")
	f.ins("setp.ltu.f64", small, a, f64Lit(1))
	f.ins("setp.ge.f64", big, a, f64Lit(6))
	f.ins("or.pred", big, big, small)
	f.ins("@"+big+" bra", done)
	f.ins("div.rn.f64", k, f64Lit(100), hi) // half of 200/a^2: the level's n/2
	f.ins("cvt.rzi.f64.f64", k, k)
	f.ins("add.rn.f64", k, k, f64Lit(4))
	f.body.WriteString(loop + ":\n")
	f.ins("div.rn.f64", d, k, t)
	f.ins("add.rn.f64", t, a, d)
	f.ins("sub.rn.f64", k, k, f64Lit(0.5))
	f.ins("setp.gt.f64", small, k, f64Lit(0))
	f.ins("@"+small+" bra", loop)
	f.body.WriteString(done + ":\n")
	e := f.fd()
	f.exp64(e, m, "")
	f.ins("sub.rn.f64", lo, f64Lit(1), lo)
	f.ins("mul.rn.f64", e, e, lo)
	f.ins("div.rn.f64", e, e, t)
	f.ins("mul.rn.f64", e, e, f64Lit(c.twoOverSqrtPi/2))
	f.ins("sub.rn.f64", e, f64Lit(1), e)
	f.ins("setp.lt.f64", small, a, f64Lit(1))
	f.ins("@"+small+" mov.f64", e, p)
	f.ins("setp.ge.f64", big, a, f64Lit(6))
	f.ins("@"+big+" mov.f64", e, f64Lit(1))
	f.ins("copysign.f64", r, x, e)
	f.nanThrough(r, x, "f64")
}

// erfCheb are the Chebyshev coefficients of e^(a^2) erfc(a) on [1, 4] in
// t = (2a - 5)/3, degree 16 (relative error below 6e-12): interpolated at
// the 17 Chebyshev nodes, where erfc's continued fraction was evaluated
// to 600 levels in 160-bit arithmetic.
var erfCheb = [...]float64{
	0x1.f4957d364d198p-03, -0x1.165205361f2fap-03, 0x1.23ec403b6e0e7p-05, -0x1.231d388285aa2p-07, 0x1.15aa8393bd24bp-09,
	-0x1.fcfa3d136dp-12, 0x1.c1f0511e08788p-14, -0x1.80d0185098f0fp-16, 0x1.3f3a7c2412d2dp-18, -0x1.016d995dda5a6p-20,
	0x1.94598f6478788p-23, -0x1.35c7d49bc3c3cp-25, 0x1.cfb1118f0f0f1p-28, -0x1.5372ce6969697p-30, 0x1.e6aa807878788p-33,
	-0x1.55b7b3c3c3c3cp-35, 0x1.ca4f8p-38,
}

// erf32 emits erf on f32 in f64 without loops or divisions (GELU's erf is
// elementwise over whole activations): with a = |x|, below 1 a times its
// Maclaurin series to a^27; from 1 to 4, 1 - e^(-a^2) g(a) with g =
// e^(a^2) erfc(a) by the Chebyshev series erfCheb (Clenshaw's recurrence)
// and e^(-a^2) from the exact square; from 4 on 1 (erf rounds to 1 in f32
// from 3.92). Each part is far within an f32 ulp before the one rounding;
// the sign of x is copied on and NaN stays NaN.
func (f *fngen) erf32(r, x32 string) {
	c := mathConst()
	x := f.fd()
	f.ins("cvt.f64.f32", x, x32)
	a := f.fd()
	f.ins("abs.f64", a, x)
	hi, lo, m := f.fd(), f.fd(), f.fd()
	f.ins("mul.rn.f64", hi, a, a)
	f.ins("neg.f64", m, hi)
	f.ins("fma.rn.f64", lo, a, a, m)
	co := make([]float64, 14)
	fact := 1.0
	for n := range co {
		if n > 0 {
			fact *= float64(n)
		}
		co[n] = c.twoOverSqrtPi / (fact * float64(2*n+1))
		if n%2 == 1 {
			co[n] = -co[n]
		}
	}
	p := f.hornerK(kindF64, hi, co)
	f.ins("mul.rn.f64", p, p, a)
	t, t2 := f.fd(), f.fd()
	f.ins("fma.rn.f64", t, a, f64Lit(2.0/3), f64Lit(-5.0/3))
	f.ins("add.rn.f64", t2, t, t)
	b1, b2 := f.fd(), f.fd()
	f.ins("mov.f64", b1, f64Lit(erfCheb[len(erfCheb)-1]))
	f.ins("mov.f64", b2, f64Lit(0))
	for j := len(erfCheb) - 2; j >= 1; j-- {
		n := f.fd()
		f.ins("sub.rn.f64", n, f64Lit(erfCheb[j]), b2)
		f.ins("fma.rn.f64", n, t2, b1, n)
		b1, b2 = n, b1
	}
	g := f.fd()
	f.ins("sub.rn.f64", g, f64Lit(erfCheb[0]), b2)
	f.ins("fma.rn.f64", g, t, b1, g)
	e := f.fd()
	f.exp64(e, m, "")
	f.ins("sub.rn.f64", lo, f64Lit(1), lo)
	f.ins("mul.rn.f64", e, e, lo)
	f.ins("mul.rn.f64", e, e, g)
	f.ins("sub.rn.f64", e, f64Lit(1), e)
	q := f.reg("%p")
	f.ins("setp.lt.f64", q, a, f64Lit(1))
	f.ins("@"+q+" mov.f64", e, p)
	f.ins("setp.ge.f64", q, a, f64Lit(4))
	f.ins("@"+q+" mov.f64", e, f64Lit(1))
	f.ins("copysign.f64", e, x, e)
	f.nanThrough(e, x, "f64")
	f.ins("cvt.rn.f32.f64", r, e)
}

// atanAbs sets r to atan(a) for a = |x| (or NaN): beyond 1 through
// pi/2 - atan(1/a), beyond tan(pi/8) through pi/4 + atan((a-1)/(a+1)),
// then a times the series 1 - a^2/3 + a^4/5 - ... to a^43 (|a| <=
// tan(pi/8): truncation below 1e-19), the offsets in two parts.
func (f *fngen) atanAbs(r, a string) {
	c := mathConst()
	inv, mid := f.reg("%p"), f.reg("%p")
	b, t := f.fd(), f.fd()
	f.ins("setp.gt.f64", inv, a, f64Lit(1))
	f.ins("div.rn.f64", t, f64Lit(1), a)
	f.ins("selp.f64", b, t, a, inv)
	f.ins("setp.gt.f64", mid, b, f64Lit(c.tanPi8))
	n, d := f.fd(), f.fd()
	f.ins("sub.rn.f64", n, b, f64Lit(1))
	f.ins("add.rn.f64", d, b, f64Lit(1))
	f.ins("div.rn.f64", n, n, d)
	f.ins("selp.f64", b, n, b, mid)
	z := f.fd()
	f.ins("mul.rn.f64", z, b, b)
	co := make([]float64, 22)
	for i := range co {
		co[i] = 1 / float64(2*i+1)
		if i%2 == 1 {
			co[i] = -co[i]
		}
	}
	co = co[1:] // the series less its first term, over b^3
	p := f.hornerK(kindF64, z, co)
	f.ins("mul.rn.f64", p, p, z)
	f.ins("mul.rn.f64", p, p, b)
	off, offLo := f.fd(), f.fd()
	f.ins("selp.f64", off, f64Lit(c.pio4Hi), f64Lit(0), mid)
	f.ins("selp.f64", offLo, f64Lit(c.pio4Lo), f64Lit(0), mid)
	f.ins("add.rn.f64", p, p, offLo)
	f.ins("add.rn.f64", p, p, b)
	f.ins("add.rn.f64", r, off, p)
	// pi/2 - r with pi/2 in two parts.
	f.ins("sub.rn.f64", t, r, f64Lit(2*c.pio4Lo))
	f.ins("sub.rn.f64", t, f64Lit(2*c.pio4Hi), t)
	f.ins("@"+inv+" mov.f64", r, t)
}

// atan64 emits atan in f64: atanAbs of |x| with the sign of x copied on.
func (f *fngen) atan64(r, x string) {
	a, t := f.fd(), f.fd()
	f.ins("abs.f64", a, x)
	f.atanAbs(t, a)
	f.ins("copysign.f64", r, x, t)
	f.nanThrough(r, x, "f64")
}

// atan2_64 emits atan2(y, x) in f64 with C's special cases: atan(|y/x|),
// pi less it where x is negative (its sign bit: -0 too), pi/2 where x is 0
// or y infinite, pi/4 or 3pi/4 where both are infinite, 0 or pi where x
// is infinite and y finite or y is 0; the sign of y copied on; NaN in
// either gives NaN.
func (f *fngen) atan2_64(r, y, x string) {
	c := mathConst()
	ax, ay, q := f.fd(), f.fd(), f.fd()
	f.ins("abs.f64", ax, x)
	f.ins("abs.f64", ay, y)
	f.ins("div.rn.f64", q, ay, ax)
	t := f.fd()
	f.atanAbs(t, q)
	xb := f.reg("%rd")
	xneg, p, p2 := f.reg("%p"), f.reg("%p"), f.reg("%p")
	f.ins("mov.b64", xb, x)
	f.ins("setp.lt.s64", xneg, xb, "0")
	v := f.fd()
	f.ins("sub.rn.f64", v, f64Lit(c.piHi), t)
	f.ins("add.rn.f64", v, v, f64Lit(c.piLo))
	f.ins("selp.f64", v, v, t, xneg)
	pi, zeroOrPi := f64Lit(c.piHi), f.fd()
	f.ins("selp.f64", zeroOrPi, pi, f64Lit(0), xneg)
	inf := f64Lit(math.Inf(1))
	f.ins("setp.eq.f64", p, ay, inf)
	f.ins("@"+p+" mov.f64", v, f64Lit(2*c.pio4Hi))
	f.ins("setp.eq.f64", p2, ax, inf)
	f.ins("@"+p2+" mov.f64", v, zeroOrPi)
	f.ins("and.pred", p, p, p2)
	diag := f.fd()
	f.ins("selp.f64", diag, f64Lit(3*c.pio4Hi), f64Lit(c.pio4Hi), xneg)
	f.ins("@"+p+" mov.f64", v, diag)
	f.ins("setp.eq.f64", p, ax, f64Lit(0))
	f.ins("@"+p+" mov.f64", v, f64Lit(2*c.pio4Hi))
	f.ins("setp.eq.f64", p, ay, f64Lit(0))
	f.ins("@"+p+" mov.f64", v, zeroOrPi)
	f.ins("copysign.f64", r, y, v)
	f.ins("setp.nan.f64", p, x, y)
	f.ins("@"+p+" add.rn.f64", r, x, y)
}

// pow64 emits x^y in f64 as C's pow: e^(y log|x|) with log|x| in
// double-double (logDD) and the product y log|x| = ph + pl exact enough
// to keep the result within a few ulp, negated where x is negative (or
// -0) and y an odd integer; the special cases: y = 0 or x = 1 give 1 (NaN
// operands included); else NaN operands NaN; |x| = 1 with an infinite y
// 1; an infinite y 0 or infinity by whether |x| > 1; x = 0 or infinite 0
// or infinity by the sign of y (signed as above); a negative finite x
// with a finite y that is not an integer NaN.
func (f *fngen) pow64(r, x, y string) {
	ax := f.fd()
	f.ins("abs.f64", ax, x)
	lh, ll := f.logDD(ax)
	ph, pl, t := f.fd(), f.fd(), f.fd()
	f.ins("mul.rn.f64", ph, y, lh)
	f.ins("neg.f64", t, ph)
	f.ins("fma.rn.f64", pl, y, lh, t)
	f.ins("fma.rn.f64", pl, y, ll, pl)
	p := f.reg("%p")
	f.ins("abs.f64", t, ph)
	f.ins("setp.geu.f64", p, t, f64Lit(1000))
	f.ins("@"+p+" mov.f64", pl, f64Lit(0))
	f.exp64(r, ph, pl)
	// y an integer when it equals its truncation, odd when half of it
	// is not (every double from 2^53 on is even).
	ty, h := f.fd(), f.fd()
	integer, odd, xneg := f.reg("%p"), f.reg("%p"), f.reg("%p")
	f.ins("cvt.rzi.f64.f64", ty, y)
	f.ins("setp.eq.f64", integer, ty, y)
	f.ins("mul.rn.f64", h, y, f64Lit(0.5))
	f.ins("cvt.rzi.f64.f64", ty, h)
	f.ins("setp.ne.f64", odd, ty, h)
	f.ins("and.pred", odd, odd, integer)
	xb := f.reg("%rd")
	f.ins("mov.b64", xb, x)
	f.ins("setp.lt.s64", xneg, xb, "0")
	inf := f64Lit(math.Inf(1))
	ypos, big := f.reg("%p"), f.reg("%p")
	f.ins("setp.gt.f64", ypos, y, f64Lit(0))
	// x = 0 or infinite.
	zi := f.fd()
	f.ins("selp.f64", zi, f64Lit(0), inf, ypos)
	f.ins("setp.eq.f64", p, ax, f64Lit(0))
	f.ins("@"+p+" mov.f64", r, zi)
	f.ins("selp.f64", zi, inf, f64Lit(0), ypos)
	f.ins("setp.eq.f64", p, ax, inf)
	f.ins("@"+p+" mov.f64", r, zi)
	f.ins("and.pred", p, xneg, odd)
	f.ins("@"+p+" neg.f64", r, r)
	// y infinite.
	f.ins("setp.gt.f64", big, ax, f64Lit(1))
	f.ins("xor.pred", big, big, ypos)
	f.ins("selp.f64", zi, f64Lit(0), inf, big)
	f.ins("setp.eq.f64", big, ax, f64Lit(1))
	f.ins("@"+big+" mov.f64", zi, f64Lit(1))
	f.ins("abs.f64", t, y)
	f.ins("setp.eq.f64", p, t, inf)
	f.ins("@"+p+" mov.f64", r, zi)
	// A negative finite x with a finite y that is not an integer.
	fin := f.reg("%p")
	f.ins("setp.lt.f64", p, x, f64Lit(0))
	f.ins("testp.finite.f64", fin, x)
	f.ins("and.pred", p, p, fin)
	f.ins("not.pred", integer, integer)
	f.ins("and.pred", p, p, integer)
	f.ins("@"+p+" mov.f64", r, f64Lit(math.NaN()))
	f.ins("setp.nan.f64", p, x, y)
	f.ins("@"+p+" add.rn.f64", r, x, y)
	f.ins("setp.eq.f64", p, y, f64Lit(0))
	f.ins("@"+p+" mov.f64", r, f64Lit(1))
	f.ins("setp.eq.f64", p, x, f64Lit(1))
	f.ins("@"+p+" mov.f64", r, f64Lit(1))
}

func fmtInt(v int64) string  { return fmt.Sprint(v) }
func fmtHex(v uint64) string { return fmt.Sprintf("0x%016X", v) }

// remf64 emits arith.remf on f64 as C's fmod, exactly, by binary long
// division of the significands as integers: |a| = ma 2^ea and |b| = mb
// 2^eb with ma and mb of 53 bits (subnormals normalized by their leading
// zeros), ma reduced modulo mb while shifting it left one bit per
// exponent step from ea down to eb (at most 2098 steps), then the
// remainder normalized (or shifted into a subnormal, exactly: the result
// is a multiple of b's ulp) and given a's sign. A zero or NaN b, or an
// infinite or NaN a, gives NaN; |a| < |b| (an infinite b among them)
// gives a; a zero remainder is a zero of a's sign.
func (f *fngen) remf64(res, a, b string) {
	const mant = "4503599627370495" // 2^52 - 1
	bad, p := f.reg("%p"), f.reg("%p")
	ab := f.fd()
	f.ins("abs.f64", ab, b)
	f.ins("testp.finite.f64", bad, a)
	f.ins("not.pred", bad, bad)
	f.ins("setp.equ.f64", p, ab, f64Lit(0))
	f.ins("or.pred", bad, bad, p)
	ua, xa, xb, sign := f.reg("%rd"), f.reg("%rd"), f.reg("%rd"), f.reg("%rd")
	f.ins("mov.b64", ua, a)
	f.ins("and.b64", xa, ua, "9223372036854775807")
	f.ins("xor.b64", sign, ua, xa)
	f.ins("mov.b64", xb, ab)
	done := f.reg("$L__fmod64_done")
	f.ins("mov.f64", res, a)
	f.ins("setp.lt.u64", p, xa, xb)
	f.ins("or.pred", p, p, bad)
	f.ins("@"+p+" bra", done)
	// Exponents and 53-bit significands.
	split := func(x string) (m, e string) {
		m, e = f.reg("%rd"), f.reg("%r")
		t, z := f.reg("%rd"), f.reg("%r")
		f.ins("shr.u64", t, x, "52")
		f.ins("cvt.u32.u64", e, t)
		f.ins("and.b64", m, x, mant)
		sub := f.reg("%p")
		f.ins("setp.eq.s32", sub, e, "0")
		f.ins("@!"+sub+" or.b64", m, m, "4503599627370496")
		f.ins("clz.b64", z, m)
		f.ins("sub.s32", z, z, "11")
		f.ins("@"+sub+" shl.b64", m, m, z)
		f.ins("@"+sub+" mov.u32", e, "1")
		f.ins("@"+sub+" sub.s32", e, e, z)
		return m, e
	}
	ma, ea := split(xa)
	mb, eb := split(xb)
	d := f.reg("%rd")
	loop, tail := f.reg("$L__fmod64_loop"), f.reg("$L__fmod64_tail")
	f.body.WriteString(loop + ":\n")
	f.ins("setp.le.s32", p, ea, eb)
	f.ins("@"+p+" bra", tail)
	f.ins("sub.s64", d, ma, mb)
	f.ins("setp.ge.s64", p, d, "0")
	f.ins("@"+p+" mov.b64", ma, d)
	f.ins("shl.b64", ma, ma, "1")
	f.ins("sub.s32", ea, ea, "1")
	f.ins("bra.uni", loop)
	f.body.WriteString(tail + ":\n")
	f.ins("sub.s64", d, ma, mb)
	f.ins("setp.ge.s64", p, d, "0")
	f.ins("@"+p+" mov.b64", ma, d)
	// Normalize: the leading bit back to bit 52, or into a subnormal.
	z := f.reg("%r")
	f.ins("clz.b64", z, ma)
	f.ins("sub.s32", z, z, "11")
	f.ins("shl.b64", ma, ma, z)
	f.ins("sub.s32", ea, ea, z)
	bits, t := f.reg("%rd"), f.reg("%rd")
	f.ins("and.b64", bits, ma, mant)
	f.ins("cvt.u64.u32", t, ea)
	f.ins("shl.b64", t, t, "52")
	f.ins("or.b64", bits, bits, t)
	sub, sh := f.reg("%p"), f.reg("%r")
	f.ins("setp.lt.s32", sub, ea, "1")
	f.ins("mov.u32", sh, "1")
	f.ins("sub.s32", sh, sh, ea)
	f.ins("@"+sub+" shr.u64", bits, ma, sh)
	zero := f.reg("%p")
	f.ins("setp.eq.u64", zero, ma, "0")
	f.ins("@"+zero+" mov.b64", bits, "0")
	f.ins("or.b64", bits, bits, sign)
	f.ins("mov.b64", res, bits)
	f.body.WriteString(done + ":\n")
	f.ins("@"+bad+" mov.f64", res, f64Lit(math.NaN()))
}
