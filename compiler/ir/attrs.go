package ir

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Attribute is an immutable compile-time value. Two attributes are equal
// when they print the same.
type Attribute interface {
	// PrintAttr writes the attribute's textual form to w.
	PrintAttr(w *AsmWriter)
}

// AttrString returns the printed form of a without aliases.
func AttrString(a Attribute) string {
	if a == nil {
		return "<<null attribute>>"
	}
	w := &AsmWriter{}
	a.PrintAttr(w)
	return w.String()
}

// AttrsEqual reports whether a and b denote the same attribute.
func AttrsEqual(a, b Attribute) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return AttrString(a) == AttrString(b)
}

// StringAttr is a string literal.
type StringAttr struct{ Value string }

// PrintAttr implements Attribute.
func (a StringAttr) PrintAttr(w *AsmWriter) { w.WriteString(QuoteString(a.Value)) }

// QuoteString quotes s in MLIR string-literal syntax.
func QuoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\%02X`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// IntegerAttr is an integer with its type (i64 when written without one).
type IntegerAttr struct {
	Value int64
	Type  Type
}

// PrintAttr implements Attribute.
func (a IntegerAttr) PrintAttr(w *AsmWriter) {
	if it, ok := a.Type.(IntegerType); ok && it.Width == 1 {
		if a.Value != 0 {
			w.WriteString("true")
		} else {
			w.WriteString("false")
		}
		return
	}
	w.WriteString(strconv.FormatInt(a.Value, 10))
	if it, ok := a.Type.(IntegerType); ok && it.Width == 64 && it.Signedness == Signless {
		return
	}
	w.WriteString(" : ")
	w.Type(a.Type)
}

// IndexAttr returns an integer attribute of type index.
func IndexAttr(v int64) IntegerAttr { return IntegerAttr{Value: v, Type: IndexType{}} }

// FloatAttr is a floating point constant with its type.
type FloatAttr struct {
	Value float64
	Type  Type
}

// PrintAttr implements Attribute.
func (a FloatAttr) PrintAttr(w *AsmWriter) {
	w.WriteString(FormatFloat(a.Value, a.Type))
	if ft, ok := a.Type.(FloatType); ok && ft.Name == "f64" {
		return
	}
	w.WriteString(" : ")
	w.Type(a.Type)
}

// FormatFloat prints v as an MLIR float literal; NaN and infinities are
// printed as the hex bit pattern of t.
func FormatFloat(v float64, t Type) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		ft, _ := t.(FloatType)
		switch ft.Name {
		case "f32":
			return fmt.Sprintf("0x%08X", math.Float32bits(float32(v)))
		case "f16":
			return fmt.Sprintf("0x%04X", encodeMinifloat(v, 5, 10))
		case "bf16":
			return fmt.Sprintf("0x%04X", encodeMinifloat(v, 8, 7))
		}
		return fmt.Sprintf("0x%016X", math.Float64bits(v))
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if i := strings.IndexAny(s, "e"); i >= 0 {
		if !strings.Contains(s[:i], ".") {
			s = s[:i] + ".0" + s[i:]
		}
		return s
	}
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// UnitAttr is the presence-only attribute `unit`.
type UnitAttr struct{}

// PrintAttr implements Attribute.
func (UnitAttr) PrintAttr(w *AsmWriter) { w.WriteString("unit") }

// BoolAttr is true or false.
type BoolAttr struct{ Value bool }

// PrintAttr implements Attribute.
func (a BoolAttr) PrintAttr(w *AsmWriter) {
	if a.Value {
		w.WriteString("true")
	} else {
		w.WriteString("false")
	}
}

// TypeAttr wraps a type.
type TypeAttr struct{ Type Type }

// PrintAttr implements Attribute.
func (a TypeAttr) PrintAttr(w *AsmWriter) { w.Type(a.Type) }

// ArrayAttr is [a, b, ...].
type ArrayAttr struct{ Elems []Attribute }

// PrintAttr implements Attribute.
func (a *ArrayAttr) PrintAttr(w *AsmWriter) {
	w.WriteString("[")
	for i, e := range a.Elems {
		if i > 0 {
			w.WriteString(", ")
		}
		w.Attr(e)
	}
	w.WriteString("]")
}

// DenseArrayAttr is array<i32: 1, 2>.
type DenseArrayAttr struct {
	Elem   Type
	Values []int64
}

// PrintAttr implements Attribute.
func (a *DenseArrayAttr) PrintAttr(w *AsmWriter) {
	w.WriteString("array<")
	w.Type(a.Elem)
	for i, v := range a.Values {
		if i == 0 {
			w.WriteString(": ")
		} else {
			w.WriteString(", ")
		}
		w.WriteString(strconv.FormatInt(v, 10))
	}
	w.WriteString(">")
}

// NamedAttr is one entry of a dictionary.
type NamedAttr struct {
	Name  string
	Value Attribute
}

// DictAttr is an ordered dictionary {name = value, unitname, ...}.
type DictAttr struct{ Entries []NamedAttr }

// PrintAttr implements Attribute.
func (a *DictAttr) PrintAttr(w *AsmWriter) {
	w.WriteString("{")
	w.namedAttrs(a.Entries)
	w.WriteString("}")
}

// Get returns the value stored under name, or nil.
func (a *DictAttr) Get(name string) Attribute {
	if a == nil {
		return nil
	}
	for _, e := range a.Entries {
		if e.Name == name {
			return e.Value
		}
	}
	return nil
}

// SymbolRefAttr is @root::@nested::@... .
type SymbolRefAttr struct {
	Root   string
	Nested []string
}

// PrintAttr implements Attribute.
func (a SymbolRefAttr) PrintAttr(w *AsmWriter) {
	w.WriteString(SymbolName(a.Root))
	for _, n := range a.Nested {
		w.WriteString("::")
		w.WriteString(SymbolName(n))
	}
}

// Path returns all components, root first.
func (a SymbolRefAttr) Path() []string { return append([]string{a.Root}, a.Nested...) }

// SymbolName prints @name, quoting the name when it is not a bare identifier.
func SymbolName(n string) string {
	if isBareIdent(n) {
		return "@" + n
	}
	return "@" + QuoteString(n)
}

func isBareIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || c == '_' || c == '$' || c == '.' || (i > 0 && isDigit(c))) {
			return false
		}
	}
	return true
}

// DenseAttr is dense<...> : shaped-type. Elements holds the literal
// elements row-major (flattened); Splat is set when a single scalar was
// written; Hex holds raw bytes written as dense<"0x...">.
type DenseAttr struct {
	Type     ShapedType
	Elements []Attribute // IntegerAttr/FloatAttr/BoolAttr without their types
	Nesting  []int       // literal shape as written, e.g. [2 2] for [[1,2],[3,4]]
	Splat    bool
	Hex      []byte
	IsHex    bool
	// Resource names the blob of a dense_resource<name> attribute (whose
	// data is in Hex, IsHex set); ResourceAlign is the blob's alignment.
	Resource      string
	ResourceAlign uint32
}

// PrintAttr implements Attribute.
func (a *DenseAttr) PrintAttr(w *AsmWriter) {
	if a.Resource != "" {
		a.printResource(w)
		return
	}
	w.WriteString("dense<")
	switch {
	case a.IsHex:
		w.WriteString(`"0x`)
		w.WriteString(strings.ToUpper(fmt.Sprintf("%x", a.Hex)))
		w.WriteString(`"`)
	case a.Splat:
		a.printElem(w, a.Elements[0])
	default:
		idx := 0
		a.printNested(w, 0, &idx)
	}
	w.WriteString("> : ")
	w.Type(a.Type)
}

