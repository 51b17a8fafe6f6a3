package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCorruptModulesRefused runs every module under testdata/corrupt (the
// shapes of corrupt modules that once made the loader panic) and checks
// for one "[ERROR] loading module ..." line naming the module and exit
// status 1, nothing on stdout.
func TestCorruptModulesRefused(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "corrupt", "*.vmfb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corrupt modules found: %v", err)
	}
	for _, p := range paths {
		code, stdout, stderr := runTool(t, "", "--device=local-sync", "--module="+p, "--function=misc", "--input=1")
		if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.HasPrefix(stderr, "[ERROR] loading module "+p+": ") || !strings.Contains(stderr, "INVALID_ARGUMENT; bad FlatBuffer: BytecodeModuleDef.") {
			t.Errorf("iree-run-module --module=%s: exit %d, stdout %q, stderr %q", p, code, stdout, stderr)
		}
	}
}
