package transforms

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/codegen"
	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/dialect/tensor"
	"github.com/goiree/goiree/compiler/ir"
)

// OutlineDispatchRegions turns every flow.dispatch.region (a dispatch
// written inline in host code, as IREE's ukernel samples do) into a
// stream.executable and a flow.dispatch of it, so that later passes treat
// it like a hand-written stream executable:
//
//   - tensors the body captures become bindings: the ones the region's
//     results are built in (through tensor.insert_slice and microkernel
//     destinations, ending in a tensor.empty) become the dispatch's
//     results, the others its
//     operands; their dynamic dimensions and the captured scalars follow
//     as index/scalar operands; captured constants are cloned;
//   - tensor.extract_slice of a binding becomes a (base pointer, element
//     offset, strides) view computed with arith ops;
//   - iree_codegen.ukernel.generic becomes a func.call of a body-less
//     declaration of the microkernel, taking for each ins/outs operand its
//     base pointer and offset, then the strides of the dimensions named by
//     strided_dims, then the other operands, with the fn_def_attrs and
//     llvm.bareptr (IREE's microkernel calling convention). Without
//     hal.import.static the back end calls it through the executable's
//     import table, resolved against executable plugins at run time;
//   - tensor.insert_slice of a microkernel result into the slice it was
//     computed in is the identity (the kernel wrote in place);
//   - the workgroup count region becomes the export's workgroups region.
//
// Bodies doing anything else with tensors are refused with an error at
// the op.
func OutlineDispatchRegions(module *ir.Operation, reg *ir.Registry) error {
	var regions []*ir.Operation
	ir.Walk(module, func(o *ir.Operation) bool {
		if o.Name == "flow.dispatch.region" {
			regions = append(regions, o)
			return false
		}
		return true
	})
	counts := map[string]int{}
	for _, r := range regions {
		fn := r.ParentOp()
		for fn != nil && fn.Name != "func.func" && fn.Name != "util.func" {
			fn = fn.ParentOp()
		}
		if fn == nil || fn.ParentOp() == nil {
			return ir.OpErrorf(r, "flow.dispatch.region must be inside a host function")
		}
		base := fn.SymName() + "_dispatch_"
		name := ""
		for {
			name = base + fmt.Sprint(counts[fn.SymName()])
			counts[fn.SymName()]++
			if ir.LookupSymbolIn(module, name) == nil {
				break
			}
		}
		o := &outliner{region: r, fn: fn, name: name, reg: reg}
		if err := o.run(module); err != nil {
			return err
		}
	}
	return nil
}

// outliner outlines one flow.dispatch.region.
type outliner struct {
	region *ir.Operation
	fn     *ir.Operation // the enclosing host function
	name   string
	reg    *ir.Registry

	inputs, outputs []*ir.Value // captured tensors
	scalars         []*ir.Value // captured non-constant scalars
	consts          []*ir.Value // captured constants (cloned inside)
	hostDims        []*ir.Value // host values of the bindings' dynamic dims, inputs then outputs
}

// view is a region tensor value seen as memory: a binding (root) at an
// element offset with per-dimension element strides. slice is the
// tensor.extract_slice that made it (nil for the whole binding).
type view struct {
	root    int
	base    *ir.Value
	offset  *ir.Value
	strides []*ir.Value
	slice   *ir.Operation
}

// within reports whether v is defined inside op's regions.
func within(v *ir.Value, op *ir.Operation) bool {
	for b := v.ParentBlock(); b != nil && b.Region != nil; {
		p := b.Region.Op
		if p == op {
			return true
		}
		if p == nil {
			return false
		}
		b = p.Block
	}
	return false
}

func isConstant(v *ir.Value) bool { return v.Op != nil && v.Op.Name == "arith.constant" }

// captured returns the values used in region ri of the dispatch region but
// defined outside it, in order of first use.
func (o *outliner) captured(ri int) []*ir.Value {
	seen := map[*ir.Value]bool{}
	var out []*ir.Value
	for _, b := range o.region.Regions[ri].Blocks {
		for _, op := range b.Ops {
			ir.Walk(op, func(x *ir.Operation) bool {
				for _, v := range x.Operands {
					if !seen[v] && !within(v, o.region) {
						seen[v] = true
						out = append(out, v)
					}
				}
				return true
			})
		}
	}
	return out
}

