package tosatolinalg

import (
	"math"

	"github.com/goiree/goiree/compiler/dialect/tosa"
	"github.com/goiree/goiree/compiler/ir"
)

func dim(i int) *ir.AffineExpr { return &ir.AffineExpr{Kind: ir.AffineDim, Pos: i} }

func affineMap(n int, exprs ...*ir.AffineExpr) *ir.AffineMap {
	return &ir.AffineMap{NumDims: n, Results: exprs}
}

// loopIndex appends a linalg.index of loop d, cast to integer type t.
func (x builder) loopIndex(d int, t ir.Type) *ir.Value {
	i := x.op("linalg.index", nil, ir.IndexType{}, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: int64(d), Type: ir.I64}})
	return x.op("arith.index_cast", []*ir.Value{i}, t)
}

// index appends a linalg.index of loop d.
func (x builder) index(d int) *ir.Value {
	return x.op("linalg.index", nil, ir.IndexType{}, ir.NamedAttr{Name: "dim", Value: ir.IntegerAttr{Value: int64(d), Type: ir.I64}})
}

// gather computes out[n, w, c] = values[n, indices[n, w], c]: a generic
// over the result whose body reads values directly at the index
// (tensor.extract, one read per element; dispatch formation clamps an
// index outside values into it, where TOSA makes it an error).
func (c *converter) gather(rt *ir.TensorType) error {
	vt, it := tosa.Ranked(c.op.Operands[0].Type), tosa.Ranked(c.op.Operands[1].Type)
	if len(vt.Shape) != 3 || len(it.Shape) != 2 || len(rt.Shape) != 3 || it.Shape[0] != vt.Shape[0] ||
		rt.Shape[0] != vt.Shape[0] || rt.Shape[1] != it.Shape[1] || rt.Shape[2] != vt.Shape[2] || intWidth(it.Elem) == 0 {
		return c.errorf("expects values [N,K,C] and integer indices [N,W] giving [N,W,C]")
	}
	values := c.op.Operands[0]
	out := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	// loops (n, w, c)
	maps := []*ir.AffineMap{affineMap(3, dim(0), dim(1)), identity(3)}
	g, err := c.generic(c.op.Operands[1:2], out, maps, iterators(3), func(x builder, a []*ir.Value) (*ir.Value, error) {
		k := x.cast("arith.index_cast", a[0], ir.IndexType{})
		return x.op("tensor.extract", []*ir.Value{values, x.index(0), k, x.index(2)}, rt.Elem), nil
	})
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}

// table looks each input element up in a table, reading it directly at
// the computed entries. For i8 the table has 256 entries and out =
// table[x + 128]. For i16 it has 513 and the result (i32) interpolates:
// with i = (x + 32768) >> 7 and f = (x + 32768) & 127, out = table[i] *
// 128 + (table[i+1] - table[i]) * f, computed as table[i] * (128 - f) +
// table[i+1] * f. Every entry read is inside the table.
func (c *converter) table(rt *ir.TensorType) error {
	in, tt := tosa.Ranked(c.op.Operands[0].Type), tosa.Ranked(c.op.Operands[1].Type)
	w := intWidth(in.Elem)
	if len(tt.Shape) != 1 || !ir.TypesEqual(tt.Elem, in.Elem) ||
		!(w == 8 && tt.Shape[0] == 256 && intWidth(rt.Elem) == 8) && !(w == 16 && tt.Shape[0] == 513 && intWidth(rt.Elem) == 32) {
		return c.errorf("expects an i8 input with a 256-entry i8 table, or an i16 input with a 513-entry i16 table giving i32")
	}
	table := c.op.Operands[1]
	out := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	n := len(in.Shape)
	g, err := c.generic(c.op.Operands[:1], out, []*ir.AffineMap{identity(n), identity(n)}, iterators(n), func(x builder, a []*ir.Value) (*ir.Value, error) {
		i32 := ir.IntegerType{Width: 32}
		v := x.cast("arith.extsi", a[0], i32)
		entry := func(i *ir.Value) *ir.Value {
			return x.op("tensor.extract", []*ir.Value{table, x.cast("arith.index_cast", i, ir.IndexType{})}, tt.Elem)
		}
		if w == 8 {
			return entry(x.bin("arith.addi", v, x.intConst(i32, 128))), nil
		}
		u := x.bin("arith.addi", v, x.intConst(i32, 32768))
		i := x.bin("arith.shrsi", u, x.intConst(i32, 7))
		f := x.bin("arith.andi", u, x.intConst(i32, 127))
		lo := x.cast("arith.extsi", entry(i), i32)
		hi := x.cast("arith.extsi", entry(x.bin("arith.addi", i, x.intConst(i32, 1))), i32)
		return x.bin("arith.addi", x.bin("arith.muli", lo, x.bin("arith.subi", x.intConst(i32, 128), f)), x.bin("arith.muli", hi, f)), nil
	})
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}

