package hal

import (
	"fmt"
	"strconv"
	"strings"
)

// NumericalType is the high byte of an ElementType: how the bits of one
// element are interpreted.
type NumericalType uint8

// Numerical types, numbered as IREE numbers them so that element type values
// are interchangeable with IREE's.
const (
	NumericalUnknown  NumericalType = 0x00
	NumericalInteger  NumericalType = 0x10 // signless integer (iN)
	NumericalSigned   NumericalType = 0x11 // signed integer (siN)
	NumericalUnsigned NumericalType = 0x12 // unsigned integer (uiN)
	NumericalBoolean  NumericalType = 0x13 // boolean (i1, stored in 8 bits)
	NumericalFloat    NumericalType = 0x20 // float of unspecified format
	NumericalIEEE     NumericalType = 0x21 // IEEE 754 float (fN)
	NumericalBrain    NumericalType = 0x22 // bfloat (bfN)
	NumericalComplex  NumericalType = 0x23 // complex of two IEEE floats (cfN)
)

// ElementType describes one element of a buffer view:
// (numerical type << 24) | bit count.
type ElementType uint32

// MakeElementType builds an ElementType from its parts.
func MakeElementType(n NumericalType, bits uint32) ElementType {
	return ElementType(uint32(n)<<24 | bits&0xFFFFFF)
}

// Common element types.
var (
	ElementTypeNone  = ElementType(0)
	ElementTypeBool  = MakeElementType(NumericalBoolean, 8)
	ElementTypeI1    = MakeElementType(NumericalBoolean, 1)
	ElementTypeI8    = MakeElementType(NumericalInteger, 8)
	ElementTypeI16   = MakeElementType(NumericalInteger, 16)
	ElementTypeI32   = MakeElementType(NumericalInteger, 32)
	ElementTypeI64   = MakeElementType(NumericalInteger, 64)
	ElementTypeSI8   = MakeElementType(NumericalSigned, 8)
	ElementTypeSI16  = MakeElementType(NumericalSigned, 16)
	ElementTypeSI32  = MakeElementType(NumericalSigned, 32)
	ElementTypeSI64  = MakeElementType(NumericalSigned, 64)
	ElementTypeUI8   = MakeElementType(NumericalUnsigned, 8)
	ElementTypeUI16  = MakeElementType(NumericalUnsigned, 16)
	ElementTypeUI32  = MakeElementType(NumericalUnsigned, 32)
	ElementTypeUI64  = MakeElementType(NumericalUnsigned, 64)
	ElementTypeF16   = MakeElementType(NumericalIEEE, 16)
	ElementTypeF32   = MakeElementType(NumericalIEEE, 32)
	ElementTypeF64   = MakeElementType(NumericalIEEE, 64)
	ElementTypeBF16  = MakeElementType(NumericalBrain, 16)
	ElementTypeCF64  = MakeElementType(NumericalComplex, 64)
	ElementTypeCF128 = MakeElementType(NumericalComplex, 128)
)

// Numerical returns the numerical type of t.
func (t ElementType) Numerical() NumericalType { return NumericalType(uint32(t) >> 24) }

// BitCount returns the number of bits of one element.
func (t ElementType) BitCount() uint32 { return uint32(t) & 0xFFFFFF }

// ByteSize returns the storage size of one element in a dense buffer:
// the bit count rounded up to whole bytes (i1 occupies one byte).
func (t ElementType) ByteSize() int { return int((t.BitCount() + 7) / 8) }

// IsInteger reports whether t is any kind of integer (including boolean).
func (t ElementType) IsInteger() bool {
	switch t.Numerical() {
	case NumericalInteger, NumericalSigned, NumericalUnsigned, NumericalBoolean:
		return true
	}
	return false
}

// IsFloat reports whether t is a real floating-point type.
func (t ElementType) IsFloat() bool {
	switch t.Numerical() {
	case NumericalFloat, NumericalIEEE, NumericalBrain:
		return true
	}
	return false
}

// String returns the name IREE's tools print for t, for example "f32",
// "i8", "si32", "bf16", "i1"; opaque and unknown types print as "xN".
func (t ElementType) String() string {
	bits := strconv.FormatUint(uint64(t.BitCount()), 10)
	switch t.Numerical() {
	case NumericalInteger:
		return "i" + bits
	case NumericalSigned:
		return "si" + bits
	case NumericalUnsigned:
		return "ui" + bits
	case NumericalBoolean:
		return "i1"
	case NumericalFloat, NumericalIEEE:
		return "f" + bits
	case NumericalBrain:
		return "bf" + bits
	case NumericalComplex:
		return "cf" + bits
	}
	return "x" + bits
}

// ParseElementType parses an element type name as IREE's tools accept it:
// iN, siN, uiN, fN, bfN, cfN, and xN or *N for opaque types.
func ParseElementType(s string) (ElementType, error) {
	prefixes := []struct {
		p string
		n NumericalType
	}{
		{"si", NumericalSigned}, {"ui", NumericalUnsigned}, {"bf", NumericalBrain},
		{"cf", NumericalComplex}, {"i", NumericalInteger}, {"f", NumericalIEEE},
		{"x", NumericalUnknown}, {"*", NumericalUnknown},
	}
	for _, e := range prefixes {
		if !strings.HasPrefix(s, e.p) {
			continue
		}
		bits, err := strconv.ParseUint(s[len(e.p):], 10, 24)
		if err != nil || bits == 0 {
			return ElementTypeNone, fmt.Errorf("unsupported element type %q", s)
		}
		if e.n == NumericalInteger && bits == 1 {
			return ElementTypeI1, nil
		}
		return MakeElementType(e.n, uint32(bits)), nil
	}
	return ElementTypeNone, fmt.Errorf("unsupported element type %q", s)
}

// Shape is the list of dimensions of a buffer view, outermost first.
type Shape []int64

// ElementCount returns the product of the dimensions (1 for rank 0), or an
// error when a dimension is negative or the product overflows int64.
func (s Shape) ElementCount() (int64, error) {
	n := int64(1)
	for _, d := range s {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d in shape %s", d, s.String())
		}
		if d != 0 && n > (1<<62)/d {
			return 0, fmt.Errorf("shape %s has too many elements", s.String())
		}
		n *= d
	}
	return n, nil
}

// String formats the shape as IREE does in buffer view text: "2x3", and ""
// for rank 0.
func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return strings.Join(parts, "x")
}

// ParseShape parses "2x3x4" (and "" for rank 0) into a Shape.
func ParseShape(s string) (Shape, error) {
	if s == "" {
		return Shape{}, nil
	}
	parts := strings.Split(s, "x")
	shape := make(Shape, len(parts))
	for i, p := range parts {
		d, err := strconv.ParseInt(p, 10, 64)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("invalid dimension %q in shape %q", p, s)
		}
		shape[i] = d
	}
	return shape, nil
}
