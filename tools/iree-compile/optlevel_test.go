package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOptLevels: --iree-opt-level, --iree-global-optimization-opt-level and
// --iree-opt-strip-assertions decide, as in IREE, whether the program's
// cf.assert survives global-optimization: stripped from O1 up, the
// global-optimization level overriding the general one, an explicit
// --iree-opt-strip-assertions overriding both.
func TestOptLevels(t *testing.T) {
	src := filepath.Join(t.TempDir(), "assert.mlir")
	prog := "util.func public @main(%0 : i1) {\n  cf.assert %0, \"assert\"\n  util.return\n}\n"
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags []string
		kept  bool
	}{
		{nil, true},
		{[]string{"--iree-opt-level=O0"}, true},
		{[]string{"--iree-opt-level=O1"}, false},
		{[]string{"--iree-opt-level=O2"}, false},
		{[]string{"--iree-global-optimization-opt-level=O2"}, false},
		{[]string{"--iree-opt-level=O2", "--iree-global-optimization-opt-level=O0"}, true},
		{[]string{"--iree-opt-level=O2", "--iree-opt-strip-assertions=false"}, true},
		{[]string{"--iree-global-optimization-opt-level=O2", "--iree-opt-strip-assertions=false"}, true},
		{[]string{"--iree-opt-strip-assertions"}, false},
		{[]string{"--iree-opt-strip-assertions=true"}, false},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"--compile-to=global-optimization", src}, c.flags...)
		if code := run(args, nil, &stdout, &stderr); code != 0 {
			t.Errorf("%v: exit %d: %s", c.flags, code, stderr.String())
			continue
		}
		out := stdout.String()
		if !strings.Contains(out, "util.func public @main") {
			t.Errorf("%v: no function in the output:\n%s", c.flags, out)
		}
		if got := strings.Contains(out, "cf.assert"); got != c.kept {
			t.Errorf("%v: cf.assert kept = %v, want %v:\n%s", c.flags, got, c.kept, out)
		}
	}
	for _, c := range []struct {
		flag, want string
	}{
		{"--iree-opt-level=O4", "unsupported --iree-opt-level=O4 (supported: O0, O1, O2, O3)"},
		{"--iree-global-optimization-opt-level=fast", "unsupported --iree-global-optimization-opt-level=fast (supported: O0, O1, O2, O3)"},
		{"--iree-opt-strip-assertions=maybe", `option '--iree-opt-strip-assertions' takes true or false, not "maybe"`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"--compile-to=global-optimization", src, c.flag}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), c.want) || stdout.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.flag, code, stdout.String(), stderr.String(), c.want)
		}
	}
}
