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

// cType returns the C spelling of a scalar IR type.
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
		case "f16":
			return "_Float16", nil
		case "f32":
			return "float", nil
		case "f64":
			return "double", nil
		}
	}
	return "", fmt.Errorf("type '%s' is not supported by llvm-cpu code generation", ir.TypeString(t))
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
		if isFloatType(t) {
			lit = floatLiteral(float64(a.Value), t)
		} else {
			lit = intLiteral(a.Value, t)
		}
	case ir.FloatAttr:
		lit = floatLiteral(a.Value, t)
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
		return true, ir.OpErrorf(op, "expected one result")
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
	case wrapBinary[name] != "":
		expr = fmt.Sprintf("(%s)((%s)%s %s (%s)%s)", ct, u, args[0], wrapBinary[name], u, args[1])
	case intBinary[name] != "":
		expr = fmt.Sprintf("(%s)(%s %s %s)", ct, args[0], intBinary[name], args[1])
	case floatBinary[name] != "":
		expr = fmt.Sprintf("(%s)(%s %s %s)", ct, args[0], floatBinary[name], args[1])
	default:
		expr, err = e.special(op, ct, u, at, args)
		if err != nil {
			return true, err
		}
	}
	e.line("const %s %s = %s;", ct, e.define(r), expr)
	return true, nil
}

func (e *scalarEmitter) need(h string) { e.helpers[h] = true }

// arity returns the operand count of a scalar op, or -1 when unknown.
func arity(name string) int {
	switch name {
	case "arith.select", "math.fma":
		return 3
	case "arith.negf", "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
		"arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.bitcast":
		return 1
	}
	if strings.HasPrefix(name, "math.") {
		return 1
	}
	return 2
}

