package tosatolinalg

import (
	"math"

	"github.com/goiree/goiree/compiler/conversion/internal/rewrite"
	"github.com/goiree/goiree/compiler/dialect/tosa"
	"github.com/goiree/goiree/compiler/ir"
)

// arith.cmpf and arith.cmpi predicate numbers (MLIR's enums).
const (
	cmpfOEQ, cmpfOGT, cmpfOGE, cmpfUNE, cmpfUNO = 1, 2, 3, 13, 14
	cmpiEQ, cmpiNE, cmpiSGT, cmpiSGE            = 0, 1, 4, 5
)

func isFloat(t ir.Type) bool {
	_, ok := t.(ir.FloatType)
	return ok
}

func intWidth(t ir.Type) int {
	if it, ok := t.(ir.IntegerType); ok {
		return it.Width
	}
	return 0
}

// scalar reads a number given either as operand i (a single-element
// constant: TOSA's current form) or as attribute attr (the earlier form);
// ok is false when neither is present.
func (c *converter) scalar(i int, attr string) (v float64, ok bool, err error) {
	if i < len(c.op.Operands) {
		d := c.op.Operands[i].Op
		var a *ir.DenseAttr
		switch {
		case d != nil && d.Name == "tosa.const":
			a, _ = tosa.ConstValue(d)
		case d != nil && d.Name == "arith.constant":
			a, _ = d.Attr("value").(*ir.DenseAttr)
		}
		if a == nil || len(a.Elements) == 0 {
			return 0, false, c.errorf("operand #%d must be a constant (tosa.const) to be lowered", i)
		}
		return number(a.Elements[0]), true, nil
	}
	if a := c.op.Attr(attr); a != nil {
		return number(a), true, nil
	}
	return 0, false, nil
}

func number(a ir.Attribute) float64 {
	switch a := a.(type) {
	case ir.IntegerAttr:
		return float64(a.Value)
	case ir.FloatAttr:
		return a.Value
	case ir.BoolAttr:
		if a.Value {
			return 1
		}
	}
	return 0
}

// scalarBody returns the element computation of elementwise op name whose
// result elements are of type rt.
func (c *converter) scalarBody(name string, rt ir.Type) (scalarFunc, error) {
	in := tosa.Ranked(c.op.Operands[0].Type).Elem
	fl := isFloat(in)
	pick := func(f, i string) scalarFunc {
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			if fl {
				if f == "" {
					return nil, c.errorf("float operands are not valid here")
				}
				if len(a) == 1 {
					return x.un(f, a[0]), nil
				}
				return x.bin(f, a[0], a[1]), nil
			}
			if i == "" {
				return nil, c.errorf("integer operands are not valid here")
			}
			if len(a) == 1 {
				return x.un(i, a[0]), nil
			}
			return x.bin(i, a[0], a[1]), nil
		}
	}
	switch name {
	case "add":
		return pick("arith.addf", "arith.addi"), nil
	case "sub":
		return pick("arith.subf", "arith.subi"), nil
	case "maximum":
		return pick("arith.maximumf", "arith.maxsi"), nil
	case "minimum":
		return pick("arith.minimumf", "arith.minsi"), nil
	case "pow":
		return pick("math.powf", ""), nil
	case "intdiv":
		return pick("", "arith.divsi"), nil
	case "bitwise_and", "logical_and":
		return pick("", "arith.andi"), nil
	case "bitwise_or", "logical_or":
		return pick("", "arith.ori"), nil
	case "bitwise_xor", "logical_xor":
		return pick("", "arith.xori"), nil
	case "logical_left_shift":
		return pick("", "arith.shli"), nil
	case "logical_right_shift":
		return pick("", "arith.shrui"), nil
	case "abs":
		return pick("math.absf", "math.absi"), nil
	case "exp", "log", "tanh", "ceil", "floor", "rsqrt":
		return pick("math."+name, ""), nil
	case "clz":
		return pick("", "math.ctlz"), nil
	case "bitwise_not", "logical_not":
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			if fl {
				return nil, c.errorf("float operands are not valid here")
			}
			return x.bin("arith.xori", a[0], x.intConst(in, -1)), nil
		}, nil
	case "reciprocal":
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			return x.bin("arith.divf", x.constant(in, 1), a[0]), nil
		}, nil
	case "sigmoid":
		// 1 / (1 + exp(-x))
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			e := x.un("math.exp", x.un("arith.negf", a[0]))
			return x.bin("arith.divf", x.constant(in, 1), x.bin("arith.addf", x.constant(in, 1), e)), nil
		}, nil
	case "equal", "greater", "greater_equal":
		fp := map[string]int64{"equal": cmpfOEQ, "greater": cmpfOGT, "greater_equal": cmpfOGE}[name]
		ip := map[string]int64{"equal": cmpiEQ, "greater": cmpiSGT, "greater_equal": cmpiSGE}[name]
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			if fl {
				return x.cmp("arith.cmpf", fp, a[0], a[1]), nil
			}
			return x.cmp("arith.cmpi", ip, a[0], a[1]), nil
		}, nil
	case "select":
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			return x.op("arith.select", a, a[1].Type), nil
		}, nil
	case "mul":
		return c.mul(in)
	case "arithmetic_right_shift":
		return c.arithmeticRightShift(in)
	case "negate":
		return c.negate(in)
	case "clamp":
		return c.clamp(in)
	case "cast":
		return c.cast(in, rt)
	}
	return nil, c.errorf("lowering is not supported yet")
}

