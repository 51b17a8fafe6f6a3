package transforms

import (
	"fmt"

	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// OutlineDispatchExterns replaces every hal.dispatch.extern with a
// flow.dispatch into a new private hal.executable that has one variant per
// target of the op, in the op's order, each with that target's objects, its
// condition (as hal.executable.condition) when it has one, and an export
// carrying the target's ordinal, the layout, workgroup count region and
// workgroup attributes. At run time the dispatch uses the first variant
// whose format the device runs and whose condition holds.
func OutlineDispatchExterns(module *ir.Operation) error {
	used := map[string]bool{}
	for _, o := range module.Body().Ops {
		if n := o.SymName(); n != "" {
			used[n] = true
		}
	}
	counter := map[string]int{}
	var failed error
	ir.Walk(module, func(op *ir.Operation) bool {
		if failed != nil {
			return false
		}
		if op.Name != "hal.dispatch.extern" {
			return true
		}
		fn := op.ParentOp()
		for fn != nil && fn.Name != "func.func" {
			fn = fn.ParentOp()
		}
		if fn == nil || fn.ParentOp() != module {
			failed = ir.OpErrorf(op, "must be nested in a func.func at module level to be outlined")
			return false
		}
		base := fmt.Sprintf("%s_dispatch_%d", fn.SymName(), counter[fn.SymName()])
		counter[fn.SymName()]++
		exeName := uniqueName(used, base)
		exportName := ""
		if s, ok := op.Attr("export_name").(ir.StringAttr); ok {
			exportName = s.Value
		}
		targets, objs, ords := hal.ExternTargets(op)
		exe := newSymbolOp("hal.executable", exeName, "private", op.Pos)
		refs := &ir.ArrayAttr{}
		vused := map[string]bool{}
		for i, t := range targets {
			v := newVariant(t, uniqueName(vused, VariantName(t)), objs[i], op.Pos)
			e := newSymbolOp("hal.executable.export", exportName, "public", op.Pos)
			e.Regions = nil
			e.Attrs = append(e.Attrs, ir.NamedAttr{Name: "ordinal", Value: ir.IndexAttr(ords[i])},
				ir.NamedAttr{Name: "layout", Value: op.Attr("layout")})
			for _, k := range append([]string{"workgroup_size", "subgroup_size", "workgroup_local_memory"}, cpuShimAttrs...) {
				if a := op.Attr(k); a != nil {
					e.Attrs = append(e.Attrs, ir.NamedAttr{Name: k, Value: a})
				}
			}
			holder := ir.Clone(op, nil)
			r := holder.Regions[0]
			r.Op = e
			e.Regions = []*ir.Region{r}
			if hal.ExternCondition(op, i) != nil {
				// The target's condition decides at run time whether the
				// variant may be used, as hal.executable.condition.
				c := &ir.Operation{Name: "hal.executable.condition", Pos: op.Pos, Loc: op.Loc}
				cr := holder.Regions[1+i]
				cr.Op = c
				c.Regions = []*ir.Region{cr}
				v.Body().Append(c)
			}
			v.Body().Append(e)
			exe.Body().Append(v)
			refs.Elems = append(refs.Elems, ir.SymbolRefAttr{Root: exeName, Nested: []string{v.SymName(), exportName}})
		}
		module.Body().InsertBefore(fn, exe)
		d := flow.Dispatch{Op: op}
		nd := &ir.Operation{Name: "flow.dispatch", Pos: op.Pos, Loc: op.Loc}
		nd.Operands = append([]*ir.Value(nil), op.Operands...)
		nd.Attrs = []ir.NamedAttr{{Name: "entry_points", Value: refs}}
		if b := op.Attr("bindings"); b != nil {
			nd.Attrs = append(nd.Attrs, ir.NamedAttr{Name: "hal.interface.bindings", Value: b})
		}
		nd.Attrs = append(nd.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(d.Workload()), len(d.Arguments()), len(d.ArgumentDims()), len(d.ResultDims()))})
		if t := op.Attr("tied_operands"); t != nil {
			nd.Attrs = append(nd.Attrs, ir.NamedAttr{Name: "tied_operands", Value: t})
		}
		// The new op takes over the results so uses stay valid.
		nd.Results = op.Results
		for _, r := range nd.Results {
			r.Op = nd
		}
		replaceOp(op, nd)
		return false
	})
	return failed
}
