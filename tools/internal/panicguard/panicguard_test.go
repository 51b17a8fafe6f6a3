package panicguard

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		run       func() int
		code      int
		line      string // the first line of stderr
		wantTrace bool
	}{
		{"no panic", []string{"--module=a.vmfb"}, func() int { return 3 }, 3, "", false},
		{"panic", []string{"--module=a.vmfb", "--function=f"}, func() int { panic("slice bounds out of range [12624:1156]") }, ExitCode,
			"[ERROR] internal error: slice bounds out of range [12624:1156] (module a.vmfb); this is a bug in the tool (rerun with -v=1 for Go's trace)", false},
		{"module flag with a separate value and a positional one", []string{"--module", "a.vmfb", "b.vmfb"}, func() int { panic("boom") }, ExitCode,
			"[ERROR] internal error: boom (modules a.vmfb, b.vmfb); this is a bug in the tool (rerun with -v=1 for Go's trace)", false},
		{"compiler input", []string{"prog.mlir", "-o", "out.vmfb"}, func() int { panic("boom") }, ExitCode,
			"[ERROR] internal error: boom (module prog.mlir); this is a bug in the tool (rerun with -v=1 for Go's trace)", false},
		{"no module", []string{"--help"}, func() int { panic("boom") }, ExitCode,
			"[ERROR] internal error: boom; this is a bug in the tool (rerun with -v=1 for Go's trace)", false},
		{"trace under -v", []string{"-v=1", "a.vmfb"}, func() int { panic("boom") }, ExitCode,
			"[ERROR] internal error: boom (module a.vmfb); this is a bug in the tool (rerun with -v=1 for Go's trace)", true},
		{"-v=0 is quiet", []string{"--v=0", "a.vmfb"}, func() int { panic("boom") }, ExitCode,
			"[ERROR] internal error: boom (module a.vmfb); this is a bug in the tool (rerun with -v=1 for Go's trace)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := Run(tc.args, &stderr, tc.run)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			first, rest, _ := strings.Cut(stderr.String(), "\n")
			if first != tc.line {
				t.Errorf("stderr line %q, want %q", first, tc.line)
			}
			if hasTrace := strings.Contains(rest, "goroutine "); hasTrace != tc.wantTrace {
				t.Errorf("trace printed: %v, want %v:\n%s", hasTrace, tc.wantTrace, rest)
			}
		})
	}
}
