package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

// reverse lowers iree_linalg_ext.reverse: out[i] = in[n-1-i] along each
// reversed dimension. Loop-nest maps cannot count down, so it becomes a
// linalg.generic over the output whose body reads the input directly at
// the reversed index (tensor.extract, one read per element); n-1 is a
// constant, or a host value (passed to the kernel) where the extent is
// dynamic.
func (b builder) reverse(op *ir.Operation) (*ir.Value, error) {
	in, out := linalgext.Ins(op)[0], linalgext.Outs(op)[0]
	if len(op.Results) != 1 {
		return nil, ir.OpErrorf(op, "lowering of reverse on memrefs is not supported yet")
	}
	n := len(in.Type.(*ir.TensorType).Shape)
	reversed := map[int]bool{}
	for _, d := range linalgext.ReverseDims(op) {
		if d < 0 || int(d) >= n {
			return nil, ir.OpErrorf(op, "reversed dimension %d is outside the input's %d", d, n)
		}
		reversed[int(d)] = true
	}
	extents := b.dims(in)
	last := map[int]*ir.Value{} // a reversed dynamic dimension's extent - 1 (host)
	for d := range reversed {
		if e := extents[d]; e.v != nil {
			last[d] = b.emit("arith.subi", []*ir.Value{e.v, b.index(1)}, []ir.Type{ir.IndexType{}}).Results[0]
		}
	}
	et := arith.ElementType(out.Type)
	return b.generic(nil, out, []*ir.AffineMap{identity(n)}, make([]bool, n), func(y body, args []*ir.Value) *ir.Value {
		at := make([]*ir.Value, n)
		for d := range at {
			at[d] = y.index(d)
			if !reversed[d] {
				continue
			}
			top := last[d]
			if top == nil {
				top = y.op("arith.constant", ir.IndexType{})
				top.Op.SetAttr("value", ir.IndexAttr(extents[d].n-1))
			}
			at[d] = y.op("arith.subi", ir.IndexType{}, top, at[d])
		}
		return y.op("tensor.extract", et, append([]*ir.Value{in}, at...)...)
	}), nil
}
