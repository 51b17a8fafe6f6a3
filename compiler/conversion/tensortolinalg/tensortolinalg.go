// Package tensortolinalg lowers the tensor dialect's ops in host functions
// to what dispatch formation and host code generation take, as IREE's
// global optimization and dispatch creation do:
//
//   - tensor.cast, tensor.expand_shape and tensor.collapse_shape become
//     flow.tensor.reshape and tensor.bitcast flow.tensor.bitcast (a new
//     view of the same buffer); a cast from a dynamic to a static size is
//     checked at run time with a cf.assert;
//   - tensor.extract becomes flow.tensor.load, tensor.insert
//     flow.tensor.store and tensor.splat flow.tensor.splat;
//   - tensor.generate becomes a linalg.generic whose body is the region,
//     with the block arguments read from linalg.index;
//   - tensor.from_elements becomes a linalg.generic over the scalars that
//     picks each element by its linear index (a flow.tensor.empty and
//     flow.tensor.stores when a scalar cannot be a kernel's push constant);
//   - tensor.pad becomes a fill of the result (linalg.fill with the pad
//     value, or a generic from the region when the value depends on the
//     index) and a tensor.insert_slice of the source at the low padding;
//   - tensor.concat becomes a tensor.empty and one tensor.insert_slice per
//     input.
//
// tensor.extract_slice and tensor.insert_slice stay: dispatch formation
// (package loopnest) turns them into kernels that read the source, or
// write the destination in place, at offset + stride * index.
// Every op created is in MLIR's generic form as IREE's FlowOps.td and
// MLIR's LinalgOps define it, at the position of the op it replaces.
//
// Slice offsets and strides that host arithmetic computes from constants
// are made static first. Pad amounts and concatenation offsets must be
// static; dynamic ones are refused with a "not supported yet" error at the
// op.
package tensortolinalg

import (
	"fmt"

	"github.com/goiree/goiree/compiler/dialect/tensor"
	"github.com/goiree/goiree/compiler/dialect/util"
	"github.com/goiree/goiree/compiler/ir"
)

// Convert lowers the tensor ops in the host functions of module. Ops in
// other regions (flow.dispatch.region bodies, executables) are left alone.
func Convert(module *ir.Operation) error {
	body := module.Body()
	if body == nil {
		return fmt.Errorf("module has no body")
	}
	for _, fn := range body.Ops {
		if !util.IsHostFunction(fn) || len(fn.Regions) == 0 {
			continue
		}
		var ops []*ir.Operation
		memo := map[*ir.Value]foldResult{}
		ir.Walk(fn, func(o *ir.Operation) bool {
			if o != fn && (o.Name == "flow.dispatch.region" || util.IsHostFunction(o) || len(o.Name) > 7 && o.Name[:7] == "linalg.") {
				return false
			}
			if o.Name == "tensor.extract_slice" || o.Name == "tensor.insert_slice" {
				foldSliceOperands(o, memo)
			}
			if lowerings[o.Name] != nil {
				ops = append(ops, o)
			}
			return true
		})
		for _, op := range ops {
			c := &converter{fn: fn, op: op, consts: map[int64]*ir.Value{}, dims: map[dimKey]*ir.Value{}}
			if err := lowerings[op.Name](c); err != nil {
				return err
			}
		}
	}
	return nil
}

var lowerings map[string]func(*converter) error

func init() {
	lowerings = map[string]func(*converter) error{
		"tensor.cast":           (*converter).reshape,
		"tensor.expand_shape":   (*converter).reshape,
		"tensor.collapse_shape": (*converter).reshape,
		"tensor.bitcast":        (*converter).reshape,
		"tensor.extract":        (*converter).extract,
		"tensor.insert":         (*converter).insert,
		"tensor.splat":          (*converter).splat,
		"tensor.generate":       (*converter).generate,
		"tensor.from_elements":  (*converter).fromElements,
		"tensor.pad":            (*converter).pad,
		"tensor.concat":         (*converter).concat,
	}
}

