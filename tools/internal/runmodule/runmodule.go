// Package runmodule is what iree-run-module does once its flags are
// parsed -- create the devices, load the modules, call one function with
// the inputs, print, save or check its results -- shared with
// iree-run-mlir, which compiles the module it runs.
package runmodule

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/hal/local/plugin"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

// Options are the parsed flags of a run.
type Options struct {
	Function       string
	Inputs         toolflags.StringList
	Outputs        toolflags.StringList
	Expected       toolflags.StringList
	Devices        toolflags.DeviceFlags
	Plugins        toolflags.StringList
	MaxElements    int64
	PrintStats     bool
	TraceExecution bool
	GroupCount     int
	Thresholds     functionio.Thresholds
	// EveryFunction runs every exported function of the last module, in
	// order and in one context, when --function is not given and it
	// exports several (iree-run-mlir's behaviour before --function was
	// required); they then take no inputs.
	EveryFunction bool
}

// FunctionFlags are the flags AddFlags defines that choose the function
// (a tool lists them with its module flags in help); FlagGroups are the
// help groups of the others.
var FunctionFlags = []string{"function", "executable_plugin", "entry_function"}

// FlagGroups: see FunctionFlags.
var FlagGroups = []toolflags.Group{
	{Title: "Inputs and outputs", Flags: []string{"input", "output", "expected_output", "output_max_element_count",
		"function_input", "print_max_element_count"}},
	{Title: "Comparing outputs", Flags: toolflags.ComparisonFlagNames},
	{Title: "Devices", Flags: append(append([]string(nil), toolflags.DeviceFlagNames...), "task_topology_group_count")},
	{Title: "Diagnostics", Flags: []string{"print_statistics", "trace_execution"}},
}

// AddFlags defines the run's flags on fs, with IREE's older spellings
// (--entry_function, --function_input, --print_max_element_count) as
// aliases.
func AddFlags(fs *flag.FlagSet, o *Options) error {
	fs.StringVar(&o.Function, "function", "", "name of the exported function to run; may be left out when the module exports exactly one function")
	fs.Var(&o.Inputs, "input", "function input, repeatable, in order: a buffer view ('2x2xi32=[[1 2][3 4]]', '8xf32=2' splats, '4xf32=' zero-fills, 'f32=-5' rank 0), a scalar ('5', 'i32=5', '3.14'), "+
		"NumPy arrays ('@f.npy' the first array of f.npy, '+f.npy' the next one, '*f.npy' all the rest), raw bytes ('4xf32=@f.bin' from the start of f.bin, '4xf32=+f.bin' after the previous input from it), "+
		"result storage ('&4xf32', a hal.buffer) or '(null)'")
	fs.Var(&o.Outputs, "output", "where each result goes, one flag per result: '-' stdout, '' nowhere, '@f.npy' / '+f.npy' write / append NumPy, '@f.bin' / '+f.bin' write / append raw bytes (scalars become rank-0 arrays)")
	fs.Var(&o.Expected, "expected_output", "expected value of each result, one flag per result (the --input forms); '(ignored)' skips one")
	toolflags.AddDeviceFlags(fs, &o.Devices)
	toolflags.AddExecutablePluginFlag(fs, &o.Plugins)
	fs.Int64Var(&o.MaxElements, "output_max_element_count", bufferfmt.DefaultMaxElements, "print at most this many elements of each buffer view; the rest of a row prints as '...'")
	fs.BoolVar(&o.PrintStats, "print_statistics", false, "print device allocator statistics to stderr after the call")
	fs.BoolVar(&o.TraceExecution, "trace_execution", false, "trace execution to stderr: every call into the hal module with its arguments and results")
	fs.IntVar(&o.GroupCount, "task_topology_group_count", 0, "local-task: number of worker groups (0 = from the CPU topology)")
	toolflags.AddComparisonFlags(fs, &o.Thresholds)
	for _, a := range [][2]string{
		{"entry_function", "function"},
		{"function_input", "input"},
		{"print_max_element_count", "output_max_element_count"},
	} {
		if err := toolflags.AddAlias(fs, a[0], a[1]); err != nil {
			return err
		}
	}
	return nil
}

