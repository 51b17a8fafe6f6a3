package linker_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/linker"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func load(t *testing.T, reg *ir.Registry, name string) *linker.Library {
	t.Helper()
	path := filepath.Join("testdata", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := dialect.Parse(path, src, reg)
	if err != nil {
		t.Fatal(err)
	}
	return &linker.Library{Path: path, Module: m}
}

// golden compares text with testdata/name (go test -update rewrites it)
// and checks that the text parses and verifies again.
func golden(t *testing.T, reg *ir.Registry, name, text string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if text != string(want) {
		t.Errorf("output differs from %s (go test -update to accept):\n%s", path, text)
	}
	if _, err := dialect.Parse(name, []byte(text), reg); err != nil {
		t.Errorf("output does not parse back: %v", err)
	}
}

// TestLink links the program with three libraries: every declaration a
// library exports gets its definition, the dependencies come along
// renamed where they clash, and @missing.fn stays a declaration.
func TestLink(t *testing.T) {
	reg := dialect.NewRegistry()
	main := load(t, reg, "main.mlir")
	libs := []*linker.Library{load(t, reg, "norms.mlir"), load(t, reg, "clamp.mlir"), load(t, reg, "bounds.mlir")}
	if err := linker.Link(reg, main.Module, libs); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, main.Module.Op); err != nil {
		t.Fatalf("linked module does not verify: %v", err)
	}
	out := ir.PrintModule(main.Module, reg, ir.PrintOptions{})
	golden(t, reg, "linked.golden", out)
	for _, want := range []string{
		"util.func private @norms.l2(%x: tensor<8xf32>) -> tensor<8xf32> {",
		"util.func private @clamp(%x: f32) -> f32 {",
		"util.func private @missing.fn(%arg0: i32) -> i32\n",
		"util.call @scale_0() : () -> f32", // norms' private scale, renamed
		"util.call @norms.sum(%s)",         // another export of norms
		"util.call @bounds.unit(%x)",       // norms' own declaration, resolved
		"util.func private @bounds.unit(%x: f32) -> f32 {",
		"hal.executable.source private @square",
		"util.global private @eps",
		"arith.constant 10.0 : f32", // the program's own scale is kept
	} {
		if !strings.Contains(out, want) {
			t.Errorf("linked module lacks %q:\n%s", want, out)
		}
	}
	if got := strings.Count(out, "@scale_1"); got != 2 {
		t.Errorf("clamp's private @scale should be @scale_1 once defined and once called; found %d mentions:\n%s", got, out)
	}
}

func TestBundle(t *testing.T) {
	reg := dialect.NewRegistry()
	b, err := linker.Bundle(reg, []*linker.Library{load(t, reg, "norms.mlir"), load(t, reg, "clamp.mlir"), load(t, reg, "main.mlir")})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, reg, "bundle.golden", ir.PrintModule(b, reg, ir.PrintOptions{}))
}

func TestPublicFunctions(t *testing.T) {
	reg := dialect.NewRegistry()
	if got := strings.Join(linker.PublicFunctions(load(t, reg, "norms.mlir").Module.Op), " "); got != "sum l2" {
		t.Errorf("PublicFunctions(norms) = %s, want sum l2", got)
	}
}

func TestErrors(t *testing.T) {
	reg := dialect.NewRegistry()
	parse := func(name, src string) *linker.Library {
		m, err := dialect.Parse(name, []byte(src), reg)
		if err != nil {
			t.Fatal(err)
		}
		return &linker.Library{Path: name, Module: m}
	}
	lib := func(name string) *linker.Library {
		return parse(name, "util.func public @f(%x: i32) -> i32 {\n  util.return %x : i32\n}\n")
	}
	decl := func(sig string) *linker.Library { return parse("main.mlir", "util.func private @f"+sig+"\n") }
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"signature", func() error {
			return linker.Link(reg, decl("(%x: f32) -> f32").Module, []*linker.Library{lib("a.mlir")})
		},
			"main.mlir:1:1: @f is declared as (f32) -> f32 but a.mlir defines it as (i32) -> i32"},
		{"two exporters", func() error {
			return linker.Link(reg, decl("(%x: i32) -> i32").Module, []*linker.Library{lib("a.mlir"), lib("b.mlir")})
		},
			"b.mlir:1:1: @f is exported by both a.mlir and b.mlir"},
		{"bundle clash", func() error {
			_, err := linker.Bundle(reg, []*linker.Library{lib("a.mlir"), lib("b.mlir")})
			return err
		},
			"b.mlir:1:1: @f is defined by b.mlir and by an earlier module of the bundle"},
	} {
		err := c.run()
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
}