// converter rewrites one op: new ops go before it, then its result is
// replaced and it is removed.
type converter struct {
	fn, op *ir.Operation
	consts map[int64]*ir.Value
	dims   map[dimKey]*ir.Value
}

type dimKey struct {
	v *ir.Value
	d int
}

// emit inserts o before the op being converted, at its position.
func (c *converter) emit(o *ir.Operation) *ir.Operation {
	o.Pos = c.op.Pos
	c.op.Block.InsertBefore(c.op, o)
	return o
}

// index returns an index constant.
func (c *converter) index(v int64) *ir.Value {
	if r, ok := c.consts[v]; ok {
		return r
	}
	r := c.emit(ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(v)}})).Results[0]
	c.consts[v] = r
	return r
}

func (c *converter) binary(name string, a, b *ir.Value) *ir.Value {
	return c.emit(ir.NewOp(name, []*ir.Value{a, b}, []ir.Type{a.Type}, nil)).Results[0]
}

// dim returns dimension d of tensor v: a constant when static, the size
// tensor.empty was made with, or a tensor.dim.
func (c *converter) dim(v *ir.Value, d int) *ir.Value {
	t := v.Type.(*ir.TensorType)
	if t.Shape[d] != ir.Dynamic {
		return c.index(t.Shape[d])
	}
	if v.Op != nil && v.Op.Name == "tensor.empty" {
		n := 0
		for _, s := range t.Shape[:d] {
			if s == ir.Dynamic {
				n++
			}
		}
		if n < len(v.Op.Operands) {
			return v.Op.Operands[n]
		}
	}
	if r, ok := c.dims[dimKey{v, d}]; ok {
		return r
	}
	r := c.emit(ir.NewOp("tensor.dim", []*ir.Value{v, c.index(int64(d))}, []ir.Type{ir.IndexType{}}, nil)).Results[0]
	c.dims[dimKey{v, d}] = r
	return r
}

// dynDims returns the values of v's dynamic dimensions, in order.
func (c *converter) dynDims(v *ir.Value) []*ir.Value {
	var out []*ir.Value
	for d, s := range v.Type.(*ir.TensorType).Shape {
		if s == ir.Dynamic {
			out = append(out, c.dim(v, d))
		}
	}
	return out
}

// replace makes the converted op's result r, a value created for it, and
// removes the op.
func (c *converter) replace(r *ir.Value) {
	r.Name = c.op.Results[0].Name
	c.forward(r)
}

// forward replaces the converted op's result by an existing value and
// removes the op.
func (c *converter) forward(r *ir.Value) {
	ir.ReplaceAllUsesWith(c.fn, c.op.Results[0], r)
	c.op.Remove()
}

// empty creates a tensor.empty of type t with the given dynamic sizes.
func (c *converter) empty(t *ir.TensorType, dyn []*ir.Value) *ir.Value {
	return c.emit(ir.NewOp("tensor.empty", dyn, []ir.Type{t}, nil)).Results[0]
}

// tensorType returns a ranked tensor type or a "not supported" error.
func (c *converter) tensorType(v *ir.Value) (*ir.TensorType, error) {
	t, ok := v.Type.(*ir.TensorType)
	if !ok || t.Unranked {
		return nil, ir.OpErrorf(c.op, "unranked tensors ('%s') are not supported yet", ir.TypeString(v.Type))
	}
	return t, nil
}

