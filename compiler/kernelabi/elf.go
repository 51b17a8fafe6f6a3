package kernelabi

import (
	"bytes"
	"debug/elf"
	"fmt"
	"sort"
	"strings"
)

// Import is a function a shim calls through a hal.import.static
// declaration.
type Import struct {
	Symbol string // the declared function, e.g. simple_mul_workgroup
	Caller string // the shim function calling it
}

// ELFObject is one object file given to the linker.
type ELFObject struct {
	Name string
	Data []byte
}

// ArchMachine maps a CPU format suffix (embedded-elf-<arch>) to its ELF
// machine.
var ArchMachine = map[string]elf.Machine{
	"x86_64":   elf.EM_X86_64,
	"arm_64":   elf.EM_AARCH64,
	"arm_32":   elf.EM_ARM,
	"riscv_64": elf.EM_RISCV,
	"riscv_32": elf.EM_RISCV,
	"x86_32":   elf.EM_386,
}

// DefinedFunctions returns the functions an ELF object defines.
func DefinedFunctions(obj ELFObject) (map[string]bool, elf.Machine, error) {
	if len(obj.Data) < 4 || string(obj.Data[:4]) != "\x7fELF" {
		return nil, 0, fmt.Errorf("%s: not an ELF object file", obj.Name)
	}
	f, err := elf.NewFile(bytes.NewReader(obj.Data))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: reading ELF: %w", obj.Name, err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil && err != elf.ErrNoSymbols {
		return nil, 0, fmt.Errorf("%s: reading ELF symbols: %w", obj.Name, err)
	}
	out := map[string]bool{}
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF || s.Name == "" {
			continue
		}
		if t := elf.ST_TYPE(s.Info); t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC {
			out[s.Name] = true
		}
	}
	return out, f.Machine, nil
}

// CheckELF verifies that the objects, together, define every import for
// the architecture arch (e.g. "x86_64"; "" skips the machine check).
func CheckELF(objs []ELFObject, arch string, imports []Import) error {
	defined := map[string]string{}
	var names []string
	for _, o := range objs {
		fns, machine, err := DefinedFunctions(o)
		if err != nil {
			return err
		}
		if want, ok := ArchMachine[arch]; ok && machine != want {
			return fmt.Errorf("%s: object is for %s but the variant targets %s (%s)", o.Name, machine, arch, want)
		}
		for fn := range fns {
			if _, dup := defined[fn]; !dup {
				defined[fn] = o.Name
			}
		}
		names = append(names, o.Name)
	}
	for _, imp := range imports {
		if _, ok := defined[imp.Symbol]; ok {
			continue
		}
		var have []string
		for fn := range defined {
			have = append(have, fn)
		}
		sort.Strings(have)
		where := strings.Join(names, ", ")
		if where == "" {
			where = "no object"
		}
		list := strings.Join(have, ", ")
		if list == "" {
			list = "none"
		}
		return fmt.Errorf("%s: does not define function '%s', which @%s calls through a hal.import.static declaration (defined functions: %s)", where, imp.Symbol, imp.Caller, list)
	}
	return nil
}
