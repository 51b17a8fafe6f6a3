package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
)

// TestCPUGroups runs the row groups of testdata/gpu_groups.mlir on the
// CPU devices (testGroups: softmaxes, a layer norm and an in-order
// reduction against Go loops), after checking that llvm-cpu forms each
// function as one dispatch, a row group. On the CPU a workgroup owns many
// rows (70000 x 5: 1094 a workgroup).
func TestCPUGroups(t *testing.T) {
	if gpuMode != "" {
		t.Skip("TestGPUGroups runs these on GPU targets")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "gpu_groups.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("gpu_groups.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"llvm-cpu"}}}, "flow")
	if err != nil {
		t.Fatal(err)
	}
	text := s.Print()
	count := map[string]int{}
	for _, m := range regexp.MustCompile(`flow\.dispatch @(\w+)_linalg_\d+::`).FindAllStringSubmatch(text, -1) {
		count[m[1]]++
	}
	for _, fn := range groupFuncs {
		if count[fn] != 1 {
			t.Errorf("@%s: %d dispatches, want 1 (all: %v)", fn, count[fn], count)
		}
	}
	if n := strings.Count(text, "goiree.loop_group ="); n != len(groupFuncs) {
		t.Errorf("%d row groups, want %d", n, len(groupFuncs))
	}
	module := compileLinalg(t, "gpu_groups.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) { testGroups(t, dev, module) })
}
