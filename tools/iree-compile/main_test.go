package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("reading golden (run with -update): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to accept):\n%s", name, got)
	}
}

const layout1x3 = `#layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
`

const halExe = `hal.executable private @exe {
  hal.executable.variant public @x86_64 target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">) {
    hal.executable.export public @mul ordinal(0) layout(#layout) count(%device: !hal.device, %w: index) -> (index, index, index) {
      hal.return %w, %w, %w : index, index, index
    }
  }
}
`

const cudaExe = `#sm80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
module attributes {hal.device.targets = [#hal.device.target<"cuda", [#sm80]> : !hal.device]} {
  hal.executable.source private @exe attributes {objects = #hal.executable.objects<{#sm80 = OBJECTS}>} {
    hal.executable.export public @simple_mul ordinal(0) layout(#layout) count(%device: !hal.device, %w: index) -> (index, index, index) {
      hal.return %w, %w, %w : index, index, index
    }
  }
}
`

const spvExe = `#spv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">
module attributes {hal.device.targets = [#hal.device.target<"vulkan", [#spv]> : !hal.device]} {
  hal.executable.source private @exe attributes {objects = #hal.executable.objects<{#spv = [#hal.executable.object<{path = "odd.spv"}>]}>} {
    hal.executable.export public @main ordinal(0) layout(#layout) count(%device: !hal.device, %w: index) -> (index, index, index) {
      hal.return %w, %w, %w : index, index, index
    }
  }
}
`

const spvAlias = "#spv = #hal.executable.target<\"vulkan-spirv\", \"vulkan-spirv-fb\">\n"

// externCond is a hal.dispatch.extern with a conditional and a plain
// entry of one target; error cases edit it.
const externCond = `hal.dispatch.extern "main"[%d](%n, %a, %b) : (i32, tensor<?xf32>{%d}, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}
  count(%device: !hal.device, %w: index) -> (index, index, index) {
    hal.return %w, %w, %w : index, index, index
  }
  layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
  objects({
  #spv if(%dev: !hal.device) -> i1 {
    %t = arith.constant true
    hal.return %t : i1
  } ordinal(0) = [#hal.executable.object<{path = "a.spv"}>],
  #spv ordinal(1) = [#hal.executable.object<{path = "b.spv"}>]
  })`

func dispatchFn(sig string) string {
	return `func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>, %n: i32, %d: index) -> tensor<?xf32> {
  %r = ` + sig + `
  return %r : tensor<?xf32>
}
`
}

