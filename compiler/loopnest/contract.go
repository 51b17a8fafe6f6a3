package loopnest

import (
	"fmt"

	"github.com/goiree/goiree/compiler/ir"
)

// The loop-nest kernel contract between this package, which writes the
// entry functions of the dispatches it forms from linalg ops, and the
// targets that compile them. It lives here, with the producer, so that no
// target imports another.

// Attr names the attribute that marks a compiler-generated loop-nest entry
// function (an entry with no arguments, like the elementwise ones). Its
// value is the dictionary Kernel.Dict writes:
//
//	{body = @scalar_fn, ranges = [M, N, -1], iterator_types = ["parallel", ...],
//	 inputs = [{type = tensor<..>, map = affine_map<..>}, ...],
//	 outputs = [{type = tensor<..>, map = affine_map<..>, init}, ...],
//	 tile = T}
//
// The kernel computes what running the loops of ranges does with the
// parallel loops outside the reduction loops (each in dimension order); a
// target may reorder loops as long as every output element sees its
// reduction steps in that order, with one exception: when the body uses
// its (single) accumulator once, in an associative and commutative op
// whose result it returns (addf, mulf, maximumf, minimumf, maxnumf,
// minnumf and the integer ones), the target may reassociate the
// reduction (pairwise, in lanes), as IREE's vectorized reductions do;
// float results then differ from the in-order ones by rounding. A target
// may also divide the work among the workgroups differently from the
// split below (2-D blocks of a matmul's output), as long as the
// workgroups together compute every output element once. Bindings are the inputs, then the
// init of every output that has one (read-only, with that output's type
// and map), then the outputs (Kernel.Bindings), all dense row-major
// buffers of their tensor types. The dispatch's 32-bit push constants are
// the scalar inputs ({scalar = type} entries of inputs, in input order,
// each in one constant as IREE passes primitives: f32 by its bits,
// narrower integers in the low bits, index truncated), then the dynamic
// dimensions of the bindings, in binding and then dimension order; a range of -1 is dynamic and is the size of a binding
// dimension its loop indexes directly. A kernel fails the dispatch
// (non-zero status) when a binding is shorter than its shape, when two
// dimensions indexed directly by one loop differ, or when a constant index
// is outside its dimension, rather than touching memory outside a buffer.
//
// An input index may also be a sum of non-negative multiples of loop
// indices and a non-negative constant (Linear), as convolutions read
// their input; when the sizes in the types do not prove that it stays in
// its dimension, the kernel fails the dispatch if its largest value (all
// loops at their last iteration) is outside it.
//
// An output index may also be a constant or offset + stride * one
// parallel loop, as a tensor.insert_slice places its source; the kernel
// writes only the elements its output maps reach. When the dispatch ties
// the output to one of its operands (the output binding is that operand's
// buffer), the other elements keep the operand's values. An operand marked
// partial ({..., partial}: an output written in part, an input read in
// part, as an extract_slice reads its source) may also be longer than a
// loop that indexes it directly, and a dynamic loop's range is the size of
// a dimension of an operand that is not partial; other dimensions indexed
// directly by one loop must be equal.
//
// For every point of the parallel loops each output's accumulator starts
// from its init element (or zero without init); for every point of the
// reduction loops the body is called with the loop indices (index), the
// inputs (elements at their maps, or the scalars) and the accumulators, and returns the new
// accumulators, in the outputs' element types; at the end each
// accumulator is stored to its output at its map. The first parallel loop
// is split in tiles of T iterations, one per workgroup (workgroup_id.x);
// its range is the dispatch's workload. Without parallel loops there is
// one workgroup.
//
// A kernel with reduction loops may carry an epilogue ({..., epilogue =
// @epilogue_fn, epilogue_inputs = [{type = tensor<..>, map = affine_map<..>},
// ...]}): the elementwise ops that consumed its results, folded into its
// dispatch. Once an output element's reduction is complete (at each point
// of the parallel loops, after the last reduction step), the epilogue
// function is called with the parallel loop indices (index, in loop
// order), the finished accumulators (one per output) and the elements of
// the epilogue inputs at their maps, and returns the values stored, one
// per output, in the outputs' element types; the accumulators are never
// stored. An output whose accumulator has another element type than the
// output (f32 accumulation stored as f16) names it ({..., acc = f32}); its
// init, if any, has the output's shape and map with the accumulator's
// element type. Epilogue inputs are indexed by parallel loops and
// constants only, as a broadcast bias or a residual is; their bindings
// follow the inputs' (inputs, epilogue inputs, inits, outputs), and their
// dynamic dimensions are push constants like every binding's.
//
// An input marked indexed ({type = tensor<Nxelem>, indexed}, no map) is a
// 1-D tensor that the body reads at offsets it computes (a gather's
// table, flattened): it is a binding like any input, in input order, with
// its dynamic size a push constant, but the body's argument for it has
// the tensor type, and the body reads it only with tensor.extract %arg[%off]
// at offsets in [0, N). The target loads that element directly (one load
// per extract). A kernel with an indexed input fails the dispatch when
// that input has no elements (there is no element to read; formation
// clamps every offset into the tensor, see indexed.go). Only targets that
// decode with DecodeIndexed compile such kernels; Decode refuses them.
const Attr = "goiree.loop_nest"