// ints reads an integer-array attribute given as array<i64: ...> (now) or
// [a, b, ...] (earlier).
func (c *converter) ints(name string, n int) ([]int64, error) {
	var out []int64
	switch a := c.op.Attr(name).(type) {
	case *ir.DenseArrayAttr:
		out = a.Values
	case *ir.ArrayAttr:
		for _, e := range a.Elems {
			out = append(out, int64(number(e)))
		}
	}
	if len(out) != n {
		return nil, c.errorf("requires '%s' with %d integers", name, n)
	}
	return out, nil
}

// maxPool lowers max_pool2d over an NHWC input: the input is padded with
// the element type's lowest value, then each output element is the max of
// its kernel window.
func (c *converter) maxPool(rt *ir.TensorType) error {
	in := tosa.Ranked(c.op.Operands[0].Type)
	kernel, err := c.ints("kernel", 2)
	if err != nil {
		return err
	}
	stride, err := c.ints("stride", 2)
	if err != nil {
		return err
	}
	pad, err := c.ints("pad", 4)
	if err != nil {
		return err
	}
	if len(in.Shape) != 4 || len(rt.Shape) != 4 {
		return c.errorf("expects NHWC input and result")
	}
	ph, pw := in.Shape[1]+pad[0]+pad[1], in.Shape[2]+pad[2]+pad[3]
	for i, p := range []int64{ph, pw} {
		if stride[i] <= 0 || kernel[i] <= 0 || (p-kernel[i])/stride[i]+1 != rt.Shape[1+i] || rt.Shape[0] != in.Shape[0] || rt.Shape[3] != in.Shape[3] {
			return c.errorf("result shape %v does not fit input %v, kernel %v, stride %v and pad %v", rt.Shape, in.Shape, kernel, stride, pad)
		}
	}
	lowest := math.Inf(-1)
	fl := isFloat(in.Elem)
	if !fl {
		lowest = -math.Ldexp(1, intWidth(in.Elem)-1)
	}
	src := c.op.Operands[0]
	if pad[0]+pad[1]+pad[2]+pad[3] != 0 {
		pt := &ir.TensorType{Shape: []int64{in.Shape[0], ph, pw, in.Shape[3]}, Elem: in.Elem}
		dest, err := c.fill(pt, lowest)
		if err != nil {
			return err
		}
		src = c.emit(ir.NewOp("tensor.insert_slice", []*ir.Value{src, dest}, []ir.Type{pt}, []ir.NamedAttr{
			{Name: "static_offsets", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{0, pad[0], pad[2], 0}}},
			{Name: "static_sizes", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: append([]int64(nil), in.Shape...)}},
			{Name: "static_strides", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{1, 1, 1, 1}}},
			{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, 0, 0, 0)},
		})).Results[0]
	}
	acc, err := c.fill(rt, lowest)
	if err != nil {
		return err
	}
	window := func(out, k int, s int64) *ir.AffineExpr {
		scaled := &ir.AffineExpr{Kind: ir.AffineMul, LHS: dim(out), RHS: &ir.AffineExpr{Kind: ir.AffineConst, Value: s}}
		return &ir.AffineExpr{Kind: ir.AffineAdd, LHS: scaled, RHS: dim(k)}
	}
	// loops (n, oh, ow, c, kh, kw); as in linalg's pooling ops, an unread
	// [KH, KW] operand gives the window loops their sizes.
	win := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{&ir.TensorType{Shape: kernel, Elem: in.Elem}}, nil)).Results[0]
	maps := []*ir.AffineMap{
		affineMap(6, dim(0), window(1, 4, stride[0]), window(2, 5, stride[1]), dim(3)),
		affineMap(6, dim(4), dim(5)),
		affineMap(6, dim(0), dim(1), dim(2), dim(3)),
	}
	comb := "arith.maxsi"
	if fl {
		comb = "arith.maximumf"
	}
	g, err := c.generic([]*ir.Value{src, win}, acc, maps, iterators(6, 4, 5), func(x builder, a []*ir.Value) (*ir.Value, error) {
		return x.bin(comb, a[2], a[0]), nil
	})
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}

