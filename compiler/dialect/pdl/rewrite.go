package pdl

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// rewrite runs the body of the pdl.rewrite rw with the match's bindings;
// new ops go before root.
func (b *binding) rewrite(rw *ir.Operation, root *ir.Operation) error {
	for _, op := range rw.Regions[0].Blocks[0].Ops {
		switch op.Name {
		case "pdl.type":
			if c, ok := op.Attr("constantType").(ir.TypeAttr); ok {
				b.vals[op.Results[0]] = c.Type
			} else {
				return ir.OpErrorf(op, "a pdl.type in a rewrite needs a constant type")
			}
		case "pdl.attribute":
			c := op.Attr("value")
			if c == nil {
				return ir.OpErrorf(op, "a pdl.attribute in a rewrite needs a constant value")
			}
			b.vals[op.Results[0]] = c
		case "pdl.operation":
			created, err := b.create(op)
			if err != nil {
				return err
			}
			root.Block.InsertBefore(root, created)
			b.vals[op.Results[0]] = created
		case "pdl.result":
			o, ok := b.get(op.Operands[0]).(*ir.Operation)
			i, _ := op.IntAttr("index")
			if !ok || int(i) >= len(o.Results) {
				return ir.OpErrorf(op, "pdl.result %d of an operation without it", i)
			}
			b.vals[op.Results[0]] = o.Results[i]
		case "pdl.range":
			var vs []*ir.Value
			for _, v := range op.Operands {
				x, ok := b.get(v).(*ir.Value)
				if !ok {
					return ir.OpErrorf(op, "pdl.range of something other than values is not supported")
				}
				vs = append(vs, x)
			}
			b.vals[op.Results[0]] = vs
		case "pdl.apply_native_rewrite":
			name := op.Attr("name").(ir.StringAttr).Value
			if name != "rewriteAsFlowDispatch" {
				return ir.OpErrorf(op, "native rewrite %q is not supported (rewriteAsFlowDispatch is)", name)
			}
			if err := b.rewriteAsFlowDispatch(op); err != nil {
				return err
			}
		case "pdl.replace", "pdl.erase":
			if err := b.replace(op); err != nil {
				return err
			}
		default:
			return ir.OpErrorf(op, "%s in a pdl.rewrite is not supported", op.Name)
		}
	}
	return nil
}

// replace runs pdl.replace (the op's results rewired to the new op's or to
// the values given, then the op removed) and pdl.erase.
func (b *binding) replace(op *ir.Operation) error {
	old, ok := b.get(op.Operands[0]).(*ir.Operation)
	if !ok || old.Block == nil {
		return ir.OpErrorf(op, "%s of an operation that is not in the program", op.Name)
	}
	var with []*ir.Value
	if op.Name == "pdl.replace" {
		if op.HasAttr("with_op") {
			n, ok := b.get(op.Operands[1]).(*ir.Operation)
			if !ok {
				return ir.OpErrorf(op, "pdl.replace with something other than an operation")
			}
			with = n.Results
		} else {
			for _, v := range op.Operands[1:] {
				x, ok := b.get(v).(*ir.Value)
				if !ok {
					return ir.OpErrorf(op, "pdl.replace with something other than values")
				}
				with = append(with, x)
			}
		}
		if len(with) != len(old.Results) {
			return ir.OpErrorf(op, "pdl.replace gives %d values for the %d results of %s", len(with), len(old.Results), old.Name)
		}
	}
	scope := old.Block.Region.Op
	for scope.ParentOp() != nil && scope.Name != "func.func" && scope.Name != "util.func" {
		scope = scope.ParentOp()
	}
	for i, r := range old.Results {
		if op.Name == "pdl.erase" {
			if ir.HasUses(scope, r) {
				return ir.OpErrorf(op, "pdl.erase of %s, whose result #%d is still used", old.Name, i)
			}
			continue
		}
		ir.ReplaceAllUsesWith(scope, r, with[i])
	}
	old.Remove()
	return nil
}