func (e *scalarEmitter) special(op *ir.Operation, ct, u string, at ir.Type, a []string) (string, error) {
	switch op.Name {
	case "arith.divsi":
		return fmt.Sprintf("(%s)(%s / %s)", ct, a[0], a[1]), nil
	case "arith.remsi":
		return fmt.Sprintf("(%s)(%s %% %s)", ct, a[0], a[1]), nil
	case "arith.divui":
		return fmt.Sprintf("(%s)((%s)%s / (%s)%s)", ct, u, a[0], u, a[1]), nil
	case "arith.remui":
		return fmt.Sprintf("(%s)((%s)%s %% (%s)%s)", ct, u, a[0], u, a[1]), nil
	case "arith.ceildivui":
		return fmt.Sprintf("(%s)((%s)%s / (%s)%s + ((%s)%s %% (%s)%s != 0))", ct, u, a[0], u, a[1], u, a[0], u, a[1]), nil
	case "arith.ceildivsi":
		e.need("divs")
		return fmt.Sprintf("(%s)gi_ceildiv((int64_t)%s, (int64_t)%s)", ct, a[0], a[1]), nil
	case "arith.floordivsi":
		e.need("divs")
		return fmt.Sprintf("(%s)gi_floordiv((int64_t)%s, (int64_t)%s)", ct, a[0], a[1]), nil
	case "arith.shli":
		return fmt.Sprintf("(%s)((%s)%s << %s)", ct, u, a[0], a[1]), nil
	case "arith.shrsi":
		return fmt.Sprintf("(%s)(%s >> %s)", ct, a[0], a[1]), nil
	case "arith.shrui":
		return fmt.Sprintf("(%s)((%s)%s >> %s)", ct, u, a[0], a[1]), nil
	case "arith.maxsi", "arith.maxnumf":
		if op.Name == "arith.maxnumf" {
			return fmt.Sprintf("(%[1]s != %[1]s ? %[2]s : (%[2]s != %[2]s ? %[1]s : (%[1]s > %[2]s ? %[1]s : %[2]s)))", a[0], a[1]), nil
		}
		return fmt.Sprintf("(%[1]s > %[2]s ? %[1]s : %[2]s)", a[0], a[1]), nil
	case "arith.minsi", "arith.minnumf":
		if op.Name == "arith.minnumf" {
			return fmt.Sprintf("(%[1]s != %[1]s ? %[2]s : (%[2]s != %[2]s ? %[1]s : (%[1]s < %[2]s ? %[1]s : %[2]s)))", a[0], a[1]), nil
		}
		return fmt.Sprintf("(%[1]s < %[2]s ? %[1]s : %[2]s)", a[0], a[1]), nil
	case "arith.maxui":
		return fmt.Sprintf("(%[3]s)((%[1]s)%[2]s > (%[1]s)%[4]s ? %[2]s : %[4]s)", u, a[0], ct, a[1]), nil
	case "arith.minui":
		return fmt.Sprintf("(%[3]s)((%[1]s)%[2]s < (%[1]s)%[4]s ? %[2]s : %[4]s)", u, a[0], ct, a[1]), nil
	case "arith.maximumf":
		return fmt.Sprintf("(%[1]s != %[1]s || %[2]s != %[2]s ? (%[3]s)__builtin_nanf(\"\") : (%[1]s > %[2]s ? %[1]s : %[2]s))", a[0], a[1], ct), nil
	case "arith.minimumf":
		return fmt.Sprintf("(%[1]s != %[1]s || %[2]s != %[2]s ? (%[3]s)__builtin_nanf(\"\") : (%[1]s < %[2]s ? %[1]s : %[2]s))", a[0], a[1], ct), nil
	case "arith.negf":
		return fmt.Sprintf("(%s)(-%s)", ct, a[0]), nil
	case "arith.index_cast", "arith.extsi", "arith.trunci", "arith.sitofp", "arith.fptosi", "arith.extf", "arith.truncf":
		return fmt.Sprintf("(%s)%s", ct, a[0]), nil
	case "arith.index_castui", "arith.extui", "arith.uitofp":
		return fmt.Sprintf("(%s)(%s)%s", ct, unsignedOf(at), a[0]), nil
	case "arith.fptoui":
		return fmt.Sprintf("(%s)(%s)%s", ct, u, a[0]), nil
	case "arith.bitcast":
		src := mustCType(at)
		e.need("bitcast")
		return fmt.Sprintf("({ %s gi_tmp; __builtin_memcpy(&gi_tmp, &(%s){%s}, sizeof gi_tmp); gi_tmp; })", ct, src, a[0]), nil
	case "arith.select":
		return fmt.Sprintf("(%s ? %s : %s)", a[0], a[1], a[2]), nil
	case "arith.cmpi":
		return cmpi(op, at, a)
	case "arith.cmpf":
		return cmpf(op, a)
	case "math.absf":
		return fmt.Sprintf("(%[2]s)(%[1]s < 0 ? -%[1]s : (%[1]s == 0 ? (%[2]s)0 : %[1]s))", a[0], ct), nil
	case "math.absi":
		return fmt.Sprintf("(%[2]s)(%[1]s < 0 ? (%[3]s)0 - (%[3]s)%[1]s : (%[3]s)%[1]s)", a[0], ct, u), nil
	case "math.sqrt":
		if ct == "double" {
			return fmt.Sprintf("__builtin_sqrt(%s)", a[0]), nil
		}
		return fmt.Sprintf("(%s)__builtin_sqrtf((float)%s)", ct, a[0]), nil
	case "math.rsqrt":
		if ct == "double" {
			return fmt.Sprintf("(1.0 / __builtin_sqrt(%s))", a[0]), nil
		}
		return fmt.Sprintf("(%s)(1.0f / __builtin_sqrtf((float)%s))", ct, a[0]), nil
	case "math.fma":
		return fmt.Sprintf("(%s)(%s * %s + %s)", ct, a[0], a[1], a[2]), nil
	case "math.floor", "math.ceil", "math.trunc", "math.round":
		e.need("rounding")
		return fmt.Sprintf("(%s)gi_%s((double)%s)", ct, strings.TrimPrefix(op.Name, "math."), a[0]), nil
	case "math.exp", "math.log", "math.tanh":
		e.need("transcendental")
		return fmt.Sprintf("(%s)gi_%s((float)%s)", ct, strings.TrimPrefix(op.Name, "math."), a[0]), nil
	}
	return "", ir.OpErrorf(op, "'%s' is not supported by llvm-cpu code generation", op.Name)
}

