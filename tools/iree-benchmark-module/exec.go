package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/outfile"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

// execute does everything after flag parsing.
func execute(o *options, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.groupCount < 0 {
		return fmt.Errorf("--task_topology_group_count=%d must not be negative", o.groupCount)
	}
	rt, done, err := toolflags.StartRuntime(o.plugins, o.groupCount, &o.devices, stdout)
	if err != nil {
		return err
	}
	// Closed after the device (defers run last-in first-out).
	defer rt.Close()
	if done {
		return nil
	}
	reg := rt.Registry
	cfg, err := newConfig(o)
	if err != nil {
		return err
	}
	inputs, err := functionio.ParseInputs(o.inputs)
	if err != nil {
		return err
	}
	datas, names, err := toolflags.ReadModules(o.modules, stdin)
	if err != nil {
		return err
	}
	var modules []*vm.BytecodeModule
	for i, data := range datas {
		m, err := session.LoadModule(names[i], data)
		if err != nil {
			return err
		}
		glog.V(1).Infof("loaded module %s from %s (%d bytes)", m.Name(), names[i], len(data))
		modules = append(modules, m)
	}
	devs, err := o.devices.CreateDevices(reg)
	if err != nil {
		return err
	}
	defer func() {
		for _, d := range devs {
			d.Close()
		}
	}()
	// The hal module binds one device: the benchmarks run on the first
	// --device; the others were created to check them, as IREE creates
	// every device it is given.
	dev := devs[0]
	s, err := session.New(dev, modules, session.Options{})
	if err != nil {
		return err
	}
	fns, err := selectFunctions(s, o.functions, len(inputs) > 0)
	if err != nil {
		return err
	}
	if !o.processOutputs && (len(o.outputs) > 0 || len(o.expected) > 0) {
		return fmt.Errorf("--output and --expected_output take effect only with --enable_output_processing (as in IREE)")
	}
	// kept holds the results of the latest call when outputs are processed.
	var kept []vm.Value
	var cases []benchCase
	for _, fn := range fns {
		name := "BM_" + fn.Name() + "/process_time/real_time"
		if !cfg.filter.match(name) {
			continue
		}
		args, err := s.Arguments(fn, inputs)
		if err != nil {
			return err
		}
		var keep *[]vm.Value
		if o.processOutputs {
			keep = &kept
		}
		cases = append(cases, benchCase{name: name, args: args, body: invoker(s.Context, fn, args, o.releaseResults, keep)})
	}
	if len(cases) == 0 {
		return fmt.Errorf("--benchmark_filter=%q matches no benchmark", o.filter)
	}
	rep, err := newReporter(cfg.format, stdout)
	if err != nil {
		return err
	}
	// --benchmark_out gets its own reporter into memory, written to the
	// file once every benchmark has run.
	var outBuf bytes.Buffer
	if cfg.outPath != "" {
		fileRep, err := newReporter(cfg.outFormat, &outBuf)
		if err != nil {
			return err
		}
		rep = multiReporter{rep, fileRep}
	}
	rep.start(cfg, dev.ID(), cases)
	for _, c := range cases {
		runs, err := measure(c, cfg)
		if err != nil {
			return fmt.Errorf("benchmarking %s: %w", c.name, err)
		}
		rep.report(c.name, runs, cfg)
	}
	if err := rep.finish(); err != nil {
		return err
	}
	if cfg.outPath != "" {
		if err := outfile.Write(cfg.outPath, outBuf.Bytes()); err != nil {
			return fmt.Errorf("--benchmark_out: %w", err)
		}
	}
	if o.processOutputs {
		err := processResults(o, stdout, kept)
		if rerr := vm.ReleaseValues(kept); rerr != nil && err == nil {
			err = fmt.Errorf("releasing the kept results: %w", rerr)
		}
		if err != nil {
			return err
		}
	}
	if o.printStats {
		// Like IREE's tool, the statistics come after the inputs are
		// released and the context closed: what is live then leaked.
		for _, c := range cases {
			if err := vm.ReleaseValues(c.args); err != nil {
				return fmt.Errorf("releasing the inputs of %s: %w", c.name, err)
			}
		}
		if err := s.Close(); err != nil {
			return err
		}
		fmt.Fprint(stderr, dev.Allocator().Statistics().String())
	}
	return nil
}

