package hal

import (
	"fmt"

	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/ir"
)

// Resources splits dispatch arguments into primitive operands (push
// constants, in order) and resources (tensor operands, then untied results),
// the binding order of IREE's dispatch ABI.
func Resources(args, results []*ir.Value, tied []int64) (prims []*ir.Value, resources []*ir.Value) {
	for _, a := range args {
		if ir.IsPrimitive(a.Type) {
			prims = append(prims, a)
		} else {
			resources = append(resources, a)
		}
	}
	for i, r := range results {
		if i < len(tied) && tied[i] >= 0 {
			continue
		}
		resources = append(resources, r)
	}
	return prims, resources
}

// InterfaceBindings returns a dispatch's explicit hal.interface.bindings.
func InterfaceBindings(op *ir.Operation) ([]*InterfaceBindingAttr, bool, error) {
	a := op.Attr("hal.interface.bindings")
	if a == nil {
		a = op.Attr("bindings")
	}
	if a == nil {
		return nil, false, nil
	}
	arr, ok := a.(*ir.ArrayAttr)
	if !ok {
		return nil, true, ir.OpErrorf(op, "hal.interface.bindings must be an array of #hal.interface.binding, found %s", ir.AttrString(a))
	}
	var out []*InterfaceBindingAttr
	for _, e := range arr.Elems {
		b, ok := e.(*InterfaceBindingAttr)
		if !ok {
			return nil, true, ir.OpErrorf(op, "hal.interface.bindings must hold #hal.interface.binding attributes, found %s", ir.AttrString(e))
		}
		out = append(out, b)
	}
	return out, true, nil
}

// checkResources verifies that a dispatch's operands fit a layout.
func checkResources(op *ir.Operation, l *PipelineLayoutAttr, args, results []*ir.Value, tied []int64, target string) error {
	if l == nil {
		return nil
	}
	prims, resources := Resources(args, results, tied)
	if int64(len(prims)) != l.ConstantCount() {
		return ir.OpErrorf(op, "passes %d primitive operands (push constants) but the layout of %s declares %d constants", len(prims), target, l.ConstantCount())
	}
	for _, v := range prims {
		// Integers narrower than 32 bits travel zero-extended, as host
		// code keeps them.
		_, isInt := v.Type.(ir.IntegerType)
		if w := bitWidthOf(v.Type); w != 32 && !(isInt && w < 32) {
			return ir.OpErrorf(op, "operand '%%%s' of type '%s' cannot be passed as a 32-bit push constant to %s; pass an i32 (e.g. arith.index_cast)", v.Name, ir.TypeString(v.Type), target)
		}
	}
	explicit, has, err := InterfaceBindings(op)
	if err != nil {
		return err
	}
	all := l.AllBindings()
	if has {
		if len(explicit) != len(resources) {
			return ir.OpErrorf(op, "has %d resources (tensor operands and untied results) but hal.interface.bindings lists %d", len(resources), len(explicit))
		}
		for _, b := range explicit {
			if _, ok := l.Lookup(b.Set, b.Binding); !ok {
				return ir.OpErrorf(op, "binding %s is not declared in the layout of %s", ir.AttrString(b), target)
			}
		}
		return nil
	}
	if len(resources) != len(all) {
		return ir.OpErrorf(op, "has %d resources (tensor operands and untied results) but the layout of %s declares %d bindings", len(resources), target, len(all))
	}
	return nil
}

func bitWidthOf(t ir.Type) int {
	switch t := t.(type) {
	case ir.IntegerType:
		return t.Width
	case ir.FloatType:
		return t.Width()
	}
	return 0
}

// ResolvedExport is the result of resolving a dispatch entry point.
type ResolvedExport struct {
	Executable *ir.Operation // hal.executable, hal.executable.source or stream.executable
	Variant    *ir.Operation // when the reference names one
	Export     *ir.Operation // hal.executable.export or stream.executable.export
	// Exports holds the export in every variant when the reference is
	// @exe::@export on a hal.executable.
	Exports []*ir.Operation
}