// errorCases are malformed programs and bad flags; the golden file records
// the exact diagnostics.
var errorCases = []struct {
	name  string
	args  []string
	input string // written to bad.mlir when non-empty
}{
	{"unknown-op", nil, "func.func @f() {\n  foo.bar\n  return\n}\n"},
	{"undefined-value", nil, "func.func @f() -> i32 {\n  %0 = arith.addi %x, %x : i32\n  return %0 : i32\n}\n"},
	{"type-mismatch-on-use", nil, "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i64\n  return %0 : i32\n}\n"},
	{"redefinition", nil, "func.func @f(%a: i32) {\n  %0 = arith.addi %a, %a : i32\n  %0 = arith.addi %a, %a : i32\n  return\n}\n"},
	{"unterminated-region", nil, "func.func @f() {\n  return\n"},
	{"undefined-alias", nil, "func.func @f() attributes {x = #nope} {\n  return\n}\n"},
	{"return-type-mismatch", nil, "func.func @f(%a: i32) -> f32 {\n  return %a : i32\n}\n"},
	{"dense-shape-mismatch", nil, "func.func @f() {\n  %c = arith.constant dense<[1, 2, 3]> : tensor<4xi32>\n  return\n}\n"},
	{"bad-layout-field", nil, "#l = #hal.pipeline.layout<pushconstants = 1>\n"},
	{"workgroup-dim-out-of-range", nil, "func.func @f() {\n  %0 = hal.interface.workgroup.id[3] : index\n  return\n}\n"},
	{"undefined-executable", nil, dispatchFn(`flow.dispatch @nope::@mul[%d](%n, %a, %b) : (i32, tensor<?xf32>{%d}, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}`)},
	{"undefined-export", nil, layout1x3 + halExe + dispatchFn(`flow.dispatch @exe::@add[%d](%n, %a, %b) : (i32, tensor<?xf32>{%d}, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}`)},
	{"constant-count-mismatch", nil, layout1x3 + halExe + dispatchFn(`flow.dispatch @exe::@mul[%d](%a, %b) : (tensor<?xf32>{%d}, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}`)},
	{"binding-count-mismatch", nil, layout1x3 + halExe + dispatchFn(`flow.dispatch @exe::@x86_64::@mul[%d](%n, %a) : (i32, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}`)},
	{"index-push-constant", nil, layout1x3 + halExe + dispatchFn(`flow.dispatch @exe::@mul[%d](%d, %a, %b) : (index, tensor<?xf32>{%d}, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}`)},
	{"tied-to-non-operand", nil, layout1x3 + halExe + dispatchFn(`flow.dispatch @exe::@mul[%d](%n, %a) : (i32, tensor<?xf32>{%d}) -> %b{%d}`)},
	{"missing-dynamic-dims", nil, layout1x3 + halExe + dispatchFn(`flow.dispatch @exe::@mul[%d](%n, %a, %b) : (i32, tensor<?xf32>, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}`)},
	{"missing-object", []string{"--iree-hal-executable-object-search-path=sp1", "--iree-hal-executable-object-search-path=sp2"},
		strings.Replace(layout1x3+cudaExe, "OBJECTS", `[#hal.executable.object<{path = "missing.ptx"}>]`, 1)},
	{"external-two-objects", nil, strings.Replace(layout1x3+cudaExe, "OBJECTS", `[#hal.executable.object<{path = "kernels_sm_80.ptx"}>, #hal.executable.object<{path = "kernels_sm_80.ptx"}>]`, 1)},
	{"external-no-objects", nil, strings.Replace(strings.Replace(layout1x3+cudaExe, "OBJECTS", `[]`, 1), "#sm80 = []", `#hal.executable.target<"cuda", "other"> = []`, 1)},
	{"spirv-not-aligned", nil, layout1x3 + spvExe},
	{"ptx-param-mismatch", nil, strings.Replace(strings.Replace(layout1x3+cudaExe, "OBJECTS", `[#hal.executable.object<{path = "kernels_sm_80.ptx"}>]`, 1), "constants = 1", "constants = 2", 1)},
	{"ptx-missing-entry", nil, strings.Replace(strings.Replace(layout1x3+cudaExe, "OBJECTS", `[#hal.executable.object<{path = "kernels_sm_80.ptx"}>]`, 1), "@simple_mul ordinal", "@simple_add ordinal", 1)},
	{"flag-unknown", []string{"--iree-frobnicate"}, ""},
	{"flag-compile-to-stream", []string{"--compile-to=stream"}, ""},
	{"flag-compile-to-vm-binary", []string{"--compile-to=vm", "--output-format=vm-bytecode"}, ""},
	{"flag-compile-to-bogus", []string{"--compile-to=lowered"}, ""},
	{"flag-output-format", []string{"--output-format=binary"}, ""},
	{"flag-backend", []string{"--iree-hal-target-backends=llvm-cpu,metal"}, ""},
	{"extern-condition-result-type", nil, spvAlias + dispatchFn(strings.Replace(externCond, "-> i1 {", "-> i32 {", 1))},
	{"extern-condition-returns-i32", nil, spvAlias + dispatchFn(strings.Replace(externCond, "%t = arith.constant true\n    hal.return %t : i1", "%t = arith.constant 1 : i32\n    hal.return %t : i32", 1))},
	{"extern-condition-not-device", nil, spvAlias + dispatchFn(strings.Replace(externCond, "if(%dev: !hal.device)", "if(%dev: index)", 1))},
	{"extern-condition-two-results", nil, spvAlias + dispatchFn(strings.Replace(externCond, "hal.return %t : i1", "hal.return %t, %t : i1, i1", 1))},
	{"extern-ordinal-collision", nil, spvAlias + dispatchFn(strings.Replace(externCond, "#spv if(%dev: !hal.device) -> i1 {\n    %t = arith.constant true\n    hal.return %t : i1\n  } ordinal(0)", "#spv ordinal(1)", 1))},
	{"extern-unreachable-target", nil, spvAlias + dispatchFn(strings.Replace(externCond, "#spv if(%dev: !hal.device) -> i1 {\n    %t = arith.constant true\n    hal.return %t : i1\n  } ordinal(0)", "#spv ordinal(3)", 1))},
	{"extern-ordinal-range", nil, spvAlias + dispatchFn(strings.Replace(externCond, "ordinal(1)", "ordinal(4294967296)", 1))},
	{"extern-no-objects", nil, spvAlias + dispatchFn(strings.Replace(externCond, `ordinal(1) = [#hal.executable.object<{path = "b.spv"}>]`, "ordinal(1) = []", 1))},
	{"flag-unknown-suggestion", []string{"--iree-hal-target-devices=local"}, ""},
	{"flag-unknown-no-suggestion", []string{"--compile-mode=vm"}, ""},
	{"flag-target-device-unknown", []string{"--iree-hal-target-device=metal"}, ""},
	{"flag-target-device-ordinal", []string{"--iree-hal-target-device=cuda[1]"}, ""},
	{"flag-target-device-bad-ordinal", []string{"--iree-hal-target-device=cuda[x]"}, ""},
	{"flag-target-device-named-and-unnamed", []string{"--iree-hal-target-device=a=local", "--iree-hal-target-device=vulkan"}, ""},
	{"flag-target-device-bad-attribute", []string{"--iree-hal-target-device=#hal.device.target<\"local\", [#nope]>"}, ""},
	{"flag-target-device-empty", []string{"--iree-hal-target-device=name="}, ""},
	{"flag-local-backend", []string{"--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vulkan-spirv"}, ""},
	{"flag-both-target-spellings", []string{"--iree-hal-target-backends=llvm-cpu", "--iree-hal-target-device=local"}, ""},
	{"flag-pdl-spec-missing", []string{"--iree-preprocessing-pdl-spec-filename=nosuch_spec.pdl.mlir"}, "func.func private @g()\n"},
	{"flag-transform-spec-missing", []string{"--iree-preprocessing-transform-spec-filename=nosuch_spec.mlir"}, "func.func private @g()\n"},
	{"program-device-alias-unknown", nil, "module attributes {hal.device.targets = [#hal.device.alias<\"metal\"> : !hal.device]} {\n  func.func private @g()\n}\n"},
	{"program-device-targets-not-devices", nil, "module attributes {hal.device.targets = [1 : i32]} {\n  func.func private @g()\n}\n"},
	{"flag-o-missing-value", []string{"-o"}, ""},
	{"no-input", nil, ""},
	{"missing-input", []string{"nonexistent.mlir"}, ""},
	{"vm-c-unsupported", []string{"--output-format=vm-c"}, "func.func @f() {\n  return\n}\n"},
	{"two-inputs", []string{"a.mlir", "b.mlir"}, ""},
}

