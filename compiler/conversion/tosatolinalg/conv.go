package tosatolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/tosa"
	"github.com/goiree/goiree/compiler/ir"
)

// padNHWC pads the height and width of an NHWC tensor by pad (top, bottom,
// left, right) with v.
func (c *converter) padNHWC(src *ir.Value, pad []int64, v float64) (*ir.Value, error) {
	in := tosa.Ranked(src.Type)
	if pad[0]+pad[1]+pad[2]+pad[3] == 0 {
		return src, nil
	}
	pt := &ir.TensorType{Shape: []int64{in.Shape[0], in.Shape[1] + pad[0] + pad[1], in.Shape[2] + pad[2] + pad[3], in.Shape[3]}, Elem: in.Elem}
	dest, err := c.fill(pt, v)
	if err != nil {
		return nil, err
	}
	return c.emit(ir.NewOp("tensor.insert_slice", []*ir.Value{src, dest}, []ir.Type{pt}, []ir.NamedAttr{
		{Name: "static_offsets", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{0, pad[0], pad[2], 0}}},
		{Name: "static_sizes", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: append([]int64(nil), in.Shape...)}},
		{Name: "static_strides", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{1, 1, 1, 1}}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, 0, 0, 0)},
	})).Results[0], nil
}

// conv lowers conv2d (weight [OC,KH,KW,IC], result [N,OH,OW,OC]) and
// depthwise_conv2d (weight [KH,KW,C,M], result [N,OH,OW,C*M], computed as
// [N,OH,OW,C,M] and reshaped): the input is padded with its zero point,
// the result initialised with the bias, and integer operands have their
// zero points subtracted after extension to the result type.
func (c *converter) conv(rt *ir.TensorType, depthwise bool) error {
	in, wt, bt := tosa.Ranked(c.op.Operands[0].Type), tosa.Ranked(c.op.Operands[1].Type), tosa.Ranked(c.op.Operands[2].Type)
	pad, err := c.ints("pad", 4)
	if err != nil {
		return err
	}
	stride, err := c.ints("stride", 2)
	if err != nil {
		return err
	}
	dil, err := c.ints("dilation", 2)
	if err != nil {
		return err
	}
	inZP, _, err := c.scalar(3, "input_zp")
	if err != nil {
		return err
	}
	wZP, _, err := c.scalar(4, "weight_zp")
	if err != nil {
		return err
	}
	if len(in.Shape) != 4 || len(wt.Shape) != 4 || len(bt.Shape) != 1 || len(rt.Shape) != 4 {
		return c.errorf("expects NHWC input, a rank-4 weight, a rank-1 bias and an NHWC result")
	}
	kh, kw, ic, oc := wt.Shape[1], wt.Shape[2], wt.Shape[3], wt.Shape[0]
	mult := int64(1)
	if depthwise {
		kh, kw, ic, mult = wt.Shape[0], wt.Shape[1], wt.Shape[2], wt.Shape[3]
		oc = ic * mult
	}
	for i, ext := range []int64{in.Shape[1] + pad[0] + pad[1], in.Shape[2] + pad[2] + pad[3]} {
		k := []int64{kh, kw}[i]
		if stride[i] <= 0 || dil[i] <= 0 || (ext-(k-1)*dil[i]-1)/stride[i]+1 != rt.Shape[1+i] {
			return c.errorf("result shape %v does not fit input %v, weight %v, pad %v, stride %v and dilation %v", rt.Shape, in.Shape, wt.Shape, pad, stride, dil)
		}
	}
	if in.Shape[3] != ic || rt.Shape[0] != in.Shape[0] || rt.Shape[3] != oc || (bt.Shape[0] != oc && bt.Shape[0] != 1) {
		return c.errorf("channels do not match: input %v, weight %v, bias %v, result %v", in.Shape, wt.Shape, bt.Shape, rt.Shape)
	}
	fl := isFloat(rt.Elem)
	if !fl && (isFloat(in.Elem) || intWidth(rt.Elem) < intWidth(in.Elem)) {
		return c.errorf("integer convolutions need integer operands no wider than the result")
	}
	src, err := c.padNHWC(c.op.Operands[0], pad, inZP)
	if err != nil {
		return err
	}
	// The accumulator: [N,OH,OW,OC], or [N,OH,OW,C,M] for depthwise, with
	// the bias broadcast along all but the channel dimensions.
	acct := rt
	biasMap := affineMap(4, dim(3))
	if depthwise {
		acct = &ir.TensorType{Shape: []int64{rt.Shape[0], rt.Shape[1], rt.Shape[2], ic, mult}, Elem: rt.Elem}
		// bias[c*M + m]
		cm := &ir.AffineExpr{Kind: ir.AffineAdd, LHS: &ir.AffineExpr{Kind: ir.AffineMul, LHS: dim(3), RHS: &ir.AffineExpr{Kind: ir.AffineConst, Value: mult}}, RHS: dim(4)}
		biasMap = affineMap(5, cm)
	}
	if bt.Shape[0] == 1 && oc != 1 {
		biasMap = affineMap(biasMap.NumDims, &ir.AffineExpr{Kind: ir.AffineConst, Value: 0})
	}
	empty := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{acct}, nil)).Results[0]
	init, err := c.generic(c.op.Operands[2:3], empty, []*ir.AffineMap{biasMap, identity(len(acct.Shape))}, iterators(len(acct.Shape)),
		func(x builder, a []*ir.Value) (*ir.Value, error) { return a[0], nil })
	if err != nil {
		return err
	}
	window := func(out, k int, s, d int64) *ir.AffineExpr {
		o := &ir.AffineExpr{Kind: ir.AffineMul, LHS: dim(out), RHS: &ir.AffineExpr{Kind: ir.AffineConst, Value: s}}
		w := &ir.AffineExpr{Kind: ir.AffineMul, LHS: dim(k), RHS: &ir.AffineExpr{Kind: ir.AffineConst, Value: d}}
		return &ir.AffineExpr{Kind: ir.AffineAdd, LHS: o, RHS: w}
	}
	var maps []*ir.AffineMap
	var iters []string
	if depthwise {
		// loops (n, oh, ow, c, m, kh, kw)
		maps = []*ir.AffineMap{
			affineMap(7, dim(0), window(1, 5, stride[0], dil[0]), window(2, 6, stride[1], dil[1]), dim(3)),
			affineMap(7, dim(5), dim(6), dim(3), dim(4)),
			affineMap(7, dim(0), dim(1), dim(2), dim(3), dim(4)),
		}
		iters = iterators(7, 5, 6)
	} else {
		// loops (n, oh, ow, oc, kh, kw, ic)
		maps = []*ir.AffineMap{
			affineMap(7, dim(0), window(1, 4, stride[0], dil[0]), window(2, 5, stride[1], dil[1]), dim(6)),
			affineMap(7, dim(3), dim(4), dim(5), dim(6)),
			affineMap(7, dim(0), dim(1), dim(2), dim(3)),
		}
		iters = iterators(7, 4, 5, 6)
	}
	g, err := c.generic([]*ir.Value{src, c.op.Operands[1]}, init.Results[0], maps, iters, func(x builder, a []*ir.Value) (*ir.Value, error) {
		if fl {
			return x.bin("arith.addf", a[2], x.bin("arith.mulf", a[0], a[1])), nil
		}
		ext := func(e *ir.Value, zp float64) *ir.Value {
			if intWidth(e.Type) < intWidth(rt.Elem) {
				e = x.cast("arith.extsi", e, rt.Elem)
			}
			if zp != 0 {
				e = x.bin("arith.subi", e, x.intConst(rt.Elem, int64(zp)))
			}
			return e
		}
		return x.bin("arith.addi", a[2], x.bin("arith.muli", ext(a[0], inZP), ext(a[1], wZP))), nil
	})
	if err != nil {
		return err
	}
	r := g.Results[0]
	if depthwise {
		r = c.emit(ir.NewOp("flow.tensor.reshape", []*ir.Value{r}, []ir.Type{rt}, []ir.NamedAttr{
			{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 0, 0)},
		})).Results[0]
	}
	c.replace(r)
	return nil
}