// Operand is one tensor a kernel reads or writes: its type and the
// indexing map from the loop indices to its element indices. A scalar
// input has Scalar set instead (and no type or map).
type Operand struct {
	Type   *ir.TensorType
	Map    *ir.AffineMap
	Scalar ir.Type
	// Init is set on outputs whose accumulators start from an init
	// binding.
	Init bool
	// Partial is set on operands the kernel reaches only in part: an
	// output it writes in part (an insert_slice's destination) or an input
	// it reads in part (an extract_slice's source). A loop indexing one of
	// their dimensions directly may be shorter than it, and the loop's
	// range comes from an operand that is not partial.
	Partial bool
	// Acc is the element type of an output's accumulator when the
	// kernel's epilogue turns it into another element type for storing
	// (nil: the output's own; see AccElem).
	Acc ir.Type
	// Indexed is set on an input the body reads at computed offsets (see
	// Attr); its Type is 1-D and its Map has no results.
	Indexed bool
}

// AccElem returns the element type of an output's accumulator: Acc when
// set, else the output's element type.
func (o Operand) AccElem() ir.Type {
	if o.Acc != nil {
		return o.Acc
	}
	return o.Type.Elem
}

// Fused reports why k needs a target that compiles epilogues and
// accumulator types (target.Target.LoopNestEpilogues): its epilogue, or an
// output accumulated in another type; "" when it needs neither. Dispatch
// formation gives such kernels only to those targets; the others refuse
// them rather than compile them without.
func (k *Kernel) Fused() string {
	if k.Epilogue != "" {
		return "an epilogue (@" + k.Epilogue + ")"
	}
	for i, o := range k.Outputs {
		if o.Acc != nil {
			return fmt.Sprintf("output #%d accumulated as %s", i, ir.TypeString(o.Acc))
		}
	}
	return ""
}

// AccType returns the tensor type of an output's accumulators, the type
// of its init binding: the output's shape with AccElem.
func (o Operand) AccType() *ir.TensorType {
	if o.Acc == nil {
		return o.Type
	}
	return &ir.TensorType{Shape: o.Type.Shape, Elem: o.Acc}
}

// Kernel is the decoded form of the Attr dictionary.
type Kernel struct {
	Body      string
	Ranges    []int64
	Iterators []string
	Inputs    []Operand
	Outputs   []Operand
	Tile      int64
	// Epilogue names the function applied to each output element once
	// its reduction is complete ("": none); EpilogueInputs are the
	// tensors it reads besides the accumulators (see Attr).
	Epilogue       string
	EpilogueInputs []Operand
}

// Parallel returns the parallel loops in order: the indices an epilogue
// takes.
func (k *Kernel) Parallel() []int {
	var out []int
	for i, it := range k.Iterators {
		if it == "parallel" {
			out = append(out, i)
		}
	}
	return out
}

// Inits returns the indices of the outputs that have an init binding.
func (k *Kernel) Inits() []int {
	var out []int
	for i, o := range k.Outputs {
		if o.Init {
			out = append(out, i)
		}
	}
	return out
}

// OuterParallel returns the first parallel loop, the one split across
// workgroups, or -1 when every loop is a reduction.
func (k *Kernel) OuterParallel() int {
	for i, it := range k.Iterators {
		if it == "parallel" {
			return i
		}
	}
	return -1
}

// Binding is one buffer of a kernel, in binding order.
type Binding struct {
	Operand
	// Role is "in", "epilogue", "init" or "out"; Index is the input's,
	// epilogue input's or output's position. An init binding's Type is
	// its output's AccType.
	Role  string
	Index int
}

