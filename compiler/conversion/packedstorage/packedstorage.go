// Package packedstorage lets linalg ops and tensor slices work on i1
// tensors in IREE's packed storage (#iree_encoding.packed_storage: eight
// elements to a byte, element i in bit i%8 of byte i/8). The loop-nest
// kernels address i1 elements one per byte, so each such op reads its
// packed operands unpacked and packs what it writes:
//
//   - a packed operand is reinterpreted as its bytes (flow.tensor.bitcast)
//     and unpacked by a linalg.generic over its shape whose element at
//     row-major position i is bit i%8 of byte i/8 (a tensor.extract at a
//     computed index); a packed tensor.empty becomes a plain one;
//   - a packed result becomes a plain i1 result, packed by a
//     linalg.generic over the bytes whose byte j ORs the elements 8j..8j+7
//     shifted to their bits, and reinterpreted back as the packed type.
//
// Everything else (bitcasts to and from bytes, barriers, function
// boundaries) keeps the packed form, whose buffer is the bytes. Shapes
// must be static with a multiple of 8 elements.
package packedstorage

import (
	"strings"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// IsPacked reports whether t is an i1 tensor in packed storage.
func IsPacked(t ir.Type) bool {
	tt, ok := t.(*ir.TensorType)
	return ok && tt.Encoding != nil && ir.TypesEqual(tt.Elem, ir.I1) && strings.HasPrefix(ir.AttrString(tt.Encoding), "#iree_encoding.packed_storage")
}

// Convert rewrites every linalg structured op and tensor slice under
// module that reads or writes packed i1 tensors.
func Convert(module *ir.Operation) error {
	var ops []*ir.Operation
	ir.Walk(module, func(o *ir.Operation) bool {
		if !loopnest.IsDispatched(o) {
			return true
		}
		for _, v := range append(append([]*ir.Value(nil), o.Operands...), o.Results...) {
			if IsPacked(v.Type) {
				ops = append(ops, o)
				break
			}
		}
		return false // linalg bodies hold scalars
	})
	c := converter{plainOf: map[*ir.Value]*ir.Value{}, packedOf: map[*ir.Value]*ir.Value{}}
	for _, o := range ops {
		if err := c.convertOp(o); err != nil {
			return err
		}
	}
	ir.Walk(module, func(o *ir.Operation) bool {
		for i, v := range o.Operands {
			if n, ok := c.packedOf[v]; ok {
				o.Operands[i] = n
			}
		}
		return true
	})
	return nil
}

// converter remembers, for each packed result of a converted op, the
// plain value the op now yields (which converted users read directly) and
// its packed form (which every other user reads).
type converter struct {
	plainOf, packedOf map[*ir.Value]*ir.Value
}

// plain returns the unpacked form of a packed type.
func plain(t ir.Type) *ir.TensorType {
	tt := t.(*ir.TensorType)
	return &ir.TensorType{Shape: tt.Shape, Elem: ir.I1}
}

// bytesOf returns the number of bytes of a packed type, or an error for
// shapes this package does not take.
func bytesOf(o *ir.Operation, t ir.Type) (int64, error) {
	n := ir.NumElements(t.(*ir.TensorType))
	if n < 0 || n%8 != 0 {
		return 0, ir.OpErrorf(o, "packed i1 tensors must have a static shape with a multiple of 8 elements, found '%s'", ir.TypeString(t))
	}
	return n / 8, nil
}

func (c converter) convertOp(o *ir.Operation) error {
	emit := func(n *ir.Operation) *ir.Operation {
		n.Pos, n.Loc = o.Pos, o.Loc
		o.Block.InsertBefore(o, n)
		return n
	}
	b := builder{emit: emit}
	for i, v := range o.Operands {
		if p, ok := c.plainOf[v]; ok {
			o.Operands[i] = p
			continue
		}
		if !IsPacked(v.Type) {
			continue
		}
		nb, err := bytesOf(o, v.Type)
		if err != nil {
			return err
		}
		if d := v.Op; d != nil && d.Name == "tensor.empty" && len(d.Operands) == 0 {
			o.Operands[i] = emit(ir.NewOp("tensor.empty", nil, []ir.Type{plain(v.Type)}, nil)).Results[0]
			continue
		}
		o.Operands[i] = b.unpack(v, nb)
	}
	// The op now yields plain i1 results, packed after it for the users
	// that keep the packed form.
	type packing struct {
		old, plain *ir.Value
		nb         int64
	}
	var packs []packing
	for i, r := range o.Results {
		if !IsPacked(r.Type) {
			continue
		}
		nb, err := bytesOf(o, r.Type)
		if err != nil {
			return err
		}
		p := &ir.Value{Type: plain(r.Type), Op: o, Index: i, Name: r.Name, Pos: r.Pos}
		o.Results[i] = p
		c.plainOf[r] = p
		packs = append(packs, packing{r, p, nb})
	}
	if len(packs) == 0 {
		return nil
	}
	next := nextOp(o)
	if next == nil {
		return ir.OpErrorf(o, "has no op after it to place its packing before")
	}
	b.emit = func(n *ir.Operation) *ir.Operation {
		n.Pos, n.Loc = o.Pos, o.Loc
		o.Block.InsertBefore(next, n)
		return n
	}
	for _, p := range packs {
		c.packedOf[p.old] = b.pack(p.plain, p.old.Type, p.nb)
	}
	return nil
}

// nextOp returns the op after o in its block.
func nextOp(o *ir.Operation) *ir.Operation {
	for i, x := range o.Block.Ops {
		if x == o && i+1 < len(o.Block.Ops) {
			return o.Block.Ops[i+1]
		}
	}
	return nil
}

type builder struct {
	emit func(*ir.Operation) *ir.Operation
}

var i8 = ir.IntegerType{Width: 8}

func (b builder) op(blk *ir.Block, name string, operands []*ir.Value, t ir.Type, attrs ...ir.NamedAttr) *ir.Value {
	o := ir.NewOp(name, operands, []ir.Type{t}, attrs)
	blk.Append(o)
	return o.Results[0]
}

func (b builder) constant(blk *ir.Block, t ir.Type, v int64) *ir.Value {
	var a ir.Attribute = ir.IntegerAttr{Value: v, Type: t}
	if _, ok := t.(ir.IndexType); ok {
		a = ir.IndexAttr(v)
	}
	return b.op(blk, "arith.constant", nil, t, ir.NamedAttr{Name: "value", Value: a})
}

// generic emits a linalg.generic without inputs writing a new tensor of
// type rt, its body built by fn.
func (b builder) generic(rt *ir.TensorType, fn func(blk *ir.Block) *ir.Value) *ir.Value {
	n := len(rt.Shape)
	id := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	var its []ir.Attribute
	for d := 0; d < n; d++ {
		id.Results = append(id.Results, &ir.AffineExpr{Kind: ir.AffineDim, Pos: d})
		its = append(its, ir.StringAttr{Value: "parallel"})
	}
	out := b.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	g := ir.NewOp("linalg.generic", []*ir.Value{out}, []ir.Type{rt}, []ir.NamedAttr{
		{Name: "indexing_maps", Value: &ir.ArrayAttr{Elems: []ir.Attribute{ir.AffineMapAttr{Map: id}}}},
		{Name: "iterator_types", Value: &ir.ArrayAttr{Elems: its}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(0, 1)},
	})
	blk := g.AddRegion().AddBlock(rt.Elem)
	blk.Args[0].Name = "out"
	v := fn(blk)
	blk.Append(ir.NewOp("linalg.yield", []*ir.Value{v}, nil, nil))
	b.emit(g)
	ir.Walk(g, func(x *ir.Operation) bool {
		x.Pos, x.Loc = g.Pos, g.Loc
		return true
	})
	return g.Results[0]
}

func bitcast(v *ir.Value, t ir.Type) *ir.Operation {
	return ir.NewOp("flow.tensor.bitcast", []*ir.Value{v}, []ir.Type{t}, []ir.NamedAttr{{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 0, 0)}})
}

