// Package fbverify checks FlatBuffers buffers against the schemas in
// runtime/schemas before any generated accessor reads them. The Go
// FlatBuffers library does no bounds checking and panics on bad offsets;
// after a buffer passes the verifier for its schema, every accessor the
// generated code provides for that schema reads inside the buffer.
//
// The checks follow descriptions of the schemas generated from the .fbs
// files (schemas_gen.go); a test walks the .fbs files and fails on any
// table, field or union member the descriptions lack, so a field added to a
// schema cannot be read unverified. For every table reached from the root,
// the debug database and source locations included, the verifier checks,
// in 64-bit arithmetic, the root offset, the file identifier, the vtable
// (location, size, parity) and table size, every present field's extent
// within its table, every offset field's target, every string (length,
// contents and terminating NUL), every vector's length times element size,
// every union (a known member type with its value, or NONE with no value)
// and the presence of required fields. It bounds nesting depth and the
// number of tables visited so that hostile buffers cannot make it run long.
package fbverify

import (
	"encoding/binary"
	"fmt"
)

// Limits of the verifier.
const (
	// MaxDepth is the deepest table nesting accepted.
	MaxDepth = 64
	// MaxVisits is the most tables and vector elements (of strings and
	// tables) one verification visits. Shared sub-objects are visited once
	// per reference, so the budget keeps aliasing buffers from making the
	// verifier run long.
	MaxVisits = 1 << 22
)

// Error reports the first problem found in a buffer: the path of the
// offending field and what is wrong with it.
type Error struct {
	Path   string
	Reason string
}

// Error returns "path: reason".
func (e *Error) Error() string { return e.Path + ": " + e.Reason }

// verifier holds the buffer and the visit budget of one verification.
type verifier struct {
	buf    []byte
	visits uint64
	depth  int
}

// visit charges n visits to the budget.
func (v *verifier) visit(path string, n uint64) error {
	v.visits += n
	if v.visits > MaxVisits {
		return errAt(path, "more than %d tables and vector elements to visit (shared objects count once per reference)", MaxVisits)
	}
	return nil
}

func (v *verifier) size() uint64 { return uint64(len(v.buf)) }

func (v *verifier) u16(p uint64) uint16 { return binary.LittleEndian.Uint16(v.buf[p:]) }
func (v *verifier) u32(p uint64) uint32 { return binary.LittleEndian.Uint32(v.buf[p:]) }