func TestErrors(t *testing.T) {
	ptx, err := os.ReadFile("testdata/kernels_sm_80.ptx")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs("testdata/errors.golden")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.WriteFile("kernels_sm_80.ptx", ptx, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("odd.spv", []byte{3, 2, 0x23, 7, 0, 1}, 0o644); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, c := range errorCases {
		args := append([]string(nil), c.args...)
		if c.input != "" {
			if err := os.WriteFile("bad.mlir", []byte(c.input), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, "bad.mlir")
		}
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		if code != 1 {
			t.Errorf("%s: exit code %d, want 1 (stderr: %s)", c.name, code, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: unexpected stdout: %s", c.name, stdout.String())
		}
		if strings.Contains(stderr.String(), "panic") || strings.Contains(stderr.String(), "goroutine") {
			t.Errorf("%s: panic trace in output: %s", c.name, stderr.String())
		}
		fmt.Fprintf(&all, "=== %s\n$ iree-compile %s\n%s\n", c.name, strings.Join(args, " "), stderr.String())
	}
	checkGolden(t, golden, all.String())
}

func buildCPUObjects(t *testing.T, src, dir string) {
	t.Helper()
	var clang string
	for _, n := range []string{"clang-16", "clang"} {
		if p, err := exec.LookPath(n); err == nil {
			clang = p
			break
		}
	}
	if clang == "" {
		t.Skip("clang-16 not found on PATH; CPU objects cannot be built")
	}
	for name, target := range map[string]string{
		"functions_x86_64.o":  "x86_64-unknown-unknown-eabi-elf",
		"functions_aarch64.o": "aarch64-unknown-unknown-eabi-elf",
		"functions_arm_64.o":  "aarch64-unknown-unknown-eabi-elf",
	} {
		cmd := exec.Command(clang, "-target", target, "-std=c17", "-ffreestanding", "-fvisibility=hidden",
			"-ffunction-sections", "-fdata-sections", "-O2", "-c", src, "-o", filepath.Join(dir, name))
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("clang: %v\n%s", err, msg)
		}
	}
}

// TestCompileToHALStream compiles the stream-form CPU program with x86_64
// and arm_64 objects: one variant per target, each with its object.
func TestCompileToHALStream(t *testing.T) {
	for _, prog := range []string{"cpu_stream_seed", "cpu_stream_head"} {
		t.Run(prog, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", prog+".mlir"))
			if err != nil {
				t.Fatal(err)
			}
			golden, _ := filepath.Abs(filepath.Join("testdata", prog+".hal.golden"))
			csrc, _ := filepath.Abs(filepath.Join("testdata", "functions.c"))
			t.Chdir(t.TempDir())
			if err := os.MkdirAll("objs", 0o755); err != nil {
				t.Fatal(err)
			}
			buildCPUObjects(t, csrc, "objs")
			if err := os.WriteFile("in.mlir", src, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{"in.mlir", "--compile-to=hal", "-iree-hal-executable-object-search-path=objs", "-o", "out.mlir"}, nil, &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			out, err := os.ReadFile("out.mlir")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, golden, string(out))
			// The output is itself a valid program at the hal phase.
			var again bytes.Buffer
			stderr.Reset()
			if code := run([]string{"out.mlir", "--compile-to=input"}, nil, &again, &stderr); code != 0 {
				t.Fatalf("recompiling output: exit %d: %s", code, stderr.String())
			}
		})
	}
}

