// Package transforms holds the compiler passes of the front end: outlining
// hal.dispatch.extern, materialising hal.executable.source and
// stream.executable into per-target HAL variants, resolving object files
// and checking kernel ABIs. Package pipeline orders them into phases.
package transforms

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// DefaultTargets are the executable targets used for a backend named by
// --iree-hal-target-backends when the module declares no device targets.
var DefaultTargets = map[string]*hal.ExecutableTargetAttr{
	"llvm-cpu": {Backend: "llvm-cpu", Format: "embedded-elf-x86_64", Config: &ir.DictAttr{Entries: []ir.NamedAttr{
		{Name: "data_layout", Value: ir.StringAttr{Value: "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"}},
		{Name: "native_vector_size", Value: ir.IndexAttr(32)},
		{Name: "target_triple", Value: ir.StringAttr{Value: "x86_64-unknown-unknown-eabi-elf"}},
	}}},
	"cuda":         {Backend: "cuda", Format: "cuda-nvptx-fb", Config: &ir.DictAttr{Entries: []ir.NamedAttr{{Name: "target_arch", Value: ir.StringAttr{Value: "sm_80"}}}}},
	"vulkan-spirv": {Backend: "vulkan-spirv", Format: "vulkan-spirv-fb"},
}

// Backends lists the target backends the compiler accepts, sorted.
func Backends() []string {
	var out []string
	for k := range DefaultTargets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DeviceTargets returns the executable targets of a module: those of its
// hal.device.targets attribute (seed or HEAD spelling) when present,
// otherwise the defaults of the named backends.
func DeviceTargets(module *ir.Operation, backends []string) ([]*hal.ExecutableTargetAttr, error) {
	var out []*hal.ExecutableTargetAttr
	seen := map[string]bool{}
	add := func(t *hal.ExecutableTargetAttr) {
		k := ir.AttrString(t)
		if !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	if a := module.Attr("hal.device.targets"); a != nil {
		arr, ok := a.(*ir.ArrayAttr)
		if !ok {
			return nil, ir.OpErrorf(module, "hal.device.targets must be an array of #hal.device.target attributes, found %s", ir.AttrString(a))
		}
		for _, e := range arr.Elems {
			d, ok := e.(*hal.DeviceTargetAttr)
			if !ok {
				return nil, ir.OpErrorf(module, "hal.device.targets must hold #hal.device.target attributes, found %s", ir.AttrString(e))
			}
			for _, t := range d.ExecutableTargets() {
				add(t)
			}
		}
		return out, nil
	}
	for _, b := range backends {
		t, ok := DefaultTargets[b]
		if !ok {
			return nil, fmt.Errorf("unknown target backend '%s' (available: %s)", b, strings.Join(Backends(), ", "))
		}
		add(t)
	}
	return out, nil
}

// VariantName derives a variant symbol from a target, like IREE's
// symbol-name fragment: the format with non-identifier characters as '_'.
func VariantName(t *hal.ExecutableTargetAttr) string {
	var b strings.Builder
	name := t.Format
	if arch, ok := t.Config.Get("target_arch").(ir.StringAttr); ok {
		name += "_" + arch.Value
	}
	for _, c := range name {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "variant"
	}
	return b.String()
}

// uniqueName returns base, or base_N when taken.
func uniqueName(used map[string]bool, base string) string {
	n := base
	for i := 1; used[n]; i++ {
		n = fmt.Sprintf("%s_%d", base, i)
	}
	used[n] = true
	return n
}
