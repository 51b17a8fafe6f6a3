// Package stablehlotolinalg lowers StableHLO (and MHLO) ops to linalg,
// tensor, arith and math, as IREE's StableHLO input conversion does:
//
//   - elementwise ops (and convert, select, clamp) become a linalg.generic
//     over a tensor.empty of the result type; the rank-0 predicate of
//     select and bounds of clamp are read once for every element;
//   - constant becomes arith.constant;
//   - reshape becomes flow.tensor.reshape, concatenate tensor.concat, and
//     pad a fill with the padding value and a tensor.insert_slice;
//   - transpose, broadcast, broadcast_in_dim, slice (with strides) and iota
//     become a linalg.generic reading their operand through a map (iota
//     through linalg.index);
//   - dot and dot_general become a contraction (linalg.generic with a reduction loop)
//     into a zero-filled result, operands extended to the result type;
//   - batch_norm_inference becomes one elementwise linalg.generic, the
//     per-feature operands read along feature_index;
//   - reduce, of any number of operands, becomes one linalg.generic
//     reducing them into results filled with the init values, whose scalar
//     body is the reduce's body with each op on rank-0 tensors turned into
//     its scalar op;
//   - reduce_window becomes the same reduction over (output, window)
//     loops, reading each operand, padded with its init value, at
//     output * stride + window * dilation (pooling);
//   - convolution (any dimension numbers, strides, padding, rhs dilation,
//     feature groups) becomes a contraction over the kernel window and
//     the input features of a group, into a zero-filled result;
//   - rng becomes IREE's stateless generators: UNIFORM a linalg.generic
//     hashing each element's index with a linear congruential step,
//     NORMAL the Box-Muller transform of compile-time std::mt19937(0)
//     uniforms (constant tables) scaled by sigma and shifted by mu;
//   - rng_bit_generator becomes a linalg.generic computing each element's
//     block of Threefry-2x32 or Philox-4x32 (XLA's algorithms) from the
//     state's key and counter with integer ops, and a small one writing
//     the advanced counter into the new state (see rngbits.go).
//
// torch_index_select, gather, reverse and dynamic_slice read at indices
// that are data or count down, which kernel maps cannot express: the body
// computes the index (starts clamped as StableHLO defines them; an index
// outside torch_index_select's input gives 0) and reads there directly
// with tensor.extract. dynamic_update_slice and scatter write at such
// indices: a reduction loop over the candidates keeps (or, for scatter,
// combines through its body) the element whose index matches (see
// select.go). sort ranks every element by the comparator
// over all pairs, stably, and moves each to its rank the same way.
//
// custom_call takes the targets IREE lowers: shape_assertion is dropped
// and ProductOfElementaryHouseholderReflectors multiplies the reflectors.
//
// Complex tensors are kept as their real and imaginary parts (see
// lowerComplex), which fft, complex arithmetic, real and imag compute.
//
// CHLO's broadcasting binary ops (chlo.broadcast_add and the like, in
// generic form) become the same linalg.generic as the plain op, each
// operand's dimensions aligned with the result's trailing ones (or placed
// by broadcast_dimensions) and a size-1 dimension read at 0.
//
// Integer semantics follow the StableHLO specification: shifts by the
// bit width or more give 0 (or the sign, for arithmetic right shifts),
// sign keeps NaN and signed zeros, and convert from i1 is unsigned.
//
// Dynamic dimensions are taken by the ops whose loops read them directly
// (elementwise ops, transpose, dot, dot_general, reduce,
// batch_norm_inference, torch_index_select, scatter, sort): a result's
// dynamic size is the size of an operand
// dimension its loop indexes (tensor.dim), and the kernels check at run
// time that the sizes one loop indexes agree. Only signless integers are
// supported; anything else is refused with an error at the op.
package stablehlotolinalg

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/conversion/internal/rewrite"
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// Convert lowers every StableHLO and MHLO op in module.
func Convert(module *ir.Operation) error {
	if err := lowerComplex(module); err != nil {
		return err
	}
	var ops []*ir.Operation
	ir.Walk(module, func(o *ir.Operation) bool {
		n, ok := opName(o)
		if ok {
			ops = append(ops, o)
		}
		// The bodies of reductions are read by their lowerings, not
		// lowered themselves.
		return !hasBody[n]
	})
	repl := replacements{}
	for _, o := range ops {
		c := &converter{root: module, op: o, repl: repl}
		if err := c.lower(); err != nil {
			return err
		}
	}
	repl.apply(module)
	return nil
}