// selectFunctions returns the functions to benchmark: the --function list,
// or every export of the main (last) module that takes no arguments.
func selectFunctions(s *session.Session, names []string, haveInputs bool) ([]*vm.Function, error) {
	var fns []*vm.Function
	for _, n := range names {
		if strings.TrimPrefix(strings.TrimSpace(n), "@") == "" {
			return nil, fmt.Errorf("--function is empty")
		}
		fn, err := s.Lookup(n)
		if err != nil {
			return nil, err
		}
		fns = append(fns, fn)
	}
	if len(fns) > 0 {
		return fns, nil
	}
	main := s.Main()
	exports := session.ExportedFunctions(main)
	if haveInputs {
		// Inputs belong to one function: the module's only export (as in
		// iree-run-module), or the one --function names.
		if len(exports) != 1 {
			return nil, fmt.Errorf("--input given without --function and module %q exports %d functions: name the function the inputs are for", main.Name(), len(exports))
		}
		fn, err := s.Lookup(exports[0])
		if err != nil {
			return nil, err
		}
		return []*vm.Function{fn}, nil
	}
	for _, name := range exports {
		fn, err := s.Lookup(name)
		if err != nil {
			return nil, err
		}
		if len(fn.Signature().Args) == 0 {
			fns = append(fns, fn)
		}
	}
	if len(fns) == 0 {
		return nil, fmt.Errorf("module %s exports no function without arguments: give --function=<name> and its --input values", main.Name())
	}
	return fns, nil
}

// invoker returns a benchmark body making n calls of fn with args. With
// release, each call's results are released (vm.ReleaseValues) before the
// next call, as IREE's tools drop their references; without it they are
// dropped unreleased, and their memory is never returned. With keep set,
// the results of the latest call are kept in *keep instead (those of the
// call before are released then), for --enable_output_processing.
func invoker(ctx *vm.Context, fn *vm.Function, args []vm.Value, release bool, keep *[]vm.Value) func(n int) error {
	results := make([]vm.Value, len(fn.Signature().Results))
	return func(n int) error {
		for i := 0; i < n; i++ {
			if err := ctx.InvokeInto(fn, args, results); err != nil {
				return fmt.Errorf("executing %s: %w", fn.Name(), err)
			}
			if keep != nil {
				if release {
					if err := vm.ReleaseValues(*keep); err != nil {
						return fmt.Errorf("releasing results of %s: %w", fn.Name(), err)
					}
				}
				*keep = append((*keep)[:0], results...)
				continue
			}
			if release {
				if err := vm.ReleaseValues(results); err != nil {
					return fmt.Errorf("releasing results of %s: %w", fn.Name(), err)
				}
			}
		}
		clear(results)
		return nil
	}
}

// errMismatch is returned when --expected_output found a mismatch: the
// report is already printed, and the tool exits 1.
var errMismatch = errors.New("expected outputs did not match")

// processResults prints, writes or checks the results the last benchmark
// iteration kept (--enable_output_processing), as iree-run-module does.
func processResults(o *options, stdout io.Writer, results []vm.Value) error {
	if o.maxElements < 0 {
		return fmt.Errorf("--output_max_element_count=%d must not be negative", o.maxElements)
	}
	if len(o.expected) > 0 {
		ok, err := functionio.CompareResults(stdout, results, o.expected, o.thresholds, o.maxElements)
		if err != nil {
			return err
		}
		if !ok {
			return errMismatch
		}
		return nil
	}
	return functionio.WriteOutputs(stdout, results, o.outputs, o.maxElements)
}