// Bindings lists the kernel's bindings in order: inputs, epilogue inputs,
// inits, outputs.
func (k *Kernel) Bindings() []Binding {
	var out []Binding
	for i, o := range k.Inputs {
		if o.Scalar == nil {
			out = append(out, Binding{Operand: o, Role: "in", Index: i})
		}
	}
	for i, o := range k.EpilogueInputs {
		out = append(out, Binding{Operand: o, Role: "epilogue", Index: i})
	}
	for _, i := range k.Inits() {
		init := k.Outputs[i]
		init.Type = init.AccType()
		out = append(out, Binding{Operand: init, Role: "init", Index: i})
	}
	for i, o := range k.Outputs {
		out = append(out, Binding{Operand: o, Role: "out", Index: i})
	}
	return out
}

// NumConstants is the number of push constants: one per scalar input and
// one per dynamic dimension of the bindings.
func (k *Kernel) NumConstants() int {
	n := 0
	for _, o := range k.Inputs {
		if o.Scalar != nil {
			n++
		}
	}
	for _, b := range k.Bindings() {
		n += ir.NumDynamicDims(b.Type)
	}
	return n
}

func operandDict(o Operand, output bool) *ir.DictAttr {
	if o.Scalar != nil {
		return &ir.DictAttr{Entries: []ir.NamedAttr{{Name: "scalar", Value: ir.TypeAttr{Type: o.Scalar}}}}
	}
	if o.Indexed {
		return &ir.DictAttr{Entries: []ir.NamedAttr{
			{Name: "type", Value: ir.TypeAttr{Type: o.Type}},
			{Name: "indexed", Value: ir.UnitAttr{}},
		}}
	}
	d := &ir.DictAttr{Entries: []ir.NamedAttr{
		{Name: "type", Value: ir.TypeAttr{Type: o.Type}},
		{Name: "map", Value: ir.AffineMapAttr{Map: o.Map}},
	}}
	if output && o.Init {
		d.Entries = append(d.Entries, ir.NamedAttr{Name: "init", Value: ir.UnitAttr{}})
	}
	if o.Partial {
		d.Entries = append(d.Entries, ir.NamedAttr{Name: "partial", Value: ir.UnitAttr{}})
	}
	if output && o.Acc != nil {
		d.Entries = append(d.Entries, ir.NamedAttr{Name: "acc", Value: ir.TypeAttr{Type: o.Acc}})
	}
	return d
}

// Dict encodes the kernel as the Attr dictionary.
func (k *Kernel) Dict() *ir.DictAttr {
	var ranges, its, ins, outs []ir.Attribute
	for _, r := range k.Ranges {
		ranges = append(ranges, ir.IndexAttr(r))
	}
	for _, it := range k.Iterators {
		its = append(its, ir.StringAttr{Value: it})
	}
	for _, o := range k.Inputs {
		ins = append(ins, operandDict(o, false))
	}
	for _, o := range k.Outputs {
		outs = append(outs, operandDict(o, true))
	}
	d := &ir.DictAttr{Entries: []ir.NamedAttr{
		{Name: "body", Value: ir.SymbolRefAttr{Root: k.Body}},
		{Name: "ranges", Value: &ir.ArrayAttr{Elems: ranges}},
		{Name: "iterator_types", Value: &ir.ArrayAttr{Elems: its}},
		{Name: "inputs", Value: &ir.ArrayAttr{Elems: ins}},
		{Name: "outputs", Value: &ir.ArrayAttr{Elems: outs}},
		{Name: "tile", Value: ir.IndexAttr(k.Tile)},
	}}
	if k.Epilogue != "" {
		epi := []ir.Attribute{}
		for _, o := range k.EpilogueInputs {
			epi = append(epi, operandDict(o, false))
		}
		d.Entries = append(d.Entries,
			ir.NamedAttr{Name: "epilogue", Value: ir.SymbolRefAttr{Root: k.Epilogue}},
			ir.NamedAttr{Name: "epilogue_inputs", Value: &ir.ArrayAttr{Elems: epi}})
	}
	return d
}

