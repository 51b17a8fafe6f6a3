package llvmcpu

import (
	"bytes"
	"debug/elf"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/objects"
)

// libraryQuery is the symbol every CPU executable library exports.
const libraryQuery = "iree_hal_executable_library_query"

// libraryMachines maps the llvm-cpu executable formats to ELF machines.
var libraryMachines = map[string]elf.Machine{
	"embedded-elf-x86_64": elf.EM_X86_64,
	"embedded-elf-arm_64": elf.EM_AARCH64,
}

// registeredBuilder builds llvm-cpu variants for the target registry. A variant without a builtin.module
// whose single object is an ELF shared library (a complete executable
// library, as hal.dispatch.extern may name for llvm-cpu the way it names a
// PTX or SPIR-V module for the GPU targets) is embedded as it is, after
// checking its machine and its library query export; every other variant
// goes to the code generator, which compiles the variant's shims and links
// its relocatable objects.
type registeredBuilder struct {
	gen     Builder
	objects ObjectLoader
}

// Build implements target.Builder.
func (b registeredBuilder) Build(v *ir.Operation) ([]byte, error) {
	lib, ok, err := prebuiltLibrary(v, b.objects)
	if err != nil || ok {
		return lib, err
	}
	return b.gen.Build(v)
}

// prebuiltLibrary returns the library of an external llvm-cpu variant, ok
// false when the variant is not one (it has a module, or its objects are
// not a shared library).
func prebuiltLibrary(v *ir.Operation, loader ObjectLoader) ([]byte, bool, error) {
	t := hal.VariantTarget(v)
	if t == nil || t.Backend != "llvm-cpu" || hal.InnerModule(v) != nil || loader == nil {
		return nil, false, nil
	}
	objs := hal.VariantObjects(v)
	for i, o := range objs {
		data, err := loader.Load(o)
		if err != nil {
			return nil, false, ir.OpErrorf(v, "%v", err)
		}
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil || f.Type != elf.ET_DYN {
			continue // not a library: relocatable objects are linked by the code generator
		}
		name := objects.Name(o)
		if len(objs) != 1 {
			return nil, false, ir.OpErrorf(v, "object #%d %s is an executable library, which must be the variant's only object (found %d objects)", i, name, len(objs))
		}
		want, known := libraryMachines[t.Format]
		if !known {
			return nil, false, ir.OpErrorf(v, "executable format %q cannot hold a prebuilt library (supported: embedded-elf-arm_64, embedded-elf-x86_64)", t.Format)
		}
		if f.Machine != want {
			return nil, false, ir.OpErrorf(v, "executable library %s is for %s, but the variant's format %s needs %s", name, f.Machine, t.Format, want)
		}
		syms, _ := f.DynamicSymbols()
		found := false
		for _, s := range syms {
			if s.Name == libraryQuery && elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF {
				found = true
			}
		}
		if !found {
			return nil, false, ir.OpErrorf(v, "shared library %s does not export %s, so it is not an executable library", name, libraryQuery)
		}
		return data, true, nil
	}
	return nil, false, nil
}