// reshape lowers the ops that reinterpret a tensor's buffer (cast,
// expand_shape, collapse_shape, bitcast) to flow.tensor.reshape or
// flow.tensor.bitcast, computing the result's dynamic dimensions from the
// source's (and from expand_shape's output_shape).
func (c *converter) reshape() error {
	op := c.op
	src := op.Operands[0]
	if _, err := c.tensorType(src); err != nil {
		return err
	}
	rt, err := c.tensorType(op.Results[0])
	if err != nil {
		return err
	}
	srcDims := c.dynDims(src)
	var resDims []*ir.Value
	switch op.Name {
	case "tensor.cast", "tensor.bitcast":
		st := src.Type.(*ir.TensorType)
		for d, s := range rt.Shape {
			if s == ir.Dynamic {
				resDims = append(resDims, c.dim(src, d))
			} else if st.Shape[d] == ir.Dynamic {
				// A cast to a static size holds only when the size is
				// that at run time: check it rather than read past the
				// buffer later.
				ok := c.emit(ir.NewOp("arith.cmpi", []*ir.Value{c.dim(src, d), c.index(s)}, []ir.Type{ir.I1}, []ir.NamedAttr{{Name: "predicate", Value: ir.IntegerAttr{Value: 0, Type: ir.I64}}})).Results[0]
				msg := fmt.Sprintf("%s: dimension %d of the '%s' operand is not %d", op.Pos, d, ir.TypeString(st), s)
				c.emit(ir.NewOp("cf.assert", []*ir.Value{ok}, nil, []ir.NamedAttr{{Name: "msg", Value: ir.StringAttr{Value: msg}}}))
			}
		}
	case "tensor.collapse_shape":
		for i, g := range tensor.Reassociation(op) {
			if rt.Shape[i] != ir.Dynamic {
				continue
			}
			// The product of the group's dynamic sizes, times that of its
			// static ones.
			var prod *ir.Value
			static := int64(1)
			for _, d := range g {
				if n := src.Type.(*ir.TensorType).Shape[d]; n != ir.Dynamic {
					static *= n
					continue
				}
				if v := c.dim(src, int(d)); prod == nil {
					prod = v
				} else {
					prod = c.binary("arith.muli", prod, v)
				}
			}
			if static != 1 {
				prod = c.binary("arith.muli", prod, c.index(static))
			}
			resDims = append(resDims, prod)
		}
	case "tensor.expand_shape":
		if op.Attr("static_output_shape") != nil {
			// The verifier checked that the values stand exactly at the
			// result's dynamic dimensions, in order.
			resDims = append(resDims, op.Operands[1:]...)
			break
		}
		// The older form: a group's one dynamic size is the source size
		// over the product of the group's static sizes.
		for i, g := range tensor.Reassociation(op) {
			prod := int64(1)
			dyn := false
			for _, d := range g {
				if rt.Shape[d] == ir.Dynamic {
					dyn = true
				} else {
					prod *= rt.Shape[d]
				}
			}
			if dyn {
				v := c.dim(src, i)
				if prod != 1 {
					v = c.binary("arith.divui", v, c.index(prod))
				}
				resDims = append(resDims, v)
			}
		}
	}
	name := "flow.tensor.reshape"
	if op.Name == "tensor.bitcast" {
		name = "flow.tensor.bitcast"
	}
	operands := append(append([]*ir.Value{src}, srcDims...), resDims...)
	r := c.emit(ir.NewOp(name, operands, []ir.Type{rt}, []ir.NamedAttr{
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(srcDims), len(resDims))},
	}))
	c.replace(r.Results[0])
	return nil
}

// extract lowers tensor.extract to flow.tensor.load.
func (c *converter) extract() error {
	op := c.op
	src := op.Operands[0]
	if _, err := c.tensorType(src); err != nil {
		return err
	}
	dims := c.dynDims(src)
	idx := op.Operands[1:]
	operands := append(append([]*ir.Value{src}, dims...), idx...)
	r := c.emit(ir.NewOp("flow.tensor.load", operands, []ir.Type{op.Results[0].Type}, []ir.NamedAttr{
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(dims), len(idx))},
	}))
	c.replace(r.Results[0])
	return nil
}

