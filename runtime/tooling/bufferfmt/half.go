package bufferfmt

import "math"

// F16ToFloat32 converts an IEEE 754 binary16 value to float32 (exactly).
func F16ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1F
	mant := uint32(h) & 0x3FF
	switch {
	case exp == 0x1F: // inf or nan
		return math.Float32frombits(sign | 0xFF<<23 | mant<<13)
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: mant * 2^-24
		f := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// Float32ToF16 converts f to binary16, rounding to nearest even; values too
// large become infinities and NaNs stay NaNs.
func Float32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xFF
	mant := b & 0x7FFFFF
	if exp == 0xFF {
		if mant != 0 {
			return sign | 0x7E00 | uint16(mant>>13)
		}
		return sign | 0x7C00
	}
	e := exp - 127 + 15
	if e >= 0x1F {
		return sign | 0x7C00
	}
	if e <= 0 {
		// Subnormal half (or zero): shift the full significand into place.
		if e < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint32(14 - e)
		half := m >> shift
		rem := m & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(e)<<10 | mant>>13
	rem := mant & 0x1FFF
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent, up to infinity: still correct
	}
	return sign | uint16(half)
}

// BF16ToFloat32 converts a bfloat16 value to float32 (exactly).
func BF16ToFloat32(h uint16) float32 {
	return math.Float32frombits(uint32(h) << 16)
}

// Float32ToBF16 converts f to bfloat16, rounding to nearest even; NaNs stay
// NaNs.
func Float32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7F800000 == 0x7F800000 && b&0x7FFFFF != 0 {
		return uint16(b>>16) | 0x40
	}
	rounding := uint32(0x7FFF) + (b>>16)&1
	return uint16((b + rounding) >> 16)
}