// mul multiplies; an integer product with shift s > 0 is computed in 64
// bits, rounded by adding 1 << (s-1) and shifted right arithmetically.
func (c *converter) mul(in ir.Type) (scalarFunc, error) {
	shift, _, err := c.scalar(2, "shift")
	if err != nil {
		return nil, err
	}
	s := int64(shift)
	if isFloat(in) {
		return func(x builder, a []*ir.Value) (*ir.Value, error) { return x.bin("arith.mulf", a[0], a[1]), nil }, nil
	}
	if s == 0 {
		return func(x builder, a []*ir.Value) (*ir.Value, error) { return x.bin("arith.muli", a[0], a[1]), nil }, nil
	}
	if intWidth(in) != 32 || s < 0 || s > 63 {
		return nil, c.errorf("shift %d is only valid with i32 operands and 0 <= shift < 64", s)
	}
	return func(x builder, a []*ir.Value) (*ir.Value, error) {
		i64 := ir.IntegerType{Width: 64}
		p := x.bin("arith.muli", x.cast("arith.extsi", a[0], i64), x.cast("arith.extsi", a[1], i64))
		p = x.bin("arith.addi", p, x.intConst(i64, int64(1)<<(s-1)))
		p = x.bin("arith.shrsi", p, x.intConst(i64, s))
		return x.cast("arith.trunci", p, in), nil
	}, nil
}

// arithmeticRightShift shifts right; with round set and a shift > 0 the
// last bit shifted out is added.
func (c *converter) arithmeticRightShift(in ir.Type) (scalarFunc, error) {
	if isFloat(in) {
		return nil, c.errorf("float operands are not valid here")
	}
	round := number(c.op.Attr("round")) != 0
	return func(x builder, a []*ir.Value) (*ir.Value, error) {
		r := x.bin("arith.shrsi", a[0], a[1])
		if !round {
			return r, nil
		}
		one, zero := x.intConst(in, 1), x.intConst(in, 0)
		last := x.bin("arith.andi", x.bin("arith.shrsi", a[0], x.bin("arith.subi", a[1], one)), one)
		pos := x.cmp("arith.cmpi", cmpiSGT, a[1], zero)
		return x.bin("arith.addi", r, x.op("arith.select", []*ir.Value{pos, last, zero}, in)), nil
	}, nil
}

