// Package tosatolinalg lowers TOSA ops to linalg, tensor and arith/math,
// as MLIR's TosaToLinalg, TosaToArith and TosaToTensor conversions do for
// IREE's TOSA input:
//
//   - elementwise ops (and select, cast, compares) become a linalg.generic
//     over a tensor.empty of the result type; an operand dimension of 1
//     against a larger result dimension is broadcast by indexing it at 0;
//   - tosa.const becomes arith.constant;
//   - tosa.reshape becomes flow.tensor.reshape (a new view of the buffer);
//   - tosa.transpose becomes a linalg.generic reading its operand through
//     the permuted map;
//   - tosa.reduce_* become a linalg.generic reducing the axis into an
//     output that keeps it as a size-1 dimension, initialised with the
//     combiner's identity;
//   - tosa.slice becomes tensor.extract_slice and tosa.concat
//     tensor.concat (which package tensortolinalg lowers further);
//   - tosa.pad becomes a fill with the pad value and a
//     tensor.insert_slice of the input at the low padding;
//   - tosa.gather and tosa.table, whose reads depend on data, become
//     linalg.generics whose bodies read the values or table directly at
//     the computed index (tensor.extract: one read per element; an index
//     outside the values is clamped into them by dispatch formation);
//   - tosa.max_pool2d becomes a windowed max reduction (after a pad with
//     the type's lowest value), float tosa.avg_pool2d a windowed sum
//     divided by the number of unpadded elements in each window, and tosa.fully_connected, conv2d and
//     depthwise_conv2d contractions initialised with the bias (the
//     convolutions after a pad with the input zero point);
//   - tosa.cond_if becomes scf.if and tosa.while_loop scf.while, their
//     single-element tensor<i1> conditions read with tensor.extract;
//   - tosa.argmax becomes a max reduction and a second reduction taking
//     the least index holding the max (or, as TOSA propagates NaN, the
//     first NaN);
//   - tosa.matmul becomes a batched contraction, zero points subtracted
//     from integer operands before the multiply.
//
// Integer semantics follow the TOSA specification: mul with a shift rounds
// half up in 64 bits, arithmetic_right_shift with round adds the last bit
// shifted out, negate applies its zero points and saturates, cast from
// float rounds half to even and saturates. Only static shapes are
// supported; anything else is refused with an error at the op.
package tosatolinalg

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/conversion/internal/rewrite"
	"github.com/goiree/goiree/compiler/dialect/tosa"
	"github.com/goiree/goiree/compiler/ir"
)

// Convert lowers every TOSA op in module.
func Convert(module *ir.Operation) error {
	var ops []*ir.Operation
	ir.Walk(module, func(o *ir.Operation) bool {
		if strings.HasPrefix(o.Name, "tosa.") {
			ops = append(ops, o)
		}
		return true
	})
	var shapes []*ir.Operation
	for _, o := range ops {
		if o.Name == "tosa.yield" {
			// Replaced by the lowering of the op it ends a region of.
			continue
		}
		if o.Name == "tosa.const_shape" {
			// Read by the ops that take it; removed once they are lowered.
			shapes = append(shapes, o)
			continue
		}
		c := &converter{root: module, op: o}
		if err := c.lower(); err != nil {
			return err
		}
	}
	for _, o := range shapes {
		if ir.HasUses(module, o.Results[0]) {
			return ir.OpErrorf(o, "shape is used by an op other than a TOSA op")
		}
		o.Remove()
	}
	return nil
}

type converter struct {
	root, op *ir.Operation
}

func (c *converter) errorf(format string, args ...any) error {
	return ir.OpErrorf(c.op, format, args...)
}

// emit inserts o before the op being converted.
func (c *converter) emit(o *ir.Operation) *ir.Operation { return rewrite.Emit(c.op, o) }

// replace makes r the converted op's result and removes the op.
func (c *converter) replace(r *ir.Value) { rewrite.Replace(c.root, c.op, r) }

