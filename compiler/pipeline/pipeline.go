// Package pipeline runs the compiler's passes in order, from a parsed
// program to a VM bytecode module. The pass list is data: a table of named
// passes, each in one of IREE's compilation phases, so a driver can stop
// after any phase (--compile-to=), resume from the IR a phase printed
// (--compile-from=), and watch every pass (--mlir-print-ir-after-all,
// --mlir-timing).
//
// The phases are IREE's, in IREE's order. goiree implements a subset of
// what IREE does at each; a phase with nothing to do yet is present and
// empty, so the flags accept every phase IREE names:
//
//	input:               the parsed program is verified; IREE's
//	                     data-tiling encodings are dropped
//	                     (iree_encoding.set_encoding/unset_encoding
//	                     become their source, encoded tensor types plain
//	                     ones: package conversion/dropencodings); the input
//	                     dialects besides IREE's own (TOSA; StableHLO and
//	                     its Dec 2022 MHLO spelling, with CHLO's
//	                     broadcasting ops) are lowered to linalg, tensor
//	                     and arith (tosatolinalg, stablehlotolinalg);
//	                     ml_program globals become util globals
//	                     (mlprogramtoutil), and loads and stores through
//	                     util.global.address pointers become direct
//	                     global accesses (util.FoldGlobalAddresses).
//	abi:                 empty: exported functions keep their signatures;
//	                     the VM calling convention is applied at vm.
//	preprocessing:       the device targets are assigned (program
//	                     attributes, else the target flags), which IREE
//	                     does between abi and preprocessing.
//	global-optimization: cf.assert ops are stripped when the options ask
//	                     (--iree-opt-strip-assertions, on from O1);
//	                     structured control flow (scf) becomes blocks and
//	                     cf branches (package conversion/scftocf);
//	                     linalg.pack/unpack and iree_linalg_ext.attention
//	                     become reshapes, transposes and linalg.generics
//	                     (package conversion/linalgexttolinalg); the
//	                     program's flow.dispatch.region ops holding linalg
//	                     ops are dissolved into their functions
//	                     (loopnest.InlineStructuredRegions); linalg ops
//	                     and slices on packed i1 tensors
//	                     (#iree_encoding.packed_storage) read them
//	                     unpacked and pack what they write (package
//	                     conversion/packedstorage); tensor
//	                     ops in host functions become flow.tensor
//	                     ops and linalg.generics (package
//	                     conversion/tensortolinalg).
//	dispatch-creation:   every linalg structured op becomes a dispatch of
//	                     a generated loop-nest executable (package
//	                     loopnest; no fusion yet). Inline
//	                     flow.dispatch.region ops are written by the
//	                     program; the fusion of elementwise tensor math
//	                     runs at executable-sources, see below.
//	flow:                flow.dispatch.region ops are outlined into
//	                     executables and hal.dispatch.extern ops into
//	                     hal.executables, each dispatched with flow.dispatch
//	                     (IREE's OutlineDispatchExterns and
//	                     OutlineDispatchRegions, both in its flow phase);
//	                     private executables that differ only in their
//	                     names are merged (transforms.DeduplicateExecutables),
//	                     so a model's repeated layers build once.
//	stream:              empty: there is no stream scheduling; the VM
//	                     lowering orders the dispatches of each function.
//	executable-sources:  hal.executable.source and stream.executable become
//	                     one hal.executable.variant per target with the
//	                     objects that target selects; CPU exports naming a C
//	                     function get shims; seed interface spellings become
//	                     current ones; objects are resolved and kernel
//	                     sources compiled; kernel ABIs are checked; layouts
//	                     get aliases. Then elementwise tensor math between
//	                     dispatches is fused into generated hal.executables
//	                     with one variant per target (package elementwise).
//	                     IREE forms its dispatches at dispatch-creation,
//	                     before the targets are known; goiree forms these
//	                     here because it writes their variants directly.
//	executable-configurations: annotate-export-configs puts on each export
//	                     of a cuda or vulkan-spirv variant the
//	                     configuration its build will record (IREE's
//	                     translation_info and lowering_config), for
//	                     display; builders ignore it (configs.go).
//	executable-targets:  empty: each target's code generator translates and
//	                     serializes a variant in one step, at vm.
//	hal:                 empty.
//	vm:                  every dispatched variant is built by its target's
//	                     builder (from the target registry, package target)
//	                     and the host functions are lowered to VM bytecode
//	                     (package vmgen). The output is the bytecode module,
//	                     not IR, so this phase cannot be resumed from.
//	end:                 empty.
package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/goiree/goiree/compiler/conversion/dropencodings"
	"github.com/goiree/goiree/compiler/conversion/linalgexttolinalg"
	"github.com/goiree/goiree/compiler/conversion/mlprogramtoutil"
	"github.com/goiree/goiree/compiler/conversion/packedstorage"
	"github.com/goiree/goiree/compiler/conversion/scftocf"
	"github.com/goiree/goiree/compiler/conversion/stablehlotolinalg"
	"github.com/goiree/goiree/compiler/conversion/tensortolinalg"
	"github.com/goiree/goiree/compiler/conversion/tosatolinalg"
	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/dialect/util"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelsrc"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/objects"
	"github.com/goiree/goiree/compiler/target"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/compiler/vmgen"
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
	// TargetFlags are the values of the registered targets' flags, by flag
	// name (target.Flag.Name), handed to their builders.
	TargetFlags map[string]string
	// DumpSourcesTo and DumpBinariesTo, when set, receive the generated
	// executable sources and the built binaries
	// (--iree-hal-dump-executable-sources-to=, -binaries-to=).
	DumpSourcesTo, DumpBinariesTo string
	// Objects loads executable objects for the builders; nil means the
	// state's resolver (object search paths and kernel sources).
	Objects target.ObjectLoader
	// Builders replace the registry's builder of a backend, by backend
	// name (for tests and embedders).
	Builders map[string]target.Builder
	// ModuleName overrides the VM module name.
	ModuleName string
	// StripAssertions removes the program's cf.assert ops at
	// global-optimization, as IREE's --iree-opt-strip-assertions does
	// (the default from --iree-opt-level O1 and up). The checks the
	// compiler itself adds later (tensor casts' shape checks) stay.
	StripAssertions bool
}

