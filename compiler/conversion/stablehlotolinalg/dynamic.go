package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// staticOnly names the ops whose lowerings need every size at compile
// time: their results' extents are not the extents of an operand
// dimension a loop reads directly (reshape, pad, slice, concatenation,
// iota, broadcasting, rng, rng_bit_generator), their bodies hold sizes as constants
// (reverse, dynamic_slice, dynamic_update_slice, gather), a size-1 dimension
// would broadcast only when its size is known (CHLO), their windows are
// laid out from static sizes (convolution, reduce_window), or they are
// custom calls.
var staticOnly = map[string]bool{
	"reshape": true, "pad": true, "slice": true, "concatenate": true, "iota": true,
	"broadcast": true, "broadcast_in_dim": true, "convolution": true, "reduce_window": true,
	"rng": true, "reverse": true, "dynamic_slice": true, "dynamic_update_slice": true, "gather": true,
	"custom_call": true, "rng_bit_generator": true,
}

// sameSize reports whether two extents can be equal: equal, or either
// dynamic (then the kernel checks them when it runs).
func sameSize(a, b int64) bool { return a == b || a == ir.Dynamic || b == ir.Dynamic }

// index emits an index constant.
func (c *converter) index(v int64) *ir.Value {
	return c.emit(ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(v)}})).Results[0]
}

// empty emits the tensor.empty of type rt that a linalg op writes through
// outMap while reading ins through inMaps. A dynamic dimension of rt is
// indexed by a loop; its size is that of an input dimension the same
// loop indexes directly (a tensor.dim, or a constant when the input's
// extent is static there).
func (c *converter) empty(rt *ir.TensorType, outMap *ir.AffineMap, ins []*ir.Value, inMaps []*ir.AffineMap) (*ir.Value, error) {
	var dyn []*ir.Value
	for i, s := range rt.Shape {
		if s != ir.Dynamic {
			continue
		}
		v := c.loopSize(outMap.Results[i], ins, inMaps)
		if v == nil {
			return nil, c.errorf("dynamic dimension %d of the result '%s' is not the size of an operand dimension", i, ir.TypeString(rt))
		}
		dyn = append(dyn, v)
	}
	return c.emit(ir.NewOp("tensor.empty", dyn, []ir.Type{rt}, nil)).Results[0], nil
}

// loopSize returns the extent of the loop e (a loop index) as the size of
// the first input dimension that loop indexes directly, or nil.
func (c *converter) loopSize(e *ir.AffineExpr, ins []*ir.Value, inMaps []*ir.AffineMap) *ir.Value {
	if e.Kind != ir.AffineDim {
		return nil
	}
	for j, m := range inMaps {
		for p, r := range m.Results {
			if r.Kind != ir.AffineDim || r.Pos != e.Pos {
				continue
			}
			t := stablehlo.Ranked(ins[j].Type)
			if t.Shape[p] != ir.Dynamic {
				return c.index(t.Shape[p])
			}
			return c.emit(ir.NewOp("tensor.dim", []*ir.Value{ins[j], c.index(int64(p))}, []ir.Type{ir.IndexType{}}, nil)).Results[0]
		}
	}
	return nil
}
