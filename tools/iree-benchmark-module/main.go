// Command iree-benchmark-module times calls of the exported functions of a
// compiled module, with iree-run-module's module, device and input flags
// and Google Benchmark's reporting:
//
//	iree-benchmark-module --device=local-task --module=example.vmfb \
//	    --function=mixed_invocation --input=8xf32=2 --input=8xf32=4
//	-----------------------------------------------------------------------------------------------
//	Benchmark                                             Time             CPU   Iterations
//	-----------------------------------------------------------------------------------------------
//	BM_mixed_invocation/process_time/real_time        0.0245 ms       0.0245 ms        28542
//
// Each benchmark is named BM_<function>/process_time/real_time: Time is the
// wall-clock time of one iteration and CPU the CPU time the whole process
// (every thread) spent in it. One iteration makes --batch_size calls of the
// function; items_per_second counts calls. The iteration count grows until
// a run lasts --benchmark_min_time ("0.5", "0.5s", or "100x" for exactly 100
// iterations). --benchmark_repetitions=N runs the measurement N times and
// adds _mean, _median and _stddev rows (and, with
// --benchmark_report_aggregates_only, prints only those).
// --benchmark_format=json (or csv) prints Google Benchmark's JSON document
// (or CSV rows) instead of the table, and --benchmark_out=<file> also
// writes them to a file in --benchmark_out_format (json by default).
// --benchmark_filter is a regular expression, as in Google Benchmark. Times
// are in milliseconds unless --time_unit says otherwise, as in IREE.
// Without --function every exported function that takes no arguments is
// benchmarked. After each call the result buffers go back to
// the device allocator (--release_results, on by default), so that large
// results reuse cached memory instead of fresh zeroed pages.
package main

import (
	"errors"
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
	functions      toolflags.StringList
	inputs         toolflags.StringList
	devices        toolflags.DeviceFlags
	plugins        toolflags.StringList
	printStats     bool
	groupCount     int
	batchSize      int
	timeUnit       string
	format         string
	outPath        string
	outFormat      string
	repetitions    int
	minTime        string
	aggregatesOnly bool
	filter         string
	releaseResults bool
	processOutputs bool
	outputs        toolflags.StringList
	expected       toolflags.StringList
	maxElements    int64
	thresholds     functionio.Thresholds
}

// help is the --help text around the flags.
var help = toolflags.Help{
	Usage:       "iree-benchmark-module --module=file.vmfb [--function=name]... [--input=value]... [flags]",
	Description: "Times calls of exported functions of a compiled module (.vmfb) and reports them as Google Benchmark does\n(console table, JSON or CSV). Times are in milliseconds unless --time_unit says otherwise.",
	Examples: []string{
		"iree-benchmark-module --device=local-task --module=example.vmfb \\\n    --function=mixed_invocation --input=8xf32=2 --input=8xf32=4\n  # BM_mixed_invocation/process_time/real_time   0.0245 ms   0.0245 ms   28542 items_per_second=40.8k/s",
		"iree-benchmark-module --module=model.vmfb --benchmark_filter='^BM_(main|predict)' \\\n    --benchmark_repetitions=5 --benchmark_out=results.csv --benchmark_out_format=csv",
	},
	Groups: []toolflags.Group{
		{Title: "Module and function", Flags: []string{"module", "function", "executable_plugin", "module_file", "entry_function"}},
		{Title: "Inputs and outputs", Flags: []string{"input", "enable_output_processing", "output", "expected_output", "output_max_element_count",
			"function_input"}},
		{Title: "Comparing outputs", Flags: toolflags.ComparisonFlagNames},
		{Title: "Devices", Flags: append(append([]string(nil), toolflags.DeviceFlagNames...), "task_topology_group_count")},
		{Title: "Benchmark", Flags: []string{"benchmark_filter", "batch_size", "time_unit", "benchmark_min_time", "benchmark_repetitions",
			"benchmark_report_aggregates_only", "benchmark_format", "benchmark_out", "benchmark_out_format", "release_results", "print_statistics"}},
	},
}

