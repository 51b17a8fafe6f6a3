package bufferfmt

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
)

// DefaultMaxElements is the default --output_max_element_count of IREE's
// tools.
const DefaultMaxElements = 1024

// Format returns the buffer view line IREE's tools print, without the
// trailing newline: "8xf32=96 96 ...", "2x2xf32=[1 2][3 4]", "f32=5" for
// rank 0. At most maxElements elements are printed; each leaf row cut short
// ends in "...". data must hold every element of shape.
func Format(shape hal.Shape, et hal.ElementType, data []byte, maxElements int64) (string, error) {
	var sb strings.Builder
	if len(shape) > 0 {
		sb.WriteString(shape.String())
		sb.WriteByte('x')
	}
	sb.WriteString(et.String())
	sb.WriteByte('=')
	if err := FormatElements(&sb, shape, et, data, maxElements); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// String formats b as Format does with DefaultMaxElements; a malformed
// buffer formats as an error description.
func (b *Buffer) String() string {
	s, err := Format(b.Shape, b.ElementType, b.Data, DefaultMaxElements)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return s
}

// FormatElements writes the elements of a dense buffer in IREE's nested
// form: every dimension but the last wraps its groups in [..] with nothing
// between groups, leaf elements are separated by one space, and once
// maxElements elements have been written every further row prints "...".
func FormatElements(sb *strings.Builder, shape hal.Shape, et hal.ElementType, data []byte, maxElements int64) error {
	n, err := shape.ElementCount()
	if err != nil {
		return err
	}
	size := int64(et.ByteSize())
	if size == 0 {
		return fmt.Errorf("element type %s has no storage size", et)
	}
	if int64(len(data))/size < n {
		return fmt.Errorf("buffer of %d bytes is too small for %d elements of %s", len(data), n, et)
	}
	if maxElements < 0 {
		maxElements = 0
	}
	if len(shape) == 0 {
		shape = hal.Shape{1}
	}
	remaining := maxElements
	formatRecursive(sb, shape, et, data, size, &remaining)
	return nil
}

func formatRecursive(sb *strings.Builder, shape hal.Shape, et hal.ElementType, data []byte, size int64, remaining *int64) {
	if len(shape) > 1 {
		inner := int64(1)
		for _, d := range shape[1:] {
			inner *= d
		}
		stride := inner * size
		for i := int64(0); i < shape[0]; i++ {
			sb.WriteByte('[')
			formatRecursive(sb, shape[1:], et, data[i*stride:], size, remaining)
			sb.WriteByte(']')
		}
		return
	}
	count := min(*remaining, shape[0])
	*remaining -= count
	for i := int64(0); i < count; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(FormatElement(data[i*size:(i+1)*size], et))
	}
	if count < shape[0] {
		sb.WriteString("...")
	}
}

// FormatElement formats one element as IREE does: integers in decimal
// (signless as signed), floats (f16, bf16, f32, f64) with C's %G, and any
// other type as upper-case hex bytes in memory order.
func FormatElement(b []byte, et hal.ElementType) string {
	bits := et.BitCount()
	switch et.Numerical() {
	case hal.NumericalInteger, hal.NumericalSigned:
		switch bits {
		case 8:
			return strconv.FormatInt(int64(int8(b[0])), 10)
		case 16:
			return strconv.FormatInt(int64(int16(binary.LittleEndian.Uint16(b))), 10)
		case 32:
			return strconv.FormatInt(int64(int32(binary.LittleEndian.Uint32(b))), 10)
		case 64:
			return strconv.FormatInt(int64(binary.LittleEndian.Uint64(b)), 10)
		}
	case hal.NumericalUnsigned:
		switch bits {
		case 8:
			return strconv.FormatUint(uint64(b[0]), 10)
		case 16:
			return strconv.FormatUint(uint64(binary.LittleEndian.Uint16(b)), 10)
		case 32:
			return strconv.FormatUint(uint64(binary.LittleEndian.Uint32(b)), 10)
		case 64:
			return strconv.FormatUint(binary.LittleEndian.Uint64(b), 10)
		}
	case hal.NumericalIEEE, hal.NumericalFloat:
		switch bits {
		case 16:
			return FormatG(float64(F16ToFloat32(binary.LittleEndian.Uint16(b))))
		case 32:
			return FormatG(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
		case 64:
			return FormatG(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
	case hal.NumericalBrain:
		if bits == 16 {
			return FormatG(float64(BF16ToFloat32(binary.LittleEndian.Uint16(b))))
		}
	}
	const hex = "0123456789ABCDEF"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i] = hex[c>>4]
		out[2*i+1] = hex[c&15]
	}
	return string(out)
}

// FormatG formats x exactly as C's printf("%G", x) does: 6 significant
// digits; exponent form ("1.5E+10", at least two exponent digits) when the
// decimal exponent is below -4 or at least 6; trailing zeros and a trailing
// decimal point removed; "INF", "-INF", "NAN" and "-NAN" (glibc prints the
// sign of a NaN).
func FormatG(x float64) string { return formatGeneral(x, true) }

// Formatg is FormatG with C's lower-case %g spelling ("1.5e+10", "inf",
// "nan"), which IREE uses for VM float scalars.
func Formatg(x float64) string { return formatGeneral(x, false) }

func formatGeneral(x float64, upper bool) string {
	const precision = 6
	var s string
	switch {
	case math.IsNaN(x):
		s = "nan"
		if math.Signbit(x) {
			s = "-nan"
		}
	case math.IsInf(x, 1):
		s = "inf"
	case math.IsInf(x, -1):
		s = "-inf"
	default:
		e := strconv.FormatFloat(x, 'e', precision-1, 64)
		at := strings.LastIndexByte(e, 'e')
		exp, _ := strconv.Atoi(e[at+1:]) // always a valid signed integer
		if exp < -4 || exp >= precision {
			s = stripZeros(e[:at]) + e[at:]
		} else {
			s = stripZeros(strconv.FormatFloat(x, 'f', precision-1-exp, 64))
		}
	}
	if upper {
		return strings.ToUpper(s)
	}
	return s
}

// stripZeros removes trailing fractional zeros and then a trailing point.
func stripZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
