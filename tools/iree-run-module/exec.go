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

// defaultDevice is IREE's default --device.
const defaultDevice = "local-task"

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
	if o.listDrivers {
		listDrivers(stdout, reg)
		return 0, nil
	}
	if o.listDevices {
		return 0, listDevices(stdout, reg)
	}
	if strings.TrimSpace(o.function) == "" {
		return 0, fmt.Errorf("no function given: use --function=<name> (iree-dump-module lists a module's exports)")
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
	for i, data := range datas {
		m, err := vm.LoadBytecodeModule(data)
		if err != nil {
			return 0, fmt.Errorf("loading module %s: %w", names[i], err)
		}
		glog.V(1).Infof("loaded module %s from %s (%d bytes)", m.Name(), names[i], len(data))
		modules = append(modules, m)
	}
	dev, err := createDevice(o, reg)
	if err != nil {
		return 0, err
	}
	defer dev.Close()
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
	fn, err := ctx.LookupFunction(strings.TrimPrefix(strings.TrimSpace(o.function), "@"))
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

// createDevice creates the --device (one only) from reg.
func createDevice(o *options, reg *hal.Registry) (hal.Device, error) {
	uri := defaultDevice
	switch len(o.devices) {
	case 0:
	case 1:
		uri = strings.TrimSpace(o.devices[0])
	default:
		return nil, fmt.Errorf("%d --device flags given; this tool runs on one device", len(o.devices))
	}
	dev, err := reg.CreateDevice(uri)
	if err != nil {
		return nil, err
	}
	return dev, nil
}

func listDrivers(w io.Writer, reg *hal.Registry) {
	fmt.Fprintln(w, "# ===----------------------------------------------------------------------===")
	fmt.Fprintln(w, "# Available HAL drivers")
	fmt.Fprintln(w, "# ===----------------------------------------------------------------------===")
	fmt.Fprintln(w, "# Use --list_devices to enumerate available devices.")
	fmt.Fprintln(w)
	for _, name := range reg.Names() {
		fmt.Fprintf(w, "%s\n", name)
	}
}

func listDevices(w io.Writer, reg *hal.Registry) error {
	for _, name := range reg.Names() {
		d, err := reg.Lookup(name)
		if err != nil {
			return err
		}
		infos, err := d.Devices()
		if err != nil {
			return fmt.Errorf("listing devices of driver %s: %w", name, err)
		}
		for _, info := range infos {
			fmt.Fprintf(w, "%s://%d: %s\n", name, info.Index, info.Name)
		}
	}
	return nil
}
