package llvmcpu

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/affine"
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
)

// cType returns the C type that holds values of a scalar IR type. f16
// and bf16 values are held in floats (always a representable value, see
// mathlib.go); storageType gives their 16-bit memory form.
func cType(t ir.Type) (string, error) {
	switch t := t.(type) {
	case ir.IndexType:
		return "int64_t", nil
	case ir.IntegerType:
		switch t.Width {
		case 1:
			return "_Bool", nil
		case 8, 16, 32, 64:
			if t.Signedness == ir.Unsigned {
				return "uint" + strconv.Itoa(t.Width) + "_t", nil
			}
			return "int" + strconv.Itoa(t.Width) + "_t", nil
		}
	case ir.FloatType:
		switch t.Name {
		case "f16", "bf16", "f32":
			return "float", nil
		case "f64":
			return "double", nil
		}
	}
	return "", fmt.Errorf("type '%s' is not supported by llvm-cpu code generation", ir.TypeString(t))
}

// halfKind returns "f16" or "bf16" for those types and "" otherwise.
func halfKind(t ir.Type) string {
	if f, ok := t.(ir.FloatType); ok && (f.Name == "f16" || f.Name == "bf16") {
		return f.Name
	}
	return ""
}

// storageType returns the C type of a scalar IR type's elements in
// memory: the 16-bit pattern for f16 and bf16, cType otherwise.
func storageType(t ir.Type) (string, error) {
	if halfKind(t) != "" {
		return "uint16_t", nil
	}
	return cType(t)
}

// loadValue converts an element read from memory (x, of storageType) to
// its value; storeValue converts back. Both mark the helpers they use.
func loadValue(helpers map[string]bool, t ir.Type, x string) string {
	switch halfKind(t) {
	case "f16":
		needHelper(helpers, "half")
		return "gi_h2f(" + x + ")"
	case "bf16":
		needHelper(helpers, "half")
		return "gi_bf2f(" + x + ")"
	}
	return x
}

func storeValue(helpers map[string]bool, t ir.Type, x string) string {
	switch halfKind(t) {
	case "f16":
		needHelper(helpers, "half")
		return "gi_f2h(" + x + ")"
	case "bf16":
		needHelper(helpers, "half")
		return "gi_f2bf(" + x + ")"
	}
	return x
}

// unsignedOf returns the unsigned C type of the same width as a signless
// integer or index type.
func unsignedOf(t ir.Type) string {
	switch t := t.(type) {
	case ir.IndexType:
		return "uint64_t"
	case ir.IntegerType:
		if t.Width == 1 {
			return "_Bool"
		}
		return "uint" + strconv.Itoa(t.Width) + "_t"
	}
	return "uint64_t"
}

func isFloatType(t ir.Type) bool { _, ok := t.(ir.FloatType); return ok }

// scalarEmitter turns scalar arith/math/affine ops into C statements.
type scalarEmitter struct {
	out     *strings.Builder
	names   map[*ir.Value]string
	next    *int
	helpers map[string]bool
	indent  string
	// rounded is set while emitting an op whose expression already
	// rounds to its f16/bf16 result type.
	rounded bool
}

func (e *scalarEmitter) name(v *ir.Value) (string, error) {
	if n, ok := e.names[v]; ok {
		return n, nil
	}
	return "", fmt.Errorf("value %%%s is used before it is defined or has no C form", v.Name)
}

func (e *scalarEmitter) define(v *ir.Value) string {
	*e.next++
	n := "v" + strconv.Itoa(*e.next)
	e.names[v] = n
	return n
}

func (e *scalarEmitter) line(format string, args ...any) {
	e.out.WriteString(e.indent)
	fmt.Fprintf(e.out, format, args...)
	e.out.WriteString("\n")
}

func (e *scalarEmitter) operands(op *ir.Operation) ([]string, error) {
	out := make([]string, len(op.Operands))
	for i, v := range op.Operands {
		n, err := e.name(v)
		if err != nil {
			return nil, ir.OpErrorf(op, "%v", err)
		}
		out[i] = n
	}
	return out, nil
}