// get returns what v stands for: its binding, or for a constant pdl.type
// or pdl.attribute of the pattern that matching did not bind, the
// constant.
func (b *binding) get(v *ir.Value) any {
	if x, ok := b.vals[v]; ok {
		return x
	}
	if d := v.Op; d != nil {
		switch d.Name {
		case "pdl.type":
			if c, ok := d.Attr("constantType").(ir.TypeAttr); ok {
				return c.Type
			}
		case "pdl.attribute":
			if c := d.Attr("value"); c != nil {
				return c
			}
		}
	}
	return nil
}

// resultTypeOf infers the result types of an op created without any, for
// the ops whose result type follows from their kind.
func resultTypeOf(name string) ([]ir.Type, bool) {
	switch name {
	case "tensor.dim", "memref.dim", "affine.apply":
		return []ir.Type{ir.IndexType{}}, true
	}
	return nil, false
}

// create builds the op a pdl.operation in a rewrite describes.
func (b *binding) create(op *ir.Operation) (*ir.Operation, error) {
	name, ok := op.Attr("opName").(ir.StringAttr)
	if !ok {
		return nil, ir.OpErrorf(op, "a pdl.operation in a rewrite needs an op name")
	}
	nOps, nAttrs, _ := counts(op)
	var operands []*ir.Value
	for _, v := range op.Operands[:nOps] {
		x, ok := b.get(v).(*ir.Value)
		if !ok {
			return nil, ir.OpErrorf(op, "operand of %s is not a value", name.Value)
		}
		operands = append(operands, x)
	}
	var attrs []ir.NamedAttr
	names := op.Attr("attributeValueNames").(*ir.ArrayAttr).Elems
	for i, v := range op.Operands[nOps : nOps+nAttrs] {
		a, ok := b.get(v).(ir.Attribute)
		if !ok {
			return nil, ir.OpErrorf(op, "attribute %s of %s is not an attribute", ir.AttrString(names[i]), name.Value)
		}
		attrs = append(attrs, ir.NamedAttr{Name: names[i].(ir.StringAttr).Value, Value: a})
	}
	var types []ir.Type
	for _, v := range op.Operands[nOps+nAttrs:] {
		t, ok := b.get(v).(ir.Type)
		if !ok {
			return nil, ir.OpErrorf(op, "result type of %s is not a type", name.Value)
		}
		types = append(types, t)
	}
	if len(types) == 0 {
		if inferred, ok := resultTypeOf(name.Value); ok {
			types = inferred
		}
	}
	created := ir.NewOp(name.Value, operands, types, attrs)
	created.Pos = op.Pos
	return created, nil
}

func (b *binding) values(op *ir.Operation, i int) ([]*ir.Value, error) {
	switch x := b.get(op.Operands[i]).(type) {
	case []*ir.Value:
		return x, nil
	case *ir.Value:
		return []*ir.Value{x}, nil
	}
	return nil, ir.OpErrorf(op, "argument #%d of %s must be values", i, op.Attr("name").(ir.StringAttr).Value)
}

