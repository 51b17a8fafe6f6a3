package ir

import "math"

// encodeMinifloat returns the bits of v as an IEEE-style binary float with
// expBits exponent and mantBits mantissa bits (f16: 5, 10; bf16: 8, 7),
// rounded to nearest even straight from float64, so a literal is rounded
// once, as MLIR's APFloat conversion does. Values past the largest finite
// one become infinities; NaNs stay quiet NaNs.
func encodeMinifloat(v float64, expBits, mantBits uint) uint64 {
	var sign uint64
	if math.Signbit(v) {
		sign = 1 << (expBits + mantBits)
	}
	expAll := uint64(1)<<expBits - 1
	switch {
	case math.IsNaN(v):
		return sign | expAll<<mantBits | 1<<(mantBits-1)
	case math.IsInf(v, 0):
		return sign | expAll<<mantBits
	}
	a := math.Abs(v)
	if a == 0 {
		return sign
	}
	bias := int(1)<<(expBits-1) - 1
	minExp := 1 - bias
	frac, e := math.Frexp(a) // a = frac * 2^e, frac in [0.5, 1)
	exp := e - 1
	if exp < minExp {
		// Subnormal: the value in units of the smallest subnormal. A
		// result of 1<<mantBits is the smallest normal, which the same
		// bits encode.
		q := math.RoundToEven(math.Ldexp(a, int(mantBits)-minExp))
		return sign | uint64(q)
	}
	m := uint64(math.RoundToEven(math.Ldexp(2*frac-1, int(mantBits))))
	if m == 1<<mantBits {
		m = 0
		exp++
	}
	if uint64(exp+bias) >= expAll {
		return sign | expAll<<mantBits
	}
	return sign | uint64(exp+bias)<<mantBits | m
}

// decodeMinifloat is the value of the low 1+expBits+mantBits bits of b as
// such a float (exact in float64): hex literals of f16 and bf16 are their
// bit patterns.
func decodeMinifloat(b uint64, expBits, mantBits uint) float64 {
	expAll := uint64(1)<<expBits - 1
	bias := int(1)<<(expBits-1) - 1
	e := b >> mantBits & expAll
	m := float64(b & (1<<mantBits - 1))
	var v float64
	switch {
	case e == expAll && m != 0:
		return math.NaN()
	case e == expAll:
		v = math.Inf(1)
	case e == 0:
		v = math.Ldexp(m, 1-bias-int(mantBits))
	default:
		v = math.Ldexp(m+float64(uint64(1)<<mantBits), int(e)-bias-int(mantBits))
	}
	if b>>(expBits+mantBits)&1 != 0 {
		v = -v
	}
	return v
}