// floatLiteral prints a C constant of the float type t.
func floatLiteral(v float64, t ir.Type) string {
	ft, _ := t.(ir.FloatType)
	switch {
	case math.IsNaN(v):
		if ft.Name == "f64" {
			return "__builtin_nan(\"\")"
		}
		return "(" + mustCType(t) + ")__builtin_nanf(\"\")"
	case math.IsInf(v, 1):
		return "(" + mustCType(t) + ")__builtin_inf()"
	case math.IsInf(v, -1):
		return "(" + mustCType(t) + ")(-__builtin_inf())"
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	if ft.Name == "f64" {
		return s
	}
	return "(" + mustCType(t) + ")" + s
}

func mustCType(t ir.Type) string {
	s, err := cType(t)
	if err != nil {
		return "void"
	}
	return s
}

func intLiteral(v int64, t ir.Type) string {
	ct := mustCType(t)
	if v == math.MinInt64 {
		return "(" + ct + ")(-9223372036854775807LL - 1)"
	}
	return "(" + ct + ")" + strconv.FormatInt(v, 10) + "LL"
}

// constant emits arith.constant with a scalar (or splat) value.
func (e *scalarEmitter) constant(op *ir.Operation) error {
	r := op.Results[0]
	a := op.Attr("value")
	t := arith.ElementType(r.Type)
	ct, err := cType(t)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	if d, ok := a.(*ir.DenseAttr); ok {
		if !d.Splat || len(d.Elements) != 1 {
			return ir.OpErrorf(op, "only splat dense constants can be used in generated CPU code")
		}
		a = d.Elements[0]
	}
	var lit string
	switch a := a.(type) {
	case ir.IntegerAttr:
		if k := halfKind(t); k != "" {
			e.need("half")
			lit = map[string]string{"f16": "gi_rh_d", "bf16": "gi_rbf_d"}[k] + "(" + strconv.FormatInt(a.Value, 10) + ".0)"
		} else if isFloatType(t) {
			lit = floatLiteral(float64(a.Value), t)
		} else {
			lit = intLiteral(a.Value, t)
		}
	case ir.FloatAttr:
		lit = floatLiteral(a.Value, t)
		if k := halfKind(t); k != "" && !math.IsNaN(a.Value) && !math.IsInf(a.Value, 0) {
			// The literal rounded to the type's precision.
			e.need("half")
			lit = map[string]string{"f16": "gi_rh_d", "bf16": "gi_rbf_d"}[k] + "(" + strconv.FormatFloat(a.Value, 'e', -1, 64) + ")"
		}
	case ir.BoolAttr:
		lit = "0"
		if a.Value {
			lit = "1"
		}
	default:
		return ir.OpErrorf(op, "unsupported constant %s", ir.AttrString(a))
	}
	e.line("const %s %s = %s;", ct, e.define(r), lit)
	return nil
}

var intBinary = map[string]string{
	"arith.andi": "&", "arith.ori": "|", "arith.xori": "^",
}

var wrapBinary = map[string]string{
	"arith.addi": "+", "arith.subi": "-", "arith.muli": "*",
}

var floatBinary = map[string]string{
	"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/",
}

// mathFuncs maps the math ops computed by a library function to its
// helper and C name (gi_<name>_f64; f32 has its own for exp and log).
var mathFuncs = map[string]struct{ helper, name string }{
	"math.exp": {"exp_f64", "exp"}, "math.exp2": {"exp2_f64", "exp2"}, "math.expm1": {"expm1_f64", "expm1"},
	"math.log": {"log_f64", "log"}, "math.log2": {"log_f64", "log2"}, "math.log10": {"log_f64", "log10"},
	"math.log1p": {"log1p_f64", "log1p"}, "math.tanh": {"tanh_f64", "tanh"}, "math.erf": {"erf_f64", "erf"},
	"math.sin": {"trig_f64", "sin"}, "math.cos": {"trig_f64", "cos"}, "math.tan": {"trig_f64", "tan"},
	"math.atan": {"atan_f64", "atan"}, "math.atan2": {"atan_f64", "atan2"}, "math.powf": {"pow_f64", "pow"},
	"arith.remf": {"fmod_f64", "fmod"},
}

// exactFloatOps produce a representable value of their result type from
// representable operands, so f16/bf16 results need no rounding.
var exactFloatOps = map[string]bool{
	"arith.negf": true, "arith.select": true, "arith.maximumf": true, "arith.minimumf": true,
	"arith.maxnumf": true, "arith.minnumf": true, "math.absf": true, "math.copysign": true,
	"math.floor": true, "math.ceil": true, "math.trunc": true, "math.round": true, "math.roundeven": true,
	"arith.extf": true, "arith.constant": true,
}

// emit emits one scalar op; handled is false when the op is not scalar
// arithmetic.
func (e *scalarEmitter) emit(op *ir.Operation) (handled bool, err error) {
	name := op.Name
	if name == "arith.constant" {
		return true, e.constant(op)
	}
	if name == "affine.apply" {
		return true, e.affineApply(op)
	}
	if name == "affine.min" || name == "affine.max" {
		return true, e.affineMinMax(op, name == "affine.min")
	}
	if !strings.HasPrefix(name, "arith.") && !strings.HasPrefix(name, "math.") {
		return false, nil
	}
	if len(op.Results) != 1 {
		return true, ir.OpErrorf(op, "'%s' with %d results is not supported by llvm-cpu code generation", name, len(op.Results))
	}
	r := op.Results[0]
	rt := arith.ElementType(r.Type)
	ct, err := cType(rt)
	if err != nil {
		return true, ir.OpErrorf(op, "%v", err)
	}
	args, err := e.operands(op)
	if err != nil {
		return true, err
	}
	if want := arity(name); want >= 0 && len(args) != want {
		return true, ir.OpErrorf(op, "expects %d operands, found %d", want, len(args))
	}
	var at ir.Type
	if len(op.Operands) > 0 {
		at = arith.ElementType(op.Operands[0].Type)
	}
	var expr string
	u := unsignedOf(rt)
	switch {
	case wrapBinary[name] != "" && isBool(rt):
		// i1 arithmetic is modulo 2.
		expr = fmt.Sprintf("(_Bool)(((unsigned)%s %s (unsigned)%s) & 1u)", args[0], wrapBinary[name], args[1])
	case wrapBinary[name] != "":
		expr = fmt.Sprintf("(%s)((%s)%s %s (%s)%s)", ct, u, args[0], wrapBinary[name], u, args[1])
	case intBinary[name] != "":
		expr = fmt.Sprintf("(%s)(%s %s %s)", ct, args[0], intBinary[name], args[1])
	case floatBinary[name] != "":
		expr = fmt.Sprintf("(%s)(%s %s %s)", ct, args[0], floatBinary[name], args[1])
	default:
		expr, err = e.special(op, ct, u, rt, at, args)
		if err != nil {
			return true, err
		}
	}
	if k := halfKind(rt); k != "" && !exactFloatOps[name] && !e.rounded {
		// Computed in float: round to the result's precision.
		e.need("half")
		if k == "f16" {
			expr = "gi_rh(" + expr + ")"
		} else {
			expr = "gi_rbf(" + expr + ")"
		}
	}
	e.rounded = false
	e.line("const %s %s = %s;", ct, e.define(r), expr)
	return true, nil
}

func (e *scalarEmitter) need(h string) { needHelper(e.helpers, h) }

func isBool(t ir.Type) bool {
	i, ok := t.(ir.IntegerType)
	return ok && i.Width == 1
}

// intWidth is the bit width of an integer or index type.
func intWidth(t ir.Type) int {
	switch t := t.(type) {
	case ir.IntegerType:
		return t.Width
	case ir.IndexType:
		return 64
	}
	return 0
}

// arity returns the operand count of a scalar op, or -1 when unknown.
func arity(name string) int {
	switch name {
	case "arith.select", "math.fma":
		return 3
	case "arith.negf", "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
		"arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.bitcast":
		return 1
	case "math.powf", "math.atan2", "math.copysign", "math.fpowi":
		return 2
	}
	if strings.HasPrefix(name, "math.") {
		return 1
	}
	return 2
}

// fromDouble rounds a double C expression to a value of float type rt,
// marking the op's result as already rounded for f16 and bf16.
func (e *scalarEmitter) fromDouble(rt ir.Type, x string) string {
	switch halfKind(rt) {
	case "f16":
		e.need("half")
		e.rounded = true
		return "gi_rh_d(" + x + ")"
	case "bf16":
		e.need("half")
		e.rounded = true
		return "gi_rbf_d(" + x + ")"
	}
	if ft, ok := rt.(ir.FloatType); ok && ft.Name == "f64" {
		return x
	}
	return "(float)(" + x + ")"
}

func (e *scalarEmitter) special(op *ir.Operation, ct, u string, rt, at ir.Type, a []string) (string, error) {
	isF64 := func(t ir.Type) bool { f, ok := t.(ir.FloatType); return ok && f.Name == "f64" }
	dbl := func(x string) string { return "(double)" + x }
	if f, ok := mathFuncs[op.Name]; ok {
		e.need(f.helper)
		ft, _ := rt.(ir.FloatType)
		if ft.Name == "f32" && (f.name == "exp" || f.name == "log") {
			// Branch-free float versions, which clang vectorizes.
			e.need(f.name + "_f32")
			return fmt.Sprintf("gi_%s_f32(%s)", f.name, a[0]), nil
		}
		var ds []string
		for _, x := range a {
			ds = append(ds, dbl(x))
		}
		return e.fromDouble(rt, fmt.Sprintf("gi_%s_f64(%s)", f.name, strings.Join(ds, ", "))), nil
	}
	w := intWidth(rt)
	switch op.Name {
	case "arith.divsi", "arith.remsi":
		// x86 traps on a zero divisor and on INT_MIN / -1: a zero divisor
		// gives 0 (remainder: the dividend), -1 negates with wrapping
		// (remainder 0).
		if op.Name == "arith.divsi" {
			return fmt.Sprintf("({ const %[1]s gi_n = %[3]s, gi_d = %[4]s; gi_d == 0 ? (%[1]s)0 : gi_d == (%[1]s)-1 ? (%[1]s)((%[2]s)0 - (%[2]s)gi_n) : (%[1]s)(gi_n / gi_d); })", ct, u, a[0], a[1]), nil
		}
		return fmt.Sprintf("({ const %[1]s gi_n = %[2]s, gi_d = %[3]s; gi_d == 0 ? gi_n : gi_d == (%[1]s)-1 ? (%[1]s)0 : (%[1]s)(gi_n %% gi_d); })", ct, a[0], a[1]), nil
	case "arith.divui":
		return fmt.Sprintf("({ const %[2]s gi_d = (%[2]s)%[4]s; gi_d == 0 ? (%[1]s)0 : (%[1]s)((%[2]s)%[3]s / gi_d); })", ct, u, a[0], a[1]), nil
	case "arith.remui":
		return fmt.Sprintf("({ const %[2]s gi_d = (%[2]s)%[4]s; gi_d == 0 ? %[3]s : (%[1]s)((%[2]s)%[3]s %% gi_d); })", ct, u, a[0], a[1]), nil
	case "arith.ceildivui":
		return fmt.Sprintf("({ const %[2]s gi_n = (%[2]s)%[3]s, gi_d = (%[2]s)%[4]s; gi_d == 0 ? (%[1]s)0 : (%[1]s)(gi_n / gi_d + (gi_n %% gi_d != 0)); })", ct, u, a[0], a[1]), nil
	case "arith.ceildivsi":
		e.need("divs")
		return fmt.Sprintf("(%s)gi_ceildiv((int64_t)%s, (int64_t)%s)", ct, a[0], a[1]), nil
	case "arith.floordivsi":
		e.need("divs")
		return fmt.Sprintf("(%s)gi_floordiv((int64_t)%s, (int64_t)%s)", ct, a[0], a[1]), nil
	case "arith.shli":
		// Shifting by the width or more is poison in MLIR and undefined in
		// C: it gives 0 (or the sign for shrsi).
		return fmt.Sprintf("((%[2]s)%[4]s >= %[5]d ? (%[1]s)0 : (%[1]s)((%[2]s)%[3]s << (%[2]s)%[4]s))", ct, u, a[0], a[1], w), nil
	case "arith.shrsi":
		if isBool(rt) {
			return a[0], nil
		}
		return fmt.Sprintf("((%[2]s)%[4]s >= %[5]d ? (%[1]s)(%[3]s < 0 ? -1 : 0) : (%[1]s)(%[3]s >> (%[2]s)%[4]s))", ct, u, a[0], a[1], w), nil
	case "arith.shrui":
		return fmt.Sprintf("((%[2]s)%[4]s >= %[5]d ? (%[1]s)0 : (%[1]s)((%[2]s)%[3]s >> (%[2]s)%[4]s))", ct, u, a[0], a[1], w), nil
	case "arith.maxnumf":
		return fmt.Sprintf("(%[1]s != %[1]s ? %[2]s : (%[2]s != %[2]s ? %[1]s : (%[1]s > %[2]s ? %[1]s : %[2]s)))", a[0], a[1]), nil
	case "arith.minnumf":
		return fmt.Sprintf("(%[1]s != %[1]s ? %[2]s : (%[2]s != %[2]s ? %[1]s : (%[1]s < %[2]s ? %[1]s : %[2]s)))", a[0], a[1]), nil
	case "arith.maxsi":
		return fmt.Sprintf("(%[1]s > %[2]s ? %[1]s : %[2]s)", a[0], a[1]), nil
	case "arith.minsi":
		return fmt.Sprintf("(%[1]s < %[2]s ? %[1]s : %[2]s)", a[0], a[1]), nil
	case "arith.maxui":
		return fmt.Sprintf("(%[3]s)((%[1]s)%[2]s > (%[1]s)%[4]s ? %[2]s : %[4]s)", u, a[0], ct, a[1]), nil
	case "arith.minui":
		return fmt.Sprintf("(%[3]s)((%[1]s)%[2]s < (%[1]s)%[4]s ? %[2]s : %[4]s)", u, a[0], ct, a[1]), nil
	case "arith.maximumf", "arith.minimumf":
		// NaN propagates; -0 is below +0.
		rel := ">"
		if op.Name == "arith.minimumf" {
			rel = "<"
		}
		return fmt.Sprintf("(%[1]s != %[1]s || %[2]s != %[2]s ? (%[3]s)__builtin_nan(\"\") : (%[1]s == %[2]s ? (__builtin_signbit(%[1]s) %[4]s __builtin_signbit(%[2]s) ? %[2]s : %[1]s) : (%[1]s %[4]s %[2]s ? %[1]s : %[2]s)))", a[0], a[1], ct, rel), nil
	case "arith.negf":
		return fmt.Sprintf("(%s)(-%s)", ct, a[0]), nil
	case "arith.extsi":
		if isBool(at) {
			return fmt.Sprintf("(%s)(0 - (%s)%s)", ct, ct, a[0]), nil
		}
		return fmt.Sprintf("(%s)%s", ct, a[0]), nil
	case "arith.trunci":
		if isBool(rt) {
			return fmt.Sprintf("(_Bool)(%s & 1)", a[0]), nil
		}
		return fmt.Sprintf("(%s)%s", ct, a[0]), nil
	case "arith.index_cast":
		return fmt.Sprintf("(%s)%s", ct, a[0]), nil
	case "arith.sitofp":
		x := a[0]
		if isBool(at) {
			x = "(0 - (int)" + x + ")"
		}
		return e.fromDouble(rt, "(double)"+x), nil
	case "arith.uitofp":
		return e.fromDouble(rt, fmt.Sprintf("(double)(%s)%s", unsignedOf(at), a[0])), nil
	case "arith.extf":
		return fmt.Sprintf("(%s)%s", ct, a[0]), nil
	case "arith.truncf":
		if isF64(at) {
			return e.fromDouble(rt, a[0]), nil
		}
		return fmt.Sprintf("(%s)%s", ct, a[0]), nil
	case "arith.fptosi":
		if isBool(rt) {
			return fmt.Sprintf("(_Bool)(%s != 0)", a[0]), nil
		}
		return fmt.Sprintf("(%s)%s", ct, a[0]), nil
	case "arith.index_castui", "arith.extui":
		return fmt.Sprintf("(%s)(%s)%s", ct, unsignedOf(at), a[0]), nil
	case "arith.fptoui":
		return fmt.Sprintf("(%s)(%s)%s", ct, u, a[0]), nil
	case "arith.bitcast":
		return e.bitcast(rt, at, a[0])
	case "arith.select":
		return fmt.Sprintf("(%s ? %s : %s)", a[0], a[1], a[2]), nil
	case "arith.cmpi":
		return cmpi(op, at, a)
	case "arith.cmpf":
		return cmpf(op, a)
	case "math.absf":
		if ct == "double" {
			return fmt.Sprintf("__builtin_fabs(%s)", a[0]), nil
		}
		return fmt.Sprintf("__builtin_fabsf(%s)", a[0]), nil
	case "math.copysign":
		if ct == "double" {
			return fmt.Sprintf("__builtin_copysign(%s, %s)", a[0], a[1]), nil
		}
		return fmt.Sprintf("__builtin_copysignf(%s, %s)", a[0], a[1]), nil
	case "math.absi":
		return fmt.Sprintf("(%[2]s)(%[1]s < 0 ? (%[3]s)0 - (%[3]s)%[1]s : (%[3]s)%[1]s)", a[0], ct, u), nil
	case "math.ctpop":
		return fmt.Sprintf("(%s)__builtin_popcountll((uint64_t)(%s)%s)", ct, u, a[0]), nil
	case "math.ctlz":
		return fmt.Sprintf("({ const uint64_t gi_x = (uint64_t)(%[2]s)%[3]s; (%[1]s)(gi_x == 0 ? %[4]d : __builtin_clzll(gi_x) - %[5]d); })", ct, u, a[0], w, 64-w), nil
	case "math.cttz":
		return fmt.Sprintf("({ const uint64_t gi_x = (uint64_t)(%[2]s)%[3]s; (%[1]s)(gi_x == 0 ? %[4]d : __builtin_ctzll(gi_x)); })", ct, u, a[0], w), nil
	case "math.isnan":
		return fmt.Sprintf("(%[1]s != %[1]s)", a[0]), nil
	case "math.isinf":
		return fmt.Sprintf("(%[1]s == __builtin_inf() || %[1]s == -__builtin_inf())", a[0]), nil
	case "math.isfinite":
		return fmt.Sprintf("(%[1]s - %[1]s == 0)", a[0]), nil
	case "math.isnormal":
		min := "0x1p-126"
		switch ft, _ := at.(ir.FloatType); ft.Name {
		case "f64":
			min = "0x1p-1022"
		case "f16":
			min = "0x1p-14"
		}
		return fmt.Sprintf("({ const double gi_a = __builtin_fabs((double)%s); gi_a >= %s && gi_a - gi_a == 0; })", a[0], min), nil
	case "math.sqrt":
		if ct == "double" {
			return fmt.Sprintf("__builtin_sqrt(%s)", a[0]), nil
		}
		return fmt.Sprintf("__builtin_sqrtf(%s)", a[0]), nil
	case "math.rsqrt":
		if ct == "double" {
			return fmt.Sprintf("(1.0 / __builtin_sqrt(%s))", a[0]), nil
		}
		return e.fromDouble(rt, fmt.Sprintf("1.0 / __builtin_sqrt((double)%s)", a[0])), nil
	case "math.fma":
		if ct == "double" {
			e.need("fma_f64")
			return fmt.Sprintf("gi_fma_f64(%s, %s, %s)", a[0], a[1], a[2]), nil
		}
		// The float product is exact in double: one rounding in double,
		// then the result's (rounded to odd for f16/bf16).
		return e.fromDouble(rt, fmt.Sprintf("(double)%s * (double)%s + (double)%s", a[0], a[1], a[2])), nil
	case "math.fpowi":
		e.need("pow_f64")
		return e.fromDouble(rt, fmt.Sprintf("gi_powi_f64((double)%s, (int64_t)%s)", a[0], a[1])), nil
	case "math.floor", "math.ceil", "math.trunc", "math.round", "math.roundeven":
		e.need("rounding")
		return fmt.Sprintf("(%s)gi_%s((double)%s)", ct, strings.TrimPrefix(op.Name, "math."), a[0]), nil
	}
	return "", ir.OpErrorf(op, "'%s' is not supported by llvm-cpu code generation", op.Name)
}

// bitcast reinterprets the bits of x (of type at) as type rt; f16 and
// bf16 go through their 16-bit patterns.
func (e *scalarEmitter) bitcast(rt, at ir.Type, x string) (string, error) {
	if halfKind(at) != "" {
		x = storeValue(e.helpers, at, x)
		at = ir.IntegerType{Width: 16}
	}
	if halfKind(rt) != "" {
		e.rounded = true // a 16-bit pattern is a representable value
		return loadValue(e.helpers, rt, "(uint16_t)"+x), nil
	}
	ct, src := mustCType(rt), mustCType(at)
	return fmt.Sprintf("({ %s gi_tmp; __builtin_memcpy(&gi_tmp, &(%s){%s}, sizeof gi_tmp); gi_tmp; })", ct, src, x), nil
}

func cmpi(op *ir.Operation, at ir.Type, a []string) (string, error) {
	n, _ := op.IntAttr("predicate")
	if n < 0 || int(n) >= len(arith.CmpIPredicates) {
		return "", ir.OpErrorf(op, "bad predicate %d", n)
	}
	p := arith.CmpIPredicates[n]
	u := unsignedOf(at)
	x, y := a[0], a[1]
	switch {
	case p[0] == 'u':
		x, y = "("+u+")"+x, "("+u+")"+y
	case p[0] == 's' && isBool(at):
		// A signed i1 true is -1.
		x, y = "(0 - (int)"+x+")", "(0 - (int)"+y+")"
	}
	ops := map[string]string{"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
		"ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
	return fmt.Sprintf("(%s %s %s)", x, ops[p], y), nil
}

func cmpf(op *ir.Operation, a []string) (string, error) {
	n, _ := op.IntAttr("predicate")
	if n < 0 || int(n) >= len(arith.CmpFPredicates) {
		return "", ir.OpErrorf(op, "bad predicate %d", n)
	}
	p := arith.CmpFPredicates[n]
	x, y := a[0], a[1]
	unord := fmt.Sprintf("(%[1]s != %[1]s || %[2]s != %[2]s)", x, y)
	switch p {
	case "false":
		return "0", nil
	case "true":
		return "1", nil
	case "ord":
		return "(!" + unord + ")", nil
	case "uno":
		return unord, nil
	}
	ops := map[string]string{"eq": "==", "gt": ">", "ge": ">=", "lt": "<", "le": "<=", "ne": "!="}
	rel := ops[p[1:]]
	if p[0] == 'o' {
		if p == "one" {
			return fmt.Sprintf("(!%s && %s != %s)", unord, x, y), nil
		}
		return fmt.Sprintf("(%s %s %s)", x, rel, y), nil
	}
	if p == "une" {
		return fmt.Sprintf("(%s != %s)", x, y), nil
	}
	return fmt.Sprintf("(%s || %s %s %s)", unord, x, rel, y), nil
}

// affineApply emits an affine.apply on index values.
func (e *scalarEmitter) affineApply(op *ir.Operation) error {
	m := affine.Map(op)
	if m == nil || len(m.Results) != 1 {
		return ir.OpErrorf(op, "affine.apply needs a map with one result")
	}
	args, err := e.operands(op)
	if err != nil {
		return err
	}
	if len(args) != m.NumDims+m.NumSyms {
		return ir.OpErrorf(op, "affine map takes %d operands, got %d", m.NumDims+m.NumSyms, len(args))
	}
	e.need("divs")
	expr, err := affineC(m.Results[0], args[:m.NumDims], args[m.NumDims:])
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	e.line("const int64_t %s = %s;", e.define(op.Results[0]), expr)
	return nil
}

// affineMinMax emits an affine.min or affine.max: the least or greatest of
// the map's results.
func (e *scalarEmitter) affineMinMax(op *ir.Operation, isMin bool) error {
	m := affine.Map(op)
	if m == nil || len(m.Results) == 0 {
		return ir.OpErrorf(op, "%s needs a map with at least one result", op.Name)
	}
	args, err := e.operands(op)
	if err != nil {
		return err
	}
	if len(args) != m.NumDims+m.NumSyms {
		return ir.OpErrorf(op, "affine map takes %d operands, got %d", m.NumDims+m.NumSyms, len(args))
	}
	e.need("divs")
	rel := "<"
	if !isMin {
		rel = ">"
	}
	var acc string
	for i, r := range m.Results {
		expr, err := affineC(r, args[:m.NumDims], args[m.NumDims:])
		if err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		if i == 0 {
			acc = expr
			continue
		}
		// Each operand is evaluated once: the running value and the next
		// result go through statement-expression temporaries.
		acc = fmt.Sprintf("({ const int64_t gi_a = %s; const int64_t gi_b = %s; gi_b %s gi_a ? gi_b : gi_a; })", acc, expr, rel)
	}
	e.line("const int64_t %s = %s;", e.define(op.Results[0]), acc)
	return nil
}

// affineC renders an affine expression over int64 C values.
func affineC(x *ir.AffineExpr, dims, syms []string) (string, error) {
	switch x.Kind {
	case ir.AffineDim:
		if x.Pos >= len(dims) {
			return "", fmt.Errorf("d%d out of range", x.Pos)
		}
		return "(int64_t)" + dims[x.Pos], nil
	case ir.AffineSym:
		if x.Pos >= len(syms) {
			return "", fmt.Errorf("s%d out of range", x.Pos)
		}
		return "(int64_t)" + syms[x.Pos], nil
	case ir.AffineConst:
		return strconv.FormatInt(x.Value, 10) + "LL", nil
	}
	l, err := affineC(x.LHS, dims, syms)
	if err != nil {
		return "", err
	}
	r, err := affineC(x.RHS, dims, syms)
	if err != nil {
		return "", err
	}
	switch x.Kind {
	case ir.AffineAdd:
		return "(int64_t)((uint64_t)" + l + " + (uint64_t)" + r + ")", nil
	case ir.AffineMul:
		return "(int64_t)((uint64_t)" + l + " * (uint64_t)" + r + ")", nil
	case ir.AffineMod:
		return "gi_mod(" + l + ", " + r + ")", nil
	case ir.AffineFloorDiv:
		return "gi_floordiv(" + l + ", " + r + ")", nil
	case ir.AffineCeilDiv:
		return "gi_ceildiv(" + l + ", " + r + ")", nil
	}
	return "", fmt.Errorf("unknown affine expression kind %d", x.Kind)
}
