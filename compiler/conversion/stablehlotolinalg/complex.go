package stablehlotolinalg

import (
	"fmt"
	"math"
	"slices"

	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// Complex numbers never reach the kernels: lowerComplex keeps each
// complex tensor a program builds as its real and imaginary parts, two
// float tensors, and lowers the ops on it to linalg.generics on the parts:
//
//   - complex(re, im) is the pair itself, a constant written as a dense
//     complex literal is two constants of its parts, and real and imag
//     pick a part;
//   - add, subtract, multiply, negate, exponential, sine and cosine compute
//     both parts in one linalg.generic with two outputs, and abs the
//     modulus;
//   - fft of one dimension (FFT, IFFT, RFFT of a real input and IRFFT to
//     a real result) is a discrete Fourier transform: a contraction of the
//     last dimension with constant tables of cos and sin(2 pi k n / N).
//
// A complex value used by anything else (returned, or passed to another
// op) is refused at that op.

// parts are the real and imaginary float tensors of a complex tensor.
type parts [2]*ir.Value

// lowerComplex runs before the other lowerings, on the ops in program
// order, so that a complex value's parts exist before its users.
func lowerComplex(module *ir.Operation) error {
	var ops, consts []*ir.Operation
	ir.Walk(module, func(o *ir.Operation) bool {
		if complexConstant(o) {
			consts = append(consts, o)
			return true
		}
		n, ok := opName(o)
		if ok && touchesComplex(o) {
			ops = append(ops, o)
		}
		return !hasBody[n]
	})
	if len(ops) == 0 && len(consts) == 0 {
		return nil
	}
	pairs := map[*ir.Value]parts{}
	for _, o := range consts {
		pairs[o.Results[0]] = splitConstant(o)
	}
	ops = append(consts, ops...)
	repl := replacements{}
	for _, o := range ops[len(consts):] {
		c := &converter{root: module, op: o, repl: repl}
		if err := c.complexOp(pairs); err != nil {
			return err
		}
	}
	repl.apply(module)
	// The complex-valued ops are dead now unless something else uses
	// their results; remove them last first.
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		for _, r := range o.Results {
			if u := firstUser(module, r); u != nil {
				return ir.OpErrorf(u, "complex operands ('%s') are not supported here", ir.TypeString(r.Type))
			}
		}
		if o.Block != nil {
			o.Remove()
		}
	}
	return nil
}

// complexConstant reports whether o is a constant (arith, StableHLO or
// IREE's unfoldable one) of a complex tensor written as a dense literal.
func complexConstant(o *ir.Operation) bool {
	switch o.Name {
	case "arith.constant", "util.unfoldable_constant", "stablehlo.constant", "mhlo.constant":
	default:
		return false
	}
	_, dense := o.Attr("value").(*ir.DenseAttr)
	return dense && len(o.Results) == 1 && isComplex(o.Results[0].Type)
}

// splitConstant inserts before a complex constant two constants of the
// same op, holding its real and its imaginary parts.
func splitConstant(o *ir.Operation) parts {
	d := o.Attr("value").(*ir.DenseAttr)
	pt := partType(o.Results[0].Type)
	var ps parts
	for i := range ps {
		part := &ir.DenseAttr{Type: pt, Nesting: d.Nesting, Splat: d.Splat}
		for _, e := range d.Elements {
			c, _ := e.(ir.ComplexAttr)
			part.Elements = append(part.Elements, [2]ir.Attribute{c.Re, c.Im}[i])
		}
		n := ir.NewOp(o.Name, nil, []ir.Type{pt}, []ir.NamedAttr{{Name: "value", Value: part}})
		n.Pos, n.Loc = o.Pos, o.Loc
		o.Block.InsertBefore(o, n)
		ps[i] = n.Results[0]
	}
	return ps
}

// firstUser returns an op under root that uses v, or nil.
func firstUser(root *ir.Operation, v *ir.Value) *ir.Operation {
	var user *ir.Operation
	ir.Walk(root, func(o *ir.Operation) bool {
		for _, x := range o.Operands {
			if x == v && user == nil {
				user = o
			}
		}
		return user == nil
	})
	return user
}

func isComplex(t ir.Type) bool {
	tt := stablehlo.Ranked(t)
	if tt == nil {
		return false
	}
	_, ok := tt.Elem.(*ir.ComplexType)
	return ok
}

func touchesComplex(o *ir.Operation) bool {
	for _, v := range append(append([]*ir.Value(nil), o.Operands...), o.Results...) {
		if isComplex(v.Type) {
			return true
		}
	}
	return false
}