// negate computes output_zp - (x - input_zp), saturated, for integers.
func (c *converter) negate(in ir.Type) (scalarFunc, error) {
	inZP, _, err := c.scalar(1, "input1_zp")
	if err != nil {
		return nil, err
	}
	outZP, _, err := c.scalar(2, "output_zp")
	if err != nil {
		return nil, err
	}
	if isFloat(in) {
		return func(x builder, a []*ir.Value) (*ir.Value, error) { return x.un("arith.negf", a[0]), nil }, nil
	}
	w := intWidth(in)
	if inZP == 0 && outZP == 0 {
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			return x.bin("arith.subi", x.intConst(in, 0), a[0]), nil
		}, nil
	}
	return func(x builder, a []*ir.Value) (*ir.Value, error) {
		i64 := ir.IntegerType{Width: 64}
		v := x.cast("arith.extsi", a[0], i64)
		v = x.bin("arith.subi", x.intConst(i64, int64(inZP)+int64(outZP)), v)
		return x.cast("arith.trunci", x.clampInt(v, w), in), nil
	}, nil
}

// clamp bounds x by min/max (min_val/max_val now, min_fp/max_fp or
// min_int/max_int earlier).
func (c *converter) clamp(in ir.Type) (scalarFunc, error) {
	names := [2]string{"min_int", "max_int"}
	if isFloat(in) {
		names = [2]string{"min_fp", "max_fp"}
	}
	var bounds [2]float64
	for i, n := range []string{"min_val", "max_val"} {
		v, ok, _ := c.scalar(len(c.op.Operands), n)
		if !ok {
			if v, ok, _ = c.scalar(len(c.op.Operands), names[i]); !ok {
				return nil, c.errorf("requires '%s' (or '%s')", n, names[i])
			}
		}
		bounds[i] = v
	}
	return func(x builder, a []*ir.Value) (*ir.Value, error) {
		if isFloat(in) {
			r := x.bin("arith.maximumf", a[0], x.constant(in, bounds[0]))
			return x.bin("arith.minimumf", r, x.constant(in, bounds[1])), nil
		}
		r := x.bin("arith.maxsi", a[0], x.constant(in, bounds[0]))
		return x.bin("arith.minsi", r, x.constant(in, bounds[1])), nil
	}, nil
}

// cast converts between element types: integers sign-extend (i1 is
// unsigned) or truncate, integer to bool compares with 0, float to integer
// rounds half to even and saturates.
func (c *converter) cast(in, out ir.Type) (scalarFunc, error) {
	wi, wo := intWidth(in), intWidth(out)
	return func(x builder, a []*ir.Value) (*ir.Value, error) {
		v := a[0]
		switch {
		case isFloat(in) && isFloat(out):
			fi, fo := in.(ir.FloatType), out.(ir.FloatType)
			switch {
			case floatBits(fi) < floatBits(fo):
				return x.cast("arith.extf", v, out), nil
			case floatBits(fi) > floatBits(fo):
				return x.cast("arith.truncf", v, out), nil
			}
			return v, nil
		case isFloat(in) && wo == 1:
			return x.cmp("arith.cmpf", cmpfUNE, v, x.constant(in, 0)), nil
		case isFloat(in):
			lo, hi := -math.Ldexp(1, wo-1), math.Ldexp(1, wo-1)-1
			r := x.un("math.roundeven", v)
			r = x.bin("arith.maximumf", r, x.constant(in, lo))
			r = x.bin("arith.minimumf", r, x.constant(in, hi))
			return x.cast("arith.fptosi", r, out), nil
		case isFloat(out) && wi == 1:
			return x.cast("arith.uitofp", v, out), nil
		case isFloat(out):
			return x.cast("arith.sitofp", v, out), nil
		case wo == 1:
			return x.cmp("arith.cmpi", cmpiNE, v, x.intConst(in, 0)), nil
		case wi == 1 && wo > 1:
			return x.cast("arith.extui", v, out), nil
		case wi < wo:
			return x.cast("arith.extsi", v, out), nil
		case wi > wo:
			return x.cast("arith.trunci", v, out), nil
		}
		return v, nil
	}, nil
}

func floatBits(t ir.FloatType) int {
	switch t.Name {
	case "f64":
		return 64
	case "f32":
		return 32
	}
	return 16
}

