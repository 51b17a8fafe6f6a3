package transforms

import (
	"fmt"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// flatLayout converts a seed layout (push_constants/sets) whose only set is
// 0 with bindings 0..n-1 into the current flat form; ok is false when the
// layout cannot be expressed without sets.
func flatLayout(l *hal.PipelineLayoutAttr) (*hal.PipelineLayoutAttr, bool) {
	if !l.SeedForm {
		return l, true
	}
	out := &hal.PipelineLayoutAttr{Constants: l.Constants, Bindings: []hal.Binding{}}
	if len(l.Sets) > 1 || (len(l.Sets) == 1 && l.Sets[0].Ordinal != 0) {
		return nil, false
	}
	if len(l.Sets) == 1 {
		for i, b := range l.Sets[0].Bindings {
			if b.Ordinal != int64(i) {
				return nil, false
			}
			out.Bindings = append(out.Bindings, hal.Binding{Type: b.Type, Flags: b.Flags})
		}
	}
	return out, true
}

// NormalizeInterfaces rewrites the seed spellings inside HAL variants into
// the current ones where the information allows: flat pipeline layouts,
// `hal.interface.constant.load layout(..) ordinal(..)` and
// `hal.interface.binding.subspan layout(..) binding(..)` (with ReadOnly
// flags from the layout). Aliases naming a converted layout keep their
// names.
func NormalizeInterfaces(m *ir.Module) {
	converted := map[string]*hal.PipelineLayoutAttr{}
	for _, v := range Variants(m.Op) {
		inner := hal.InnerModule(v)
		for _, e := range v.Body().Ops {
			if e.Name != "hal.executable.export" {
				continue
			}
			old := hal.ExportLayout(e)
			if old == nil || !old.SeedForm {
				continue
			}
			flat, ok := flatLayout(old)
			if !ok {
				continue
			}
			converted[ir.AttrString(old)] = flat
			e.SetAttr("layout", flat)
			if inner == nil {
				continue
			}
			fn := ir.LookupSymbolIn(inner, e.SymName())
			if fn == nil || fn.Name != "func.func" {
				continue
			}
			ir.Walk(fn, func(o *ir.Operation) bool {
				switch {
				case o.Name == "hal.interface.constant.load" && !o.HasAttr("layout"):
					n, _ := o.IntAttr("index")
					o.RemoveAttr("index")
					o.Attrs = append([]ir.NamedAttr{{Name: "layout", Value: flat}, {Name: "ordinal", Value: ir.IndexAttr(n)}}, o.Attrs...)
				case o.Name == "hal.interface.binding.subspan" && o.HasAttr("set"):
					s, _ := o.IntAttr("set")
					b, _ := o.IntAttr("binding")
					bind, found := old.Lookup(s, b)
					if !found {
						return true
					}
					o.RemoveAttr("set")
					o.RemoveAttr("descriptor_type")
					o.RemoveAttr("binding")
					o.Attrs = append([]ir.NamedAttr{{Name: "layout", Value: flat}, {Name: "binding", Value: ir.IndexAttr(b)}}, o.Attrs...)
					if bind.ReadOnly() && !o.HasAttr("descriptor_flags") {
						o.SetAttr("descriptor_flags", &ir.ArrayAttr{Elems: []ir.Attribute{ir.StringAttr{Value: "ReadOnly"}}})
					}
				}
				return true
			})
		}
	}
	for i, a := range m.AttrAliases {
		if flat, ok := converted[ir.AttrString(a.Value)]; ok {
			m.AttrAliases[i].Value = flat
		}
	}
}

// NameLayouts gives every pipeline layout used by an export that has no
// alias one (#pipeline_layout, #pipeline_layout1, ...), so printed IR names
// each layout once.
func NameLayouts(m *ir.Module) {
	have := map[string]bool{}
	names := map[string]bool{}
	for _, a := range m.AttrAliases {
		have[ir.AttrString(a.Value)] = true
		names[a.Name] = true
	}
	n := 0
	for _, v := range Variants(m.Op) {
		for _, e := range v.Body().Ops {
			l := hal.ExportLayout(e)
			if e.Name != "hal.executable.export" || l == nil || have[ir.AttrString(l)] {
				continue
			}
			var name string
			for {
				name = "pipeline_layout"
				if n > 0 {
					name = fmt.Sprintf("pipeline_layout%d", n)
				}
				n++
				if !names[name] {
					break
				}
			}
			names[name] = true
			have[ir.AttrString(l)] = true
			m.AttrAliases = append(m.AttrAliases, ir.NamedAttr{Name: name, Value: l})
		}
	}
}