// partType is the float tensor type of the parts of complex tensor type t.
func partType(t ir.Type) *ir.TensorType {
	tt := stablehlo.Ranked(t)
	return &ir.TensorType{Shape: tt.Shape, Elem: tt.Elem.(*ir.ComplexType).Elem}
}

// complexOp lowers one op that takes or gives complex tensors.
func (c *converter) complexOp(pairs map[*ir.Value]parts) error {
	name, _ := opName(c.op)
	for i, v := range c.op.Operands {
		if err := c.checkType(fmt.Sprintf("operand #%d", i), v.Type, true); err != nil {
			return err
		}
	}
	if len(c.op.Results) != 1 {
		return c.errorf("complex operands are not supported here")
	}
	if err := c.checkType("result", c.op.Results[0].Type, true); err != nil {
		return err
	}
	// The parts of each complex operand; a real operand stands for itself.
	var ins []parts
	for i, v := range c.op.Operands {
		if !isComplex(v.Type) {
			ins = append(ins, parts{v, nil})
			continue
		}
		p, ok := pairs[v]
		if !ok {
			return c.errorf("operand #%d: complex values that are not built by the program's own ops (here '%s') are not supported", i, ir.TypeString(v.Type))
		}
		ins = append(ins, p)
	}
	res := c.op.Results[0]
	switch name {
	case "complex":
		if len(ins) != 2 || !isComplex(res.Type) {
			return c.errorf("expects a real and an imaginary part")
		}
		pairs[res] = parts{ins[0][0], ins[1][0]}
		return nil
	case "real", "imag":
		if len(ins) != 1 || ins[0][1] == nil {
			return c.errorf("expects one complex operand")
		}
		v := ins[0][0]
		if name == "imag" {
			v = ins[0][1]
		}
		c.repl[res] = v
		return nil
	case "fft":
		return c.fft(ins, pairs)
	}
	for i, p := range ins {
		if p[1] == nil {
			return c.errorf("operand #%d '%s' must be complex, as the result is", i, ir.TypeString(c.op.Operands[i].Type))
		}
	}
	if name == "abs" {
		rt := stablehlo.Ranked(res.Type)
		r, err := c.partsGeneric(ins, []*ir.TensorType{rt}, func(x builder, a []*ir.Value) ([]*ir.Value, error) {
			return []*ir.Value{x.un("math.sqrt", x.bin("arith.addf", x.bin("arith.mulf", a[0], a[0]), x.bin("arith.mulf", a[1], a[1])))}, nil
		})
		if err != nil {
			return err
		}
		c.repl[res] = r[0]
		return nil
	}
	f, ok := complexBodies[name]
	if !ok || len(ins) != stablehlo.Arity[name] {
		return c.errorf("complex operands are not supported here")
	}
	pt := partType(res.Type)
	r, err := c.partsGeneric(ins, []*ir.TensorType{pt, pt}, func(x builder, a []*ir.Value) ([]*ir.Value, error) {
		re, im := f(x, a)
		return []*ir.Value{re, im}, nil
	})
	if err != nil {
		return err
	}
	pairs[res] = parts{r[0], r[1]}
	return nil
}

// partsGeneric emits an elementwise linalg.generic over the parts of ins
// (real, imaginary, real, ...) writing tensors of types outs.
func (c *converter) partsGeneric(ins []parts, outs []*ir.TensorType, body func(x builder, a []*ir.Value) ([]*ir.Value, error)) ([]*ir.Value, error) {
	var flat []*ir.Value
	var maps []*ir.AffineMap
	n := len(outs[0].Shape)
	for _, p := range ins {
		flat = append(flat, p[0], p[1])
		maps = append(maps, identity(n), identity(n))
	}
	var empties []*ir.Value
	for _, t := range outs {
		e, err := c.empty(t, identity(n), flat, maps)
		if err != nil {
			return nil, err
		}
		empties = append(empties, e)
		maps = append(maps, identity(n))
	}
	iters := make([]string, n)
	for i := range iters {
		iters[i] = "parallel"
	}
	return c.genericOps(flat, maps, empties, iters, func(x builder, a []*ir.Value) ([]*ir.Value, error) {
		return body(x, a[:len(flat)])
	})
}