func TestDriver(t *testing.T) {
	t.Chdir(t.TempDir())
	prog := "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  return %0 : i32\n}\n"
	cases := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"stdin", []string{"-", "--compile-to=input"}, prog, 0,
			"func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  func.return %0 : i32\n}\n", ""},
		{"compile-to-preprocessing", []string{"--compile-to=preprocessing", "-"}, prog, 0,
			"func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  func.return %0 : i32\n}\n", ""},
		{"single-dash-flags", []string{"-compile-to=flow", "-"}, prog, 0,
			"func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  func.return %0 : i32\n}\n", ""},
		{"output-format-mlir", []string{"--output-format=mlir", "-"}, "func.func private @g()\n", 0, "func.func private @g()\n", ""},
		{"list-targets", []string{"--iree-hal-list-target-backends"}, "", 0, "Registered target backends:\n  cuda\n  llvm-cpu\n  vmvx\n  vulkan-spirv\n", ""},
		{"split", []string{"--split-input-file", "--compile-to=input", "-"}, "func.func private @a()\n// -----\nfunc.func private @b()\n", 0,
			"func.func private @a()\n// -----\nfunc.func private @b()\n", ""},
		{"split-error-line-numbers", []string{"--split-input-file", "--compile-to=input", "-"}, "func.func private @a()\n// -----\nfunc.func @b() {\n  %0 = foo.bar\n}\n", 1,
			"", "<stdin>:4:8: error: custom op 'foo.bar' is unknown\n  %0 = foo.bar\n       ^\n"},
		{"compile-to-vm", []string{"--compile-to=vm", "-"}, prog, 0,
			"func @f(%i0: i32) -> (i32)  // 0i_i, registers i32=3 i64=0 f32=0 f64=0 ref=1\n" +
				"  0000: %i1 = const.i32 0  // <stdin>:1:1\n" +
				"  0007: call.import @hal.devices.get(%i1) -> (%r0)\n" +
				"  0020: %i2 = add.i32 %i0, %i0  // <stdin>:2:8\n" +
				"  0027: return %i2  // <stdin>:3:3\n", ""},
		{"vm-asm", []string{"--output-format=vm-asm", "-"}, prog, 0,
			"func @f(%i0: i32) -> (i32)  // 0i_i, registers i32=3 i64=0 f32=0 f64=0 ref=1\n" +
				"  0000: %i1 = const.i32 0  // <stdin>:1:1\n" +
				"  0007: call.import @hal.devices.get(%i1) -> (%r0)\n" +
				"  0020: %i2 = add.i32 %i0, %i0  // <stdin>:2:8\n" +
				"  0027: return %i2  // <stdin>:3:3\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			if code != c.wantCode || stdout.String() != c.wantStdout || stderr.String() != c.wantStderr {
				t.Errorf("run(%v) = %d\nstdout: %q\nstderr: %q\nwant %d\nstdout: %q\nstderr: %q", c.args, code, stdout.String(), stderr.String(), c.wantCode, c.wantStdout, c.wantStderr)
			}
		})
	}
}

