package transforms

import (
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

func newSymbolOp(name, sym, visibility string, pos ir.Pos) *ir.Operation {
	op := &ir.Operation{Name: name, Pos: pos}
	if visibility != "" {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "sym_visibility", Value: ir.StringAttr{Value: visibility}})
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "sym_name", Value: ir.StringAttr{Value: sym}})
	op.AddRegion().AddBlock()
	return op
}

func visibility(op *ir.Operation) string {
	if v, ok := op.Attr("sym_visibility").(ir.StringAttr); ok {
		return v.Value
	}
	return ""
}

func newVariant(t *hal.ExecutableTargetAttr, name string, objs []ir.Attribute, pos ir.Pos) *ir.Operation {
	v := newSymbolOp("hal.executable.variant", name, "public", pos)
	v.Attrs = append(v.Attrs, ir.NamedAttr{Name: "target", Value: t})
	if len(objs) > 0 {
		v.Attrs = append(v.Attrs, ir.NamedAttr{Name: "objects", Value: &ir.ArrayAttr{Elems: objs}})
	}
	return v
}

// replaceOp puts n where old was.
func replaceOp(old, n *ir.Operation) {
	b := old.Block
	for i, o := range b.Ops {
		if o == old {
			b.Ops[i] = n
			n.Block = b
			old.Block = nil
			return
		}
	}
}

// MaterializeSources turns every hal.executable.source into a
// hal.executable with one variant per target, holding the objects the
// source's map assigns to that target (isGenericOf), its exports and its
// module when it has one.
func MaterializeSources(module *ir.Operation, targets []*hal.ExecutableTargetAttr) error {
	for _, src := range collect(module, "hal.executable.source") {
		if len(targets) == 0 {
			return ir.OpErrorf(src, "cannot materialise @%s: no executable targets (add hal.device.targets to the module or pass --iree-hal-target-backends=)", src.SymName())
		}
		objsMap, _ := src.Attr("objects").(*hal.ExecutableObjectsAttr)
		exe := newSymbolOp("hal.executable", src.SymName(), visibility(src), src.Pos)
		used := map[string]bool{}
		for _, t := range targets {
			var objs []ir.Attribute
			if objsMap != nil {
				objs = objsMap.ApplicableObjects(t)
			}
			v := newVariant(t, uniqueName(used, VariantName(t)), objs, src.Pos)
			for _, o := range src.Body().Ops {
				v.Body().Append(ir.Clone(o, nil))
			}
			exe.Body().Append(v)
		}
		replaceOp(src, exe)
	}
	return nil
}

func collect(root *ir.Operation, name string) []*ir.Operation {
	var out []*ir.Operation
	ir.Walk(root, func(o *ir.Operation) bool {
		if o.Name == name {
			out = append(out, o)
			return false
		}
		return true
	})
	return out
}