func decodeOperands(a ir.Attribute, what string, nloops int) ([]Operand, error) {
	arr, ok := a.(*ir.ArrayAttr)
	if !ok {
		return nil, fmt.Errorf("%s must be an array of dictionaries", what)
	}
	var out []Operand
	for i, e := range arr.Elems {
		d, ok := e.(*ir.DictAttr)
		if !ok {
			return nil, fmt.Errorf("%s #%d must be a dictionary", what, i)
		}
		if sa, ok := d.Get("scalar").(ir.TypeAttr); ok && what == "input" {
			if scalarType(sa.Type) {
				out = append(out, Operand{Scalar: sa.Type})
				continue
			}
			return nil, fmt.Errorf("input #%d: scalar type '%s' is not an integer, float or index type", i, ir.TypeString(sa.Type))
		}
		ta, _ := d.Get("type").(ir.TypeAttr)
		tt, ok := ta.Type.(*ir.TensorType)
		if !ok || tt.Unranked {
			return nil, fmt.Errorf("%s #%d needs a ranked tensor type", what, i)
		}
		if d.Get("indexed") != nil {
			if what != "input" || len(tt.Shape) != 1 || d.Get("map") != nil {
				return nil, fmt.Errorf("%s #%d: only an input may be indexed, with a 1-D tensor type and no map", what, i)
			}
			out = append(out, Operand{Type: tt, Map: &ir.AffineMap{NumDims: nloops}, Indexed: true})
			continue
		}
		m, ok := d.Get("map").(ir.AffineMapAttr)
		if !ok || m.Map.NumDims != nloops || m.Map.NumSyms != 0 || len(m.Map.Results) != len(tt.Shape) {
			return nil, fmt.Errorf("%s #%d needs an affine map from the %d loops to its %d indices", what, i, nloops, len(tt.Shape))
		}
		o := Operand{Type: tt, Map: m.Map, Init: d.Get("init") != nil, Partial: d.Get("partial") != nil}
		if a := d.Get("acc"); a != nil && what == "output" {
			ta, ok := a.(ir.TypeAttr)
			if !ok || !scalarType(ta.Type) {
				return nil, fmt.Errorf("output #%d: acc must be an integer, float or index type", i)
			}
			o.Acc = ta.Type
		}
		out = append(out, o)
	}
	return out, nil
}

// scalarType reports whether t is an element type a kernel computes with.
func scalarType(t ir.Type) bool {
	switch t.(type) {
	case ir.IntegerType, ir.FloatType, ir.IndexType:
		return true
	}
	return false
}

// Decode reads a kernel from its Attr dictionary, refusing one with an
// indexed input (a target that compiles those uses DecodeIndexed).
func Decode(d *ir.DictAttr) (*Kernel, error) {
	k, err := DecodeIndexed(d)
	if err != nil {
		return nil, err
	}
	if i := k.FirstIndexed(); i >= 0 {
		return nil, fmt.Errorf("input #%d is read at computed indices (a tensor.extract in the linalg body), which this target does not compile yet", i)
	}
	return k, nil
}

// FirstIndexed returns the position of the first indexed input, or -1.
func (k *Kernel) FirstIndexed() int {
	for i, o := range k.Inputs {
		if o.Indexed {
			return i
		}
	}
	return -1
}

