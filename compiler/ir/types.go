package ir

import (
	"strconv"
	"strings"
)

// Type is an immutable IR type. Two types are equal when they print the same.
type Type interface {
	// PrintType writes the type's textual form to w.
	PrintType(w *AsmWriter)
}

// TypeString returns the printed form of t without aliases.
func TypeString(t Type) string {
	if t == nil {
		return "<<null type>>"
	}
	w := &AsmWriter{}
	t.PrintType(w)
	return w.String()
}

// TypesEqual reports whether a and b denote the same type.
func TypesEqual(a, b Type) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return TypeString(a) == TypeString(b)
}

// Dynamic marks a dynamic dimension in a shaped type's Shape.
const Dynamic int64 = -1

// IndexType is the target-sized integer type `index`.
type IndexType struct{}

// PrintType implements Type.
func (IndexType) PrintType(w *AsmWriter) { w.WriteString("index") }

// NoneType is the unit type `none`.
type NoneType struct{}

// PrintType implements Type.
func (NoneType) PrintType(w *AsmWriter) { w.WriteString("none") }

// Signedness of an integer type.
type Signedness int

// Integer signedness kinds: iN, siN and uiN.
const (
	Signless Signedness = iota
	Signed
	Unsigned
)

// IntegerType is iN, siN or uiN.
type IntegerType struct {
	Width      int
	Signedness Signedness
}

// PrintType implements Type.
func (t IntegerType) PrintType(w *AsmWriter) {
	switch t.Signedness {
	case Signed:
		w.WriteString("si")
	case Unsigned:
		w.WriteString("ui")
	default:
		w.WriteString("i")
	}
	w.WriteString(strconv.Itoa(t.Width))
}

// I1, I8, I32 and I64 are common integer types.
var (
	I1  = IntegerType{Width: 1}
	I8  = IntegerType{Width: 8}
	I32 = IntegerType{Width: 32}
	I64 = IntegerType{Width: 64}
)

// FloatType is a floating point type such as f32 or bf16; Name is its
// spelling.
type FloatType struct{ Name string }

// PrintType implements Type.
func (t FloatType) PrintType(w *AsmWriter) { w.WriteString(t.Name) }

// Width returns the bit width of the float type.
func (t FloatType) Width() int {
	switch t.Name {
	case "f16", "bf16":
		return 16
	case "f32", "tf32":
		return 32
	case "f64":
		return 64
	case "f80":
		return 80
	case "f128":
		return 128
	}
	if strings.HasPrefix(t.Name, "f8") {
		return 8
	}
	return 0
}

var floatNames = map[string]bool{"f16": true, "bf16": true, "f32": true, "f64": true, "f80": true, "f128": true, "tf32": true,
	"f8E4M3FN": true, "f8E5M2": true, "f8E4M3FNUZ": true, "f8E5M2FNUZ": true, "f8E4M3B11FNUZ": true}

// ShapedType is implemented by tensor, memref and vector types.
type ShapedType interface {
	Type
	// ShapeDims returns the dimensions (Dynamic for `?`); nil for unranked.
	ShapeDims() []int64
	// ElementType returns the element type.
	ElementType() Type
}

// NumDynamicDims counts the dynamic dimensions of t.
func NumDynamicDims(t ShapedType) int {
	n := 0
	for _, d := range t.ShapeDims() {
		if d == Dynamic {
			n++
		}
	}
	return n
}

// DynamicDimCount returns the number of dynamic dimensions of t when t is a
// shaped type and 0 otherwise.
func DynamicDimCount(t Type) int {
	if s, ok := t.(ShapedType); ok {
		return NumDynamicDims(s)
	}
	return 0
}

func printShape(w *AsmWriter, shape []int64) {
	for _, d := range shape {
		if d == Dynamic {
			w.WriteString("?")
		} else {
			w.WriteString(strconv.FormatInt(d, 10))
		}
		w.WriteString("x")
	}
}

