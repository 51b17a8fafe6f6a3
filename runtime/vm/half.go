package vm

import "math"

// The 16-bit float formats kernels keep in memory: IEEE binary16 (f16:
// 5 exponent bits, 10 fraction bits) and bfloat16 (8 and 7). Their values
// live in f64 registers, where every one of them is exact, so converting
// up never rounds and converting down rounds once.

// halfFormat describes a 16-bit float format.
type halfFormat struct{ expBits, fracBits uint }

var (
	f16Format  = halfFormat{5, 10}
	bf16Format = halfFormat{8, 7}
)

// toFloat64 returns the value of the 16-bit pattern h.
func (f halfFormat) toFloat64(h uint16) float64 {
	bias := int(1)<<(f.expBits-1) - 1
	maxExp := uint64(1)<<f.expBits - 1
	neg := h>>15 != 0
	exp := uint64(h>>f.fracBits) & maxExp
	frac := uint64(h) & (1<<f.fracBits - 1)
	var v float64
	switch {
	case exp == maxExp && frac != 0:
		return math.NaN()
	case exp == maxExp:
		v = math.Inf(1)
	case exp == 0: // zero or subnormal: frac * 2^(1-bias-fracBits)
		v = math.Ldexp(float64(frac), 1-bias-int(f.fracBits))
	default:
		v = math.Ldexp(float64(frac|1<<f.fracBits), int(exp)-bias-int(f.fracBits))
	}
	if neg {
		v = -v
	}
	return v
}

// fromFloat64 rounds x to the format, to nearest with ties to even, and
// returns its bit pattern. NaN gives a quiet NaN, magnitudes beyond the
// largest finite value round to infinity.
func (f halfFormat) fromFloat64(x float64) uint16 {
	b := math.Float64bits(x)
	sign := uint16(b>>63) << 15
	exp := int(b>>52) & 0x7FF
	mant := b & (1<<52 - 1)
	maxExp := 1<<f.expBits - 1
	inf := sign | uint16(maxExp)<<f.fracBits
	if exp == 0x7FF {
		if mant != 0 {
			return inf | 1<<(f.fracBits-1) | uint16(mant>>(52-f.fracBits))
		}
		return inf
	}
	if exp == 0 {
		return sign // f64 subnormals are far below the smallest 16-bit value
	}
	e := exp - 1023 + (1<<(f.expBits-1) - 1)
	if e >= maxExp {
		return inf
	}
	sig := mant
	shift := 52 - f.fracBits
	base := uint64(e) << f.fracBits
	if e <= 0 {
		// Subnormal: the significand, hidden bit included, moves right by
		// 1 - e more places and the exponent field is 0.
		sig |= 1 << 52
		shift += uint(1 - e)
		base = 0
		if shift > 63 {
			return sign
		}
	}
	q := sig >> shift
	rem := sig & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++ // a carry into the exponent (or up to infinity) is the right result
	}
	return sign | uint16(base+q)
}
