package fbverify

import (
	_ "embed"
	"fmt"
)

// CheckedInGen is schemas_gen.go as checked in, for the external test that
// regenerates it from the .fbs files.
//
//go:embed schemas_gen.go
var CheckedInGen string

// SchemaFields lists what the verifier knows of the schema whose root
// table is root, one line per table field and union member, in the form
// schemaLines of the external tests writes for a parsed .fbs file.
func SchemaFields(root string) []string {
	for _, s := range []*schemaDef{bytecodeModuleDefSchema, cudaExecutableDefSchema, spirVExecutableDefSchema} {
		if s.tables[s.root].name != root {
			continue
		}
		lines := []string{fmt.Sprintf("root %s ident %q", root, s.ident)}
		for _, t := range s.tables {
			for _, f := range t.fields {
				what := kindNames[f.kind]
				switch f.kind {
				case kindInline, kindInlineVector:
					what += fmt.Sprintf(" of %d bytes", f.size)
				case kindTable, kindTableVector:
					what += " of " + s.tables[f.ref].name
				case kindUnion:
					what += " of " + s.unions[f.ref].name
				}
				if f.required {
					what += " (required)"
				}
				lines = append(lines, fmt.Sprintf("field %s.%s slot %d: %s", t.name, f.name, f.slot, what))
			}
		}
		for _, u := range s.unions {
			for i, m := range u.members {
				lines = append(lines, fmt.Sprintf("union %s member %d: %s", u.name, i+1, s.tables[m].name))
			}
		}
		return lines
	}
	return nil
}

var kindNames = map[fieldKind]string{
	kindInline:       "inline",
	kindString:       "string",
	kindTable:        "table",
	kindUnion:        "union",
	kindInlineVector: "vector",
	kindStringVector: "vector of strings",
	kindTableVector:  "vector of tables",
}
