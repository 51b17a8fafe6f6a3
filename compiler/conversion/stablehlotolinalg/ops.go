package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// arith.cmpf and arith.cmpi predicate numbers (MLIR's enums).
const (
	cmpfOGT, cmpfOLT, cmpfUNE = 2, 4, 13
	cmpiEQ, cmpiNE            = 0, 1
	cmpiSLT, cmpiSGT, cmpiSGE = 2, 4, 5
	cmpiUGE                   = 9
)

// builder appends scalar ops to a linalg.generic body.
type builder struct{ b *ir.Block }

func (x builder) op(name string, operands []*ir.Value, t ir.Type, attrs ...ir.NamedAttr) *ir.Value {
	o := ir.NewOp(name, operands, []ir.Type{t}, attrs)
	x.b.Append(o)
	return o.Results[0]
}

func (x builder) bin(name string, a, b *ir.Value) *ir.Value {
	return x.op(name, []*ir.Value{a, b}, a.Type)
}

func (x builder) un(name string, a *ir.Value) *ir.Value {
	return x.op(name, []*ir.Value{a}, a.Type)
}

// constant returns a scalar constant v of type t (integer or float).
func (x builder) constant(t ir.Type, v int64) *ir.Value {
	var a ir.Attribute = ir.IntegerAttr{Value: v, Type: t}
	if _, ok := t.(ir.FloatType); ok {
		a = ir.FloatAttr{Value: float64(v), Type: t}
	}
	o := ir.NewOp("arith.constant", nil, []ir.Type{t}, []ir.NamedAttr{{Name: "value", Value: a}})
	x.b.Append(o)
	return o.Results[0]
}

func (x builder) cmp(name string, pred int64, a, b *ir.Value) *ir.Value {
	o := ir.NewOp(name, []*ir.Value{a, b}, []ir.Type{ir.I1}, []ir.NamedAttr{{Name: "predicate", Value: ir.IntegerAttr{Value: pred, Type: ir.I64}}})
	x.b.Append(o)
	return o.Results[0]
}

func (x builder) sel(c, a, b *ir.Value) *ir.Value {
	return x.op("arith.select", []*ir.Value{c, a, b}, a.Type)
}

// scalarFunc computes one result element from the operand elements.
type scalarFunc func(x builder, args []*ir.Value) (*ir.Value, error)

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

// unary and binary name the arith/math op for float and integer elements
// ("" where StableHLO does not define the op for that element kind or it
// has no direct lowering here).
var unary = map[string][2]string{
	"abs": {"math.absf", "math.absi"}, "exponential": {"math.exp", ""},
	"exponential_minus_one": {"math.expm1", ""}, "log": {"math.log", ""}, "log_plus_one": {"math.log1p", ""},
	"tanh": {"math.tanh", ""}, "sqrt": {"math.sqrt", ""}, "rsqrt": {"math.rsqrt", ""},
	"floor": {"math.floor", ""}, "ceil": {"math.ceil", ""}, "sine": {"math.sin", ""}, "cosine": {"math.cos", ""},
	"round_nearest_even": {"math.roundeven", ""}, "round_nearest_afz": {"math.round", ""},
}

var binary = map[string][2]string{
	"add": {"arith.addf", "arith.addi"}, "subtract": {"arith.subf", "arith.subi"},
	"multiply": {"arith.mulf", "arith.muli"}, "divide": {"arith.divf", "arith.divsi"},
	"remainder": {"arith.remf", "arith.remsi"}, "maximum": {"arith.maximumf", "arith.maxsi"},
	"minimum": {"arith.minimumf", "arith.minsi"}, "power": {"math.powf", ""},
	"and": {"", "arith.andi"}, "or": {"", "arith.ori"}, "xor": {"", "arith.xori"},
}

