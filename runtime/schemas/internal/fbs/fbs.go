// Package fbs parses the subset of the FlatBuffers schema language that
// the schemas under runtime/schemas use, so that tests can walk a schema
// (its tables, fields, structs, enums and unions) and check code that must
// know every field, such as the verifier in fbverify.
//
// Supported: namespace, file_identifier, file_extension, root_type,
// attribute declarations, enums (with an underlying integer type and
// optional values), unions of tables, structs of scalars and structs, and
// tables whose fields are scalars, enums, structs, strings, tables, unions
// or vectors of scalars, enums, structs, strings and tables, with default
// values and the required and deprecated attributes. Anything else (include,
// rpc_service, explicit field ids, vectors of unions, fixed-size arrays) is
// an error naming its line, so a schema change the walkers do not
// understand cannot pass unnoticed.
package fbs

import (
	"fmt"
	"strings"
)

// Schema is one parsed .fbs file.
type Schema struct {
	Namespace      string
	FileIdentifier string
	FileExtension  string
	RootType       string
	Tables         []*Table
	Structs        []*Struct
	Enums          []*Enum
	Unions         []*Union
}

// Table is a table declaration.
type Table struct {
	Name   string
	Fields []*Field
	Line   int
}

// Struct is a struct declaration; Size and Align follow FlatBuffers'
// layout rules (fields in order, each naturally aligned, the size padded
// to the largest alignment).
type Struct struct {
	Name   string
	Fields []*Field
	Size   int
	Align  int
	Line   int
}

// Enum is an enum declaration with its underlying integer type.
type Enum struct {
	Name       string
	Underlying string
	Values     []EnumValue
	BitFlags   bool
	Line       int
}

// EnumValue is one named enum value.
type EnumValue struct {
	Name  string
	Value int64
}

// Union is a union declaration; Members are table names, the first with
// type value 1 (0 is NONE).
type Union struct {
	Name    string
	Members []string
	Line    int
}

// Field is a table or struct field. Slot is the field's vtable slot (its
// index among the table's slots); a union field occupies two slots, the
// type byte (named Name+"_type") at Slot-1 and the value at Slot.
type Field struct {
	Name       string
	Type       Type
	Default    string
	Required   bool
	Deprecated bool
	Slot       int
	Line       int
}

// Type is a field's type: a scalar or a named type, or a vector of one.
type Type struct {
	Vector bool
	// Name is the element type: a scalar ("uint32", "bool", ...),
	// "string", or the name of a table, struct, enum or union.
	Name string
}

// String writes the type as the schema does ("[uint8]", "AttrDef").
func (t Type) String() string {
	if t.Vector {
		return "[" + t.Name + "]"
	}
	return t.Name
}

// scalarSizes maps the schema language's scalar types (both spellings) to
// their canonical name and size in bytes.
var scalarSizes = map[string]struct {
	canon string
	size  int
}{
	"bool": {"bool", 1}, "byte": {"int8", 1}, "ubyte": {"uint8", 1}, "int8": {"int8", 1}, "uint8": {"uint8", 1},
	"short": {"int16", 2}, "ushort": {"uint16", 2}, "int16": {"int16", 2}, "uint16": {"uint16", 2},
	"int": {"int32", 4}, "uint": {"uint32", 4}, "int32": {"int32", 4}, "uint32": {"uint32", 4},
	"long": {"int64", 8}, "ulong": {"uint64", 8}, "int64": {"int64", 8}, "uint64": {"uint64", 8},
	"float": {"float32", 4}, "double": {"float64", 8}, "float32": {"float32", 4}, "float64": {"float64", 8},
}

// ScalarSize returns the size in bytes of a scalar type name, or 0.
func ScalarSize(name string) int { return scalarSizes[name].size }

