package main

import (
	"strings"
	"testing"
)

func TestHelp(t *testing.T) {
	code, stdout, _ := runTool(t, nil, "--help")
	if code != 0 {
		t.Fatalf("--help exited %d", code)
	}
	for _, flag := range []string{"--module", "--module_file", "--device", "--expect_failure", "--gtest_filter", "--gtest_list_tests",
		"--list_drivers", "--list_devices", "--trace_execution", "--task_topology_group_count", "--executable_plugin", "--logtostderr", "--v"} {
		if !strings.Contains(stdout, "\n  "+flag+"=") && !strings.Contains(stdout, "\n  "+flag+"\n") && !strings.Contains(stdout, "\n  "+flag+"[=") {
			t.Errorf("--help does not list %s", flag)
		}
	}
}

// TestBadCommandLines: each mistake is one line on stderr, exit code 1 and
// no test output.
func TestBadCommandLines(t *testing.T) {
	withArg := writeModule(t, testModule(t, "module", "pass", "takes_arg"))
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"unknown flag", "", []string{"--no_such_flag"}, "[ERROR] flag provided but not defined: -no_such_flag (see --help)"},
		{"near miss", "", []string{"--expect_failures"}, "did you mean --expect_failure?"},
		{"missing module", "", []string{"--module=/nonexistent/m.vmfb"}, "[ERROR] reading module: open /nonexistent/m.vmfb: no such file or directory"},
		{"missing positional module", "", []string{"/nonexistent/m.vmfb"}, "[ERROR] reading module: open /nonexistent/m.vmfb: no such file or directory"},
		{"empty stdin", "", nil, "[ERROR] reading module from stdin: no data"},
		{"garbage module", "this is not a module at all, not even close", []string{"--module=-"}, "[ERROR] loading module <stdin>: "},
		{"garbage module positional", "this is not a module at all, not even close", []string{"--expect_failure", "-"}, "[ERROR] loading module <stdin>: "},
		{"stdin twice", "x", []string{"--module=-", "-"}, "stdin can be read only once"},
		{"function with arguments", "", []string{"--module=" + withArg}, "[ERROR] expected function with no inputs or outputs, but export 'takes_arg' has signature '0i_v'"},
		{"signature checked before the device", "", []string{"--module=" + withArg, "--device=nope"}, "[ERROR] expected function with no inputs or outputs"},
		{"bad filter", "", []string{"--gtest_filter=:-x"}, `[ERROR] --gtest_filter=":-x" has no pattern before '-'`},
		{"negative groups", "", []string{"--task_topology_group_count=-2"}, "must not be negative"},
	}
	for _, tc := range tests {
		code, stdout, stderr := runTool(t, []byte(tc.stdin), tc.args...)
		if code != 1 {
			t.Errorf("%s: exit code %d, want 1", tc.name, code)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: stderr %q, want it to contain %q", tc.name, stderr, tc.want)
		}
		if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
			t.Errorf("%s: error is not one line: %q", tc.name, stderr)
		}
		if stdout != "" {
			t.Errorf("%s: stdout %q, want nothing", tc.name, stdout)
		}
	}
}

func TestUnknownDevice(t *testing.T) {
	path := writeModule(t, testModule(t, "module", "pass"))
	code, stdout, stderr := runTool(t, nil, "--module="+path, "--device=nope")
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "[ERROR] NOT_FOUND; unknown driver \"nope\"") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// --expect_failure does not turn an error into success: no test ran.
	code, _, stderr = runTool(t, nil, "--module="+path, "--device=nope", "--expect_failure")
	if code != 1 || !strings.Contains(stderr, "unknown driver") {
		t.Errorf("--expect_failure: exit %d, stderr %q", code, stderr)
	}
}

// TestModuleSpellings: the module by --module, --module_file, on stdin
// with --module=- or '-', as a positional argument before or after flags,
// and a flag's value given as the next word.
func TestModuleSpellings(t *testing.T) {
	data := testModule(t, "module", "pass")
	path := writeModule(t, data)
	for _, args := range [][]string{
		{"--module=" + path},
		{"--module_file=" + path},
		{"--module", path, "--device", "local-sync"},
		{path},
		{path, "--device=local-sync"},
		{"--device=local-sync", path},
		{"--device", "local-sync", path},
		{"--module=-"},
		{"-"},
		{"--expect_failure=false", "-"},
		{"--", path},
	} {
		code, stdout, stderr := runTool(t, data, args...)
		if code != 0 || !strings.Contains(stdout, "[  PASSED  ] 1 test.\n") {
			t.Errorf("%q: exit %d, stderr %q, stdout %q", args, code, stderr, stdout)
		}
	}
}

func TestFilterAndList(t *testing.T) {
	path := writeModule(t, testModule(t, "module", "pass", "two_fails", "counter_zero", "eq_views"))
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"*", []string{"pass", "two_fails", "counter_zero", "eq_views"}},
		{"module.pass", []string{"pass"}},
		{"*.*s", []string{"pass", "two_fails", "eq_views"}},
		{"-*two*", []string{"pass", "counter_zero", "eq_views"}},
		{"*o*:module.pass-*views", []string{"pass", "two_fails", "counter_zero"}},
		{"module.pas?", []string{"pass"}},
		{"other.*", nil},
	} {
		code, stdout, stderr := runTool(t, nil, "--module="+path, "--gtest_filter="+tc.filter, "--gtest_list_tests")
		want := ""
		if len(tc.want) > 0 {
			want = "module.\n  " + strings.Join(tc.want, "\n  ") + "\n"
		}
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("--gtest_filter=%s --gtest_list_tests: exit %d, stderr %q, stdout %q, want %q", tc.filter, code, stderr, stdout, want)
		}
	}
	// Filtered out, the failing test does not run.
	code, stdout, _ := runTool(t, nil, "--module="+path, "--gtest_filter=-*two*")
	if code != 0 || !strings.Contains(stdout, "[  PASSED  ] 3 tests.\n") || strings.Contains(stdout, "two_fails") {
		t.Errorf("filtered run: exit %d, stdout:\n%s", code, stdout)
	}
	// No test at all passes, as with gtest.
	code, stdout, _ = runTool(t, nil, "--module="+path, "--gtest_filter=none")
	stdout = times.ReplaceAllString(stdout, "(0 ms$1)")
	want := "[==========] Running 0 tests from 0 test suites.\n[----------] Global test environment set-up.\n[----------] Global test environment tear-down\n[==========] 0 tests from 0 test suites ran. (0 ms total)\n[  PASSED  ] 0 tests.\n"
	if code != 0 || stdout != want {
		t.Errorf("empty run: exit %d, stdout %q, want %q", code, stdout, want)
	}
}

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true}, {"*", "a.b", true}, {"a*", "a.b", true}, {"*b", "a.b", true},
		{"a?b", "a.b", true}, {"a?b", "ab", false}, {"a*b*c", "axxbyyc", true}, {"a*b*c", "axxbyy", false},
		{"", "", true}, {"", "a", false}, {"abc", "abc", true}, {"abc", "abd", false}, {"**a", "ba", true},
		{"*ab", "aab", true}, {"*aab", "aaab", true},
	} {
		if got := globMatch(tc.pattern, tc.name); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}
