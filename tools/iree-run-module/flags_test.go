package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

// compileProgram compiles MLIR text for the local CPU device, skipping the
// test when clang or ld.lld is missing.
func compileProgram(t *testing.T, name, src string) string {
	t.Helper()
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	s, err := pipeline.Compile(name+".mlir", []byte(src), pipeline.Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets, LLVMCPU: llvmcpu.Options{Objects: s.Resolver}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".vmfb")
	if err := os.WriteFile(path, vmfb, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const twoExports = `module attributes {hal.device.targets = [#hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "x86_64-none-elf"}>]> : !hal.device]} {
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = arith.addi %a, %b : i32
  return %c : i32
}
func.func @square(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.mulf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
}
`

const oneExport = `module attributes {hal.device.targets = [#hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "x86_64-none-elf"}>]> : !hal.device]} {
func.func @scale(%a: tensor<f32>, %b: tensor<2x2xf32>) -> (tensor<f32>, tensor<2x2xf32>) {
  %r = arith.mulf %b, %b : tensor<2x2xf32>
  return %a, %r : tensor<f32>, tensor<2x2xf32>
}
}
`

// npyF32 writes a little-endian f32 .npy array by hand (format 1.0).
func npyF32(shape string, xs ...float32) []byte {
	header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape)
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	for _, x := range xs {
		binary.Write(&b, binary.LittleEndian, math.Float32bits(x))
	}
	return b.Bytes()
}

// TestToolFlags runs iree-run-module with IREE's flags and input forms on
// real compiled modules.
func TestToolFlags(t *testing.T) {
	two := compileProgram(t, "two", twoExports)
	one := compileProgram(t, "one", oneExport)
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(name string, data []byte) {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ab.npy", append(npyF32("()", 3), npyF32("(2, 2)", 1, 2, 3, 4)...))
	write("args.flags", []byte("# inputs for @add\n--module="+two+"\n--function=add\n--input=40\n\n// the second one\n--input=2\n"))
	write("bad.flags", []byte("--function=add\n"+two+"\n"))
	var raw bytes.Buffer
	for _, x := range []float32{-1, 2, 0.5, 7, 99} { // one f32 more than 2x2 needs
		binary.Write(&raw, binary.LittleEndian, math.Float32bits(x))
	}
	write("five.bin", raw.Bytes())
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		stdout  string // exact, when not empty
		stderr  string // contained, when not empty
		outFile string // a file the run must leave, with its expected bytes in outData
		outData []byte
	}{
		{"single export needs no --function", []string{"--module=" + one, "--input=f32=-5", "--input=2x2xf32=1 2 3 4"}, 0,
			"EXEC @scale\nresult[0]: hal.buffer_view\nf32=-5\nresult[1]: hal.buffer_view\n2x2xf32=[1 4][9 16]\n", "", "", nil},
		{"two exports need --function", []string{"--module=" + two, "--input=1", "--input=2"}, 1,
			"", `[ERROR] module "module" exports 2 functions (add, square); --function= must be given`, "", nil},
		{"@ and + read one array each", []string{"--module=" + one, "--input=@ab.npy", "--input=+ab.npy"}, 0,
			"EXEC @scale\nresult[0]: hal.buffer_view\nf32=3\nresult[1]: hal.buffer_view\n2x2xf32=[1 4][9 16]\n", "", "", nil},
		{"* reads all arrays", []string{"--module=" + one, "--input=*ab.npy"}, 0,
			"EXEC @scale\nresult[0]: hal.buffer_view\nf32=3\nresult[1]: hal.buffer_view\n2x2xf32=[1 4][9 16]\n", "", "", nil},
		{"raw prefix and continuation", []string{"--module=" + one, "--input=f32=@five.bin", "--input=2x2xf32=+five.bin"}, 0,
			"EXEC @scale\nresult[0]: hal.buffer_view\nf32=-1\nresult[1]: hal.buffer_view\n2x2xf32=[4 0.25][49 9801]\n", "", "", nil},
		{"flagfile", []string{"--flagfile=args.flags"}, 0, "EXEC @add\nresult[0]: i32=42\n", "", "", nil},
		{"flagfile with a positional line", []string{"--flagfile=bad.flags"}, 1, "", "bad.flags:2: positional arguments not allowed in flag files", "", nil},
		{"scalar result to .npy", []string{"--module=" + two, "--function=add", "--input=40", "--input=2", "--output=@sum.npy"}, 0,
			"EXEC @add\n", "", "sum.npy", npyI32Scalar(42)},
		{"scalar result to .bin", []string{"--module=" + two, "--function=add", "--input=-3", "--input=2", "--output=@sum.bin"}, 0,
			"EXEC @add\n", "", "sum.bin", []byte{0xff, 0xff, 0xff, 0xff}},
		{"several devices", []string{"--module=" + two, "--function=add", "--input=1", "--input=2", "--device=local-sync", "--device=local-task"}, 0,
			"EXEC @add\nresult[0]: i32=3\n", "", "", nil},
		{"a bad second device", []string{"--module=" + two, "--function=add", "--input=1", "--input=2", "--device=local-sync", "--device=nosuch"}, 1,
			"", `[ERROR] NOT_FOUND; unknown driver "nosuch"`, "", nil},
		{"list devices of one driver", []string{"--list_devices=local-sync"}, 0, "local-sync://0\n", "", "", nil},
		{"list devices of an unknown driver", []string{"--list_devices=nosuch"}, 1, "", `unknown driver "nosuch"`, "", nil},
		{"dump devices", []string{"--dump_devices=local-task"}, 0, "", "", "", nil},
		{"approximate comparison", []string{"--module=" + one, "--input=f32=-5", "--input=2x2xf32=1 2 3 4", "--expected_output=f32=-5.00005", "--expected_output=2x2xf32=1 4 9 16"}, 0,
			"EXEC @scale\n[SUCCESS] all function outputs matched their expected values.\n", "", "", nil},
		{"exact comparison", []string{"--module=" + one, "--input=f32=-5", "--input=2x2xf32=1 2 3 4", "--expected_output=f32=-5.00005", "--expected_output=2x2xf32=1 4 9 16", "--equality_mode=exact"}, 1,
			"EXEC @scale\n[FAILED] result[0]: element at index 0 (-5) does not match the expected (-5.00005)\n  expected: f32=-5.00005\n  actual:   f32=-5\n", "", "", nil},
		{"bad equality mode", []string{"--equality_mode=fuzzy"}, 1, "", "--equality_mode=fuzzy: want approximate or exact", "", nil},
		{"mistyped flag", []string{"--fucntion=add"}, 1, "", "flag provided but not defined: -fucntion; did you mean --function?", "", nil},
		{"mistyped old flag", []string{"--entry_functoin=add"}, 1, "", "did you mean --entry_function?", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runTool(t, "", tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if tc.stdout != "" && stdout != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.stdout)
			}
			if tc.stderr != "" && !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tc.stderr)
			}
			if tc.code != 0 && strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
				t.Errorf("error is not one line: %q", stderr)
			}
			if tc.outFile != "" {
				got, err := os.ReadFile(tc.outFile)
				if err != nil || !bytes.Equal(got, tc.outData) {
					t.Errorf("%s = %q (%v), want %q", tc.outFile, got, err, tc.outData)
				}
			}
		})
	}
}

