package main

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/goiree/goiree/tools/internal/nodetest"
)

// TestBenchmarkOutToSpecialFiles runs --benchmark_out on a character
// device made like /dev/null (where mknod is permitted) and on a FIFO with
// a reader, and checks that each node is still there and of the same kind:
// the report is written into it in place, never renamed over it.
func TestBenchmarkOutToSpecialFiles(t *testing.T) {
	demo := demoModule(t)
	dir := t.TempDir()
	bench := func(out string) {
		t.Helper()
		code, _, stderr := runTool(t, "", "--module="+demo, "--function=simple_mul", "--input=64xf32=2", "--input=64xf32=4",
			"--device=local-sync", "--benchmark_min_time=2x", "--benchmark_out="+out)
		if code != 0 {
			t.Fatalf("--benchmark_out=%s: exit %d: %s", out, code, stderr)
		}
	}
	dev := filepath.Join(dir, "null.json")
	if nodetest.CharDevice(t, dev) {
		bench(dev)
		nodetest.Check(t, dev, fs.ModeDevice|fs.ModeCharDevice)
	}
	fifo := filepath.Join(dir, "pipe.json")
	nodetest.FIFO(t, fifo)
	r := nodetest.Read(fifo)
	bench(fifo)
	var doc struct {
		Benchmarks []struct {
			Name string `json:"name"`
		} `json:"benchmarks"`
	}
	if got := r.Wait(t, fifo); json.Unmarshal(got, &doc) != nil || len(doc.Benchmarks) != 1 {
		t.Errorf("the FIFO's reader got %q, want the JSON report of one benchmark", got)
	}
	nodetest.Check(t, fifo, fs.ModeNamedPipe)
}
