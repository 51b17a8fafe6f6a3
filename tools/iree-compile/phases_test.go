package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
)

// lookTool returns the first of names on PATH, or "".
func lookTool(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// phaseProgram is a program compiled phase by phase: its source (relative
// to this package), the flags it is compiled with and the kernel objects
// it needs, built into the working directory by setup.
type phaseProgram struct {
	name  string
	src   string
	args  []string
	setup func(t *testing.T, srcDir string)
}

// cpuObjects builds C kernels for the embedded ELF targets of archs.
func cpuObjects(c, out string, archs ...string) func(*testing.T, string) {
	return func(t *testing.T, srcDir string) {
		clang := lookTool("clang-16", "clang")
		if clang == "" {
			t.Skip("clang-16 not found on PATH; CPU objects cannot be built")
		}
		triples := map[string]string{"x86_64": "x86_64-unknown-unknown-eabi-elf", "arm_64": "aarch64-unknown-unknown-eabi-elf", "aarch64": "aarch64-unknown-unknown-eabi-elf"}
		for _, a := range archs {
			cmd := exec.Command(clang, "-target", triples[a], "-std=c17", "-ffreestanding", "-fvisibility=hidden", "-fno-plt",
				"-ffunction-sections", "-fdata-sections", "-O2", "-c", filepath.Join(srcDir, c), "-o", out+"_"+a+".o")
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("clang: %v\n%s", err, msg)
			}
		}
	}
}

