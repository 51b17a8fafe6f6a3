package linalgexttolinalg

import (
	"math"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

var f32 = ir.FloatType{Name: "f32"}

// attention lowers iree_linalg_ext.attention as IREE's decomposition
// does (AttentionOp::decomposeOperation), in linalg.generics:
//
//	S = (Q * scale * log2(e)) @ K^T          in f32, a contraction over k1
//	S = body(S)                              the op's region, when it is not the identity
//	S = S + mask                             i1: 0 where set, -inf where not; a float mask times log2(e)
//	max = rowmax(S) over k2                  from the lowest finite f32
//	sum = rowsum(exp2(S - max))
//	P = exp2(S - max) / sum                  in V's element type
//	O = P @ V                                a contraction over k2, into a zero-filled output
//
// Scaling by log2(e) and taking exp2 is IREE's way of computing exp; the
// region sees the scores so scaled, as in IREE. S is indexed by the batch,
// m and k2 loops, each list in increasing order.
//
// online_attention (OnlineAttentionOp::decomposeOperation) computes S in
// the output's element type and carries a running row maximum and sum,
// returning (acc, max, sum):
//
//	newMax = max(oldMax, rowmax(S))
//	norm = exp2(oldMax - newMax)
//	P = exp2(S - newMax)
//	newSum = oldSum * norm + rowsum(P)
//	acc = acc * norm + P @ V
func (b builder) attention(op *ir.Operation) ([]*ir.Value, error) {
	a, err := linalgext.AttentionOf(op)
	if err != nil {
		return nil, err
	}
	online := a.Max != nil
	dims := linalgext.ClassifyAttention(a)
	numLoops := a.Maps[0].NumDims
	operands := []*ir.Value{a.Query, a.Key, a.Value, a.Output}
	maps := []*ir.AffineMap{a.Maps[0], a.Maps[1], a.Maps[2], a.OutputMap()}
	sizes := make([]size, numLoops)
	for d := range sizes {
		sizes[d] = size{n: ir.Dynamic}
	}
	// Each loop's size: static from any operand that has it, else
	// tensor.dim of the first operand it indexes.
	for pass := 0; pass < 2; pass++ {
		for i, v := range operands {
			sh := v.Type.(*ir.TensorType).Shape
			for r, e := range maps[i].Results {
				d := e.Pos
				if sizes[d].v != nil || sizes[d].n != ir.Dynamic {
					continue
				}
				if sh[r] != ir.Dynamic {
					sizes[d] = static(sh[r])
				} else if pass == 1 {
					sizes[d] = size{n: ir.Dynamic, v: b.emit("tensor.dim", []*ir.Value{v, b.index(int64(r))}, []ir.Type{ir.IndexType{}}).Results[0]}
				}
			}
		}
	}
	sd := append(append(append([]int(nil), dims.Batch...), dims.M...), dims.K2...)
	rows := len(dims.Batch) + len(dims.M)
	var sSizes []size
	for _, d := range sd {
		sSizes = append(sSizes, sizes[d])
	}
	ns := len(sd)
	sMap := dimsMap(numLoops, sd...)
	// The scores' element type: f32 for attention, the output's for
	// online_attention, as IREE's decompositions choose.
	et := ir.Type(f32)
	if online {
		et = arith.ElementType(a.Output.Type)
	}

	// S = (Q * scale * log2(e)) @ K^T, over every loop but n.
	qkLoops := without(numLoops, dims.N)
	remapQK := func(m *ir.AffineMap) (*ir.AffineMap, error) { return remap(op, m, qkLoops) }
	qm, err := remapQK(maps[0])
	if err != nil {
		return nil, err
	}
	km, err := remapQK(maps[1])
	if err != nil {
		return nil, err
	}
	sm, err := remapQK(sMap)
	if err != nil {
		return nil, err
	}
	// scale * log2(e), as an f32: dispatches take scalars as 32-bit push
	// constants, and the body converts it. A constant scale folds (host
	// code need not handle its type).
	st := a.Scale.Type
	var scale *ir.Value
	if c := a.Scale.Op; c != nil && c.Name == "arith.constant" {
		if fa, ok := c.Attr("value").(ir.FloatAttr); ok {
			scale = b.emit("arith.constant", nil, []ir.Type{f32}, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: fa.Value * math.Log2E, Type: f32}}).Results[0]
		}
	}
	if scale == nil {
		log2e := b.emit("arith.constant", nil, []ir.Type{st}, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: math.Log2E, Type: st}}).Results[0]
		scale = b.emit("arith.mulf", []*ir.Value{a.Scale, log2e}, []ir.Type{st}).Results[0]
		if floatBits(st) < 32 {
			scale = b.emit("arith.extf", []*ir.Value{scale}, []ir.Type{f32}).Results[0]
		} else if floatBits(st) > 32 {
			scale = b.emit("arith.truncf", []*ir.Value{scale}, []ir.Type{f32}).Results[0]
		}
	}
	zero := b.emit("arith.constant", nil, []ir.Type{et}, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: 0, Type: et}}).Results[0]
	s := b.fill(zero, b.empty(sSizes, et))
	qt := arith.ElementType(a.Query.Type)
	s = b.generic([]*ir.Value{a.Query, a.Key, scale}, s, []*ir.AffineMap{qm, km, dimsMap(len(qkLoops)), sm}, reductionsOf(qkLoops, dims.K1),
		func(y body, args []*ir.Value) *ir.Value {
			q := y.op("arith.mulf", qt, args[0], y.convert(args[2], qt))
			return y.op("arith.addf", et, args[3], y.op("arith.mulf", et, y.convert(q, et), y.convert(args[1], et)))
		})

	// The region, applied to each score.
	if r := op.Regions[0].Blocks[0]; !isIdentityBody(r) {
		if !ir.TypesEqual(r.Args[0].Type, et) {
			return nil, ir.OpErrorf(op, "the body's argument is '%s' but the scores are computed in %s", ir.TypeString(r.Args[0].Type), ir.TypeString(et))
		}
		s = b.generic(nil, s, []*ir.AffineMap{identity(ns)}, make([]bool, ns), func(y body, args []*ir.Value) *ir.Value {
			mapping := map[*ir.Value]*ir.Value{r.Args[0]: args[0]}
			for _, o := range r.Ops {
				if o.Name == "iree_linalg_ext.yield" {
					return mapping[o.Operands[0]]
				}
				c := ir.Clone(o, mapping)
				if c.Name == "iree_linalg_ext.index" {
					c.Name = "linalg.index"
				}
				y.b.Append(c)
			}
			return args[0]
		})
	}

	// S += mask.
	if a.Mask != nil {
		mm, err := remap(op, a.Maps[4], sd)
		if err != nil {
			return nil, err
		}
		s = b.generic([]*ir.Value{b.unpackBits(a.Mask)}, s, []*ir.AffineMap{mm, identity(ns)}, make([]bool, ns), func(y body, args []*ir.Value) *ir.Value {
			m := args[0]
			if it, ok := m.Type.(ir.IntegerType); ok {
				if it.Width != 1 {
					m = y.op("arith.trunci", ir.I1, m)
				}
				m = y.op("arith.select", et, m, y.float(0, et), y.float(math.Inf(-1), et))
			} else {
				m = y.op("arith.mulf", et, y.convert(m, et), y.float(math.Log2E, et))
			}
			return y.op("arith.addf", et, args[1], m)
		})
	}

	// Softmax over k2 (the last len(K2) dimensions of S).
	rowIdx := make([]int, rows)
	for i := range rowIdx {
		rowIdx[i] = i
	}
	rowMap := dimsMap(ns, rowIdx...)
	red := make([]bool, ns)
	for i := rows; i < ns; i++ {
		red[i] = true
	}
	pt := arith.ElementType(a.Value.Type)
	exp2 := func(y body, x, m *ir.Value) *ir.Value {
		return y.op("math.exp2", et, y.op("arith.subf", et, x, y.convert(m, et)))
	}
	var p, max, sum, acc *ir.Value
	if !online {
		rowEmpty := b.empty(sSizes[:rows], et)
		lowest := b.emit("arith.constant", nil, []ir.Type{et}, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: -math.MaxFloat32, Type: et}}).Results[0]
		max = b.generic([]*ir.Value{s}, b.fill(lowest, rowEmpty), []*ir.AffineMap{identity(ns), rowMap}, red, func(y body, args []*ir.Value) *ir.Value {
			return y.op("arith.maximumf", et, args[0], args[1])
		})
		sum = b.generic([]*ir.Value{s, max}, b.fill(zero, rowEmpty), []*ir.AffineMap{identity(ns), rowMap, rowMap}, red, func(y body, args []*ir.Value) *ir.Value {
			return y.op("arith.addf", et, exp2(y, args[0], args[1]), args[2])
		})
		p = b.generic([]*ir.Value{s, max, sum}, b.empty(sSizes, pt), []*ir.AffineMap{identity(ns), rowMap, rowMap, identity(ns)}, make([]bool, ns),
			func(y body, args []*ir.Value) *ir.Value {
				return y.convert(y.op("arith.divf", et, exp2(y, args[0], args[1]), args[2]), pt)
			})
		ot := arith.ElementType(a.Output.Type)
		oz := b.emit("arith.constant", nil, []ir.Type{ot}, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: 0, Type: ot}}).Results[0]
		acc = b.fill(oz, a.Output)
	} else {
		maxMap, sumMap := a.RowMaps()
		mxS, err := remap(op, maxMap, sd)
		if err != nil {
			return nil, err
		}
		smS, err := remap(op, sumMap, sd)
		if err != nil {
			return nil, err
		}
		mxR, err := remap(op, maxMap, sd[:rows])
		if err != nil {
			return nil, err
		}
		smR, err := remap(op, sumMap, sd[:rows])
		if err != nil {
			return nil, err
		}
		mt, sumT := arith.ElementType(a.Max.Type), arith.ElementType(a.Sum.Type)
		max = b.generic([]*ir.Value{s}, a.Max, []*ir.AffineMap{identity(ns), mxS}, red, func(y body, args []*ir.Value) *ir.Value {
			return y.op("arith.maximumf", mt, y.convert(args[0], mt), args[1])
		})
		norm := b.generic([]*ir.Value{max, a.Max}, b.empty(b.dims(a.Max), mt), []*ir.AffineMap{mxR, mxR, mxR}, make([]bool, rows),
			func(y body, args []*ir.Value) *ir.Value {
				return y.op("math.exp2", mt, y.op("arith.subf", mt, args[1], args[0]))
			})
		normSum := b.generic([]*ir.Value{a.Sum, norm}, b.empty(b.dims(a.Sum), sumT), []*ir.AffineMap{smR, mxR, smR}, make([]bool, rows),
			func(y body, args []*ir.Value) *ir.Value {
				return y.op("arith.mulf", sumT, args[0], y.convert(args[1], sumT))
			})
		pe := b.generic([]*ir.Value{s, max}, b.empty(sSizes, et), []*ir.AffineMap{identity(ns), mxS, identity(ns)}, make([]bool, ns),
			func(y body, args []*ir.Value) *ir.Value { return exp2(y, args[0], args[1]) })
		sum = b.generic([]*ir.Value{pe}, normSum, []*ir.AffineMap{identity(ns), smS}, red, func(y body, args []*ir.Value) *ir.Value {
			return y.op("arith.addf", sumT, y.convert(args[0], sumT), args[1])
		})
		p = pe
		if !ir.TypesEqual(et, pt) {
			p = b.generic([]*ir.Value{pe}, b.empty(sSizes, pt), []*ir.AffineMap{identity(ns), identity(ns)}, make([]bool, ns),
				func(y body, args []*ir.Value) *ir.Value { return y.convert(args[0], pt) })
		}
		// acc * norm, over the output's loops.
		var accLoops []int
		for _, e := range a.OutputMap().Results {
			accLoops = append(accLoops, e.Pos)
		}
		sort.Ints(accLoops)
		om, err := remap(op, a.OutputMap(), accLoops)
		if err != nil {
			return nil, err
		}
		nm, err := remap(op, maxMap, accLoops)
		if err != nil {
			return nil, err
		}
		ot := arith.ElementType(a.Output.Type)
		acc = b.generic([]*ir.Value{norm}, a.Output, []*ir.AffineMap{nm, om}, make([]bool, len(accLoops)), func(y body, args []*ir.Value) *ir.Value {
			return y.op("arith.mulf", ot, args[1], y.convert(args[0], ot))
		})
	}

	// O = P @ V + acc, over every loop but k1.
	pvLoops := without(numLoops, dims.K1)
	pm, err := remap(op, sMap, pvLoops)
	if err != nil {
		return nil, err
	}
	vm, err := remap(op, maps[2], pvLoops)
	if err != nil {
		return nil, err
	}
	om, err := remap(op, maps[3], pvLoops)
	if err != nil {
		return nil, err
	}
	ot := arith.ElementType(a.Output.Type)
	res := b.generic([]*ir.Value{p, a.Value}, acc, []*ir.AffineMap{pm, vm, om}, reductionsOf(pvLoops, dims.K2),
		func(y body, args []*ir.Value) *ir.Value {
			return y.op("arith.addf", ot, args[2], y.op("arith.mulf", ot, y.convert(args[0], ot), y.convert(args[1], ot)))
		})
	if online {
		return []*ir.Value{res, max, sum}, nil
	}
	return []*ir.Value{res}, nil
}

