package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asToolEnv, set to 1 in a child's environment, makes this test binary run
// as iree-compile itself (see TestMain). The signal tests need the tool as a
// separate process, and re-executing the test binary works the same under
// go test and under Bazel, where no Go toolchain is on hand to build it.
const asToolEnv = "GOIREE_TEST_RUN_AS_IREE_COMPILE"

// toolDirEnv names the directory the child runs the tool in: under Bazel
// the test binary moves to its runfiles directory before TestMain, so the
// working directory the child inherited has to be restored by hand.
const toolDirEnv = "GOIREE_TEST_TOOL_DIR"

func TestMain(m *testing.M) {
	if os.Getenv(asToolEnv) == "1" {
		if dir := os.Getenv(toolDirEnv); dir != "" {
			if err := os.Chdir(dir); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
		main()
	}
	os.Exit(m.Run())
}

// buildTool returns a path that runs this command: the test binary, which
// acts as iree-compile while asToolEnv is set (t.Setenv sets it for the
// test's children).
func buildTool(t *testing.T, _ string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("finding the test binary: %v", err)
	}
	t.Setenv(asToolEnv, "1")
	return exe
}

// toolEnv is the environment of a tool run in the current directory with
// TMPDIR set to tmp.
func toolEnv(t *testing.T, tmp string) []string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "TMPDIR="+tmp, toolDirEnv+"="+dir)
}

// TestSignalStopsChildrenAndRemovesTemporaries interrupts a compile while
// clang is compiling a (deliberately slow) kernel source, and checks that
// clang is stopped, the temporary directory is gone and the exit status
// is 128+signal.
func TestSignalStopsChildrenAndRemovesTemporaries(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("skipping: no /proc to find child processes")
	}
	skipWithout(t, "clang-16")
	exe := buildTool(t, t.TempDir())
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			work := t.TempDir()
			t.Chdir(work)
			// A kernel clang needs many seconds for at -O2: thousands of
			// functions with loops the optimizer works on.
			var slow strings.Builder
			for i := 0; i < 3000; i++ {
				fmt.Fprintf(&slow, "int pad%d(int x) { int s = 0; for (int k = 0; k < x; k++) s += (k * %d) ^ (s >> 3); return s; }\n", i, i)
			}
			writeSourceProgram(t, ".c", sourceTargets[".c"][2]+slow.String())
			tmp := filepath.Join(work, "tmp")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "prog.mlir", "-o", "out.vmfb", "--iree-hal-clang-path=clang-16", "--iree-hal-kernel-cache-dir="+filepath.Join(work, "cache"))
			cmd.Env = toolEnv(t, tmp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for clang to run below the tool.
			var clang int
			deadline := time.Now().Add(60 * time.Second)
			for clang == 0 && time.Now().Before(deadline) {
				for _, p := range descendants(cmd.Process.Pid) {
					if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.HasPrefix(string(comm), "clang") {
						clang = p
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
			if clang == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("clang never started; stderr:\n%s", stderr.String())
			}
			entries, _ := os.ReadDir(tmp)
			if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "iree-compile-") {
				t.Errorf("while compiling, TMPDIR holds %v, want one iree-compile-* directory", entries)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
				t.Errorf("exit: %v, want status %d; stderr:\n%s", err, 128+int(sig), stderr.String())
			}
			if !strings.Contains(stderr.String(), "iree-compile: interrupted by "+signalName(sig)) {
				t.Errorf("stderr does not say what happened:\n%s", stderr.String())
			}
			// clang was stopped (the orphan is reaped by init, so wait a
			// little for it to disappear).
			for end := time.Now().Add(5 * time.Second); running(clang) && time.Now().Before(end); {
				time.Sleep(20 * time.Millisecond)
			}
			if running(clang) {
				syscall.Kill(clang, syscall.SIGKILL)
				t.Errorf("clang (pid %d) still runs after the tool exited", clang)
			}
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("TMPDIR still holds %d entries, e.g. %s", len(entries), entries[0].Name())
			}
			if _, err := os.Stat("out.vmfb"); !os.IsNotExist(err) {
				t.Errorf("out.vmfb exists after the interrupted compile (%v)", err)
			}
		})
	}
}

// TestNoTemporariesLeft checks that a finished compile (good or failing)
// leaves nothing in TMPDIR.
func TestNoTemporariesLeft(t *testing.T) {
	skipWithout(t, "clang-16")
	exe := buildTool(t, t.TempDir())
	work := t.TempDir()
	t.Chdir(work)
	writeSourceProgram(t, ".c", "")
	tmp := filepath.Join(work, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"prog.mlir", "-o", "out.vmfb", "--iree-hal-kernel-cache-dir=" + filepath.Join(work, "cache")},
		{"missing.mlir", "-o", "out2.vmfb"},
	} {
		cmd := exec.Command(exe, args...)
		cmd.Env = toolEnv(t, tmp)
		out, _ := cmd.CombinedOutput()
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Errorf("%v left %d entries in TMPDIR, e.g. %s\n%s", args, len(entries), entries[0].Name(), out)
		}
	}
	if _, err := os.Stat("out.vmfb"); err != nil {
		t.Errorf("the good compile wrote no module: %v", err)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"--version", "prog.mlir"}} {
		code, stdout, stderr := runCompile(args...)
		if code != 0 || !strings.HasPrefix(stdout, "goiree, an IREE-compatible compiler and runtime:\n  iree-compile version ") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if code, _, stderr := runCompile("--versoin"); code != 1 || !strings.Contains(stderr, "did you mean '--version'?") {
		t.Errorf("--versoin: exit %d, %q", code, stderr)
	}
}

func runCompile(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