func errAt(path, format string, args ...any) error {
	return &Error{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// table is a verified table header.
type table struct {
	v     *verifier
	path  string
	pos   uint64
	vt    uint64
	vtLen uint64
	tLen  uint64
}

// root verifies the root table offset and the file identifier.
func (v *verifier) root(name, ident string) (table, error) {
	if v.size() < 8 {
		return table{}, errAt(name, "buffer of %d bytes is too short for a FlatBuffer (need at least 8)", v.size())
	}
	if ident != "" && string(v.buf[4:8]) != ident {
		return table{}, errAt(name, "file identifier is %q, want %q", v.buf[4:8], ident)
	}
	return v.table(name, uint64(v.u32(0)))
}

// table verifies the table header at pos.
func (v *verifier) table(path string, pos uint64) (table, error) {
	if err := v.visit(path, 1); err != nil {
		return table{}, err
	}
	if pos+4 > v.size() {
		return table{}, errAt(path, "table offset %d outside buffer of %d bytes", pos, v.size())
	}
	soff := int64(int32(v.u32(pos)))
	vt := int64(pos) - soff
	if vt < 0 || uint64(vt)+4 > v.size() {
		return table{}, errAt(path, "vtable offset %d outside buffer of %d bytes", vt, v.size())
	}
	t := table{v: v, path: path, pos: pos, vt: uint64(vt)}
	t.vtLen = uint64(v.u16(t.vt))
	t.tLen = uint64(v.u16(t.vt + 2))
	if t.vtLen < 4 || t.vtLen%2 != 0 {
		return table{}, errAt(path, "bad vtable size %d", t.vtLen)
	}
	if t.vt+t.vtLen > v.size() {
		return table{}, errAt(path, "vtable [%d, %d) outside buffer of %d bytes", t.vt, t.vt+t.vtLen, v.size())
	}
	if t.tLen < 4 {
		return table{}, errAt(path, "bad table size %d", t.tLen)
	}
	if t.pos+t.tLen > v.size() {
		return table{}, errAt(path, "table [%d, %d) outside buffer of %d bytes", t.pos, t.pos+t.tLen, v.size())
	}
	return t, nil
}

// field returns the absolute position of field slot when present, checking
// that size bytes of it lie inside the table.
func (t table) field(slot int, name string, size uint64) (uint64, bool, error) {
	vo := uint64(4 + 2*slot)
	if vo+2 > t.vtLen {
		return 0, false, nil
	}
	off := uint64(t.v.u16(t.vt + vo))
	if off == 0 {
		return 0, false, nil
	}
	if off < 4 || off+size > t.tLen {
		return 0, false, errAt(t.path+"."+name, "field at table offset %d (size %d) outside table of %d bytes", off, size, t.tLen)
	}
	return t.pos + off, true, nil
}

// scalar checks a scalar or inline struct field of size bytes.
func (t table) scalar(slot int, name string, size uint64) error {
	_, _, err := t.field(slot, name, size)
	return err
}

// target follows an offset field.
func (t table) target(slot int, name string, required bool) (uint64, bool, error) {
	p, ok, err := t.field(slot, name, 4)
	if err != nil {
		return 0, false, err
	}
	if !ok {
		if required {
			return 0, false, errAt(t.path+"."+name, "required field is missing")
		}
		return 0, false, nil
	}
	u := uint64(t.v.u32(p))
	if u == 0 || p+u >= t.v.size() {
		return 0, false, errAt(t.path+"."+name, "offset %d from %d outside buffer of %d bytes", u, p, t.v.size())
	}
	return p + u, true, nil
}

// stringAt verifies a string whose length prefix is at p.
func (v *verifier) stringAt(path string, p uint64) error {
	if p+4 > v.size() {
		return errAt(path, "string length at %d outside buffer of %d bytes", p, v.size())
	}
	n := uint64(v.u32(p))
	if p+4+n+1 > v.size() {
		return errAt(path, "string at %d of length %d outside buffer of %d bytes", p, n, v.size())
	}
	if v.buf[p+4+n] != 0 {
		return errAt(path, "string at %d is not NUL-terminated", p)
	}
	return nil
}

// vectorAt verifies a vector of count elements of elemSize bytes whose
// length prefix is at p, returning the position of its first element.
func (v *verifier) vectorAt(path string, p, elemSize uint64) (uint64, uint64, error) {
	if p+4 > v.size() {
		return 0, 0, errAt(path, "vector length at %d outside buffer of %d bytes", p, v.size())
	}
	n := uint64(v.u32(p))
	if p+4+n*elemSize > v.size() {
		return 0, 0, errAt(path, "vector at %d of %d elements of %d bytes outside buffer of %d bytes", p, n, elemSize, v.size())
	}
	return p + 4, n, nil
}

// str verifies a string field.
func (t table) str(slot int, name string, required bool) error {
	p, ok, err := t.target(slot, name, required)
	if err != nil || !ok {
		return err
	}
	return t.v.stringAt(t.path+"."+name, p)
}

// vector verifies a vector of scalars or structs.
func (t table) vector(slot int, name string, elemSize uint64, required bool) error {
	p, ok, err := t.target(slot, name, required)
	if err != nil || !ok {
		return err
	}
	_, _, err = t.v.vectorAt(t.path+"."+name, p, elemSize)
	return err
}

// vectorOfStrings verifies a vector of strings.
func (t table) vectorOfStrings(slot int, name string, required bool) error {
	p, ok, err := t.target(slot, name, required)
	if err != nil || !ok {
		return err
	}
	path := t.path + "." + name
	start, n, err := t.v.vectorAt(path, p, 4)
	if err != nil {
		return err
	}
	if err := t.v.visit(path, n); err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		e := start + 4*i
		u := uint64(t.v.u32(e))
		if err := t.v.stringAt(fmt.Sprintf("%s[%d]", path, i), e+u); err != nil {
			return err
		}
	}
	return nil
}

// sub verifies a table-valued field and calls fn on it.
func (t table) sub(slot int, name string, required bool, fn func(table) error) error {
	p, ok, err := t.target(slot, name, required)
	if err != nil || !ok {
		return err
	}
	return t.v.nested(t.path+"."+name, p, fn)
}

func (v *verifier) nested(path string, p uint64, fn func(table) error) error {
	if v.depth >= MaxDepth {
		return errAt(path, "tables nested deeper than %d", MaxDepth)
	}
	v.depth++
	defer func() { v.depth-- }()
	st, err := v.table(path, p)
	if err != nil {
		return err
	}
	return fn(st)
}

// vectorOfTables verifies a vector of tables, calling fn on each.
func (t table) vectorOfTables(slot int, name string, required bool, fn func(table) error) error {
	p, ok, err := t.target(slot, name, required)
	if err != nil || !ok {
		return err
	}
	path := t.path + "." + name
	start, n, err := t.v.vectorAt(path, p, 4)
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		e := start + 4*i
		u := uint64(t.v.u32(e))
		if u == 0 {
			return errAt(fmt.Sprintf("%s[%d]", path, i), "null table offset")
		}
		if err := t.v.nested(fmt.Sprintf("%s[%d]", path, i), e+u, fn); err != nil {
			return err
		}
	}
	return nil
}

// union verifies a union: its u8 type field at typeSlot and the table at
// valueSlot, which fn checks by type (fn rejects unknown types). A value
// with type NONE is rejected too: readers that follow the value before
// looking at the type would otherwise read an unchecked offset.
func (t table) union(typeSlot, valueSlot int, name string, required bool, fn func(typ byte, st table) error) error {
	p, ok, err := t.field(typeSlot, name+"_type", 1)
	if err != nil {
		return err
	}
	var typ byte
	if ok {
		typ = t.v.buf[p]
	}
	if typ == 0 {
		if _, present, err := t.field(valueSlot, name, 4); err != nil || present {
			if err != nil {
				return err
			}
			return errAt(t.path+"."+name, "value present but %s_type is NONE", name)
		}
		if required {
			return errAt(t.path+"."+name, "required field is missing")
		}
		return nil
	}
	if _, present, err := t.field(valueSlot, name, 4); err != nil || !present {
		if err != nil {
			return err
		}
		return errAt(t.path+"."+name, "%s_type is %d but the value is missing", name, typ)
	}
	return t.sub(valueSlot, name, true, func(st table) error { return fn(typ, st) })
}
