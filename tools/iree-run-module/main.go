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

	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/panicguard"
	"github.com/goiree/goiree/tools/internal/runmodule"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

func main() {
	args := os.Args[1:]
	os.Exit(panicguard.Run(args, os.Stderr, func() int { return run(args, os.Stdin, os.Stdout, os.Stderr) }))
}

// options are the parsed flags: the modules, and the run's.
type options struct {
	modules toolflags.StringList
	runmodule.Options
}

// help is the --help text around the flags.
var help = toolflags.Help{
	Usage:       "iree-run-module --module=file.vmfb [--function=name] [--input=value]... [flags]",
	Description: "Runs an exported function of a compiled module (.vmfb) on a HAL device and prints its results,\nwrites them to files (--output) or checks them (--expected_output).",
	Examples: []string{
		"iree-run-module --device=local-task --module=example.vmfb \\\n    --function=mixed_invocation --input=8xf32=2 --input=8xf32=4\n  # EXEC @mixed_invocation\n  # result[0]: hal.buffer_view\n  # 8xf32=96 96 96 96 96 96 96 96",
		"iree-compile example.mlir | iree-run-module --module=- --device=local-sync \\\n    --input=@inputs.npy --input=+inputs.npy --output=@result.npy",
	},
	Groups: append([]toolflags.Group{{Title: "Module and function", Flags: append([]string{"module", "module_file"}, runmodule.FunctionFlags...)}},
		runmodule.FlagGroups...),
}

func newFlagSet(o *options, stdout, stderr io.Writer) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet("iree-run-module", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&o.modules, "module", "module `file` (.vmfb) to load; repeatable, loaded in order, the last one holds the function; '-' reads stdin (the default when no module is given and stdin is not a terminal)")
	if err := runmodule.AddFlags(fs, &o.Options); err != nil {
		return nil, err
	}
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
	if err := toolflags.Parse(fs, args); err != nil {
		if err == toolflags.ErrHelp {
			return 0
		}
		return toolflags.Report(stderr, err)
	}
	load := func() ([]*vm.BytecodeModule, error) { return toolflags.LoadModules(o.modules, stdin) }
	code, err := runmodule.Execute(&o.Options, load, stdout, stderr)
	if err != nil {
		return toolflags.Report(stderr, err)
	}
	return code
}
