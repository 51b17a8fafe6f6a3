package ir

import (
	"strings"
	"testing"
)

// These tests use an empty registry: everything is in the generic form.

func parsePrint(t *testing.T, src string) string {
	t.Helper()
	m, err := Parse("t.mlir", []byte(src), NewRegistry())
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := Verify(m.Op, NewRegistry()); err != nil {
		t.Fatalf("verify: %v", err)
	}
	return PrintModule(m, NewRegistry(), PrintOptions{})
}

func TestGenericRoundTrip(t *testing.T) {
	cases := []struct{ in, want string }{
		{`%0 = "t.c"() {value = 1 : i32} : () -> i32` + "\n", ""},
		{`%0:2 = "t.pair"() : () -> (i32, f32)` + "\n" + `"t.use"(%0#1, %0#0) : (f32, i32) -> ()` + "\n", ""},
		{`%a, %b = "t.pair"() : () -> (i32, f32)` + "\n" + `"t.use"(%b) : (f32) -> ()` + "\n", ""},
		// Forward reference across blocks of a CFG region.
		{`"t.func"() ({
^bb0(%x: i32):
  "t.br"()[^bb1] : () -> ()
^bb1:
  "t.use"(%x) : (i32) -> ()
}) : () -> ()
`, ""},
		{`"t.op"() : () -> () loc("file.mlir":3:4)` + "\n", ""},
		{`"t.op"() <{prop = 1 : i8}> : () -> ()` + "\n", `"t.op"() {prop = 1 : i8} : () -> ()` + "\n"},
		{`#alias = [1, 2]` + "\n" + `"t.op"() {a = #alias, b = [1, 2]} : () -> ()` + "\n",
			"#alias = [1, 2]\n" + `"t.op"() {a = #alias, b = #alias} : () -> ()` + "\n"},
		{`!t = tensor<?x4xf32>` + "\n" + `%0 = "t.op"() : () -> !t` + "\n", ""},
		// Strided memref layouts; a zero offset is left out.
		{`%0 = "t.op"() : () -> memref<?x?xf32, strided<[?, 1], offset: ?>>` + "\n", ""},
		{`%0 = "t.op"() : () -> memref<4x8xf32, strided<[16, 2], offset: 0>>` + "\n", `%0 = "t.op"() : () -> memref<4x8xf32, strided<[16, 2]>>` + "\n"},
		{`%0 = "t.op"() : () -> memref<2xi8, strided<[-1], offset: 1>, 3>` + "\n", ""},
	}
	for _, c := range cases {
		got := parsePrint(t, c.in)
		want := c.want
		if want == "" {
			want = c.in
		}
		if got != want {
			t.Errorf("round trip of\n%s\ngot\n%s\nwant\n%s", c.in, got, want)
		}
		if again := parsePrint(t, got); again != got {
			t.Errorf("second round trip differs:\n%s\n%s", got, again)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`"t.use"(%x) : (i32) -> ()`, "t.mlir:1:9: error: use of undeclared SSA value name '%x'"},
		{`%0 = "t.c"() : () -> (i32, i32)`, "t.mlir:1:6: error: operation defines 2 results but was provided 1 to bind"},
		{`%0 = "t.c"() : () -> i32` + "\n" + `"t.use"(%0#3) : (i32) -> ()`, "t.mlir:2:9: error: result number 3 out of range: '%0' has 1 results"},
		{`"t.br"()[^nowhere] : () -> ()`, "t.mlir:1:10: error: reference to an undefined block '^nowhere'"},
		{`"t.op"() ({` + "\n" + `^bb0:` + "\n" + `^bb0:` + "\n" + `}) : () -> ()`, "t.mlir:3:1: error: redefinition of block '^bb0'"},
		{`"t.op"() {a = 1, a = 2} : () -> ()`, "t.mlir:1:18: error: duplicate key 'a' in dictionary attribute"},
		{`"t.op"() : () -> tensor<4x?>`, "t.mlir:1:28: error: expected 'x' in dimension list"},
		{`"t.op"() {a = "unterminated} : () -> ()`, "t.mlir:1:15: error: expected '\"' in string literal"},
		{"\x01", "t.mlir:1:1: error: unexpected character '\\x01'"},
		{`"noDialect"() : () -> ()`, `t.mlir:1:1: error: operation name "noDialect" must be of the form 'dialect.op'`},
		{`"t.op"() {m = affine_map<(d0) -> (d0 floordiv d0)>} : () -> ()`, "t.mlir:1:49: error: non-affine expression: right operand of floordiv must be a constant or symbol"},
		{`"t.region"() ({` + "\n" + `  "t.use"(%later) : (i32) -> ()` + "\n" + `  %later = "t.def"() : () -> i32` + "\n" + `}) : () -> ()`, ""},
	}
	for _, c := range cases {
		if c.want == "" {
			// Parses (forward reference) but fails dominance.
			m, err := Parse("t.mlir", []byte(c.in), NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(m.Op, NewRegistry()); err == nil || err.Error() != "t.mlir:2:3: error: 't.use' op operand #0 ('%later') does not dominate this use" {
				t.Errorf("Verify = %v", err)
			}
			continue
		}
		_, err := Parse("t.mlir", []byte(c.in), NewRegistry())
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) error = %v\nwant %s", c.in, err, c.want)
		}
	}
}