func (a *DenseAttr) printNested(w *AsmWriter, depth int, idx *int) {
	if depth == len(a.Nesting) {
		if *idx < len(a.Elements) {
			a.printElem(w, a.Elements[*idx])
		}
		*idx++
		return
	}
	w.WriteString("[")
	for i := 0; i < a.Nesting[depth]; i++ {
		if i > 0 {
			w.WriteString(", ")
		}
		a.printNested(w, depth+1, idx)
	}
	w.WriteString("]")
}

func (a *DenseAttr) printElem(w *AsmWriter, e Attribute) {
	if c, ok := e.(ComplexAttr); ok {
		ct, _ := a.Type.ElementType().(*ComplexType)
		part := &DenseAttr{Type: &TensorType{Elem: ct.Elem}}
		w.WriteString("(")
		part.printElem(w, c.Re)
		w.WriteString(",")
		part.printElem(w, c.Im)
		w.WriteString(")")
		return
	}
	switch e := e.(type) {
	case IntegerAttr:
		if it, ok := a.Type.ElementType().(IntegerType); ok && it.Width == 1 {
			w.WriteString(strconv.FormatBool(e.Value != 0))
			return
		}
		w.WriteString(strconv.FormatInt(e.Value, 10))
	case FloatAttr:
		w.WriteString(FormatFloat(e.Value, a.Type.ElementType()))
	case BoolAttr:
		w.WriteString(strconv.FormatBool(e.Value))
	}
}

