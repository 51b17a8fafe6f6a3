package fbverify

import "encoding/binary"

// The verifier is driven by descriptions of the schemas (schemas_gen.go),
// generated from the .fbs files by TestSchemasMatchFBS -update. That test
// fails whenever a .fbs file declares a table, field or union member the
// descriptions lack, so no field can be added to a schema, and read through
// its generated accessor, without the verifier checking it.

// fieldKind says how a field is stored and so how it is checked.
type fieldKind uint8

const (
	// kindInline is a scalar, enum or struct stored in the table: size
	// bytes must lie inside the table.
	kindInline fieldKind = iota + 1
	// kindString is an offset to a string.
	kindString
	// kindTable is an offset to a table of type ref.
	kindTable
	// kindUnion is a union of type ref: its u8 type at slot-1, the offset
	// to a member table at slot.
	kindUnion
	// kindInlineVector is an offset to a vector of scalars, enums or
	// structs of size bytes each.
	kindInlineVector
	// kindStringVector is an offset to a vector of strings.
	kindStringVector
	// kindTableVector is an offset to a vector of tables of type ref.
	kindTableVector
)

// fieldDef describes one field of a table.
type fieldDef struct {
	name     string
	slot     int
	kind     fieldKind
	size     uint64 // kindInline, kindInlineVector: bytes per value
	ref      int    // kindTable, kindTableVector: table index; kindUnion: union index
	required bool
}

// tableDef describes a table: its fields in slot order.
type tableDef struct {
	name   string
	fields []fieldDef
}

// unionDef describes a union: the table index of each member, type value
// i+1 for members[i] (0 is NONE).
type unionDef struct {
	name    string
	members []int
}

// schemaDef describes one .fbs file.
type schemaDef struct {
	file   string
	ident  string
	root   int
	tables []tableDef
	unions []unionDef
}

// verifyRoot verifies buf against s from its root table.
func verifyRoot(s *schemaDef, buf []byte) error {
	v := &verifier{buf: buf}
	root, err := v.root(s.tables[s.root].name, s.ident)
	if err != nil {
		return err
	}
	return v.verifyTable(s, s.root, root)
}

// verifyTable checks every field of table t, of type ti.
func (v *verifier) verifyTable(s *schemaDef, ti int, t table) error {
	for i := range s.tables[ti].fields {
		f := &s.tables[ti].fields[i]
		var err error
		switch f.kind {
		case kindInline:
			err = t.scalar(f.slot, f.name, f.size)
		case kindString:
			err = t.str(f.slot, f.name, f.required)
		case kindTable:
			err = t.sub(f.slot, f.name, f.required, func(st table) error { return v.verifyTable(s, f.ref, st) })
		case kindUnion:
			u := &s.unions[f.ref]
			err = t.union(f.slot-1, f.slot, f.name, f.required, func(typ byte, st table) error {
				if int(typ) > len(u.members) {
					return errAt(st.path, "unknown %s type %d (%s has %d members)", f.name, typ, u.name, len(u.members))
				}
				return v.verifyTable(s, u.members[typ-1], st)
			})
		case kindInlineVector:
			err = t.vector(f.slot, f.name, f.size, f.required)
		case kindStringVector:
			err = t.vectorOfStrings(f.slot, f.name, f.required)
		case kindTableVector:
			err = t.vectorOfTables(f.slot, f.name, f.required, func(st table) error { return v.verifyTable(s, f.ref, st) })
		default:
			err = errAt(t.path+"."+f.name, "verifier has no check for field kind %d", f.kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// BytecodeModuleDef verifies buf, a FlatBuffer whose root is a
// bytecode.BytecodeModuleDef with file identifier "IREE" (without the
// .vmfb size prefix; see SizePrefixed): every table, string, vector and
// union of bytecode_module_def.fbs, the debug database included.
func BytecodeModuleDef(buf []byte) error { return verifyRoot(bytecodeModuleDefSchema, buf) }

// CUDAExecutableDef verifies buf, a FlatBuffer whose root is a
// cuda.CUDAExecutableDef with file identifier "CUDA" (no size prefix).
func CUDAExecutableDef(buf []byte) error { return verifyRoot(cudaExecutableDefSchema, buf) }

// SpirVExecutableDef verifies buf, a FlatBuffer whose root is a
// spirv.SpirVExecutableDef with file identifier "SPVE" (no size prefix).
func SpirVExecutableDef(buf []byte) error { return verifyRoot(spirVExecutableDefSchema, buf) }

// SizePrefixed returns the FlatBuffer inside a size-prefixed buffer (a u32
// little-endian length followed by that many bytes) and the offset just
// past it, or an error when the prefix does not fit.
func SizePrefixed(data []byte) (fb []byte, end uint64, err error) {
	if len(data) < 4 {
		return nil, 0, errAt("size prefix", "file of %d bytes is too short", len(data))
	}
	n := uint64(binary.LittleEndian.Uint32(data))
	if 4+n > uint64(len(data)) {
		return nil, 0, errAt("size prefix", "FlatBuffer size %d exceeds the %d bytes after the prefix", n, len(data)-4)
	}
	return data[4 : 4+n], 4 + n, nil
}