// destination follows a region result through tensor.insert_slice
// destinations to the captured tensor it is built in.
func (o *outliner) destination(v *ir.Value) (*ir.Value, error) {
	for within(v, o.region) {
		switch {
		case v.Op != nil && v.Op.Name == "tensor.insert_slice":
			v = v.Op.Operands[1]
		case v.Op != nil && v.Op.Name == "iree_codegen.ukernel.generic" && v.Index < len(codegen.UKernel{Op: v.Op}.Outputs()):
			v = codegen.UKernel{Op: v.Op}.Outputs()[v.Index]
		default:
			return nil, ir.OpErrorf(o.region, "result must be built with tensor.insert_slice or a microkernel into a tensor.empty captured from the host (found '%s')", opName(v))
		}
	}
	if v.Op == nil || v.Op.Name != "tensor.empty" {
		return nil, ir.OpErrorf(o.region, "result must be built in a tensor.empty captured from the host (found '%s')", opName(v))
	}
	return v, nil
}

func opName(v *ir.Value) string {
	if v.Op == nil {
		return "a block argument"
	}
	return v.Op.Name
}

func (o *outliner) run(module *ir.Operation) error {
	r := o.region
	if len(r.Regions) != 2 || len(r.Regions[0].Blocks) != 1 {
		return ir.OpErrorf(r, "outlining needs a single-block body")
	}
	if len(r.Regions[1].Blocks) != 1 {
		return ir.OpErrorf(r, "outlining needs a workgroup count region (count(...) -> (index, index, index) {...})")
	}
	body := r.Regions[0].Blocks[0]
	ret := body.Terminator()
	if ret == nil || ret.Name != "flow.return" || len(ret.Operands) != len(r.Results) {
		return ir.OpErrorf(r, "body must end with flow.return of its %d result(s)", len(r.Results))
	}
	isOutput := map[*ir.Value]int{}
	for _, v := range ret.Operands {
		d, err := o.destination(v)
		if err != nil {
			return err
		}
		if _, dup := isOutput[d]; dup {
			return ir.OpErrorf(r, "two results are built in the same tensor.empty")
		}
		isOutput[d] = len(o.outputs)
		o.outputs = append(o.outputs, d)
	}
	for _, v := range o.captured(0) {
		switch t := v.Type.(type) {
		case *ir.TensorType:
			if t.Unranked {
				return ir.OpErrorf(r, "captured unranked tensor '%s' cannot be a binding", ir.TypeString(t))
			}
			if _, ok := isOutput[v]; !ok {
				o.inputs = append(o.inputs, v)
			}
		default:
			if isConstant(v) {
				o.consts = append(o.consts, v)
			} else if ir.IsPrimitive(v.Type) {
				o.scalars = append(o.scalars, v)
			} else {
				return ir.OpErrorf(r, "captured value of type '%s' cannot be passed to a dispatch", ir.TypeString(v.Type))
			}
		}
	}
	for _, v := range o.captured(1) {
		if !isConstant(v) {
			return ir.OpErrorf(r, "the workgroup count region may use only its arguments and constants, not a %s from the host", opName(v))
		}
	}
	o.hostDimensions()
	exe, err := o.buildExecutable()
	if err != nil {
		return err
	}
	module.Body().InsertBefore(o.fn, exe)
	o.replaceRegion(exe)
	return nil
}

// hostDimensions collects the host values of the bindings' dynamic
// dimensions: a tensor.empty's sizes, or tensor.dim ops added before the
// region.
func (o *outliner) hostDimensions() {
	r := o.region
	for _, v := range append(append([]*ir.Value(nil), o.inputs...), o.outputs...) {
		t := v.Type.(*ir.TensorType)
		if v.Op != nil && v.Op.Name == "tensor.empty" {
			o.hostDims = append(o.hostDims, v.Op.Operands...)
			continue
		}
		for i, d := range t.Shape {
			if d != ir.Dynamic {
				continue
			}
			c := ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(int64(i))}})
			dim := ir.NewOp("tensor.dim", []*ir.Value{v, c.Results[0]}, []ir.Type{ir.IndexType{}}, nil)
			c.Pos, dim.Pos = r.Pos, r.Pos
			r.Block.InsertBefore(r, c)
			r.Block.InsertBefore(r, dim)
			o.hostDims = append(o.hostDims, dim.Results[0])
		}
	}
}

// memrefType is the memref a binding of tensor type t is viewed as.
func memrefType(t *ir.TensorType) *ir.MemRefType {
	return &ir.MemRefType{Shape: t.Shape, Elem: t.Elem}
}