// DecodeIndexed reads a kernel from its Attr dictionary, indexed inputs
// included.
func DecodeIndexed(d *ir.DictAttr) (*Kernel, error) {
	k := &Kernel{}
	ref, ok := d.Get("body").(ir.SymbolRefAttr)
	if !ok {
		return nil, fmt.Errorf("%s needs a body symbol", Attr)
	}
	k.Body = ref.Root
	rs, ok := d.Get("ranges").(*ir.ArrayAttr)
	if !ok {
		return nil, fmt.Errorf("%s needs ranges", Attr)
	}
	for _, r := range rs.Elems {
		v, ok := r.(ir.IntegerAttr)
		if !ok || v.Value < 0 && v.Value != ir.Dynamic {
			return nil, fmt.Errorf("%s ranges must be non-negative integers or -1 (dynamic)", Attr)
		}
		k.Ranges = append(k.Ranges, v.Value)
	}
	its, ok := d.Get("iterator_types").(*ir.ArrayAttr)
	if !ok || len(its.Elems) != len(k.Ranges) {
		return nil, fmt.Errorf("%s needs one iterator type per range", Attr)
	}
	for _, it := range its.Elems {
		s, ok := it.(ir.StringAttr)
		if !ok || s.Value != "parallel" && s.Value != "reduction" {
			return nil, fmt.Errorf("%s iterator types must be \"parallel\" or \"reduction\"", Attr)
		}
		k.Iterators = append(k.Iterators, s.Value)
	}
	var err error
	if k.Inputs, err = decodeOperands(d.Get("inputs"), "input", len(k.Ranges)); err != nil {
		return nil, err
	}
	if k.Outputs, err = decodeOperands(d.Get("outputs"), "output", len(k.Ranges)); err != nil {
		return nil, err
	}
	if err := k.decodeEpilogue(d); err != nil {
		return nil, err
	}
	for i, o := range k.Inputs {
		if o.Scalar != nil || o.Indexed {
			continue
		}
		// Kernels index inputs by loop indices, constants and sums of
		// non-negative multiples of loop indices and a constant (a
		// convolution's window), each within the input's bounds, so they
		// never read outside it. What the sizes known here cannot show,
		// the kernel checks before it reads.
		for r, e := range o.Map.Results {
			size := o.Type.Shape[r]
			switch {
			case e.Kind == ir.AffineDim && (k.Ranges[e.Pos] == ir.Dynamic || size == ir.Dynamic || k.Ranges[e.Pos] <= size):
			case e.Kind == ir.AffineConst && e.Value >= 0 && (size == ir.Dynamic || e.Value < size):
			case e.Kind != ir.AffineDim && e.Kind != ir.AffineConst:
				lin, ok := Linear(e)
				if !ok {
					return nil, fmt.Errorf("input #%d: index %d (%s) must be a loop index, a constant, or a sum of non-negative multiples of loop indices and a non-negative constant", i, r, e)
				}
				if hi, ok := lin.Max(k.Ranges); ok && size != ir.Dynamic && hi >= size {
					return nil, fmt.Errorf("input #%d: index %d (%s) reaches %d, outside dimension %d (size %d)", i, r, e, hi, r, size)
				}
			default:
				return nil, fmt.Errorf("input #%d: index %d (%s) must be a loop index whose range fits dimension %d (size %d), or a constant in it", i, r, e, r, size)
			}
		}
	}
	for l, r := range k.Ranges {
		if r != ir.Dynamic {
			continue
		}
		found := false
		for _, b := range k.Bindings() {
			for _, e := range b.Map.Results {
				found = found || e.Kind == ir.AffineDim && e.Pos == l
			}
		}
		if !found {
			return nil, fmt.Errorf("dynamic loop d%d is not the bare index of any operand dimension", l)
		}
	}
	if len(k.Outputs) == 0 {
		return nil, fmt.Errorf("%s needs at least one output", Attr)
	}
	for i, o := range k.Outputs {
		// Each output index is a parallel loop, a constant, or offset +
		// stride * one parallel loop (an insert_slice's place), and every
		// parallel loop indexes exactly one dimension, so each element is
		// written at most once per kernel.
		used := map[int]bool{}
		for r, e := range o.Map.Results {
			size := o.Type.Shape[r]
			switch {
			case e.Kind == ir.AffineDim:
				if k.Ranges[e.Pos] != ir.Dynamic && size != ir.Dynamic && k.Ranges[e.Pos] > size {
					return nil, fmt.Errorf("output #%d: loop d%d's range %d exceeds dimension %d (size %d)", i, e.Pos, k.Ranges[e.Pos], r, size)
				}
				if used[e.Pos] || k.Iterators[e.Pos] != "parallel" {
					return nil, fmt.Errorf("output #%d's map must index by parallel loops only, each once", i)
				}
				used[e.Pos] = true
			case e.Kind == ir.AffineConst:
				if e.Value < 0 || size != ir.Dynamic && e.Value >= size {
					return nil, fmt.Errorf("output #%d: index %d (%d) is outside dimension %d (size %d)", i, r, e.Value, r, size)
				}
			default:
				lin, ok := Linear(e)
				if !ok || len(lin.Coeffs) != 1 {
					return nil, fmt.Errorf("output #%d: index %d (%s) must be a parallel loop, a constant, or offset + stride * one parallel loop", i, r, e)
				}
				for l, c := range lin.Coeffs {
					if c <= 0 || used[l] || k.Iterators[l] != "parallel" {
						return nil, fmt.Errorf("output #%d's map must index by parallel loops only, each once", i)
					}
					used[l] = true
				}
				if hi, ok := lin.Max(k.Ranges); ok && size != ir.Dynamic && hi >= size {
					return nil, fmt.Errorf("output #%d: index %d (%s) reaches %d, outside dimension %d (size %d)", i, r, e, hi, r, size)
				}
			}
		}
		if len(used) != len(k.Ranges)-len(reductions(k.Iterators)) {
			return nil, fmt.Errorf("output #%d's map must use every parallel loop once", i)
		}
	}
	t, ok := d.Get("tile").(ir.IntegerAttr)
	if !ok || t.Value <= 0 {
		return nil, fmt.Errorf("%s needs a positive tile", Attr)
	}
	k.Tile = t.Value
	return k, nil
}