// TensorType is tensor<...>; Unranked is tensor<*xT>.
type TensorType struct {
	Shape    []int64
	Elem     Type
	Unranked bool
	Encoding Attribute
}

// PrintType implements Type.
func (t *TensorType) PrintType(w *AsmWriter) {
	w.WriteString("tensor<")
	if t.Unranked {
		w.WriteString("*x")
	} else {
		printShape(w, t.Shape)
	}
	w.Type(t.Elem)
	if t.Encoding != nil {
		w.WriteString(", ")
		w.Attr(t.Encoding)
	}
	w.WriteString(">")
}

// ShapeDims implements ShapedType.
func (t *TensorType) ShapeDims() []int64 { return t.Shape }

// ElementType implements ShapedType.
func (t *TensorType) ElementType() Type { return t.Elem }

// MemRefType is memref<...> with an optional layout and memory space.
type MemRefType struct {
	Shape       []int64
	Elem        Type
	Unranked    bool
	Layout      Attribute
	MemorySpace Attribute
}

// PrintType implements Type.
func (t *MemRefType) PrintType(w *AsmWriter) {
	w.WriteString("memref<")
	if t.Unranked {
		w.WriteString("*x")
	} else {
		printShape(w, t.Shape)
	}
	w.Type(t.Elem)
	if t.Layout != nil {
		w.WriteString(", ")
		w.Attr(t.Layout)
	}
	if t.MemorySpace != nil {
		w.WriteString(", ")
		w.Attr(t.MemorySpace)
	}
	w.WriteString(">")
}

// ShapeDims implements ShapedType.
func (t *MemRefType) ShapeDims() []int64 { return t.Shape }

// ElementType implements ShapedType.
func (t *MemRefType) ElementType() Type { return t.Elem }

// VectorType is vector<...>. Scalable dims are not supported.
type VectorType struct {
	Shape []int64
	Elem  Type
}

// PrintType implements Type.
func (t *VectorType) PrintType(w *AsmWriter) {
	w.WriteString("vector<")
	printShape(w, t.Shape)
	w.Type(t.Elem)
	w.WriteString(">")
}

// ShapeDims implements ShapedType.
func (t *VectorType) ShapeDims() []int64 { return t.Shape }

// ElementType implements ShapedType.
func (t *VectorType) ElementType() Type { return t.Elem }

// FunctionType is (inputs) -> results.
type FunctionType struct {
	Inputs  []Type
	Results []Type
}

// PrintType implements Type.
func (t *FunctionType) PrintType(w *AsmWriter) {
	w.WriteString("(")
	w.TypeList(t.Inputs)
	w.WriteString(") -> ")
	w.ResultTypes(t.Results)
}

// TupleType is tuple<...>.
type TupleType struct{ Elems []Type }

// PrintType implements Type.
func (t *TupleType) PrintType(w *AsmWriter) {
	w.WriteString("tuple<")
	w.TypeList(t.Elems)
	w.WriteString(">")
}

// ComplexType is complex<T>.
type ComplexType struct{ Elem Type }

// PrintType implements Type.
func (t *ComplexType) PrintType(w *AsmWriter) {
	w.WriteString("complex<")
	w.Type(t.Elem)
	w.WriteString(">")
}

// DialectType is a dialect type `!dialect.name` or `!dialect.name<body>`.
// The body is kept as written (balanced text), so unknown dialect types
// round-trip.
type DialectType struct {
	Name string // e.g. "hal.device"
	Body string // text between the angle brackets, without them; "" if none
}

// PrintType implements Type.
func (t *DialectType) PrintType(w *AsmWriter) {
	w.WriteString("!")
	w.WriteString(t.Name)
	if t.Body != "" {
		w.WriteString("<")
		w.WriteString(t.Body)
		w.WriteString(">")
	}
}

// IsPrimitive reports whether t is an integer, index or float type.
func IsPrimitive(t Type) bool {
	switch t.(type) {
	case IntegerType, IndexType, FloatType:
		return true
	}
	return false
}
