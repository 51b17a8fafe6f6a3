// Package backend runs the last passes of the pipeline on a module that a
// caller holds after pipeline.Compile: elementwise dispatch formation
// (which pipeline.Compile has already run, so it is a no-op on such a
// module) and the vm phase, with the llvm-cpu target configured by typed
// options. It exists for embedders and tests that configure targets in
// Go; iree-compile runs the whole pass table of package pipeline instead.
//
// Importing backend links every registered target (compiler/target/all).
package backend

import (
	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target"
	_ "github.com/goiree/goiree/compiler/target/all" // the targets this package builds for
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/vmgen"
)

// Options configure the back end.
type Options struct {
	// Registry is the dialect registry of the module (nil: a new one).
	Registry *ir.Registry
	// Targets get a variant of every generated dispatch; empty means the
	// module's hal.device.targets, or the registry's fallback target.
	Targets []*hal.ExecutableTargetAttr
	// LLVMCPU configures CPU code generation: clang and lld paths
	// (--iree-llvmcpu-clang-path=, --iree-llvmcpu-embedded-linker-path=),
	// the object loader and the dump directories
	// (--iree-hal-dump-executable-sources-to=, -binaries-to=), which the
	// other targets share.
	LLVMCPU llvmcpu.Options
	// Executables replaces the code generators of some backends, keyed
	// by backend name ("cuda", "vulkan-spirv", ...).
	Executables vmgen.Backends
	// GlslcPath is the glslc that compiles generated Vulkan dispatches
	// (--iree-vulkan-glslc-path=); empty means glslc on PATH.
	GlslcPath string
	// ModuleName overrides the VM module name.
	ModuleName string
}

// state wraps module into a pipeline state configured by opts.
func (o Options) state(module *ir.Operation) *pipeline.State {
	reg := o.Registry
	if reg == nil {
		reg = dialect.NewRegistry()
	}
	builders := map[string]target.Builder{"llvm-cpu": llvmcpu.NewBuilder(o.LLVMCPU)}
	for name, b := range o.Executables {
		builders[name] = b
	}
	s := &pipeline.State{
		Registry: reg,
		Module:   &ir.Module{Op: module},
		Targets:  o.Targets,
		Options: pipeline.Options{
			TargetFlags:    map[string]string{"iree-vulkan-glslc-path": o.GlslcPath},
			DumpSourcesTo:  o.LLVMCPU.DumpSourcesTo,
			DumpBinariesTo: o.LLVMCPU.DumpBinariesTo,
			Builders:       builders,
			ModuleName:     o.ModuleName,
		},
	}
	if o.LLVMCPU.Objects != nil {
		s.Options.Objects = o.LLVMCPU.Objects
	}
	return s
}

// FormDispatches fuses elementwise tensor ops into generated dispatches
// and verifies the result (pipeline.FormDispatches).
func FormDispatches(module *ir.Operation, opts Options) error {
	return pipeline.FormDispatches(opts.state(module))
}

// Emit builds the dispatched executables and emits the VM bytecode
// module.
func Emit(module *ir.Operation, opts Options) ([]byte, error) {
	s := opts.state(module)
	return vmgen.Emit(module, vmgen.Options{Registry: s.Registry, Executables: s.Builders(), ModuleName: opts.ModuleName})
}

// Compile runs FormDispatches then Emit.
func Compile(module *ir.Operation, opts Options) ([]byte, error) {
	if err := FormDispatches(module, opts); err != nil {
		return nil, err
	}
	return Emit(module, opts)
}