// ukernelDecl is the declaration of a microkernel called by a region.
func ukernelDecl(u codegen.UKernel) (string, error) {
	var args []string
	strided, err := stridedDims(u)
	if err != nil {
		return "", err
	}
	for i, v := range append(append([]*ir.Value(nil), u.Inputs()...), u.Outputs()...) {
		t, ok := v.Type.(*ir.TensorType)
		if !ok {
			return "", ir.OpErrorf(u.Op, "operand #%d must be a tensor in a dispatch region, found '%s'", i, ir.TypeString(v.Type))
		}
		args = append(args, "memref<"+ir.TypeString(t.Elem)+">", "index")
		for range strided[i] {
			args = append(args, "index")
		}
	}
	for _, v := range u.Others() {
		if !ir.IsPrimitive(v.Type) {
			return "", ir.OpErrorf(u.Op, "microkernel operand of type '%s' is not supported", ir.TypeString(v.Type))
		}
		args = append(args, ir.TypeString(v.Type))
	}
	attrs := []string{"llvm.bareptr = true"}
	if d, ok := u.Op.Attr("fn_def_attrs").(*ir.DictAttr); ok {
		for _, e := range d.Entries {
			if e.Name == "llvm.bareptr" {
				continue
			}
			attrs = append(attrs, e.Name+" = "+ir.AttrString(e.Value))
		}
	}
	return fmt.Sprintf("      func.func private @%s(%s) attributes {%s}\n", quoteSymbol(u.Name()), strings.Join(args, ", "), strings.Join(attrs, ", ")), nil
}

// stridedDims returns, per ins and outs operand, the dimensions whose
// strides the microkernel takes (none when strided_dims is absent).
func stridedDims(u codegen.UKernel) ([][]int64, error) {
	n := len(u.Inputs()) + len(u.Outputs())
	out := make([][]int64, n)
	a := u.Op.Attr("strided_dims")
	if a == nil {
		return out, nil
	}
	arr, ok := a.(*ir.ArrayAttr)
	if !ok || len(arr.Elems) != n {
		return nil, ir.OpErrorf(u.Op, "strided_dims must list the strided dimensions of each of the %d ins and outs operands", n)
	}
	for i, e := range arr.Elems {
		inner, ok := e.(*ir.ArrayAttr)
		if !ok {
			return nil, ir.OpErrorf(u.Op, "strided_dims entry %d must be a list of dimensions", i)
		}
		for _, d := range inner.Elems {
			iv, ok := d.(ir.IntegerAttr)
			if !ok {
				return nil, ir.OpErrorf(u.Op, "strided_dims entry %d must list integers", i)
			}
			out[i] = append(out[i], iv.Value)
		}
	}
	return out, nil
}