// scalarBody returns the element computation of op name whose result
// elements are of type rt.
func (c *converter) scalarBody(name string, rt ir.Type) (scalarFunc, error) {
	in := stablehlo.Ranked(c.op.Operands[0].Type).Elem
	if name == "select" || name == "clamp" {
		in = stablehlo.Ranked(c.op.Operands[1].Type).Elem
	}
	fl := isFloat(in)
	pick := func(ops [2]string) (scalarFunc, error) {
		n := ops[1]
		if fl {
			n = ops[0]
		}
		if n == "" {
			return nil, c.errorf("'%s' elements are not supported here", ir.TypeString(in))
		}
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			if len(a) == 1 {
				return x.un(n, a[0]), nil
			}
			return x.bin(n, a[0], a[1]), nil
		}, nil
	}
	if ops, ok := unary[name]; ok {
		return pick(ops)
	}
	if ops, ok := binary[name]; ok {
		return pick(ops)
	}
	switch name {
	case "negate":
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			if fl {
				return x.un("arith.negf", a[0]), nil
			}
			return x.bin("arith.subi", x.constant(in, 0), a[0]), nil
		}, nil
	case "not":
		if fl {
			return nil, c.errorf("'%s' elements are not supported here", ir.TypeString(in))
		}
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			ones := int64(-1)
			if intWidth(in) == 1 {
				ones = 1
			}
			return x.bin("arith.xori", a[0], x.constant(in, ones)), nil
		}, nil
	case "logistic":
		if !fl {
			return nil, c.errorf("'%s' elements are not supported here", ir.TypeString(in))
		}
		// 1 / (1 + exp(-x))
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			e := x.un("math.exp", x.un("arith.negf", a[0]))
			return x.bin("arith.divf", x.constant(in, 1), x.bin("arith.addf", x.constant(in, 1), e)), nil
		}, nil
	case "sign":
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			zero, one, minus := x.constant(in, 0), x.constant(in, 1), x.constant(in, -1)
			if fl {
				// NaN and ±0 fail both compares and are returned as they are.
				neg := x.sel(x.cmp("arith.cmpf", cmpfOLT, a[0], zero), minus, a[0])
				return x.sel(x.cmp("arith.cmpf", cmpfOGT, a[0], zero), one, neg), nil
			}
			neg := x.sel(x.cmp("arith.cmpi", cmpiSLT, a[0], zero), minus, zero)
			return x.sel(x.cmp("arith.cmpi", cmpiSGT, a[0], zero), one, neg), nil
		}, nil
	case "shift_left", "shift_right_logical", "shift_right_arithmetic":
		if fl {
			return nil, c.errorf("'%s' elements are not supported here", ir.TypeString(in))
		}
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			// Shifts by the width or more (unsigned, so negative ones too)
			// are undefined in arith but defined by StableHLO.
			w := x.constant(in, int64(intWidth(in)))
			big := x.cmp("arith.cmpi", cmpiUGE, a[1], w)
			if name == "shift_right_arithmetic" {
				s := x.sel(big, x.constant(in, int64(intWidth(in)-1)), a[1])
				return x.bin("arith.shrsi", a[0], s), nil
			}
			op := map[bool]string{true: "arith.shli", false: "arith.shrui"}[name == "shift_left"]
			return x.sel(big, x.constant(in, 0), x.bin(op, a[0], a[1])), nil
		}, nil
	case "select":
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			return x.sel(a[0], a[1], a[2]), nil
		}, nil
	case "clamp":
		lo, hi := "arith.maxsi", "arith.minsi"
		if fl {
			lo, hi = "arith.maximumf", "arith.minimumf"
		}
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			return x.bin(hi, x.bin(lo, a[1], a[0]), a[2]), nil
		}, nil
	case "convert":
		return c.convert(in, rt)
	case "compare":
		return c.compare(in)
	case "bitcast_convert":
		bits := func(t ir.Type) int {
			if isFloat(t) {
				return floatBits(t)
			}
			return intWidth(t)
		}
		if bits(in) != bits(rt) || bits(in) == 1 || isFloat(in) && isFloat(rt) && ir.TypeString(in) != ir.TypeString(rt) {
			return nil, c.errorf("bitcast from '%s' to '%s' is not supported", ir.TypeString(in), ir.TypeString(rt))
		}
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			if ir.TypeString(in) == ir.TypeString(rt) {
				return a[0], nil
			}
			return x.op("arith.bitcast", a, rt), nil
		}, nil
	case "real", "imag":
		// Of a real operand (complex ones are lowered by lowerComplex):
		// the operand itself, and zero.
		if !fl {
			return nil, c.errorf("'%s' elements are not supported here", ir.TypeString(in))
		}
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			if name == "imag" {
				return x.constant(in, 0), nil
			}
			return a[0], nil
		}, nil
	case "is_finite":
		if !fl {
			return nil, c.errorf("'%s' elements are not supported here", ir.TypeString(in))
		}
		return func(x builder, a []*ir.Value) (*ir.Value, error) {
			return x.op("math.isfinite", a, ir.I1), nil
		}, nil
	}
	return nil, c.errorf("lowering is not supported yet")
}

