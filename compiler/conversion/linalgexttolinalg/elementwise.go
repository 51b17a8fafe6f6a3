package linalgexttolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
)

// The scalar op of each elementwise named op, on floats and on integers
// ("" where the op has no integer form).
var elementwiseOps = map[string][2]string{
	"linalg.add": {"arith.addf", "arith.addi"}, "linalg.sub": {"arith.subf", "arith.subi"},
	"linalg.mul": {"arith.mulf", "arith.muli"}, "linalg.div": {"arith.divf", "arith.divsi"},
	"linalg.div_unsigned": {"arith.divf", "arith.divui"}, "linalg.max": {"arith.maximumf", "arith.maxsi"},
	"linalg.min": {"arith.minimumf", "arith.minsi"}, "linalg.powf": {"math.powf", ""},
	"linalg.exp": {"math.exp", ""}, "linalg.log": {"math.log", ""}, "linalg.abs": {"math.absf", "math.absi"},
	"linalg.ceil": {"math.ceil", ""}, "linalg.floor": {"math.floor", ""}, "linalg.negf": {"arith.negf", ""},
	"linalg.round": {"math.round", ""}, "linalg.sqrt": {"math.sqrt", ""}, "linalg.rsqrt": {"math.rsqrt", ""},
	"linalg.tanh": {"math.tanh", ""}, "linalg.erf": {"math.erf", ""},
	// reciprocal (1 / x) and square (x * x) are built below.
	"linalg.reciprocal": {"arith.divf", ""}, "linalg.square": {"arith.mulf", "arith.muli"},
}

// elementwise lowers an elementwise named op (linalg.add, linalg.exp, ...)
// to a linalg.generic with identity maps whose body casts each input to
// the output's element type (signed, or unsigned for div_unsigned) and
// applies the op.
func (b builder) elementwise(op *ir.Operation) *ir.Value {
	ins, out := linalg.Ins(op), linalg.Outs(op)[0]
	n := len(out.Type.(*ir.TensorType).Shape)
	var maps []*ir.AffineMap
	for range append(append([]*ir.Value(nil), ins...), out) {
		maps = append(maps, identity(n))
	}
	et := arith.ElementType(out.Type)
	_, isFloat := et.(ir.FloatType)
	names := elementwiseOps[op.Name]
	return b.generic(ins, out, maps, make([]bool, n), func(y body, args []*ir.Value) *ir.Value {
		var xs []*ir.Value
		for _, a := range args[:len(ins)] {
			switch {
			case isFloat:
				a = y.convert(a, et)
			case op.Name == "linalg.div_unsigned" && !ir.TypesEqual(a.Type, et):
				a = y.op("arith.extui", et, a)
			default:
				a = castInt(y, a, et)
			}
			xs = append(xs, a)
		}
		name := names[1]
		if isFloat {
			name = names[0]
		}
		switch op.Name {
		case "linalg.reciprocal":
			return y.op(name, et, y.float(1, et), xs[0])
		case "linalg.square":
			return y.op(name, et, xs[0], xs[0])
		}
		return y.op(name, et, xs...)
	})
}