// npyI32Scalar is NumPy's .npy file of np.int32(v): a 0-d array.
func npyI32Scalar(v int32) []byte {
	header := "{'descr': '<i4', 'fortran_order': False, 'shape': (), }"
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

// TestHelpLayout checks IREE's --help layout: usage, description and
// examples first, then the tool's flag groups, logging flags last; on
// stdout.
func TestHelpLayout(t *testing.T) {
	code, stdout, stderr := runTool(t, "", "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("--help: exit %d, stderr %q", code, stderr)
	}
	order := []string{"Usage: iree-run-module --module=file.vmfb", "Runs an exported function", "Examples:\n  iree-run-module --device=local-task",
		"\n  iree-compile example.mlir | iree-run-module", "Module and function:\n  --module=", "Inputs and outputs:\n  --input=",
		"Devices:\n  --device=", "Diagnostics:\n  --print_statistics", "Flag files:\n  --flagfile=", "Logging flags:\n  --v="}
	at := 0
	for _, s := range order {
		i := strings.Index(stdout[at:], s)
		if i < 0 {
			t.Fatalf("--help lacks %q after byte %d:\n%s", s, at, stdout)
		}
		at += i + len(s)
	}
	if strings.Contains(stdout, "Other flags:") {
		t.Errorf("a flag is in no group:\n%s", stdout)
	}
}

// TestVerboseLogsToStderr checks that -v logging goes to stderr and leaves
// no glog files in the temporary directory.
func TestVerboseLogsToStderr(t *testing.T) {
	two := compileProgram(t, "two", twoExports)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	// glog writes to the process's stderr, not to the tool's writer.
	logFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	realStderr := os.Stderr
	os.Stderr = logFile
	code, _, stderr := runTool(t, "", "-v=1", "--module="+two, "--function=add", "--input=1", "--input=2")
	os.Stderr = realStderr
	runTool(t, "", "-v=0", "--list_drivers") // put the level back for later tests
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	logged, err := os.ReadFile(logFile.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logged), "loaded module module from") {
		t.Errorf("-v=1 logged nothing to stderr: %q", logged)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("-v=1 wrote %d file(s) into TMPDIR, e.g. %s", len(entries), entries[0].Name())
	}
}
