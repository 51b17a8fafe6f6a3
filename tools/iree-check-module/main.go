// Command iree-check-module runs the tests of a compiled check-style
// program, as IREE's tool of that name does: every function the main (last)
// module exports is one test, run in a fresh context with the "check"
// module (runtime/modules/check) providing the expectations the program
// calls. The output is gtest's:
//
//	iree-compile test.mlir --iree-hal-target-backends=llvm-cpu -o test.vmfb
//	iree-check-module --device=local-task --module=test.vmfb
//	[==========] Running 2 tests from 1 test suite.
//	[----------] Global test environment set-up.
//	[----------] 2 tests from module
//	[ RUN      ] module.add
//	[       OK ] module.add (0 ms)
//	...
//	[  PASSED  ] 2 tests.
//
// A failed expectation is printed and the test goes on to its end; the test
// then fails, and so does the run (exit code 1). --expect_failure turns that
// round: the run succeeds when a test failed ("Test failed as expected")
// and fails when none did. Every exported function must take no arguments
// and return nothing. --gtest_filter selects tests by name. The module may
// be given as a positional argument too ("iree-check-module -" reads
// stdin), as the older tool took it.
package main

import (
	"flag"
	"io"
	"os"
	"strings"

	"github.com/goiree/goiree/tools/internal/panicguard"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

func main() {
	args := os.Args[1:]
	os.Exit(panicguard.Run(args, os.Stderr, func() int { return run(args, os.Stdin, os.Stdout, os.Stderr) }))
}

// options are the parsed flags.
type options struct {
	modules        toolflags.StringList
	devices        toolflags.DeviceFlags
	plugins        toolflags.StringList
	expectFailure  bool
	filter         string
	listTests      bool
	traceExecution bool
	groupCount     int
}

// help is the --help text around the flags.
var help = toolflags.Help{
	Usage:       "iree-check-module --module=test.vmfb [--device=uri] [--expect_failure] [flags]",
	Description: "Runs every exported function of a compiled check-style program (.vmfb) as one test, with the check module\n(check.expect_eq, check.expect_almost_eq, ...) providing its expectations, and reports gtest-style.",
	Examples: []string{
		"iree-compile test.mlir --iree-hal-target-backends=llvm-cpu -o test.vmfb\niree-check-module --device=local-task --module=test.vmfb",
		"iree-compile failing.mlir --iree-hal-target-backends=llvm-cpu | iree-check-module --module=- --expect_failure",
	},
	Groups: []toolflags.Group{
		{Title: "Module and tests", Flags: []string{"module", "expect_failure", "gtest_filter", "gtest_list_tests", "executable_plugin", "module_file"}},
		{Title: "Devices", Flags: append(append([]string(nil), toolflags.DeviceFlagNames...), "task_topology_group_count")},
		{Title: "Diagnostics", Flags: []string{"trace_execution"}},
	},
}

func newFlagSet(o *options, stdout, stderr io.Writer) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet("iree-check-module", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&o.modules, "module", "module `file` (.vmfb) to load; repeatable, loaded in order, the last one holds the tests; '-' reads stdin (the default when no module is given and stdin is not a terminal)")
	toolflags.AddDeviceFlags(fs, &o.devices)
	toolflags.AddExecutablePluginFlag(fs, &o.plugins)
	fs.BoolVar(&o.expectFailure, "expect_failure", false, "the run is expected to fail: exit 0 when a test failed ('Test failed as expected') and 1 when all passed")
	fs.StringVar(&o.filter, "gtest_filter", "*", "run only the tests whose module.function names match: ':'-separated patterns with '*' and '?', then optionally '-' and patterns to leave out")
	fs.BoolVar(&o.listTests, "gtest_list_tests", false, "list the tests (module, then each function indented) and exit")
	fs.BoolVar(&o.traceExecution, "trace_execution", false, "trace execution to stderr: every call into the hal module with its arguments and results")
	fs.IntVar(&o.groupCount, "task_topology_group_count", 0, "local-task: number of worker groups (0 = from the CPU topology)")
	if err := toolflags.AddAlias(fs, "module_file", "module"); err != nil {
		return nil, err
	}
	toolflags.AddLoggingFlags(fs)
	fs.Usage = func() { toolflags.PrintHelp(stdout, fs, help) }
	return fs, nil
}

// run is the whole tool: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o options
	fs, err := newFlagSet(&o, stdout, stderr)
	if err != nil {
		return toolflags.Report(stderr, err)
	}
	flags, positional := splitPositional(fs, args)
	if err := toolflags.Parse(fs, flags); err != nil {
		if err == toolflags.ErrHelp {
			return 0
		}
		return toolflags.Report(stderr, err)
	}
	o.modules = append(o.modules, positional...)
	code, err := execute(&o, stdin, stdout, stderr)
	if err != nil {
		return toolflags.Report(stderr, err)
	}
	return code
}

// splitPositional separates the module paths given as positional arguments
// (the older tool's "iree-check-module [flags] module.vmfb", "-" for stdin)
// from the flags, which may come before and after them. A word following a
// flag that takes a value, given without '=', is that flag's value; every
// word after "--" is positional.
func splitPositional(fs *flag.FlagSet, args []string) (flags, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, append(positional, args[i+1:]...)
		case a == "-" || len(a) < 2 || a[0] != '-':
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := a[1:]
		if name[0] == '-' {
			name = name[1:]
		}
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f == nil || isBool(f) {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, positional
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