func cmpi(op *ir.Operation, at ir.Type, a []string) (string, error) {
	n, _ := op.IntAttr("predicate")
	if n < 0 || int(n) >= len(arith.CmpIPredicates) {
		return "", ir.OpErrorf(op, "bad predicate %d", n)
	}
	p := arith.CmpIPredicates[n]
	u := unsignedOf(at)
	x, y := a[0], a[1]
	if p[0] == 'u' {
		x, y = "("+u+")"+x, "("+u+")"+y
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

// helperSource holds C helpers emitted on demand, in a fixed order.
var helperOrder = []string{"divs", "rounding", "transcendental", "bitcast"}

var helperSource = map[string]string{
	"divs": `static inline int64_t gi_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static inline int64_t gi_ceildiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) q++;
  return q;
}
static inline int64_t gi_mod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t m = a % b;
  return m < 0 ? m + (b < 0 ? -b : b) : m;
}
`,
	"rounding": `static inline double gi_trunc(double x) {
  if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) return x;
  double t = (double)(int64_t)x;
  return (t == 0.0 && x < 0) ? -0.0 : t;
}
static inline double gi_floor(double x) {
  double t = gi_trunc(x);
  return (t > x) ? t - 1.0 : t;
}
static inline double gi_ceil(double x) {
  double t = gi_trunc(x);
  return (t < x) ? t + 1.0 : t;
}
static inline double gi_round(double x) {
  return x < 0 ? -gi_floor(-x + 0.5) : gi_floor(x + 0.5);
}
`,
	"transcendental": `static inline float gi_exp(float x) {
  if (x != x) return x;
  if (x > 88.72f) return __builtin_inff();
  if (x < -103.97f) return 0.0f;
  float k = (float)(int)(x * 1.44269504f + (x < 0 ? -0.5f : 0.5f));
  float r = x - k * 0.693145752f - k * 1.42860677e-6f;
  float p = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666672f + r * (0.0416666418f + r * (0.00833336823f + r * 0.00138878031f)))));
  int ki = (int)k;
  float s = 1.0f;
  if (ki > 0) { while (ki > 60) { s *= 1152921504606846976.0f; ki -= 60; } }
  else { while (ki < -60) { s *= 8.67361738e-19f; ki += 60; } }
  union { float f; uint32_t u; } two = {.u = (uint32_t)(ki + 127) << 23};
  return p * two.f * s;
}
static inline float gi_log(float x) {
  if (x != x || x < 0) return __builtin_nanf("");
  if (x == 0) return -__builtin_inff();
  if (x == __builtin_inff()) return x;
  union { float f; uint32_t u; } v = {.f = x};
  int e = 0;
  if (v.u < 0x00800000u) { v.f *= 16777216.0f; e = -24; }
  e += (int)(v.u >> 23) - 127;
  v.u = (v.u & 0x007FFFFFu) | 0x3F800000u;
  float m = v.f;
  if (m > 1.41421356f) { m *= 0.5f; e++; }
  float f = (m - 1.0f) / (m + 1.0f);
  float f2 = f * f;
  float s = f * (2.0f + f2 * (0.666666667f + f2 * (0.4f + f2 * (0.285714286f + f2 * (0.222222222f + f2 * 0.181818182f)))));
  return s + (float)e * 0.693147181f;
}
static inline float gi_tanh(float x) {
  if (x > 9.0f) return 1.0f;
  if (x < -9.0f) return -1.0f;
  if (x > -0.0004f && x < 0.0004f) return x;
  float e2 = gi_exp(2.0f * x);
  return (e2 - 1.0f) / (e2 + 1.0f);
}
`,
	"bitcast": "",
}
