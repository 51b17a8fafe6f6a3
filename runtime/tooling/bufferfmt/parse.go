// Package bufferfmt reads and writes the text form IREE's tools use for
// buffer views: "[shape]x<type>=values" on input (--input=2x2xi32=[[1 2][3 4]])
// and "2x2xi32=[1 2][3 4]" on output, with C-style %G floats and "..."
// elision past a maximum element count.
//
// Buffers are dense, row-major and little-endian, as the HAL stores them.
package bufferfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
)

// DefaultMaxBytes bounds the storage Parse allocates for one buffer, so that
// a typo such as "100000000000xf32=0" fails cleanly instead of exhausting
// memory.
const DefaultMaxBytes = 1 << 32

// Buffer is the dense contents of a buffer view: its shape, element type and
// little-endian row-major bytes (len(Data) == element count * element size).
type Buffer struct {
	Shape       hal.Shape
	ElementType hal.ElementType
	Data        []byte
}

// ErrUnderflow is wrapped by errors for element lists with fewer values than
// the shape holds (IREE's wording: "input data string underflow").
var ErrUnderflow = errors.New("input data string underflow")

// ErrOverflow is wrapped by errors for element lists with more values than
// the shape holds (IREE's wording: "output data buffer overflow").
var ErrOverflow = errors.New("output data buffer overflow")

// Parse parses a buffer view in IREE's input syntax, "[shape]x<type>=values"
// (for example "8xf32=2", "2x2xi32=[[1 2][3 4]]", "4xi8=" or "f32=1.5" for
// rank 0), allocating at most DefaultMaxBytes.
func Parse(s string) (*Buffer, error) {
	return ParseLimit(s, DefaultMaxBytes)
}

// ParseLimit is Parse with an explicit bound on the bytes of storage.
func ParseLimit(s string, maxBytes int64) (*Buffer, error) {
	s = trimQuotes(s)
	eq := strings.IndexByte(s, '=')
	if eq < 0 {
		return nil, fmt.Errorf("parsing buffer view %q: missing '=' between shape/type and values", abbreviate(s))
	}
	shape, et, err := ParseShapeAndType(s[:eq])
	if err != nil {
		return nil, fmt.Errorf("parsing buffer view %q: %w", abbreviate(s), err)
	}
	n, err := shape.ElementCount()
	if err != nil {
		return nil, fmt.Errorf("parsing buffer view %q: %w", abbreviate(s), err)
	}
	size := int64(et.ByteSize())
	if size == 0 {
		return nil, fmt.Errorf("parsing buffer view %q: element type %s has no storage size", abbreviate(s), et)
	}
	if n > maxBytes/size {
		return nil, fmt.Errorf("parsing buffer view %q: %d elements of %s exceed the limit of %d bytes", abbreviate(s), n, et, maxBytes)
	}
	data := make([]byte, n*size)
	if err := ParseElements(s[eq+1:], et, data); err != nil {
		return nil, fmt.Errorf("parsing buffer view %q: %w", abbreviate(s), err)
	}
	return &Buffer{Shape: shape, ElementType: et, Data: data}, nil
}

// ParseShapeAndType splits "2x3xf32" at its last 'x' into the shape "2x3" and
// the element type "f32"; a string with no 'x' ("f32") is a rank-0 type.
func ParseShapeAndType(s string) (hal.Shape, hal.ElementType, error) {
	s = strings.TrimSpace(s)
	shapeText, typeText := "", s
	if i := strings.LastIndexByte(s, 'x'); i >= 0 {
		shapeText, typeText = s[:i], s[i+1:]
		// An opaque type "xN" ends in its own 'x': "2xx16", or "x16" alone.
		if isDigits(typeText) {
			switch {
			case i == 0:
				shapeText, typeText = "", s
			case s[i-1] == 'x':
				shapeText, typeText = s[:i-1], s[i:]
			}
		}
	}
	shape, err := hal.ParseShape(shapeText)
	if err != nil {
		return nil, 0, err
	}
	et, err := hal.ParseElementType(typeText)
	if err != nil {
		return nil, 0, err
	}
	return shape, et, nil
}

// isSeparator reports the characters that separate elements: whitespace,
// ',', '[' and ']' (brackets are not matched against the shape).
func isSeparator(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r', ',', '[', ']':
		return true
	}
	return false
}