// replacements maps the results of the ops converted so far to the
// values that stand for them. Uses are rewritten once, at the end
// (apply), rather than by a walk of the module per op, which made large
// programs (thousands of ops) quadratic; until then new ops may still
// name an old result, which has the same type.
type replacements map[*ir.Value]*ir.Value

// resolve follows v through the replacements.
func (r replacements) resolve(v *ir.Value) *ir.Value {
	for {
		n, ok := r[v]
		if !ok {
			return v
		}
		v = n
	}
}

// apply rewrites every use under root.
func (r replacements) apply(root *ir.Operation) {
	if len(r) == 0 {
		return
	}
	ir.Walk(root, func(o *ir.Operation) bool {
		for i, v := range o.Operands {
			o.Operands[i] = r.resolve(v)
		}
		return true
	})
}

// hasBody names the ops whose bodies of StableHLO ops on rank-0 tensors
// their lowerings turn into scalar code (regionBody).
var hasBody = map[string]bool{"reduce": true, "reduce_window": true, "scatter": true, "sort": true}

// opName returns o's name without its stablehlo., mhlo. or chlo. prefix.
func opName(o *ir.Operation) (string, bool) {
	for _, p := range append([]string{"chlo."}, stablehlo.Prefixes...) {
		if n, ok := strings.CutPrefix(o.Name, p); ok {
			return n, true
		}
	}
	return "", false
}

type converter struct {
	root, op *ir.Operation
	repl     replacements
}

func (c *converter) errorf(format string, args ...any) error {
	return ir.OpErrorf(c.op, format, args...)
}

// emit inserts o before the op being converted.
func (c *converter) emit(o *ir.Operation) *ir.Operation { return rewrite.Emit(c.op, o) }

// replace makes r, a value made for it, the converted op's result (under
// its name) and removes the op.
func (c *converter) replace(r *ir.Value) { c.replaceAll([]*ir.Value{r}) }

// replaceAll is replace for each of the converted op's results.
func (c *converter) replaceAll(rs []*ir.Value) {
	for i, r := range rs {
		r.Name = c.op.Results[i].Name
	}
	c.forward(rs)
}

// forward makes existing values rs stand for the converted op's results,
// keeping their names, and removes the op.
func (c *converter) forward(rs []*ir.Value) {
	for i, r := range rs {
		c.repl[c.op.Results[i]] = r
	}
	c.op.Remove()
}

// checkType refuses unranked tensors, dynamic shapes where the lowering
// needs static ones, and non-signless integers.
func (c *converter) checkType(what string, t ir.Type, static bool) error {
	tt := stablehlo.Ranked(t)
	if tt == nil || static && ir.NumDynamicDims(tt) > 0 {
		return c.errorf("%s: dynamic shapes ('%s') are not supported yet", what, ir.TypeString(t))
	}
	if it, ok := tt.Elem.(ir.IntegerType); ok && it.Signedness != ir.Signless {
		return c.errorf("%s: signed or unsigned integer types ('%s') are not supported yet", what, ir.TypeString(t))
	}
	return nil
}

