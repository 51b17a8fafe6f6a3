package loopnest

import (
	"slices"

	"github.com/goiree/goiree/compiler/ir"
)

// Computed-index reads. A linalg body may read a tensor defined outside
// the op at indices it computes (tensor.extract %t[%i, %j], the indices
// derived from its inputs or from linalg.index), as IREE's gather-like
// programs do. Such a tensor becomes an indexed input of the kernel: a
// binding read with one direct load per extract, never a search.
//
// Before formation, flattenTensorReads rewrites each such extract into a
// read of the tensor's row-major flattening (a flow.tensor.reshape on the
// host, a new view of the same buffer) at a linear offset that the body
// computes with arith ops: every index is first clamped into its
// dimension, so the offset is always inside the tensor. IREE leaves an
// out-of-range index undefined; here it reads the nearest element along
// each dimension (an index below 0 reads index 0, one past the end the
// last element). The dynamic sizes the clamping needs are host values
// (tensor.dim) that captureScalars then passes as push constants.

// flattenTensorReads rewrites the computed-index reads of every
// linalg.generic in ops (see above).
func flattenTensorReads(ops []*ir.Operation) {
	for _, op := range ops {
		if op.Name != "linalg.generic" || len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
			continue
		}
		blk := op.Regions[0].Blocks[0]
		flat := map[*ir.Value]*ir.Value{}
		dims := map[*ir.Value][]*ir.Value{} // host sizes of each tensor's dynamic dimensions
		for _, o := range slices.Clone(blk.Ops) {
			if o.Name != "tensor.extract" || len(o.Operands) == 0 || len(o.Results) != 1 {
				continue
			}
			t := o.Operands[0]
			tt, ok := t.Type.(*ir.TensorType)
			if !ok || tt.Unranked || t.Block == blk || (t.Op != nil && t.Op.Block == blk) || len(o.Operands)-1 != len(tt.Shape) {
				continue
			}
			h := hostBuilder{at: op}
			if _, ok := dims[t]; !ok {
				ds := make([]*ir.Value, len(tt.Shape))
				for r, sz := range tt.Shape {
					if sz == ir.Dynamic {
						ds[r] = h.emit(ir.NewOp("tensor.dim", []*ir.Value{t, h.index(int64(r))}, []ir.Type{ir.IndexType{}}, nil))
					}
				}
				dims[t] = ds
				flat[t] = h.flatten(t, tt, ds)
			}
			f := flat[t]
			sizes := slices.Clone(dims[t])
			b := hostBuilder{at: o}
			var off *ir.Value
			for r, sz := range tt.Shape {
				if sizes[r] == nil {
					sizes[r] = b.index(sz)
				}
				// clamp(i, 0, size-1); an empty dimension gives 0, and
				// the kernel fails the dispatch rather than read it.
				last := b.binary("arith.subi", sizes[r], b.index(1))
				c := b.binary("arith.maxsi", b.binary("arith.minsi", o.Operands[1+r], last), b.index(0))
				if off == nil {
					off = c
				} else {
					off = b.binary("arith.addi", b.binary("arith.muli", off, sizes[r]), c)
				}
			}
			if off == nil {
				off = b.index(0)
			}
			o.Operands = []*ir.Value{f, off}
		}
	}
}

// hostBuilder inserts ops before an op, in its block.
type hostBuilder struct {
	at     *ir.Operation
	consts map[int64]*ir.Value
}

func (h *hostBuilder) emit(o *ir.Operation) *ir.Value {
	o.Pos, o.Loc = h.at.Pos, h.at.Loc
	h.at.Block.InsertBefore(h.at, o)
	return o.Results[0]
}

func (h *hostBuilder) index(v int64) *ir.Value {
	if c, ok := h.consts[v]; ok {
		return c
	}
	if h.consts == nil {
		h.consts = map[int64]*ir.Value{}
	}
	c := h.emit(ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(v)}}))
	h.consts[v] = c
	return c
}

func (h *hostBuilder) binary(name string, a, b *ir.Value) *ir.Value {
	return h.emit(ir.NewOp(name, []*ir.Value{a, b}, []ir.Type{ir.IndexType{}}, nil))
}

// flatten returns t as a 1-D tensor of all its elements (t itself when it
// is 1-D already): a flow.tensor.reshape, whose dynamic size is the
// product of sizes (the dynamic ones given, the static from the type).
func (h *hostBuilder) flatten(t *ir.Value, tt *ir.TensorType, sizes []*ir.Value) *ir.Value {
	if len(tt.Shape) == 1 {
		return t
	}
	n := int64(1)
	var dyn, srcDims []*ir.Value
	for r, sz := range tt.Shape {
		if sz == ir.Dynamic {
			srcDims = append(srcDims, sizes[r])
		} else {
			n *= sz
		}
	}
	ft := &ir.TensorType{Shape: []int64{n}, Elem: tt.Elem, Encoding: tt.Encoding}
	if len(srcDims) > 0 {
		ft.Shape[0] = ir.Dynamic
		total := srcDims[0]
		for _, d := range srcDims[1:] {
			total = h.binary("arith.muli", total, d)
		}
		if n != 1 {
			total = h.binary("arith.muli", total, h.index(n))
		}
		dyn = []*ir.Value{total}
	}
	operands := append(append([]*ir.Value{t}, srcDims...), dyn...)
	return h.emit(ir.NewOp("flow.tensor.reshape", operands, []ir.Type{ft}, []ir.NamedAttr{
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(srcDims), len(dyn))},
	}))
}

// indexedTensors returns the tensors from outside the body blk that its
// ops read with tensor.extract (after flattenTensorReads: 1-D tensors
// read at a linear offset), in order of first use.
func indexedTensors(blk *ir.Block) []*ir.Value {
	var out []*ir.Value
	for _, o := range blk.Ops {
		if o.Name != "tensor.extract" || len(o.Operands) != 2 {
			continue
		}
		t := o.Operands[0]
		tt, ok := t.Type.(*ir.TensorType)
		if !ok || len(tt.Shape) != 1 || t.Block == blk || (t.Op != nil && t.Op.Block == blk) {
			continue
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
