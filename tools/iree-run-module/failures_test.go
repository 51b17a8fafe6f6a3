package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/runtime/vm"
)

// The failure tests run iree-run-module on testdata/failures/failures.mlir:
// a dispatch whose workgroup count is an argument, and kernels that write
// through NULL, divide by zero and execute ud2 in workgroup 2. Crashing
// cases run in a child process (this test binary, re-executed with
// toolChildEnv set, runs the tool's main on the arguments that follow) so
// that the test sees the exit code and the whole stderr.

const toolChildEnv = "GOIREE_RUN_MODULE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(toolChildEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// compileFailures compiles failures.mlir (the compiler compiles kernels.c
// with clang) and returns the module.
func compileFailures(t *testing.T) []byte {
	t.Helper()
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v (clang-16 builds the kernels)", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v (ld.lld-16 links CPU executables)", err)
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "failures"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "failures.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("failures.mlir", src, pipeline.Options{ObjectSearchPaths: []string{dir}}, "")
	if err != nil {
		t.Fatal(err)
	}
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets, LLVMCPU: llvmcpu.Options{Objects: s.Resolver}})
	if err != nil {
		t.Fatal(err)
	}
	return vmfb
}

// runChild runs the tool in a child process and returns its exit code
// (-1 when a signal or the timeout ended it), stdout and stderr.
func runChild(t *testing.T, timeout time.Duration, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), toolChildEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running the tool: %v", err)
	}
	return code, stdout.String(), stderr.String()
}

// TestKernelCrashes: on local-sync and local-task, a kernel that writes
// through NULL, divides by zero or executes an illegal instruction ends the
// run with exit code 1 and one stderr line naming the signal, the
// executable, the export and the workgroup, and no goroutine dump; under -v
// Go's dump is printed (exit code 2).
func TestKernelCrashes(t *testing.T) {
	module := filepath.Join(t.TempDir(), "failures.vmfb")
	if err := os.WriteFile(module, compileFailures(t), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		function, input, want string
	}{
		{"write_null", "4xi64=0", `[ERROR] executing write_null: hal.ex.submit_and_wait: INTERNAL; command 0: kernel crashed: SIGSEGV (address not mapped, address 0x0) in executable @write_null_dispatch_0::@embedded_elf_x86_64, export 0 ("null_store"), workgroup (2, 0, 0) (the process may be corrupt; run with -v for Go's dump); at failures.write_null+{N} (failures.mlir:{N}:{N})`},
		{"divide", "4xi32=1 2 0 4", `[ERROR] executing divide: hal.ex.submit_and_wait: INTERNAL; command 0: kernel crashed: SIGFPE (integer divide by zero at pc 0x{H}) in executable @divide_dispatch_0::@embedded_elf_x86_64, export 0 ("div_zero"), workgroup (2, 0, 0) (the process may be corrupt; run with -v for Go's dump); at failures.divide+{N} (failures.mlir:{N}:{N})`},
		{"trap", "4xi32=1 2 3 4", `[ERROR] executing trap: hal.ex.submit_and_wait: INTERNAL; command 0: kernel crashed: SIGILL (illegal operand at pc 0x{H}) in executable @trap_dispatch_0::@embedded_elf_x86_64, export 0 ("illegal"), workgroup (2, 0, 0) (the process may be corrupt; run with -v for Go's dump); at failures.trap+{N} (failures.mlir:{N}:{N})`},
	}
	for _, device := range []string{"local-sync", "local-task"} {
		for _, tt := range tests {
			code, stdout, stderr := runChild(t, time.Minute, "--device="+device, "--module="+module, "--function="+tt.function, "--input="+tt.input)
			line := strings.TrimSuffix(stderr, "\n")
			if code != 1 || strings.Contains(line, "\n") || !like(tt.want, line) || stdout != "EXEC @"+tt.function+"\n" {
				t.Errorf("%s %s: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and the line\n%s", device, tt.function, code, stdout, stderr, tt.want)
			}
		}
	}
	code, _, stderr := runChild(t, time.Minute, "-v=1", "--device=local-sync", "--module="+module, "--function=write_null", "--input=4xi64=0")
	if code != 2 || !strings.Contains(stderr, "SIGSEGV") || !strings.Contains(stderr, "goroutine ") {
		t.Errorf("-v: exit %d, want 2 with Go's dump; stderr:\n%s", code, stderr)
	}
}

// like reports whether got equals want, where in want "{N}" stands for
// decimal digits, "{H}" for hex digits, "{W}" for a word without spaces and
// "{REST}" for anything.
func like(want, got string) bool {
	re := regexp.QuoteMeta(want)
	for k, v := range map[string]string{`\{N\}`: `[0-9]+`, `\{H\}`: `[0-9a-f]+`, `\{W\}`: `[^ ]+`, `\{REST\}`: `.*`} {
		re = strings.ReplaceAll(re, k, v)
	}
	return regexp.MustCompile("^" + re + "$").MatchString(got)
}