// State is what passes operate on. Everything a later phase needs is in
// the module itself, so the IR printed after any phase up to hal can be
// parsed back into an equivalent State.
type State struct {
	Registry *ir.Registry
	Module   *ir.Module
	Options  Options
	Resolver *objects.Resolver
	// Targets are the executable targets, set by assign-targets (or, when
	// a run resumes after it, read back from the module on first use).
	Targets []*hal.ExecutableTargetAttr
	// Output is the VM bytecode module, set by the vm phase.
	Output []byte

	targetsKnown bool
}

// Pass is one named step.
type Pass struct {
	Name  string
	Phase string
	Run   func(*State) error
}

// Phases lists IREE's phase names in order. "start" (before input) and
// the phases up to hal can be resumed from; vm and end produce bytecode.
var Phases = []string{
	"input", "abi", "preprocessing", "global-optimization", "dispatch-creation", "flow", "stream",
	"executable-sources", "executable-configurations", "executable-targets", "hal", "vm", "end",
}

// Passes is the pass table, in execution order.
var Passes = []Pass{
	{Name: "verify-input", Phase: "input", Run: verify},
	{Name: "drop-encodings", Phase: "input", Run: func(s *State) error { return dropencodings.Convert(s.Module.Op) }},
	{Name: "convert-ml-program-to-util", Phase: "input", Run: func(s *State) error { return mlprogramtoutil.Convert(s.Module.Op) }},
	{Name: "convert-tosa-to-linalg", Phase: "input", Run: func(s *State) error { return tosatolinalg.Convert(s.Module.Op) }},
	{Name: "convert-stablehlo-to-linalg", Phase: "input", Run: func(s *State) error { return stablehlotolinalg.Convert(s.Module.Op) }},
	{Name: "fold-global-addresses", Phase: "input", Run: func(s *State) error { util.FoldGlobalAddresses(s.Module.Op); return nil }},
	{Name: "assign-targets", Phase: "preprocessing", Run: assignTargets},
	{Name: "strip-assertions", Phase: "global-optimization", Run: stripAssertions},
	{Name: "convert-scf-to-cf", Phase: "global-optimization", Run: func(s *State) error { return scftocf.Run(s.Module.Op) }},
	{Name: "convert-linalg-ext", Phase: "global-optimization", Run: func(s *State) error { return linalgexttolinalg.Convert(s.Module.Op) }},
	{Name: "inline-structured-dispatch-regions", Phase: "global-optimization", Run: func(s *State) error { return loopnest.InlineStructuredRegions(s.Module.Op) }},
	{Name: "unpack-packed-storage", Phase: "global-optimization", Run: func(s *State) error { return packedstorage.Convert(s.Module.Op) }},
	{Name: "convert-tensor-ops", Phase: "global-optimization", Run: func(s *State) error { return tensortolinalg.Convert(s.Module.Op) }},
	{Name: "decompose-softmax", Phase: "dispatch-creation", Run: func(s *State) error { _, err := linalg.DecomposeSoftmax(s.Module.Op); return err }},
	{Name: "form-linalg-dispatches", Phase: "dispatch-creation", Run: func(s *State) error { return s.withTargets(loopnest.Form) }},
	{Name: "outline-dispatch-regions", Phase: "flow", Run: func(s *State) error { return transforms.OutlineDispatchRegions(s.Module.Op, s.Registry) }},
	{Name: "outline-dispatch-externs", Phase: "flow", Run: func(s *State) error { return transforms.OutlineDispatchExterns(s.Module.Op) }},
	{Name: "deduplicate-executables", Phase: "flow", Run: func(s *State) error { transforms.DeduplicateExecutables(s.Module.Op, s.Registry); return nil }},
	{Name: "verify-flow", Phase: "flow", Run: verifyFlow},
	{Name: "materialize-executable-sources", Phase: "executable-sources", Run: func(s *State) error {
		ts, err := s.targets()
		if err != nil {
			return err
		}
		return transforms.MaterializeSources(s.Module.Op, ts)
	}},
	{Name: "materialize-stream-executables", Phase: "executable-sources", Run: func(s *State) error {
		ts, err := s.targets()
		if err != nil {
			return err
		}
		return transforms.MaterializeStreamExecutables(s.Module.Op, ts)
	}},
	{Name: "generate-cpu-shims", Phase: "executable-sources", Run: func(s *State) error { return transforms.GenerateCPUShims(s.Module.Op, s.Registry) }},
	{Name: "normalize-interfaces", Phase: "executable-sources", Run: func(s *State) error { transforms.NormalizeInterfaces(s.Module); return nil }},
	{Name: "resolve-objects", Phase: "executable-sources", Run: func(s *State) error { return transforms.ResolveObjects(s.Module.Op, s.Resolver) }},
	{Name: "check-kernel-abis", Phase: "executable-sources", Run: func(s *State) error { return transforms.CheckKernelABIs(s.Module.Op, s.Resolver) }},
	{Name: "name-layouts", Phase: "executable-sources", Run: func(s *State) error { transforms.NameLayouts(s.Module); return nil }},
	{Name: "verify-executable-sources", Phase: "executable-sources", Run: verify},
	{Name: "form-elementwise-dispatches", Phase: "executable-sources", Run: FormDispatches},
	{Name: "annotate-export-configs", Phase: "executable-configurations", Run: AnnotateExportConfigs},
	{Name: "emit-vm-bytecode", Phase: "vm", Run: emitVM},
}