// complexBodies compute the parts of an elementwise op's result from its
// operands' parts (a, b) = a[0] + a[1] i, ...
var complexBodies = map[string]func(x builder, a []*ir.Value) (re, im *ir.Value){
	"add": func(x builder, a []*ir.Value) (*ir.Value, *ir.Value) {
		return x.bin("arith.addf", a[0], a[2]), x.bin("arith.addf", a[1], a[3])
	},
	"subtract": func(x builder, a []*ir.Value) (*ir.Value, *ir.Value) {
		return x.bin("arith.subf", a[0], a[2]), x.bin("arith.subf", a[1], a[3])
	},
	"multiply": func(x builder, a []*ir.Value) (*ir.Value, *ir.Value) {
		re := x.bin("arith.subf", x.bin("arith.mulf", a[0], a[2]), x.bin("arith.mulf", a[1], a[3]))
		im := x.bin("arith.addf", x.bin("arith.mulf", a[0], a[3]), x.bin("arith.mulf", a[1], a[2]))
		return re, im
	},
	"negate": func(x builder, a []*ir.Value) (*ir.Value, *ir.Value) {
		return x.un("arith.negf", a[0]), x.un("arith.negf", a[1])
	},
	// exp(a + bi) = e^a (cos b + i sin b)
	"exponential": func(x builder, a []*ir.Value) (*ir.Value, *ir.Value) {
		e := x.un("math.exp", a[0])
		return x.bin("arith.mulf", e, x.un("math.cos", a[1])), x.bin("arith.mulf", e, x.un("math.sin", a[1]))
	},
	// sin(a + bi) = sin a cosh b + i cos a sinh b
	"sine": func(x builder, a []*ir.Value) (*ir.Value, *ir.Value) {
		ch, sh := coshSinh(x, a[1])
		return x.bin("arith.mulf", x.un("math.sin", a[0]), ch), x.bin("arith.mulf", x.un("math.cos", a[0]), sh)
	},
	// cos(a + bi) = cos a cosh b - i sin a sinh b
	"cosine": func(x builder, a []*ir.Value) (*ir.Value, *ir.Value) {
		ch, sh := coshSinh(x, a[1])
		return x.bin("arith.mulf", x.un("math.cos", a[0]), ch), x.un("arith.negf", x.bin("arith.mulf", x.un("math.sin", a[0]), sh))
	},
}

// coshSinh returns cosh b and sinh b from e^b and e^-b.
func coshSinh(x builder, b *ir.Value) (*ir.Value, *ir.Value) {
	ep, en := x.un("math.exp", b), x.un("math.exp", x.un("arith.negf", b))
	half := x.op("arith.constant", nil, b.Type, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: 0.5, Type: b.Type}})
	return x.bin("arith.mulf", x.bin("arith.addf", ep, en), half), x.bin("arith.mulf", x.bin("arith.subf", ep, en), half)
}

