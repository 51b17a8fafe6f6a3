// Package modulejson prints a .vmfb module's FlatBuffer (a
// bytecode.BytecodeModuleDef) as JSON in the style of flatc --json: the
// schema's field names in schema order, fields at their default value left
// out, byte vectors as arrays of numbers. It is what
// iree-dump-module --output=flatbuffer-json prints.
package modulejson

import (
	"encoding/json"
	"fmt"
	"strings"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/schemas/bytecode"
	"github.com/goiree/goiree/runtime/schemas/fbverify"
)

// obj is a JSON object with fields in schema order; fields holding their
// default value are left out, as flatc's JSON output does.
type obj []field

type field struct {
	key string
	val any // string, int64, uint64, obj, []any, []byte
}

func (o *obj) str(key string, v []byte) {
	if v != nil {
		*o = append(*o, field{key, string(v)})
	}
}

func (o *obj) num(key string, v, def int64) {
	if v != def {
		*o = append(*o, field{key, v})
	}
}

func (o *obj) unum(key string, v uint64) {
	if v != 0 {
		*o = append(*o, field{key, v})
	}
}

func (o *obj) sub(key string, v any) {
	switch x := v.(type) {
	case obj:
		if x == nil {
			return
		}
	case []any:
		if x == nil {
			return
		}
	case []byte:
		if x == nil {
			return
		}
	}
	*o = append(*o, field{key, v})
}