// ComplexAttr is one element of a dense complex literal, (re, im): its
// parts are FloatAttr or IntegerAttr of the complex type's element type.
type ComplexAttr struct{ Re, Im Attribute }

// PrintAttr implements Attribute.
func (a ComplexAttr) PrintAttr(w *AsmWriter) {
	w.WriteString("(")
	a.Re.PrintAttr(w)
	w.WriteString(",")
	a.Im.PrintAttr(w)
	w.WriteString(")")
}

// NumElements returns the static element count of the type, or -1 when
// the shape is dynamic.
func NumElements(t ShapedType) int64 {
	n := int64(1)
	for _, d := range t.ShapeDims() {
		if d == Dynamic {
			return -1
		}
		n *= d
	}
	return n
}

// RawBytes returns the little-endian contents of the attribute, expanding
// splats. Hex data is returned as written.
func (a *DenseAttr) RawBytes() ([]byte, error) {
	if a.IsHex {
		return append([]byte(nil), a.Hex...), nil
	}
	n := NumElements(a.Type)
	if n < 0 {
		return nil, fmt.Errorf("dense attribute has dynamic type %s", TypeString(a.Type))
	}
	elems := a.Elements
	if a.Splat {
		if n > 1<<26 {
			return nil, fmt.Errorf("splat of %d elements is too large to materialise", n)
		}
		elems = make([]Attribute, n)
		for i := range elems {
			elems[i] = a.Elements[0]
		}
	}
	if int64(len(elems)) != n {
		return nil, fmt.Errorf("dense attribute has %d elements but its type %s needs %d", len(elems), TypeString(a.Type), n)
	}
	var out []byte
	switch et := a.Type.ElementType().(type) {
	case IntegerType:
		size := (et.Width + 7) / 8
		if size != 1 && size != 2 && size != 4 && size != 8 {
			return nil, fmt.Errorf("unsupported element width %d", et.Width)
		}
		for _, e := range elems {
			var v int64
			switch e := e.(type) {
			case IntegerAttr:
				v = e.Value
			case BoolAttr:
				if e.Value {
					v = 1
				}
			default:
				return nil, fmt.Errorf("non-integer element %s in integer dense attribute", AttrString(e))
			}
			var buf [8]byte
			binary.LittleEndian.PutUint64(buf[:], uint64(v))
			out = append(out, buf[:size]...)
		}
	case FloatType:
		for _, e := range elems {
			var v float64
			switch e := e.(type) {
			case FloatAttr:
				v = e.Value
			case IntegerAttr:
				v = float64(e.Value)
			default:
				return nil, fmt.Errorf("non-float element %s in float dense attribute", AttrString(e))
			}
			switch et.Name {
			case "f32":
				out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(v)))
			case "f64":
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
			case "f16":
				out = binary.LittleEndian.AppendUint16(out, uint16(encodeMinifloat(v, 5, 10)))
			case "bf16":
				out = binary.LittleEndian.AppendUint16(out, uint16(encodeMinifloat(v, 8, 7)))
			default:
				return nil, fmt.Errorf("unsupported float element type %s", et.Name)
			}
		}
	default:
		return nil, fmt.Errorf("unsupported dense element type %s", TypeString(a.Type.ElementType()))
	}
	return out, nil
}

// AffineMapAttr wraps an affine map.
type AffineMapAttr struct{ Map *AffineMap }

// DynamicStride marks a stride or offset written ? in a StridedLayoutAttr
// (not Dynamic, -1, which is a valid stride).
const DynamicStride int64 = math.MinInt64

// StridedLayoutAttr is a memref layout strided<[strides], offset: o>: the
// element at indices i sits at offset + sum(i_k * strides_k).
// DynamicStride marks a stride or offset written ?.
type StridedLayoutAttr struct {
	Strides []int64
	Offset  int64
}

