package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/conversion/internal/rewrite"
	"github.com/goiree/goiree/compiler/dialect/tensor"
	"github.com/goiree/goiree/compiler/ir"
)

// builder inserts ops before the op being replaced, each with its
// position and location, so that a later error about a new op points at
// the source op.
type builder struct{ at *ir.Operation }

func (b builder) emit(name string, operands []*ir.Value, types []ir.Type, attrs ...ir.NamedAttr) *ir.Operation {
	return rewrite.Emit(b.at, ir.NewOp(name, operands, types, attrs))
}

// size is one extent: static, or the value that gives it.
type size struct {
	n int64 // ir.Dynamic when v gives the size
	v *ir.Value
}

func static(n int64) size { return size{n: n} }

func (b builder) index(n int64) *ir.Value {
	return b.emit("arith.constant", nil, []ir.Type{ir.IndexType{}}, ir.NamedAttr{Name: "value", Value: ir.IndexAttr(n)}).Results[0]
}

// value returns s as an index value, materializing a constant.
func (b builder) value(s size) *ir.Value {
	if s.v != nil {
		return s.v
	}
	return b.index(s.n)
}

// dims returns the extents of a ranked tensor value: static ones from
// its type, dynamic ones through tensor.dim.
func (b builder) dims(v *ir.Value) []size {
	t := v.Type.(*ir.TensorType)
	out := make([]size, len(t.Shape))
	for i, n := range t.Shape {
		if n != ir.Dynamic {
			out[i] = static(n)
			continue
		}
		out[i] = size{n: ir.Dynamic, v: b.emit("tensor.dim", []*ir.Value{v, b.index(int64(i))}, []ir.Type{ir.IndexType{}}).Results[0]}
	}
	return out
}

// mul returns a*b, folded when both are static.
func (b builder) mul(x, y size) size {
	if x.v == nil && y.v == nil {
		return static(x.n * y.n)
	}
	return size{n: ir.Dynamic, v: b.emit("arith.muli", []*ir.Value{b.value(x), b.value(y)}, []ir.Type{ir.IndexType{}}).Results[0]}
}

// shapeOf returns the static shape of sizes (ir.Dynamic where a value
// gives one).
func shapeOf(ss []size) []int64 {
	out := make([]int64, len(ss))
	for i, s := range ss {
		out[i] = s.n
		if s.v != nil {
			out[i] = ir.Dynamic
		}
	}
	return out
}

// mixed returns sizes in the form of MLIR's mixed lists: the static list
// with tensor.DynamicIndex where a value stands, and those values.
func mixed(ss []size) (*ir.DenseArrayAttr, []*ir.Value) {
	a := &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{}}
	var vs []*ir.Value
	for _, s := range ss {
		if s.v != nil {
			a.Values = append(a.Values, tensor.DynamicIndex)
			vs = append(vs, s.v)
		} else {
			a.Values = append(a.Values, s.n)
		}
	}
	return a, vs
}

// empty returns a tensor.empty of the given extents.
func (b builder) empty(ss []size, elem ir.Type) *ir.Value {
	var dyn []*ir.Value
	for _, s := range ss {
		if s.v != nil {
			dyn = append(dyn, s.v)
		}
	}
	return b.emit("tensor.empty", dyn, []ir.Type{&ir.TensorType{Shape: shapeOf(ss), Elem: elem}}).Results[0]
}

// fill returns linalg.fill of v into init.
func (b builder) fill(v, init *ir.Value) *ir.Value {
	return b.emit("linalg.fill", []*ir.Value{v, init}, []ir.Type{init.Type},
		ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1)}).Results[0]
}

func zeros(n int) []size {
	out := make([]size, n)
	for i := range out {
		out[i] = static(0)
	}
	return out
}

func ones(n int) []size {
	out := make([]size, n)
	for i := range out {
		out[i] = static(1)
	}
	return out
}

