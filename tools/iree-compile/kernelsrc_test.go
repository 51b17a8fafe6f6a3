package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/vm"
)

// sourceProgram dispatches one kernel whose object is the kernel source
// KERNEL for the target TARGET (a CPU export names its C function, so no
// shim is written).
const sourceProgram = `#t = TARGET
module attributes {hal.device.targets = [#hal.device.target<"DEVICE", [#t]> : !hal.device]} {
  hal.executable.source private @exe attributes {
    objects = #hal.executable.objects<{#t = [#hal.executable.object<{path = "KERNEL"}>]}>
  } {
    hal.executable.export public @EXPORT ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [
      #hal.pipeline.binding<storage_buffer, ReadOnly>,
      #hal.pipeline.binding<storage_buffer>
    ]>) attributes {goiree.cpu_function = "twice", workgroup_size = [64 : index, 1 : index, 1 : index]} {
    ^bb0(%device: !hal.device, %n: index):
      %c1 = arith.constant 1 : index
      hal.return %n, %c1, %c1 : index, index, index
    }
  }
  func.func @run(%x: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %r = flow.dispatch @exe::@EXPORT[%n](%n_i32, %x) : (i32, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    return %r : tensor<?xf32>
  }
}
`

var sourceTargets = map[string][3]string{ // extension: target, device, kernel text
	".c": {`#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">`, "llvm-cpu",
		"#include <stddef.h>\n#include <stdint.h>\nvoid twice(const float* x, float* y, uint32_t n, size_t i, size_t j, size_t k) {\n  if (i < n) y[i] = 2 * x[i];\n}\n"},
	".cu": {`#hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>`, "cuda",
		"extern \"C\" __global__ void entry(const float* x, float* y, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = 2 * x[i];\n}\n"},
	".glsl": {`#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">`, "vulkan",
		"#version 450\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 0) buffer readonly X { float x[]; };\nlayout(set = 0, binding = 1) buffer Y { float y[]; };\nlayout(push_constant) uniform C { uint n; };\nvoid main() {\n  uint i = gl_GlobalInvocationID.x;\n  if (i < n) y[i] = 2.0 * x[i];\n}\n"},
}