func verify(s *State) error { return dialect.Verify(s.Registry, s.Module.Op) }

// verifyFlow verifies the module after outlining and refuses the
// flow.executables a program may hold (IREE's flow-phase output, whose
// functions take flow.dispatch.tensor bindings): dispatches are compiled
// from hal.executable, hal.executable.source and stream.executable here.
func verifyFlow(s *State) error {
	if err := verify(s); err != nil {
		return err
	}
	for _, op := range s.Module.Op.Body().Ops {
		if op.Name == "flow.executable" {
			return ir.OpErrorf(op, "flow executables (IREE's flow-phase output) cannot be compiled here; write the dispatch as a linalg op, a flow.dispatch.region, a hal.executable(.source) or a stream.executable")
		}
	}
	return nil
}

func assignTargets(s *State) error {
	// The program's own targets stay as written; those the flags choose
	// are completed by the targets' flags (--iree-vulkan-target) in
	// place, which the module's hal.device.targets holds too.
	fromFlags := s.Module.Op.Attr("hal.device.targets") == nil
	ts, err := transforms.DeviceTargets(s.Module, s.Registry, s.Options.Targets)
	if err != nil {
		return err
	}
	if fromFlags {
		if err := target.ConfigureExecutableTargets(ts, s.Options.TargetFlags); err != nil {
			return err
		}
	}
	s.Targets, s.targetsKnown = ts, true
	return nil
}