// insert lowers tensor.insert to flow.tensor.store.
func (c *converter) insert() error {
	op := c.op
	dest := op.Operands[1]
	if _, err := c.tensorType(dest); err != nil {
		return err
	}
	dims := c.dynDims(dest)
	idx := op.Operands[2:]
	operands := append(append([]*ir.Value{op.Operands[0], dest}, dims...), idx...)
	r := c.emit(ir.NewOp("flow.tensor.store", operands, []ir.Type{dest.Type}, []ir.NamedAttr{
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, len(dims), len(idx))},
	}))
	c.replace(r.Results[0])
	return nil
}

// splat lowers tensor.splat to flow.tensor.splat (value, result dims).
func (c *converter) splat() error {
	op := c.op
	r := c.emit(ir.NewOp("flow.tensor.splat", append([]*ir.Value(nil), op.Operands...), []ir.Type{op.Results[0].Type}, nil))
	c.replace(r.Results[0])
	return nil
}

// staticOnly refuses dynamic entries of an offsets or strides list.
func (c *converter) staticOnly(what string, vals []int64) error {
	for d, v := range vals {
		if v == tensor.DynamicIndex {
			return ir.OpErrorf(c.op, "dynamic %s (dimension %d) are not supported yet; only sizes may be dynamic", what, d)
		}
	}
	return nil
}

func identity(n int) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	for i := 0; i < n; i++ {
		m.Results = append(m.Results, &ir.AffineExpr{Kind: ir.AffineDim, Pos: i})
	}
	return m
}

func parallel(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "parallel"
	}
	return out
}

// elemType is a tensor's element type, or a scalar's own type.
func elemType(t ir.Type) ir.Type {
	if tt, ok := t.(*ir.TensorType); ok {
		return tt.Elem
	}
	return t
}

// generic emits a linalg.generic over the given operands, maps and
// iterators; body fills its block (arguments: the input elements, then
// the output elements) up to and including the linalg.yield.
func (c *converter) generic(ins, outs []*ir.Value, maps []*ir.AffineMap, iters []string, body func(b *ir.Block) error) (*ir.Operation, error) {
	var mapAttrs, itAttrs []ir.Attribute
	for _, m := range maps {
		mapAttrs = append(mapAttrs, ir.AffineMapAttr{Map: m})
	}
	for _, it := range iters {
		itAttrs = append(itAttrs, ir.StringAttr{Value: it})
	}
	var types, argTypes []ir.Type
	for _, v := range ins {
		argTypes = append(argTypes, elemType(v.Type))
	}
	for _, v := range outs {
		types = append(types, v.Type)
		argTypes = append(argTypes, elemType(v.Type))
	}
	g := ir.NewOp("linalg.generic", append(append([]*ir.Value(nil), ins...), outs...), types, []ir.NamedAttr{
		{Name: "indexing_maps", Value: &ir.ArrayAttr{Elems: mapAttrs}},
		{Name: "iterator_types", Value: &ir.ArrayAttr{Elems: itAttrs}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(ins), len(outs))},
	})
	g.Loc = c.op.Loc
	b := g.AddRegion().AddBlock(argTypes...)
	for i, a := range b.Args {
		if i < len(ins) {
			a.Name = fmt.Sprintf("in%d", i)
		} else {
			a.Name = "out"
		}
	}
	if err := body(b); err != nil {
		return nil, err
	}
	ir.Walk(g, func(o *ir.Operation) bool {
		if !o.Pos.IsValid() {
			o.Pos = c.op.Pos
		}
		return true
	})
	c.emit(g)
	return g, nil
}

// yield appends a linalg.yield of v to b.
func yield(b *ir.Block, v *ir.Value) {
	b.Append(ir.NewOp("linalg.yield", []*ir.Value{v}, nil, nil))
}

