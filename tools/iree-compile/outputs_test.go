package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/nodetest"
)

// idProgram has no dispatches, so it compiles without clang.
const idProgram = `func.func @id(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
`

// TestOutputToSpecialFiles runs iree-compile -o on a character device made
// like /dev/null (where mknod is permitted), on a FIFO with a reader and
// on a symbolic link to a regular file, and checks that each node is still
// there and of the same kind: -o writes a device or FIFO in place (as
// `-o /dev/null` must) and writes through a link to its target.
func TestOutputToSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "id.mlir")
	if err := os.WriteFile(src, []byte(idProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	compile := func(out string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run([]string{src, "--iree-hal-target-backends=llvm-cpu", "-o", out}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("iree-compile -o %s: exit %d: %s", out, code, stderr.String())
		}
	}
	dev := filepath.Join(dir, "null")
	if nodetest.CharDevice(t, dev) {
		compile(dev)
		nodetest.Check(t, dev, fs.ModeDevice|fs.ModeCharDevice)
	}

	fifo := filepath.Join(dir, "pipe")
	nodetest.FIFO(t, fifo)
	r := nodetest.Read(fifo)
	compile(fifo)
	got := r.Wait(t, fifo)
	if _, err := vm.LoadBytecodeModule(got); err != nil {
		t.Errorf("module read from the FIFO (%d bytes) does not load: %v", len(got), err)
	}
	nodetest.Check(t, fifo, fs.ModeNamedPipe)

	real := filepath.Join(dir, "real.vmfb")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.vmfb")
	if err := os.Symlink("real.vmfb", link); err != nil {
		t.Fatal(err)
	}
	compile(link)
	nodetest.Check(t, link, fs.ModeSymlink)
	data, _ := os.ReadFile(real)
	if _, err := vm.LoadBytecodeModule(data); err != nil {
		t.Errorf("the link's target does not hold the module: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
