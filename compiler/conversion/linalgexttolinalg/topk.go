package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

// candidates is one source of top-k candidates along the dimension: the
// input (values and, if given, indices) or the outputs' initial contents.
type candidates struct {
	values, indices *ir.Value // indices nil: the position along the dimension
	input           bool      // input candidates come after the outputs'
}

// topk lowers iree_linalg_ext.topk and topk_v2 as their scalar
// implementations behave when the outputs start sorted: each input
// element is inserted into the k outputs in input order, so the result is
// the first k of the outputs' initial contents followed by the input,
// ordered by the comparator, with ties (neither element before the other)
// going to the smaller index and then to the earlier candidate. (topk_v2
// with is_sorted also runs a bubble pass after each insertion, which
// swaps tied neighbours: the indices of tied values can then come out in
// another order than here.) Every
// candidate's rank among all of them is counted by two reductions (one
// over the input, one over the initial outputs), and each output
// position takes the candidate of its rank, first among the initial
// outputs, then among the input. The work is quadratic in the extents.
func (b builder) topk(op *ir.Operation) ([]*ir.Value, error) {
	ins, outs := linalgext.Ins(op), linalgext.Outs(op)
	if len(op.Results) != len(outs) {
		return nil, ir.OpErrorf(op, "lowering of %s on memrefs is not supported yet", op.Name)
	}
	n := len(ins[0].Type.(*ir.TensorType).Shape)
	d64, _ := op.IntAttr("dimension")
	d := int(d64)
	region := op.Regions[0].Blocks[0]
	vt := arith.ElementType(outs[0].Type)
	in := candidates{values: ins[0], input: true}
	if len(ins) == 2 {
		in.indices = ins[1]
	}
	init := candidates{values: outs[0]}
	var it ir.Type // the output index type, when there are indices
	if len(outs) == 2 {
		init.indices = outs[1]
		it = arith.ElementType(outs[1].Type)
	}
	i32 := ir.IntegerType{Width: 32}
	at := identity(n)
	at.NumDims = n + 1
	other := replaceDim(n, d)
	red := make([]bool, n+1)
	red[n] = true
	// idx returns a candidate's index in the output index type: its
	// index element (args[k]) or its position along the loop pos.
	idx := func(y body, c candidates, arg *ir.Value, pos int) *ir.Value {
		if c.indices != nil {
			return castInt(y, arg, it)
		}
		return y.op("arith.index_cast", it, y.index(pos))
	}
	// operands of candidate set c read at the map m.
	operands := func(c candidates, m *ir.AffineMap) ([]*ir.Value, []*ir.AffineMap) {
		vs, ms := []*ir.Value{c.values}, []*ir.AffineMap{m}
		if c.indices != nil {
			vs, ms = append(vs, c.indices), append(ms, m)
		}
		return vs, ms
	}
	// count adds to acc the candidates of set a (read along the extra
	// loop) that come before each candidate of set b (read in place).
	count := func(a, b2 candidates, acc *ir.Value) *ir.Value {
		av, am := operands(a, other)
		bv, bm := operands(b2, at)
		return b.generic(append(av, bv...), acc, append(append(am, bm...), at), red, func(y body, args []*ir.Value) *ir.Value {
			na := len(av)
			x, z := args[0], args[na] // a's value, b's value
			xFirst := inlineRegion(y, region, x, z)[0]
			zFirst := inlineRegion(y, region, z, x)[0]
			// Ties: the smaller index, then the earlier candidate.
			var earlier *ir.Value
			switch {
			case a.input == b2.input:
				earlier = y.cmpi("ult", y.index(n), y.index(d))
			case !a.input:
				earlier = y.bool(true)
			default:
				earlier = y.bool(false)
			}
			if it != nil {
				xi, zi := idx(y, a, args[na-1], n), idx(y, b2, args[len(args)-2], d)
				earlier = y.op("arith.ori", ir.I1, y.cmpi("slt", xi, zi), y.op("arith.andi", ir.I1, y.cmpi("eq", xi, zi), earlier))
			}
			tie := y.op("arith.andi", ir.I1, y.op("arith.xori", ir.I1, zFirst, y.bool(true)), earlier)
			before := y.op("arith.ori", ir.I1, xFirst, tie)
			return y.op("arith.addi", i32, args[len(args)-1], y.op("arith.extui", i32, before))
		})
	}
	zero := b.emit("arith.constant", nil, []ir.Type{i32}, ir.NamedAttr{Name: "value", Value: ir.IntegerAttr{Value: 0, Type: i32}}).Results[0]
	rankIn := count(init, in, count(in, in, b.fill(zero, b.empty(b.dims(in.values), i32))))
	rankInit := count(init, init, count(in, init, b.fill(zero, b.empty(b.dims(init.values), i32))))
	// pick sets each output position p to the value (or index) of the
	// candidate of c whose rank is p, keeping acc elsewhere.
	pick := func(c candidates, ranks, acc *ir.Value, wantIndex bool) *ir.Value {
		et := arith.ElementType(acc.Type)
		vs, ms := []*ir.Value{ranks}, []*ir.AffineMap{other}
		if wantIndex && c.indices != nil {
			vs, ms = append(vs, c.indices), append(ms, other)
		} else if !wantIndex {
			vs, ms = append(vs, c.values), append(ms, other)
		}
		return b.generic(vs, acc, append(ms, at), red, func(y body, args []*ir.Value) *ir.Value {
			var v *ir.Value
			switch {
			case !wantIndex:
				v = args[1]
			case c.indices != nil:
				v = castInt(y, args[1], et)
			default:
				v = y.op("arith.index_cast", et, y.index(n))
			}
			p := y.op("arith.index_cast", i32, y.index(d))
			return y.op("arith.select", et, y.cmpi("eq", args[0], p), v, args[len(args)-1])
		})
	}
	res := []*ir.Value{pick(in, rankIn, pick(init, rankInit, b.empty(b.dims(outs[0]), vt), false), false)}
	if it != nil {
		res = append(res, pick(in, rankIn, pick(init, rankInit, b.empty(b.dims(outs[1]), it), true), true))
	}
	return res, nil
}

// castInt converts an integer or index scalar to integer or index type t
// (sign-extending, truncating).
func castInt(y body, v *ir.Value, t ir.Type) *ir.Value {
	if ir.TypesEqual(v.Type, t) {
		return v
	}
	_, fromIndex := v.Type.(ir.IndexType)
	_, toIndex := t.(ir.IndexType)
	if fromIndex || toIndex {
		return y.op("arith.index_cast", t, v)
	}
	if v.Type.(ir.IntegerType).Width < t.(ir.IntegerType).Width {
		return y.op("arith.extsi", t, v)
	}
	return y.op("arith.trunci", t, v)
}
