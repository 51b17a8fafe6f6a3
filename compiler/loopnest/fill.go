package loopnest

import (
	"math"

	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
)

// A linalg op that accumulates onto a zero fill of an empty tensor (how
// matmuls, convolutions and reductions are written: fill, then the op
// outs(%fill)) needs no init binding: the contract starts an output
// without init from zero. Forming the fill as a dispatch of its own would
// write the whole output once more and read it back; instead the
// consumer's kernel takes the output without init, and the fill, left
// without uses, is removed.

// zeroFill returns the tensor.empty that v zero-fills when v is the result
// of a linalg.fill of a zero constant (integer 0, or +0.0) into a
// tensor.empty, else nil.
func zeroFill(v *ir.Value) *ir.Value {
	fill := v.Op
	if fill == nil || fill.Name != "linalg.fill" {
		return nil
	}
	ins, outs := linalg.Ins(fill), linalg.Outs(fill)
	if len(ins) != 1 || len(outs) != 1 || outs[0].Op == nil || outs[0].Op.Name != "tensor.empty" {
		return nil
	}
	c := ins[0].Op
	if c == nil || c.Name != "arith.constant" {
		return nil
	}
	switch a := c.Attr("value").(type) {
	case ir.FloatAttr:
		if a.Value != 0 || math.Signbit(a.Value) {
			return nil
		}
	case ir.IntegerAttr:
		if a.Value != 0 {
			return nil
		}
	default:
		return nil
	}
	return outs[0]
}

// foldedFill reports whether fill (a linalg.fill in fn) is folded into its
// users: it zero-fills an empty tensor and every use of its result is as
// an output of another structured op of fn.
func foldedFill(fn, fill *ir.Operation) bool {
	if fill.Name != "linalg.fill" || zeroFill(fill.Results[0]) == nil {
		return false
	}
	res := fill.Results[0]
	uses, asOutput := 0, 0
	ir.Walk(fn, func(o *ir.Operation) bool {
		for _, v := range o.Operands {
			if v != res {
				continue
			}
			uses++
			if IsStructured(o) && o.Name != "linalg.fill" && o.ParentOp() == fn {
				for _, out := range linalg.Outs(o) {
					if out == res {
						asOutput++
						break
					}
				}
			}
		}
		return true
	})
	return uses > 0 && uses == asOutput
}

// removeDeadFills removes the linalg.fill ops of fn whose results are no
// longer used, with the constants they alone used.
func removeDeadFills(fn *ir.Operation) {
	var fills []*ir.Operation
	ir.Walk(fn, func(o *ir.Operation) bool {
		if o.Name == "linalg.fill" {
			fills = append(fills, o)
		}
		return true
	})
	for _, f := range fills {
		if ir.HasUses(fn, f.Results[0]) {
			continue
		}
		c := linalg.Ins(f)[0].Op
		f.Remove()
		if c != nil && c.Name == "arith.constant" && !ir.HasUses(fn, c.Results[0]) {
			c.Remove()
		}
	}
}
