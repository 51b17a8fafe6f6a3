package bufferfmt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
)

// Scalar is a primitive VM value (i32, i64, f32 or f64) given on the command
// line, for example "5", "3.14", "i32=5" or "f64=-0.5".
type Scalar struct {
	// Type is ElementTypeI32, ElementTypeI64, ElementTypeF32 or
	// ElementTypeF64.
	Type hal.ElementType
	// Int holds integer values (sign-extended).
	Int int64
	// Float holds float values.
	Float float64
}

// IsScalarSpelling reports whether s is written as a scalar rather than a
// buffer view: a bare number ("3.14", "-2") or a primitive type with no
// shape ("i32=5", "f32=1.5").
func IsScalarSpelling(s string) bool {
	s = trimQuotes(s)
	eq := strings.IndexByte(s, '=')
	if eq < 0 {
		// A bare number (integer or float, including inf and nan); text
		// such as "8xf32" is a buffer view missing its '='.
		_, err := strconv.ParseFloat(cFloatSpelling(s), 64)
		return err == nil || errors.Is(err, strconv.ErrRange)
	}
	switch strings.TrimSpace(s[:eq]) {
	case "i32", "i64", "f32", "f64":
		return true
	}
	return false
}

// ParseScalar parses s as a scalar of type want (one of i32, i64, f32, f64).
// s is a bare number or "<type>=<number>"; a written type must be want.
func ParseScalar(s string, want hal.ElementType) (Scalar, error) {
	s = trimQuotes(s)
	text := s
	if eq := strings.IndexByte(s, '='); eq >= 0 {
		et, err := hal.ParseElementType(strings.TrimSpace(s[:eq]))
		if err != nil {
			return Scalar{}, fmt.Errorf("parsing scalar %q: %w", abbreviate(s), err)
		}
		if et != want {
			return Scalar{}, fmt.Errorf("parsing scalar %q: the function expects %s, not %s", abbreviate(s), want, et)
		}
		text = strings.TrimSpace(s[eq+1:])
	}
	v := Scalar{Type: want}
	switch want {
	case hal.ElementTypeI32, hal.ElementTypeI64:
		// VM integers are signless but printed signed: the signed range,
		// as for an i32 or i64 buffer element.
		u, err := parseInt(text, hal.NumericalInteger, want.BitCount())
		if err != nil {
			return Scalar{}, fmt.Errorf("parsing scalar %q: invalid %s value %q: %w", abbreviate(s), want, text, err)
		}
		v.Int = int64(u)
	case hal.ElementTypeF32, hal.ElementTypeF64:
		f, err := parseFloat(text, int(want.BitCount()), want)
		if err != nil {
			return Scalar{}, fmt.Errorf("parsing scalar %q: invalid %s value %q: %w", abbreviate(s), want, text, err)
		}
		if want == hal.ElementTypeF32 {
			f = float64(float32(f))
		}
		v.Float = f
	default:
		return Scalar{}, fmt.Errorf("parsing scalar %q: unsupported scalar type %s", abbreviate(s), want)
	}
	return v, nil
}

// String formats the scalar as IREE prints VM values: "i32=5", "i64=-1",
// "f32=1.5" (floats with C's %g).
func (v Scalar) String() string {
	switch v.Type {
	case hal.ElementTypeF32, hal.ElementTypeF64:
		f := v.Float
		if v.Type == hal.ElementTypeF32 {
			f = float64(float32(f))
		}
		return v.Type.String() + "=" + Formatg(f)
	}
	return v.Type.String() + "=" + strconv.FormatInt(v.Int, 10)
}