// captured returns the scalars region r uses but does not define, other
// than constants (which kernels clone): they become inputs of the generic
// made from r, so that kernels receive them as push constants.
func captured(r *ir.Region) []*ir.Value {
	var out []*ir.Value
	seen := map[*ir.Value]bool{}
	for _, b := range r.Blocks {
		for _, o := range b.Ops {
			ir.Walk(o, func(n *ir.Operation) bool {
				for _, v := range n.Operands {
					_, shaped := v.Type.(ir.ShapedType)
					if seen[v] || shaped || definedIn(v, r) || v.Op != nil && v.Op.Name == "arith.constant" {
						continue
					}
					seen[v] = true
					out = append(out, v)
				}
				return true
			})
		}
	}
	return out
}

// regionGeneric emits a linalg.generic over out whose body is region r
// (see fromRegion), with the scalars r captures as its inputs.
func (c *converter) regionGeneric(r *ir.Region, out *ir.Value) (*ir.Operation, error) {
	rank := len(out.Type.(*ir.TensorType).Shape)
	ins := captured(r)
	var maps []*ir.AffineMap
	for range ins {
		maps = append(maps, &ir.AffineMap{NumDims: rank, Results: []*ir.AffineExpr{}})
	}
	maps = append(maps, identity(rank))
	return c.generic(ins, []*ir.Value{out}, maps, parallel(rank), func(b *ir.Block) error {
		mapping := map[*ir.Value]*ir.Value{}
		for i, v := range ins {
			mapping[v] = b.Args[i]
		}
		return fromRegion(r, b, mapping)
	})
}

// fromRegion fills b (a linalg.generic body over one output) from a
// tensor.generate or tensor.pad region: its block arguments become
// linalg.index ops and its tensor.yield a linalg.yield; mapping holds the
// body's values for the captured ones.
func fromRegion(r *ir.Region, b *ir.Block, mapping map[*ir.Value]*ir.Value) error {
	if len(r.Blocks) != 1 {
		return ir.OpErrorf(r.Op, "a region of more than one block is not supported yet")
	}
	src := r.Blocks[0]
	for i, a := range src.Args {
		ix := ir.NewOp("linalg.index", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "dim", Value: ir.IntegerAttr{Value: int64(i), Type: ir.I64}}})
		ix.Pos = r.Op.Pos
		ix.Results[0].Name = a.Name
		b.Append(ix)
		mapping[a] = ix.Results[0]
	}
	for _, o := range src.Ops {
		if o.Name == "tensor.yield" {
			v := o.Operands[0]
			if m, ok := mapping[v]; ok {
				v = m
			}
			y := ir.NewOp("linalg.yield", []*ir.Value{v}, nil, nil)
			y.Pos = o.Pos
			b.Append(y)
			continue
		}
		b.Append(ir.Clone(o, mapping))
	}
	return nil
}

// generate lowers tensor.generate to a linalg.generic whose body is the
// region, over a new tensor of the result's type.
func (c *converter) generate() error {
	op := c.op
	rt, err := c.tensorType(op.Results[0])
	if err != nil {
		return err
	}
	e := c.empty(rt, append([]*ir.Value(nil), op.Operands...))
	g, err := c.regionGeneric(op.Regions[0], e)
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}

