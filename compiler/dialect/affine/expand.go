package affine

import (
	"github.com/goiree/goiree/compiler/ir"
)

// ExpandIndexOps replaces every affine.linearize_index and
// affine.delinearize_index under root by the arith ops that compute it,
// so that every consumer of index arithmetic (kernel bodies, dispatch
// functions, host code) handles them as it handles arith:
//
//   - linearize_index [i0, ..., iN-1] by (..., bN-1) is
//     ((i0 * b1 + i1) * b2 + ...) * bN-1 + iN-1 (Horner's rule over the
//     inner N-1 basis elements; the outermost is not needed);
//   - delinearize_index x into (b0, ..., bM-1) divides by the inner basis
//     elements from the last one in, each result the remainder of one
//     floor division and the first result the last quotient (unbounded,
//     as MLIR defines it: not reduced modulo b0).
//
// Division and remainder are floored (MLIR's floordiv and mod), built
// from arith.divsi and arith.remsi with a correction for a negative
// remainder, which every target compiles; a basis element is assumed
// positive, as the op requires. disjoint adds nothing: the expansion is
// exact either way.
func ExpandIndexOps(root *ir.Operation) error {
	var ops []*ir.Operation
	ir.Walk(root, func(o *ir.Operation) bool {
		if o.Name == "affine.linearize_index" || o.Name == "affine.delinearize_index" {
			ops = append(ops, o)
		}
		return true
	})
	for _, op := range ops {
		if op.Block == nil {
			continue
		}
		x := expander{at: op, consts: map[int64]*ir.Value{}}
		var dyn []*ir.Value
		if op.Name == "affine.linearize_index" {
			if err := verifyLinearize(op); err != nil {
				return err
			}
			dyn = ir.Segment(op, 1)
		} else {
			if err := verifyDelinearize(op); err != nil {
				return err
			}
			dyn = op.Operands[1:]
		}
		static := op.Attr("static_basis").(*ir.DenseArrayAttr).Values
		// Only the inner basis elements are used: as many as the indices
		// (linearize) or results (delinearize) less one.
		n := len(op.Results)
		if op.Name == "affine.linearize_index" {
			n = len(ir.Segment(op, 0))
		}
		first := len(static) - (n - 1)
		var inner []*ir.Value
		next := 0
		for i, b := range static {
			switch {
			case b == DynamicBasis:
				if i >= first {
					inner = append(inner, dyn[next])
				}
				next++
			case i >= first:
				inner = append(inner, x.index(b))
			}
		}
		if op.Name == "affine.linearize_index" {
			idx := ir.Segment(op, 0)
			l := idx[0]
			for k, i := range idx[1:] {
				l = x.op("arith.addi", x.op("arith.muli", l, inner[k]), i)
			}
			ir.ReplaceAllUsesWith(root, op.Results[0], l)
		} else {
			q := op.Operands[0]
			for r := n - 1; r >= 1; r-- {
				var rem *ir.Value
				q, rem = x.floorDivMod(q, inner[r-1])
				ir.ReplaceAllUsesWith(root, op.Results[r], rem)
			}
			ir.ReplaceAllUsesWith(root, op.Results[0], q)
		}
		op.Remove()
	}
	return nil
}

// expander inserts index arithmetic before an op.
type expander struct {
	at     *ir.Operation
	consts map[int64]*ir.Value
}

func (x *expander) emit(o *ir.Operation) *ir.Value {
	o.Pos, o.Loc = x.at.Pos, x.at.Loc
	x.at.Block.InsertBefore(x.at, o)
	return o.Results[0]
}

func (x *expander) index(v int64) *ir.Value {
	if c, ok := x.consts[v]; ok {
		return c
	}
	c := x.emit(ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(v)}}))
	x.consts[v] = c
	return c
}

func (x *expander) op(name string, a, b *ir.Value) *ir.Value {
	return x.emit(ir.NewOp(name, []*ir.Value{a, b}, []ir.Type{ir.IndexType{}}, nil))
}

// floorDivMod returns floor(a / b) and a - b * floor(a / b) for b > 0.
func (x *expander) floorDivMod(a, b *ir.Value) (*ir.Value, *ir.Value) {
	q := x.op("arith.divsi", a, b)
	r := x.op("arith.remsi", a, b)
	neg := x.emit(ir.NewOp("arith.cmpi", []*ir.Value{r, x.index(0)}, []ir.Type{ir.I1}, []ir.NamedAttr{{Name: "predicate", Value: ir.IntegerAttr{Value: 2, Type: ir.I64}}}))
	sel := func(t, f *ir.Value) *ir.Value {
		return x.emit(ir.NewOp("arith.select", []*ir.Value{neg, t, f}, []ir.Type{ir.IndexType{}}, nil))
	}
	return sel(x.op("arith.subi", q, x.index(1)), q), sel(x.op("arith.addi", r, b), r)
}