// buildExecutable writes the stream.executable: its export with the count
// region and its function with the rewritten body.
func (o *outliner) buildExecutable() (*ir.Operation, error) {
	r := o.region
	body := r.Regions[0].Blocks[0]
	var decls strings.Builder
	declared := map[string]string{}
	for _, op := range body.Ops {
		var err error
		ir.Walk(op, func(x *ir.Operation) bool {
			if x.Name != "iree_codegen.ukernel.generic" || err != nil {
				return true
			}
			u := codegen.UKernel{Op: x}
			d, e := ukernelDecl(u)
			if e != nil {
				err = e
				return false
			}
			if old, ok := declared[u.Name()]; ok {
				if old != d {
					err = ir.OpErrorf(x, "microkernel %q is called with two different signatures", u.Name())
				}
				return true
			}
			declared[u.Name()] = d
			decls.WriteString(d)
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	count := r.Regions[1].Blocks[0]
	var t strings.Builder
	fmt.Fprintf(&t, "stream.executable private @%s {\n", quoteSymbol(o.name))
	var wargs []string
	for i := range count.Args {
		wargs = append(wargs, fmt.Sprintf("%%w%d: index", i))
	}
	fmt.Fprintf(&t, "  stream.executable.export public @%s workgroups(%s) -> (index, index, index) {\n", quoteSymbol(o.name), strings.Join(wargs, ", "))
	t.WriteString("    %one = arith.constant 1 : index\n    stream.return %one, %one, %one : index, index, index\n  }\n")
	t.WriteString("  builtin.module {\n")
	t.WriteString(decls.String())
	var params []string
	bindings := append(append([]*ir.Value(nil), o.inputs...), o.outputs...)
	for i := range bindings {
		params = append(params, fmt.Sprintf("%%b%d: !stream.binding", i))
	}
	for i := range o.hostDims {
		params = append(params, fmt.Sprintf("%%d%d: index", i))
	}
	for i, s := range o.scalars {
		params = append(params, fmt.Sprintf("%%s%d: %s", i, ir.TypeString(s.Type)))
	}
	fmt.Fprintf(&t, "    func.func @%s(%s) {\n", quoteSymbol(o.name), strings.Join(params, ", "))
	t.WriteString("      %c0 = arith.constant 0 : index\n")
	dim := 0
	for i, b := range bindings {
		tt := b.Type.(*ir.TensorType)
		mt := memrefType(tt)
		var dims []string
		for _, d := range tt.Shape {
			if d == ir.Dynamic {
				dims = append(dims, fmt.Sprintf("%%d%d", dim))
				dim++
			}
		}
		dimList := ""
		if len(dims) > 0 {
			dimList = "{" + strings.Join(dims, ", ") + "}"
		}
		fmt.Fprintf(&t, "      %%m%d = stream.binding.subspan %%b%d[%%c0] : !stream.binding -> %s%s\n", i, i, ir.TypeString(mt), dimList)
		results := []string{fmt.Sprintf("%%base%d", i), fmt.Sprintf("%%off%d", i)}
		var rtypes []string
		rtypes = append(rtypes, "memref<"+ir.TypeString(tt.Elem)+">", "index")
		for k := range tt.Shape {
			results = append(results, fmt.Sprintf("%%size%d_%d", i, k))
			rtypes = append(rtypes, "index")
		}
		for k := range tt.Shape {
			results = append(results, fmt.Sprintf("%%stride%d_%d", i, k))
			rtypes = append(rtypes, "index")
		}
		fmt.Fprintf(&t, "      %s = iree_codegen.extract_strided_metadata %%m%d : %s -> %s\n", strings.Join(results, ", "), i, ir.TypeString(mt), strings.Join(rtypes, ", "))
	}
	t.WriteString("      return\n    }\n  }\n}\n")
	m, err := ir.Parse(fmt.Sprintf("<outlined %s>", o.name), []byte(t.String()), o.reg)
	if err != nil {
		return nil, ir.OpErrorf(r, "internal error: outlined dispatch region does not parse: %v\n%s", err, t.String())
	}
	exe := m.Op.Body().Ops[0]
	exe.Remove()
	ir.Walk(exe, func(x *ir.Operation) bool {
		x.Pos = r.Pos
		return true
	})
	var export, fn *ir.Operation
	ir.Walk(exe, func(x *ir.Operation) bool {
		switch {
		case x.Name == "stream.executable.export":
			export = x
		case x.Name == "func.func" && x.Body() != nil && len(x.Body().Ops) > 0:
			fn = x
		}
		return true
	})
	if err := o.fillCount(export); err != nil {
		return nil, err
	}
	if err := o.fillBody(fn, bindings); err != nil {
		return nil, err
	}
	return exe, nil
}

// fillCount replaces the export's placeholder count with the region's.
func (o *outliner) fillCount(export *ir.Operation) error {
	blk := export.Body()
	for _, op := range append([]*ir.Operation(nil), blk.Ops...) {
		op.Remove()
	}
	count := o.region.Regions[1].Blocks[0]
	mapping := map[*ir.Value]*ir.Value{}
	for i, a := range count.Args {
		mapping[a] = blk.Args[i]
	}
	for _, c := range o.captured(1) {
		n := ir.Clone(c.Op, nil)
		blk.Append(n)
		mapping[c] = n.Results[0]
	}
	for _, op := range count.Ops {
		if op.Name == "flow.return" {
			var vals []*ir.Value
			for _, v := range op.Operands {
				vals = append(vals, mapping[v])
			}
			ret := ir.NewOp("stream.return", vals, nil, nil)
			ret.Pos = op.Pos
			blk.Append(ret)
			continue
		}
		blk.Append(ir.Clone(op, mapping))
	}
	return nil
}

// fillBody rewrites the region's body into fn: bindings are the captured
// tensors, in the order of fn's !stream.binding arguments.
func (o *outliner) fillBody(fn *ir.Operation, bindings []*ir.Value) error {
	blk := fn.Body()
	ret := blk.Terminator()
	emit := func(op *ir.Operation) *ir.Operation {
		blk.InsertBefore(ret, op)
		return op
	}
	var esms []*ir.Operation
	for _, op := range blk.Ops {
		if op.Name == "iree_codegen.extract_strided_metadata" {
			esms = append(esms, op)
		}
	}
	views := map[*ir.Value]view{}
	for i, b := range bindings {
		e := esms[i]
		rank := len(b.Type.(*ir.TensorType).Shape)
		views[b] = view{root: i, base: e.Results[0], offset: e.Results[1], strides: e.Results[2+rank:]}
	}
	mapping := map[*ir.Value]*ir.Value{}
	nb, nd := len(bindings), len(o.hostDims)
	for i, s := range o.scalars {
		mapping[s] = blk.Args[nb+nd+i]
	}
	for _, c := range o.consts {
		mapping[c] = emit(ir.Clone(c.Op, nil)).Results[0]
	}
	pos := o.region.Pos
	index := func(name string, operands ...*ir.Value) *ir.Value {
		op := ir.NewOp(name, operands, []ir.Type{ir.IndexType{}}, nil)
		op.Pos = pos
		return emit(op).Results[0]
	}
	constant := func(n int64) *ir.Value {
		op := ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(n)}})
		op.Pos = pos
		return emit(op).Results[0]
	}
	scalar := func(op *ir.Operation, v *ir.Value) (*ir.Value, error) {
		if m, ok := mapping[v]; ok {
			return m, nil
		}
		return nil, ir.OpErrorf(op, "operand is not available in the outlined dispatch function")
	}
	body := o.region.Regions[0].Blocks[0]
	for _, op := range body.Ops {
		switch op.Name {
		case "tensor.extract_slice":
			src, ok := views[op.Operands[0]]
			if !ok {
				return ir.OpErrorf(op, "can only slice a tensor the dispatch region captures")
			}
			lists, err := sliceLists(op, 1)
			if err != nil {
				return err
			}
			rank := len(src.strides)
			rt, _ := op.Results[0].Type.(*ir.TensorType)
			if rt == nil || len(rt.Shape) != rank {
				return ir.OpErrorf(op, "rank-reducing slices are not supported in outlined dispatch regions")
			}
			v := view{root: src.root, base: src.base, offset: src.offset, slice: op}
			for d := 0; d < rank; d++ {
				off, err := listValue(op, lists[0][d], mapping, constant)
				if err != nil {
					return err
				}
				v.offset = index("arith.addi", v.offset, index("arith.muli", off, src.strides[d]))
				step, err := listValue(op, lists[2][d], mapping, constant)
				if err != nil {
					return err
				}
				v.strides = append(v.strides, index("arith.muli", src.strides[d], step))
			}
			views[op.Results[0]] = v
		case "iree_codegen.ukernel.generic":
			u := codegen.UKernel{Op: op}
			strided, err := stridedDims(u)
			if err != nil {
				return err
			}
			var args []*ir.Value
			for i, t := range append(append([]*ir.Value(nil), u.Inputs()...), u.Outputs()...) {
				v, ok := views[t]
				if !ok {
					return ir.OpErrorf(op, "ins/outs operand #%d must be a slice of a tensor the dispatch region captures", i)
				}
				args = append(args, v.base, v.offset)
				for _, d := range strided[i] {
					if d < 0 || int(d) >= len(v.strides) {
						return ir.OpErrorf(op, "strided_dims names dimension %d of a rank-%d operand", d, len(v.strides))
					}
					args = append(args, v.strides[d])
				}
			}
			for _, x := range u.Others() {
				m, err := scalar(op, x)
				if err != nil {
					return err
				}
				args = append(args, m)
			}
			call := ir.NewOp("func.call", args, nil, []ir.NamedAttr{{Name: "callee", Value: ir.SymbolRefAttr{Root: u.Name()}}})
			call.Pos = op.Pos
			emit(call)
			outs := u.Outputs()
			for i, res := range op.Results {
				if i >= len(outs) {
					return ir.OpErrorf(op, "microkernel result #%d has no destination", i)
				}
				views[res] = views[outs[i]]
			}
		case "tensor.insert_slice":
			src, ok1 := views[op.Operands[0]]
			dst, ok2 := views[op.Operands[1]]
			if !ok1 || !ok2 || src.root != dst.root || dst.slice != nil || src.slice == nil || !sameSlice(src.slice, op) {
				return ir.OpErrorf(op, "outlined dispatch regions support tensor.insert_slice only of a microkernel result into the slice of the destination it was computed in")
			}
			views[op.Results[0]] = dst
		case "flow.return":
			for i, v := range op.Operands {
				w, ok := views[v]
				if !ok || w.slice != nil || w.root != len(o.inputs)+i {
					return ir.OpErrorf(op, "result #%d must be the whole destination tensor", i)
				}
			}
		default:
			for _, v := range append(append([]*ir.Value(nil), op.Operands...), op.Results...) {
				if _, ok := v.Type.(*ir.TensorType); ok {
					return ir.OpErrorf(op, "'%s' on tensors is not supported in an outlined dispatch region (supported: tensor.extract_slice, tensor.insert_slice, iree_codegen.ukernel.generic)", op.Name)
				}
			}
			for _, v := range op.Operands {
				if _, ok := mapping[v]; !ok && !within(v, o.region) {
					return ir.OpErrorf(op, "uses a host value that is not passed to the dispatch")
				}
			}
			emit(ir.Clone(op, mapping))
		}
	}
	return nil
}

