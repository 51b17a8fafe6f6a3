// Package guardtest holds the test the module-reading tools share: their
// fuzz corpora never reach the panic guard. It is apart from panicguard so
// that the tools do not link the testing package.
package guardtest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/goiree/goiree/tools/internal/panicguard"
)

// CheckCorpora is the test both module-reading tools run: every module the
// VM's fuzzers kept (runtime/vm/testdata/fuzz, found from a tool's package
// directory) and the tool's own testdata/corrupt modules go through run
// under the guard, with the arguments args gives for the module's path;
// each must end with a status of the tool's own, never panicguard.ExitCode. Where the
// runtime's corpus is not visible (under Bazel it is another module's
// data) the test is skipped with a message.
func CheckCorpora(t *testing.T, run func(args []string, stdout, stderr io.Writer) int, args func(module string) []string) {
	t.Helper()
	inputs := map[string][]byte{}
	for _, target := range []string{"FuzzLoadModule", "FuzzRunModule"} {
		dir := filepath.Join("..", "..", "runtime", "vm", "testdata", "fuzz", target)
		in, err := CorpusInputs(dir)
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
	path := filepath.Join(t.TempDir(), "m.vmfb")
	for name, b := range inputs {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		a := args(path)
		var stdout, stderr bytes.Buffer
		if code := panicguard.Run(a, &stderr, func() int { return run(a, &stdout, &stderr) }); code == panicguard.ExitCode {
			t.Errorf("%s reached the panic guard: %s", name, stderr.String())
		}
	}
}
