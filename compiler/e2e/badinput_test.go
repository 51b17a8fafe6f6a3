package e2e_test

import (
	"strings"
	"testing"

	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
)

// TestShortOperandRejected is the regression test for a buffer shorter
// than its dispatch declares: mixed_invocation takes the length of its
// first input for both, and a 4-element second input used to be read past
// its end by the kernel (printing 96 96 96 96 0 0 0 0). Operands are now
// bound with their declared byte length, so the command buffer's range
// check rejects the dispatch before any kernel runs.
func TestShortOperandRejected(t *testing.T) {
	clang := tools(t)
	dir := t.TempDir()
	buildKernels(t, clang, dir)
	for _, file := range []string{"cpu_hal.mlir", "cpu_stream.mlir"} {
		module, err := compile(file, []string{dir})
		if err != nil {
			t.Fatalf("compiling %s: %v", file, err)
		}
		dev, err := localsync.NewDevice()
		if err != nil {
			t.Fatal(err)
		}
		out, err := tryRun(dev, module, "mixed_invocation", "8xf32=2", "4xf32=4")
		dev.Close()
		const want = "binding 1 range [0, 32) exceeds buffer of 16 bytes"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: 8 and 4 elements: got %q, %v; want an error containing %q", file, out, err, want)
		}
	}
}
