package fbverify_test

import (
	"flag"
	"fmt"
	"go/format"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/schemas/bytecode"
	"github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/schemas/fbverify"
	"github.com/goiree/goiree/runtime/schemas/internal/fbs"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

var update = flag.Bool("update", false, "rewrite schemas_gen.go from the .fbs files")

// schemaFiles are the schemas the verifier covers, each embedded by the
// package holding its generated accessors.
var schemaFiles = []struct{ file, text string }{
	{"bytecode_module_def.fbs", bytecode.Schema},
	{"cuda_executable_def.fbs", cuda.Schema},
	{"spirv_executable_def.fbs", spirv.Schema},
}

// TestSchemasMatchFBS walks every table, field and union of the .fbs files
// and fails on any the verifier does not know (or knows differently: slot,
// kind, element size, required), naming the .fbs line; then checks that
// schemas_gen.go is what the schemas generate. With -update it rewrites
// schemas_gen.go:
//
//	cd runtime && go test ./schemas/fbverify -run TestSchemasMatchFBS -update
func TestSchemasMatchFBS(t *testing.T) {
	var parsed []*fbs.Schema
	for _, f := range schemaFiles {
		s, err := fbs.Parse(f.file, f.text)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, s)
	}
	src, err := render(parsed)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("schemas_gen.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("wrote schemas_gen.go")
		return
	}
	const hint = "regenerate with: cd runtime && go test ./schemas/fbverify -run TestSchemasMatchFBS -update"
	for i, s := range parsed {
		want, where := schemaLines(s)
		got := map[string]bool{}
		for _, l := range fbverify.SchemaFields(s.RootType) {
			got[l] = true
		}
		for _, l := range want {
			if !got[l] {
				t.Errorf("%s:%d: %s: unknown to the verifier (%s)", schemaFiles[i].file, where[l], l, hint)
			}
			delete(got, l)
		}
		for l := range got {
			t.Errorf("%s: the verifier knows %q, which the schema does not declare (%s)", schemaFiles[i].file, l, hint)
		}
	}
	if string(src) != fbverify.CheckedInGen {
		t.Errorf("schemas_gen.go is not what the .fbs files generate; %s", hint)
	}
}

// TestSchemaWalkCatchesNewField adds a field to a table of the module
// schema and checks that the walk reports it.
func TestSchemaWalkCatchesNewField(t *testing.T) {
	text := strings.Replace(bytecode.Schema, "table LocationDef {\n", "table LocationDef {\n  note:string;\n", 1)
	s, err := fbs.Parse("edited.fbs", text)
	if err != nil {
		t.Fatal(err)
	}
	want, where := schemaLines(s)
	known := map[string]bool{}
	for _, l := range fbverify.SchemaFields(s.RootType) {
		known[l] = true
	}
	var unknown []string
	for _, l := range want {
		if !known[l] {
			unknown = append(unknown, fmt.Sprintf("%d: %s", where[l], l))
		}
	}
	// The new field and the union it shifts by one slot.
	wantUnknown := []string{
		fmt.Sprintf("%d: field LocationDef.note slot 0: string", where["field LocationDef.note slot 0: string"]),
		fmt.Sprintf("%d: field LocationDef.location slot 2: union of LocationTypeDef", where["field LocationDef.location slot 2: union of LocationTypeDef"]),
	}
	if strings.Join(unknown, "\n") != strings.Join(wantUnknown, "\n") || where["field LocationDef.note slot 0: string"] == 0 {
		t.Errorf("unknown fields:\n%s\nwant:\n%s", strings.Join(unknown, "\n"), strings.Join(wantUnknown, "\n"))
	}
}

// field is a table field as the verifier describes it.
type field struct {
	name     string
	slot     int
	kind     string // the fieldKind constant
	size     int
	ref      string // table or union name
	required bool
}

// fields converts the fields of table t into the verifier's terms.
// Deprecated fields have no accessor, so nothing reads them.
func fields(s *fbs.Schema, t *fbs.Table) ([]field, error) {
	var out []field
	for _, f := range t.Fields {
		if f.Deprecated {
			continue
		}
		d := field{name: f.Name, slot: f.Slot}
		name := f.Type.Name
		size := fbs.ScalarSize(name)
		if e := s.Enum(name); e != nil {
			size = fbs.ScalarSize(e.Underlying)
		} else if st := s.Struct(name); st != nil {
			size = st.Size
		}
		switch {
		case size > 0 && f.Type.Vector:
			d.kind, d.size = "kindInlineVector", size
		case size > 0:
			d.kind, d.size = "kindInline", size
		case name == "string" && f.Type.Vector:
			d.kind = "kindStringVector"
		case name == "string":
			d.kind = "kindString"
		case s.Table(name) != nil && f.Type.Vector:
			d.kind, d.ref = "kindTableVector", name
		case s.Table(name) != nil:
			d.kind, d.ref = "kindTable", name
		case s.Union(name) != nil && !f.Type.Vector:
			d.kind, d.ref = "kindUnion", name
		default:
			return nil, fmt.Errorf("field %s.%s: type %s has no verifier kind", t.Name, f.Name, f.Type)
		}
		d.required = f.Required && size == 0
		out = append(out, d)
	}
	return out, nil
}

