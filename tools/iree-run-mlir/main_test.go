package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

// program has module state, so that running every function in one context
// shows: inc sees what the previous call stored.
const program = `util.global private mutable @count = dense<1.0> : tensor<f32>
func.func @inc() -> tensor<f32> {
  %0 = util.global.load @count : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %1 = arith.addf %0, %one : tensor<f32>
  util.global.store %1, @count : tensor<f32>
  return %1 : tensor<f32>
}
func.func @scale(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %s : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %m = arith.mulf %v, %w : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
`

func needTools(t *testing.T) {
	t.Helper()
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v", err)
	}
}

func runTool(stdin string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRun(t *testing.T) {
	needTools(t)
	path := filepath.Join(t.TempDir(), "prog.mlir")
	if err := os.WriteFile(path, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	scaled := "EXEC @scale\nresult[0]: hal.buffer_view\n4xf32=2 4 6 8\n"
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"one function, Xcompiler", "", []string{"--Xcompiler,iree-hal-target-backends=llvm-cpu", path, "--function=scale", "--input=4xf32=1,2,3,4", "--input=f32=2"}, 0, scaled},
		{"plain compiler flag, device inferred", "", []string{"--iree-hal-target-backends=llvm-cpu", "--function", "scale", path, "--input=4xf32=1,2,3,4", "--input=f32=2"}, 0, scaled},
		{"target from --device, flags after --", "", []string{"--device=local-sync", "--function=@scale", "--input=4xf32=1,2,3,4", "--input=f32=2", path, "--", "--iree-opt-level=O2"}, 0, scaled},
		{"Xruntime and stdin", program, []string{"--Xruntime,function=scale", "--input=4xf32=1,2,3,4", "--input=f32=2", "-"}, 0, scaled},
		{"expected output matches", "", []string{path, "--function=scale", "--input=4xf32=1,2,3,4", "--input=f32=2", "--expected_output=4xf32=2,4,6,8"}, 0, "[SUCCESS]"},
		{"expected output differs", "", []string{path, "--function=scale", "--input=4xf32=1,2,3,4", "--input=f32=2", "--expected_output=4xf32=2,4,6,9"}, 1, "[FAILED]"},
		{"every function in one context", "", []string{path, "--function=inc"}, 0, "EXEC @inc\nresult[0]: hal.buffer_view\nf32=2\n"},
	} {
		code, stdout, stderr := runTool(c.stdin, c.args...)
		if code != c.code || !strings.Contains(stdout, c.want) {
			t.Errorf("%s: exit %d (want %d), stdout %q (want %q), stderr %q", c.name, code, c.code, stdout, c.want, stderr)
		}
	}
}

func TestEveryFunction(t *testing.T) {
	needTools(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "state.mlir")
	src := strings.Replace(program, "func.func @scale(%x: tensor<4xf32>, %s: tensor<f32>)", "func.func private @scale(%x: tensor<4xf32>, %s: tensor<f32>)", 1) +
		"func.func @inc_again() -> tensor<f32> {\n  %r = call @inc() : () -> tensor<f32>\n  return %r : tensor<f32>\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runTool("", path)
	want := "EXEC @inc\nresult[0]: hal.buffer_view\nf32=2\nEXEC @inc_again\nresult[0]: hal.buffer_view\nf32=3\n"
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit %d, stdout %q (want %q), stderr %q", code, stdout, want, stderr)
	}
}

func TestBadInput(t *testing.T) {
	needTools(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "prog.mlir")
	bad := filepath.Join(dir, "bad.mlir")
	if err := os.WriteFile(path, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("func.func @f() -> i32 {\n  return %x : i32\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unsupported compiler flag", []string{"--Xcompiler,compile-to=flow", path}, "compiler flag --compile-to=flow is not supported by iree-run-mlir"},
		{"bad compiler value", []string{"--iree-input-type=torch", path}, "unsupported --iree-input-type=torch"},
		{"missing file", []string{filepath.Join(dir, "nope.mlir")}, "reading " + filepath.Join(dir, "nope.mlir")},
		{"parse error", []string{bad}, bad + ":2:10: error: use of undeclared SSA value name '%x'"},
		{"two sources", []string{path, path}, "expected one source file, got 2"},
		{"inputs without --function", []string{path, "--input=f32=1"}, "--input, --output and --expected_output need --function="},
		{"dangling Xcompiler", []string{path, "--Xcompiler"}, "--Xcompiler needs a flag after it"},
		{"unknown runtime flag", []string{path, "--fuction=scale"}, "did you mean --function?"},
	} {
		code, stdout, stderr := runTool("", c.args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.name, code, stdout, stderr, c.want)
		}
	}
}
