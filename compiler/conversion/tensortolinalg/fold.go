package tensortolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/tensor"
	"github.com/goiree/goiree/compiler/ir"
)

// foldSliceOperands makes the offsets and strides of a slice op static
// where their values are host arithmetic on constants (as front ends
// write clamped slice starts), as MLIR's canonicalization folds constant
// arguments; sizes are left alone since they give the result type.
func foldSliceOperands(op *ir.Operation, memo map[*ir.Value]foldResult) {
	first := 1
	if op.Name == "tensor.insert_slice" {
		first = 2
	}
	sizes := ir.SegmentSizes(op)
	if len(sizes) != first+3 {
		return
	}
	var operands []*ir.Value
	operands = append(operands, op.Operands[:first]...)
	start := first
	newSizes := append([]int64(nil), sizes...)
	for i, name := range []string{"static_offsets", "static_sizes", "static_strides"} {
		vals := op.Operands[start : start+int(sizes[first+i])]
		start += int(sizes[first+i])
		static, ok := op.Attr(name).(*ir.DenseArrayAttr)
		if !ok || name == "static_sizes" {
			operands = append(operands, vals...)
			continue
		}
		out := &ir.DenseArrayAttr{Elem: static.Elem, Values: append([]int64(nil), static.Values...)}
		next := 0
		for d, s := range out.Values {
			if s != tensor.DynamicIndex || next >= len(vals) {
				continue
			}
			v := vals[next]
			next++
			if c, ok := fold(v, memo); ok && (name == "static_offsets" && c >= 0 || name == "static_strides" && c > 0) {
				out.Values[d] = c
				newSizes[first+i]--
				continue
			}
			operands = append(operands, v)
		}
		op.SetAttr(name, out)
	}
	op.Operands = operands
	seg := make([]int, len(newSizes))
	for i, n := range newSizes {
		seg[i] = int(n)
	}
	op.SetAttr("operandSegmentSizes", ir.SegmentAttr(seg...))
}

type foldResult struct {
	v  int64
	ok bool
}

// fold evaluates an index or integer value computed on the host from
// constants (arith on integers and index, static tensor.dim), or reports
// that it cannot.
func fold(v *ir.Value, memo map[*ir.Value]foldResult) (int64, bool) {
	if r, ok := memo[v]; ok {
		return r.v, r.ok
	}
	memo[v] = foldResult{} // cycles (through block arguments) do not fold
	x, ok := foldOp(v, memo)
	memo[v] = foldResult{x, ok}
	return x, ok
}

func foldOp(v *ir.Value, memo map[*ir.Value]foldResult) (int64, bool) {
	op := v.Op
	if op == nil || len(op.Results) != 1 {
		return 0, false
	}
	width := 64
	if it, ok := v.Type.(ir.IntegerType); ok {
		width = it.Width
	} else if _, ok := v.Type.(ir.IndexType); !ok {
		return 0, false
	}
	args := make([]int64, len(op.Operands))
	for i, a := range op.Operands {
		if op.Name == "tensor.dim" && i == 0 {
			continue
		}
		x, ok := fold(a, memo)
		if !ok {
			return 0, false
		}
		args[i] = x
	}
	var r int64
	switch op.Name {
	case "arith.constant":
		a, ok := op.Attr("value").(ir.IntegerAttr)
		if !ok {
			return 0, false
		}
		r = a.Value
	case "tensor.dim":
		t, ok := op.Operands[0].Type.(*ir.TensorType)
		if !ok || t.Unranked || args[1] < 0 || args[1] >= int64(len(t.Shape)) || t.Shape[args[1]] == ir.Dynamic {
			return 0, false
		}
		r = t.Shape[args[1]]
	case "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.trunci":
		r = args[0]
	case "arith.addi":
		r = args[0] + args[1]
	case "arith.subi":
		r = args[0] - args[1]
	case "arith.muli":
		r = args[0] * args[1]
	case "arith.divsi":
		if args[1] == 0 {
			return 0, false
		}
		r = args[0] / args[1]
	case "arith.remsi":
		if args[1] == 0 {
			return 0, false
		}
		r = args[0] % args[1]
	case "arith.minsi":
		r = min(args[0], args[1])
	case "arith.maxsi":
		r = max(args[0], args[1])
	case "arith.select":
		if args[0] != 0 {
			r = args[1]
		} else {
			r = args[2]
		}
	case "arith.cmpi":
		p, _ := op.IntAttr("predicate")
		a, b := args[0], args[1]
		var c bool
		switch p {
		case 0:
			c = a == b
		case 1:
			c = a != b
		case 2:
			c = a < b
		case 3:
			c = a <= b
		case 4:
			c = a > b
		case 5:
			c = a >= b
		default: // unsigned predicates: fold only non-negative operands
			if a < 0 || b < 0 || p > 9 {
				return 0, false
			}
			c = [4]bool{a < b, a <= b, a > b, a >= b}[p-6]
		}
		if c {
			r = 1
		}
	default:
		return 0, false
	}
	// Values wrap at their width, as the host computes them (index is 64
	// bits); a fold that overflows is not trusted.
	if width < 64 {
		lo, hi := -(int64(1) << (width - 1)), int64(1)<<(width-1)-1
		if width == 1 {
			lo, hi = 0, 1
		}
		if r < lo || r > hi {
			return 0, false
		}
	}
	return r, true
}