// Execute does everything after flag parsing and returns the exit code (1
// when --expected_output found a mismatch). load gives the modules (the
// function comes from the last one); it is called once the flags that
// need no module (device discovery) have been handled.
func Execute(o *Options, load func() ([]*vm.BytecodeModule, error), stdout, stderr io.Writer) (int, error) {
	rt, done, err := toolflags.StartRuntime(o.Plugins, o.GroupCount, &o.Devices, stdout)
	if err != nil {
		return 0, err
	}
	// Closed after the device (defers run last-in first-out).
	defer rt.Close()
	if done {
		return 0, nil
	}
	plugins, reg := rt.Plugins, rt.Registry
	if o.MaxElements < 0 {
		return 0, fmt.Errorf("--output_max_element_count=%d must not be negative", o.MaxElements)
	}
	inputs, err := functionio.ParseInputs(o.Inputs)
	if err != nil {
		return 0, err
	}
	modules, err := load()
	if err != nil {
		return 0, err
	}
	// As in IREE, the function comes from the last module, and may be left
	// out when that module exports exactly one; that is settled before any
	// device is created.
	fnNames := []string{strings.TrimPrefix(strings.TrimSpace(o.Function), "@")}
	if fnNames[0] == "" {
		main := modules[len(modules)-1]
		if names := session.ExportedFunctions(main); o.EveryFunction && len(names) > 1 {
			if len(inputs) > 0 || len(o.Expected) > 0 || len(o.Outputs) > 0 {
				return 0, fmt.Errorf("module %q exports %d functions (%s): --input, --output and --expected_output need --function=", main.Name(), len(names), strings.Join(names, ", "))
			}
			fnNames = names
		} else if fnNames[0], err = session.DefaultFunction(main); err != nil {
			return 0, err
		}
	}
	devs, err := o.Devices.CreateDevices(reg)
	if err != nil {
		return 0, err
	}
	defer func() {
		for _, d := range devs {
			d.Close()
		}
	}()
	// The hal module binds one device: the program runs on the first
	// --device; the others were created to check them, as IREE creates
	// every device it is given.
	dev := devs[0]
	for _, d := range devs[1:] {
		glog.V(1).Infof("device %s created; the program runs on %s (this runtime binds one device per context)", d.ID(), dev.ID())
	}
	glog.V(1).Infof("created device %s (executable formats: %s)", dev.ID(), strings.Join(dev.ExecutableFormats(), ", "))

	opts := session.Options{}
	if o.TraceExecution {
		opts.Trace = stderr
	}
	s, err := session.New(dev, modules, opts)
	if err != nil {
		return 0, err
	}
	code := 0
	for _, name := range fnNames {
		c, err := call(o, s, name, inputs, plugins, stdout)
		if err != nil {
			return 0, err
		}
		code = max(code, c)
	}
	if err := s.Close(); err != nil {
		return 0, err
	}
	if o.PrintStats {
		fmt.Fprint(stderr, dev.Allocator().Statistics().String())
	}
	return code, nil
}

// call runs one function of the session and prints, writes or checks its
// results, giving back everything the call used.
func call(o *Options, s *session.Session, name string, inputs []functionio.Input, plugins *plugin.Manager, stdout io.Writer) (int, error) {
	fn, err := s.Lookup(name)
	if err != nil {
		return 0, err
	}
	args, err := s.Arguments(fn, inputs)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "EXEC @%s\n", fn.Name())
	start := time.Now()
	results, err := s.Invoke(fn, args)
	// What system plugins printed during the call comes before the results.
	plugins.Flush()
	if err != nil {
		return 0, err
	}
	glog.V(1).Infof("%s (%s) returned %d result(s) in %v", fn.FullName(), fn.CallingConvention(), len(results), time.Since(start))
	code := 0
	if len(o.Expected) > 0 {
		ok, err := functionio.CompareResults(stdout, results, o.Expected, o.Thresholds, o.MaxElements)
		if err != nil {
			return 0, err
		}
		if !ok {
			code = 1
		}
	} else if err := functionio.WriteOutputs(stdout, results, o.Outputs, o.MaxElements); err != nil {
		return 0, err
	}
	// Everything the call used is given back before the statistics, as
	// IREE's tool does, so that memory still live there was leaked.
	if err := vm.ReleaseValues(results); err != nil {
		return 0, fmt.Errorf("releasing the results of %s: %w", fn.Name(), err)
	}
	if err := vm.ReleaseValues(args); err != nil {
		return 0, fmt.Errorf("releasing the inputs of %s: %w", fn.Name(), err)
	}
	return code, nil
}
