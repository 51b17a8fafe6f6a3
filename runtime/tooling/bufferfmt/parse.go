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
// element's byte size). Integers are decimal and range-checked (signless iN
// accepts both the signed and the unsigned range), floats accept what
// strconv.ParseFloat accepts (including inf and nan), i1 accepts 0, 1, true
// and false, and types without a numeric form take 2*size hex digits.
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
		if err != nil {
			return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
		}
		putUint(out, v)
		return nil
	case hal.NumericalIEEE, hal.NumericalFloat:
		switch bits {
		case 16:
			f, err := parseFloat(tok, 32)
			if err != nil {
				return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
			}
			binary.LittleEndian.PutUint16(out, Float32ToF16(float32(f)))
			return nil
		case 32:
			f, err := parseFloat(tok, 32)
			if err != nil {
				return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
			}
			binary.LittleEndian.PutUint32(out, math.Float32bits(float32(f)))
			return nil
		case 64:
			f, err := parseFloat(tok, 64)
			if err != nil {
				return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
			}
			binary.LittleEndian.PutUint64(out, math.Float64bits(f))
			return nil
		}
	case hal.NumericalBrain:
		if bits == 16 {
			f, err := parseFloat(tok, 32)
			if err != nil {
				return fmt.Errorf("invalid %s value %q: %w", et, tok, err)
			}
			binary.LittleEndian.PutUint16(out, Float32ToBF16(float32(f)))
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

func parseInt(tok string, n hal.NumericalType, bits uint32) (uint64, error) {
	switch n {
	case hal.NumericalUnsigned:
		if strings.HasPrefix(tok, "-") {
			return 0, fmt.Errorf("negative value for an unsigned type")
		}
		v, err := strconv.ParseUint(tok, 10, int(bits))
		if err != nil {
			return 0, numErr(err)
		}
		return v, nil
	case hal.NumericalSigned:
		v, err := strconv.ParseInt(tok, 10, int(bits))
		if err != nil {
			return 0, numErr(err)
		}
		return uint64(v), nil
	}
	// Signless: either the signed or the unsigned range.
	v, err := strconv.ParseInt(tok, 10, int(bits))
	if err == nil {
		return uint64(v), nil
	}
	if strings.HasPrefix(tok, "-") {
		return 0, numErr(err)
	}
	u, err := strconv.ParseUint(tok, 10, int(bits))
	if err != nil {
		return 0, numErr(err)
	}
	return u, nil
}

func numErr(err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("out of range")
	}
	return errors.New("not a decimal integer")
}

// parseFloat parses a float the way C's strtof/strtod would accept it for
// IREE: values beyond the type's range become infinities rather than errors.
func parseFloat(tok string, bits int) (float64, error) {
	f, err := strconv.ParseFloat(tok, bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return f, nil
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