// listEntry is one entry of a slice's offsets, sizes or strides: a value
// or a static integer.
type listEntry struct {
	v *ir.Value
	c int64
}

// sliceLists returns the offsets, sizes and strides of a slice op whose
// list operands start after the first skip operands.
func sliceLists(op *ir.Operation, skip int) ([3][]listEntry, error) {
	var out [3][]listEntry
	next := skip
	for i, name := range [3]string{"static_offsets", "static_sizes", "static_strides"} {
		static, ok := op.Attr(name).(*ir.DenseArrayAttr)
		if !ok {
			return out, ir.OpErrorf(op, "missing %s", name)
		}
		for _, n := range static.Values {
			if n == tensor.DynamicIndex {
				if next >= len(op.Operands) {
					return out, ir.OpErrorf(op, "fewer dynamic values than %s needs", name)
				}
				out[i] = append(out[i], listEntry{v: op.Operands[next]})
				next++
			} else {
				out[i] = append(out[i], listEntry{c: n})
			}
		}
	}
	return out, nil
}

// listValue returns an entry as a value of the outlined function.
func listValue(op *ir.Operation, e listEntry, mapping map[*ir.Value]*ir.Value, constant func(int64) *ir.Value) (*ir.Value, error) {
	if e.v == nil {
		return constant(e.c), nil
	}
	if m, ok := mapping[e.v]; ok {
		return m, nil
	}
	return nil, ir.OpErrorf(op, "slice bound is not available in the outlined dispatch function")
}

