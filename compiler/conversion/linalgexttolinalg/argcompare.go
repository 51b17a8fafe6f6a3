package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

// argCompare lowers iree_linalg_ext.arg_compare to one linalg.generic
// with two outputs, as IREE's scalar implementation computes it: along
// the reduced dimension each candidate value is compared with the best so
// far by the op's comparator, and when the comparator holds the candidate
// and its index replace the best value and index. The index is the
// explicit index input's element, or the position along the dimension
// plus index_base (a scalar input of the generic, as an i32), cast to
// the output index type.
func (b builder) argCompare(op *ir.Operation) ([]*ir.Value, error) {
	ins, outs := linalgext.Ins(op), linalgext.Outs(op)
	if len(op.Results) != 2 {
		return nil, ir.OpErrorf(op, "lowering of arg_compare on memrefs is not supported yet")
	}
	in := ins[0]
	n := len(in.Type.(*ir.TensorType).Shape)
	dim64, _ := op.IntAttr("dimension")
	dim := int(dim64)
	var keep []int
	for d := 0; d < n; d++ {
		if d != dim {
			keep = append(keep, d)
		}
	}
	explicit := len(ins) == 2
	gins := append([]*ir.Value(nil), ins...)
	maps := []*ir.AffineMap{identity(n)}
	if explicit {
		maps = append(maps, identity(n))
	}
	base := ir.Segment(op, 2)
	if len(base) == 1 {
		// Dispatches take scalars as 32-bit push constants, so the base
		// travels as an i32 and the body widens it back.
		b32 := b.emit("arith.index_cast", []*ir.Value{base[0]}, []ir.Type{ir.IntegerType{Width: 32}}).Results[0]
		gins = append(gins, b32)
		maps = append(maps, dimsMap(n))
	}
	maps = append(maps, dimsMap(n, keep...), dimsMap(n, keep...))
	red := make([]bool, n)
	red[dim] = true
	region := op.Regions[0].Blocks[0]
	vt, it := arith.ElementType(outs[0].Type), arith.ElementType(outs[1].Type)
	res := b.generic2(gins, outs, maps, red, func(y body, args []*ir.Value) []*ir.Value {
		x, best, bestIdx := args[0], args[len(args)-2], args[len(args)-1]
		mapping := map[*ir.Value]*ir.Value{region.Args[0]: x, region.Args[1]: best}
		var cmp *ir.Value
		for _, o := range region.Ops {
			if o.Name == "iree_linalg_ext.yield" {
				cmp = mapping[o.Operands[0]]
				break
			}
			y.b.Append(ir.Clone(o, mapping))
		}
		var idx *ir.Value
		if explicit {
			idx = args[1]
		} else {
			pos := y.op("linalg.index", ir.IndexType{})
			pos.Op.SetAttr("dim", ir.IntegerAttr{Value: int64(dim), Type: ir.I64})
			idx = pos
			if len(base) == 1 {
				idx = y.op("arith.addi", ir.IndexType{}, y.op("arith.index_cast", ir.IndexType{}, args[1]), pos)
			}
			if !ir.TypesEqual(it, ir.IndexType{}) {
				idx = y.op("arith.index_cast", it, idx)
			}
		}
		return []*ir.Value{y.op("arith.select", vt, cmp, x, best), y.op("arith.select", it, cmp, idx, bestIdx)}
	})
	return res, nil
}
