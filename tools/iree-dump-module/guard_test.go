package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goiree/goiree/tools/internal/panicguard"
)

// TestFuzzCorporaNeverReachTheGuard loads and dumps every module the VM's
// fuzzers kept (runtime/vm/testdata/fuzz) and the corrupt modules of
// testdata/corrupt: each must fail or succeed with a status, never by the
// panic guard's exit code.
func TestFuzzCorporaNeverReachTheGuard(t *testing.T) {
	inputs := map[string][]byte{}
	for _, target := range []string{"FuzzLoadModule", "FuzzRunModule"} {
		dir := filepath.Join("..", "..", "runtime", "vm", "testdata", "fuzz", target)
		in, err := panicguard.CorpusInputs(dir)
		if os.IsNotExist(err) {
			t.Skipf("skipping: %s is not visible here (under Bazel it is another package's data)", dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range in {
			inputs[target+"/"+name] = b
		}
	}
	corrupt, _ := filepath.Glob(filepath.Join("testdata", "corrupt", "*.vmfb"))
	for _, p := range corrupt {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs[p] = b
	}
	if len(inputs) == 0 {
		t.Fatal("no corpus inputs found")
	}
	dir := t.TempDir()
	for name, b := range inputs {
		path := filepath.Join(dir, "m.vmfb")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"--output=all", path}
		var stdout, stderr bytes.Buffer
		code := panicguard.Run(args, &stderr, func() int { return run(args, nil, &stdout, &stderr) })
		if code == panicguard.ExitCode {
			t.Errorf("%s reached the panic guard: %s", name, stderr.String())
		}
	}
}