// Table returns the table named name, or nil.
func (s *Schema) Table(name string) *Table {
	for _, t := range s.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Struct returns the struct named name, or nil.
func (s *Schema) Struct(name string) *Struct {
	for _, t := range s.Structs {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Enum returns the enum named name, or nil.
func (s *Schema) Enum(name string) *Enum {
	for _, t := range s.Enums {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Union returns the union named name, or nil.
func (s *Schema) Union(name string) *Union {
	for _, t := range s.Unions {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Parse parses the text of a .fbs file; file names it in errors.
func Parse(file, text string) (*Schema, error) {
	toks, err := lex(file, text)
	if err != nil {
		return nil, err
	}
	p := &parser{file: file, toks: toks, s: &Schema{}}
	if err := p.schema(); err != nil {
		return nil, err
	}
	if err := p.resolve(); err != nil {
		return nil, err
	}
	return p.s, nil
}

type token struct {
	text string
	str  bool // a quoted string; text is its contents
	line int
}

func lex(file, text string) ([]token, error) {
	var toks []token
	line := 1
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(text[i:], "//"):
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("%s:%d: unterminated /* comment", file, line)
			}
			line += strings.Count(text[i:i+2+end], "\n")
			i += end + 4
		case c == '"':
			j := i + 1
			for j < len(text) && text[j] != '"' && text[j] != '\n' {
				j++
			}
			if j >= len(text) || text[j] != '"' {
				return nil, fmt.Errorf("%s:%d: unterminated string", file, line)
			}
			toks = append(toks, token{text: text[i+1 : j], str: true, line: line})
			i = j + 1
		case strings.IndexByte("{}()[]:;,=", c) >= 0:
			toks = append(toks, token{text: string(c), line: line})
			i++
		case isWord(c) || c == '-' || c == '+':
			j := i + 1
			for j < len(text) && isWord(text[j]) {
				j++
			}
			toks = append(toks, token{text: text[i:j], line: line})
			i = j
		default:
			return nil, fmt.Errorf("%s:%d: unexpected character %q", file, line, c)
		}
	}
	return toks, nil
}

func isWord(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

type parser struct {
	file string
	toks []token
	pos  int
	s    *Schema
}

func (p *parser) errorf(format string, args ...any) error {
	line := 0
	if p.pos < len(p.toks) {
		line = p.toks[p.pos].line
	} else if len(p.toks) > 0 {
		line = p.toks[len(p.toks)-1].line
	}
	return fmt.Errorf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...))
}

func (p *parser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos].text
	}
	return ""
}

func (p *parser) line() int {
	if p.pos < len(p.toks) {
		return p.toks[p.pos].line
	}
	return 0
}

func (p *parser) next() (token, error) {
	if p.pos >= len(p.toks) {
		return token{}, p.errorf("unexpected end of schema")
	}
	t := p.toks[p.pos]
	p.pos++
	return t, nil
}

func (p *parser) expect(text string) error {
	t, err := p.next()
	if err != nil {
		return err
	}
	if t.str || t.text != text {
		p.pos--
		return p.errorf("expected %q, found %q", text, t.text)
	}
	return nil
}

func (p *parser) ident() (string, error) {
	t, err := p.next()
	if err != nil {
		return "", err
	}
	if t.str || !isWord(t.text[0]) || t.text[0] >= '0' && t.text[0] <= '9' {
		p.pos--
		return "", p.errorf("expected a name, found %q", t.text)
	}
	return t.text, nil
}

func (p *parser) quoted() (string, error) {
	t, err := p.next()
	if err != nil {
		return "", err
	}
	if !t.str {
		p.pos--
		return "", p.errorf("expected a quoted string, found %q", t.text)
	}
	return t.text, nil
}

func (p *parser) schema() error {
	for p.pos < len(p.toks) {
		kw, err := p.ident()
		if err != nil {
			return err
		}
		switch kw {
		case "namespace":
			if p.s.Namespace, err = p.ident(); err != nil {
				return err
			}
			err = p.expect(";")
		case "file_identifier":
			if p.s.FileIdentifier, err = p.quoted(); err != nil {
				return err
			}
			err = p.expect(";")
		case "file_extension":
			if p.s.FileExtension, err = p.quoted(); err != nil {
				return err
			}
			err = p.expect(";")
		case "root_type":
			if p.s.RootType, err = p.ident(); err != nil {
				return err
			}
			err = p.expect(";")
		case "attribute":
			if _, err = p.quoted(); err != nil {
				return err
			}
			err = p.expect(";")
		case "table", "struct":
			err = p.tableOrStruct(kw == "struct")
		case "enum":
			err = p.enum()
		case "union":
			err = p.union()
		default:
			p.pos--
			return p.errorf("unsupported declaration %q", kw)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// attrs parses an optional "(name[: value], ...)" list.
func (p *parser) attrs() (map[string]string, error) {
	m := map[string]string{}
	if p.peek() != "(" {
		return m, nil
	}
	p.pos++
	for p.peek() != ")" {
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		val := ""
		if p.peek() == ":" {
			p.pos++
			t, err := p.next()
			if err != nil {
				return nil, err
			}
			val = t.text
		}
		m[name] = val
		if p.peek() == "," {
			p.pos++
		}
	}
	p.pos++
	return m, nil
}

func (p *parser) tableOrStruct(isStruct bool) error {
	line := p.line()
	name, err := p.ident()
	if err != nil {
		return err
	}
	if _, err := p.attrs(); err != nil {
		return err
	}
	if err := p.expect("{"); err != nil {
		return err
	}
	var fields []*Field
	for p.peek() != "}" {
		f := &Field{Line: p.line()}
		if f.Name, err = p.ident(); err != nil {
			return err
		}
		if err := p.expect(":"); err != nil {
			return err
		}
		if p.peek() == "[" {
			p.pos++
			f.Type.Vector = true
			if f.Type.Name, err = p.ident(); err != nil {
				return err
			}
			if p.peek() == ":" {
				return p.errorf("fixed-size arrays are not supported (field %s.%s)", name, f.Name)
			}
			if err := p.expect("]"); err != nil {
				return err
			}
		} else if f.Type.Name, err = p.ident(); err != nil {
			return err
		}
		if p.peek() == "=" {
			p.pos++
			t, err := p.next()
			if err != nil {
				return err
			}
			f.Default = t.text
		}
		a, err := p.attrs()
		if err != nil {
			return err
		}
		for k := range a {
			switch k {
			case "required":
				f.Required = true
			case "deprecated":
				f.Deprecated = true
			case "id", "nested_flatbuffer", "flexbuffer", "hash", "key":
				return fmt.Errorf("%s:%d: field %s.%s: attribute %q is not supported", p.file, f.Line, name, f.Name, k)
			}
		}
		if err := p.expect(";"); err != nil {
			return err
		}
		fields = append(fields, f)
	}
	p.pos++
	if isStruct {
		p.s.Structs = append(p.s.Structs, &Struct{Name: name, Fields: fields, Line: line})
	} else {
		p.s.Tables = append(p.s.Tables, &Table{Name: name, Fields: fields, Line: line})
	}
	return nil
}

func (p *parser) enum() error {
	line := p.line()
	name, err := p.ident()
	if err != nil {
		return err
	}
	if err := p.expect(":"); err != nil {
		return err
	}
	under, err := p.ident()
	if err != nil {
		return err
	}
	a, err := p.attrs()
	if err != nil {
		return err
	}
	_, bitFlags := a["bit_flags"]
	e := &Enum{Name: name, Underlying: under, BitFlags: bitFlags, Line: line}
	if err := p.expect("{"); err != nil {
		return err
	}
	next := int64(0)
	for p.peek() != "}" {
		vn, err := p.ident()
		if err != nil {
			return err
		}
		if p.peek() == "=" {
			p.pos++
			t, err := p.next()
			if err != nil {
				return err
			}
			if _, err := fmt.Sscan(t.text, &next); err != nil {
				return p.errorf("enum %s: bad value %q", name, t.text)
			}
		}
		e.Values = append(e.Values, EnumValue{Name: vn, Value: next})
		next++
		if p.peek() == "," {
			p.pos++
		}
	}
	p.pos++
	p.s.Enums = append(p.s.Enums, e)
	return nil
}

func (p *parser) union() error {
	line := p.line()
	name, err := p.ident()
	if err != nil {
		return err
	}
	if _, err := p.attrs(); err != nil {
		return err
	}
	if err := p.expect("{"); err != nil {
		return err
	}
	u := &Union{Name: name, Line: line}
	for p.peek() != "}" {
		m, err := p.ident()
		if err != nil {
			return err
		}
		if p.peek() == ":" || p.peek() == "=" {
			return p.errorf("union %s: aliased members and explicit values are not supported", name)
		}
		u.Members = append(u.Members, m)
		if p.peek() == "," {
			p.pos++
		}
	}
	p.pos++
	p.s.Unions = append(p.s.Unions, u)
	return nil
}

// resolve checks every named type, canonicalises scalar names, assigns
// table slots and lays out structs.
func (p *parser) resolve() error {
	s := p.s
	seen := map[string]int{}
	for _, t := range s.Tables {
		seen[t.Name] = t.Line
	}
	for _, t := range s.Structs {
		seen[t.Name] = t.Line
	}
	for _, t := range s.Enums {
		seen[t.Name] = t.Line
	}
	for _, t := range s.Unions {
		seen[t.Name] = t.Line
	}
	if n := len(s.Tables) + len(s.Structs) + len(s.Enums) + len(s.Unions); len(seen) != n {
		return fmt.Errorf("%s: a type name is declared twice", p.file)
	}
	for _, e := range s.Enums {
		sz, ok := scalarSizes[e.Underlying]
		if !ok || e.Underlying == "bool" || strings.HasPrefix(sz.canon, "float") {
			return fmt.Errorf("%s:%d: enum %s: underlying type %s is not an integer type", p.file, e.Line, e.Name, e.Underlying)
		}
		e.Underlying = sz.canon
	}
	for _, u := range s.Unions {
		for _, m := range u.Members {
			if s.Table(m) == nil {
				return fmt.Errorf("%s:%d: union %s: member %s is not a table", p.file, u.Line, u.Name, m)
			}
		}
	}
	for _, st := range s.Structs {
		if err := p.layout(st, map[string]bool{}); err != nil {
			return err
		}
	}
	for _, t := range s.Tables {
		slot := 0
		for _, f := range t.Fields {
			if sz, ok := scalarSizes[f.Type.Name]; ok {
				f.Type.Name = sz.canon
			} else if f.Type.Name != "string" && seen[f.Type.Name] == 0 {
				return fmt.Errorf("%s:%d: field %s.%s: unknown type %s", p.file, f.Line, t.Name, f.Name, f.Type.Name)
			}
			if s.Union(f.Type.Name) != nil {
				if f.Type.Vector {
					return fmt.Errorf("%s:%d: field %s.%s: vectors of unions are not supported", p.file, f.Line, t.Name, f.Name)
				}
				slot++ // the type byte
			}
			f.Slot = slot
			slot++
		}
	}
	if s.RootType != "" && s.Table(s.RootType) == nil {
		return fmt.Errorf("%s: root_type %s is not a table", p.file, s.RootType)
	}
	return nil
}

// layout computes a struct's size and alignment; visiting catches
// recursive structs.
func (p *parser) layout(st *Struct, visiting map[string]bool) error {
	if st.Size > 0 {
		return nil
	}
	if visiting[st.Name] {
		return fmt.Errorf("%s:%d: struct %s contains itself", p.file, st.Line, st.Name)
	}
	visiting[st.Name] = true
	size, align := 0, 1
	for _, f := range st.Fields {
		if f.Type.Vector {
			return fmt.Errorf("%s:%d: struct field %s.%s cannot be a vector", p.file, f.Line, st.Name, f.Name)
		}
		fs, fa := 0, 0
		if sz, ok := scalarSizes[f.Type.Name]; ok {
			f.Type.Name = sz.canon
			fs, fa = sz.size, sz.size
		} else if e := p.s.Enum(f.Type.Name); e != nil {
			fs = scalarSizes[e.Underlying].size
			fa = fs
		} else if inner := p.s.Struct(f.Type.Name); inner != nil {
			if err := p.layout(inner, visiting); err != nil {
				return err
			}
			fs, fa = inner.Size, inner.Align
		} else {
			return fmt.Errorf("%s:%d: struct field %s.%s: type %s is not a scalar, enum or struct", p.file, f.Line, st.Name, f.Name, f.Type.Name)
		}
		size = (size + fa - 1) &^ (fa - 1)
		size += fs
		if fa > align {
			align = fa
		}
	}
	if size == 0 {
		return fmt.Errorf("%s:%d: struct %s is empty", p.file, st.Line, st.Name)
	}
	st.Size = (size + align - 1) &^ (align - 1)
	st.Align = align
	return nil
}