// unpack returns the plain i1 tensor holding packed v's elements.
func (b builder) unpack(v *ir.Value, nb int64) *ir.Value {
	pt := plain(v.Type)
	bytes := b.emit(bitcast(v, &ir.TensorType{Shape: []int64{nb}, Elem: i8})).Results[0]
	return b.generic(pt, func(blk *ir.Block) *ir.Value {
		// The element's row-major position i.
		lin := b.constant(blk, ir.IndexType{}, 0)
		for d, s := range pt.Shape {
			at := b.op(blk, "linalg.index", nil, ir.IndexType{}, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: int64(d), Type: ir.I64}})
			lin = b.op(blk, "arith.addi", []*ir.Value{b.op(blk, "arith.muli", []*ir.Value{lin, b.constant(blk, ir.IndexType{}, s)}, ir.IndexType{}), at}, ir.IndexType{})
		}
		eight := b.constant(blk, ir.IndexType{}, 8)
		byteAt := b.op(blk, "arith.divui", []*ir.Value{lin, eight}, ir.IndexType{})
		bit := b.op(blk, "arith.remui", []*ir.Value{lin, eight}, ir.IndexType{})
		x := b.op(blk, "tensor.extract", []*ir.Value{bytes, byteAt}, i8)
		shift := b.op(blk, "arith.index_cast", []*ir.Value{bit}, i8)
		return b.op(blk, "arith.trunci", []*ir.Value{b.op(blk, "arith.shrui", []*ir.Value{x, shift}, i8)}, ir.I1)
	})
}

// pack returns the packed form (type packed) of plain i1 tensor v.
func (b builder) pack(v *ir.Value, packed ir.Type, nb int64) *ir.Value {
	shape := v.Type.(*ir.TensorType).Shape
	bytes := b.generic(&ir.TensorType{Shape: []int64{nb}, Elem: i8}, func(blk *ir.Block) *ir.Value {
		j := b.op(blk, "linalg.index", nil, ir.IndexType{}, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: 0, Type: ir.I64}})
		base := b.op(blk, "arith.muli", []*ir.Value{j, b.constant(blk, ir.IndexType{}, 8)}, ir.IndexType{})
		acc := b.constant(blk, i8, 0)
		for k := int64(0); k < 8; k++ {
			// Element 8j+k at its row-major indices.
			lin := b.op(blk, "arith.addi", []*ir.Value{base, b.constant(blk, ir.IndexType{}, k)}, ir.IndexType{})
			at := make([]*ir.Value, len(shape))
			for d := len(shape) - 1; d >= 0; d-- {
				s := b.constant(blk, ir.IndexType{}, shape[d])
				at[d] = b.op(blk, "arith.remui", []*ir.Value{lin, s}, ir.IndexType{})
				lin = b.op(blk, "arith.divui", []*ir.Value{lin, s}, ir.IndexType{})
			}
			e := b.op(blk, "tensor.extract", append([]*ir.Value{v}, at...), ir.I1)
			bit := b.op(blk, "arith.shli", []*ir.Value{b.op(blk, "arith.extui", []*ir.Value{e}, i8), b.constant(blk, i8, k)}, i8)
			acc = b.op(blk, "arith.ori", []*ir.Value{acc, bit}, i8)
		}
		return acc
	})
	return b.emit(bitcast(bytes, packed)).Results[0]
}