// rewriteAsFlowDispatch replaces a matched op with a dispatch of a
// generated stream.executable whose entry point calls an external function,
// as IREE's native rewrite of that name. Its arguments: the root op, the
// function name, the inputs, the values replaced, the dynamic sizes of
// those values, and other (scalar) operands passed after them. The
// function receives, for each tensor input and then each replaced value, its
// base pointer (memref<elem>) and offset; then the scalars.
func (b *binding) rewriteAsFlowDispatch(op *ir.Operation) error {
	if len(op.Operands) != 6 {
		return ir.OpErrorf(op, "rewriteAsFlowDispatch takes 6 arguments (root, function name, inputs, replaced values, their dynamic sizes, other operands), found %d", len(op.Operands))
	}
	root, ok := b.get(op.Operands[0]).(*ir.Operation)
	fn, ok2 := b.get(op.Operands[1]).(ir.StringAttr)
	if !ok || !ok2 {
		return ir.OpErrorf(op, "rewriteAsFlowDispatch needs the root operation and the function name as a string")
	}
	ins, err := b.values(op, 2)
	if err != nil {
		return err
	}
	outs, err := b.values(op, 3)
	if err != nil {
		return err
	}
	outDims, err := b.values(op, 4)
	if err != nil {
		return err
	}
	others, err := b.values(op, 5)
	if err != nil {
		return err
	}
	module := root
	for module != nil && module.Name != "builtin.module" {
		module = module.ParentOp()
	}
	if module == nil {
		return ir.OpErrorf(root, "the matched op is in no module")
	}
	// Inputs and results: tensors of any rank, their element types naming
	// the executable; the other operands: scalars.
	var typeNames []string
	tensor := func(v *ir.Value) (*ir.TensorType, error) {
		t, ok := v.Type.(*ir.TensorType)
		if !ok || t.Unranked {
			return nil, ir.OpErrorf(op, "rewriteAsFlowDispatch: %s is not a ranked tensor", ir.TypeString(v.Type))
		}
		return t, nil
	}
	var tensors []*ir.TensorType
	var scalars []ir.Type
	for _, v := range ins {
		if ir.IsPrimitive(v.Type) {
			return ir.OpErrorf(op, "rewriteAsFlowDispatch: scalar inputs go among the other operands")
		}
		t, err := tensor(v)
		if err != nil {
			return err
		}
		tensors = append(tensors, t)
		typeNames = append(typeNames, ir.TypeString(t.Elem))
	}
	for _, v := range outs {
		t, err := tensor(v)
		if err != nil {
			return err
		}
		tensors = append(tensors, t)
		typeNames = append(typeNames, ir.TypeString(t.Elem))
	}
	for _, v := range others {
		if !ir.IsPrimitive(v.Type) {
			return ir.OpErrorf(op, "rewriteAsFlowDispatch: other operand of type %s is not a scalar", ir.TypeString(v.Type))
		}
		scalars = append(scalars, v.Type)
		typeNames = append(typeNames, ir.TypeString(v.Type))
	}
	exeName := fn.Value + "_" + strings.Join(typeNames, "_") + "_executable"
	entry := fn.Value + "_entry_point"
	if lookup(module, exeName) == nil {
		exe, err := b.parseOp(executableText(exeName, fn.Value, entry, tensors, scalars))
		if err != nil {
			return ir.OpErrorf(op, "rewriteAsFlowDispatch: building the executable: %v", err)
		}
		module.Body().Ops = append([]*ir.Operation{exe}, module.Body().Ops...)
		exe.Block = module.Body()
	}
	caller := fn.Value + "_" + strings.Join(typeNames, "_") + "_dispatch"
	if lookup(module, caller) == nil {
		f, err := b.parseOp(callerText(caller, exeName, entry, len(ins), tensors, scalars))
		if err != nil {
			return ir.OpErrorf(op, "rewriteAsFlowDispatch: building the dispatch: %v", err)
		}
		module.Body().Append(f)
	}
	// The call passes the inputs, the scalars and the replaced values'
	// dynamic sizes; its results replace the values.
	var resultTypes []ir.Type
	for _, v := range outs {
		resultTypes = append(resultTypes, v.Type)
	}
	args := append(append(append([]*ir.Value(nil), ins...), others...), outDims...)
	call := ir.NewOp("util.call", args, resultTypes, []ir.NamedAttr{{Name: "callee", Value: ir.SymbolRefAttr{Root: caller}}})
	call.Pos = root.Pos
	root.Block.InsertBefore(root, call)
	scope := root.Block.Region.Op
	for scope.ParentOp() != nil && scope.Name != "func.func" && scope.Name != "util.func" {
		scope = scope.ParentOp()
	}
	for i, v := range outs {
		ir.ReplaceAllUsesWith(scope, v, call.Results[i])
	}
	if len(root.Results) > 0 {
		for _, r := range root.Results {
			if ir.HasUses(scope, r) {
				return nil
			}
		}
	}
	root.Remove()
	return nil
}