// TestOutputAtomic checks that -o writes the whole output or nothing.
func TestOutputAtomic(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("ok.mlir", []byte("func.func private @g()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("bad.mlir", []byte("func.func @g( {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var sink bytes.Buffer
	if code := run([]string{"bad.mlir", "--compile-to=input", "-o", "out.mlir"}, nil, &sink, &sink); code != 1 {
		t.Fatalf("bad input: exit %d", code)
	}
	if _, err := os.Stat("out.mlir"); !os.IsNotExist(err) {
		t.Fatalf("failed compile left an output file: %v", err)
	}
	if code := run([]string{"ok.mlir", "--compile-to=input", "-o=out.mlir"}, nil, &sink, &sink); code != 0 {
		t.Fatalf("good input: exit %d: %s", code, sink.String())
	}
	b, err := os.ReadFile("out.mlir")
	if err != nil || string(b) != "func.func private @g()\n" {
		t.Fatalf("output = %q, %v", b, err)
	}
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestTargetBackendsFlag materialises an executable source for the default
// cuda target when the module declares no device targets.
func TestTargetBackendsFlag(t *testing.T) {
	ptx, err := os.ReadFile("testdata/kernels_sm_80.ptx")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("kernels", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("kernels/k.ptx", ptx, 0o644); err != nil {
		t.Fatal(err)
	}
	src := `#l = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
hal.executable.source private @exe attributes {objects = #hal.executable.objects<{#hal.executable.target<"cuda", "cuda-nvptx-fb"> = [#hal.executable.object<{path = "k.ptx"}>]}>} {
  hal.executable.export public @simple_mul ordinal(0) layout(#l) count(%d: !hal.device, %w: index) -> (index, index, index) {
    hal.return %w, %w, %w : index, index, index
  }
}
`
	var stdout, stderr bytes.Buffer
	code := run([]string{"-", "--compile-to=hal", "--iree-hal-target-backends=cuda", "--iree-hal-executable-object-search-path=kernels"}, strings.NewReader(src), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := `hal.executable.variant public @cuda_nvptx_fb_sm_80 target(#hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>) objects([#hal.executable.object<{path = "kernels/k.ptx"}>])`
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("output lacks %s:\n%s", want, stdout.String())
	}
	// Without the flag there is no target to materialise for.
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"-", "--compile-to=hal"}, strings.NewReader(src), &stdout, &stderr); code != 1 ||
		!strings.HasPrefix(stderr.String(), "<stdin>:2:1: error: 'hal.executable.source' op cannot materialise @exe: no executable targets") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestInputTypes accepts IREE's names of the input dialects this compiler
// converts and refuses the others, naming the supported ones.
func TestInputTypes(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "add.mlir")
	prog := "func.func @add(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {\n" +
		"  %r = tosa.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>\n" +
		"  return %r : tensor<4xi32>\n}\n"
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"none", "auto", "tosa", "stablehlo", "stablehlo_xla", "mhlo", "xla"} {
		var stdout, stderr bytes.Buffer
		out := filepath.Join(dir, typ+".vmfb")
		if code := run([]string{src, "--iree-input-type=" + typ, "--iree-hal-target-backends=llvm-cpu", "-o", out}, nil, &stdout, &stderr); code != 0 {
			t.Errorf("--iree-input-type=%s: exit %d: %s", typ, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "torch.vmfb")
	code := run([]string{src, "--iree-input-type=torch", "-o", out}, nil, &stdout, &stderr)
	const want = "unsupported --iree-input-type=torch (supported: none, auto, tosa, stablehlo, stablehlo_xla, mhlo, xla)"
	if code != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("--iree-input-type=torch: exit %d, stderr %q; want exit 1 and %q", code, stderr.String(), want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--iree-input-type=torch wrote %s", out)
	}
}
