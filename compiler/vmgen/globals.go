package vmgen

import (
	"fmt"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/vm"
)

// Module globals. A util.global of a scalar type is a VM global of its
// register bank; a tensor global is a ref global holding a buffer view
// (null until stored). Initial values and util.initializer bodies run, in
// module order, in the exported __init function, which the VM runs once
// when a context is created (as IREE's __init). A store retains the view;
// the value it replaces is released.

// globalInfo is one util.global.
type globalInfo struct {
	op     *ir.Operation
	typ    ir.Type
	tensor bool
	kind   vm.ValueKind
	g      vm.Global
}

var globalLoadOps = map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpGlobalLoadI32, vm.KindI64: vm.OpGlobalLoadI64, vm.KindF32: vm.OpGlobalLoadF32, vm.KindF64: vm.OpGlobalLoadF64, vm.KindRef: vm.OpGlobalLoadRef}
var globalStoreOps = map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpGlobalStoreI32, vm.KindI64: vm.OpGlobalStoreI64, vm.KindF32: vm.OpGlobalStoreF32, vm.KindF64: vm.OpGlobalStoreF64, vm.KindRef: vm.OpGlobalStoreRef}

// declareGlobals gives every util.global its VM global and checks that
// each global that is loaded can have been given a value.
func (e *emitter) declareGlobals() error {
	e.globals = map[string]*globalInfo{}
	for _, op := range e.module.Body().Ops {
		if op.Name != "util.global" {
			continue
		}
		name := op.SymName()
		if _, dup := e.globals[name]; dup {
			return ir.OpErrorf(op, "redefinition of global @%s", name)
		}
		ta, ok := op.Attr("type").(ir.TypeAttr)
		if !ok {
			return ir.OpErrorf(op, "global @%s has no type", name)
		}
		info := &globalInfo{op: op, typ: ta.Type}
		if tt, ok := ta.Type.(*ir.TensorType); ok {
			if tt.Unranked {
				return ir.OpErrorf(op, "global @%s: unranked tensors are not supported", name)
			}
			if _, _, err := elementTypeCode(tt.Elem); err != nil {
				return ir.OpErrorf(op, "global @%s: %v", name, err)
			}
			info.tensor, info.kind = true, vm.KindRef
		} else if k, ok := kindOf(ta.Type); ok {
			info.kind = k
		} else {
			return ir.OpErrorf(op, "global @%s: type '%s' is not supported in host code", name, ir.TypeString(ta.Type))
		}
		info.g = e.b.AddGlobal(info.kind)
		e.globals[name] = info
	}
	// A global with no initial value that nothing ever stores cannot be
	// read: report the first load.
	stored := map[string]bool{}
	var loads []*ir.Operation
	for _, op := range e.module.Body().Ops {
		ir.Walk(op, func(o *ir.Operation) bool {
			ref, ok := o.Attr("global").(ir.SymbolRefAttr)
			switch {
			case !ok:
			case o.Name == "util.global.store":
				stored[ref.Root] = true
			case o.Name == "util.global.load":
				loads = append(loads, o)
			}
			return true
		})
	}
	for _, l := range loads {
		name := l.Attr("global").(ir.SymbolRefAttr).Root
		info, ok := e.globals[name]
		if !ok {
			return ir.OpErrorf(l, "load of undefined global @%s", name)
		}
		if info.op.Attr("initial_value") == nil && !stored[name] {
			return ir.OpErrorf(l, "global @%s is loaded but never initialized: it has no initial value and nothing stores to it", name)
		}
	}
	return nil
}

