// Package transforms holds the compiler passes of the front end: outlining
// hal.dispatch.extern, materialising hal.executable.source and
// stream.executable into per-target HAL variants, resolving object files
// and checking kernel ABIs. Package pipeline orders them into phases.
package transforms

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// DeviceTargets returns the executable targets of a module, each once, in
// order: those of its hal.device.targets attribute when present (a list of
// devices, or a dictionary of named devices; each a #hal.device.target in
// the seed or current spelling, a #hal.device.alias or a
// #hal.device.select), otherwise those the flags in o choose. As in IREE,
// flags never override the program's own targets. When the flags choose
// the targets, the module gets them as its hal.device.targets attribute,
// so later phases and printed IR see one description whichever spelling
// the flags used.
func DeviceTargets(m *ir.Module, reg *ir.Registry, o TargetOptions) ([]*hal.ExecutableTargetAttr, error) {
	module := m.Op
	var set deviceSet
	if a := module.Attr("hal.device.targets"); a != nil {
		expand := aliasExpander(m.AttrAliases)
		var elems []ir.Attribute
		switch a := a.(type) {
		case *ir.ArrayAttr:
			elems = a.Elems
		case *ir.DictAttr:
			for _, e := range a.Entries {
				elems = append(elems, e.Value)
			}
		default:
			return nil, ir.OpErrorf(module, "hal.device.targets must be a list of devices or a dictionary of named devices, found %s", ir.AttrString(a))
		}
		for _, e := range elems {
			if err := addDeviceAttr(&set, e, o.LocalBackends, reg, expand); err != nil {
				return nil, ir.OpErrorf(module, "hal.device.targets: %v", err)
			}
		}
	} else {
		devices, err := ResolveTargetOptions(o, reg)
		if err != nil {
			return nil, err
		}
		if len(devices) > 0 {
			arr := &ir.ArrayAttr{}
			for _, d := range devices {
				arr.Elems = append(arr.Elems, d)
			}
			module.SetAttr("hal.device.targets", arr)
		}
		set.devices = devices
	}
	var out []*hal.ExecutableTargetAttr
	seen := map[string]bool{}
	for _, d := range set.devices {
		for _, t := range d.ExecutableTargets() {
			if k := ir.AttrString(t); !seen[k] {
				seen[k] = true
				out = append(out, t)
			}
		}
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
