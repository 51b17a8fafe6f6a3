package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	_ "github.com/goiree/goiree/compiler/target/all" // the targets the program names
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
)

// compileGPU compiles testdata/gpu_kernels.mlir and writes the
// module to a temporary file; without its cuda device targets when
// backends are given, so that the targets come from those.
func compileGPU(t *testing.T, backends ...string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "gpu_kernels.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	var opts pipeline.Options
	if len(backends) > 0 {
		src = bytes.Replace(src, []byte(" attributes {hal.device.targets = [#gpu]}"), nil, 1)
		opts.Targets = transforms.TargetOptions{Backends: backends}
	}
	s, err := pipeline.Compile("gpu_kernels.mlir", src, opts, "end")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gpu.vmfb")
	if err := os.WriteFile(path, s.Output, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// payloadSizes matches the byte and word counts of payloads, which follow
// the code generators (and, for SPIR-V, the installed glslc) rather than
// this tool.
var payloadSizes = regexp.MustCompile(`(fb, |x86_64, |PTX \(sm_\d+\): |SPIR-V: |segment bytes: )\d+`)

// TestGPUExecutableConfigs dumps the executables of a matmul and a
// softmax compiled for cuda (sm_52 and sm_80 images) and vulkan-spirv:
// each entry point lists the configuration recorded for it, per
// architecture for cuda.
func TestGPUExecutableConfigs(t *testing.T) {
	cudaPath := compileGPU(t)
	code, out, stderr := runTool(t, nil, "--output=executables", cudaPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkGolden(t, "gpu_kernels.cuda.txt", payloadSizes.ReplaceAllString(out, "${1}N"))
	if _, err := (vulkan.Options{}).FindGlslc(); err != nil {
		t.Skipf("skipping vulkan-spirv: %v", err)
	}
	vkPath := compileGPU(t, "vulkan-spirv")
	code, out, stderr = runTool(t, nil, "--output=executables", vkPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkGolden(t, "gpu_kernels.vulkan.txt", payloadSizes.ReplaceAllString(out, "${1}N"))
}

// TestCPUExecutableConfigs dumps the same programs compiled for llvm-cpu
// (an f16 matmul, which the packed f32 micro-kernel does not take, so a
// plain loop nest): the configurations come from each library's
// configuration section, under the entries the loaded export table
// names.
func TestCPUExecutableConfigs(t *testing.T) {
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	path := compileGPU(t, "llvm-cpu")
	code, out, stderr := runTool(t, nil, "--output=executables", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkGolden(t, "gpu_kernels.llvm-cpu.txt", payloadSizes.ReplaceAllString(out, "${1}N"))
	// Without loading, the configurations are notes.
	_, out, _ = runTool(t, nil, "--output=executables", "--load_executables=false", path)
	if !strings.Contains(out, "  config of matmul_linalg_0: #iree_codegen.translation_info<pipeline = CPUDefault workgroup_size = [1, 1, 1]>") {
		t.Errorf("--load_executables=false dump lacks the matmul's configuration:\n%s", out)
	}
}
