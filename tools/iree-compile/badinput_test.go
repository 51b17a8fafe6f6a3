package main

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/vm"
)

// dirContents returns the files under dir (relative names, "name/" for
// directories) with their contents.
func dirContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBadInputs compiles the CPU sample (real objects from clang) broken
// in the ways a user breaks it: malformed programs, missing or wrong
// objects and kernel-ABI mismatches. Each case must exit 1 with exactly
// its whole diagnostic on stderr (the location, the source line and the
// caret), nothing on stdout, and leave every file as it was (the existing
// out.vmfb keeps its old contents; no temporary file remains). One-line
// errors (flags, targets, unreadable inputs, unwritable outputs) are in
// the table of all four tools in tools/internal/badinput.
func TestBadInputs(t *testing.T) {
	prog, err := os.ReadFile(filepath.Join("testdata", "reliability", "cpu_hal.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	csrc, err := filepath.Abs(filepath.Join("testdata", "functions.c"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, d := range []string{"objs", "empty", "partial", "garbage", "wrongarch", "adir.vmfb"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	buildCPUObjects(t, csrc, "objs")
	clang, _ := exec.LookPath("clang-16")
	if clang == "" {
		clang, _ = exec.LookPath("clang")
	}
	if err := os.WriteFile("partial/partial.c", []byte("void simple_mul_workgroup(void) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(clang, "-target", "x86_64-unknown-unknown-eabi-elf", "-ffreestanding", "-c", "-o",
		"partial/functions_x86_64.o", "partial/partial.c").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	arm, err := os.ReadFile("objs/functions_arm_64.o")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"good.mlir":                    string(prog),
		"out.vmfb":                     "an earlier module",
		"garbage/functions_x86_64.o":   "this is not an object file",
		"wrongarch/functions_x86_64.o": string(arm),
		"syntax.mlir":                  strings.Replace(string(prog), "func.func @mixed_invocation(", "func.func @mixed_invocation(\n", 1)[:2000],
		"unknown_op.mlir":              strings.Replace(string(prog), "%sum = arith.addf", "%sum = arith.frobnicate", 1),
		"binary.mlir":                  "\x00\xff\xfe garbage",
		"constants.mlir": strings.Replace(strings.Replace(string(prog), "@simple_mul[%n](%n_i32, %lhs, %rhs)", "@simple_mul[%n](%lhs, %rhs)", 1),
			"(i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}", "(tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}", 1),
		"bindings.mlir": strings.Replace(string(prog), "#hal.interface.binding<0, 2>", "#hal.interface.binding<0, 7>", 1),
	}
	for name, data := range files {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := dirContents(t, ".")
	sp := func(dir string) string { return "--iree-hal-executable-object-search-path=" + dir }
	cases := []struct {
		name string
		args []string
		want string // exact stderr
	}{
		{"syntax error", []string{"syntax.mlir", sp("objs"), "-o", "out.vmfb"}, "syntax.mlir:41:8: error: expected '}' to end region, found end of file\n       \n       ^\n"},
		{"unknown op", []string{"unknown_op.mlir", sp("objs"), "-o", "out.vmfb"}, "unknown_op.mlir:81:12: error: custom op 'arith.frobnicate' is unknown\n    %sum = arith.frobnicate %product, %rhs : tensor<?xf32>\n           ^\n"},
		{"binary input", []string{"binary.mlir", sp("objs"), "-o", "out.vmfb"}, "binary.mlir:1:1: error: unexpected character '\\x00'\n\x00\xff\xfe garbage\n^\n"},
		{"missing object", []string{"good.mlir", sp("empty"), "-o", "out.vmfb"}, "good.mlir:24:5: error: 'hal.executable.variant' op referenced object file not found on any path; use --iree-hal-executable-object-search-path= to add search paths: #hal.executable.object<{path = \"functions_x86_64.o\"}> (tried: functions_x86_64.o, empty/functions_x86_64.o)\n    hal.executable.variant public @x86_64, target = #cpu, objects = [\n    ^\n"},
		{"object lacks a kernel", []string{"good.mlir", sp("partial"), "-o", "out.vmfb"}, "good.mlir:24:5: error: 'hal.executable.variant' op kernel ABI mismatch: partial/functions_x86_64.o: does not define function 'simple_mul_inplace_workgroup', which @simple_mul_inplace calls through a hal.import.static declaration (defined functions: simple_mul_workgroup)\n    hal.executable.variant public @x86_64, target = #cpu, objects = [\n    ^\n"},
		{"object is not ELF", []string{"good.mlir", sp("garbage"), "-o", "out.vmfb"}, "good.mlir:24:5: error: 'hal.executable.variant' op kernel ABI mismatch: garbage/functions_x86_64.o: not an ELF object file\n    hal.executable.variant public @x86_64, target = #cpu, objects = [\n    ^\n"},
		{"object for another architecture", []string{"good.mlir", sp("wrongarch"), "-o", "out.vmfb"}, "good.mlir:24:5: error: 'hal.executable.variant' op kernel ABI mismatch: wrongarch/functions_x86_64.o: object is for EM_AARCH64 but the variant targets x86_64 (EM_X86_64)\n    hal.executable.variant public @x86_64, target = #cpu, objects = [\n    ^\n"},
		{"constants do not match the layout", []string{"constants.mlir", sp("objs"), "-o", "out.vmfb"}, "constants.mlir:74:16: error: 'flow.dispatch' op passes 0 primitive operands (push constants) but the layout of @kernels::@simple_mul declares 1 constants\n    %product = flow.dispatch @kernels::@simple_mul[%n](%lhs, %rhs) {\n               ^\n"},
		{"binding not in the layout", []string{"bindings.mlir", sp("objs"), "-o", "out.vmfb"}, "bindings.mlir:74:16: error: 'flow.dispatch' op binding #hal.interface.binding<0, 7> is not declared in the layout of @kernels::@simple_mul\n    %product = flow.dispatch @kernels::@simple_mul[%n](%n_i32, %lhs, %rhs) {\n               ^\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(""), &stdout, &stderr)
			if code != 1 || stdout.Len() != 0 || stderr.String() != c.want {
				t.Errorf("iree-compile %s\nexit %d, stdout %q\nstderr %q\nwant exit 1, no stdout, stderr %q", strings.Join(c.args, " "), code, stdout.String(), stderr.String(), c.want)
			}
			if after := dirContents(t, "."); !maps.Equal(before, after) {
				t.Errorf("files changed: %v, were %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
			}
		})
	}
	// The same program compiles: -o replaces out.vmfb whole, mode 0644,
	// and leaves no temporary file.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"good.mlir", sp("objs"), "-o", "out.vmfb"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("good program: exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile("out.vmfb")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vm.LoadBytecodeModule(data); err != nil {
		t.Errorf("out.vmfb does not load: %v", err)
	}
	if fi, err := os.Stat("out.vmfb"); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("out.vmfb: %v, mode %v, want 0644", err, fi.Mode().Perm())
	}
	after := dirContents(t, ".")
	delete(after, "out.vmfb")
	delete(before, "out.vmfb")
	if !maps.Equal(before, after) {
		t.Errorf("files changed: %v, were %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
	}
}