var kindWords = map[string]string{
	"kindInline": "inline", "kindString": "string", "kindTable": "table", "kindUnion": "union",
	"kindInlineVector": "vector", "kindStringVector": "vector of strings", "kindTableVector": "vector of tables",
}

// schemaLines describes s in the form of fbverify.SchemaFields, with the
// .fbs line of each entry.
func schemaLines(s *fbs.Schema) ([]string, map[string]int) {
	where := map[string]int{}
	add := func(line int, format string, args ...any) {
		where[fmt.Sprintf(format, args...)] = line
	}
	add(0, "root %s ident %q", s.RootType, s.FileIdentifier)
	for _, t := range s.Tables {
		fs, err := fields(s, t)
		if err != nil {
			add(t.Line, "error: %v", err)
			continue
		}
		for i, f := range fs {
			what := kindWords[f.kind]
			switch {
			case f.size > 0:
				what += fmt.Sprintf(" of %d bytes", f.size)
			case f.ref != "":
				what += " of " + f.ref
			}
			if f.required {
				what += " (required)"
			}
			line := t.Line
			for _, sf := range t.Fields {
				if sf.Name == fs[i].name {
					line = sf.Line
				}
			}
			add(line, "field %s.%s slot %d: %s", t.Name, f.name, f.slot, what)
		}
	}
	for _, u := range s.Unions {
		for i, m := range u.Members {
			add(u.Line, "union %s member %d: %s", u.Name, i+1, m)
		}
	}
	var lines []string
	for l := range where {
		lines = append(lines, l)
	}
	sort.Slice(lines, func(i, j int) bool {
		if where[lines[i]] != where[lines[j]] {
			return where[lines[i]] < where[lines[j]]
		}
		return lines[i] < lines[j]
	})
	return lines, where
}

// varName is the Go variable holding the description of a schema whose
// root table is root: CUDAExecutableDef -> cudaExecutableDefSchema.
func varName(root string) string {
	n := 0
	for n < len(root) && root[n] >= 'A' && root[n] <= 'Z' {
		n++
	}
	if n > 1 && n < len(root) {
		n--
	}
	return strings.ToLower(root[:n]) + root[n:] + "Schema"
}

// render writes schemas_gen.go for the parsed schemas.
func render(schemas []*fbs.Schema) ([]byte, error) {
	var b strings.Builder
	b.WriteString("// Code generated by TestSchemasMatchFBS -update from the .fbs files in runtime/schemas; DO NOT EDIT.\n\npackage fbverify\n")
	for i, s := range schemas {
		index := map[string]int{}
		for j, t := range s.Tables {
			index[t.Name] = j
		}
		unionIndex := map[string]int{}
		for j, u := range s.Unions {
			unionIndex[u.Name] = j
		}
		fmt.Fprintf(&b, "\n// %s describes %s (namespace %s).\n", varName(s.RootType), schemaFiles[i].file, s.Namespace)
		fmt.Fprintf(&b, "var %s = &schemaDef{\n\tfile: %q, ident: %q, root: %d,\n\ttables: []tableDef{\n",
			varName(s.RootType), schemaFiles[i].file, s.FileIdentifier, index[s.RootType])
		for j, t := range s.Tables {
			fs, err := fields(s, t)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", schemaFiles[i].file, t.Line, err)
			}
			fmt.Fprintf(&b, "\t\t%d: {name: %q, fields: []fieldDef{\n", j, t.Name)
			for _, f := range fs {
				fmt.Fprintf(&b, "\t\t\t{name: %q, slot: %d, kind: %s", f.name, f.slot, f.kind)
				if f.size > 0 {
					fmt.Fprintf(&b, ", size: %d", f.size)
				}
				if f.kind == "kindUnion" {
					fmt.Fprintf(&b, ", ref: %d /* %s */", unionIndex[f.ref], f.ref)
				} else if f.ref != "" {
					fmt.Fprintf(&b, ", ref: %d /* %s */", index[f.ref], f.ref)
				}
				if f.required {
					b.WriteString(", required: true")
				}
				b.WriteString("},\n")
			}
			b.WriteString("\t\t}},\n")
		}
		b.WriteString("\t},\n")
		if len(s.Unions) > 0 {
			b.WriteString("\tunions: []unionDef{\n")
			for j, u := range s.Unions {
				var members []string
				for _, m := range u.Members {
					members = append(members, fmt.Sprintf("%d /* %s */", index[m], m))
				}
				fmt.Fprintf(&b, "\t\t%d: {name: %q, members: []int{%s}},\n", j, u.Name, strings.Join(members, ", "))
			}
			b.WriteString("\t},\n")
		}
		b.WriteString("}\n")
	}
	return format.Source([]byte(b.String()))
}