// ResolveEntryPoint resolves @exe::@export or @exe::@variant::@export from
// the dispatch op.
func ResolveEntryPoint(reg *ir.Registry, from *ir.Operation, ref ir.SymbolRefAttr) (*ResolvedExport, error) {
	table := ir.NearestSymbolTable(reg, from)
	if table == nil {
		return nil, ir.OpErrorf(from, "has no enclosing symbol table to resolve %s", ir.AttrString(ref))
	}
	exe := ir.LookupSymbolIn(table, ref.Root)
	if exe == nil {
		return nil, ir.OpErrorf(from, "entry point %s refers to an undefined executable @%s", ir.AttrString(ref), ref.Root)
	}
	res := &ResolvedExport{Executable: exe}
	switch exe.Name {
	case "hal.executable":
		switch len(ref.Nested) {
		case 1:
			for _, o := range exe.Body().Ops {
				if o.Name != "hal.executable.variant" {
					continue
				}
				if e := ir.LookupSymbolIn(o, ref.Nested[0]); e != nil && e.Name == "hal.executable.export" {
					res.Exports = append(res.Exports, e)
				}
			}
			if len(res.Exports) == 0 {
				return nil, ir.OpErrorf(from, "entry point %s: no variant of executable @%s exports @%s", ir.AttrString(ref), ref.Root, ref.Nested[0])
			}
			res.Export = res.Exports[0]
		case 2:
			v := ir.LookupSymbolIn(exe, ref.Nested[0])
			if v == nil || v.Name != "hal.executable.variant" {
				return nil, ir.OpErrorf(from, "entry point %s: executable @%s has no variant @%s", ir.AttrString(ref), ref.Root, ref.Nested[0])
			}
			e := ir.LookupSymbolIn(v, ref.Nested[1])
			if e == nil || e.Name != "hal.executable.export" {
				return nil, ir.OpErrorf(from, "entry point %s: variant @%s::@%s has no export @%s", ir.AttrString(ref), ref.Root, ref.Nested[0], ref.Nested[1])
			}
			res.Variant, res.Export = v, e
			res.Exports = []*ir.Operation{e}
		default:
			return nil, ir.OpErrorf(from, "entry point %s must have the form @executable::@export or @executable::@variant::@export", ir.AttrString(ref))
		}
	case "hal.executable.source", "stream.executable", "flow.executable":
		if len(ref.Nested) != 1 {
			return nil, ir.OpErrorf(from, "entry point %s into %s @%s must have the form @executable::@export", ir.AttrString(ref), exe.Name, ref.Root)
		}
		want := "hal.executable.export"
		if exe.Name != "hal.executable.source" {
			want = exe.Name + ".export"
		}
		e := ir.LookupSymbolIn(exe, ref.Nested[0])
		if e == nil || e.Name != want {
			return nil, ir.OpErrorf(from, "entry point %s: %s @%s has no export @%s", ir.AttrString(ref), exe.Name, ref.Root, ref.Nested[0])
		}
		res.Export = e
		res.Exports = []*ir.Operation{e}
	default:
		return nil, ir.OpErrorf(from, "entry point %s refers to @%s, which is a '%s', not an executable", ir.AttrString(ref), ref.Root, exe.Name)
	}
	return res, nil
}