func (c *converter) lower() error {
	name := strings.TrimPrefix(c.op.Name, "tosa.")
	switch name {
	case "cond_if":
		return c.condIf()
	case "while_loop":
		return c.whileLoop()
	}
	rt := tosa.Ranked(c.op.Results[0].Type)
	if rt == nil || ir.NumDynamicDims(rt) > 0 {
		return c.errorf("dynamic shapes ('%s') are not supported yet", ir.TypeString(c.op.Results[0].Type))
	}
	for i, v := range c.op.Operands {
		if tosa.IsShape(v.Type) {
			continue
		}
		if t := tosa.Ranked(v.Type); t == nil || ir.NumDynamicDims(t) > 0 {
			return c.errorf("operand #%d: dynamic shapes ('%s') are not supported yet", i, ir.TypeString(v.Type))
		}
	}
	switch name {
	case "const":
		a, _ := tosa.ConstValue(c.op)
		r := c.emit(ir.NewOp("arith.constant", nil, []ir.Type{rt}, []ir.NamedAttr{{Name: "value", Value: a}}))
		c.replace(r.Results[0])
		return nil
	case "reshape":
		src := c.op.Operands[0]
		if n, m := numElements(tosa.Ranked(src.Type)), numElements(rt); n != m {
			return c.errorf("reshape of %d elements to %d", n, m)
		}
		r := c.emit(ir.NewOp("flow.tensor.reshape", []*ir.Value{src}, []ir.Type{rt}, []ir.NamedAttr{
			{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 0, 0)},
		}))
		c.replace(r.Results[0])
		return nil
	case "transpose":
		return c.transpose(rt)
	case "reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_product", "reduce_all", "reduce_any":
		return c.reduce(strings.TrimPrefix(name, "reduce_"), rt)
	case "matmul":
		return c.matmul(rt)
	case "argmax":
		return c.argmax(rt)
	case "pad":
		return c.pad(rt)
	case "gather":
		return c.gather(rt)
	case "table":
		return c.table(rt)
	case "max_pool2d":
		return c.maxPool(rt)
	case "avg_pool2d":
		return c.avgPool(rt)
	case "fully_connected":
		return c.fullyConnected(rt)
	case "conv2d", "depthwise_conv2d":
		return c.conv(rt, name == "depthwise_conv2d")
	case "slice":
		return c.slice(rt)
	case "concat":
		return c.concat(rt)
	}
	data := len(c.op.Operands)
	if name == "mul" || name == "negate" {
		data = min(data, map[string]int{"mul": 2, "negate": 1}[name])
	}
	body, err := c.scalarBody(name, rt.Elem)
	if err != nil {
		return err
	}
	return c.elementwise(c.op.Operands[:data], rt, body)
}

func numElements(t *ir.TensorType) int64 {
	n := int64(1)
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

func identity(n int) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	for i := 0; i < n; i++ {
		m.Results = append(m.Results, &ir.AffineExpr{Kind: ir.AffineDim, Pos: i})
	}
	return m
}

// broadcastMap indexes an operand of shape in within loops over out: a
// size-1 dimension against a larger one is read at 0.
func broadcastMap(in, out []int64) *ir.AffineMap {
	m := identity(len(out))
	for d, s := range in {
		if s == 1 && out[d] != 1 {
			m.Results[d] = &ir.AffineExpr{Kind: ir.AffineConst, Value: 0}
		}
	}
	return m
}

func iterators(n int, reduction ...int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "parallel"
	}
	for _, r := range reduction {
		out[r] = "reduction"
	}
	return out
}

// builder appends scalar ops to a linalg.generic body.
type builder struct{ b *ir.Block }

func (x builder) op(name string, operands []*ir.Value, t ir.Type, attrs ...ir.NamedAttr) *ir.Value {
	o := ir.NewOp(name, operands, []ir.Type{t}, attrs)
	x.b.Append(o)
	return o.Results[0]
}

// bin applies a same-type binary op.
func (x builder) bin(name string, a, b *ir.Value) *ir.Value {
	return x.op(name, []*ir.Value{a, b}, a.Type)
}

func (x builder) un(name string, a *ir.Value) *ir.Value {
	return x.op(name, []*ir.Value{a}, a.Type)
}