// TestWorkgroupCountLimits: a workgroup count of 2^32 or a negative one is
// an error naming the dispatch and the counts, never truncated (2^32 used
// to become 0: the kernel did not run and the result was the input).
func TestWorkgroupCountLimits(t *testing.T) {
	module := filepath.Join(t.TempDir(), "failures.vmfb")
	if err := os.WriteFile(module, compileFailures(t), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		n, stdout, stderr string
		code              int
	}{
		{"3", "EXEC @count\nresult[0]: hal.buffer_view\n1xi32=3\n", "", 0},
		{"70000", "EXEC @count\nresult[0]: hal.buffer_view\n1xi32=70000\n", "", 0},
		{"4294967296", "EXEC @count\n", "[ERROR] executing count: hal.ex.workgroup_count_error: OUT_OF_RANGE; dispatch of @count_dispatch_0::@embedded_elf_x86_64::@count: workgroup count (4294967296, 1, 1) exceeds 4294967295 (2^32-1), the most the HAL takes in one dimension; it is not truncated; at failures.count+{N} (failures.mlir:{N}:{N})\n", 1},
		{"-1", "EXEC @count\n", "[ERROR] executing count: hal.ex.workgroup_count_error: OUT_OF_RANGE; dispatch of @count_dispatch_0::@embedded_elf_x86_64::@count: workgroup count (-1, 1, 1) is negative; at failures.count+{N} (failures.mlir:{N}:{N})\n", 1},
	}
	for _, device := range []string{"local-sync", "local-task"} {
		for _, tt := range tests {
			code, stdout, stderr := runTool(t, "", "--device="+device, "--module="+module, "--function=count", "--input=i64="+tt.n, "--input=1xi32=0")
			if code != tt.code || stdout != tt.stdout || !like(strings.TrimSuffix(tt.stderr, "\n"), strings.TrimSuffix(stderr, "\n")) {
				t.Errorf("%s n=%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", device, tt.n, code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
		}
	}
}

// executableRanges returns the byte ranges of the module's embedded
// executables.
func executableRanges(t *testing.T, data []byte) [][2]int {
	t.Helper()
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]int
	for _, s := range m.RodataSegments() {
		if s.SHA256 == nil {
			continue
		}
		i := bytes.Index(data, s.Data)
		if i < 0 {
			t.Fatalf("executable %s not found in the module", s.Name)
		}
		out = append(out, [2]int{i, i + len(s.Data)})
	}
	if len(out) == 0 {
		t.Fatal("the module has no executable with a digest")
	}
	return out
}

// TestCorruptExecutables: flipping bytes in an embedded executable's code
// makes the module fail to load with DATA_LOSS naming the executable,
// before anything is mapped or run, for 300 random corruptions (1 to 4
// flipped bytes each). Then 300 modules with bytes flipped anywhere are
// run in child processes: none may crash (die by a signal, print Go's dump
// or hang); each either runs or fails with one stderr line.
func TestCorruptExecutables(t *testing.T) {
	data := compileFailures(t)
	ranges := executableRanges(t, data)
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(18))
	corrupt := func(lo, hi int) []byte {
		bad := bytes.Clone(data)
		for k := 1 + rng.Intn(4); k > 0; k-- {
			bad[lo+rng.Intn(hi-lo)] ^= byte(1 + rng.Intn(255))
		}
		return bad
	}
	path := filepath.Join(dir, "bad.vmfb")
	for i := 0; i < 300; i++ {
		r := ranges[rng.Intn(len(ranges))]
		if err := os.WriteFile(path, corrupt(r[0], r[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runTool(t, "", "--device=local-sync", "--module="+path, "--function=divide", "--input=4xi32=1 2 5 4")
		if code != 1 || stdout != "" || !like("[ERROR] loading module "+path+": loading bytecode module: DATA_LOSS; module failures: executable @{W} (rodata segment {N}) is damaged: {REST}", strings.TrimSuffix(stderr, "\n")) {
			t.Fatalf("corruption %d of executable code: exit %d, stdout %q, stderr %q", i, code, stdout, stderr)
		}
	}
	if testing.Short() {
		return
	}
	type outcome struct{ ran, failed int }
	var mu sync.Mutex
	var got outcome
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				mu.Lock()
				bad := corrupt(0, len(data))
				mu.Unlock()
				p := filepath.Join(dir, fmt.Sprintf("any%d.vmfb", i))
				if err := os.WriteFile(p, bad, 0o644); err != nil {
					t.Error(err)
					return
				}
				code, _, stderr := runChild(t, 30*time.Second, "--device=local-task", "--module="+p, "--function=divide", "--input=4xi32=1 2 5 4")
				os.Remove(p)
				mu.Lock()
				switch {
				case code == 0:
					got.ran++
				case code == 1 && strings.Count(stderr, "\n") == 1 && !strings.Contains(stderr, "goroutine "):
					got.failed++
				default:
					t.Errorf("corruption %d anywhere in the module crashed: exit %d, stderr:\n%s", i, code, stderr)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < 300; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	t.Logf("300 modules corrupted anywhere: %d ran, %d refused or failed with one line, %d crashed", got.ran, got.failed, 300-got.ran-got.failed)
}
