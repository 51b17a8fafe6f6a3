package transforms

import (
	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

func isStreamBinding(t ir.Type) bool {
	dt, ok := t.(*ir.DialectType)
	return ok && dt.Name == "stream.binding"
}

// streamLayout derives the HAL layout of a stream entry function: one
// storage buffer per !stream.binding argument and one 32-bit constant per
// other argument.
func streamLayout(fn *ir.Operation) (*hal.PipelineLayoutAttr, error) {
	l := &hal.PipelineLayoutAttr{}
	for _, a := range fn.Body().Args {
		switch {
		case isStreamBinding(a.Type):
			l.Bindings = append(l.Bindings, hal.Binding{Type: "storage_buffer"})
		case isConstantType(a.Type):
			l.Constants++
		default:
			return nil, ir.OpErrorf(fn, "argument '%%%s' of type '%s' cannot be passed to a dispatch (expected !stream.binding, index, f32 or an integer of at most 32 bits)", a.Name, ir.TypeString(a.Type))
		}
	}
	return l, nil
}

func isConstantType(t ir.Type) bool {
	switch t := t.(type) {
	case ir.IndexType:
		return true
	case ir.IntegerType:
		// Narrower integers travel zero-extended in a 32-bit constant,
		// as host code keeps them.
		return t.Width <= 32
	case ir.FloatType:
		return t.Name == "f32"
	}
	return false
}

var workgroupOps = map[string]string{
	"flow.dispatch.workgroup.id":      "hal.interface.workgroup.id",
	"flow.dispatch.workgroup.count":   "hal.interface.workgroup.count",
	"flow.dispatch.workgroup.size":    "hal.interface.workgroup.size",
	"stream.dispatch.workgroup.id":    "hal.interface.workgroup.id",
	"stream.dispatch.workgroup.count": "hal.interface.workgroup.count",
	"stream.dispatch.workgroup.size":  "hal.interface.workgroup.size",
}

// lowerEntry rewrites a cloned stream entry function to the HAL interface:
// constants are loaded with hal.interface.constant.load, bindings become
// hal.interface.binding.subspan, workgroup queries become HAL ones, and the
// function takes no arguments.
func lowerEntry(fn *ir.Operation, l *hal.PipelineLayoutAttr) error {
	body := fn.Body()
	var first *ir.Operation
	if len(body.Ops) > 0 {
		first = body.Ops[0]
	}
	insert := func(op *ir.Operation) {
		if first != nil {
			body.InsertBefore(first, op)
		} else {
			body.Append(op)
		}
	}
	ordinal, binding := int64(0), int64(0)
	for _, a := range body.Args {
		if isStreamBinding(a.Type) {
			k := binding
			binding++
			var bad error
			ir.Walk(fn, func(o *ir.Operation) bool {
				for i, v := range o.Operands {
					if v != a {
						continue
					}
					if o.Name != "stream.binding.subspan" || i != 0 {
						bad = ir.OpErrorf(o, "uses binding argument '%%%s'; only stream.binding.subspan may use a binding", a.Name)
						return false
					}
				}
				return true
			})
			if bad != nil {
				return bad
			}
			ir.Walk(fn, func(o *ir.Operation) bool {
				if o.Name == "stream.binding.subspan" && len(o.Operands) >= 2 && o.Operands[0] == a {
					dims := o.Operands[2:]
					o.Name = "hal.interface.binding.subspan"
					o.Operands = append([]*ir.Value{o.Operands[1]}, dims...)
					extra := o.Attrs
					o.Attrs = []ir.NamedAttr{
						{Name: "layout", Value: l},
						{Name: "binding", Value: ir.IndexAttr(k)},
						{Name: "alignment", Value: ir.IndexAttr(64)},
					}
					o.Attrs = append(o.Attrs, extra...)
					o.SetAttr("operandSegmentSizes", ir.SegmentAttr(1, len(dims)))
				}
				return true
			})
			continue
		}
		loadType := a.Type
		narrow := false
		if _, isIndex := a.Type.(ir.IndexType); isIndex {
			loadType = ir.I32
		} else if it, ok := a.Type.(ir.IntegerType); ok && it.Width < 32 {
			loadType, narrow = ir.I32, true
		}
		load := ir.NewOp("hal.interface.constant.load", nil, []ir.Type{loadType},
			[]ir.NamedAttr{{Name: "layout", Value: l}, {Name: "ordinal", Value: ir.IndexAttr(ordinal)}})
		load.Pos = fn.Pos
		ordinal++
		repl := load.Results[0]
		insert(load)
		if _, isIndex := a.Type.(ir.IndexType); isIndex {
			load.Results[0].Name = a.Name + "_i32"
			cast := ir.NewOp("arith.index_castui", []*ir.Value{load.Results[0]}, []ir.Type{ir.IndexType{}}, nil)
			cast.Pos = fn.Pos
			insert(cast)
			repl = cast.Results[0]
		}
		if narrow {
			load.Results[0].Name = a.Name + "_i32"
			trunc := ir.NewOp("arith.trunci", []*ir.Value{load.Results[0]}, []ir.Type{a.Type}, nil)
			trunc.Pos = fn.Pos
			insert(trunc)
			repl = trunc.Results[0]
		}
		repl.Name = a.Name
		ir.ReplaceAllUsesWith(fn, a, repl)
	}
	ir.Walk(fn, func(o *ir.Operation) bool {
		if n, ok := workgroupOps[o.Name]; ok {
			o.Name = n
		}
		return true
	})
	body.Args = nil
	fn.SetAttr("function_type", ir.TypeAttr{Type: &ir.FunctionType{}})
	return nil
}

// streamExport builds the hal.executable.export for a stream export: the
// count region gains a leading !hal.device argument and returns with
// hal.return.
func streamExport(se *ir.Operation, ordinal int64, l *hal.PipelineLayoutAttr) *ir.Operation {
	c := ir.Clone(se, nil)
	e := &ir.Operation{Name: "hal.executable.export", Pos: se.Pos}
	e.Attrs = []ir.NamedAttr{
		{Name: "sym_visibility", Value: ir.StringAttr{Value: "public"}},
		{Name: "sym_name", Value: ir.StringAttr{Value: se.SymName()}},
		{Name: "ordinal", Value: ir.IndexAttr(ordinal)},
		{Name: "layout", Value: l},
	}
	if len(c.Regions) == 1 && len(c.Regions[0].Blocks) > 0 {
		r := c.Regions[0]
		r.Op = e
		entry := r.Blocks[0]
		dev := &ir.Value{Type: &ir.DialectType{Name: "hal.device"}, Block: entry, Name: "device"}
		entry.Args = append([]*ir.Value{dev}, entry.Args...)
		for i, a := range entry.Args {
			a.Index = i
		}
		ir.Walk(c, func(o *ir.Operation) bool {
			if o.Name == "stream.return" {
				o.Name = "hal.return"
			}
			return true
		})
		e.Regions = []*ir.Region{r}
	} else {
		e.AddRegion()
	}
	return e
}

// MaterializeStreamExecutables turns every stream.executable into a
// hal.executable with one variant per target. Each variant receives the
// objects its target selects from the hal.executable.objects map, one
// export per stream export with a derived layout, and a copy of the
// module whose entry functions use the HAL interface. Dispatch sites pass
// index operands as i32 push constants.
func MaterializeStreamExecutables(module *ir.Operation, targets []*hal.ExecutableTargetAttr) error {
	converted := map[string]bool{}
	for _, se := range collect(module, "stream.executable") {
		if len(targets) == 0 {
			return ir.OpErrorf(se, "cannot materialise @%s: no executable targets (add hal.device.targets to the module or pass --iree-hal-target-backends=)", se.SymName())
		}
		objsMap, _ := se.Attr("hal.executable.objects").(*hal.ExecutableObjectsAttr)
		var inner *ir.Operation
		var exports []*ir.Operation
		for _, o := range se.Body().Ops {
			switch o.Name {
			case "builtin.module":
				inner = o
			case "stream.executable.export":
				exports = append(exports, o)
			}
		}
		if inner == nil {
			return ir.OpErrorf(se, "stream.executable @%s has no builtin.module", se.SymName())
		}
		layouts := map[string]*hal.PipelineLayoutAttr{}
		for _, e := range exports {
			fn := hal.StreamEntryFunc(se, e)
			if fn == nil || fn.Body() == nil {
				return ir.OpErrorf(e, "has no entry function @%s in the executable's module", e.SymName())
			}
			l, err := streamLayout(fn)
			if err != nil {
				return err
			}
			layouts[fn.SymName()] = l
		}
		exe := newSymbolOp("hal.executable", se.SymName(), visibility(se), se.Pos)
		for _, a := range se.Attrs {
			if a.Name != "sym_name" && a.Name != "sym_visibility" && a.Name != "hal.executable.objects" {
				exe.Attrs = append(exe.Attrs, a)
			}
		}
		used := map[string]bool{}
		for _, t := range targets {
			var objs []ir.Attribute
			if objsMap != nil {
				objs = objsMap.ApplicableObjects(t)
			}
			v := newVariant(t, uniqueName(used, VariantName(t)), objs, se.Pos)
			for i, e := range exports {
				fn := hal.StreamEntryFunc(se, e)
				v.Body().Append(streamExport(e, int64(i), layouts[fn.SymName()]))
			}
			m := ir.Clone(inner, nil)
			for _, o := range m.Body().Ops {
				if l, ok := layouts[o.SymName()]; ok && o.Name == "func.func" && o.Body() != nil {
					if err := lowerEntry(o, l); err != nil {
						return err
					}
				}
			}
			v.Body().Append(m)
			exe.Body().Append(v)
		}
		replaceOp(se, exe)
		converted[se.SymName()] = true
	}
	packDispatchOperands(module, converted)
	return nil
}

// packDispatchOperands casts index operands of dispatches into converted
// executables to i32, the type of their push constants.
func packDispatchOperands(module *ir.Operation, converted map[string]bool) {
	ir.Walk(module, func(op *ir.Operation) bool {
		if op.Name != "flow.dispatch" {
			return true
		}
		d := flow.Dispatch{Op: op}
		eps := d.EntryPoints()
		if len(eps) == 0 || !converted[eps[0].Root] {
			return true
		}
		args := d.Arguments()
		for i, a := range args {
			if _, ok := a.Type.(ir.IndexType); !ok {
				continue
			}
			cast := ir.NewOp("arith.index_cast", []*ir.Value{a}, []ir.Type{ir.I32}, nil)
			cast.Pos = op.Pos
			cast.Results[0].Name = a.Name + "_i32"
			op.Block.InsertBefore(op, cast)
			args[i] = cast.Results[0]
		}
		return true
	})
}
