package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/vm"
)

func runTool(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, bytes.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// testModule builds a module named name exporting the given tests, each
// one of (built by hand with the VM assembler, as the compiler lowers the
// check dialect):
//
//	pass         expect_true(1); expect_false(0)
//	two_fails    expect_true(0); expect_false(5); then counter := 1
//	eq_views     builds two 4xi32 views on the device (fills 7 and the
//	             value of global counter + 7) and calls expect_eq
//	eq_mismatch  the same with fills 7 and 8
//	trap         fails with "boom" (an error, not an expectation)
//	counter_zero expect_false(counter): the counter two_fails set is 0
//	             again in a fresh context
//	takes_arg    (i32) -> (): not a test
func testModule(t *testing.T, name string, tests ...string) []byte {
	t.Helper()
	b := vm.NewModuleBuilder(name)
	expectTrue := b.Import("check.expect_true", "0i_v")
	expectFalse := b.Import("check.expect_false", "0i_v")
	counter := b.AddGlobal(vm.KindI32)
	for _, test := range tests {
		switch test {
		case "pass":
			f := b.Function(test, "0v_v")
			one, zero := f.NewI32(), f.NewI32()
			f.ConstI32(one, 1)
			f.ConstI32(zero, 0)
			f.CallImport(expectTrue, []vm.Reg{one}, nil)
			f.CallImport(expectFalse, []vm.Reg{zero}, nil)
			f.Return()
			b.Export(test, f)
		case "two_fails":
			f := b.Function(test, "0v_v")
			zero, five, one := f.NewI32(), f.NewI32(), f.NewI32()
			f.ConstI32(zero, 0)
			f.ConstI32(five, 5)
			f.ConstI32(one, 1)
			f.CallImport(expectTrue, []vm.Reg{zero}, nil)
			f.CallImport(expectFalse, []vm.Reg{five}, nil)
			f.Emit(vm.OpGlobalStoreI32, counter, one)
			f.Return()
			b.Export(test, f)
		case "counter_zero":
			f := b.Function(test, "0v_v")
			v := f.NewI32()
			f.Emit(vm.OpGlobalLoadI32, v, counter)
			f.CallImport(expectFalse, []vm.Reg{v}, nil)
			f.Return()
			b.Export(test, f)
		case "eq_views", "eq_mismatch":
			eq := b.Import("check.expect_eq", "0rrr_v")
			get := b.Import("hal.devices.get", "0i_r")
			devAlloc := b.Import("hal.device.allocator", "0r_r")
			allocate := b.Import("hal.allocator.allocate", "0rIiiI_r")
			cbCreate := b.Import("hal.command_buffer.create", "0riiIi_r")
			cbBegin := b.Import("hal.command_buffer.begin", "0r_v")
			fill := b.Import("hal.command_buffer.fill_buffer", "0rrIIii_v")
			cbEnd := b.Import("hal.command_buffer.end", "0r_v")
			submit := b.Import("hal.ex.submit_and_wait", "0rr_v")
			vcreate := b.Import("hal.buffer_view.create", "0rIIiiCID_r")
			f := b.Function(test, "0v_v")
			i32 := func(v int32) vm.Reg { r := f.NewI32(); f.ConstI32(r, v); return r }
			i64 := func(v int64) vm.Reg { r := f.NewI64(); f.ConstI64(r, v); return r }
			dev, alloc := f.NewRefReg(), f.NewRefReg()
			f.CallImport(get, []vm.Reg{i32(0)}, []vm.Reg{dev})
			f.CallImport(devAlloc, []vm.Reg{dev}, []vm.Reg{alloc})
			c, pattern := f.NewI32(), f.NewI32()
			f.Emit(vm.OpGlobalLoadI32, c, counter)
			f.Emit(vm.OpAddI32, pattern, c, i32(7))
			if test == "eq_mismatch" {
				f.ConstI32(pattern, 8)
			}
			var views []vm.Reg
			for _, p := range []vm.Reg{i32(7), pattern} {
				buf, cb, view := f.NewRefReg(), f.NewRefReg(), f.NewRefReg()
				f.CallImport(allocate, []vm.Reg{alloc, i64(-1), i32(int32(hal.MemoryTypeDeviceLocal)), i32(int32(hal.BufferUsageDefault)), i64(16)}, []vm.Reg{buf})
				f.CallImport(cbCreate, []vm.Reg{dev, i32(1), i32(3), i64(-1), i32(0)}, []vm.Reg{cb})
				f.CallImport(cbBegin, []vm.Reg{cb}, nil)
				f.CallImport(fill, []vm.Reg{cb, buf, i64(0), i64(16), p, i32(4)}, nil)
				f.CallImport(cbEnd, []vm.Reg{cb}, nil)
				f.CallImport(submit, []vm.Reg{dev, cb}, nil)
				f.CallImportVariadic(vcreate, []int{1}, []vm.Reg{buf, i64(0), i64(16), i32(int32(hal.ElementTypeI32)), i32(1), i64(4)}, []vm.Reg{view})
				views = append(views, view)
			}
			f.CallImport(eq, []vm.Reg{dev, views[0], views[1]}, nil)
			f.Return()
			b.Export(test, f)
		case "trap":
			f := b.Function(test, "0v_v")
			code := f.NewI32()
			f.ConstI32(code, 13)
			f.Fail(code, "boom")
			b.Export(test, f)
		case "takes_arg":
			f := b.Function(test, "0i_v")
			f.Return()
			b.Export(test, f)
		default:
			t.Fatalf("no test %q to build", test)
		}
	}
	// Internal exports are not tests.
	f := b.Function("__init", "0v_v")
	f.Return()
	b.Export("__init", f)
	data, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeModule(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.vmfb")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// times replaces the millisecond counts, which vary.
var times = regexp.MustCompile(`\(\d+ ms( total)?\)`)

func TestAllPass(t *testing.T) {
	path := writeModule(t, testModule(t, "module", "pass", "eq_views", "counter_zero"))
	for _, device := range []string{"local-sync", "local-task"} {
		code, stdout, stderr := runTool(t, nil, "--device="+device, "--module="+path)
		want := `[==========] Running 3 tests from 1 test suite.
[----------] Global test environment set-up.
[----------] 3 tests from module
[ RUN      ] module.pass
[       OK ] module.pass (N ms)
[ RUN      ] module.eq_views
[       OK ] module.eq_views (N ms)
[ RUN      ] module.counter_zero
[       OK ] module.counter_zero (N ms)
[----------] 3 tests from module (N ms total)

[----------] Global test environment tear-down
[==========] 3 tests from 1 test suite ran. (N ms total)
[  PASSED  ] 3 tests.
`
		if got := times.ReplaceAllString(stdout, "(N ms$1)"); code != 0 || got != want || stderr != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", device, code, stderr, got, want)
		}
	}
}

func TestFailures(t *testing.T) {
	path := writeModule(t, testModule(t, "suite", "pass", "two_fails", "counter_zero", "trap", "eq_views"))
	code, stdout, stderr := runTool(t, nil, "--device=local-task", "--module="+path)
	got := times.ReplaceAllString(stdout, "(N ms$1)")
	// The trap's message carries the bytecode offset: checked apart.
	got = regexp.MustCompile(`at suite\.trap\+\d+`).ReplaceAllString(got, "at suite.trap+PC")
	want := `[==========] Running 5 tests from 1 test suite.
[----------] Global test environment set-up.
[----------] 5 tests from suite
[ RUN      ] suite.pass
[       OK ] suite.pass (N ms)
[ RUN      ] suite.two_fails
check.expect_true: Failure
Expected 0 to be nonzero.
check.expect_false: Failure
Expected 5 to be zero.
[  FAILED  ] suite.two_fails (N ms)
[ RUN      ] suite.counter_zero
[       OK ] suite.counter_zero (N ms)
[ RUN      ] suite.trap
suite.trap: Failure
executing trap: INTERNAL; boom; at suite.trap+PC
[  FAILED  ] suite.trap (N ms)
[ RUN      ] suite.eq_views
[       OK ] suite.eq_views (N ms)
[----------] 5 tests from suite (N ms total)

[----------] Global test environment tear-down
[==========] 5 tests from 1 test suite ran. (N ms total)
[  PASSED  ] 3 tests.
[  FAILED  ] 2 tests, listed below:
[  FAILED  ] suite.two_fails
[  FAILED  ] suite.trap

 2 FAILED TESTS
`
	if code != 1 || got != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", code, got, want)
	}
	wantErr := "[ERROR] 2 of 5 tests failed; first: suite.two_fails: check.expect_true: Expected 0 to be nonzero.\n"
	if stderr != wantErr {
		t.Errorf("stderr %q, want %q", stderr, wantErr)
	}

	// --expect_failure: the same run succeeds.
	code, stdout, stderr = runTool(t, nil, "--device=local-task", "--module="+path, "--expect_failure")
	if code != 0 || !strings.HasSuffix(stdout, "\nTest failed as expected\n") || stderr != "" {
		t.Errorf("--expect_failure: exit %d, stderr %q, stdout ends %q", code, stderr, stdout[max(0, len(stdout)-80):])
	}
	// ... and a passing one fails.
	pass := writeModule(t, testModule(t, "module", "pass"))
	code, stdout, stderr = runTool(t, nil, "--module="+pass, "--expect_failure")
	if code != 1 || !strings.HasSuffix(stdout, "\nTest passed but expected failure\n") || stderr != "[ERROR] --expect_failure: all 1 test passed\n" {
		t.Errorf("--expect_failure of a passing module: exit %d, stderr %q, stdout ends %q", code, stderr, stdout[max(0, len(stdout)-80):])
	}
}

// TestEqViewsMismatch: the failure message shows both views, read back
// from device memory the host cannot map.
func TestEqViewsMismatch(t *testing.T) {
	path := writeModule(t, testModule(t, "m", "eq_mismatch"))
	for _, device := range []string{"local-sync", "local-task", "vulkan"} {
		code, stdout, stderr := runTool(t, nil, "--device="+device, "--module="+path)
		if device == "vulkan" && strings.Contains(stderr, "vulkan") && code == 1 && stdout == "" {
			t.Logf("skipping vulkan: %s", stderr)
			continue
		}
		want := "[ RUN      ] m.eq_mismatch\ncheck.expect_eq: Failure\nExpected equality of these values. Contents does not match. The first failure occurs at index 0 as the lhs value 7 differs from the rhs value 8.\n  lhs:\n    4xi32=7 7 7 7\n  rhs:\n    4xi32=8 8 8 8\n[  FAILED  ] m.eq_mismatch"
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("%s: exit %d, stdout:\n%s\nwant it to contain:\n%s", device, code, stdout, want)
		}
	}
}
