package linalg

import (
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// Convolution and pooling ops: their inputs are read at
// output position * stride + window position * dilation, as MLIR's
// named-op definitions have it.

func constExpr(v int64) *ir.AffineExpr { return &ir.AffineExpr{Kind: ir.AffineConst, Value: v} }

// window returns out * stride + win * dilation over loop dimensions.
// (A factor of 1 is left out, as MLIR's simplified maps print it.)
func window(out, win int, stride, dilation int64) *ir.AffineExpr {
	scaled := func(d int, c int64) *ir.AffineExpr {
		if c == 1 {
			return dimExpr(d)
		}
		return &ir.AffineExpr{Kind: ir.AffineMul, LHS: dimExpr(d), RHS: constExpr(c)}
	}
	return &ir.AffineExpr{Kind: ir.AffineAdd, LHS: scaled(out, stride), RHS: scaled(win, dilation)}
}

// exprMap builds a map over n loops from expressions.
func exprMap(n int, es ...*ir.AffineExpr) *ir.AffineMap {
	return &ir.AffineMap{NumDims: n, Results: es}
}

// stridesDilations reads the op's two-element strides and dilations (1
// when absent), as dense<..> : tensor/vector<2xi64> or array<i64: ..>.
func stridesDilations(op *ir.Operation) (strides, dilations [2]int64, err error) {
	read := func(name string) ([2]int64, error) {
		out := [2]int64{1, 1}
		var vals []int64
		switch a := op.Attr(name).(type) {
		case nil:
			return out, nil
		case *ir.DenseArrayAttr:
			vals = a.Values
		case *ir.DenseAttr:
			for _, e := range a.Elements {
				v, ok := e.(ir.IntegerAttr)
				if !ok {
					return out, ir.OpErrorf(op, "'%s' must hold integers, found %s", name, ir.AttrString(a))
				}
				vals = append(vals, v.Value)
			}
			if a.Splat && len(vals) == 1 {
				vals = append(vals, vals[0])
			}
		default:
			return out, ir.OpErrorf(op, "'%s' must be a dense i64 attribute of two elements, found %s", name, ir.AttrString(a))
		}
		if len(vals) != 2 || vals[0] <= 0 || vals[1] <= 0 {
			return out, ir.OpErrorf(op, "'%s' must be two positive integers, found %v", name, vals)
		}
		copy(out[:], vals)
		return out, nil
	}
	if strides, err = read("strides"); err != nil {
		return
	}
	dilations, err = read("dilations")
	return
}

// convDefinition returns the definition of a convolution or pooling op.
func convDefinition(op *ir.Operation) (*Definition, error) {
	if err := expectCounts(op, 2, 1); err != nil {
		return nil, err
	}
	s, d, err := stridesDilations(op)
	if err != nil {
		return nil, err
	}
	switch name := strings.TrimPrefix(op.Name, "linalg."); {
	case name == "conv_2d_nhwc_hwcf":
		if err := expectRanks(op, 4, 4, 4); err != nil {
			return nil, err
		}
		// (n, oh, ow, f, kh, kw, c)
		return &Definition{Maps: []*ir.AffineMap{
			exprMap(7, dimExpr(0), window(1, 4, s[0], d[0]), window(2, 5, s[1], d[1]), dimExpr(6)),
			dimsMap(7, 4, 5, 6, 3), dimsMap(7, 0, 1, 2, 3)}, Iterators: iterators("pppprrr")}, nil
	case name == "conv_2d_nchw_fchw":
		if err := expectRanks(op, 4, 4, 4); err != nil {
			return nil, err
		}
		// (n, f, oh, ow, c, kh, kw)
		return &Definition{Maps: []*ir.AffineMap{
			exprMap(7, dimExpr(0), dimExpr(4), window(2, 5, s[0], d[0]), window(3, 6, s[1], d[1])),
			dimsMap(7, 1, 4, 5, 6), dimsMap(7, 0, 1, 2, 3)}, Iterators: iterators("pppprrr")}, nil
	case name == "depthwise_conv_2d_nhwc_hwc":
		if err := expectRanks(op, 4, 3, 4); err != nil {
			return nil, err
		}
		// (n, oh, ow, c, kh, kw)
		return &Definition{Maps: []*ir.AffineMap{
			exprMap(6, dimExpr(0), window(1, 4, s[0], d[0]), window(2, 5, s[1], d[1]), dimExpr(3)),
			dimsMap(6, 4, 5, 3), dimsMap(6, 0, 1, 2, 3)}, Iterators: iterators("pppprr")}, nil
	case strings.HasPrefix(name, "pooling_nhwc_"):
		if err := expectRanks(op, 4, 2, 4); err != nil {
			return nil, err
		}
		// (n, oh, ow, c, kh, kw); the second input only sizes the window.
		return &Definition{Maps: []*ir.AffineMap{
			exprMap(6, dimExpr(0), window(1, 4, s[0], d[0]), window(2, 5, s[1], d[1]), dimExpr(3)),
			dimsMap(6, 4, 5), dimsMap(6, 0, 1, 2, 3)}, Iterators: iterators("pppprr")}, nil
	case strings.HasPrefix(name, "pooling_nchw_"):
		if err := expectRanks(op, 4, 2, 4); err != nil {
			return nil, err
		}
		// (n, c, oh, ow, kh, kw)
		return &Definition{Maps: []*ir.AffineMap{
			exprMap(6, dimExpr(0), dimExpr(1), window(2, 4, s[0], d[0]), window(3, 5, s[1], d[1])),
			dimsMap(6, 4, 5), dimsMap(6, 0, 1, 2, 3)}, Iterators: iterators("pppprr")}, nil
	}
	return nil, ir.OpErrorf(op, "'%s' is not a linalg structured op", op.Name)
}

func isConvLike(name string) bool {
	return strings.HasPrefix(name, "linalg.conv_") || strings.HasPrefix(name, "linalg.depthwise_conv_") || strings.HasPrefix(name, "linalg.pooling_")
}

// verifyWindows checks that every operand index the maps compute from
// loop indices (a convolution's window) stays inside its dimension when
// the sizes are static.
func verifyWindows(op *ir.Operation, d *Definition, ranges []int64) error {
	for oi, m := range d.Maps {
		sh := shape(op.Operands[oi].Type)
		for ri, e := range m.Results {
			if e.Kind == ir.AffineDim || e.Kind == ir.AffineConst || ri >= len(sh) || sh[ri] == ir.Dynamic {
				continue
			}
			hi := make([]int64, len(ranges))
			known := true
			for l, r := range ranges {
				if r == ir.Dynamic {
					known = false
				}
				if r == 0 {
					known = false // no iteration reads anything
				}
				hi[l] = r - 1
			}
			if !known {
				continue
			}
			v, err := e.Eval(hi, nil)
			if err != nil {
				continue
			}
			if v >= sh[ri] {
				return ir.OpErrorf(op, "operand #%d ('%s') is too small: its dimension %d (size %d) is indexed by %s up to %d",
					oi, ir.TypeString(op.Operands[oi].Type), ri, sh[ri], e, v)
			}
		}
	}
	return nil
}
