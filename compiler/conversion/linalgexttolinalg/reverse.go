package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

// reverse lowers iree_linalg_ext.reverse: out[i] = in[n-1-i] along each
// reversed dimension. Loop-nest maps cannot count down, so each reversed
// dimension becomes a search loop over the input and the element where
// k = n-1-i is kept; n-1 is a constant, or an i32 scalar input where the
// extent is dynamic. The work is the output's size times the reversed
// extents.
func (b builder) reverse(op *ir.Operation) (*ir.Value, error) {
	in, out := linalgext.Ins(op)[0], linalgext.Outs(op)[0]
	if len(op.Results) != 1 {
		return nil, ir.OpErrorf(op, "lowering of reverse on memrefs is not supported yet")
	}
	n := len(in.Type.(*ir.TensorType).Shape)
	dims := linalgext.ReverseDims(op)
	search := map[int]int{}
	for _, d := range dims {
		search[int(d)] = n + len(search)
	}
	numLoops := n + len(search)
	inMap := &ir.AffineMap{NumDims: numLoops}
	for d := 0; d < n; d++ {
		if l, ok := search[d]; ok {
			inMap.Results = append(inMap.Results, dim(l))
		} else {
			inMap.Results = append(inMap.Results, dim(d))
		}
	}
	ins, maps := []*ir.Value{in}, []*ir.AffineMap{inMap}
	extents := b.dims(in)
	i32 := ir.IntegerType{Width: 32}
	last := map[int]int{} // reversed dimension -> its scalar input (dynamic extents)
	for _, d := range dims {
		if e := extents[d]; e.v != nil {
			m1 := b.emit("arith.subi", []*ir.Value{e.v, b.index(1)}, []ir.Type{ir.IndexType{}}).Results[0]
			last[int(d)] = len(ins)
			ins = append(ins, b.emit("arith.index_cast", []*ir.Value{m1}, []ir.Type{i32}).Results[0])
			maps = append(maps, dimsMap(numLoops))
		}
	}
	outMap := identity(n)
	outMap.NumDims = numLoops
	red := make([]bool, numLoops)
	for l := n; l < numLoops; l++ {
		red[l] = true
	}
	et := arith.ElementType(out.Type)
	return b.generic(ins, out, append(maps, outMap), red, func(y body, args []*ir.Value) *ir.Value {
		hit := y.bool(true)
		for _, d := range dims {
			var top *ir.Value
			if a, ok := last[int(d)]; ok {
				top = y.op("arith.index_cast", ir.IndexType{}, args[a])
			} else {
				top = y.op("arith.constant", ir.IndexType{})
				top.Op.SetAttr("value", ir.IndexAttr(extents[d].n-1))
			}
			want := y.op("arith.subi", ir.IndexType{}, top, y.index(int(d)))
			hit = y.op("arith.andi", ir.I1, hit, y.cmpi("eq", y.index(search[int(d)]), want))
		}
		return y.op("arith.select", et, hit, args[0], args[len(args)-1])
	}), nil
}