func (c *converter) lower() error {
	name, _ := opName(c.op)
	static := staticOnly[name] || strings.HasPrefix(c.op.Name, "chlo.")
	for i, v := range c.op.Results {
		what := "result"
		if len(c.op.Results) > 1 {
			what = fmt.Sprintf("result #%d", i)
		}
		if err := c.checkType(what, v.Type, static); err != nil {
			return err
		}
	}
	for i, v := range c.op.Operands {
		if err := c.checkType(fmt.Sprintf("operand #%d", i), v.Type, static); err != nil {
			return err
		}
	}
	switch name {
	case "reduce":
		return c.reduce()
	case "reduce_window":
		return c.reduceWindow()
	case "sort":
		return c.sort()
	case "custom_call":
		return c.customCall()
	case "rng_bit_generator":
		return c.rngBitGenerator()
	case "scatter":
		if len(c.op.Results) == 1 {
			return c.scatter(stablehlo.Ranked(c.op.Results[0].Type))
		}
	case "copy":
		// A value copy (MHLO's, from TensorFlow): tensors are values, so
		// the result is the operand.
		if len(c.op.Operands) == 1 && len(c.op.Results) == 1 && ir.TypesEqual(c.op.Operands[0].Type, c.op.Results[0].Type) {
			c.forward(c.op.Operands)
			return nil
		}
		return c.errorf("expects one operand of the result's type")
	}
	if len(c.op.Results) != 1 {
		return c.errorf("lowering is not supported yet")
	}
	rt := stablehlo.Ranked(c.op.Results[0].Type)
	if name == "constant" {
		r := c.emit(ir.NewOp("arith.constant", nil, []ir.Type{rt}, []ir.NamedAttr{{Name: "value", Value: c.op.Attr("value")}}))
		c.replace(r.Results[0])
		return nil
	}
	if n, ok := strings.CutPrefix(c.op.Name, "chlo.broadcast_"); ok {
		return c.chloBroadcast(n, rt)
	}
	if strings.HasPrefix(c.op.Name, "chlo.") {
		return c.errorf("lowering is not supported yet")
	}
	switch name {
	case "reshape":
		return c.reshape(rt)
	case "transpose":
		return c.transpose(rt)
	case "broadcast_in_dim":
		return c.broadcastInDim(rt)
	case "iota":
		return c.iota(rt)
	case "slice":
		return c.slice(rt)
	case "concatenate":
		return c.concatenate(rt)
	case "dot":
		return c.dot(rt)
	case "dot_general":
		return c.dotGeneral(rt)
	case "broadcast":
		return c.broadcast(rt)
	case "convolution":
		return c.convolution(rt)
	case "rng":
		return c.rng(rt)
	case "torch_index_select":
		return c.torchIndexSelect(rt)
	case "reverse":
		return c.reverse(rt)
	case "dynamic_slice":
		return c.dynamicSlice(rt)
	case "dynamic_update_slice":
		return c.dynamicUpdateSlice(rt)
	case "gather":
		return c.gather(rt)
	case "pad":
		return c.pad(rt)
	case "batch_norm_inference":
		return c.batchNormInference(rt)
	}
	if _, ok := stablehlo.Arity[name]; !ok {
		return c.errorf("lowering is not supported yet")
	}
	body, err := c.scalarBody(name, rt.Elem)
	if err != nil {
		return err
	}
	return c.elementwise(c.op.Operands, rt, body)
}

func identity(n int) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	for i := 0; i < n; i++ {
		m.Results = append(m.Results, &ir.AffineExpr{Kind: ir.AffineDim, Pos: i})
	}
	return m
}

// elementwise emits the linalg.generic applying body to ins element by
// element; a rank-0 operand of a ranked result is read at every point.
func (c *converter) elementwise(ins []*ir.Value, rt *ir.TensorType, body scalarFunc) error {
	n := len(rt.Shape)
	var maps []*ir.AffineMap
	for _, v := range ins {
		m := identity(n)
		if len(stablehlo.Ranked(v.Type).Shape) == 0 {
			m = &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
		}
		maps = append(maps, m)
	}
	return c.generic(ins, maps, rt, body)
}

// generic emits a linalg.generic over the result's dimensions that reads
// ins through maps, writes body's value to a new tensor of type rt, and
// replaces the converted op with it.
func (c *converter) generic(ins []*ir.Value, maps []*ir.AffineMap, rt *ir.TensorType, body scalarFunc) error {
	n := len(rt.Shape)
	iters := make([]string, n)
	for i := range iters {
		iters[i] = "parallel"
	}
	out, err := c.empty(rt, identity(n), ins, maps)
	if err != nil {
		return err
	}
	g, err := c.genericOp(ins, append(append([]*ir.AffineMap(nil), maps...), identity(n)), out, iters, func(x builder, a []*ir.Value) (*ir.Value, error) {
		return body(x, a[:len(ins)])
	})
	if err != nil {
		return err
	}
	c.replace(g)
	return nil
}

