package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
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
	reg, err := newRegistry(o, plugins)
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
	datas, names, err := toolflags.ReadModules(o.modules, stdin)
	if err != nil {
		return 0, err
	}
	var modules []vm.Module
	var main *vm.BytecodeModule
	for i, data := range datas {
		m, err := vm.LoadBytecodeModule(data)
		if err != nil {
			return 0, fmt.Errorf("loading module %s: %w", names[i], err)
		}
		glog.V(1).Infof("loaded module %s from %s (%d bytes)", m.Name(), names[i], len(data))
		modules = append(modules, m)
		main = m
	}
	// As in IREE, the function comes from the last module, and may be left
	// out when that module exports exactly one.
	fnName := strings.TrimPrefix(strings.TrimSpace(o.function), "@")
	if fnName == "" {
		if fnName, err = singleExport(main); err != nil {
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

	hm, err := halmodule.New(dev)
	if err != nil {
		return 0, err
	}
	if o.traceExecution {
		hm.SetTrace(stderr)
	}
	inst := vm.NewInstance()
	ctx, err := inst.NewContext(append([]vm.Module{hm}, modules...)...)
	if err != nil {
		return 0, err
	}
	fn, err := ctx.LookupFunction(fnName)
	if err != nil {
		return 0, err
	}
	args, err := functionio.Values(inputs, fn.Signature(), dev.Allocator())
	if err != nil {
		return 0, fmt.Errorf("calling %s: %w", fn.Name(), err)
	}
	fmt.Fprintf(stdout, "EXEC @%s\n", fn.Name())
	start := time.Now()
	results, err := ctx.Invoke(fn, args)
	// What system plugins printed during the call comes before the results.
	plugins.Flush()
	if err != nil {
		return 0, fmt.Errorf("executing %s: %w", fn.Name(), err)
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
	if err := ctx.Close(); err != nil {
		return 0, err
	}
	if o.printStats {
		fmt.Fprint(stderr, dev.Allocator().Statistics().String())
	}
	return code, nil
}

// singleExport returns the name of the one function m exports for
// callers, as IREE's tools pick the function when --function is left out:
// internal ("__init") and special ("f$async") exports do not count.
func singleExport(m *vm.BytecodeModule) (string, error) {
	var names []string
	for _, e := range m.Exports() {
		if strings.HasPrefix(e.Name, "__") || strings.Contains(e.Name, "$") {
			continue
		}
		names = append(names, e.Name)
	}
	switch len(names) {
	case 0:
		return "", fmt.Errorf("module %q exports no function; at least one must be present", m.Name())
	case 1:
		return names[0], nil
	}
	return "", fmt.Errorf("module %q exports %d functions (%s); --function= must be given", m.Name(), len(names), strings.Join(names, ", "))
}
