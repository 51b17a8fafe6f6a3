package transforms

import (
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelabi"
	"github.com/goiree/goiree/compiler/objects"
)

// Variants returns every hal.executable.variant in module.
func Variants(module *ir.Operation) []*ir.Operation { return collect(module, "hal.executable.variant") }

// ResolveObjects finds every path object of every variant (rewriting the
// path to where it was found) and applies IREE's external-variant rules.
func ResolveObjects(module *ir.Operation, r *objects.Resolver) error {
	for _, v := range Variants(module) {
		if err := r.ResolvePaths(v); err != nil {
			return err
		}
		if err := r.CheckExternalVariant(v); err != nil {
			return err
		}
	}
	return nil
}

// staticImports lists the hal.import.static functions the functions of a
// variant's module call.
func staticImports(m *ir.Operation) []kernelabi.Import {
	decls := map[string]bool{}
	for _, o := range m.Body().Ops {
		if o.Name == "func.func" && o.Body() == nil && o.HasAttr("hal.import.static") {
			decls[o.SymName()] = true
		}
	}
	var out []kernelabi.Import
	seen := map[string]bool{}
	for _, o := range m.Body().Ops {
		if o.Name != "func.func" || o.Body() == nil {
			continue
		}
		caller := o.SymName()
		ir.Walk(o, func(c *ir.Operation) bool {
			if c.Name == "func.call" {
				if ref, ok := c.Attr("callee").(ir.SymbolRefAttr); ok && len(ref.Nested) == 0 && decls[ref.Root] && !seen[ref.Root] {
					seen[ref.Root] = true
					out = append(out, kernelabi.Import{Symbol: ref.Root, Caller: caller})
				}
			}
			return true
		})
	}
	return out
}

func exportInterfaces(v *ir.Operation) []kernelabi.KernelInterface {
	var out []kernelabi.KernelInterface
	for _, o := range v.Body().Ops {
		if o.Name != "hal.executable.export" {
			continue
		}
		l := hal.ExportLayout(o)
		if l == nil {
			continue
		}
		out = append(out, kernelabi.KernelInterface{Export: o.SymName(), Bindings: len(l.AllBindings()), Constants: int(l.ConstantCount())})
	}
	return out
}

// CheckKernelABIs checks each variant's objects against its declarations:
// ELF objects of llvm-cpu variants define the static imports their shims
// call, PTX objects of cuda variants have matching .entry kernels and
// SPIR-V objects of vulkan variants match their exports' layouts.
func CheckKernelABIs(module *ir.Operation, r *objects.Resolver) error {
	for _, v := range Variants(module) {
		t := hal.VariantTarget(v)
		if t == nil {
			continue
		}
		objs := hal.VariantObjects(v)
		load := func(o *hal.ExecutableObjectAttr) ([]byte, error) {
			b, err := r.Load(o)
			if err != nil {
				return nil, ir.OpErrorf(v, "%v", err)
			}
			return b, nil
		}
		switch {
		case t.Backend == "llvm-cpu":
			m := hal.InnerModule(v)
			if m == nil {
				continue
			}
			imports := staticImports(m)
			if len(imports) == 0 {
				continue
			}
			var elfs []kernelabi.ELFObject
			for _, o := range objs {
				if o.HasPath && !strings.HasSuffix(o.Path, ".o") && !strings.HasSuffix(o.Path, ".obj") && o.Data == nil {
					continue // archives and bitcode are not checked
				}
				b, err := load(o)
				if err != nil {
					return err
				}
				elfs = append(elfs, kernelabi.ELFObject{Name: objects.Name(o), Data: b})
			}
			arch := t.Format
			for _, p := range []string{"embedded-elf-", "system-elf-"} {
				arch = strings.TrimPrefix(arch, p)
			}
			if err := kernelabi.CheckELF(elfs, arch, imports); err != nil {
				return ir.OpErrorf(v, "kernel ABI mismatch: %v", err)
			}
		case t.Backend == "cuda" && hal.InnerModule(v) == nil:
			for _, o := range objs {
				b, err := load(o)
				if err != nil {
					return err
				}
				if err := kernelabi.CheckPTX(objects.Name(o), string(b), exportInterfaces(v)); err != nil {
					return ir.OpErrorf(v, "kernel ABI mismatch: %v", err)
				}
			}
		case objects.IsSPIRV(t) && hal.InnerModule(v) == nil:
			for _, o := range objs {
				b, err := load(o)
				if err != nil {
					return err
				}
				for _, ex := range exportInterfaces(v) {
					if err := kernelabi.CheckSPIRV(objects.Name(o), b, ex); err != nil {
						return ir.OpErrorf(v, "kernel ABI mismatch: %v", err)
					}
				}
			}
		}
	}
	return nil
}