// buildInit assembles the body of __init: each global's initial value
// stored in order with the util.initializer bodies, called in module
// order. It returns nil when the module has nothing to initialize.
func (e *emitter) buildInit() *ir.Operation {
	var ops []*ir.Operation
	k := 0
	for _, op := range e.module.Body().Ops {
		switch op.Name {
		case "util.global":
			v := op.Attr("initial_value")
			if v == nil {
				continue
			}
			info := e.globals[op.SymName()]
			c := ir.NewOp("arith.constant", nil, []ir.Type{info.typ}, []ir.NamedAttr{{Name: "value", Value: v}})
			c.Pos = op.Pos
			st := ir.NewOp("util.global.store", []*ir.Value{c.Results[0]}, nil, []ir.NamedAttr{{Name: "global", Value: ir.SymbolRefAttr{Root: op.SymName()}}})
			st.Pos = op.Pos
			ops = append(ops, c, st)
		case "util.initializer":
			if op.Body() == nil {
				continue
			}
			name := fmt.Sprintf("__initializer_%d", k)
			k++
			e.initNames[op] = name
			call := ir.NewOp("util.call", nil, nil, []ir.NamedAttr{{Name: "callee", Value: ir.SymbolRefAttr{Root: name}}})
			call.Pos = op.Pos
			ops = append(ops, call)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	fn := ir.NewOp("func.func", nil, nil, []ir.NamedAttr{
		{Name: "sym_name", Value: ir.StringAttr{Value: "__init"}},
		{Name: "function_type", Value: ir.TypeAttr{Type: &ir.FunctionType{}}},
	})
	fn.Pos = e.module.Pos
	blk := fn.AddRegion().AddBlock()
	for _, o := range ops {
		blk.Append(o)
	}
	ret := ir.NewOp("util.return", nil, nil, nil)
	ret.Pos = e.module.Pos
	blk.Append(ret)
	return fn
}

// global returns the global an accessor names.
func (fe *fnEmitter) global(op *ir.Operation) (*globalInfo, string, error) {
	ref, ok := op.Attr("global").(ir.SymbolRefAttr)
	if !ok || len(ref.Nested) > 0 {
		return nil, "", ir.OpErrorf(op, "'%s' needs a flat 'global' symbol reference", op.Name)
	}
	info, ok := fe.e.globals[ref.Root]
	if !ok {
		return nil, "", ir.OpErrorf(op, "'%s' names undefined global @%s", op.Name, ref.Root)
	}
	return info, ref.Root, nil
}

// globalLoad lowers util.global.load. A tensor global still null (read
// before its first store) fails naming it.
func (fe *fnEmitter) globalLoad(op *ir.Operation) error {
	info, name, err := fe.global(op)
	if err != nil {
		return err
	}
	if len(op.Results) != 1 || !ir.TypesEqual(op.Results[0].Type, info.typ) {
		return ir.OpErrorf(op, "load of global @%s must have its type '%s'", name, ir.TypeString(info.typ))
	}
	r := op.Results[0]
	dst := fe.f.NewReg(info.kind)
	fe.f.Emit(globalLoadOps[info.kind], dst, info.g)
	if !info.tensor {
		fe.scalars[r] = dst
		return nil
	}
	nz := fe.f.NewI32()
	fe.f.Emit(vm.OpCmpNzRef, nz, dst)
	fe.failUnless(nz, statusFailedPrecondition, fmt.Sprintf("global @%s is read before any value was stored in it", name))
	tt := info.typ.(*ir.TensorType)
	et, size, _ := elementTypeCode(tt.Elem)
	return fe.adoptView(r, &tensorVal{typ: tt, view: dst, hasView: true, bytes: size, etype: et})
}

// globalStore lowers util.global.store. A tensor is stored as a view of
// its buffer, which from then on is never reused or updated in place.
func (fe *fnEmitter) globalStore(op *ir.Operation) error {
	info, name, err := fe.global(op)
	if err != nil {
		return err
	}
	if len(op.Operands) != 1 || !ir.TypesEqual(op.Operands[0].Type, info.typ) {
		return ir.OpErrorf(op, "store to global @%s must have its type '%s'", name, ir.TypeString(info.typ))
	}
	v := op.Operands[0]
	if !info.tensor {
		r, err := fe.scalar(op, v)
		if err != nil {
			return err
		}
		fe.f.Emit(globalStoreOps[info.kind], info.g, r)
		return nil
	}
	tv, err := fe.tensor(op, v)
	if err != nil {
		return err
	}
	tv.buf.pinned = true
	fe.f.Emit(vm.OpGlobalStoreRef, info.g, fe.view(tv))
	return nil
}