// fft lowers a one-dimensional FFT, IFFT or RFFT along the last
// dimension, of length N, as the discrete Fourier transform
//
//	X[k] = sum over n of x[n] e^(-+ 2 pi i k n / N)   (IFFT: + and / N)
//
// a contraction with constant N x K tables of cos and sin(2 pi k n / N)
// (K = N, or N/2 + 1 for RFFT).
func (c *converter) fft(ins []parts, pairs map[*ir.Value]parts) error {
	kind, _ := stablehlo.EnumCase(c.op, "fft_type", "fft_type")
	lengths, ok := c.ints("fft_length")
	if !ok || len(lengths) != 1 {
		return c.errorf("only fft_length of one dimension is supported yet")
	}
	if kind == "IRFFT" {
		return c.irfft(ins, lengths[0])
	}
	in, res := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Results[0].Type)
	rank := len(in.Shape)
	n := lengths[0]
	real := kind == "RFFT"
	k := n
	if real {
		k = n/2 + 1
	}
	switch {
	case kind != "RFFT" && kind != "FFT" && kind != "IFFT":
		return c.errorf("fft_type %s is not supported yet (only FFT, IFFT, RFFT and IRFFT)", kind)
	case real != (ins[0][1] == nil) || !isComplex(res):
		return c.errorf("%s takes a %s operand and gives a complex result", kind, map[bool]string{true: "real", false: "complex"}[real])
	case rank == 0 || in.Shape[rank-1] != n || len(res.Shape) != rank || res.Shape[rank-1] != k:
		return c.errorf("%s of length %d of '%s' does not give '%s'", kind, n, ir.TypeString(in), ir.TypeString(res))
	}
	for d := 0; d < rank-1; d++ {
		if in.Shape[d] != res.Shape[d] {
			return c.errorf("%s of length %d of '%s' does not give '%s'", kind, n, ir.TypeString(in), ir.TypeString(res))
		}
	}
	pt := partType(res)
	if ir.TypeString(pt.Elem) != "f32" && ir.TypeString(pt.Elem) != "f64" {
		return c.errorf("'%s' elements are not supported here (only f32 and f64)", ir.TypeString(pt.Elem))
	}
	// Tables [n][k] of cos and sin of the angle 2 pi (k n mod N) / N.
	cosT, sinT := make([]ir.Attribute, 0, n*k), make([]ir.Attribute, 0, n*k)
	for i := int64(0); i < n; i++ {
		for j := int64(0); j < k; j++ {
			sn, cs := sinCosTurn(i*j%n, n)
			cosT, sinT = append(cosT, ir.FloatAttr{Value: cs}), append(sinT, ir.FloatAttr{Value: sn})
		}
	}
	cosV, sinV := c.table(pt.Elem, n, k, cosT), c.table(pt.Elem, n, k, sinT)
	// Loops: the leading dimensions and k in parallel, then n.
	xMap, tMap, oMap, iters := contraction(rank)
	flat := []*ir.Value{ins[0][0]}
	maps := []*ir.AffineMap{xMap}
	if !real {
		flat = append(flat, ins[0][1])
		maps = append(maps, xMap)
	}
	flat = append(flat, cosV, sinV)
	maps = append(maps, tMap, tMap, oMap, oMap)
	var outs []*ir.Value
	for i := 0; i < 2; i++ {
		e := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{pt}, nil)).Results[0]
		z, err := c.genericOp(nil, []*ir.AffineMap{identity(rank)}, e, iters[:rank], func(x builder, _ []*ir.Value) (*ir.Value, error) {
			return x.constant(pt.Elem, 0), nil
		})
		if err != nil {
			return err
		}
		outs = append(outs, z)
	}
	sign := "arith.subf" // e^(-i t) for FFT and RFFT
	if kind == "IFFT" {
		sign = "arith.addf"
	}
	rs, err := c.genericOps(flat, maps, outs, iters, func(x builder, a []*ir.Value) ([]*ir.Value, error) {
		accRe, accIm := a[len(a)-2], a[len(a)-1]
		re, cs, sn := a[0], a[len(a)-4], a[len(a)-3]
		if real {
			// x (cos - i sin)
			return []*ir.Value{x.bin("arith.addf", accRe, x.bin("arith.mulf", re, cs)), x.bin("arith.subf", accIm, x.bin("arith.mulf", re, sn))}, nil
		}
		im := a[1]
		// (re + i im)(cos -+ i sin) = re cos +- im sin + i (im cos -+ re sin)
		other := map[string]string{"arith.subf": "arith.addf", "arith.addf": "arith.subf"}[sign]
		r := x.bin(other, x.bin("arith.mulf", re, cs), x.bin("arith.mulf", im, sn))
		i := x.bin(sign, x.bin("arith.mulf", im, cs), x.bin("arith.mulf", re, sn))
		return []*ir.Value{x.bin("arith.addf", accRe, r), x.bin("arith.addf", accIm, i)}, nil
	})
	if err != nil {
		return err
	}
	if kind == "IFFT" {
		inv := float64(1) / float64(n)
		scaled, err := c.partsGeneric([]parts{{rs[0], rs[1]}}, []*ir.TensorType{pt, pt}, func(x builder, a []*ir.Value) ([]*ir.Value, error) {
			s := x.op("arith.constant", nil, pt.Elem, ir.NamedAttr{Name: "value", Value: ir.FloatAttr{Value: inv, Type: pt.Elem}})
			return []*ir.Value{x.bin("arith.mulf", a[0], s), x.bin("arith.mulf", a[1], s)}, nil
		})
		if err != nil {
			return err
		}
		rs = scaled
	}
	pairs[c.op.Results[0]] = parts{rs[0], rs[1]}
	return nil
}