// permutation reads transpose's perms: an attribute now (array<i32: ...>),
// a constant operand earlier.
func (c *converter) permutation(rank int) ([]int, error) {
	var perms []int64
	if a, ok := c.op.Attr("perms").(*ir.DenseArrayAttr); ok {
		perms = a.Values
	} else if len(c.op.Operands) > 1 {
		d := c.op.Operands[1].Op
		var a *ir.DenseAttr
		if d != nil && d.Name == "tosa.const" {
			a, _ = tosa.ConstValue(d)
		} else if d != nil && d.Name == "arith.constant" {
			a, _ = d.Attr("value").(*ir.DenseAttr)
		}
		if a == nil {
			return nil, c.errorf("perms operand must be a constant")
		}
		for i := 0; i < rank; i++ {
			e := a.Elements[0]
			if !a.Splat && i < len(a.Elements) {
				e = a.Elements[i]
			}
			perms = append(perms, int64(number(e)))
		}
	}
	if len(perms) != rank {
		return nil, c.errorf("requires 'perms' with %d entries", rank)
	}
	out := make([]int, rank)
	seen := make([]bool, rank)
	for i, p := range perms {
		if p < 0 || int(p) >= rank || seen[p] {
			return nil, c.errorf("perms %v is not a permutation of 0..%d", perms, rank-1)
		}
		seen[p] = true
		out[i] = int(p)
	}
	return out, nil
}

// transpose reads result[i0, ...] = input[...] with input dimension
// perms[k] indexed by loop k.
func (c *converter) transpose(rt *ir.TensorType) error {
	in := tosa.Ranked(c.op.Operands[0].Type)
	perms, err := c.permutation(len(in.Shape))
	if err != nil {
		return err
	}
	m := &ir.AffineMap{NumDims: len(rt.Shape), Results: make([]*ir.AffineExpr, len(in.Shape))}
	for k, p := range perms {
		if in.Shape[p] != rt.Shape[k] {
			return c.errorf("result dimension %d is %d but input dimension %d is %d", k, rt.Shape[k], p, in.Shape[p])
		}
		m.Results[p] = &ir.AffineExpr{Kind: ir.AffineDim, Pos: k}
	}
	out := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	g, err := c.generic(c.op.Operands[:1], out, []*ir.AffineMap{m, identity(len(rt.Shape))}, iterators(len(rt.Shape)),
		func(x builder, a []*ir.Value) (*ir.Value, error) { return a[0], nil })
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}

// fill emits a linalg.generic writing the constant v into a new tensor.
func (c *converter) fill(rt *ir.TensorType, v float64) (*ir.Value, error) {
	out := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	g, err := c.generic(nil, out, []*ir.AffineMap{identity(len(rt.Shape))}, iterators(len(rt.Shape)),
		func(x builder, a []*ir.Value) (*ir.Value, error) { return x.constant(rt.Elem, v), nil })
	if err != nil {
		return nil, err
	}
	return g.Results[0], nil
}

