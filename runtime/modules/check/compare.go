package check

import (
	"encoding/binary"
	"math"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
)

// IsClose reports whether actual is within tolerance of expected, with
// IREE's rule (NumPy's isclose): |actual - expected| <= atol + rtol *
// |expected|, computed in float64. The rtol term scales with the expected
// (rhs) value, so the test is not symmetric. Equal values always pass, a NaN
// is close to any NaN, and an infinite expected value is close only to
// itself.
func IsClose(actual, expected, atol, rtol float64) bool {
	switch {
	case actual == expected:
		return true
	case math.IsNaN(actual) && math.IsNaN(expected):
		return true
	case math.IsNaN(expected) || math.IsInf(expected, 0):
		return false
	}
	return math.Abs(actual-expected) <= atol+rtol*math.Abs(expected)
}

// floatDecoder returns a function decoding element i of a buffer of et as
// float64, exactly (f16 and bf16 widen without rounding), or false when et
// is not a floating-point type.
func floatDecoder(et hal.ElementType) (func(data []byte, i int) float64, bool) {
	switch et {
	case hal.ElementTypeF16:
		return func(d []byte, i int) float64 {
			return float64(bufferfmt.F16ToFloat32(binary.LittleEndian.Uint16(d[2*i:])))
		}, true
	case hal.ElementTypeBF16:
		return func(d []byte, i int) float64 {
			return float64(bufferfmt.BF16ToFloat32(binary.LittleEndian.Uint16(d[2*i:])))
		}, true
	case hal.ElementTypeF32:
		return func(d []byte, i int) float64 {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(d[4*i:])))
		}, true
	case hal.ElementTypeF64:
		return func(d []byte, i int) float64 {
			return math.Float64frombits(binary.LittleEndian.Uint64(d[8*i:]))
		}, true
	}
	return nil, false
}

// diff is the first pair of elements that are not close: index -1 when
// there is none.
type diff struct {
	index    int
	lhs, rhs float64
}

// firstNotClose compares two buffers of one floating-point type and shape
// element by element with IsClose (lhs actual, rhs expected). Other element
// types are an INVALID_ARGUMENT error, as in IREE.
func firstNotClose(lhs, rhs *bufferfmt.Buffer, atol, rtol float64) (diff, error) {
	decode, ok := floatDecoder(lhs.ElementType)
	if !ok {
		return diff{}, status.Errorf(status.InvalidArgument, "unsupported element type %s (almost-equality compares f16, bf16, f32 and f64)", lhs.ElementType)
	}
	n := len(lhs.Data) / lhs.ElementType.ByteSize()
	for i := 0; i < n; i++ {
		a, e := decode(lhs.Data, i), decode(rhs.Data, i)
		if !IsClose(a, e, atol, rtol) {
			return diff{index: i, lhs: a, rhs: e}, nil
		}
	}
	return diff{index: -1}, nil
}

// firstFalse returns the index of the first zero element of v, or -1 when
// every element is nonzero. Booleans and integers of any width and
// signedness are zero when every bit is; floats when their value is (so
// -0.0 is false and NaN is true). Other element types are an
// INVALID_ARGUMENT error.
func firstFalse(v *bufferfmt.Buffer) (int, error) {
	et := v.ElementType
	if decode, ok := floatDecoder(et); ok {
		n := len(v.Data) / et.ByteSize()
		for i := 0; i < n; i++ {
			if decode(v.Data, i) == 0 {
				return i, nil
			}
		}
		return -1, nil
	}
	switch et.Numerical() {
	case hal.NumericalBoolean, hal.NumericalInteger, hal.NumericalSigned, hal.NumericalUnsigned:
	default:
		return 0, status.Errorf(status.InvalidArgument, "unsupported element type %s (all-true checks booleans, integers and floats)", et)
	}
	size := et.ByteSize()
	switch size {
	case 1, 2, 4, 8:
	default:
		return 0, status.Errorf(status.InvalidArgument, "unsupported element type %s (all-true checks booleans, integers and floats)", et)
	}
	for i := 0; (i+1)*size <= len(v.Data); i++ {
		zero := true
		for _, b := range v.Data[i*size : (i+1)*size] {
			if b != 0 {
				zero = false
				break
			}
		}
		if zero {
			return i, nil
		}
	}
	return -1, nil
}