// VerifyDispatchSites checks every flow.dispatch in root: entry points
// resolve, and the operands fit each export's layout (HAL executables) or
// entry function (stream executables).
func VerifyDispatchSites(reg *ir.Registry, root *ir.Operation) error {
	var first error
	ir.Walk(root, func(op *ir.Operation) bool {
		if first != nil {
			return false
		}
		if op.Name != "flow.dispatch" {
			return true
		}
		d := flow.Dispatch{Op: op}
		if refs := op.Attr("hal.executable.ref"); refs != nil {
			arr, ok := refs.(*ir.ArrayAttr)
			if !ok {
				first = ir.OpErrorf(op, "hal.executable.ref must be an array of executable symbols, found %s", ir.AttrString(refs))
				return false
			}
			table := ir.NearestSymbolTable(reg, op)
			for _, e := range arr.Elems {
				ref, ok := e.(ir.SymbolRefAttr)
				var exe *ir.Operation
				if ok && table != nil {
					exe = ir.LookupSymbolIn(table, ref.Root)
				}
				if exe == nil || (exe.Name != "hal.executable" && exe.Name != "hal.executable.source" && exe.Name != "stream.executable") {
					first = ir.OpErrorf(op, "hal.executable.ref entry %s does not name an executable", ir.AttrString(e))
					return false
				}
			}
		}
		for _, ref := range d.EntryPoints() {
			res, err := ResolveEntryPoint(reg, op, ref)
			if err != nil {
				first = err
				return false
			}
			for _, e := range res.Exports {
				if e.Name == "flow.executable.export" {
					// Its function takes flow.dispatch.tensor bindings,
					// which are not checked here; the compiler refuses
					// flow executables at the flow phase.
					continue
				}
				if e.Name == "stream.executable.export" {
					if err := checkStreamEntry(op, res.Executable, e, d); err != nil {
						first = err
						return false
					}
					continue
				}
				target := fmt.Sprintf("%s", ir.AttrString(ref))
				if err := checkResources(op, ExportLayout(e), d.Arguments(), op.Results, ir.TiedOperands(op), target); err != nil {
					first = err
					return false
				}
			}
		}
		return true
	})
	return first
}

// StreamEntryFunc returns the func.func implementing a stream export.
func StreamEntryFunc(exe, export *ir.Operation) *ir.Operation {
	name := export.SymName()
	if fr, ok := export.Attr("function_ref").(ir.SymbolRefAttr); ok {
		name = fr.Root
		if len(fr.Nested) > 0 {
			name = fr.Nested[len(fr.Nested)-1]
		}
	}
	for _, o := range exe.Body().Ops {
		if o.Name == "builtin.module" {
			if f := ir.LookupSymbolIn(o, name); f != nil && f.Name == "func.func" {
				return f
			}
		}
	}
	return nil
}

func checkStreamEntry(op, exe, export *ir.Operation, d flow.Dispatch) error {
	fn := StreamEntryFunc(exe, export)
	if fn == nil {
		return ir.OpErrorf(op, "stream export @%s::@%s has no entry function @%s in the executable's module", exe.SymName(), export.SymName(), export.SymName())
	}
	ft, _ := fn.Attr("function_type").(ir.TypeAttr)
	sig, _ := ft.Type.(*ir.FunctionType)
	if sig == nil {
		return nil
	}
	var bindings, others []ir.Type
	for _, t := range sig.Inputs {
		if dt, ok := t.(*ir.DialectType); ok && dt.Name == "stream.binding" {
			bindings = append(bindings, t)
		} else {
			others = append(others, t)
		}
	}
	prims, resources := Resources(d.Arguments(), op.Results, ir.TiedOperands(op))
	target := "@" + exe.SymName() + "::@" + export.SymName()
	if len(resources) != len(bindings) {
		return ir.OpErrorf(op, "has %d resources (tensor operands and untied results) but the entry function of %s takes %d !stream.binding arguments", len(resources), target, len(bindings))
	}
	if len(prims) != len(others) {
		return ir.OpErrorf(op, "passes %d primitive operands but the entry function of %s takes %d non-binding arguments", len(prims), target, len(others))
	}
	for i, v := range prims {
		if !ir.TypesEqual(v.Type, others[i]) {
			return ir.OpErrorf(op, "primitive operand #%d has type '%s' but the entry function of %s expects '%s'", i, ir.TypeString(v.Type), target, ir.TypeString(others[i]))
		}
	}
	return nil
}
