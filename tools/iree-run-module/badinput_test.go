package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
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

// corruptELF returns a copy of module with the program header table offset
// of its first embedded ELF image pointed far outside the image.
func corruptELF(t *testing.T, module []byte) []byte {
	t.Helper()
	i := bytes.Index(module, []byte("\x7fELF\x02\x01\x01"))
	if i < 0 {
		t.Fatal("the compiled module embeds no ELF image")
	}
	out := bytes.Clone(module)
	binary.LittleEndian.PutUint64(out[i+32:], 1<<40) // e_phoff
	return out
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

// TestBadInputs runs iree-run-module on a real compiled module with bad
// modules, functions, inputs, devices and outputs. Each case must exit
// with its code and print exactly its message on one stderr line (and
// only "EXEC @..." on stdout when the call started), and must leave the
// directory as it was: no partial or temporary file, keep.npy untouched.
func TestBadInputs(t *testing.T) {
	module := compileSample(t)
	t.Chdir(t.TempDir())
	huge := bytes.Clone(module)
	binary.LittleEndian.PutUint32(huge, 0x7fffffff)
	files := map[string][]byte{
		"good.vmfb":       module,
		"empty.vmfb":      nil,
		"truncated.vmfb":  module[:len(module)/2],
		"text.vmfb":       []byte("module @m {}\n"),
		"sizeprefix.vmfb": huge,
		"badelf.vmfb":     corruptELF(t, module),
		"bad.npy":         []byte("\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'"),
		"short.bin":       make([]byte, 12),
		"keep.npy":        []byte("an earlier result"),
	}
	for name, data := range files {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir("adir.npy", 0o755); err != nil {
		t.Fatal(err)
	}
	before := listDir(t)
	reg, err := newRegistry(&options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	drivers := strings.Join(reg.Names(), ", ")
	half := len(module) / 2
	sizes := func(format string) string { return fmt.Sprintf(format, len(module)-4, half-4) }
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
		// Modules.
		{"missing module", []string{"--module=nope.vmfb", "--function=f"}, "",
			[]string{"[ERROR] reading module: open nope.vmfb: no such file or directory\n"}},
		{"empty module", []string{"--module=empty.vmfb", "--function=f"}, "",
			[]string{"[ERROR] loading module empty.vmfb: loading bytecode module: INVALID_ARGUMENT; module of 0 bytes is too short (need at least 16)\n"}},
		{"truncated module", cat([]string{"--module=truncated.vmfb", "--function=mixed_invocation"}, in), "",
			[]string{sizes("[ERROR] loading module truncated.vmfb: loading bytecode module: INVALID_ARGUMENT; bad FlatBuffer: size prefix: FlatBuffer size %[1]d exceeds the %[2]d bytes after the prefix\n")}},
		{"text module", cat([]string{"--module=text.vmfb", "--function=mixed_invocation"}, in), "",
			[]string{"[ERROR] loading module text.vmfb: loading bytecode module: INVALID_ARGUMENT; module of 13 bytes is too short (need at least 16)\n"}},
		{"size prefix past the end", cat([]string{"--module=sizeprefix.vmfb", "--function=mixed_invocation"}, in), "",
			[]string{sizes("[ERROR] loading module sizeprefix.vmfb: loading bytecode module: INVALID_ARGUMENT; bad FlatBuffer: size prefix: FlatBuffer size 2147483647 exceeds the %[1]d bytes after the prefix\n")}},
		// The executable's SHA-256 digest catches the damage when the module
		// loads, before the ELF loader would have seen it.
		{"corrupt embedded ELF", cat([]string{"--module=badelf.vmfb", "--function=mixed_invocation", "--device=local-sync", "--output=@keep.npy"}, in), "",
			[]string{"[ERROR] loading module badelf.vmfb: loading bytecode module: DATA_LOSS; module sample: executable @mixed_invocation_dispatch_0::@x86_64 (rodata segment {N}) is damaged: the SHA-256 of its {N} bytes differs from the one the compiler recorded; rebuild or re-copy the module\n"}},
		{"same module twice", cat([]string{"--module=good.vmfb"}, good, in), "",
			[]string{"[ERROR] ALREADY_EXISTS; creating context: two modules named \"sample\"\n"}},
		// Functions and arguments.
		{"unknown function", cat([]string{"--module=good.vmfb", "--function=nope"}, in), "",
			[]string{"[ERROR] NOT_FOUND; function \"nope\" not found (exports: sample.mixed_invocation)\n"}},
		{"too few arguments", cat(good, []string{"--input=8xf32=2"}), "",
			[]string{"[ERROR] calling mixed_invocation: the function takes 2 argument(s) (0rr_r) but 1 input(s) were given\n"}},
		{"too many arguments", cat(good, in, []string{"--input=8xf32=1"}), "",
			[]string{"[ERROR] calling mixed_invocation: the function takes 2 argument(s) (0rr_r) but 3 input(s) were given\n"}},
		{"wrong element type", cat(good, []string{"--input=8xi32=2", "--input=8xf32=4"}), exec,
			[]string{"[ERROR] executing mixed_invocation: hal.buffer_view.assert: INVALID_ARGUMENT; input 0: element type mismatch; expected f32 but have i32; at sample.mixed_invocation+{N} (cpu_hal.mlir:69:3)\n"}},
		{"scalar for a buffer", cat(good, []string{"--input=8xf32=2", "--input=5"}), "",
			[]string{"[ERROR] calling mixed_invocation: input 1 (--input=5): the function expects a buffer view here, not the scalar \"5\": write a shape and type (f32=5 for rank 0, 1xf32=5)\n"}},
		{"wrong rank", cat(good, []string{"--input=2x4xf32=2", "--input=8xf32=4"}), exec,
			[]string{"[ERROR] executing mixed_invocation: hal.buffer_view.assert: INVALID_ARGUMENT; input 0: rank mismatch; expected rank 1 (?) but have rank 2 (2x4); at sample.mixed_invocation+{N} (cpu_hal.mlir:69:3)\n"}},
		{"second input too short", cat(good, []string{"--input=8xf32=2", "--input=4xf32=4", "--output=@keep.npy"}), exec,
			[]string{"[ERROR] executing mixed_invocation: hal.command_buffer.dispatch.inline: OUT_OF_RANGE; dispatch: binding 1 range [0, 32) exceeds buffer of 16 bytes; at sample.mixed_invocation+{N} (cpu_hal.mlir:74:16)\n"}},
		// --input strings and files.
		{"not a number", cat(good, []string{"--input=8xf32=abc", "--input=8xf32=4"}), "",
			[]string{"[ERROR] --input=8xf32=abc: parsing buffer view \"8xf32=abc\": element 0: invalid f32 value \"abc\": not a number\n"}},
		{"underflow", cat(good, []string{"--input=8xf32=1 2", "--input=8xf32=4"}), "",
			[]string{"[ERROR] --input=8xf32=1 2: parsing buffer view \"8xf32=1 2\": input data string underflow: 2 values given for 8 elements\n"}},
		{"overflow", cat(good, []string{"--input=2xf32=1 2 3", "--input=8xf32=4"}), "",
			[]string{"[ERROR] --input=2xf32=1 2 3: parsing buffer view \"2xf32=1 2 3\": output data buffer overflow: the shape holds 2 elements but more values were given\n"}},
		{"unknown element type", cat(good, []string{"--input=8xq9=1", "--input=8xf32=4"}), "",
			[]string{"[ERROR] --input=8xq9=1: parsing buffer view \"8xq9=1\": unsupported element type \"q9\"\n"}},
		{"negative dimension", cat(good, []string{"--input=8x-1xf32=1", "--input=8xf32=4"}), "",
			[]string{"[ERROR] --input=8x-1xf32=1: parsing buffer view \"8x-1xf32=1\": invalid dimension \"-1\" in shape \"8x-1\"\n"}},
		{"missing .npy", cat(good, []string{"--input=@nope.npy", "--input=8xf32=4"}), "",
			[]string{"[ERROR] --input=@nope.npy: reading nope.npy: no such file or directory\n"}},
		{"corrupt .npy", cat(good, []string{"--input=@bad.npy", "--input=8xf32=4"}), "",
			[]string{"[ERROR] --input=@bad.npy: reading bad.npy: array at byte 0: npy: reading header: unexpected EOF\n"}},
		{"short .bin", cat(good, []string{"--input=8xf32=@short.bin", "--input=8xf32=4"}), "",
			[]string{"[ERROR] --input=8xf32=@short.bin: short.bin holds 12 bytes but 8xf32 needs 32\n"}},
		// Devices.
		{"unknown driver", cat(good, in, []string{"--device=nope"}), "",
			[]string{"[ERROR] NOT_FOUND; unknown driver \"nope\" (available drivers: " + drivers + ")\n"}},
		{"missing device index", cat(good, in, []string{"--device=local-task://7"}), "",
			[]string{"[ERROR] NOT_FOUND; device \"local-task://7\" not found: driver \"local-task\" has 1 device(s)\n"}},
		{"bad second device", cat(good, in, []string{"--device=local-sync", "--device=nope"}), "",
			[]string{"[ERROR] NOT_FOUND; unknown driver \"nope\" (available drivers: " + drivers + ")\n"}},
		{"cuda", cat(good, in, []string{"--device=cuda", "--output=@keep.npy"}), "", []string{
			"[ERROR] UNAVAILABLE; creating device \"cuda\": CUDA is not available: libcuda.so.1: cannot open shared object file: No such file or directory\n",
			"[ERROR] NOT_FOUND; unknown driver \"cuda\" (available drivers: " + drivers + ")\n",
			exec + noVariant}},
		{"vulkan", cat(good, in, []string{"--device=vulkan", "--output=@keep.npy"}), "", []string{
			"[ERROR] NOT_FOUND; unknown driver \"vulkan\" (available drivers: " + drivers + ")\n",
			exec + noVariant}},
		{"negative group count", cat(good, in, []string{"--task_topology_group_count=-1"}), "",
			[]string{"[ERROR] --task_topology_group_count=-1 must not be negative\n"}},
		// Outputs.
		{"output in a missing directory", cat(good, in, []string{"--output=@missing/out.npy"}), exec,
			[]string{"[ERROR] writing missing/out.npy: no such file or directory\n"}},
		{"output onto a directory", cat(good, in, []string{"--output=@adir.npy"}), exec,
			[]string{"[ERROR] writing adir.npy: is a directory\n"}},
		{"more outputs than results", cat(good, in, []string{"--output=@keep.npy", "--output=@b.npy"}), exec,
			[]string{"[ERROR] 2 --output flag(s) given but the function returned 1 result(s)\n"}},
		{"output without @ or +", cat(good, in, []string{"--output=out.npy"}), exec,
			[]string{"[ERROR] --output=out.npy: expected -, @file or +file\n"}},
		{"bad expected output", cat(good, in, []string{"--expected_output=8xf32=x"}), exec,
			[]string{"[ERROR] --expected_output=8xf32=x: parsing buffer view \"8xf32=x\": element 0: invalid f32 value \"x\": not a number\n"}},
		{"unknown flag", cat(good, in, []string{"--frobnicate"}), "",
			[]string{"[ERROR] flag provided but not defined: -frobnicate (see --help)\n"}},
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