func TestNestingLimit(t *testing.T) {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	_, err := Parse("t.mlir", []byte(`"t.op"() {a = `+deep+`} : () -> ()`), NewRegistry())
	if err == nil || !strings.Contains(err.Error(), "nesting too deep") {
		t.Fatalf("deep nesting error = %v", err)
	}
	regions := strings.Repeat(`"t.op"() ({`, 5000) + strings.Repeat(`}) : () -> ()`, 5000)
	if _, err := Parse("t.mlir", []byte(regions), NewRegistry()); err == nil || !strings.Contains(err.Error(), "nesting too deep") {
		t.Fatalf("deep region error = %v", err)
	}
}

func TestDominance(t *testing.T) {
	reg := NewRegistry()
	m, err := Parse("t.mlir", []byte(`"t.a"() ({
  %0 = "t.def"() : () -> i32
}) : () -> ()
"t.b"() ({
  %1 = "t.def"() : () -> i32
}) : () -> ()
`), reg)
	if err != nil {
		t.Fatal(err)
	}
	// Make t.b's op use t.a's value, which is not visible there.
	a := m.Op.Body().Ops[0].Regions[0].Blocks[0].Ops[0].Results[0]
	use := NewOp("t.use", []*Value{a}, nil, nil)
	use.Pos = Pos{File: "t.mlir", Line: 5, Col: 3}
	m.Op.Body().Ops[1].Regions[0].Blocks[0].Append(use)
	if err := Verify(m.Op, reg); err == nil || err.Error() != "t.mlir:5:3: error: 't.use' op operand #0 ('%0') does not dominate this use" {
		t.Fatalf("Verify = %v", err)
	}
}

func TestFormatDiagnostic(t *testing.T) {
	src := []byte("line one\n\tfoo bar\n")
	got := FormatDiagnostic(Errorf(Pos{File: "f.mlir", Line: 2, Col: 6}, "bad thing"), "f.mlir", src)
	want := "f.mlir:2:6: error: bad thing\n\tfoo bar\n\t    ^\n"
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestCFGDominance(t *testing.T) {
	diamond := func(use string) string {
		return `"t.func"() ({
  %c = "t.c"() : () -> i1
  "t.cond_br"(%c)[^then, ^else] : (i1) -> ()
^then:
  %x = "t.def"() : () -> i32
  "t.br"()[^merge] : () -> ()
^else:
  "t.br"()[^merge] : () -> ()
^merge:
  "t.use"(` + use + `) : (i1) -> ()
}) : () -> ()
`
	}
	reg := NewRegistry()
	// %c from the entry block dominates every block.
	m, err := Parse("t.mlir", []byte(diamond("%c")), reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(m.Op, reg); err != nil {
		t.Errorf("entry value in merge block: %v", err)
	}
	// %x from one branch does not dominate the merge block.
	src := strings.Replace(diamond("%x"), "(i1) -> ()\n}", "(i32) -> ()\n}", 1)
	m, err = Parse("t.mlir", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(m.Op, reg); err == nil || err.Error() != "t.mlir:10:3: error: 't.use' op operand #0 ('%x') does not dominate this use" {
		t.Errorf("branch value in merge block: %v", err)
	}
}
