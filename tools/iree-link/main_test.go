package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	program = `util.func private @lib.twice(%x: i32) -> i32
util.func public @main(%x: i32) -> i32 {
  %0 = util.call @lib.twice(%x) : (i32) -> i32
  util.return %0 : i32
}
`
	library = `module @lib {
  util.func private @two() -> i32 {
    %c = arith.constant 2 : i32
    util.return %c : i32
  }
  util.func public @twice(%x: i32) -> i32 {
    %t = util.call @two() : () -> i32
    %r = arith.muli %x, %t : i32
    util.return %r : i32
  }
}
`
)

// files writes name → text into a temporary directory.
func files(t *testing.T, kv ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < len(kv); i += 2 {
		if err := os.WriteFile(filepath.Join(dir, kv[i]), []byte(kv[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runTool(stdin string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestLinkModes(t *testing.T) {
	dir := files(t, "main.mlir", program, "lib.mlir", library)
	main, lib := filepath.Join(dir, "main.mlir"), filepath.Join(dir, "lib.mlir")
	linked := []string{
		"util.func private @lib.twice(%x: i32) -> i32 {",
		"util.call @two() : () -> i32",
		"util.func private @two() -> i32 {",
		"util.func public @main(%x: i32) -> i32 {",
	}
	out := filepath.Join(dir, "out.mlir")
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		want  []string
	}{
		{"link, file after the flags", "", []string{"--link-module=" + lib, main}, linked},
		{"link, file first and -o", "", []string{main, "--link-module", lib, "-o", out}, nil},
		{"stdin", program, []string{"--link-module=" + lib, "-"}, linked},
		{"library path", "", []string{"--library-path=" + dir, main}, linked},
		{"list symbols", "", []string{"--list-symbols", lib}, []string{"Public symbols in " + lib + ":\n  @twice\n"}},
		{"bundle", "", []string{"--bundle", "--link-module=" + lib, "--link-module=" + main}, []string{
			"module {\n  module @lib {", "  util.func private @lib.twice(%arg0: i32) -> i32\n", "  util.func public @main(%x: i32) -> i32 {"}},
	} {
		code, stdout, stderr := runTool(c.stdin, c.args...)
		if code != 0 || stderr != "" {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, stderr)
			continue
		}
		if c.want == nil {
			b, err := os.ReadFile(out)
			if err != nil || stdout != "" {
				t.Errorf("%s: stdout %q, reading %s: %v", c.name, stdout, out, err)
			}
			stdout, c.want = string(b), linked
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, stdout)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	dir := files(t, "main.mlir", program, "lib.mlir", library, "bad.mlir", "module @lib {\n  util.func public @twice(%x: i32) -> i32 {\n    util.return %y : i32\n  }\n}\n",
		"wrong.mlir", "module @other {\n}\n", "sig.mlir", strings.ReplaceAll(library, "i32", "i64"))
	main := filepath.Join(dir, "main.mlir")
	out := filepath.Join(dir, "keep.mlir")
	if err := os.WriteFile(out, []byte("unchanged"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing module", []string{"--link-module=" + filepath.Join(dir, "nope.mlir"), main}, "reading " + filepath.Join(dir, "nope.mlir")},
		{"parse error", []string{"--link-module=" + filepath.Join(dir, "bad.mlir"), main, "-o", out}, filepath.Join(dir, "bad.mlir") + ":3:17: error: use of undeclared SSA value name '%y'"},
		{"signature", []string{"--link-module=" + filepath.Join(dir, "sig.mlir"), main, "-o", out}, "@lib.twice is declared as (i32) -> i32 but " + filepath.Join(dir, "sig.mlir") + " defines it as (i64) -> i64"},
		{"bytecode", []string{"--link-module=" + filepath.Join(dir, "lib.mlir"), main, "-o", filepath.Join(dir, "x.mlirbc")}, "MLIR bytecode output is not supported"},
		{"two inputs", []string{main, main}, "expected one input file, got 2"},
		{"bundle with input", []string{"--bundle", main}, "--bundle takes its modules from --link-module"},
		{"unknown flag", []string{"--link-modules=x", main}, "did you mean --link-module?"},
		{"discovered module misnamed", []string{"--library-path=" + filepath.Join(dir, "sub"), main}, ""},
	} {
		if c.name == "discovered module misnamed" {
			sub := filepath.Join(dir, "sub")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, "lib.mlir"), []byte("module @other {\n}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c.want = filepath.Join(sub, "lib.mlir") + ": expected module @lib (the input declares @lib.twice), found module @other"
		}
		code, stdout, stderr := runTool("", c.args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", c.name, code, stdout, stderr, c.want)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "unchanged" {
		t.Errorf("a failed link changed %s: %q", out, b)
	}
}
