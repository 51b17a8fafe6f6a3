package main

import (
	"bytes"
	"encoding/binary"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

// compileSample builds the CPU sample (testdata/reliability/cpu_hal.mlir
// with its kernels from functions.c) into a module, skipping the test when
// clang or ld.lld is missing.
func compileSample(t *testing.T) []byte {
	t.Helper()
	clang, err := llvmcpu.Options{}.FindClang()
	if err != nil {
		t.Skipf("skipping: %v (clang-16 builds the sample kernels)", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v (ld.lld-16 links CPU executables)", err)
	}
	dir := t.TempDir()
	obj := filepath.Join(dir, "functions_x86_64.o")
	src, err := filepath.Abs(filepath.Join("testdata", "reliability", "functions.c"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(clang, "-target", "x86_64-unknown-unknown-eabi-elf", "-std=c17", "-ffreestanding",
		"-fPIC", "-O2", "-fvisibility=hidden", "-c", "-o", obj, src).CombinedOutput(); err != nil {
		t.Fatalf("compiling functions.c: %v\n%s", err, out)
	}
	prog, err := os.ReadFile(filepath.Join("testdata", "reliability", "cpu_hal.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("cpu_hal.mlir", prog, pipeline.Options{ObjectSearchPaths: []string{dir}}, "")
	if err != nil {
		t.Fatal(err)
	}
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets, LLVMCPU: llvmcpu.Options{Objects: s.Resolver}})
	if err != nil {
		t.Fatal(err)
	}
	return vmfb
}

// matches reports whether got equals want, where each "{N}" in want
// stands for a decimal number (program counters and sizes that move when
// the compiler's output changes).
func matches(want, got string) bool {
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(want), `\{N\}`, `[0-9]+`) + "$"
	return regexp.MustCompile(re).MatchString(got)
}

// listDir returns the names and contents of the files in the current
// directory.
func listDir(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			out[e.Name()+"/"] = ""
			continue
		}
		b, err := os.ReadFile(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestUnavailableDevices runs iree-run-module on a real compiled module
// with --device=cuda and --device=vulkan, whose outcome depends on the
// machine (no driver, no GPU, or a GPU without a variant for it): each must
// exit 1 with one of its messages on one stderr line, and leave the
// directory as it was (keep.npy untouched). The machine-independent bad
// inputs of all four tools are one table in tools/internal/badinput.
func TestUnavailableDevices(t *testing.T) {
	module := compileSample(t)
	t.Chdir(t.TempDir())
	files := map[string][]byte{
		"good.vmfb": module,
		"keep.npy":  []byte("an earlier result"),
	}
	for name, data := range files {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := listDir(t)
	reg, err := toolflags.NewRegistry(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	drivers := strings.Join(reg.Names(), ", ")
	good := []string{"--module=good.vmfb", "--function=mixed_invocation"}
	in := []string{"--input=8xf32=2", "--input=8xf32=4"}
	cat := func(a ...[]string) []string {
		var r []string
		for _, x := range a {
			r = append(r, x...)
		}
		return r
	}
	const exec = "EXEC @mixed_invocation\n"
	noVariant := "[ERROR] executing mixed_invocation: NOT_FOUND; no variant of @kernels::@simple_mul can run on this device (the module has formats embedded-elf-x86_64); at sample.mixed_invocation+{N} (cpu_hal.mlir:74:16)\n"
	cases := []struct {
		name   string
		args   []string
		stdout string
		stderr []string // exact (with {N} for numbers); several where the machine decides
	}{
		{"cuda", cat(good, in, []string{"--device=cuda", "--output=@keep.npy"}), "", []string{
			"[ERROR] UNAVAILABLE; creating device \"cuda\": CUDA is not available: libcuda.so.1: cannot open shared object file: No such file or directory\n",
			"[ERROR] NOT_FOUND; unknown driver \"cuda\" (available drivers: " + drivers + ")\n",
			exec + noVariant}},
		{"vulkan", cat(good, in, []string{"--device=vulkan", "--output=@keep.npy"}), "", []string{
			"[ERROR] NOT_FOUND; unknown driver \"vulkan\" (available drivers: " + drivers + ")\n",
			exec + noVariant}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runTool(t, "", c.args...)
			got := stdout + stderr
			ok := false
			for _, w := range c.stderr {
				// A case whose stderr alternative begins with the EXEC line
				// started the call on this machine.
				if strings.HasPrefix(w, exec) {
					ok = ok || (stdout == exec && matches(strings.TrimPrefix(w, exec), stderr))
				} else {
					ok = ok || (stdout == c.stdout && matches(w, stderr))
				}
			}
			if code != 1 || !ok {
				t.Errorf("iree-run-module %s\nexit %d, output:\n%s\nwant exit 1, stdout %q and stderr one of %q", strings.Join(c.args, " "), code, got, c.stdout, c.stderr)
			}
			if after := listDir(t); !maps.Equal(before, after) {
				t.Errorf("the directory changed: %v, was %v", keys(after), keys(before))
			}
		})
	}
}

func keys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// TestExpectedOutputMismatch: a mismatch is reported on stdout with exit
// code 1.
func TestExpectedOutputMismatch(t *testing.T) {
	module := compileSample(t)
	path := filepath.Join(t.TempDir(), "m.vmfb")
	if err := os.WriteFile(path, module, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runTool(t, "", "--module="+path, "--function=mixed_invocation", "--input=8xf32=2", "--input=8xf32=4", "--expected_output=8xf32=95")
	want := "EXEC @mixed_invocation\n[FAILED] result[0]: element at index 0 (96) does not match the expected (95)\n  expected: 8xf32=95 95 95 95 95 95 95 95\n  actual:   8xf32=96 96 96 96 96 96 96 96\n"
	if code != 1 || stdout != want || stderr != "" {
		t.Errorf("exit %d\nstdout %q\nstderr %q\nwant exit 1, stdout %q", code, stdout, stderr, want)
	}
}

// TestOutputReplacedWhole: a successful run replaces an existing --output
// file with the whole new result and leaves no temporary file.
func TestOutputReplacedWhole(t *testing.T) {
	module := compileSample(t)
	t.Chdir(t.TempDir())
	if err := os.WriteFile("m.vmfb", module, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("out.bin", []byte("an earlier, longer result that must not survive in part"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runTool(t, "", "--module=m.vmfb", "--function=mixed_invocation", "--input=8xf32=2", "--input=8xf32=4", "--output=@out.bin")
	if code != 0 || stdout != "EXEC @mixed_invocation\n" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	got, err := os.ReadFile("out.bin")
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat(binary.LittleEndian.AppendUint32(nil, math.Float32bits(96)), 8)
	if !bytes.Equal(got, want) {
		t.Errorf("out.bin = % x, want % x", got, want)
	}
	if d := listDir(t); len(d) != 2 {
		t.Errorf("directory holds %v, want m.vmfb and out.bin", keys(d))
	}
}