// ParseElements parses the element list text into out, which holds
// len(out)/size elements of type et. An empty (or all-separator-free empty)
// text zero-fills, a single value splats over every element, and otherwise
// the number of values must equal the number of elements.
func ParseElements(text string, et hal.ElementType, out []byte) error {
	size := et.ByteSize()
	if size == 0 {
		return fmt.Errorf("element type %s has no storage size", et)
	}
	capacity := len(out) / size
	if text == "" {
		clear(out)
		return nil
	}
	count := 0
	for i := 0; i < len(text); {
		if isSeparator(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && !isSeparator(text[j]) {
			j++
		}
		if count >= capacity {
			return fmt.Errorf("%w: the shape holds %d elements but more values were given", ErrOverflow, capacity)
		}
		if err := ParseElement(text[i:j], et, out[count*size:(count+1)*size]); err != nil {
			return fmt.Errorf("element %d: %w", count, err)
		}
		count++
		i = j
	}
	switch {
	case count == 1 && capacity > 1:
		for k := 1; k < capacity; k++ {
			copy(out[k*size:(k+1)*size], out[:size])
		}
	case count < capacity:
		return fmt.Errorf("%w: %d values given for %d elements", ErrUnderflow, count, capacity)
	}
	return nil
}

// ParseElement parses one element value into out (len(out) must be the
// element's byte size). Integers are written as C's strtol reads them
// (decimal, 0x hex, 0-prefixed octal) and range-checked (see rangeOf); floats
// as C's strtof reads them (including inf and nan), and a finite value
// beyond the type's range is an error; i1 accepts 0, 1, true and false, and
// types without a numeric form take 2*size hex digits.
func ParseElement(tok string, et hal.ElementType, out []byte) error {
	size := et.ByteSize()
	if len(out) != size {
		return fmt.Errorf("element storage is %d bytes, want %d for %s", len(out), size, et)
	}
	bits := et.BitCount()
	switch et.Numerical() {
	case hal.NumericalBoolean:
		var v uint64
		switch strings.ToLower(tok) {
		case "0", "00", "false":
		case "1", "01", "true":
			v = 1
		default:
			return fmt.Errorf("invalid %s value %q (want 0, 1, true or false)", et, tok)
		}
		putUint(out, v)
		return nil
	case hal.NumericalInteger, hal.NumericalSigned, hal.NumericalUnsigned:
		if bits != 8 && bits != 16 && bits != 32 && bits != 64 {
			break
		}
		v, err := parseInt(tok, et.Numerical(), bits)
		if errors.Is(err, errUnsignedOnly) {
			return fmt.Errorf("invalid %s value %q: %w (write ui%d for unsigned values)", et, tok, err, bits)
		}
		if err != nil {
			return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
		}
		putUint(out, v)
		return nil
	case hal.NumericalIEEE, hal.NumericalFloat:
		switch bits {
		case 16:
			f, err := parseFloat(tok, 32, et)
			if err != nil {
				return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
			}
			h := Float32ToF16(float32(f))
			if h&0x7FFF == 0x7C00 && !math.IsInf(f, 0) {
				return fmt.Errorf("invalid %s value %q: out of range: the largest finite %s is %s", et, tok, et, floatLimits[et])
			}
			binary.LittleEndian.PutUint16(out, h)
			return nil
		case 32:
			f, err := parseFloat(tok, 32, et)
			if err != nil {
				return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
			}
			binary.LittleEndian.PutUint32(out, math.Float32bits(float32(f)))
			return nil
		case 64:
			f, err := parseFloat(tok, 64, et)
			if err != nil {
				return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
			}
			binary.LittleEndian.PutUint64(out, math.Float64bits(f))
			return nil
		}
	case hal.NumericalBrain:
		if bits == 16 {
			f, err := parseFloat(tok, 32, et)
			if err != nil {
				return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
			}
			h := Float32ToBF16(float32(f))
			if h&0x7FFF == 0x7F80 && !math.IsInf(f, 0) {
				return fmt.Errorf("invalid %s value %q: out of range: the largest finite %s is %s", et, tok, et, floatLimits[et])
			}
			binary.LittleEndian.PutUint16(out, h)
			return nil
		}
	}
	// Any other type is raw bytes written as hex digits, as IREE does.
	if len(tok) != 2*size {
		return fmt.Errorf("invalid %s value %q: want %d hex digits for a type without a numeric form", et, tok, 2*size)
	}
	for i := 0; i < size; i++ {
		b, err := strconv.ParseUint(tok[2*i:2*i+2], 16, 8)
		if err != nil {
			return fmt.Errorf("invalid %s value %q: not hex", et, tok)
		}
		out[i] = byte(b)
	}
	return nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// intRange is the accepted range of an integer element type: values from
// -negMax to posMax.
type intRange struct {
	negMax, posMax uint64
}

// rangeOf returns the range IREE's parser accepts for an integer type of
// the given signedness and width (8, 16, 32 or 64): signed types take the
// signed range, unsigned ones the unsigned range; signless i8 and i16 take
// both (-128..255), as IREE's parser does, while signless i32 and i64 take
// the signed range only (IREE reads them with strtol/strtoll and prints them
// signed, so 2147483648 for an i32 would come back as -2147483648).
func rangeOf(n hal.NumericalType, bits uint32) intRange {
	full := uint64(1)<<(bits-1)<<1 - 1 // 2^bits - 1, also for 64
	half := uint64(1) << (bits - 1)
	switch {
	case n == hal.NumericalUnsigned:
		return intRange{0, full}
	case n == hal.NumericalInteger && bits <= 16:
		return intRange{half, full}
	}
	return intRange{half, half - 1}
}

// String writes the range as "[lo, hi]".
func (r intRange) String() string {
	lo := "0"
	if r.negMax > 0 {
		lo = "-" + strconv.FormatUint(r.negMax, 10)
	}
	return "[" + lo + ", " + strconv.FormatUint(r.posMax, 10) + "]"
}

// errUnsignedOnly marks a signless i32 or i64 value that only the unsigned
// type of its width holds.
var errUnsignedOnly = errors.New("signless integers of 32 and 64 bits are signed")

// parseInt parses an integer the way C's strtol with base 0 reads it (an
// optional sign, then "0x" hex, a leading "0" octal, or decimal), as IREE's
// parser does, except that the whole token must be the number and a value
// outside the type's range is an error rather than wrapped: the result is
// the value's two's-complement bits.
func parseInt(tok string, n hal.NumericalType, bits uint32) (uint64, error) {
	neg, mag, err := parseCInteger(tok)
	if err != nil {
		return 0, err
	}
	r := rangeOf(n, bits)
	if neg && mag > r.negMax || !neg && mag > r.posMax {
		hint := ""
		switch {
		case n == hal.NumericalUnsigned && neg:
			hint = " (a negative value for an unsigned type)"
		case n == hal.NumericalInteger && bits >= 32 && !neg && mag <= r.posMax<<1+1:
			return 0, fmt.Errorf("out of range %s: %w", r, errUnsignedOnly)
		}
		return 0, fmt.Errorf("out of range %s%s", r, hint)
	}
	if neg {
		return -mag, nil
	}
	return mag, nil
}

// parseCInteger splits tok into a sign and a magnitude, reading "0x"/"0X"
// as hex and a leading 0 as octal (C's strtol with base 0).
func parseCInteger(tok string) (neg bool, mag uint64, err error) {
	s := tok
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	base := 10
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	// strconv would take its own prefixes and '_' separators after a
	// leading sign; C takes neither, so only plain digits reach it.
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || base == 16 && (c|0x20 >= 'a' && c|0x20 <= 'f')) {
			s = ""
			break
		}
	}
	if s == "" {
		return false, 0, errors.New("not an integer (decimal, 0x hex or 0-prefixed octal)")
	}
	mag, err = strconv.ParseUint(s, base, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return false, 0, errors.New("out of range (more than 64 bits)")
	case err != nil && base == 8:
		return false, 0, errors.New("not an integer: a leading 0 means octal (as in C), whose digits are 0-7")
	case err != nil:
		return false, 0, errors.New("not an integer (decimal, 0x hex or 0-prefixed octal)")
	}
	return neg, mag, nil
}

