package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/transforms"
)

// compileProgram compiles testdata/<file> for llvm-cpu, as
// "iree-compile --iree-hal-target-backends=llvm-cpu" does, and writes the
// module to a temporary file.
func compileProgram(t *testing.T, file string) string {
	t.Helper()
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v (clang-16 compiles the generated kernels)", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v (ld.lld-16 links CPU executables)", err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	opts := pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"llvm-cpu"}}}
	s, err := pipeline.Compile(file, src, opts, "end")
	if err != nil {
		t.Fatalf("compiling %s: %v", file, err)
	}
	return writeModule(t, s.Output)
}

// TestCompiledChecksPass compiles a program of check-dialect tests whose
// expected values NumPy computed and runs it on both CPU devices.
func TestCompiledChecksPass(t *testing.T) {
	path := compileProgram(t, "pass.mlir")
	for _, device := range []string{"local-sync", "local-task"} {
		code, stdout, stderr := runTool(t, nil, "--device="+device, "--module="+path)
		if code != 0 || stderr != "" || !strings.Contains(stdout, "[  PASSED  ] 6 tests.\n") {
			t.Errorf("%s: exit %d, stderr %q, stdout:\n%s", device, code, stderr, stdout)
		}
	}
}

// TestCompiledChecksFail: failed checks of a compiled program are reported
// with IREE's messages, the test runs on after the first one, and
// --expect_failure accepts the run.
func TestCompiledChecksFail(t *testing.T) {
	path := compileProgram(t, "fail.mlir")
	code, stdout, stderr := runTool(t, nil, "--device=local-task", "--module="+path)
	got := times.ReplaceAllString(stdout, "(N ms$1)")
	want := `[==========] Running 3 tests from 1 test suite.
[----------] Global test environment set-up.
[----------] 3 tests from failing
[ RUN      ] failing.two_failures
fail.mlir:8:3: check.expect_almost_eq: Failure
Expected near equality of these values. Contents does not match to tolerance parameters atol=0.0001, rtol=0. The first failure occurs at index 2 as the lhs value 6 differs from the rhs value 6.5 by 5.000e-01.
  lhs:
    4xf32=2 4 6 8
  rhs:
    4xf32=2 4 6.5 8
fail.mlir:11:3: check.expect_eq: Failure
Expected equality of these values. Contents does not match. The first failure occurs at index 1 as the lhs value 16 differs from the rhs value 15.
  lhs:
    2xi32=14 16
  rhs:
    2xi32=14 15
[  FAILED  ] failing.two_failures (N ms)
[ RUN      ] failing.passes
[       OK ] failing.passes (N ms)
[ RUN      ] failing.scalar
fail.mlir:24:3: check.expect_true: Failure
Expected 0 to be nonzero.
[  FAILED  ] failing.scalar (N ms)
[----------] 3 tests from failing (N ms total)

[----------] Global test environment tear-down
[==========] 3 tests from 1 test suite ran. (N ms total)
[  PASSED  ] 1 test.
[  FAILED  ] 2 tests, listed below:
[  FAILED  ] failing.two_failures
[  FAILED  ] failing.scalar

 2 FAILED TESTS
`
	if code != 1 || got != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", code, got, want)
	}
	if want := "[ERROR] 2 of 3 tests failed; first: failing.two_failures: fail.mlir:8:3: check.expect_almost_eq: Expected near equality of these values."; !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q, want it to start with %q", stderr, want)
	}
	code, stdout, _ = runTool(t, nil, "--device=local-sync", "--module="+path, "--expect_failure")
	if code != 0 || !regexp.MustCompile(`\nTest failed as expected\n$`).MatchString(stdout) {
		t.Errorf("--expect_failure: exit %d, stdout ends %q", code, stdout[max(0, len(stdout)-60):])
	}
}