// sameSlice reports whether an extract_slice and an insert_slice name the
// same offsets, sizes and strides (the same values or the same constants).
func sameSlice(extract, insert *ir.Operation) bool {
	a, err1 := sliceLists(extract, 1)
	b, err2 := sliceLists(insert, 2)
	if err1 != nil || err2 != nil {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// replaceRegion puts a flow.dispatch of the outlined export where the
// region was and drops tensor.empty destinations left unused.
func (o *outliner) replaceRegion(exe *ir.Operation) {
	r := o.region
	reg := flow.Region{Op: r}
	var args, argDims []*ir.Value
	args = append(args, o.inputs...)
	args = append(args, o.hostDims...)
	args = append(args, o.scalars...)
	dim := 0
	for _, in := range o.inputs {
		for _, d := range in.Type.(*ir.TensorType).Shape {
			if d == ir.Dynamic {
				argDims = append(argDims, o.hostDims[dim])
				dim++
			}
		}
	}
	workload := reg.Workload()
	resultDims := reg.ResultDims()
	operands := append(append(append(append([]*ir.Value(nil), workload...), args...), argDims...), resultDims...)
	var types []ir.Type
	for _, res := range r.Results {
		types = append(types, res.Type)
	}
	entry := ir.SymbolRefAttr{Root: o.name, Nested: []string{o.name}}
	d := ir.NewOp("flow.dispatch", operands, types, []ir.NamedAttr{
		{Name: "entry_points", Value: &ir.ArrayAttr{Elems: []ir.Attribute{entry}}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(workload), len(args), len(argDims), len(resultDims))},
	})
	d.Pos, d.Loc = r.Pos, r.Loc
	r.Block.InsertBefore(r, d)
	for i, res := range r.Results {
		ir.ReplaceAllUsesWith(o.fn, res, d.Results[i])
	}
	r.Remove()
	for _, out := range o.outputs {
		if !ir.HasUses(o.fn, out) {
			out.Op.Remove()
		}
	}
}
