package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCorruptModulesRefused runs every module under testdata/corrupt (the
// shapes of corrupt modules that once made the loader panic) through each
// --output and checks for one "[ERROR] loading ..." line naming the
// module and exit status 1, nothing on stdout.
func TestCorruptModulesRefused(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "corrupt", "*.vmfb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corrupt modules found: %v", err)
	}
	for _, p := range paths {
		for _, out := range []string{"all", "metadata", "flatbuffer-json"} {
			code, stdout, stderr := runTool(t, nil, "--output="+out, p)
			if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
				!strings.HasPrefix(stderr, "[ERROR] loading "+p+": ") || !strings.Contains(stderr, "INVALID_ARGUMENT; bad FlatBuffer: BytecodeModuleDef.") {
				t.Errorf("iree-dump-module --output=%s %s: exit %d, stdout %q, stderr %q", out, p, code, stdout, stderr)
			}
		}
	}
}