// constant returns a scalar constant of type t (integer or float).
func (x builder) constant(t ir.Type, v float64) *ir.Value {
	var a ir.Attribute
	if _, ok := t.(ir.FloatType); ok {
		a = ir.FloatAttr{Value: v, Type: t}
	} else {
		a = ir.IntegerAttr{Value: int64(v), Type: t}
	}
	return x.op("arith.constant", nil, t, ir.NamedAttr{Name: "value", Value: a})
}

func (x builder) intConst(t ir.Type, v int64) *ir.Value {
	return x.op("arith.constant", nil, t, ir.NamedAttr{Name: "value", Value: ir.IntegerAttr{Value: v, Type: t}})
}

func (x builder) cmp(name string, pred int64, a, b *ir.Value) *ir.Value {
	return x.op(name, []*ir.Value{a, b}, ir.I1, ir.NamedAttr{Name: "predicate", Value: ir.IntegerAttr{Value: pred, Type: ir.I64}})
}

func (x builder) cast(name string, a *ir.Value, t ir.Type) *ir.Value {
	return x.op(name, []*ir.Value{a}, t)
}

// clampInt saturates a (of a wider type) to the signed range of width w.
func (x builder) clampInt(a *ir.Value, w int) *ir.Value {
	lo, hi := -(int64(1) << (w - 1)), int64(1)<<(w-1)-1
	a = x.bin("arith.maxsi", a, x.intConst(a.Type, lo))
	return x.bin("arith.minsi", a, x.intConst(a.Type, hi))
}

// scalarFunc computes one result element from the input elements.
type scalarFunc func(x builder, args []*ir.Value) (*ir.Value, error)

// elementwise emits the broadcasting linalg.generic of body over ins.
func (c *converter) elementwise(ins []*ir.Value, rt *ir.TensorType, body scalarFunc) error {
	var maps []*ir.AffineMap
	for _, v := range ins {
		maps = append(maps, broadcastMap(tosa.Ranked(v.Type).Shape, rt.Shape))
	}
	maps = append(maps, identity(len(rt.Shape)))
	out := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	g, err := c.generic(ins, out, maps, iterators(len(rt.Shape)), func(x builder, args []*ir.Value) (*ir.Value, error) {
		return body(x, args[:len(ins)])
	})
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}

// generic emits a linalg.generic with one output; body returns the value
// to yield from the block arguments (inputs, then the output element).
func (c *converter) generic(ins []*ir.Value, out *ir.Value, maps []*ir.AffineMap, iters []string, body scalarFunc) (*ir.Operation, error) {
	var mapAttrs, itAttrs []ir.Attribute
	for _, m := range maps {
		mapAttrs = append(mapAttrs, ir.AffineMapAttr{Map: m})
	}
	for _, it := range iters {
		itAttrs = append(itAttrs, ir.StringAttr{Value: it})
	}
	var argTypes []ir.Type
	for _, v := range append(append([]*ir.Value(nil), ins...), out) {
		argTypes = append(argTypes, tosa.Ranked(v.Type).Elem)
	}
	g := ir.NewOp("linalg.generic", append(append([]*ir.Value(nil), ins...), out), []ir.Type{out.Type}, []ir.NamedAttr{
		{Name: "indexing_maps", Value: &ir.ArrayAttr{Elems: mapAttrs}},
		{Name: "iterator_types", Value: &ir.ArrayAttr{Elems: itAttrs}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(ins), 1)},
	})
	b := g.AddRegion().AddBlock(argTypes...)
	for i, a := range b.Args {
		a.Name = fmt.Sprintf("in%d", i)
	}
	b.Args[len(b.Args)-1].Name = "out"
	r, err := body(builder{b}, b.Args)
	if err != nil {
		return nil, err
	}
	b.Append(ir.NewOp("linalg.yield", []*ir.Value{r}, nil, nil))
	ir.Walk(g, func(o *ir.Operation) bool {
		o.Pos = c.op.Pos
		return true
	})
	c.emit(g)
	return g, nil
}
