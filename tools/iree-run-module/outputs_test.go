package main

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/tools/internal/nodetest"
)

// idModule compiles a function returning its argument: no dispatches, so
// no clang is needed.
func idModule(t *testing.T) []byte {
	t.Helper()
	prog := []byte("func.func @id(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n")
	s, err := pipeline.Compile("id.mlir", prog, pipeline.Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets})
	if err != nil {
		t.Fatal(err)
	}
	return vmfb
}

// TestOutputToSpecialFiles runs iree-run-module with --output=@ and + on a
// character device made like /dev/null (where mknod is permitted) and on a
// FIFO with a reader, and checks that each node is still there and of the
// same kind: the result is written into it in place, never renamed over
// it.
func TestOutputToSpecialFiles(t *testing.T) {
	module := idModule(t)
	dir := t.TempDir()
	m := filepath.Join(dir, "id.vmfb")
	if err := os.WriteFile(m, module, 0o644); err != nil {
		t.Fatal(err)
	}
	runWith := func(spec string) {
		t.Helper()
		code, stdout, stderr := runTool(t, "", "--device=local-sync", "--module="+m, "--function=id", "--input=4xf32=1 2 3 4", "--output="+spec)
		if code != 0 || stdout != "EXEC @id\n" || stderr != "" {
			t.Fatalf("--output=%s: exit %d, stdout %q, stderr %q", spec, code, stdout, stderr)
		}
	}
	var want []byte
	for _, f := range []float32{1, 2, 3, 4} {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(f))
	}

	dev := filepath.Join(dir, "null.bin")
	if nodetest.CharDevice(t, dev) {
		for _, mode := range []string{"@", "+"} {
			runWith(mode + dev)
			nodetest.Check(t, dev, fs.ModeDevice|fs.ModeCharDevice)
		}
	}
	fifo := filepath.Join(dir, "pipe.bin")
	nodetest.FIFO(t, fifo)
	for _, mode := range []string{"@", "+"} {
		r := nodetest.Read(fifo)
		runWith(mode + fifo)
		if got := r.Wait(t, fifo); !bytes.Equal(got, want) {
			t.Errorf("--output=%s: the FIFO's reader got % x, want % x", mode+fifo, got, want)
		}
		nodetest.Check(t, fifo, fs.ModeNamedPipe)
	}
}
