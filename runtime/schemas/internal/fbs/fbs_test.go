package fbs

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	s, err := Parse("t.fbs", `// comment
namespace ns;
file_identifier "ABCD";
attribute "priority";
enum Flags:uint16 (bit_flags) { A, B }
enum Kind:byte { X = 3, Y }
struct Inner { a:ubyte; b:uint; }
struct Outer { c:short; i:Inner; d:double; }
table Leaf { s:string; }
union U { Leaf }
table Root {
  name:string (required);
  n:int = -1;
  /* block
     comment */
  u:U;
  v:[Outer];
  old:long (deprecated);
  kinds:[Kind];
  leaves:[Leaf];
  names:[string];
  f:Flags;
}
root_type Root;`)
	if err != nil {
		t.Fatal(err)
	}
	if s.Namespace != "ns" || s.FileIdentifier != "ABCD" || s.RootType != "Root" {
		t.Errorf("header: %+v", s)
	}
	in, out := s.Struct("Inner"), s.Struct("Outer")
	if in.Size != 8 || in.Align != 4 || out.Size != 24 || out.Align != 8 {
		t.Errorf("struct layout: Inner %d/%d Outer %d/%d, want 8/4 and 24/8", in.Size, in.Align, out.Size, out.Align)
	}
	if k := s.Enum("Kind"); k.Underlying != "int8" || k.Values[1].Value != 4 {
		t.Errorf("enum Kind: %+v", k)
	}
	var got []string
	for _, f := range s.Table("Root").Fields {
		got = append(got, f.Name+":"+f.Type.String()+":"+string(rune('0'+f.Slot)))
	}
	want := "name:string:0 n:int32:1 u:U:3 v:[Outer]:4 old:int64:5 kinds:[Kind]:6 leaves:[Leaf]:7 names:[string]:8 f:Flags:9"
	if strings.Join(got, " ") != want {
		t.Errorf("fields:\n%s\nwant:\n%s", strings.Join(got, " "), want)
	}
	r := s.Table("Root").Fields
	if !r[0].Required || r[1].Default != "-1" || !r[4].Deprecated {
		t.Errorf("attributes: %+v %+v %+v", r[0], r[1], r[4])
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"include \"x.fbs\";", `t.fbs:1: unsupported declaration "include"`},
		{"table T {\n a:int (id: 1);\n}", `t.fbs:2: field T.a: attribute "id" is not supported`},
		{"table T { a:Missing; }", "t.fbs:1: field T.a: unknown type Missing"},
		{"table L {}\nunion U { L }\ntable T { a:[U]; }", "t.fbs:3: field T.a: vectors of unions are not supported"},
		{"union U { S }\nstruct S { a:int; }", "t.fbs:1: union U: member S is not a table"},
		{"struct S { a:S; }", "t.fbs:1: struct S contains itself"},
		{"table T { a:[int:3]; }", "t.fbs:1: fixed-size arrays are not supported (field T.a)"},
		{"table T { a:int }", `t.fbs:1: expected ";", found "}"`},
		{"enum E:float { A }", "t.fbs:1: enum E: underlying type float is not an integer type"},
		{"table T { a:int; }\nroot_type X;", "t.fbs: root_type X is not a table"},
		{"table T { a:int; } /* open", "t.fbs:1: unterminated /* comment"},
	}
	for _, tt := range tests {
		_, err := Parse("t.fbs", tt.src)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q): %v, want %q", tt.src, err, tt.want)
		}
	}
}