// genericOp emits a linalg.generic reading ins through maps (the last
// map is out's) over loops of kinds iters, yielding body's value; body
// gets the input elements followed by the output's.
func (c *converter) genericOp(ins []*ir.Value, maps []*ir.AffineMap, out *ir.Value, iters []string, body scalarFunc) (*ir.Value, error) {
	rs, err := c.genericOps(ins, maps, []*ir.Value{out}, iters, func(x builder, a []*ir.Value) ([]*ir.Value, error) {
		r, err := body(x, a)
		return []*ir.Value{r}, err
	})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// genericOps is genericOp with several outputs (maps ends with theirs):
// body gets the input elements followed by the outputs' and returns one
// value for each output.
func (c *converter) genericOps(ins []*ir.Value, maps []*ir.AffineMap, outs []*ir.Value, iters []string, body func(x builder, a []*ir.Value) ([]*ir.Value, error)) ([]*ir.Value, error) {
	var mapAttrs, itAttrs []ir.Attribute
	var argTypes, resTypes []ir.Type
	for _, m := range maps {
		mapAttrs = append(mapAttrs, ir.AffineMapAttr{Map: m})
	}
	operands := append(append([]*ir.Value(nil), ins...), outs...)
	for _, v := range operands {
		argTypes = append(argTypes, stablehlo.Ranked(v.Type).Elem)
	}
	for _, v := range outs {
		resTypes = append(resTypes, v.Type)
	}
	for _, it := range iters {
		itAttrs = append(itAttrs, ir.StringAttr{Value: it})
	}
	g := ir.NewOp("linalg.generic", operands, resTypes, []ir.NamedAttr{
		{Name: "indexing_maps", Value: &ir.ArrayAttr{Elems: mapAttrs}},
		{Name: "iterator_types", Value: &ir.ArrayAttr{Elems: itAttrs}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(ins), len(outs))},
	})
	b := g.AddRegion().AddBlock(argTypes...)
	for i, a := range b.Args {
		a.Name = fmt.Sprintf("in%d", i)
		if i >= len(ins) {
			a.Name = "out"
			if len(outs) > 1 {
				a.Name = fmt.Sprintf("out%d", i-len(ins))
			}
		}
	}
	rs, err := body(builder{b}, b.Args)
	if err != nil {
		return nil, err
	}
	b.Append(ir.NewOp("linalg.yield", rs, nil, nil))
	ir.Walk(g, func(o *ir.Operation) bool {
		o.Pos = c.op.Pos
		o.Loc = c.op.Loc
		return true
	})
	c.emit(g)
	return g.Results, nil
}

// chloBroadcast lowers chlo.broadcast_<name>: binary op name applied
// with numpy-style broadcasting.
func (c *converter) chloBroadcast(name string, rt *ir.TensorType) error {
	if _, ok := binary[name]; !ok || len(c.op.Operands) != 2 {
		return c.errorf("lowering is not supported yet")
	}
	n := len(rt.Shape)
	var maps []*ir.AffineMap
	for i, v := range c.op.Operands {
		t := stablehlo.Ranked(v.Type)
		r := len(t.Shape)
		place := make([]int64, r)
		for d := range place {
			place[d] = int64(n - r + d)
		}
		if dims, ok := c.ints("broadcast_dimensions"); ok && r < n {
			if len(dims) != r {
				return c.errorf("broadcast_dimensions %v do not place operand #%d of rank %d", dims, i, r)
			}
			place = dims
		}
		m := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
		for d, p := range place {
			if p < 0 || int(p) >= n || t.Shape[d] != 1 && t.Shape[d] != rt.Shape[p] {
				return c.errorf("operand #%d '%s' does not broadcast to '%s'", i, ir.TypeString(t), ir.TypeString(rt))
			}
			e := dim(int(p))
			if t.Shape[d] == 1 && rt.Shape[p] != 1 {
				e = affConst(0)
			}
			m.Results = append(m.Results, e)
		}
		maps = append(maps, m)
	}
	body, err := c.scalarBody(name, rt.Elem)
	if err != nil {
		return err
	}
	return c.generic(c.op.Operands, maps, rt, body)
}

// batchNormInference computes scale * (x - mean) / sqrt(variance +
// epsilon) + offset, the operands being (x, scale, offset, mean,
// variance) and the last four indexed by the feature dimension.
func (c *converter) batchNormInference(rt *ir.TensorType) error {
	n := len(rt.Shape)
	f, ok := c.op.IntAttr("feature_index")
	if !ok || f < 0 || int(f) >= n || len(c.op.Operands) != 5 || !isFloat(rt.Elem) {
		return c.errorf("requires five float operands and a 'feature_index' in [0, %d)", n)
	}
	eps, ok := c.op.Attr("epsilon").(ir.FloatAttr)
	if !ok {
		return c.errorf("requires a float 'epsilon'")
	}
	maps := []*ir.AffineMap{identity(n)}
	for i, v := range c.op.Operands[1:] {
		if t := stablehlo.Ranked(v.Type); len(t.Shape) != 1 || !sameSize(t.Shape[0], rt.Shape[f]) {
			return c.errorf("operand #%d '%s' is not a vector of the %d features", i+1, ir.TypeString(v.Type), rt.Shape[f])
		}
		maps = append(maps, &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{dim(int(f))}})
	}
	return c.generic(c.op.Operands, maps, rt, func(x builder, a []*ir.Value) (*ir.Value, error) {
		e := x.op("arith.constant", nil, rt.Elem, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: eps.Value, Type: rt.Elem}})
		sd := x.un("math.sqrt", x.bin("arith.addf", a[4], e))
		norm := x.bin("arith.divf", x.bin("arith.subf", a[0], a[3]), sd)
		return x.bin("arith.addf", x.bin("arith.mulf", norm, a[1]), a[2]), nil
	})
}