func lookup(table *ir.Operation, name string) *ir.Operation {
	for _, o := range table.Body().Ops {
		if o.SymName() == name {
			return o
		}
	}
	return nil
}

// parseOp parses text, one top-level op, with the registry the payload was
// parsed with.
func (b *binding) parseOp(text string) (*ir.Operation, error) {
	m, err := ir.Parse("<rewriteAsFlowDispatch>", []byte(text), b.reg)
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, text)
	}
	ops := m.Op.Body().Ops
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected one op, found %d", len(ops))
	}
	o := ops[0]
	o.Remove()
	return o, nil
}

// shapeText prints t's shape as a memref or tensor shape prefix ("?x4x").
func shapeText(t *ir.TensorType) string {
	var b strings.Builder
	for _, d := range t.Shape {
		if d == ir.Dynamic {
			b.WriteString("?x")
		} else {
			fmt.Fprintf(&b, "%dx", d)
		}
	}
	return b.String()
}

// stridedMemRef is the row-major memref type of t with a dynamic offset.
func stridedMemRef(t *ir.TensorType) string {
	strides := make([]string, len(t.Shape))
	dyn := false
	stride := int64(1)
	for i := len(t.Shape) - 1; i >= 0; i-- {
		if dyn {
			strides[i] = "?"
		} else {
			strides[i] = fmt.Sprint(stride)
		}
		if t.Shape[i] == ir.Dynamic {
			dyn = true
		} else {
			stride *= t.Shape[i]
		}
	}
	return fmt.Sprintf("memref<%s%s, strided<[%s], offset: ?>>", shapeText(t), ir.TypeString(t.Elem), strings.Join(strings.Split(strings.Join(strides, ","), ","), ", "))
}

// executableText is the stream.executable whose entry point takes a
// binding per tensor, the scalars and every tensor's dynamic sizes, and
// calls fn with each tensor's base pointer and offset and the scalars.
func executableText(exe, fn, entry string, tensors []*ir.TensorType, scalars []ir.Type) string {
	var params, fnTypes, body, callArgs []string
	for i := range tensors {
		params = append(params, fmt.Sprintf("%%b%d: !stream.binding", i))
	}
	for i, s := range scalars {
		params = append(params, fmt.Sprintf("%%s%d: %s", i, ir.TypeString(s)))
	}
	d := 0
	for i, t := range tensors {
		var dims []string
		for _, n := range t.Shape {
			if n == ir.Dynamic {
				params = append(params, fmt.Sprintf("%%d%d: index", d))
				dims = append(dims, fmt.Sprintf("%%d%d", d))
				d++
			}
		}
		mt := stridedMemRef(t)
		dimText := ""
		if len(dims) > 0 {
			dimText = "{" + strings.Join(dims, ", ") + "}"
		}
		body = append(body, fmt.Sprintf("        %%m%d = stream.binding.subspan %%b%d[%%c0] : !stream.binding -> %s%s", i, i, mt, dimText))
		meta := []string{fmt.Sprintf("%%p%d", i), fmt.Sprintf("%%o%d", i)}
		metaTypes := []string{"memref<" + ir.TypeString(t.Elem) + ">", "index"}
		for k := 0; k < 2*len(t.Shape); k++ {
			meta = append(meta, fmt.Sprintf("%%x%d_%d", i, k))
			metaTypes = append(metaTypes, "index")
		}
		body = append(body, fmt.Sprintf("        %s = iree_codegen.extract_strided_metadata %%m%d : %s -> %s", strings.Join(meta, ", "), i, mt, strings.Join(metaTypes, ", ")))
		callArgs = append(callArgs, fmt.Sprintf("%%p%d", i), fmt.Sprintf("%%o%d", i))
		fnTypes = append(fnTypes, "memref<"+ir.TypeString(t.Elem)+">", "index")
	}
	for i, s := range scalars {
		callArgs = append(callArgs, fmt.Sprintf("%%s%d", i))
		fnTypes = append(fnTypes, ir.TypeString(s))
	}
	return fmt.Sprintf(`stream.executable private @%s {
  stream.executable.export public @%s workgroups() -> (index, index, index) {
    %%c1 = arith.constant 1 : index
    stream.return %%c1, %%c1, %%c1 : index, index, index
  }
  builtin.module {
    func.func private @%s(%s) attributes {llvm.bareptr = [true]}
    func.func @%s(%s) {
        %%c0 = arith.constant 0 : index
%s
        func.call @%s(%s) : (%s) -> ()
        return
    }
  }
}
`, exe, entry, fn, strings.Join(fnTypes, ", "), entry, strings.Join(params, ", "), strings.Join(body, "\n"), fn, strings.Join(callArgs, ", "), strings.Join(fnTypes, ", "))
}