// reduce combines along axis into a result that keeps it with size 1.
func (c *converter) reduce(kind string, rt *ir.TensorType) error {
	in := tosa.Ranked(c.op.Operands[0].Type)
	axis, ok := c.op.IntAttr("axis")
	if !ok || axis < 0 || int(axis) >= len(in.Shape) {
		return c.errorf("requires an integer 'axis' in [0, %d)", len(in.Shape))
	}
	fl := isFloat(in.Elem)
	var init float64
	var comb string
	switch kind {
	case "sum":
		comb = map[bool]string{true: "arith.addf", false: "arith.addi"}[fl]
	case "prod", "product":
		init, comb = 1, map[bool]string{true: "arith.mulf", false: "arith.muli"}[fl]
	case "max":
		init, comb = math.Inf(-1), "arith.maximumf"
		if !fl {
			init, comb = -math.Ldexp(1, intWidth(in.Elem)-1), "arith.maxsi"
		}
	case "min":
		init, comb = math.Inf(1), "arith.minimumf"
		if !fl {
			init, comb = math.Ldexp(1, intWidth(in.Elem)-1)-1, "arith.minsi"
		}
	case "all":
		init, comb = -1, "arith.andi"
	case "any":
		comb = "arith.ori"
	}
	if !fl && intWidth(in.Elem) == 1 && (kind == "max" || kind == "min") {
		return c.errorf("reduce_%s of i1 is not supported", kind)
	}
	// linalg outputs are indexed by a projected permutation of the loops,
	// so the reduction writes a tensor without the axis, and a reshape
	// (a new view of the same buffer) restores it with size 1.
	rt1 := &ir.TensorType{Elem: rt.Elem}
	om := &ir.AffineMap{NumDims: len(in.Shape), Results: []*ir.AffineExpr{}}
	for d, s := range in.Shape {
		if d != int(axis) {
			rt1.Shape = append(rt1.Shape, s)
			om.Results = append(om.Results, &ir.AffineExpr{Kind: ir.AffineDim, Pos: d})
		}
	}
	acc, err := c.fill(rt1, init)
	if err != nil {
		return err
	}
	g, err := c.generic(c.op.Operands[:1], acc, []*ir.AffineMap{identity(len(in.Shape)), om}, iterators(len(in.Shape), int(axis)),
		func(x builder, a []*ir.Value) (*ir.Value, error) { return x.bin(comb, a[1], a[0]), nil })
	if err != nil {
		return err
	}
	r := c.emit(ir.NewOp("flow.tensor.reshape", g.Results, []ir.Type{rt}, []ir.NamedAttr{
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 0, 0)},
	}))
	c.replace(r.Results[0])
	return nil
}

// matmul contracts [N,H,C] x [N,C,W] -> [N,H,W]; integer operands are
// sign-extended to the result type after their zero points are
// subtracted.
func (c *converter) matmul(rt *ir.TensorType) error {
	a, b := tosa.Ranked(c.op.Operands[0].Type), tosa.Ranked(c.op.Operands[1].Type)
	if len(a.Shape) != 3 || len(b.Shape) != 3 || len(rt.Shape) != 3 || a.Shape[2] != b.Shape[1] ||
		rt.Shape[0] != a.Shape[0] || rt.Shape[1] != a.Shape[1] || rt.Shape[2] != b.Shape[2] {
		return c.errorf("expects [N,H,C] x [N,C,W] -> [N,H,W] operands")
	}
	azp, _, err := c.scalar(2, "a_zp")
	if err != nil {
		return err
	}
	bzp, _, err := c.scalar(3, "b_zp")
	if err != nil {
		return err
	}
	acc, err := c.fill(rt, 0)
	if err != nil {
		return err
	}
	d := func(i int) *ir.AffineExpr { return &ir.AffineExpr{Kind: ir.AffineDim, Pos: i} }
	// loops (n, h, w, c)
	maps := []*ir.AffineMap{
		{NumDims: 4, Results: []*ir.AffineExpr{d(0), d(1), d(3)}},
		{NumDims: 4, Results: []*ir.AffineExpr{d(0), d(3), d(2)}},
		{NumDims: 4, Results: []*ir.AffineExpr{d(0), d(1), d(2)}},
	}
	fl := isFloat(rt.Elem)
	g, err := c.generic(c.op.Operands[:2], acc, maps, iterators(4, 3), func(x builder, v []*ir.Value) (*ir.Value, error) {
		if fl {
			return x.bin("arith.addf", v[2], x.bin("arith.mulf", v[0], v[1])), nil
		}
		ext := func(e *ir.Value, zp float64) *ir.Value {
			if intWidth(e.Type) < intWidth(rt.Elem) {
				e = x.cast("arith.extsi", e, rt.Elem)
			}
			if zp != 0 {
				e = x.bin("arith.subi", e, x.intConst(rt.Elem, int64(zp)))
			}
			return e
		}
		return x.bin("arith.addi", v[2], x.bin("arith.muli", ext(v[0], azp), ext(v[1], bzp))), nil
	})
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}