// cFloatSpelling rewrites the one float spelling C's strtof takes and
// strconv.ParseFloat does not: hex without a binary exponent ("0x10" is
// 16), which gets "p0". Others pass unchanged.
func cFloatSpelling(tok string) string {
	t := strings.TrimLeft(tok, "+-")
	if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && !strings.ContainsAny(t, "pP") {
		return tok + "p0"
	}
	return tok
}

// floatLimits names the largest finite magnitude of each float type, for
// out-of-range messages.
var floatLimits = map[hal.ElementType]string{
	hal.ElementTypeF16:  "65504",
	hal.ElementTypeBF16: "3.3895314e+38",
	hal.ElementTypeF32:  "3.4028235e+38",
	hal.ElementTypeF64:  "1.7976931348623157e+308",
}

// parseFloat parses a float as C's strtof/strtod spell them (decimal or hex,
// inf, infinity, nan). A finite literal beyond the type's range is an error,
// not an infinity (IREE's parser would store inf); an explicit inf is kept.
// Values below the smallest subnormal round to zero as in C.
func parseFloat(tok string, bits int, et hal.ElementType) (float64, error) {
	f, err := strconv.ParseFloat(cFloatSpelling(tok), bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("out of range: the largest finite %s is %s", et, floatLimits[et])
		}
		return 0, errors.New("not a number")
	}
	return f, nil
}

func putUint(out []byte, v uint64) {
	for i := range out {
		out[i] = byte(v >> (8 * i))
	}
}

// trimQuotes strips surrounding whitespace and one pair of matching quotes,
// as IREE does for flag values written with shell quoting kept.
func trimQuotes(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// abbreviate shortens long input strings in error messages.
func abbreviate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
