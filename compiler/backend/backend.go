// Package backend runs the compiler's back-end phases on a module that the
// front end has taken through its hal phase (executables materialised into
// hal.executable variants, objects resolved):
//
//	dispatch: elementwise tensor math between dispatches is fused into
//	          generated dispatches (package elementwise);
//	vm:       every dispatched variant is built by its target's code
//	          generator (llvm-cpu: package target/llvmcpu) and the host
//	          functions are lowered to VM bytecode (package vmgen).
//
// FormDispatches and Emit are the two phases; Compile runs both.
package backend

import (
	"fmt"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	cudatarget "github.com/goiree/goiree/compiler/target/cuda"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	vulkantarget "github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/vmgen"
)

// Options configure the back end.
type Options struct {
	// Registry is the dialect registry of the module (nil: a new one).
	Registry *ir.Registry
	// Targets get a variant of every generated dispatch; empty means the
	// module's hal.device.targets, or the default CPU target.
	Targets []*hal.ExecutableTargetAttr
	// LLVMCPU configures CPU code generation: clang and lld paths
	// (--iree-llvmcpu-clang-path=, --iree-llvmcpu-embedded-linker-path=),
	// the object loader and the dump directories
	// (--iree-hal-dump-executable-sources-to=, -binaries-to=).
	LLVMCPU llvmcpu.Options
	// Executables adds code generators for other backends, keyed by
	// backend name ("cuda", "vulkan-spirv", ...). llvm-cpu is always
	// present unless overridden here.
	Executables vmgen.Backends
	// GlslcPath is the glslc that compiles generated Vulkan dispatches
	// (--iree-vulkan-glslc-path=); empty means glslc on PATH.
	GlslcPath string
	// ModuleName overrides the VM module name.
	ModuleName string
}

func (o Options) registry() *ir.Registry {
	if o.Registry != nil {
		return o.Registry
	}
	return dialect.NewRegistry()
}

// FormDispatches fuses elementwise tensor ops into generated dispatches
// and verifies the result.
func FormDispatches(module *ir.Operation, opts Options) error {
	if _, err := elementwise.Outline(module, elementwise.Options{Targets: opts.Targets}); err != nil {
		return err
	}
	if err := dialect.Verify(opts.registry(), module); err != nil {
		return fmt.Errorf("after dispatch formation: %w", err)
	}
	return nil
}

// Emit builds the dispatched executables and emits the VM bytecode
// module.
func Emit(module *ir.Operation, opts Options) ([]byte, error) {
	builders := vmgen.Backends{"llvm-cpu": cpuBuilder{gen: llvmcpu.Builder{Options: opts.LLVMCPU}, objects: opts.LLVMCPU.Objects}}
	builders["vulkan-spirv"] = vulkantarget.Builder{Options: vulkantarget.Options{GlslcPath: opts.GlslcPath, Objects: opts.LLVMCPU.Objects, DumpSourcesTo: opts.LLVMCPU.DumpSourcesTo, DumpBinariesTo: opts.LLVMCPU.DumpBinariesTo}}
	builders["vulkan"] = builders["vulkan-spirv"] // the seed spelling of the backend
	builders["cuda"] = cudatarget.Builder{Options: cudatarget.Options{Objects: opts.LLVMCPU.Objects, DumpSourcesTo: opts.LLVMCPU.DumpSourcesTo, DumpBinariesTo: opts.LLVMCPU.DumpBinariesTo}}
	for name, b := range opts.Executables {
		builders[name] = b
	}
	return vmgen.Emit(module, vmgen.Options{Registry: opts.registry(), Executables: builders, ModuleName: opts.ModuleName})
}

// Compile runs FormDispatches then Emit.
func Compile(module *ir.Operation, opts Options) ([]byte, error) {
	if err := FormDispatches(module, opts); err != nil {
		return nil, err
	}
	return Emit(module, opts)
}
