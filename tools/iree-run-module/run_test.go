package main

import (
	"bytes"
	"strings"
	"testing"
)

func runTool(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestHelp(t *testing.T) {
	code, stdout, _ := runTool(t, "", "--help")
	if code != 0 {
		t.Fatalf("--help exited %d", code)
	}
	for _, flag := range []string{"--module", "--module_file", "--function", "--entry_function", "--input", "--function_input",
		"--device", "--output", "--expected_output", "--output_max_element_count", "--print_max_element_count",
		"--list_drivers", "--list_devices", "--print_statistics", "--trace_execution", "--task_topology_group_count", "--executable_plugin",
		"--logtostderr", "--v"} {
		if !strings.Contains(stdout, "\n  "+flag+"=") && !strings.Contains(stdout, "\n  "+flag+"\n") && !strings.Contains(stdout, "\n  "+flag+"[=") {
			t.Errorf("--help does not list %s", flag)
		}
	}
}

func TestBadCommandLines(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"positional", "", []string{"module.vmfb"}, "[ERROR] unexpected positional argument (expected none). Did you use pass a flag with a single dash ('-')? Use '--' instead."},
		{"unknown flag", "", []string{"--no_such_flag"}, "flag provided but not defined: -no_such_flag"},
		{"no function, missing module", "", []string{"--module=x.vmfb"}, "reading module"},
		{"underflow", "", []string{"--function=f", "--input=8xf32=1 2"}, "input data string underflow"},
		{"overflow old spelling", "", []string{"--entry_function=f", "--function_input=2xf32=1 2 3"}, "output data buffer overflow"},
		{"bad type", "", []string{"--function=f", "--input=4xq9=1"}, "unsupported element type"},
		{"missing npy", "", []string{"--function=f", "--input=@nope.npy"}, "reading nope.npy"},
		{"missing module", "", []string{"--function=f", "--module=/nonexistent/m.vmfb"}, "reading module"},
		{"empty stdin", "", []string{"--function=f"}, "no data"},
		{"garbage module", "this is not a module at all, not even close", []string{"--function=f", "--module=-"}, "loading module <stdin>"},
		{"stdin twice", "x", []string{"--function=f", "--module=-", "--module=-"}, "stdin can be read only once"},
		{"negative max", "", []string{"--function=f", "--output_max_element_count=-1"}, "must not be negative"},
	}
	for _, tc := range tests {
		code, stdout, stderr := runTool(t, tc.stdin, tc.args...)
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

func TestListDrivers(t *testing.T) {
	code, stdout, _ := runTool(t, "", "--list_drivers")
	if code != 0 || !strings.Contains(stdout, "Available HAL drivers") {
		t.Errorf("--list_drivers: exit %d, output %q", code, stdout)
	}
	if code, _, stderr := runTool(t, "", "--list_devices"); code != 0 {
		t.Errorf("--list_devices: exit %d, %s", code, stderr)
	}
}