// insertSlice writes src into dst at offsets with unit strides.
func (b builder) insertSlice(src, dst *ir.Value, offsets, sizes []size) *ir.Value {
	oa, ov := mixed(offsets)
	sa, sv := mixed(sizes)
	ta, tv := mixed(ones(len(sizes)))
	operands := append(append(append([]*ir.Value{src, dst}, ov...), sv...), tv...)
	return b.emit("tensor.insert_slice", operands, []ir.Type{dst.Type},
		ir.NamedAttr{Name: "static_offsets", Value: oa}, ir.NamedAttr{Name: "static_sizes", Value: sa},
		ir.NamedAttr{Name: "static_strides", Value: ta},
		ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, len(ov), len(sv), len(tv))}).Results[0]
}

// extractSlice reads the slice of src at offsets with the given sizes and
// unit strides, as a tensor of type rt.
func (b builder) extractSlice(src *ir.Value, offsets, sizes []size, rt ir.Type) *ir.Value {
	oa, ov := mixed(offsets)
	sa, sv := mixed(sizes)
	ta, tv := mixed(ones(len(sizes)))
	operands := append(append(append([]*ir.Value{src}, ov...), sv...), tv...)
	return b.emit("tensor.extract_slice", operands, []ir.Type{rt},
		ir.NamedAttr{Name: "static_offsets", Value: oa}, ir.NamedAttr{Name: "static_sizes", Value: sa},
		ir.NamedAttr{Name: "static_strides", Value: ta},
		ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(ov), len(sv), len(tv))}).Results[0]
}

// reassociation builds a reshape's groups attribute.
func reassociation(groups [][]int) *ir.ArrayAttr {
	out := &ir.ArrayAttr{Elems: []ir.Attribute{}}
	for _, g := range groups {
		ga := &ir.ArrayAttr{Elems: []ir.Attribute{}}
		for _, d := range g {
			ga.Elems = append(ga.Elems, ir.IntegerAttr{Value: int64(d), Type: ir.I64})
		}
		out.Elems = append(out.Elems, ga)
	}
	return out
}

// expandShape splits src's dimensions into the extents out, grouped as
// groups says.
func (b builder) expandShape(src *ir.Value, groups [][]int, out []size) *ir.Value {
	sa, sv := mixed(out)
	elem := src.Type.(*ir.TensorType).Elem
	return b.emit("tensor.expand_shape", append([]*ir.Value{src}, sv...), []ir.Type{&ir.TensorType{Shape: shapeOf(out), Elem: elem}},
		ir.NamedAttr{Name: "reassociation", Value: reassociation(groups)},
		ir.NamedAttr{Name: "static_output_shape", Value: sa}).Results[0]
}

// collapseShape merges src's dimensions as groups says.
func (b builder) collapseShape(src *ir.Value, groups [][]int) *ir.Value {
	st := src.Type.(*ir.TensorType)
	var shape []int64
	for _, g := range groups {
		n := int64(1)
		for _, d := range g {
			if st.Shape[d] == ir.Dynamic || n == ir.Dynamic {
				n = ir.Dynamic
			} else {
				n *= st.Shape[d]
			}
		}
		shape = append(shape, n)
	}
	return b.emit("tensor.collapse_shape", []*ir.Value{src}, []ir.Type{&ir.TensorType{Shape: shape, Elem: st.Elem}},
		ir.NamedAttr{Name: "reassociation", Value: reassociation(groups)}).Results[0]
}

// transpose writes src permuted into init: dimension i of the result is
// dimension perm[i] of src.
func (b builder) transpose(src, init *ir.Value, perm []int) *ir.Value {
	p := &ir.DenseArrayAttr{Elem: ir.I64, Values: []int64{}}
	for _, d := range perm {
		p.Values = append(p.Values, int64(d))
	}
	return b.emit("linalg.transpose", []*ir.Value{src, init}, []ir.Type{init.Type},
		ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1)},
		ir.NamedAttr{Name: "permutation", Value: p}).Results[0]
}