// fromElements lowers tensor.from_elements to a linalg.generic over the
// scalars whose body picks, by the element's row-major linear index, the
// scalar that goes there.
func (c *converter) fromElements() error {
	op := c.op
	rt, err := c.tensorType(op.Results[0])
	if err != nil {
		return err
	}
	for _, v := range op.Operands {
		if !passable(v) {
			return c.storeElements(rt)
		}
	}
	rank := len(rt.Shape)
	e := c.empty(rt, nil)
	var maps []*ir.AffineMap
	for range op.Operands {
		maps = append(maps, &ir.AffineMap{NumDims: rank, Results: []*ir.AffineExpr{}})
	}
	maps = append(maps, identity(rank))
	g, err := c.generic(append([]*ir.Value(nil), op.Operands...), []*ir.Value{e}, maps, parallel(rank), func(b *ir.Block) error {
		n := len(op.Operands)
		v := b.Args[n-1]
		if n == 1 {
			yield(b, v)
			return nil
		}
		add := func(o *ir.Operation) *ir.Value {
			b.Append(o)
			return o.Results[0]
		}
		consts := map[int64]*ir.Value{}
		cst := func(x int64) *ir.Value {
			if v, ok := consts[x]; ok {
				return v
			}
			consts[x] = add(ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(x)}}))
			return consts[x]
		}
		var lin *ir.Value
		stride := int64(1)
		for d := rank - 1; d >= 0; d-- {
			ix := add(ir.NewOp("linalg.index", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "dim", Value: ir.IntegerAttr{Value: int64(d), Type: ir.I64}}}))
			term := ix
			if stride != 1 {
				term = add(ir.NewOp("arith.muli", []*ir.Value{ix, cst(stride)}, []ir.Type{ir.IndexType{}}, nil))
			}
			if lin == nil {
				lin = term
			} else {
				lin = add(ir.NewOp("arith.addi", []*ir.Value{lin, term}, []ir.Type{ir.IndexType{}}, nil))
			}
			stride *= rt.Shape[d]
		}
		for j := n - 2; j >= 0; j-- {
			eq := add(ir.NewOp("arith.cmpi", []*ir.Value{lin, cst(int64(j))}, []ir.Type{ir.I1}, []ir.NamedAttr{{Name: "predicate", Value: ir.IntegerAttr{Value: 0, Type: ir.I64}}}))
			v = add(ir.NewOp("arith.select", []*ir.Value{eq, b.Args[j], v}, []ir.Type{v.Type}, nil))
		}
		yield(b, v)
		return nil
	})
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}

// passable reports whether a scalar can be an input of a generated
// kernel: a constant (cloned into the body) or a value that fits one
// 32-bit push constant (f32, integers up to 32 bits, index).
func passable(v *ir.Value) bool {
	if v.Op != nil && v.Op.Name == "arith.constant" {
		return true
	}
	switch t := v.Type.(type) {
	case ir.FloatType:
		return t.Name == "f32"
	case ir.IntegerType:
		return t.Width <= 32
	case ir.IndexType:
		return true
	}
	return false
}

// storeElements lowers a tensor.from_elements whose scalars cannot be
// passed to a kernel (64-bit values, f16...) to a flow.tensor.empty and a
// flow.tensor.store of each element, in row-major order.
func (c *converter) storeElements(rt *ir.TensorType) error {
	op := c.op
	cur := c.emit(ir.NewOp("flow.tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	idx := make([]int64, len(rt.Shape))
	for _, v := range op.Operands {
		var ix []*ir.Value
		for _, x := range idx {
			ix = append(ix, c.index(x))
		}
		cur = c.emit(ir.NewOp("flow.tensor.store", append([]*ir.Value{v, cur}, ix...), []ir.Type{rt}, []ir.NamedAttr{
			{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, 0, len(ix))},
		})).Results[0]
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < rt.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	c.replace(cur)
	return nil
}

// insertSlice emits a tensor.insert_slice of src into dest at static
// offsets with unit strides, over all of src.
func (c *converter) insertSlice(src, dest *ir.Value, offs []int64) *ir.Value {
	st := src.Type.(*ir.TensorType)
	var sizeVals []*ir.Value
	sizes := &ir.DenseArrayAttr{Elem: ir.I64}
	strides := &ir.DenseArrayAttr{Elem: ir.I64}
	for d, s := range st.Shape {
		if s == ir.Dynamic {
			sizeVals = append(sizeVals, c.dim(src, d))
			s = tensor.DynamicIndex
		}
		sizes.Values = append(sizes.Values, s)
		strides.Values = append(strides.Values, 1)
	}
	operands := append([]*ir.Value{src, dest}, sizeVals...)
	return c.emit(ir.NewOp("tensor.insert_slice", operands, []ir.Type{dest.Type}, []ir.NamedAttr{
		{Name: "static_offsets", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: append([]int64{}, offs...)}},
		{Name: "static_sizes", Value: sizes},
		{Name: "static_strides", Value: strides},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, 0, len(sizeVals), 0)},
	})).Results[0]
}

