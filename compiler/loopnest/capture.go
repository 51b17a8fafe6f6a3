package loopnest

import (
	"slices"

	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
)

// captureScalars makes each scalar that the body of a linalg.generic in
// ops reads from outside the op (a function argument, a value the host
// computed; MLIR's linalg bodies may read them directly) an input of the
// op indexed by no loop, so that its kernel receives it as it receives any
// scalar input, in a push constant. An index travels as an i32 (push
// constants are 32-bit; the host casts it before the op and the body back
// after). Constants stay in the body (kernels clone them), and a captured
// tensor is left for formation to refuse.
func captureScalars(ops []*ir.Operation) {
	for _, op := range ops {
		if op.Name != "linalg.generic" || len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
			continue
		}
		blk := op.Regions[0].Blocks[0]
		var captured []*ir.Value
		for _, o := range blk.Ops {
			for _, v := range o.Operands {
				inside := v.Block == blk || (v.Op != nil && v.Op.Block == blk)
				_, shaped := v.Type.(ir.ShapedType)
				if !inside && !shaped && !scalarConstant(v) && !slices.Contains(captured, v) {
					captured = append(captured, v)
				}
			}
		}
		for _, v := range captured {
			capture(op, blk, v)
		}
	}
}

// capture adds v as the last input of the generic op, with a block
// argument that takes v's place in the body.
func capture(op *ir.Operation, blk *ir.Block, v *ir.Value) {
	use := v
	if _, ok := v.Type.(ir.IndexType); ok {
		i32 := ir.IntegerType{Width: 32}
		c := ir.NewOp("arith.index_cast", []*ir.Value{v}, []ir.Type{i32}, nil)
		c.Pos, c.Loc = op.Pos, op.Loc
		op.Block.InsertBefore(op, c)
		use = c.Results[0]
	}
	n := len(linalg.Ins(op))
	outs := len(linalg.Outs(op))
	op.Operands = slices.Insert(op.Operands, n, use)
	op.SetAttr("operandSegmentSizes", ir.SegmentAttr(n+1, outs))
	if maps, ok := op.Attr("indexing_maps").(*ir.ArrayAttr); ok && len(maps.Elems) > 0 {
		dims := 0
		if m, ok := maps.Elems[0].(ir.AffineMapAttr); ok {
			dims = m.Map.NumDims
		}
		elems := slices.Insert(slices.Clone(maps.Elems), n, ir.Attribute(ir.AffineMapAttr{Map: &ir.AffineMap{NumDims: dims}}))
		op.SetAttr("indexing_maps", &ir.ArrayAttr{Elems: elems})
	}
	arg := &ir.Value{Type: use.Type, Block: blk, Name: v.Name}
	blk.Args = slices.Insert(blk.Args, n, arg)
	for i, a := range blk.Args {
		a.Index = i
	}
	inBody := arg
	if use != v {
		back := ir.NewOp("arith.index_cast", []*ir.Value{arg}, []ir.Type{v.Type}, nil)
		back.Pos, back.Loc = op.Pos, op.Loc
		back.Block = blk
		blk.Ops = slices.Insert(blk.Ops, 0, back)
		inBody = back.Results[0]
	}
	for _, o := range blk.Ops {
		for i, x := range o.Operands {
			if x == v {
				o.Operands[i] = inBody
			}
		}
	}
}
