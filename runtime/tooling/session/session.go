// Package session is the runtime half that the tools and the end-to-end
// tests share: load compiled modules (.vmfb), bind a HAL device through
// the hal module, make a VM context of them, pick and call an exported
// function with inputs in iree-run-module's --input grammar, and print the
// results as iree-run-module does.
//
// A Session does not own its device: the caller creates it (from a driver
// registry, or a driver package directly) and closes it after closing the
// session, since several sessions may share one device.
package session

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/vm"
)

// Session is a VM context holding a hal module bound to one device and the
// program's modules.
type Session struct {
	// Device is the device the hal module binds; the session does not
	// close it.
	Device hal.Device
	// HAL is the hal module, first in the context.
	HAL *halmodule.Module
	// Modules are the program's modules in load order; the last is the
	// main module, whose exports Lookup falls back on.
	Modules []*vm.BytecodeModule
	// Context is the VM context of HAL and Modules.
	Context *vm.Context
}

// Options configure New.
type Options struct {
	// Trace, when set, receives a line for every call into the hal module
	// (iree-run-module's --trace_execution).
	Trace io.Writer
	// Instance is the VM instance the context is made in; nil makes a new
	// one.
	Instance *vm.Instance
	// Natives are more native modules (iree-check-module's "check"),
	// placed after the hal module and before the program's modules.
	Natives []vm.NativeModule
}

// LoadModule loads the bytes of a compiled module; name (a file name, or
// "stdin") names them in the error.
func LoadModule(name string, data []byte) (*vm.BytecodeModule, error) {
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		return nil, fmt.Errorf("loading module %s: %w", name, err)
	}
	return m, nil
}

// New makes the hal module for dev and a context of it, opts.Natives and
// modules, in that order (imports resolve against the modules before
// them). At least one module is needed.
func New(dev hal.Device, modules []*vm.BytecodeModule, opts Options) (*Session, error) {
	if len(modules) == 0 {
		return nil, fmt.Errorf("no module to run")
	}
	hm, err := halmodule.New(dev)
	if err != nil {
		return nil, err
	}
	if opts.Trace != nil {
		hm.SetTrace(opts.Trace)
	}
	inst := opts.Instance
	if inst == nil {
		inst = vm.NewInstance()
	}
	vms := make([]vm.Module, 0, len(modules)+len(opts.Natives)+1)
	vms = append(vms, hm)
	for _, n := range opts.Natives {
		vms = append(vms, n)
	}
	for _, m := range modules {
		vms = append(vms, m)
	}
	ctx, err := inst.NewContext(vms...)
	if err != nil {
		return nil, err
	}
	return &Session{Device: dev, HAL: hm, Modules: modules, Context: ctx}, nil
}

// Open loads each of modules (compiled module bytes, in order; errors name
// them "module 1", "module 2", ...) and makes a session of them on dev.
func Open(dev hal.Device, modules ...[]byte) (*Session, error) {
	var ms []*vm.BytecodeModule
	for i, data := range modules {
		m, err := LoadModule(fmt.Sprintf("module %d", i+1), data)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return New(dev, ms, Options{})
}

// Main returns the main module: the last one loaded.
func (s *Session) Main() *vm.BytecodeModule { return s.Modules[len(s.Modules)-1] }

// ExportedFunctions returns the names of the functions m exports for
// callers, in export order. As in IREE's tools, internal ("__init") and
// special ("f$async") exports are left out.
func ExportedFunctions(m *vm.BytecodeModule) []string {
	var names []string
	for _, e := range m.Exports() {
		if strings.HasPrefix(e.Name, "__") || strings.Contains(e.Name, "$") {
			continue
		}
		names = append(names, e.Name)
	}
	return names
}

// DefaultFunction returns the function to run when none is named: the one
// function m exports (IREE's rule), or an error saying why there is none.
func DefaultFunction(m *vm.BytecodeModule) (string, error) {
	names := ExportedFunctions(m)
	switch len(names) {
	case 0:
		return "", fmt.Errorf("module %q exports no function; at least one must be present", m.Name())
	case 1:
		return names[0], nil
	}
	return "", fmt.Errorf("module %q exports %d functions (%s); --function= must be given", m.Name(), len(names), strings.Join(names, ", "))
}

// Lookup returns the function called name (a leading '@' and surrounding
// spaces are ignored, as on IREE's command lines); an empty name is the
// main module's DefaultFunction.
func (s *Session) Lookup(name string) (*vm.Function, error) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "@")
	if name == "" {
		var err error
		if name, err = DefaultFunction(s.Main()); err != nil {
			return nil, err
		}
	}
	return s.Context.LookupFunction(name)
}

// Arguments makes fn's arguments from parsed inputs (functionio's --input
// grammar), allocating buffer views from the session's device.
func (s *Session) Arguments(fn *vm.Function, inputs []functionio.Input) ([]vm.Value, error) {
	args, err := functionio.Values(inputs, fn.Signature(), s.Device.Allocator())
	if err != nil {
		return nil, fmt.Errorf("calling %s: %w", fn.Name(), err)
	}
	return args, nil
}

// Invoke calls fn with args and returns its results; an error names the
// function.
func (s *Session) Invoke(fn *vm.Function, args []vm.Value) ([]vm.Value, error) {
	results, err := s.Context.Invoke(fn, args)
	if err != nil {
		return nil, fmt.Errorf("executing %s: %w", fn.Name(), err)
	}
	return results, nil
}

// Call looks up the function called name, makes its arguments from inputs
// in the --input grammar ("8xf32=2", "@in.npy", "5") and calls it.
func (s *Session) Call(name string, inputs ...string) ([]vm.Value, error) {
	fn, err := s.Lookup(name)
	if err != nil {
		return nil, err
	}
	in, err := functionio.ParseInputs(inputs)
	if err != nil {
		return nil, err
	}
	args, err := s.Arguments(fn, in)
	if err != nil {
		return nil, err
	}
	return s.Invoke(fn, args)
}

// Run is Call followed by printing the results as iree-run-module does
// ("result[0]: hal.buffer_view\n8xf32=96 96 ...", at most
// bufferfmt.DefaultMaxElements elements each), returned as a string.
func (s *Session) Run(name string, inputs ...string) (string, error) {
	results, err := s.Call(name, inputs...)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := functionio.PrintResults(&b, results, bufferfmt.DefaultMaxElements); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Close releases the context's state (globals, cached executables). The
// device stays open.
func (s *Session) Close() error {
	return s.Context.Close()
}