func floatBits(t ir.Type) int {
	switch t.(ir.FloatType).Name {
	case "f64":
		return 64
	case "f32":
		return 32
	}
	return 16
}

// convert changes element type in to out: integers extend (i1 without its
// sign) or truncate, floats round, and anything converted to i1 is
// compared with zero.
func (c *converter) convert(in, out ir.Type) (scalarFunc, error) {
	fi, fo := isFloat(in), isFloat(out)
	return func(x builder, a []*ir.Value) (*ir.Value, error) {
		v := a[0]
		switch {
		case intWidth(out) == 1 && fi:
			return x.cmp("arith.cmpf", cmpfUNE, v, x.constant(in, 0)), nil
		case intWidth(out) == 1:
			return x.cmp("arith.cmpi", cmpiNE, v, x.constant(in, 0)), nil
		case fi && fo:
			switch bi, bo := floatBits(in), floatBits(out); {
			case bi < bo:
				return x.op("arith.extf", a, out), nil
			case bi > bo:
				return x.op("arith.truncf", a, out), nil
			}
			if ir.TypeString(in) != ir.TypeString(out) {
				return nil, c.errorf("conversion from '%s' to '%s' is not supported yet", ir.TypeString(in), ir.TypeString(out))
			}
			return v, nil
		case fi:
			return x.op("arith.fptosi", a, out), nil
		case fo && intWidth(in) == 1:
			return x.op("arith.uitofp", a, out), nil
		case fo:
			return x.op("arith.sitofp", a, out), nil
		}
		switch wi, wo := intWidth(in), intWidth(out); {
		case wi == 1:
			return x.op("arith.extui", a, out), nil
		case wi < wo:
			return x.op("arith.extsi", a, out), nil
		case wi > wo:
			return x.op("arith.trunci", a, out), nil
		}
		return v, nil
	}, nil
}

// arith.cmpf and arith.cmpi predicates of each comparison direction; i1
// operands compare as unsigned (false < true).
var (
	cmpfPred = map[string]int64{"EQ": 1, "GT": 2, "GE": 3, "LT": 4, "LE": 5, "NE": 13}
	cmpiPred = map[string]int64{"EQ": 0, "NE": 1, "LT": 2, "LE": 3, "GT": 4, "GE": 5}
	cmpuPred = map[string]int64{"EQ": 0, "NE": 1, "LT": 6, "LE": 7, "GT": 8, "GE": 9}
)

// compare lowers compare by its comparison_direction; NE on floats is
// unordered (true for NaN), the rest ordered, as in XLA.
func (c *converter) compare(in ir.Type) (scalarFunc, error) {
	dir, ok := stablehlo.EnumCase(c.op, "comparison_direction", "comparison_direction")
	if !ok {
		return nil, c.errorf("requires a comparison_direction attribute such as #stablehlo<comparison_direction EQ>")
	}
	name, preds := "arith.cmpi", cmpiPred
	switch {
	case isFloat(in):
		name, preds = "arith.cmpf", cmpfPred
	case intWidth(in) == 1:
		preds = cmpuPred
	}
	pred, ok := preds[dir]
	if !ok {
		return nil, c.errorf("unknown comparison_direction '%s'", dir)
	}
	return func(x builder, a []*ir.Value) (*ir.Value, error) {
		return x.cmp(name, pred, a[0], a[1]), nil
	}, nil
}
