package vmgen

import (
	"strings"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/vm"
)

// importFunc returns the VM import of a body-less function declaration.
func (e *emitter) importFunc(decl *ir.Operation) (vm.ImportRef, error) {
	name := decl.SymName()
	if r, ok := e.imports[name]; ok {
		return r, nil
	}
	cc, err := callingConvention(decl)
	if err != nil {
		return vm.ImportRef{}, err
	}
	r := e.b.Import(name, cc)
	e.imports[name] = r
	return r, nil
}

// callOp lowers func.call and util.call to a VM call of the callee's
// function, or of its import when the callee is another module's. Tensors cross as buffer views, as they do for exported
// functions. The pending device work is flushed first: the callee records
// and submits its own. Buffers passed to the callee are pinned, since it
// may keep them (in a global, or as a result).
func (fe *fnEmitter) callOp(op *ir.Operation) error {
	ref, ok := op.Attr("callee").(ir.SymbolRefAttr)
	if !ok || len(ref.Nested) > 0 {
		return ir.OpErrorf(op, "'%s' needs a flat 'callee' symbol reference", op.Name)
	}
	callee, ok := fe.e.bySym[ref.Root]
	var imported *vm.ImportRef
	if !ok {
		decl := ir.LookupSymbolIn(fe.e.module, ref.Root)
		if decl == nil || (decl.Name != "func.func" && decl.Name != "util.func") {
			return ir.OpErrorf(op, "call to undefined function @%s", ref.Root)
		}
		// A declaration without a body is a function of another module,
		// named module.function as in IREE: a VM import.
		if !strings.Contains(ref.Root, ".") {
			return ir.OpErrorf(op, "call to @%s, which is declared without a body; an external function is named module.function (as @custom.fn) and imported from that module", ref.Root)
		}
		imp, err := fe.e.importFunc(decl)
		if err != nil {
			return err
		}
		callee, imported = decl, &imp
	}
	ft := functionType(callee)
	if len(ft.Inputs) != len(op.Operands) || len(ft.Results) != len(op.Results) {
		return ir.OpErrorf(op, "call to @%s passes %d operands and takes %d results, but @%s has type %s", ref.Root, len(op.Operands), len(op.Results), ref.Root, ir.TypeString(ft))
	}
	for i, v := range op.Operands {
		if !ir.TypesEqual(v.Type, ft.Inputs[i]) {
			return ir.OpErrorf(op, "operand %d of the call to @%s has type '%s', but the function takes '%s'", i, ref.Root, ir.TypeString(v.Type), ir.TypeString(ft.Inputs[i]))
		}
	}
	for i, r := range op.Results {
		if !ir.TypesEqual(r.Type, ft.Results[i]) {
			return ir.OpErrorf(op, "result %d of the call to @%s has type '%s', but the function returns '%s'", i, ref.Root, ir.TypeString(r.Type), ir.TypeString(ft.Results[i]))
		}
	}
	fe.flush(nil, false)
	args, err := fe.valueRegs(op, op.Operands)
	if err != nil {
		return err
	}
	for _, v := range op.Operands {
		if tv, ok := fe.tensors[v]; ok && tv.buf != nil {
			tv.buf.pinned = true
		}
	}
	results := make([]vm.Reg, len(op.Results))
	for i, r := range op.Results {
		if _, ok := r.Type.(*ir.TensorType); ok {
			results[i] = fe.f.NewRefReg()
			continue
		}
		k, ok := kindOf(r.Type)
		if !ok {
			return ir.OpErrorf(op, "result %d: type '%s' is not supported in host code", i, ir.TypeString(r.Type))
		}
		results[i] = fe.f.NewReg(k)
	}
	if imported != nil {
		fe.f.CallImport(*imported, args, results)
	} else {
		fe.f.Call(fe.e.funcs[callee], args, results)
	}
	for i, r := range op.Results {
		tt, ok := r.Type.(*ir.TensorType)
		if !ok {
			fe.scalars[r] = results[i]
			continue
		}
		et, size, err := elementTypeCode(tt.Elem)
		if err != nil {
			return ir.OpErrorf(op, "result %d: %v", i, err)
		}
		if err := fe.adoptView(r, &tensorVal{typ: tt, view: results[i], hasView: true, bytes: size, etype: et}); err != nil {
			return err
		}
	}
	return nil
}
