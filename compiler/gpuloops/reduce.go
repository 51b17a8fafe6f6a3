package gpuloops

import (
	"math"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// Reduction is a loop nest whose reduction a workgroup's threads may
// share: one reduction loop, one output, and a body that computes a value
// from the loop indices and the inputs alone and folds it into its
// accumulator with one of Combiners (acc' = x + acc for a row sum,
// exp(x - m) + acc for softmax's denominator). The loopnest contract lets
// a target reassociate such a reduction, so each thread may run the body
// over a strided part of the row from the combiner's identity, and the
// parts may then be combined with the combiner alone, in any order.
type Reduction struct {
	// Loop is the reduction loop.
	Loop int
	// Combiner is the body's op that folds the value into the
	// accumulator; the body returns its result.
	Combiner *ir.Operation
	// Value is the combiner's operand that is not the accumulator.
	Value *ir.Value
}

// ReductionOf recognizes a Reduction: besides the body's shape, every
// tensor input that the reduction loop indexes must have it as its last,
// bare index (so that neighbouring threads read neighbouring elements)
// and use it nowhere else, at least one input must, and a static
// reduction must be at least MinSharedReduction long. It returns nil for
// any other kernel.
func ReductionOf(k *loopnest.Kernel, body *ir.Operation) *Reduction {
	red := -1
	for i, it := range k.Iterators {
		if it == "reduction" {
			if red >= 0 {
				return nil
			}
			red = i
		}
	}
	if red < 0 || len(k.Outputs) != 1 {
		return nil
	}
	if r := k.Ranges[red]; r != ir.Dynamic && r < MinSharedReduction {
		return nil
	}
	rows := 0
	for _, in := range k.Inputs {
		if in.Scalar != nil {
			continue
		}
		res := in.Map.Results
		for j, e := range res {
			uses := false
			switch e.Kind {
			case ir.AffineDim:
				uses = e.Pos == red
			case ir.AffineConst:
			default:
				lin, ok := loopnest.Linear(e)
				uses = !ok || lin.Coeffs[red] != 0
			}
			if !uses {
				continue
			}
			if j != len(res)-1 || e.Kind != ir.AffineDim {
				return nil
			}
			rows++
		}
	}
	if rows == 0 || body == nil || body.Body() == nil || len(body.Regions[0].Blocks) != 1 {
		return nil
	}
	blk := body.Body()
	if len(blk.Args) != len(k.Ranges)+len(k.Inputs)+1 || len(blk.Ops) < 2 {
		return nil
	}
	acc := blk.Args[len(blk.Args)-1]
	ret := blk.Ops[len(blk.Ops)-1]
	if ret.Name != "func.return" || len(ret.Operands) != 1 {
		return nil
	}
	// The accumulator has exactly one use, in the combiner, whose result
	// only the return uses.
	var comb *ir.Operation
	uses := 0
	for _, op := range blk.Ops {
		for _, v := range op.Operands {
			if v == acc {
				uses++
				comb = op
			}
		}
	}
	if uses != 1 || !Combiners[comb.Name] || len(comb.Operands) != 2 || len(comb.Results) != 1 ||
		ret.Operands[0] != comb.Results[0] || !ir.TypesEqual(comb.Operands[0].Type, comb.Operands[1].Type) {
		return nil
	}
	for _, op := range blk.Ops {
		if op == ret {
			continue
		}
		for _, v := range op.Operands {
			if v == comb.Results[0] {
				return nil
			}
		}
	}
	val := comb.Operands[0]
	if val == acc {
		val = comb.Operands[1]
	}
	return &Reduction{Loop: red, Combiner: comb, Value: val}
}

// Identity is the value x of the combiner's type for which combining x
// with any y gives y: -0 for addf (so that a sum of -0s stays -0), -inf
// (+inf) for maximumf (minimumf), NaN for maxnumf and minnumf (which
// return the other operand of a NaN), the extreme integers for integer
// min and max, and all ones for andi. Float identities come as float64
// (targets print them in their own literal syntax), integer ones as the
// width's bit pattern, sign-extended to int64; ok is false for a type
// the combiner does not apply to.
func (r *Reduction) Identity() (f float64, i int64, ok bool) {
	t := r.Combiner.Results[0].Type
	switch t := t.(type) {
	case ir.FloatType:
		switch r.Combiner.Name {
		case "arith.addf":
			return math.Copysign(0, -1), 0, true
		case "arith.mulf":
			return 1, 0, true
		case "arith.maximumf":
			return math.Inf(-1), 0, true
		case "arith.minimumf":
			return math.Inf(1), 0, true
		case "arith.maxnumf", "arith.minnumf":
			return math.NaN(), 0, true
		}
	case ir.IntegerType, ir.IndexType:
		w := 64
		if it, isInt := t.(ir.IntegerType); isInt {
			w = it.Width
		}
		if w < 1 || w > 64 {
			return 0, 0, false
		}
		minS, maxS := int64(-1)<<(w-1), int64(uint64(1)<<(w-1)-1)
		switch r.Combiner.Name {
		case "arith.addi", "arith.ori", "arith.xori", "arith.maxui":
			return 0, 0, true
		case "arith.muli":
			return 0, 1 << (64 - w) >> (64 - w), true
		case "arith.andi", "arith.minui":
			return 0, -1, true
		case "arith.maxsi":
			return 0, minS, true
		case "arith.minsi":
			return 0, maxS, true
		}
	}
	return 0, 0, false
}

// WideParts reports whether a target keeps the reduction's partial
// results in f32 rather than in the accumulator's type: for sums and
// products of f16 and bf16. The body's per-element value is still
// computed (and rounded) in the 16-bit type, but the strided parts, the
// values crossing lanes and shared memory, and the fold of the total into
// the accumulator's initial value are f32, rounded once to the 16-bit
// type when stored, as IREE's GPU pipelines do for reductions they split.
// A 16-bit running sum, rounded at every step, loses the small values of
// a long row once it has grown (4096 x 0.001 sums to 4.109 in f16 steps,
// 4.098 rounded once), and the loop-nest contract already gives up the
// in-order rounding of a reduction that is reassociated. Minima and
// maxima are exact in any type, and the in-order loop of one thread per
// output keeps the body's own rounding.
func (r *Reduction) WideParts() bool {
	t, ok := r.Combiner.Results[0].Type.(ir.FloatType)
	if !ok || t.Name != "f16" && t.Name != "bf16" {
		return false
	}
	return r.Combiner.Name == "arith.addf" || r.Combiner.Name == "arith.mulf"
}

// WarpRows reports whether a workgroup of a Reduction should give each of
// its output elements to one warp (subgroup) instead of to all its
// threads: when it owns at least warps output elements (its tile of the
// first parallel loop times the other parallel loops' ranges, a dynamic
// one counted as enough), so that its warps stay busy without a barrier
// per element. A workgroup that owns a single row, as in a softmax over
// up to Workgroups rows, keeps all its threads on it.
func WarpRows(k *loopnest.Kernel, warps int) bool {
	outer := k.OuterParallel()
	if outer < 0 {
		return false
	}
	count := k.Tile
	for l, it := range k.Iterators {
		if it != "parallel" || l == outer {
			continue
		}
		if k.Ranges[l] == ir.Dynamic {
			return true
		}
		count *= k.Ranges[l]
		if count >= int64(warps) {
			return true
		}
	}
	return count >= int64(warps)
}