// targets returns the executable targets, reading them back from the
// module (where assign-targets recorded any that flags chose) when this
// run started after the preprocessing phase.
func (s *State) targets() ([]*hal.ExecutableTargetAttr, error) {
	if !s.targetsKnown && s.Targets == nil {
		if err := assignTargets(s); err != nil {
			return nil, err
		}
	}
	return s.Targets, nil
}

// withTargets runs a dispatch-forming pass with the state's targets.
func (s *State) withTargets(form func(*ir.Operation, []*hal.ExecutableTargetAttr) (int, error)) error {
	ts, err := s.targets()
	if err != nil {
		return err
	}
	_, err = form(s.Module.Op, ts)
	return err
}

// FormDispatches fuses the elementwise tensor math between dispatches into
// generated dispatches for the state's targets (the pass
// form-elementwise-dispatches) and verifies the result.
func FormDispatches(s *State) error {
	ts, err := s.targets()
	if err != nil {
		return err
	}
	if _, err := elementwise.Outline(s.Module.Op, elementwise.Options{Targets: ts}); err != nil {
		return err
	}
	if err := dialect.Verify(s.Registry, s.Module.Op); err != nil {
		return fmt.Errorf("after dispatch formation: %w", err)
	}
	return nil
}

// Builders returns the executable builders of a state: every registered
// target's, configured by the options, with Options.Builders on top.
func (s *State) Builders() vmgen.Backends {
	env := target.Env{DumpSourcesTo: s.Options.DumpSourcesTo, DumpBinariesTo: s.Options.DumpBinariesTo, Flags: s.Options.TargetFlags}
	switch {
	case s.Options.Objects != nil:
		env.Objects = s.Options.Objects
	case s.Resolver != nil:
		env.Objects = s.Resolver
	}
	out := vmgen.Backends{}
	for name, b := range target.Builders(env) {
		out[name] = b
	}
	for name, b := range s.Options.Builders {
		out[name] = b
	}
	return out
}

func emitVM(s *State) error {
	out, err := vmgen.Emit(s.Module.Op, vmgen.Options{Registry: s.Registry, Executables: s.Builders(), ModuleName: s.Options.ModuleName})
	if err != nil {
		return err
	}
	s.Output = out
	return nil
}

// PhaseIndex returns the position of a phase in Phases; "start" is -1.
func PhaseIndex(name string) (int, bool) {
	if name == "start" {
		return -1, true
	}
	for i, p := range Phases {
		if p == name {
			return i, true
		}
	}
	return 0, false
}