func writeValue(b *strings.Builder, v any, indent string) {
	in := indent + "  "
	switch x := v.(type) {
	case string:
		q, _ := json.Marshal(x)
		b.Write(q)
	case int64:
		fmt.Fprintf(b, "%d", x)
	case uint64:
		fmt.Fprintf(b, "%d", x)
	case []byte:
		b.WriteByte('[')
		for i, c := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%d", c)
		}
		b.WriteByte(']')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range x {
			b.WriteString(in)
			writeValue(b, e, in)
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case obj:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, f := range x {
			fmt.Fprintf(b, "%s%q: ", in, f.key)
			writeValue(b, f.val, in)
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	}
}

func attrList(n int, get func(*bytecode.AttrDef, int) bool) []any {
	if n == 0 {
		return nil
	}
	out := []any{}
	var a bytecode.AttrDef
	for i := 0; i < n; i++ {
		get(&a, i)
		var o obj
		o.str("key", a.Key())
		o.str("value", a.Value())
		out = append(out, o)
	}
	return out
}

func signature(s *bytecode.FunctionSignatureDef) obj {
	if s == nil {
		return nil
	}
	o := obj{}
	o.str("calling_convention", s.CallingConvention())
	o.sub("attrs", attrList(s.AttrsLength(), s.Attrs))
	return o
}

// Write appends the JSON form of fb, a BytecodeModuleDef FlatBuffer without
// its size prefix, to b. fb is verified first (fbverify), so malformed input
// is an error, never a panic.
func Write(b *strings.Builder, fb []byte) error {
	if err := fbverify.BytecodeModuleDef(fb); err != nil {
		return fmt.Errorf("module FlatBuffer: %w", err)
	}
	def := bytecode.GetRootAsBytecodeModuleDef(fb, 0)
	var root obj
	root.str("name", def.Name())
	root.num("version", int64(def.Version()), 0)
	root.sub("attrs", attrList(def.AttrsLength(), def.Attrs))

	if n := def.TypesLength(); n > 0 {
		var list []any
		var t bytecode.TypeDef
		for i := 0; i < n; i++ {
			def.Types(&t, i)
			var o obj
			o.str("full_name", t.FullName())
			list = append(list, o)
		}
		root.sub("types", list)
	}
	if n := def.DependenciesLength(); n > 0 {
		var list []any
		var d bytecode.ModuleDependencyDef
		for i := 0; i < n; i++ {
			def.Dependencies(&d, i)
			var o obj
			o.str("name", d.Name())
			o.num("minimum_version", int64(d.MinimumVersion()), 0)
			o.num("flags", int64(d.Flags()), 0)
			list = append(list, o)
		}
		root.sub("dependencies", list)
	}
	if n := def.ImportedFunctionsLength(); n > 0 {
		var list []any
		var f bytecode.ImportFunctionDef
		var s bytecode.FunctionSignatureDef
		for i := 0; i < n; i++ {
			def.ImportedFunctions(&f, i)
			var o obj
			o.str("full_name", f.FullName())
			o.sub("signature", signature(f.Signature(&s)))
			o.num("flags", int64(f.Flags()), 0)
			list = append(list, o)
		}
		root.sub("imported_functions", list)
	}
	if n := def.ExportedFunctionsLength(); n > 0 {
		var list []any
		var f bytecode.ExportFunctionDef
		var s bytecode.FunctionSignatureDef
		for i := 0; i < n; i++ {
			def.ExportedFunctions(&f, i)
			var o obj
			o.str("local_name", f.LocalName())
			o.sub("signature", signature(f.Signature(&s)))
			o.num("internal_ordinal", int64(f.InternalOrdinal()), 0)
			list = append(list, o)
		}
		root.sub("exported_functions", list)
	}
	if n := def.InternalFunctionsLength(); n > 0 {
		var list []any
		var f bytecode.InternalFunctionDef
		var s bytecode.FunctionSignatureDef
		for i := 0; i < n; i++ {
			def.InternalFunctions(&f, i)
			var o obj
			o.str("local_name", f.LocalName())
			o.sub("signature", signature(f.Signature(&s)))
			list = append(list, o)
		}
		root.sub("internal_functions", list)
	}
	if n := def.RodataSegmentsLength(); n > 0 {
		var list []any
		var r bytecode.RodataSegmentDef
		for i := 0; i < n; i++ {
			def.RodataSegments(&r, i)
			var o obj
			if t := r.CompressionTypeType(); t != bytecode.CompressionTypeDefNONE {
				o.sub("compression_type_type", t.String())
				var tab flatbuffers.Table
				if r.CompressionType(&tab) {
					o.sub("compression_type", obj{})
				}
			}
			if r.EmbeddedDataLength() > 0 {
				o.sub("embedded_data", r.EmbeddedDataBytes())
			}
			o.unum("external_data_offset", r.ExternalDataOffset())
			o.unum("external_data_length", r.ExternalDataLength())
			o.str("mime_type", r.MimeType())
			list = append(list, o)
		}
		root.sub("rodata_segments", list)
	}
	if n := def.RwdataSegmentsLength(); n > 0 {
		var list []any
		var r bytecode.RwdataSegmentDef
		for i := 0; i < n; i++ {
			def.RwdataSegments(&r, i)
			var o obj
			o.num("byte_size", int64(r.ByteSize()), 0)
			list = append(list, o)
		}
		root.sub("rwdata_segments", list)
	}
	var ms bytecode.ModuleStateDef
	if s := def.ModuleState(&ms); s != nil {
		o := obj{}
		o.num("global_bytes_capacity", int64(s.GlobalBytesCapacity()), 0)
		o.num("global_ref_count", int64(s.GlobalRefCount()), 0)
		root.sub("module_state", o)
	}
	if n := def.FunctionDescriptorsLength(); n > 0 {
		var list []any
		var d bytecode.FunctionDescriptor
		for i := 0; i < n; i++ {
			def.FunctionDescriptors(&d, i)
			o := obj{
				{"bytecode_offset", int64(d.BytecodeOffset())},
				{"bytecode_length", int64(d.BytecodeLength())},
				{"i32_register_count", int64(d.I32RegisterCount())},
				{"i64_register_count", int64(d.I64RegisterCount())},
				{"f32_register_count", int64(d.F32RegisterCount())},
				{"f64_register_count", int64(d.F64RegisterCount())},
				{"ref_register_count", int64(d.RefRegisterCount())},
				{"reserved", int64(d.Reserved())},
			}
			list = append(list, o)
		}
		root.sub("function_descriptors", list)
	}
	root.num("bytecode_version", int64(def.BytecodeVersion()), 0)
	if def.BytecodeDataLength() > 0 {
		root.sub("bytecode_data", def.BytecodeDataBytes())
	}
	var db bytecode.DebugDatabaseDef
	if d := def.DebugDatabase(&db); d != nil {
		root.sub("debug_database", debugDatabase(d))
	}
	writeValue(b, root, "")
	b.WriteByte('\n')
	return nil
}

func debugDatabase(d *bytecode.DebugDatabaseDef) obj {
	o := obj{}
	if n := d.LocationTableLength(); n > 0 {
		var list []any
		var l bytecode.LocationDef
		for i := 0; i < n; i++ {
			d.LocationTable(&l, i)
			lo := obj{}
			var tab flatbuffers.Table
			if l.LocationType() != bytecode.LocationTypeDefNONE && l.Location(&tab) {
				lo.sub("location_type", l.LocationType().String())
				lo.sub("location", location(l.LocationType(), tab))
			}
			list = append(list, lo)
		}
		o.sub("location_table", list)
	}
	if n := d.FunctionsLength(); n > 0 {
		var list []any
		var f bytecode.FunctionSourceMapDef
		var bl bytecode.BytecodeLocationDef
		for i := 0; i < n; i++ {
			d.Functions(&f, i)
			fo := obj{}
			fo.str("local_name", f.LocalName())
			var locs []any
			for j := 0; j < f.LocationsLength(); j++ {
				f.Locations(&bl, j)
				locs = append(locs, obj{{"bytecode_offset", int64(bl.BytecodeOffset())}, {"location", int64(bl.Location())}})
			}
			fo.sub("locations", locs)
			list = append(list, fo)
		}
		o.sub("functions", list)
	}
	return o
}

func location(t bytecode.LocationTypeDef, tab flatbuffers.Table) obj {
	o := obj{}
	switch t {
	case bytecode.LocationTypeDefFileLineColLocDef:
		var l bytecode.FileLineColLocDef
		l.Init(tab.Bytes, tab.Pos)
		o.str("filename", l.Filename())
		o.num("line", int64(l.Line()), 0)
		o.num("column", int64(l.Column()), 0)
	case bytecode.LocationTypeDefNameLocDef:
		var l bytecode.NameLocDef
		l.Init(tab.Bytes, tab.Pos)
		o.str("name", l.Name())
		o.num("child_location", int64(l.ChildLocation()), -1)
	case bytecode.LocationTypeDefCallSiteLocDef:
		var l bytecode.CallSiteLocDef
		l.Init(tab.Bytes, tab.Pos)
		o.num("callee", int64(l.Callee()), 0)
		o.num("caller", int64(l.Caller()), 0)
	case bytecode.LocationTypeDefFusedLocDef:
		var l bytecode.FusedLocDef
		l.Init(tab.Bytes, tab.Pos)
		o.str("metadata", l.Metadata())
		var locs []any
		for i := 0; i < l.LocationsLength(); i++ {
			locs = append(locs, int64(l.Locations(i)))
		}
		o.sub("locations", locs)
	}
	return o
}