// without returns [0, n) less drop, in order.
func without(n int, drop []int) []int {
	skip := map[int]bool{}
	for _, d := range drop {
		skip[d] = true
	}
	var out []int
	for d := 0; d < n; d++ {
		if !skip[d] {
			out = append(out, d)
		}
	}
	return out
}

// remap rewrites m, a map over all loops, as a map over loops (a subset,
// in order), failing when m uses a loop outside it.
func remap(op *ir.Operation, m *ir.AffineMap, loops []int) (*ir.AffineMap, error) {
	at := map[int]int{}
	for i, d := range loops {
		at[d] = i
	}
	var ds []int
	for _, e := range m.Results {
		i, ok := at[e.Pos]
		if !ok {
			return nil, ir.OpErrorf(op, "indexing map %s uses d%d, which this step of the decomposition does not iterate; not supported", m, e.Pos)
		}
		ds = append(ds, i)
	}
	return dimsMap(len(loops), ds...), nil
}

// reductionsOf marks which of loops are in red.
func reductionsOf(loops, red []int) []bool {
	out := make([]bool, len(loops))
	for i, d := range loops {
		for _, r := range red {
			if d == r {
				out[i] = true
			}
		}
	}
	return out
}

// isIdentityBody reports whether a body only yields its argument.
func isIdentityBody(b *ir.Block) bool {
	return len(b.Ops) == 1 && len(b.Ops[0].Operands) == 1 && len(b.Args) == 1 && b.Ops[0].Operands[0] == b.Args[0]
}