func newFlagSet(o *options, stdout, stderr io.Writer) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet("iree-benchmark-module", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&o.modules, "module", "module `file` (.vmfb) to load; repeatable, loaded in order; '-' reads stdin (the default when no module is given and stdin is not a terminal)")
	fs.Var(&o.functions, "function", "exported function to benchmark; repeatable (default: every export of the last module that takes no arguments)")
	fs.Var(&o.inputs, "input", "function input, repeatable, in order, in iree-run-module's forms ('8xf32=2', '2x2xi32=[[1 2][3 4]]', 'f32=-5', '5', '@f.npy', '+f.npy', '*f.npy', '4xf32=@f.bin', '4xf32=+f.bin', '&4xf32')")
	toolflags.AddDeviceFlags(fs, &o.devices)
	toolflags.AddExecutablePluginFlag(fs, &o.plugins)
	fs.BoolVar(&o.printStats, "print_statistics", false, "print device allocator statistics to stderr after the benchmarks")
	fs.IntVar(&o.groupCount, "task_topology_group_count", 0, "local-task: number of worker groups (0 = from the CPU topology)")
	fs.IntVar(&o.batchSize, "batch_size", 1, "calls of the function per benchmark iteration")
	fs.StringVar(&o.timeUnit, "time_unit", "ms", "unit of the reported times: s, ms, us or ns")
	fs.StringVar(&o.format, "benchmark_format", "console", "format on stdout: console, json or csv")
	fs.StringVar(&o.outPath, "benchmark_out", "", "also write the results to `file`, in --benchmark_out_format")
	fs.StringVar(&o.outFormat, "benchmark_out_format", "json", "format of --benchmark_out: json, console or csv")
	fs.IntVar(&o.repetitions, "benchmark_repetitions", 1, "measure each benchmark this many times and report mean, median and stddev when more than 1")
	fs.StringVar(&o.minTime, "benchmark_min_time", "0.5s", "minimum time per measurement ('0.5', '0.5s'), or an exact iteration count ('100x')")
	fs.BoolVar(&o.aggregatesOnly, "benchmark_report_aggregates_only", false, "with repetitions, report only the mean, median and stddev rows")
	fs.BoolVar(&o.releaseResults, "release_results", true, "release each call's results before the next call (as IREE drops its references), so their memory is reused; false drops them unreleased, so their memory never goes back to the allocator (a leak on GPU devices)")
	fs.StringVar(&o.filter, "benchmark_filter", "", "run only the benchmarks whose name matches this `regex` (RE2, matched anywhere in the name, as Google Benchmark does); a leading '-' runs those that do not match; '' or 'all' runs all")
	fs.BoolVar(&o.processOutputs, "enable_output_processing", false, "keep the results of the last benchmark iteration and print, write (--output) or check (--expected_output) them as iree-run-module does")
	fs.Var(&o.outputs, "output", "with --enable_output_processing: where each result goes, in iree-run-module's forms ('-', '', '@f.npy', '+f.npy', '@f.bin', '+f.bin')")
	fs.Var(&o.expected, "expected_output", "with --enable_output_processing: expected value of each result (the --input forms, '(ignored)' skips one); a mismatch exits 1")
	fs.Int64Var(&o.maxElements, "output_max_element_count", bufferfmt.DefaultMaxElements, "print at most this many elements of each buffer view")
	toolflags.AddComparisonFlags(fs, &o.thresholds)
	for _, a := range [][2]string{
		{"module_file", "module"},
		{"entry_function", "function"},
		{"function_input", "input"},
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
	if err := execute(&o, stdin, stdout, stderr); err != nil {
		if errors.Is(err, errMismatch) {
			return 1
		}
		return toolflags.Report(stderr, err)
	}
	return 0
}
