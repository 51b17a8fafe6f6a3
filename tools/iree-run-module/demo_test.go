package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/tooling/npy"
	"github.com/goiree/goiree/tools/internal/demomodule"
)

var update = flag.Bool("update", false, "rewrite testdata/simple_mul.so (the demonstration kernel) from a fresh build")

// buildDemo builds the demonstration module with clang and ld.lld,
// skipping the test when they are missing.
func buildDemo(t *testing.T) string {
	t.Helper()
	clang, lld, err := demomodule.FindTools()
	if err != nil {
		t.Skipf("skipping: %v; the demonstration kernel needs clang-16 and ld.lld-16", err)
	}
	elf, err := demomodule.BuildKernel(clang, lld, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(filepath.Join("testdata", "simple_mul.so"), elf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return writeDemo(t, elf)
}

// writeDemo assembles the demonstration module around the kernel elf and
// writes it to a temporary file.
func writeDemo(t *testing.T, elf []byte) string {
	t.Helper()
	vmfb, err := demomodule.Build(elf)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.vmfb")
	if err := os.WriteFile(path, vmfb, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// demoOutput is what iree-run-module prints for n elements of value v with
// the default --output_max_element_count of 1024.
func demoOutput(n int, v string) string {
	shown := min(n, 1024)
	line := strings.TrimSuffix(strings.Repeat(v+" ", shown), " ")
	if shown < n {
		line += "..."
	}
	return "EXEC @simple_mul\nresult[0]: hal.buffer_view\n" + strconv.Itoa(n) + "xf32=" + line + "\n"
}

func TestDemoEndToEnd(t *testing.T) {
	path := buildDemo(t)
	const n = 1000003
	want := demoOutput(n, "8")
	for _, args := range [][]string{
		{"--device=local-sync", "--module=" + path, "--function=simple_mul", "--input=1000003xf32=2", "--input=1000003xf32=4"},
		{"--device=local-task", "--module=" + path, "--function=simple_mul", "--input=1000003xf32=2", "--input=1000003xf32=4"},
		{"--device=local-task", "--task_topology_group_count=2", "--module=" + path, "--function=simple_mul", "--input=1000003xf32=2", "--input=1000003xf32=4"},
		{"--module_file=" + path, "--entry_function=simple_mul", "--function_input=1000003xf32=2", "--function_input=1000003xf32=4"},
	} {
		code, stdout, stderr := runTool(t, "", args...)
		if code != 0 || stdout != want {
			t.Errorf("%v: exit %d, stderr %q\nstdout (%d bytes) %.200q...\nwant (%d bytes) %.200q...", args, code, stderr, len(stdout), stdout, len(want), want)
		}
	}

	// Every element, through --output=@file.npy, on local-task.
	out := filepath.Join(t.TempDir(), "out.npy")
	code, stdout, stderr := runTool(t, "", "--device=local-task", "--module="+path, "--function=simple_mul",
		"--input=1000003xf32=2", "--input=1000003xf32=4", "--output=@"+out)
	if code != 0 || stdout != "EXEC @simple_mul\n" {
		t.Fatalf("--output=@file: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	arrays, err := npy.ReadAll(data)
	if err != nil || len(arrays) != 1 || arrays[0].Shape.String() != "1000003" {
		t.Fatalf("output npy: %v", err)
	}
	for i := 0; i < n; i++ {
		if v := math.Float32frombits(binary.LittleEndian.Uint32(arrays[0].Data[4*i:])); v != 8 {
			t.Fatalf("element %d = %v, want 8", i, v)
		}
	}

	// Inputs from a .npy file (both arrays in one file: '@' reads the first,
	// '+' the next, as in IREE), the module on stdin.
	vmfb, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "in.npy")
	var two bytes.Buffer
	for _, v := range []float32{3, 5} {
		raw := make([]byte, 4*100)
		for i := 0; i < 100; i++ {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v+float32(i)))
		}
		if err := npy.Write(&two, &npy.Array{Shape: []int64{100}, ElementType: arrays[0].ElementType, Data: raw}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(in, two.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runTool(t, string(vmfb), "--device=local-sync", "--module=-", "--function=simple_mul", "--input=@"+in, "--input=+"+in, "--output_max_element_count=4")
	if want := "EXEC @simple_mul\nresult[0]: hal.buffer_view\n100xf32=15 24 35 48...\n"; code != 0 || stdout != want {
		t.Errorf("npy inputs: exit %d, stdout %q, want %q, stderr %q", code, stdout, want, stderr)
	}

	// --expected_output: match, then mismatch.
	code, stdout, _ = runTool(t, "", "--device=local-sync", "--module="+path, "--function=simple_mul",
		"--input=100xf32=2", "--input=100xf32=4", "--expected_output=100xf32=8")
	if code != 0 || !strings.Contains(stdout, "[SUCCESS] all function outputs matched their expected values.") {
		t.Errorf("expected match: exit %d, stdout %q", code, stdout)
	}
	code, stdout, _ = runTool(t, "", "--device=local-sync", "--module="+path, "--function=simple_mul",
		"--input=100xf32=2", "--input=100xf32=4", "--expected_output=100xf32=9")
	if code != 1 || !strings.Contains(stdout, "[FAILED] result[0]: element at index 0 (8) does not match the expected (9)") {
		t.Errorf("expected mismatch: exit %d, stdout %q", code, stdout)
	}
}

func TestDemoErrors(t *testing.T) {
	path := buildDemo(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--input=8xf32=1", "--input=4xf32=1"}, "input 1: shape mismatch; expected 8 but have 4"},
		{[]string{"--input=8xi32=1", "--input=8xf32=1"}, "input 0: element type mismatch; expected f32 but have i32"},
		{[]string{"--input=8xf32=1"}, "the function takes 2 argument(s) (0rr_r) but 1 input(s) were given"},
		{[]string{"--input=8xf32=1", "--input=5"}, "expects a buffer view here, not the scalar"},
		{[]string{"--input=8xf32=1", "--input=8xf32=1", "--device=nosuch"}, `unknown driver "nosuch"`},
		{[]string{"--input=8xf32=1", "--input=8xf32=1", "--device=local-sync://3"}, "not found"},
		{[]string{"--input=8xf32=1", "--input=8xf32=1", "--output=@a.npy"}, ""},
	}
	for _, tc := range tests {
		args := append([]string{"--module=" + path, "--function=simple_mul"}, tc.args...)
		if !strings.Contains(strings.Join(tc.args, " "), "--device=") {
			args = append(args, "--device=local-sync")
		}
		if strings.HasPrefix(tc.args[len(tc.args)-1], "--output=@") {
			// Two outputs for one result: rejected before anything is written.
			args = append(args, "--output=-")
			tc.want = "2 --output flag(s) given but the function returned 1 result(s)"
		}
		code, _, stderr := runTool(t, "", args...)
		if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, want one line containing %q", tc.args, code, stderr, tc.want)
		}
	}
	code, _, stderr := runTool(t, "", "--module="+path, "--function=nope", "--device=local-sync")
	if code != 1 || !strings.Contains(stderr, `function "nope" not found (exports: demo.simple_mul)`) {
		t.Errorf("unknown function: %d %q", code, stderr)
	}
}

// TestCommittedDemo runs the demonstration module around the committed
// kernel testdata/simple_mul.so (written by -update), so that it runs where
// clang is missing.
func TestCommittedDemo(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("skipping: the demonstration kernel is x86-64")
	}
	elf, err := os.ReadFile(filepath.Join("testdata", "simple_mul.so"))
	if err != nil {
		t.Fatal(err)
	}
	path := writeDemo(t, elf)
	code, stdout, stderr := runTool(t, "", "--device=local-task", "--module="+path, "--function=simple_mul",
		"--input=1000003xf32=2", "--input=1000003xf32=4")
	if want := demoOutput(1000003, "8"); code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %q, stdout %.200q", code, stderr, stdout)
	}
}