// fullyConnected computes out[n, o] = bias[o] + sum_i input[n, i] *
// weight[o, i] (float operands; the earlier era's op).
func (c *converter) fullyConnected(rt *ir.TensorType) error {
	in, wt, bt := tosa.Ranked(c.op.Operands[0].Type), tosa.Ranked(c.op.Operands[1].Type), tosa.Ranked(c.op.Operands[2].Type)
	if len(in.Shape) != 2 || len(wt.Shape) != 2 || len(bt.Shape) != 1 || len(rt.Shape) != 2 || in.Shape[1] != wt.Shape[1] ||
		rt.Shape[0] != in.Shape[0] || rt.Shape[1] != wt.Shape[0] || (bt.Shape[0] != 1 && bt.Shape[0] != wt.Shape[0]) {
		return c.errorf("expects input [N,IC], weight [OC,IC] and bias [OC] giving [N,OC]")
	}
	if !isFloat(rt.Elem) {
		return c.errorf("integer fully_connected is not supported yet")
	}
	out := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	bm := affineMap(2, dim(1))
	if bt.Shape[0] == 1 && rt.Shape[1] != 1 {
		bm = affineMap(2, &ir.AffineExpr{Kind: ir.AffineConst, Value: 0})
	}
	init, err := c.generic(c.op.Operands[2:3], out, []*ir.AffineMap{bm, identity(2)}, iterators(2),
		func(x builder, a []*ir.Value) (*ir.Value, error) { return a[0], nil })
	if err != nil {
		return err
	}
	// loops (n, o, i)
	maps := []*ir.AffineMap{affineMap(3, dim(0), dim(2)), affineMap(3, dim(1), dim(2)), affineMap(3, dim(0), dim(1))}
	g, err := c.generic(c.op.Operands[:2], init.Results[0], maps, iterators(3, 2), func(x builder, a []*ir.Value) (*ir.Value, error) {
		return x.bin("arith.addf", a[2], x.bin("arith.mulf", a[0], a[1])), nil
	})
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}

// avgPool lowers float avg_pool2d over an NHWC input: a windowed sum over
// the input padded with zeros, then each sum divided by how many of its
// window's elements are not padding, as TOSA defines the average.
func (c *converter) avgPool(rt *ir.TensorType) error {
	in := tosa.Ranked(c.op.Operands[0].Type)
	if !isFloat(in.Elem) {
		return c.errorf("integer avg_pool2d is not supported yet")
	}
	kernel, err := c.ints("kernel", 2)
	if err != nil {
		return err
	}
	stride, err := c.ints("stride", 2)
	if err != nil {
		return err
	}
	pad, err := c.ints("pad", 4)
	if err != nil {
		return err
	}
	if len(in.Shape) != 4 || len(rt.Shape) != 4 {
		return c.errorf("expects NHWC input and result")
	}
	for i, p := range []int64{in.Shape[1] + pad[0] + pad[1], in.Shape[2] + pad[2] + pad[3]} {
		if stride[i] <= 0 || kernel[i] <= 0 || (p-kernel[i])/stride[i]+1 != rt.Shape[1+i] || rt.Shape[0] != in.Shape[0] || rt.Shape[3] != in.Shape[3] {
			return c.errorf("result shape %v does not fit input %v, kernel %v, stride %v and pad %v", rt.Shape, in.Shape, kernel, stride, pad)
		}
	}
	src, err := c.padNHWC(c.op.Operands[0], pad, 0)
	if err != nil {
		return err
	}
	acc, err := c.fill(rt, 0)
	if err != nil {
		return err
	}
	window := func(out, k int, s int64) *ir.AffineExpr {
		scaled := &ir.AffineExpr{Kind: ir.AffineMul, LHS: dim(out), RHS: &ir.AffineExpr{Kind: ir.AffineConst, Value: s}}
		return &ir.AffineExpr{Kind: ir.AffineAdd, LHS: scaled, RHS: dim(k)}
	}
	win := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{&ir.TensorType{Shape: kernel, Elem: in.Elem}}, nil)).Results[0]
	maps := []*ir.AffineMap{
		affineMap(6, dim(0), window(1, 4, stride[0]), window(2, 5, stride[1]), dim(3)),
		affineMap(6, dim(4), dim(5)),
		affineMap(6, dim(0), dim(1), dim(2), dim(3)),
	}
	sum, err := c.generic([]*ir.Value{src, win}, acc, maps, iterators(6, 4, 5), func(x builder, a []*ir.Value) (*ir.Value, error) {
		return x.bin("arith.addf", a[2], a[0]), nil
	})
	if err != nil {
		return err
	}
	out := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	g, err := c.generic(sum.Results, out, []*ir.AffineMap{identity(4), identity(4)}, iterators(4), func(x builder, a []*ir.Value) (*ir.Value, error) {
		i64 := ir.IntegerType{Width: 64}
		// Unpadded rows of the window starting at o*s in padded
		// coordinates: min(o*s + k, p + n) - max(o*s, p).
		count := func(d int, s, k, p, n int64) *ir.Value {
			start := x.bin("arith.muli", x.loopIndex(d, i64), x.intConst(i64, s))
			hi := x.bin("arith.minsi", x.bin("arith.addi", start, x.intConst(i64, k)), x.intConst(i64, p+n))
			return x.bin("arith.subi", hi, x.bin("arith.maxsi", start, x.intConst(i64, p)))
		}
		n := x.bin("arith.muli", count(1, stride[0], kernel[0], pad[0], in.Shape[1]), count(2, stride[1], kernel[1], pad[2], in.Shape[2]))
		return x.bin("arith.divf", a[0], x.cast("arith.sitofp", n, rt.Elem)), nil
	})
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}
