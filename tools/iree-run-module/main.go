// Command iree-run-module loads one or more .vmfb modules, calls one
// exported function with inputs given on the command line and prints (or
// saves, or checks) its results, with IREE's flags and output format:
//
//	iree-run-module --device=local-task --module=example.vmfb \
//	    --function=mixed_invocation --input=8xf32=2 --input=8xf32=4
//	EXEC @mixed_invocation
//	result[0]: hal.buffer_view
//	8xf32=96 96 96 96 96 96 96 96
//
// Older spellings are accepted too: --module_file, --entry_function,
// --function_input and --print_max_element_count; with no --module the
// module is read from stdin. --function may be left out when the module
// exports one function. --flagfile=<file> reads more flags from a file.
package main

import (
	"flag"
	"io"
	"os"

	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/functionio"
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
	function       string
	inputs         toolflags.StringList
	outputs        toolflags.StringList
	expected       toolflags.StringList
	devices        toolflags.DeviceFlags
	plugins        toolflags.StringList
	maxElements    int64
	printStats     bool
	traceExecution bool
	groupCount     int
	thresholds     functionio.Thresholds
}

// help is the --help text around the flags.
var help = toolflags.Help{
	Usage:       "iree-run-module --module=file.vmfb [--function=name] [--input=value]... [flags]",
	Description: "Runs an exported function of a compiled module (.vmfb) on a HAL device and prints its results,\nwrites them to files (--output) or checks them (--expected_output).",
	Examples: []string{
		"iree-run-module --device=local-task --module=example.vmfb \\\n    --function=mixed_invocation --input=8xf32=2 --input=8xf32=4\n  # EXEC @mixed_invocation\n  # result[0]: hal.buffer_view\n  # 8xf32=96 96 96 96 96 96 96 96",
		"iree-compile example.mlir | iree-run-module --module=- --device=local-sync \\\n    --input=@inputs.npy --input=+inputs.npy --output=@result.npy",
	},
	Groups: []toolflags.Group{
		{Title: "Module and function", Flags: []string{"module", "function", "executable_plugin", "module_file", "entry_function"}},
		{Title: "Inputs and outputs", Flags: []string{"input", "output", "expected_output", "output_max_element_count",
			"function_input", "print_max_element_count"}},
		{Title: "Comparing outputs", Flags: toolflags.ComparisonFlagNames},
		{Title: "Devices", Flags: append(append([]string(nil), toolflags.DeviceFlagNames...), "task_topology_group_count")},
		{Title: "Diagnostics", Flags: []string{"print_statistics", "trace_execution"}},
	},
}

func newFlagSet(o *options, stdout, stderr io.Writer) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet("iree-run-module", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&o.modules, "module", "module `file` (.vmfb) to load; repeatable, loaded in order, the last one holds the function; '-' reads stdin (the default when no module is given and stdin is not a terminal)")
	fs.StringVar(&o.function, "function", "", "name of the exported function to run; may be left out when the module exports exactly one function")
	fs.Var(&o.inputs, "input", "function input, repeatable, in order: a buffer view ('2x2xi32=[[1 2][3 4]]', '8xf32=2' splats, '4xf32=' zero-fills, 'f32=-5' rank 0), a scalar ('5', 'i32=5', '3.14'), "+
		"NumPy arrays ('@f.npy' the first array of f.npy, '+f.npy' the next one, '*f.npy' all the rest), raw bytes ('4xf32=@f.bin' from the start of f.bin, '4xf32=+f.bin' after the previous input from it), "+
		"result storage ('&4xf32', a hal.buffer) or '(null)'")
	fs.Var(&o.outputs, "output", "where each result goes, one flag per result: '-' stdout, '' nowhere, '@f.npy' / '+f.npy' write / append NumPy, '@f.bin' / '+f.bin' write / append raw bytes (scalars become rank-0 arrays)")
	fs.Var(&o.expected, "expected_output", "expected value of each result, one flag per result (the --input forms); '(ignored)' skips one")
	toolflags.AddDeviceFlags(fs, &o.devices)
	toolflags.AddExecutablePluginFlag(fs, &o.plugins)
	fs.Int64Var(&o.maxElements, "output_max_element_count", bufferfmt.DefaultMaxElements, "print at most this many elements of each buffer view; the rest of a row prints as '...'")
	fs.BoolVar(&o.printStats, "print_statistics", false, "print device allocator statistics to stderr after the call")
	fs.BoolVar(&o.traceExecution, "trace_execution", false, "trace execution to stderr: every call into the hal module with its arguments and results")
	fs.IntVar(&o.groupCount, "task_topology_group_count", 0, "local-task: number of worker groups (0 = from the CPU topology)")
	toolflags.AddComparisonFlags(fs, &o.thresholds)
	for _, a := range [][2]string{
		{"module_file", "module"},
		{"entry_function", "function"},
		{"function_input", "input"},
		{"print_max_element_count", "output_max_element_count"},
	} {
		if err := toolflags.AddAlias(fs, a[0], a[1]); err != nil {
			return nil, err
		}
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
	if err := toolflags.Parse(fs, args); err != nil {
		if err == toolflags.ErrHelp {
			return 0
		}
		return toolflags.Report(stderr, err)
	}
	code, err := execute(&o, stdin, stdout, stderr)
	if err != nil {
		return toolflags.Report(stderr, err)
	}
	return code
}