// irfft lowers a one-dimensional IRFFT of length N along the last
// dimension: the inverse of RFFT, whose operand holds the K = N/2 + 1
// non-negative frequencies of a Hermitian spectrum, giving the real
//
//	x[n] = 1/N sum over k of w_k (Re X[k] cos t - Im X[k] sin t),  t = 2 pi k n / N
//
// where w_k = 2 counts X[N - k], the conjugate of X[k], except w_0 = 1
// and, for even N, w_{N/2} = 1 (numpy's irfft: those imaginary parts
// drop out, sin t being 0 there). A contraction with K x N tables.
func (c *converter) irfft(ins []parts, n int64) error {
	in, res := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Results[0].Type)
	rank := len(in.Shape)
	k := n/2 + 1
	if ins[0][1] == nil || isComplex(res) {
		return c.errorf("IRFFT takes a complex operand and gives a real result")
	}
	if rank == 0 || in.Shape[rank-1] != k || len(res.Shape) != rank || res.Shape[rank-1] != n || !slices.Equal(in.Shape[:rank-1], res.Shape[:rank-1]) {
		return c.errorf("IRFFT of length %d of '%s' does not give '%s'", n, ir.TypeString(in), ir.TypeString(res))
	}
	pt := &ir.TensorType{Shape: res.Shape, Elem: res.Elem}
	if ir.TypeString(pt.Elem) != "f32" && ir.TypeString(pt.Elem) != "f64" {
		return c.errorf("'%s' elements are not supported here (only f32 and f64)", ir.TypeString(pt.Elem))
	}
	cosT, sinT := make([]ir.Attribute, 0, n*k), make([]ir.Attribute, 0, n*k)
	for j := int64(0); j < k; j++ {
		w := 2.0
		if j == 0 || 2*j == n {
			w = 1
		}
		w /= float64(n)
		for i := int64(0); i < n; i++ {
			sn, cs := sinCosTurn(i*j%n, n)
			cosT, sinT = append(cosT, ir.FloatAttr{Value: w * cs}), append(sinT, ir.FloatAttr{Value: -w * sn})
		}
	}
	cosV, sinV := c.table(pt.Elem, k, n, cosT), c.table(pt.Elem, k, n, sinT)
	// Loops: the leading dimensions and n in parallel, then k.
	xMap, tMap, oMap, iters := contraction(rank)
	e := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{pt}, nil)).Results[0]
	z, err := c.genericOp(nil, []*ir.AffineMap{identity(rank)}, e, iters[:rank], func(x builder, _ []*ir.Value) (*ir.Value, error) {
		return x.constant(pt.Elem, 0), nil
	})
	if err != nil {
		return err
	}
	rs, err := c.genericOps([]*ir.Value{ins[0][0], ins[0][1], cosV, sinV}, []*ir.AffineMap{xMap, xMap, tMap, tMap, oMap}, []*ir.Value{z}, iters, func(x builder, a []*ir.Value) ([]*ir.Value, error) {
		re, im, cs, sn, acc := a[0], a[1], a[2], a[3], a[4]
		return []*ir.Value{x.bin("arith.addf", acc, x.bin("arith.addf", x.bin("arith.mulf", re, cs), x.bin("arith.mulf", im, sn)))}, nil
	})
	if err != nil {
		return err
	}
	c.repl[c.op.Results[0]] = rs[0]
	return nil
}

// table emits a rows x cols constant of element type elem holding elems
// row-major: a DFT's cos or sin table.
func (c *converter) table(elem ir.Type, rows, cols int64, elems []ir.Attribute) *ir.Value {
	tt := &ir.TensorType{Shape: []int64{rows, cols}, Elem: elem}
	d := &ir.DenseAttr{Type: tt, Elements: elems, Nesting: []int{int(rows), int(cols)}}
	return c.emit(ir.NewOp("arith.constant", nil, []ir.Type{tt}, []ir.NamedAttr{{Name: "value", Value: d}})).Results[0]
}

// contraction returns the maps and iterators of a DFT along the last of
// rank dimensions: loops over the leading dimensions and the result's
// last one (parallel), then the reduced one (d_rank); the input is read
// at the reduced index, the table at (reduced, result) and the result
// written at the parallel ones.
func contraction(rank int) (xMap, tMap, oMap *ir.AffineMap, iters []string) {
	loops := rank + 1
	xMap = identity(rank)
	xMap.NumDims = loops
	xMap.Results[rank-1] = dim(rank)
	tMap = &ir.AffineMap{NumDims: loops, Results: []*ir.AffineExpr{dim(rank), dim(rank - 1)}}
	oMap = identity(rank)
	oMap.NumDims = loops
	iters = make([]string, loops)
	for i := range iters {
		iters[i] = "parallel"
	}
	iters[rank] = "reduction"
	return xMap, tMap, oMap, iters
}

// sinCosTurn returns the sine and cosine of 2 pi r / n, exact at the
// quarter turns (where math.Sincos of the rounded angle is off by 1e-16).
func sinCosTurn(r, n int64) (float64, float64) {
	if 4*r%n == 0 {
		q := 4 * r / n % 4
		return [4]float64{0, 1, 0, -1}[q], [4]float64{1, 0, -1, 0}[q]
	}
	return math.Sincos(2 * math.Pi * float64(r) / float64(n))
}