// PrintAttr implements Attribute; a zero offset is left out, as MLIR does.
func (a StridedLayoutAttr) PrintAttr(w *AsmWriter) {
	num := func(n int64) string {
		if n == DynamicStride {
			return "?"
		}
		return strconv.FormatInt(n, 10)
	}
	w.WriteString("strided<[")
	for i, s := range a.Strides {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString(num(s))
	}
	w.WriteString("]")
	if a.Offset != 0 {
		w.WriteString(", offset: " + num(a.Offset))
	}
	w.WriteString(">")
}

// PrintAttr implements Attribute.
func (a AffineMapAttr) PrintAttr(w *AsmWriter) {
	w.WriteString("affine_map<")
	w.WriteString(a.Map.String())
	w.WriteString(">")
}

// LocationAttr is a source location loc(...); Body is the text inside the
// parentheses as written (`unknown`, `"file":1:2`, `fused[...]`, ...).
type LocationAttr struct{ Body string }

// PrintAttr implements Attribute.
func (a LocationAttr) PrintAttr(w *AsmWriter) {
	w.WriteString("loc(")
	w.WriteString(a.Body)
	w.WriteString(")")
}

// OpaqueAttr is a dialect attribute #dialect.name<body> (or without a body)
// that no registered dialect parses; it round-trips as written. A trailing
// type (`: !hal.device`) is kept in Type.
type OpaqueAttr struct {
	Name string
	Body string
	// Angled records an empty `<>` body, which the dialect's own parser
	// may require (IREE writes #iree_cpu.cpu_encoding_resolver<>).
	Angled bool
	Type   Type
}

// PrintAttr implements Attribute.
func (a *OpaqueAttr) PrintAttr(w *AsmWriter) {
	w.WriteString("#")
	w.WriteString(a.Name)
	if a.Body != "" || a.Angled {
		w.WriteString("<")
		w.WriteString(a.Body)
		w.WriteString(">")
	}
	if a.Type != nil {
		w.WriteString(" : ")
		w.Type(a.Type)
	}
}

// AsmWriter accumulates printed text and substitutes aliases for
// attributes and types that have one.
type AsmWriter struct {
	strings.Builder
	attrAliases map[string]string
	typeAliases map[string]string
	// resources are the dense_resource blobs printed so far.
	resources []printedResource
}

// Attr prints a, using its alias when one exists.
func (w *AsmWriter) Attr(a Attribute) {
	if a == nil {
		w.WriteString("<<null attribute>>")
		return
	}
	if len(w.attrAliases) > 0 {
		if name, ok := w.attrAliases[AttrString(a)]; ok {
			w.WriteString("#")
			w.WriteString(name)
			return
		}
	}
	a.PrintAttr(w)
}

// Type prints t, using its alias when one exists.
func (w *AsmWriter) Type(t Type) {
	if t == nil {
		w.WriteString("<<null type>>")
		return
	}
	if len(w.typeAliases) > 0 {
		if name, ok := w.typeAliases[TypeString(t)]; ok {
			w.WriteString("!")
			w.WriteString(name)
			return
		}
	}
	t.PrintType(w)
}

// TypeList prints types separated by ", ".
func (w *AsmWriter) TypeList(ts []Type) {
	for i, t := range ts {
		if i > 0 {
			w.WriteString(", ")
		}
		w.Type(t)
	}
}

// ResultTypes prints a function result list: a single non-function type
// bare, otherwise parenthesised.
func (w *AsmWriter) ResultTypes(ts []Type) {
	if len(ts) == 1 {
		if _, isFn := ts[0].(*FunctionType); !isFn {
			w.Type(ts[0])
			return
		}
	}
	w.WriteString("(")
	w.TypeList(ts)
	w.WriteString(")")
}

func (w *AsmWriter) namedAttrs(entries []NamedAttr) {
	for i, e := range entries {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString(attrKey(e.Name))
		if _, unit := e.Value.(UnitAttr); unit {
			continue
		}
		w.WriteString(" = ")
		w.Attr(e.Value)
	}
}

func attrKey(n string) string {
	if isBareIdent(n) {
		return n
	}
	return QuoteString(n)
}