// constInts reads the integers of v, a constant (tosa.const, tosa.const_shape
// or an arith.constant one was lowered to), in row-major order.
func (c *converter) constInts(v *ir.Value, what string) ([]int64, error) {
	d := v.Op
	var a *ir.DenseAttr
	switch {
	case d != nil && (d.Name == "tosa.const" || d.Name == "tosa.const_shape"):
		a, _ = tosa.ConstValue(d)
	case d != nil && d.Name == "arith.constant":
		a, _ = d.Attr("value").(*ir.DenseAttr)
	}
	if a == nil || len(a.Elements) == 0 {
		return nil, c.errorf("%s must be a constant to be lowered", what)
	}
	n := int64(1)
	if t := tosa.Ranked(a.Type); t != nil {
		n = numElements(t)
	}
	out := make([]int64, n)
	for i := range out {
		e := a.Elements[0]
		if !a.Splat {
			if i >= len(a.Elements) {
				return nil, c.errorf("%s has %d elements, expected %d", what, len(a.Elements), n)
			}
			e = a.Elements[i]
		}
		out[i] = int64(number(e))
	}
	return out, nil
}

// pad fills the result with the pad value (operand #2 now, pad_const_int
// or pad_const_fp earlier, else 0) and inserts the input at the low
// padding of each dimension.
func (c *converter) pad(rt *ir.TensorType) error {
	src := c.op.Operands[0]
	st := tosa.Ranked(src.Type)
	if len(c.op.Operands) < 2 {
		return c.errorf("requires the padding operand")
	}
	amounts, err := c.constInts(c.op.Operands[1], "padding")
	if err != nil {
		return err
	}
	if len(amounts) != 2*len(st.Shape) {
		return c.errorf("padding has %d entries, expected %d (low and high per dimension)", len(amounts), 2*len(st.Shape))
	}
	var offs []int64
	for d, s := range st.Shape {
		lo, hi := amounts[2*d], amounts[2*d+1]
		if lo < 0 || hi < 0 || lo+s+hi != rt.Shape[d] {
			return c.errorf("padding %d+%d of dimension %d (%d) does not give the result's %d", lo, hi, d, s, rt.Shape[d])
		}
		offs = append(offs, lo)
	}
	attr := "pad_const_int"
	if isFloat(st.Elem) {
		attr = "pad_const_fp"
	}
	value, _, err := c.scalar(2, attr)
	if err != nil {
		return err
	}
	dest, err := c.fill(rt, value)
	if err != nil {
		return err
	}
	ones := make([]int64, len(st.Shape))
	for i := range ones {
		ones[i] = 1
	}
	r := c.emit(ir.NewOp("tensor.insert_slice", []*ir.Value{src, dest}, []ir.Type{rt}, []ir.NamedAttr{
		{Name: "static_offsets", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: offs}},
		{Name: "static_sizes", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: append([]int64(nil), st.Shape...)}},
		{Name: "static_strides", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: ones}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 1, 0, 0, 0)},
	}))
	c.replace(r.Results[0])
	return nil
}

// shapeArg reads a list of n integers given as operand i (a
// tosa.const_shape, now) or as attribute attr (earlier).
func (c *converter) shapeArg(i int, attr string, n int) ([]int64, error) {
	if i < len(c.op.Operands) {
		v, err := c.constInts(c.op.Operands[i], attr)
		if err != nil {
			return nil, err
		}
		if len(v) != n {
			return nil, c.errorf("'%s' has %d entries, expected %d", attr, len(v), n)
		}
		return v, nil
	}
	return c.ints(attr, n)
}

// slice takes the static window start..start+size of its input.
func (c *converter) slice(rt *ir.TensorType) error {
	in := tosa.Ranked(c.op.Operands[0].Type)
	n := len(in.Shape)
	start, err := c.shapeArg(1, "start", n)
	if err != nil {
		return err
	}
	size, err := c.shapeArg(2, "size", n)
	if err != nil {
		return err
	}
	ones := make([]int64, n)
	for d := range ones {
		ones[d] = 1
		if start[d] < 0 || size[d] < 0 || start[d]+size[d] > in.Shape[d] || len(rt.Shape) != n || rt.Shape[d] != size[d] {
			return c.errorf("slice of %d elements at %d in dimension %d (%d) does not fit the input or give the result '%s'", size[d], start[d], d, in.Shape[d], ir.TypeString(rt))
		}
	}
	r := c.emit(ir.NewOp("tensor.extract_slice", c.op.Operands[:1], []ir.Type{rt}, []ir.NamedAttr{
		{Name: "static_offsets", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: start}},
		{Name: "static_sizes", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: size}},
		{Name: "static_strides", Value: &ir.DenseArrayAttr{Elem: ir.I64, Values: ones}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, 0, 0, 0)},
	}))
	c.replace(r.Results[0])
	return nil
}