// unpackBits returns a mask of i1 elements one per byte, as the loop-nest
// kernels read them. A mask in IREE's packed storage
// (#iree_encoding.packed_storage: eight i1 elements to a byte, the first
// in the lowest bit) is reinterpreted as its bytes, each byte is split
// into its eight bits by a linalg.generic, and the bits are reshaped to
// the mask's shape. Other masks are returned as they are.
func (b builder) unpackBits(m *ir.Value) *ir.Value {
	t, ok := m.Type.(*ir.TensorType)
	if !ok || t.Encoding == nil || !ir.TypesEqual(t.Elem, ir.I1) || !strings.Contains(ir.AttrString(t.Encoding), "packed_storage") {
		return m
	}
	n := ir.NumElements(t)
	if n < 0 || n%8 != 0 {
		return m // the verifier of the mask generic names the type
	}
	i8 := ir.IntegerType{Width: 8}
	bytes := b.emit("flow.tensor.bitcast", []*ir.Value{m}, []ir.Type{&ir.TensorType{Shape: []int64{n / 8}, Elem: i8}},
		ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 0, 0)}).Results[0]
	bits := b.generic([]*ir.Value{bytes}, b.empty([]size{static(n / 8), static(8)}, ir.I1), []*ir.AffineMap{dimsMap(2, 0), identity(2)}, make([]bool, 2),
		func(y body, args []*ir.Value) *ir.Value {
			j := y.op("linalg.index", ir.IndexType{})
			j.Op.SetAttr("dim", ir.IntegerAttr{Value: 1, Type: ir.I64})
			shift := y.op("arith.index_cast", i8, j)
			return y.op("arith.trunci", ir.I1, y.op("arith.shrui", i8, args[0], shift))
		})
	flat := b.collapseShape(bits, [][]int{{0, 1}})
	if len(t.Shape) == 1 {
		return flat
	}
	group := make([]int, len(t.Shape))
	out := make([]size, len(t.Shape))
	for i, s := range t.Shape {
		group[i], out[i] = i, static(s)
	}
	return b.expandShape(flat, [][]int{group}, out)
}
