package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

// execute does everything after flag parsing and returns the exit code
// (1 when --expected_output found a mismatch).
func execute(o *options, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if glog.V(1) {
		// Under -v, buffers that become garbage unreleased are reported.
		hal.SetLeakReporter(func(msg string) { glog.Warning(msg) })
	}
	plugins, err := toolflags.LoadPlugins(o.plugins)
	if err != nil {
		return 0, err
	}
	// Closed after the device (defers run last-in first-out): plugins stay
	// loaded while executables may call into them.
	defer plugins.Close()
	reg, err := toolflags.NewRegistry(o.groupCount, plugins)
	if err != nil {
		return 0, err
	}
	if done, err := o.devices.Discovery(stdout, reg); done {
		return 0, err
	}
	if o.maxElements < 0 {
		return 0, fmt.Errorf("--output_max_element_count=%d must not be negative", o.maxElements)
	}
	inputs, err := functionio.ParseInputs(o.inputs)
	if err != nil {
		return 0, err
	}
	modules, err := toolflags.LoadModules(o.modules, stdin)
	if err != nil {
		return 0, err
	}
	// As in IREE, the function comes from the last module, and may be left
	// out when that module exports exactly one; that is settled before any
	// device is created.
	fnName := strings.TrimPrefix(strings.TrimSpace(o.function), "@")
	if fnName == "" {
		if fnName, err = session.DefaultFunction(modules[len(modules)-1]); err != nil {
			return 0, err
		}
	}
	devs, err := o.devices.CreateDevices(reg)
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
	if o.traceExecution {
		opts.Trace = stderr
	}
	s, err := session.New(dev, modules, opts)
	if err != nil {
		return 0, err
	}
	fn, err := s.Lookup(fnName)
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
	if len(o.expected) > 0 {
		ok, err := functionio.CompareResults(stdout, results, o.expected, o.thresholds, o.maxElements)
		if err != nil {
			return 0, err
		}
		if !ok {
			code = 1
		}
	} else if err := functionio.WriteOutputs(stdout, results, o.outputs, o.maxElements); err != nil {
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
	if err := s.Close(); err != nil {
		return 0, err
	}
	if o.printStats {
		fmt.Fprint(stderr, dev.Allocator().Statistics().String())
	}
	return code, nil
}