// writeSourceProgram writes prog.mlir and kernel<ext> (with text, or the
// working kernel when text is empty) into the current directory. The
// export is @main for GLSL (glslc's entry point), else @entry.
func writeSourceProgram(t *testing.T, ext, text string) {
	t.Helper()
	tc := sourceTargets[ext]
	if text == "" {
		text = tc[2]
	}
	export := "entry"
	if ext == ".glsl" {
		export = "main"
	}
	prog := strings.NewReplacer("TARGET", tc[0], "DEVICE", tc[1], "KERNEL", "kernel"+ext, "EXPORT", export).Replace(sourceProgram)
	if err := os.WriteFile("prog.mlir", []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("kernel"+ext, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skipWithout(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping: %s not on PATH", tool)
		}
	}
}

// TestKernelSources compiles a program per source language through the
// tool: the module loads, and the kernel cache holds one entry (output and
// manifest) per source.
func TestKernelSources(t *testing.T) {
	for _, ext := range []string{".c", ".cu", ".glsl"} {
		t.Run(ext, func(t *testing.T) {
			skipWithout(t, "clang-16", "ld.lld-16", "glslc")
			t.Chdir(t.TempDir())
			writeSourceProgram(t, ext, "")
			var stdout, stderr bytes.Buffer
			if rc := run([]string{"prog.mlir", "-o", "out.vmfb", "--iree-hal-kernel-cache-dir=cache"}, nil, &stdout, &stderr); rc != 0 {
				t.Fatalf("exit %d:\n%s", rc, stderr.String())
			}
			b, err := os.ReadFile("out.vmfb")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := vm.LoadBytecodeModule(b); err != nil {
				t.Fatalf("module does not load: %v", err)
			}
			entries, _ := filepath.Glob(filepath.Join("cache", "*", "*"))
			if len(entries) != 2 {
				t.Errorf("cache entries = %v, want an output and its manifest", entries)
			}
		})
	}
}

// TestKernelSourceErrors: a kernel that does not compile, or a tool that
// cannot be found, ends the compilation with exit 1, a diagnostic that
// names the place (the program's line, then the tool's file:line lines)
// and no output file; an existing output keeps its contents.
func TestKernelSourceErrors(t *testing.T) {
	skipWithout(t, "clang-16", "glslc")
	badCUDA := "extern \"C\" __global__ void entry(const float* x, float* y, int n) {\n  int i = threadIdx.x;\n  y[i] = 2 * x[i]\n}\n"
	for _, tc := range []struct {
		name, ext, kernel string
		flags             []string
		want              []string // on stderr, the first on its first line
		oneLine           bool
	}{
		{"cuda syntax error", ".cu", badCUDA, nil,
			[]string{"prog.mlir:3:3: error: compiling kernel source kernel.cu for sm_80: clang-16 failed (exit status 1):", "kernel.cu:3:18: error: expected ';' after expression"}, false},
		{"c syntax error", ".c", "void twice(float* x) { x[0] = }\n", nil,
			[]string{"prog.mlir:3:3: error: compiling kernel source kernel.c for x86_64-unknown-unknown-eabi-elf: clang-16 failed (exit status 1):", "kernel.c:1:31: error: expected expression"}, false},
		{"glsl syntax error", ".glsl", "#version 450\nlayout(local_size_x = 64) in;\nvoid main() { float f = ; }\n", nil,
			[]string{"prog.mlir:3:3: error: compiling kernel source kernel.glsl for SPIR-V: glslc failed (exit status 1):", "kernel.glsl:3: error:"}, false},
		{"kernel ABI of a compiled source", ".cu", strings.Replace(sourceTargets[".cu"][2], "void entry(", "void other(", 1), nil,
			[]string{"prog.mlir:3:3: error: 'hal.executable.variant' op kernel ABI mismatch: kernel.cu: "}, true},
		{"missing clang", ".cu", "", []string{"--iree-hal-clang-path=/nonexistent/clang-99"},
			[]string{"prog.mlir:3:3: error: compiling kernel source kernel.cu needs clang, which was not found (tried /nonexistent/clang-99); install it or pass --iree-hal-clang-path=<path>"}, true},
		{"back-end clang serves sources", ".c", "", []string{"--iree-llvmcpu-clang-path=/nonexistent/clang-98"},
			[]string{"needs clang, which was not found (tried /nonexistent/clang-98)"}, true},
		{"missing glslc", ".glsl", "", []string{"--iree-hal-glslc-path=/nonexistent/glslc"},
			[]string{"prog.mlir:3:3: error: compiling kernel source kernel.glsl needs glslc, which was not found (tried /nonexistent/glslc); install it or pass --iree-hal-glslc-path=<path>"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeSourceProgram(t, tc.ext, tc.kernel)
			for _, out := range []string{"new.vmfb", "old.vmfb"} {
				if out == "old.vmfb" {
					if err := os.WriteFile(out, []byte("previous"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				var stdout, stderr bytes.Buffer
				args := append([]string{"prog.mlir", "-o", out, "--iree-hal-kernel-cache-dir=cache"}, tc.flags...)
				if rc := run(args, nil, &stdout, &stderr); rc != 1 {
					t.Fatalf("exit %d, want 1; stderr:\n%s", rc, stderr.String())
				}
				msg := stderr.String()
				first := strings.SplitN(msg, "\n", 2)[0]
				if !strings.Contains(first, tc.want[0]) {
					t.Errorf("first line %q does not contain %q", first, tc.want[0])
				}
				for _, w := range tc.want[1:] {
					if !strings.Contains(msg, w) {
						t.Errorf("stderr does not contain %q:\n%s", w, msg)
					}
				}
				if tc.oneLine {
					// The message, then the program line and its caret.
					if n := strings.Count(msg, "\n"); n != 3 {
						t.Errorf("stderr has %d lines, want the message on one line:\n%s", n, msg)
					}
				}
				if stdout.Len() != 0 {
					t.Errorf("stdout: %q", stdout.String())
				}
				b, err := os.ReadFile(out)
				switch {
				case out == "new.vmfb" && err == nil:
					t.Errorf("%s was written", out)
				case out == "old.vmfb" && string(b) != "previous":
					t.Errorf("%s changed to %d bytes", out, len(b))
				}
			}
			if tmp, _ := filepath.Glob(".*tmp*"); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
		})
	}
}

// TestKernelSourceFlagsInHelp checks that --help documents the flags.
func TestKernelSourceFlagsInHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if rc := run([]string{"--help"}, nil, &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d", rc)
	}
	for _, f := range []string{"--iree-hal-clang-path=<path>", "--iree-hal-glslc-path=<path>", "--iree-hal-kernel-cache-dir=<dir>"} {
		if !strings.Contains(stdout.String(), f) {
			t.Errorf("--help does not list %s", f)
		}
	}
}