// copyFiles copies kernel sources next to the program.
func copyFiles(names ...string) func(*testing.T, string) {
	return func(t *testing.T, srcDir string) {
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(srcDir, n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Base(n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// spirvShaders compiles the sample's GLSL shaders with glslc.
func spirvShaders(t *testing.T, srcDir string) {
	glslc := lookTool("glslc")
	if glslc == "" {
		t.Skip("glslc not found on PATH")
	}
	for _, n := range []string{"simple_mul", "simple_mul_inplace"} {
		cmd := exec.Command(glslc, "-fshader-stage=compute", filepath.Join(srcDir, n+".glsl"), "-o", n+".spv")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("glslc: %v\n%s", err, msg)
		}
	}
}

// cudaPTX compiles the sample's kernels.cu to PTX for its three
// architectures with clang, as the iree_cuda_ptx rule does (no CUDA
// toolkit needed).
func cudaPTX(t *testing.T, srcDir string) {
	clang := lookTool("clang-16", "clang")
	if clang == "" {
		t.Skip("clang-16 not found on PATH")
	}
	prelude := filepath.Join(srcDir, "../../../../build_tools/bazel/cuda_prelude.h")
	for _, arch := range []string{"sm_52", "sm_80", "sm_90"} {
		cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch="+arch,
			"-O2", "-S", "-Wno-unknown-cuda-version", "-include", prelude,
			"-include", "__clang_cuda_builtin_vars.h", filepath.Join(srcDir, "kernels.cu"), "-o", "kernels_"+arch+".ptx")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("clang cannot compile CUDA here: %v\n%s", err, msg)
		}
	}
}

// phasePrograms are IREE-shaped programs: the custom-dispatch samples
// (CPU objects, CPU kernel sources, Vulkan SPIR-V, CUDA PTX), programs
// calling executable-plugin imports, and this package's test programs.
var phasePrograms = []phaseProgram{
	{"cpu-embedded-hal", "../../samples/custom_dispatch/cpu/embedded/example_hal.mlir",
		[]string{"--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"},
		cpuObjects("functions.c", "functions", "x86_64")},
	{"cpu-embedded-stream", "../../samples/custom_dispatch/cpu/embedded/example_stream.mlir", nil,
		cpuObjects("functions.c", "functions", "x86_64", "arm_64")},
	{"cpu-plain-c", "../../samples/custom_dispatch/cpu/plain_c/example.mlir", nil,
		cpuObjects("kernels.c", "kernels", "x86_64")},
	{"cpu-plain-c-inline", "../../samples/custom_dispatch/cpu/plain_c/example_inline.mlir", nil,
		copyFiles("kernels.c")},
	{"cpu-plugin-scale-add", "../iree-run-module/testdata/plugin/scale_add.mlir", []string{"--iree-hal-target-backends=llvm-cpu"}, nil},
	{"cpu-plugin-ukernel", "../iree-run-module/testdata/plugin/ukernel.mlir", []string{"--iree-hal-target-backends=llvm-cpu"}, nil},
	{"vulkan", "../../samples/custom_dispatch/vulkan/shaders/example.mlir", nil, spirvShaders},
	{"vulkan-inline", "../../samples/custom_dispatch/vulkan/shaders/example_inline.mlir", []string{"--iree-hal-target-device=vulkan"}, spirvShaders},
	{"cuda", "../../samples/custom_dispatch/cuda/kernels/example.mlir", nil, cudaPTX},
	{"cuda-inline", "../../samples/custom_dispatch/cuda/kernels/example_inline.mlir", []string{"--iree-hal-target-device=cuda"}, cudaPTX},
	{"testdata-stream-head", "testdata/cpu_stream_head.mlir", nil, cpuObjects("functions.c", "functions", "x86_64", "arm_64")},
	{"testdata-stream-seed", "testdata/cpu_stream_seed.mlir", nil, cpuObjects("functions.c", "functions", "x86_64", "arm_64", "aarch64")},
}

// resumablePhases are the phases whose printed IR can be compiled on.
func resumablePhases() []string {
	out := []string{"start"}
	for _, p := range pipeline.Phases {
		if pipeline.Resumable(p) {
			out = append(out, p)
		}
	}
	return out
}

// TestCompileToFromSameBytes stops every program after each phase
// (--compile-to with --mlir-print-debuginfo), resumes from the printed IR
// (--compile-from) and requires the module bytes of a straight compile:
// the IR at every phase boundary round-trips through the parser and holds
// everything the later phases need.
func TestCompileToFromSameBytes(t *testing.T) {
	for _, p := range phasePrograms {
		t.Run(p.name, func(t *testing.T) {
			src, err := filepath.Abs(p.src)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := os.ReadFile(src)
			if err != nil {
				t.Skipf("program not present: %v", err)
			}
			t.Chdir(t.TempDir())
			if p.setup != nil {
				p.setup(t, filepath.Dir(src))
			}
			if err := os.WriteFile("in.mlir", prog, 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"--iree-hal-executable-object-search-path=.", "--iree-hal-kernel-cache-dir=cache"}, p.args...)
			compile := func(extra ...string) []byte {
				t.Helper()
				var stdout, stderr bytes.Buffer
				all := append(append([]string(nil), args...), extra...)
				if code := run(all, nil, &stdout, &stderr); code != 0 {
					t.Fatalf("iree-compile %s: exit %d: %s", strings.Join(all, " "), code, stderr.String())
				}
				out, err := os.ReadFile(extra[len(extra)-1])
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			want := compile("in.mlir", "-o", "straight.vmfb")
			for _, phase := range resumablePhases() {
				ir := compile("in.mlir", "--compile-to="+phase, "--mlir-print-debuginfo", "-o", phase+".mlir")
				if len(ir) == 0 {
					t.Errorf("--compile-to=%s printed nothing", phase)
				}
				got := compile(phase+".mlir", "--compile-from="+phase, "-o", phase+".vmfb")
				if !bytes.Equal(got, want) {
					t.Errorf("--compile-to=%s then --compile-from=%s: %d bytes differ from the straight compile's %d", phase, phase, len(got), len(want))
				}
			}
		})
	}
}

// TestPassInstrumentation checks --mlir-print-ir-before-all,
// --mlir-print-ir-after-all and --mlir-timing: one dump per pass on stderr
// in pass-table order, naming the pass, and a timing row per pass; the
// output file is what it is without them.
func TestPassInstrumentation(t *testing.T) {
	t.Chdir(t.TempDir())
	prog := "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  return %0 : i32\n}\n"
	if err := os.WriteFile("in.mlir", []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	var plain, plainErr bytes.Buffer
	if code := run([]string{"in.mlir", "--compile-to=flow"}, nil, &plain, &plainErr); code != 0 {
		t.Fatalf("exit %d: %s", code, plainErr.String())
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"in.mlir", "--compile-to=flow", "--mlir-print-ir-after-all", "--mlir-print-ir-before-all", "--mlir-timing"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stdout.String() != plain.String() {
		t.Errorf("instrumented output differs:\n%s\nwant:\n%s", stdout.String(), plain.String())
	}
	log := stderr.String()
	var want []string
	for _, p := range pipeline.Passes {
		if i, _ := pipeline.PhaseIndex(p.Phase); i > 5 { // after flow
			break
		}
		want = append(want, p.Name)
	}
	if strings.Join(want, ",") != "verify-input,drop-encodings,convert-ml-program-to-util,convert-tosa-to-linalg,convert-stablehlo-to-linalg,fold-global-addresses,assign-targets,strip-assertions,convert-scf-to-cf,convert-linalg-ext,inline-structured-dispatch-regions,unpack-packed-storage,convert-tensor-ops,decompose-softmax,form-linalg-dispatches,outline-dispatch-regions,outline-dispatch-externs,deduplicate-executables,verify-flow" {
		t.Fatalf("passes through flow: %v", want)
	}
	pos := 0
	for _, name := range want {
		for _, kind := range []string{"Before", "After"} {
			header := "// -----// IR Dump " + kind + " " + camel(name) + " (" + name + ") //----- //\n" + plain.String()
			i := strings.Index(log[pos:], header)
			if i < 0 {
				t.Fatalf("no %q dump of %s (in order) in:\n%s", kind, name, log)
			}
			pos += i + len(header)
		}
	}
	if !strings.Contains(log, "... Execution time report ...") || !strings.Contains(log, "Total Execution Time:") {
		t.Errorf("no timing report in:\n%s", log)
	}
	for _, name := range append([]string{"Parser", "Total"}, want...) {
		if !strings.Contains(log, "%)  "+name+"\n") {
			t.Errorf("timing report has no row for %s:\n%s", name, log)
		}
	}
	if strings.Contains(log, "materialize-executable-sources") {
		t.Errorf("a pass after --compile-to=flow ran:\n%s", log)
	}
}

// TestCompileFromErrors checks the phases --compile-from refuses.
func TestCompileFromErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--compile-from=vm", "in.mlir"}, "iree-compile: error: --compile-from=vm: the vm phase produces a bytecode module, not IR; resume from hal or an earlier phase\n"},
		{[]string{"--compile-from=end", "in.mlir"}, "iree-compile: error: --compile-from=end: the end phase produces a bytecode module, not IR; resume from hal or an earlier phase\n"},
		{[]string{"--compile-from=lowered", "in.mlir"}, "iree-compile: error: invalid --compile-from=lowered (phases: start, input, abi, preprocessing, global-optimization, dispatch-creation, flow, stream, executable-sources, executable-configurations, executable-targets, hal, vm, end)\n"},
		{[]string{"--compile-from=flow", "--compile-to=input", "in.mlir"}, "iree-compile: error: --compile-to=input comes before --compile-from=flow\n"},
		{[]string{"--iree-llvmcpu-clang-path", "in.mlir"}, "iree-compile: error: option '--iree-llvmcpu-clang-path' requires a value (write --iree-llvmcpu-clang-path=<value>)\n"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, nil, &stdout, &stderr); code != 1 || stderr.String() != c.want || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// TestTargetFlagsFromRegistry checks that --help lists every linked
// target's flags and that a target flag reaches the target: a clang that
// does not exist makes the llvm-cpu build fail naming it.
func TestTargetFlagsFromRegistry(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--help"}, nil, &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	for _, f := range []string{"--iree-llvmcpu-clang-path=<path>", "--iree-llvmcpu-embedded-linker-path=<path>", "--iree-vulkan-glslc-path=<path>"} {
		if !strings.Contains(stdout.String(), f) {
			t.Errorf("--help does not list %s", f)
		}
	}
	t.Chdir(t.TempDir())
	prog := "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.addf %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
	if err := os.WriteFile("in.mlir", []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	code := run([]string{"in.mlir", "--iree-llvmcpu-clang-path=/nonexistent/clang", "-o", "out.vmfb"}, nil, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "/nonexistent/clang not found") {
		t.Errorf("exit %d, stderr %q: want a build failure naming /nonexistent/clang", code, stderr.String())
	}
	if _, err := os.Stat("out.vmfb"); err == nil {
		t.Errorf("out.vmfb written by a failed compile")
	}
}

// TestTransformSpecOnlyBeforePreprocessing checks that a transform spec is
// read and applied only when the input has not been through preprocessing:
// resumed from flow, even a missing spec is not opened.
func TestTransformSpecOnlyBeforePreprocessing(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("in.mlir", []byte("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := "--iree-preprocessing-transform-spec-filename=missing_spec.mlir"
	var stdout, stderr bytes.Buffer
	if code := run([]string{"in.mlir", "--compile-to=flow", "-o", "flow.mlir"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("--compile-to=flow: exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"flow.mlir", "--compile-from=flow", spec, "-o", "out.vmfb"}, nil, &stdout, &stderr); code != 0 {
		t.Errorf("--compile-from=flow with a spec: exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"in.mlir", spec, "-o", "out.vmfb"}, nil, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "missing_spec.mlir") {
		t.Errorf("a straight compile with a missing spec: exit %d, %q; want the spec named", code, stderr.String())
	}
}
