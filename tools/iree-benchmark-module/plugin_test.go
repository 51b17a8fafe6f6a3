package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/runtime/hal/local/plugin/plugintest"
)

// pluginProgram dispatches one workgroup whose kernel, scale_add, comes
// from an executable plugin (plugintest's scale_add plugins).
const pluginProgram = `
module @bench_plugin {
  stream.executable private @exe {
    stream.executable.export public @tile workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func private @scale_add(%tag: i32, %a: memref<f32>, %b: memref<f32>, %out: memref<f32>,
                                   %offset: index, %count: index, %k: f32) attributes {
        hal.import.fields = ["processor_id", "processor_data"], llvm.bareptr = true}
      func.func @tile(%a: !stream.binding, %b: !stream.binding, %out: !stream.binding) {
        %c0 = arith.constant 0 : index
        %c16 = arith.constant 16 : index
        %tag = arith.constant 1234 : i32
        %k = arith.constant 2.0 : f32
        %ma = stream.binding.subspan %a[%c0] : !stream.binding -> memref<16xf32>
        %mb = stream.binding.subspan %b[%c0] : !stream.binding -> memref<16xf32>
        %mo = stream.binding.subspan %out[%c0] : !stream.binding -> memref<16xf32>
        %ba, %oa, %sa, %ta = iree_codegen.extract_strided_metadata %ma : memref<16xf32> -> memref<f32>, index, index, index
        %bb, %ob, %sb, %tb = iree_codegen.extract_strided_metadata %mb : memref<16xf32> -> memref<f32>, index, index, index
        %bo, %oo, %so, %to = iree_codegen.extract_strided_metadata %mo : memref<16xf32> -> memref<f32>, index, index, index
        func.call @scale_add(%tag, %ba, %bb, %bo, %c0, %c16, %k)
            : (i32, memref<f32>, memref<f32>, memref<f32>, index, index, f32) -> ()
        return
      }
    }
  }
  func.func @scale_add(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
    %0 = flow.dispatch @exe::@tile(%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}
`

// TestExecutablePlugin benchmarks a function whose kernel comes from a
// standalone and then a system plugin, and checks the error for a plugin
// file that is not an ELF.
func TestExecutablePlugin(t *testing.T) {
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v (clang-16 compiles CPU executables)", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v (ld.lld-16 links CPU executables)", err)
	}
	s, err := pipeline.Compile("bench_plugin.mlir", []byte(pluginProgram), pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"llvm-cpu"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets, LLVMCPU: llvmcpu.Options{Objects: s.Resolver}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	module := filepath.Join(dir, "plugin.vmfb")
	if err := os.WriteFile(module, vmfb, 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "plugin.log")
	t.Setenv("GOIREE_TEST_PLUGIN_LOG", log)
	args := []string{"--module=" + module, "--function=scale_add", "--input=16xf32=1", "--input=16xf32=2", "--benchmark_min_time=3x"}
	for _, p := range []string{plugintest.BuildStandalone(t, "scale_add_standalone.c"), plugintest.BuildSystem(t, "scale_add_system.c")} {
		code, stdout, stderr := runTool(t, "", append(args, "--executable_plugin="+p)...)
		if code != 0 || !strings.Contains(stdout, "BM_scale_add/process_time/real_time") {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", p, code, stdout, stderr)
		}
	}
	// Only the system plugin logs: one line per call, at least the three
	// measured ones.
	logged, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(logged), "scale_add offset=0 n=16 k=2\n"); n < 3 {
		t.Errorf("system plugin logged %d calls, want at least 3:\n%s", n, logged)
	}
	code, stdout, stderr := runTool(t, "", append(args, "--executable_plugin="+module)...)
	want := "[ERROR] INVALID_ARGUMENT; executable plugin " + module + ": not an ELF file"
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("not an ELF: exit %d, stdout %q, stderr %q; want one line starting %q", code, stdout, stderr, want)
	}
}