// callerText is a private function that dispatches the executable: it
// takes the inputs, the scalars and the results' dynamic sizes.
func callerText(name, exe, entry string, nIns int, tensors []*ir.TensorType, scalars []ir.Type) string {
	var params, body, dispArgs, dispTypes, dimArgs, results, resultDims []string
	c := map[int]bool{}
	for i, t := range tensors[:nIns] {
		params = append(params, fmt.Sprintf("%%in%d: %s", i, ir.TypeString(t)))
		var dims []string
		for k, n := range t.Shape {
			if n == ir.Dynamic {
				if !c[k] {
					body = append(body, fmt.Sprintf("  %%c%d = arith.constant %d : index", k, k))
					c[k] = true
				}
				body = append(body, fmt.Sprintf("  %%in%d_d%d = tensor.dim %%in%d, %%c%d : %s", i, k, i, k, ir.TypeString(t)))
				dims = append(dims, fmt.Sprintf("%%in%d_d%d", i, k))
			}
		}
		dimArgs = append(dimArgs, dims...)
		dispArgs = append(dispArgs, fmt.Sprintf("%%in%d", i))
		dt := ir.TypeString(t)
		if len(dims) > 0 {
			dt += "{" + strings.Join(dims, ", ") + "}"
		}
		dispTypes = append(dispTypes, dt)
	}
	for i, s := range scalars {
		params = append(params, fmt.Sprintf("%%s%d: %s", i, ir.TypeString(s)))
		dispArgs = append(dispArgs, fmt.Sprintf("%%s%d", i))
		dispTypes = append(dispTypes, ir.TypeString(s))
	}
	d := 0
	for i, t := range tensors[nIns:] {
		var dims []string
		for _, n := range t.Shape {
			if n == ir.Dynamic {
				params = append(params, fmt.Sprintf("%%r%d: index", d))
				dims = append(dims, fmt.Sprintf("%%r%d", d))
				d++
			}
		}
		resultDims = append(resultDims, dims...)
		rt := ir.TypeString(t)
		if len(dims) > 0 {
			rt += "{" + strings.Join(dims, ", ") + "}"
		}
		results = append(results, rt)
		_ = i
	}
	for _, a := range append(dimArgs, resultDims...) {
		dispArgs = append(dispArgs, a)
		dispTypes = append(dispTypes, "index")
	}
	var plain []string
	for _, t := range tensors[nIns:] {
		plain = append(plain, ir.TypeString(t))
	}
	var outs []string
	for i := range plain {
		outs = append(outs, fmt.Sprintf("%%out#%d", i))
	}
	return fmt.Sprintf(`util.func private @%s(%s) -> (%s) {
%s
  %%out:%d = flow.dispatch @%s::@%s(%s) : (%s) -> (%s)
  util.return %s : %s
}
`, name, strings.Join(params, ", "), strings.Join(plain, ", "), strings.Join(body, "\n"), len(plain), exe, entry,
		strings.Join(dispArgs, ", "), strings.Join(dispTypes, ", "), strings.Join(results, ", "), strings.Join(outs, ", "), strings.Join(plain, ", "))
}