// ValidPhase reports whether name is a phase (or "start").
func ValidPhase(name string) bool {
	_, ok := PhaseIndex(name)
	return ok
}

// Resumable reports whether a run can start after phase name: the IR
// printed after it holds everything later phases need.
func Resumable(name string) bool {
	i, ok := PhaseIndex(name)
	h, _ := PhaseIndex("hal")
	return ok && i <= h
}

// RunOptions choose the passes a run executes and observe them.
type RunOptions struct {
	// From is the phase the input has been through: the run starts with
	// the first pass of a later phase ("" or "start": from the first pass).
	From string
	// To is the last phase to run ("" or "end": every phase).
	To string
	// BeforePass and AfterPass, when set, are called around every pass
	// (for --mlir-print-ir-before-all, --mlir-print-ir-after-all and
	// --mlir-timing); elapsed is the pass's wall time.
	BeforePass func(p Pass, s *State)
	AfterPass  func(p Pass, s *State, elapsed time.Duration)
}

// Run executes the passes of the phases after ro.From up to and including
// ro.To.
func Run(s *State, ro RunOptions) error {
	from, to := ro.From, ro.To
	if from == "" {
		from = "start"
	}
	if to == "" {
		to = "end"
	}
	fi, ok := PhaseIndex(from)
	if !ok {
		return fmt.Errorf("unknown phase '%s' (phases: start, %s)", from, strings.Join(Phases, ", "))
	}
	if !Resumable(from) {
		return fmt.Errorf("cannot resume after phase '%s': its output is a bytecode module, not IR (resume from hal or an earlier phase)", from)
	}
	ti, ok := PhaseIndex(to)
	if !ok {
		return fmt.Errorf("unknown phase '%s' (phases: start, %s)", to, strings.Join(Phases, ", "))
	}
	if ti < fi {
		return fmt.Errorf("the phase to stop after (%s) comes before the phase to resume from (%s)", to, from)
	}
	if s.Resolver == nil {
		s.Resolver = &objects.Resolver{SearchPaths: s.Options.ObjectSearchPaths, Sources: kernelsrc.New(s.Options.KernelSources)}
	}
	for _, p := range Passes {
		idx, _ := PhaseIndex(p.Phase)
		if idx <= fi {
			continue
		}
		if idx > ti {
			break
		}
		if ro.BeforePass != nil {
			ro.BeforePass(p, s)
		}
		start := time.Now()
		err := p.Run(s)
		if err != nil {
			return err
		}
		if ro.AfterPass != nil {
			ro.AfterPass(p, s, time.Since(start))
		}
	}
	return nil
}

// Parse parses src into a state ready to run.
func Parse(file string, src []byte, opts Options) (*State, error) {
	reg := dialect.NewRegistry()
	m, err := ir.Parse(file, src, reg)
	if err != nil {
		return nil, err
	}
	return &State{Registry: reg, Module: m, Options: opts}, nil
}

// Compile parses src and runs the pipeline up to and including phase
// stopAfter; "" stops after executable-sources, where every dispatch is a
// hal.executable variant, for callers that run the vm phase themselves
// (package backend).
func Compile(file string, src []byte, opts Options, stopAfter string) (*State, error) {
	s, err := Parse(file, src, opts)
	if err != nil {
		return nil, err
	}
	if stopAfter == "" {
		stopAfter = "executable-sources"
	}
	if err := Run(s, RunOptions{To: stopAfter}); err != nil {
		return s, err
	}
	return s, nil
}

// Print prints the module in canonical form.
func (s *State) Print() string { return ir.PrintModule(s.Module, s.Registry, ir.PrintOptions{}) }

// stripAssertions removes every cf.assert of the program when the options
// ask for it.
func stripAssertions(s *State) error {
	if !s.Options.StripAssertions {
		return nil
	}
	var asserts []*ir.Operation
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name == "cf.assert" {
			asserts = append(asserts, op)
		}
		return true
	})
	for _, op := range asserts {
		op.Remove()
	}
	return nil
}