// decodeEpilogue reads and checks the epilogue entries of d into k.
func (k *Kernel) decodeEpilogue(d *ir.DictAttr) error {
	if d.Get("epilogue") == nil {
		if d.Get("epilogue_inputs") != nil {
			return fmt.Errorf("epilogue_inputs need an epilogue")
		}
		for i, o := range k.Outputs {
			if o.Acc != nil {
				return fmt.Errorf("output #%d: an acc type needs an epilogue to convert it", i)
			}
		}
		return nil
	}
	ref, ok := d.Get("epilogue").(ir.SymbolRefAttr)
	if !ok || ref.Root == "" || len(ref.Nested) > 0 {
		return fmt.Errorf("%s epilogue must be a function symbol", Attr)
	}
	if len(reductions(k.Iterators)) == 0 {
		// Without reduction loops the epilogue would be part of the body.
		return fmt.Errorf("%s epilogue needs a kernel with reduction loops", Attr)
	}
	k.Epilogue = ref.Root
	ins := d.Get("epilogue_inputs")
	if ins == nil {
		ins = &ir.ArrayAttr{}
	}
	var err error
	if k.EpilogueInputs, err = decodeOperands(ins, "epilogue input", len(k.Ranges)); err != nil {
		return err
	}
	// An epilogue input is read once per output element: each index is a
	// parallel loop whose range fits its dimension, or a constant in it.
	for i, o := range k.EpilogueInputs {
		for r, e := range o.Map.Results {
			size := o.Type.Shape[r]
			switch {
			case e.Kind == ir.AffineDim && k.Iterators[e.Pos] == "parallel":
				if k.Ranges[e.Pos] != ir.Dynamic && size != ir.Dynamic && k.Ranges[e.Pos] > size {
					return fmt.Errorf("epilogue input #%d: loop d%d's range %d exceeds dimension %d (size %d)", i, e.Pos, k.Ranges[e.Pos], r, size)
				}
			case e.Kind == ir.AffineConst:
				if e.Value < 0 || size != ir.Dynamic && e.Value >= size {
					return fmt.Errorf("epilogue input #%d: index %d (%d) is outside dimension %d (size %d)", i, r, e.Value, r, size)
				}
			default:
				return fmt.Errorf("epilogue input #%d: index %d (%s) must be a parallel loop or a constant", i, r, e)
			}
		}
	}
	return nil
}

func reductions(its []string) []int {
	var out []int
	for i, it := range its {
		if it == "reduction" {
			out = append(out, i)
		}
	}
	return out
}

// LinearIndex is an index expression c0 + sum of Coeffs[d] * d over loop
// dimensions d, with every coefficient and c0 non-negative.
type LinearIndex struct {
	Const  int64
	Coeffs map[int]int64
}

// Linear decomposes an affine expression of loop dimensions into a
// LinearIndex; ok is false when it has symbols, division, modulo, a
// product of two loop indices or a negative coefficient.
func Linear(e *ir.AffineExpr) (LinearIndex, bool) {
	l := LinearIndex{Coeffs: map[int]int64{}}
	if !addLinear(&l, e, 1) || l.Const < 0 {
		return l, false
	}
	for _, c := range l.Coeffs {
		if c < 0 {
			return l, false
		}
	}
	return l, true
}

func addLinear(l *LinearIndex, e *ir.AffineExpr, scale int64) bool {
	switch e.Kind {
	case ir.AffineDim:
		l.Coeffs[e.Pos] += scale
		return true
	case ir.AffineConst:
		l.Const += scale * e.Value
		return true
	case ir.AffineAdd:
		return addLinear(l, e.LHS, scale) && addLinear(l, e.RHS, scale)
	case ir.AffineMul:
		if e.RHS.Kind == ir.AffineConst {
			return addLinear(l, e.LHS, scale*e.RHS.Value)
		}
		if e.LHS.Kind == ir.AffineConst {
			return addLinear(l, e.RHS, scale*e.LHS.Value)
		}
	}
	return false
}

// Max returns the index's value with every loop at its last iteration;
// ok is false when a range it uses is dynamic or zero (then no iteration
// reads).
func (l LinearIndex) Max(ranges []int64) (int64, bool) {
	v := l.Const
	for d, c := range l.Coeffs {
		if c == 0 {
			continue
		}
		if d >= len(ranges) || ranges[d] == ir.Dynamic || ranges[d] <= 0 {
			return 0, false
		}
		v += c * (ranges[d] - 1)
	}
	return v, true
}