// concat joins its inputs along axis as tensor.concat.
func (c *converter) concat(rt *ir.TensorType) error {
	axis, ok := c.op.IntAttr("axis")
	if !ok || axis < 0 || int(axis) >= len(rt.Shape) {
		return c.errorf("requires an integer 'axis' in [0, %d)", len(rt.Shape))
	}
	r, err := rewrite.Concat(c.op.Operands, rt, axis, tosa.Ranked, "input", "axis")
	if err != nil {
		return c.errorf("%v", err)
	}
	c.replace(c.emit(r).Results[0])
	return nil
}

// argmax finds the first index along axis of the largest element (the
// first NaN when there is one): a max reduction, then a min reduction over
// the indices whose element equals the max or is NaN.
func (c *converter) argmax(rt *ir.TensorType) error {
	in := tosa.Ranked(c.op.Operands[0].Type)
	axis, ok := c.op.IntAttr("axis")
	if !ok || axis < 0 || int(axis) >= len(in.Shape) {
		return c.errorf("requires an integer 'axis' in [0, %d)", len(in.Shape))
	}
	var kept []int64
	om := &ir.AffineMap{NumDims: len(in.Shape), Results: []*ir.AffineExpr{}}
	for d, s := range in.Shape {
		if d != int(axis) {
			kept = append(kept, s)
			om.Results = append(om.Results, dim(d))
		}
	}
	if len(rt.Shape) != len(kept) || intWidth(rt.Elem) < 2 {
		return c.errorf("result must be an integer tensor of the input's shape without the axis")
	}
	for d := range kept {
		if rt.Shape[d] != kept[d] {
			return c.errorf("result must be an integer tensor of the input's shape without the axis")
		}
	}
	fl := isFloat(in.Elem)
	if !fl && intWidth(in.Elem) == 1 {
		return c.errorf("argmax of i1 is not supported")
	}
	lowest, comb := math.Inf(-1), "arith.maximumf"
	if !fl {
		lowest, comb = -math.Ldexp(1, intWidth(in.Elem)-1), "arith.maxsi"
	}
	mt := &ir.TensorType{Shape: kept, Elem: in.Elem}
	init, err := c.fill(mt, lowest)
	if err != nil {
		return err
	}
	n := len(in.Shape)
	m, err := c.generic(c.op.Operands[:1], init, []*ir.AffineMap{identity(n), om}, iterators(n, int(axis)),
		func(x builder, a []*ir.Value) (*ir.Value, error) { return x.bin(comb, a[1], a[0]), nil })
	if err != nil {
		return err
	}
	size := in.Shape[axis]
	first, err := c.fill(rt, float64(size))
	if err != nil {
		return err
	}
	g, err := c.generic([]*ir.Value{c.op.Operands[0], m.Results[0]}, first, []*ir.AffineMap{identity(n), om, om}, iterators(n, int(axis)),
		func(x builder, a []*ir.Value) (*ir.Value, error) {
			var hit *ir.Value
			if fl {
				hit = x.bin("arith.ori", x.cmp("arith.cmpf", cmpfOEQ, a[0], a[1]), x.cmp("arith.cmpf", cmpfUNO, a[0], a[0]))
			} else {
				hit = x.cmp("arith.cmpi", cmpiEQ, a[0], a[1])
			}
			k := x.op("arith.select", []*ir.Value{hit, x.loopIndex(int(axis), rt.Elem), x.intConst(rt.Elem, size)}, rt.Elem)
			return x.bin("arith.minsi", a[2], k), nil
		})
	if err != nil {
		return err
	}
	c.replace(g.Results[0])
	return nil
}
