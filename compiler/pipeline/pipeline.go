// Package pipeline runs the compiler's passes in order. The pass list is
// data: a table of named passes grouped into phases, so a driver can stop
// after any phase (--compile-to=) and later back-end phases can be appended.
//
// Phases:
//
//	input: the parsed program is verified.
//	flow:  flow.dispatch.region ops (inline dispatches calling
//	       microkernels) are outlined into stream.executables and
//	       hal.dispatch.extern ops into hal.executables, each dispatched
//	       with flow.dispatch.
//	hal:   hal.executable.source and stream.executable are materialised
//	       into one hal.executable.variant per target with the objects that
//	       target selects; CPU exports that name a C function get
//	       generated shims; seed interface spellings become current ones;
//	       object paths are resolved and kernel sources compiled; external
//	       variants and kernel ABIs are checked; layouts get aliases.
package pipeline

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelsrc"
	"github.com/goiree/goiree/compiler/objects"
	"github.com/goiree/goiree/compiler/transforms"
)

// Options configure a compilation.
type Options struct {
	// Targets choose the executable targets when the module declares no
	// device targets (--iree-hal-target-backends, --iree-hal-target-device,
	// --iree-hal-local-target-device-backends).
	Targets transforms.TargetOptions
	// ObjectSearchPaths are tried in order for relative object paths.
	ObjectSearchPaths []string
	// KernelSources configures the compilation of kernel sources named by
	// objects (.c, .cu, .glsl, .comp): tool paths and cache directory.
	KernelSources kernelsrc.Options
}

// State is what passes operate on.
type State struct {
	Registry *ir.Registry
	Module   *ir.Module
	Options  Options
	Resolver *objects.Resolver
	// Targets are the executable targets, computed by the first pass that
	// needs them.
	Targets []*hal.ExecutableTargetAttr
}

// Pass is one named step.
type Pass struct {
	Name  string
	Phase string
	Run   func(*State) error
}

// Phases lists the phase names in order.
var Phases = []string{"input", "flow", "hal"}

// Passes is the pass table, in execution order.
var Passes = []Pass{
	{Name: "verify-input", Phase: "input", Run: verify},
	{Name: "outline-dispatch-regions", Phase: "flow", Run: func(s *State) error { return transforms.OutlineDispatchRegions(s.Module.Op, s.Registry) }},
	{Name: "outline-dispatch-externs", Phase: "flow", Run: func(s *State) error { return transforms.OutlineDispatchExterns(s.Module.Op) }},
	{Name: "verify-flow", Phase: "flow", Run: verify},
	{Name: "assign-targets", Phase: "hal", Run: assignTargets},
	{Name: "materialize-executable-sources", Phase: "hal", Run: func(s *State) error { return transforms.MaterializeSources(s.Module.Op, s.Targets) }},
	{Name: "materialize-stream-executables", Phase: "hal", Run: func(s *State) error { return transforms.MaterializeStreamExecutables(s.Module.Op, s.Targets) }},
	{Name: "generate-cpu-shims", Phase: "hal", Run: func(s *State) error { return transforms.GenerateCPUShims(s.Module.Op, s.Registry) }},
	{Name: "normalize-interfaces", Phase: "hal", Run: func(s *State) error { transforms.NormalizeInterfaces(s.Module); return nil }},
	{Name: "resolve-objects", Phase: "hal", Run: func(s *State) error { return transforms.ResolveObjects(s.Module.Op, s.Resolver) }},
	{Name: "check-kernel-abis", Phase: "hal", Run: func(s *State) error { return transforms.CheckKernelABIs(s.Module.Op, s.Resolver) }},
	{Name: "name-layouts", Phase: "hal", Run: func(s *State) error { transforms.NameLayouts(s.Module); return nil }},
	{Name: "verify-hal", Phase: "hal", Run: verify},
}

func verify(s *State) error { return dialect.Verify(s.Registry, s.Module.Op) }

func assignTargets(s *State) error {
	ts, err := transforms.DeviceTargets(s.Module, s.Registry, s.Options.Targets)
	if err != nil {
		return err
	}
	s.Targets = ts
	return nil
}

// ValidPhase reports whether name is a phase.
func ValidPhase(name string) bool {
	for _, p := range Phases {
		if p == name {
			return true
		}
	}
	return false
}

// Run executes every pass up to and including the phase stopAfter ("" runs
// everything).
func Run(s *State, stopAfter string) error {
	if stopAfter != "" && !ValidPhase(stopAfter) {
		return fmt.Errorf("unknown phase '%s' (phases: %s)", stopAfter, strings.Join(Phases, ", "))
	}
	if s.Resolver == nil {
		s.Resolver = &objects.Resolver{SearchPaths: s.Options.ObjectSearchPaths, Sources: kernelsrc.New(s.Options.KernelSources)}
	}
	stopIdx := len(Phases) - 1
	for i, p := range Phases {
		if p == stopAfter {
			stopIdx = i
		}
	}
	for _, p := range Passes {
		idx := -1
		for i, ph := range Phases {
			if ph == p.Phase {
				idx = i
			}
		}
		if idx > stopIdx {
			break
		}
		if err := p.Run(s); err != nil {
			return err
		}
	}
	return nil
}

// Compile parses src and runs the pipeline up to stopAfter.
func Compile(file string, src []byte, opts Options, stopAfter string) (*State, error) {
	reg := dialect.NewRegistry()
	m, err := ir.Parse(file, src, reg)
	if err != nil {
		return nil, err
	}
	s := &State{Registry: reg, Module: m, Options: opts}
	if err := Run(s, stopAfter); err != nil {
		return s, err
	}
	return s, nil
}

// Print prints the module in canonical form.
func (s *State) Print() string { return ir.PrintModule(s.Module, s.Registry, ir.PrintOptions{}) }
