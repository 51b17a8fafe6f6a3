package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// reduceWindow lowers a reduce_window of N operands and N rank-0 init
// values (no base dilation) as pooling: each operand is padded with its
// init value where padding asks for it, and one linalg.generic with the
// loops (output dimensions..., window dimensions...) reads
//
//	in[o*stride + w*window_dilation ...]
//
// and combines it, through the op's body, into results filled with the
// init values. The window loops take their extents from a tensor.empty
// of the window's shape that the generic reads but does not use; window
// dimensions of size 1 get no loop.
func (c *converter) reduceWindow() error {
	n := len(c.op.Results)
	if n == 0 || len(c.op.Operands) != 2*n {
		return c.errorf("expects as many operands as init values and results, found %d operands for %d results", len(c.op.Operands), n)
	}
	ins, inits := c.op.Operands[:n], c.op.Operands[n:]
	in0 := stablehlo.Ranked(ins[0].Type)
	rank := len(in0.Shape)
	rt0 := stablehlo.Ranked(c.op.Results[0].Type)
	var elems []ir.Type
	for i := 0; i < n; i++ {
		t, init, rt := stablehlo.Ranked(ins[i].Type), stablehlo.Ranked(inits[i].Type), stablehlo.Ranked(c.op.Results[i].Type)
		if !sameType(&ir.TensorType{Shape: t.Shape, Elem: in0.Elem}, in0) || !sameType(&ir.TensorType{Shape: rt.Shape, Elem: rt0.Elem}, rt0) {
			return c.errorf("operands and results must each have one shape, found '%s' and '%s'", ir.TypeString(t), ir.TypeString(rt))
		}
		if len(init.Shape) != 0 || !sameType(init.Elem, t.Elem) || !sameType(rt.Elem, t.Elem) {
			return c.errorf("init value #%d '%s' and result #%d '%s' must be rank-0 and of the element type of operand #%d '%s'",
				i, ir.TypeString(init), i, ir.TypeString(rt), i, ir.TypeString(t))
		}
		elems = append(elems, t.Elem)
	}
	if len(rt0.Shape) != rank {
		return c.errorf("result '%s' must have the rank of the operand '%s'", ir.TypeString(rt0), ir.TypeString(in0))
	}
	window, err := c.intsOfLen("window_dimensions", rank)
	if err != nil {
		return err
	}
	strides, err := c.intsOr("window_strides", rank, 1)
	if err != nil {
		return err
	}
	bdil, err := c.intsOr("base_dilations", rank, 1)
	if err != nil {
		return err
	}
	wdil, err := c.intsOr("window_dilations", rank, 1)
	if err != nil {
		return err
	}
	pad, err := c.intsOr("padding", 2*rank, 0)
	if err != nil {
		return err
	}
	lo, hi := make([]int64, rank), make([]int64, rank)
	for d := 0; d < rank; d++ {
		if bdil[d] != 1 {
			return c.errorf("base_dilations %v are not supported yet (only 1)", bdil)
		}
		if window[d] < 1 || strides[d] < 1 || wdil[d] < 1 {
			return c.errorf("window_dimensions %v, window_strides %v and window_dilations %v must be positive", window, strides, wdil)
		}
		lo[d], hi[d] = pad[2*d], pad[2*d+1]
		if lo[d] < 0 || hi[d] < 0 {
			return c.errorf("negative padding %v is not supported yet", pad)
		}
		padded := in0.Shape[d] + lo[d] + hi[d]
		extent := (window[d]-1)*wdil[d] + 1
		want := int64(0)
		if padded >= extent {
			want = (padded-extent)/strides[d] + 1
		}
		if rt0.Shape[d] != want {
			return c.errorf("dimension %d: a window of %d (dilation %d) by stride %d over %d (padded) gives %d, but the result '%s' has %d",
				d, window[d], wdil[d], strides[d], padded, want, ir.TypeString(rt0), rt0.Shape[d])
		}
	}
	body, err := c.regionBody(elems)
	if err != nil {
		return err
	}
	var wshape []int64
	loopOf := make([]int, rank)
	for d, w := range window {
		loopOf[d] = -1
		if w > 1 {
			loopOf[d] = rank + len(wshape)
			wshape = append(wshape, w)
		}
	}
	loops := rank + len(wshape)
	inMap := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
	for d := 0; d < rank; d++ {
		e := dim(d)
		if strides[d] != 1 {
			e = &ir.AffineExpr{Kind: ir.AffineMul, LHS: e, RHS: affConst(strides[d])}
		}
		if l := loopOf[d]; l >= 0 {
			w := dim(l)
			if wdil[d] != 1 {
				w = &ir.AffineExpr{Kind: ir.AffineMul, LHS: w, RHS: affConst(wdil[d])}
			}
			e = &ir.AffineExpr{Kind: ir.AffineAdd, LHS: e, RHS: w}
		}
		inMap.Results = append(inMap.Results, e)
	}
	var padded []*ir.Value
	for i, v := range ins {
		p, err := c.padTo(v, lo, hi, func(x builder, a []*ir.Value) (*ir.Value, error) { return a[0], nil }, inits[i])
		if err != nil {
			return err
		}
		padded = append(padded, p)
	}
	outMap := identity(rank)
	outMap.NumDims = loops
	iters := make([]string, loops)
	for i := range iters {
		iters[i] = "parallel"
		if i >= rank {
			iters[i] = "reduction"
		}
	}
	var outs []*ir.Value
	for i, r := range c.op.Results {
		filled, err := c.fill(stablehlo.Ranked(r.Type), identity(rank), nil, nil, inits[i])
		if err != nil {
			return err
		}
		outs = append(outs, filled)
	}
	inputs := append([]*ir.Value(nil), padded...)
	maps := repeat(inMap, n)
	if len(wshape) > 0 {
		wm := &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{}}
		for l := rank; l < loops; l++ {
			wm.Results = append(wm.Results, dim(l))
		}
		win := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{&ir.TensorType{Shape: wshape, Elem: in0.Elem}}, nil)).Results[0]
		inputs = append(inputs, win)
		maps = append(maps, wm)
	}
	rs, err := c.genericOps(inputs, append(maps, repeat(outMap, n)...), outs, iters, func(x builder, a []*ir.Value) ([]*ir.Value, error) {
		accs := a[len(inputs):]
		return body(x, append(append([]*ir.Value(nil), accs...), a[:n]...))
	})
	if err != nil {
		return err
	}
	c.replaceAll(rs)
	return nil
}