// definedIn reports whether v is defined inside region r.
func definedIn(v *ir.Value, r *ir.Region) bool {
	var b *ir.Block
	if v.Op != nil {
		b = v.Op.Block
	} else {
		b = v.Block
	}
	for b != nil && b.Region != nil {
		if b.Region == r {
			return true
		}
		if b.Region.Op == nil {
			return false
		}
		b = b.Region.Op.Block
	}
	return false
}

// pad lowers tensor.pad to a fill of the result and an insert_slice of
// the source at the low padding.
func (c *converter) pad() error {
	op := c.op
	src := op.Operands[0]
	st, err := c.tensorType(src)
	if err != nil {
		return err
	}
	rt, err := c.tensorType(op.Results[0])
	if err != nil {
		return err
	}
	low, high := tensor.PadAmounts(op)
	if err := c.staticOnly("low paddings", low); err != nil {
		return err
	}
	if err := c.staticOnly("high paddings", high); err != nil {
		return err
	}
	var dyn []*ir.Value
	for d, s := range rt.Shape {
		if s != ir.Dynamic {
			continue
		}
		var v *ir.Value
		switch {
		case st.Shape[d] != ir.Dynamic:
			v = c.index(st.Shape[d] + low[d] + high[d])
		case low[d]+high[d] == 0:
			v = c.dim(src, d)
		default:
			v = c.binary("arith.addi", c.dim(src, d), c.index(low[d]+high[d]))
		}
		dyn = append(dyn, v)
	}
	e := c.empty(rt, dyn)
	r := op.Regions[0]
	y := r.Blocks[0].Terminator()
	rank := len(rt.Shape)
	var fill *ir.Operation
	if v := y.Operands[0]; !definedIn(v, r) {
		// One value for every element: a fill.
		m := &ir.AffineMap{NumDims: rank, Results: []*ir.AffineExpr{}}
		fill, err = c.generic([]*ir.Value{v}, []*ir.Value{e}, []*ir.AffineMap{m, identity(rank)}, parallel(rank), func(b *ir.Block) error {
			yield(b, b.Args[0])
			return nil
		})
	} else {
		fill, err = c.regionGeneric(r, e)
	}
	if err != nil {
		return err
	}
	c.replace(c.insertSlice(src, fill.Results[0], low))
	return nil
}

// concat lowers tensor.concat to insert_slices of each input into a new
// tensor, at the running offset along the concatenated dimension.
func (c *converter) concat() error {
	op := c.op
	rt, err := c.tensorType(op.Results[0])
	if err != nil {
		return err
	}
	dim := int(tensor.ConcatDim(op))
	total := int64(0)
	for i, v := range op.Operands {
		t, err := c.tensorType(v)
		if err != nil {
			return err
		}
		if t.Shape[dim] == ir.Dynamic {
			return ir.OpErrorf(op, "input #%d has a dynamic size along the concatenated dimension %d, which makes the offsets dynamic: not supported yet", i, dim)
		}
		total += t.Shape[dim]
	}
	var dyn []*ir.Value
	for d, s := range rt.Shape {
		if s != ir.Dynamic {
			continue
		}
		if d == dim {
			dyn = append(dyn, c.index(total))
		} else {
			dyn = append(dyn, c.dim(op.Operands[0], d))
		}
	}
	cur := c.empty(rt, dyn)
	off := make([]int64, len(rt.Shape))
	for _, v := range op.Operands {
		cur = c.insertSlice(v, cur, off)
		off[dim] += v.Type.(*ir.TensorType).Shape[dim]
	}
	c.replace(cur)
	return nil
}
