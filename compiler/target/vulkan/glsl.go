package vulkan

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// WorkgroupSize is the local size of generated shaders. 128 is the
// smallest maxComputeWorkGroupInvocations Vulkan guarantees.
const WorkgroupSize = 128

// DefaultTileSize is the number of elements a workgroup covers when the
// dispatch does not say.
const DefaultTileSize = elementwise.DefaultTileSize

// GLSLOptions are what generated shaders may assume of the device.
type GLSLOptions struct {
	// NoSubgroups keeps shaders off subgroup operations: the invocations
	// of a shared reduction combine their parts through shared memory
	// alone, for devices without subgroup shuffles in compute shaders
	// (by default they use GL_KHR_shader_subgroup_basic and _shuffle, the
	// GroupNonUniform and GroupNonUniformShuffle capabilities).
	NoSubgroups bool
	// Device is the device the executable target describes (DeviceOf),
	// whose limits size the tiled matmuls; the zero value is Portable.
	Device Device
	// WorkgroupMatrices lets cooperative-matrix matmuls multiply each
	// block that lies wholly inside the matrices as one workgroup-scope
	// matrix product (VK_NV_cooperative_matrix2's
	// cooperativeMatrixWorkgroupScope and cooperativeMatrixFlexibleDimensions),
	// leaving the tiling to the driver; the device must have them.
	WorkgroupMatrices bool
}

// GenerateGLSL returns the compute shader of the generated entry function
// entry in module: an elementwise group, a linalg loop nest or a row
// group of loop nests.
func GenerateGLSL(module *ir.Operation, entry string) (string, error) {
	return GenerateGLSLWith(module, entry, GLSLOptions{})
}

// GenerateGLSLWith is GenerateGLSL with options.
func GenerateGLSLWith(module *ir.Operation, entry string, opts GLSLOptions) (string, error) {
	funcs := map[string]*ir.Operation{}
	if b := module.Body(); b != nil {
		for _, op := range b.Ops {
			if op.Name == "func.func" {
				funcs[op.SymName()] = op
			}
		}
	}
	fn := funcs[entry]
	if fn == nil {
		return "", ir.OpErrorf(module, "module has no function @%s for the export", entry)
	}
	if ln, ok := fn.Attr(loopnest.Attr).(*ir.DictAttr); ok {
		return generateLoopNest(funcs, fn, ln, opts)
	}
	if gd, ok := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr); ok {
		return generateGroup(funcs, fn, gd, opts)
	}
	d, ok := fn.Attr(elementwiseAttr).(*ir.DictAttr)
	if !ok {
		return "", ir.OpErrorf(fn, "vulkan-spirv generates code only for elementwise dispatches (%s functions), linalg loop nests (%s) and row groups (%s); @%s is none of them: give the variant one .spv object instead", elementwiseAttr, loopnest.Attr, loopnest.GroupAttr, entry)
	}
	ref, ok := d.Get("body").(ir.SymbolRefAttr)
	if !ok {
		return "", ir.OpErrorf(fn, "%s needs a body symbol", elementwiseAttr)
	}
	tile := int64(DefaultTileSize)
	if t, ok := d.Get("tile_size").(ir.IntegerAttr); ok && t.Value > 0 {
		tile = t.Value
	}
	body := funcs[ref.Root]
	if body == nil || body.Body() == nil {
		return "", ir.OpErrorf(fn, "elementwise body @%s is not defined in the module", ref.Root)
	}
	ft := function.Type(body)
	if ft == nil || len(ft.Results) == 0 {
		return "", ir.OpErrorf(body, "elementwise body must return at least one value")
	}
	needs := newGLSLNeeds()
	sg := newScalarGen(needs, opts.Device)
	sg.exact = true
	var w strings.Builder
	fmt.Fprintf(&w, "layout(local_size_x = %d, local_size_y = 1, local_size_z = 1) in;\n", WorkgroupSize)
	nb := 0
	var clamp, loads, stores []string
	clampOf := func(buf string, k elemKind) string {
		if k.perWord > 1 {
			return fmt.Sprintf("%s.v.length() * %d", buf, k.perWord)
		}
		return buf + ".v.length()"
	}
	var inKinds []elemKind
	for i, t := range ft.Inputs {
		k, err := needs.kind(t)
		if err != nil {
			return "", ir.OpErrorf(body, "input %d: %v", i, err)
		}
		inKinds = append(inKinds, k)
		fmt.Fprintf(&w, "layout(set = 0, binding = %d) readonly buffer In%d { %s v[]; } in%d;\n", nb, i, k.buf, i)
		clamp = append(clamp, clampOf(fmt.Sprintf("in%d", i), k))
		nb++
	}
	var outKinds []elemKind
	for i, t := range ft.Results {
		k, err := needs.kind(t)
		if err != nil {
			return "", ir.OpErrorf(body, "result %d: %v", i, err)
		}
		outKinds = append(outKinds, k)
		q := "writeonly "
		if k.perWord > 1 {
			// Neighbouring elements share a word: each invocation
			// updates its own part with atomics.
			q = ""
		}
		fmt.Fprintf(&w, "layout(set = 0, binding = %d) %sbuffer Out%d { %s v[]; } out%d;\n", nb, q, i, k.buf, i)
		clamp = append(clamp, clampOf(fmt.Sprintf("out%d", i), k))
		nb++
	}
	w.WriteString("layout(push_constant) uniform Constants { uint count; } pc;\n\n")
	var code strings.Builder
	code.WriteString("void main() {\n  uint n = pc.count;\n")
	for _, c := range clamp {
		fmt.Fprintf(&code, "  n = min(n, uint(%s));\n", c)
	}
	fmt.Fprintf(&code, "  uint begin = gl_WorkGroupID.x * %du;\n  uint end = min(n, begin + %du);\n", tile, tile)
	fmt.Fprintf(&code, "  for (uint i = begin + gl_LocalInvocationID.x; i < end; i += %du) {\n", WorkgroupSize)
	blk := body.Body()
	if len(blk.Args) != len(inKinds) {
		return "", ir.OpErrorf(body, "elementwise body has %d arguments, its type %d inputs", len(blk.Args), len(inKinds))
	}
	for i, a := range blk.Args {
		name := fmt.Sprintf("a%d", i)
		sg.names[a] = name
		loads = append(loads, fmt.Sprintf("    %s %s = %s;\n", inKinds[i].value, name, loadElem(inKinds[i], fmt.Sprintf("in%d", i), "i")))
	}
	for _, l := range loads {
		code.WriteString(l)
	}
	for _, op := range blk.Ops {
		if op.Name == "func.return" {
			if len(op.Operands) != len(ft.Results) {
				return "", ir.OpErrorf(op, "returns %d values, the body type has %d results", len(op.Operands), len(ft.Results))
			}
			for i, v := range op.Operands {
				name, err := sg.use(op, v)
				if err != nil {
					return "", err
				}
				stores = append(stores, storeElem("    ", outKinds[i], fmt.Sprintf("out%d", i), "i", name))
			}
			continue
		}
		line, err := sg.op(op)
		if err != nil {
			return "", err
		}
		code.WriteString("    " + line + "\n")
	}
	if stores == nil {
		return "", ir.OpErrorf(body, "elementwise body has no func.return")
	}
	for _, s := range stores {
		code.WriteString(s)
	}
	code.WriteString("  }\n}\n")
	if err := needs.check(opts.Device); err != nil {
		return "", ir.OpErrorf(fn, "%v", err)
	}
	w.WriteString(needs.helperText())
	w.WriteString(sg.helperText())
	w.WriteString(code.String())
	return needs.header("// Generated by goiree's vulkan-spirv target.\n") + w.String(), nil
}

type glslGen struct {
	names map[*ir.Value]string
	next  int
}

func (g *glslGen) use(op *ir.Operation, v *ir.Value) (string, error) {
	n, ok := g.names[v]
	if !ok {
		return "", ir.OpErrorf(op, "operand is not defined in the elementwise body")
	}
	return n, nil
}

func (g *glslGen) define(v *ir.Value) string {
	n := fmt.Sprintf("v%d", g.next)
	g.next++
	g.names[v] = n
	return n
}

// nan is a quiet NaN in GLSL.
const nan = "uintBitsToFloat(0x7fc00000u)"

var glslBinary = map[string]string{
	"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/",
	"arith.addi": "+", "arith.subi": "-", "arith.muli": "*",
}

// glslUnaryCall are the ops that are one GLSL builtin call. The math
// functions whose builtins Vulkan leaves imprecise are the shader's own
// helpers instead (mathglsl.go), which run first; f64 sqrt, which has
// no helper, is GLSL's.
var glslUnaryCall = map[string]string{
	"math.sqrt": "sqrt", "math.floor": "floor", "math.ceil": "ceil",
	"math.trunc": "trunc", "math.absf": "abs", "math.absi": "abs",
}

func arity(op *ir.Operation, n int, a []string) error {
	if len(a) != n {
		return ir.OpErrorf(op, "expects %d operands, found %d", n, len(a))
	}
	return nil
}

// expression renders the arithmetic, comparison and select ops whose
// result has kind rk and whose first operand has kind ak. Integer ops
// that read their operands as unsigned use the unsigned type of ak's
// width.
func expression(op *ir.Operation, rk, ak elemKind, a []string) (string, error) {
	name := op.Name
	gt := rk.value
	u, s := "uint", "int"
	if ak.value == "int64_t" {
		u, s = "uint64_t", "int64_t"
	}
	two := func(f string) (string, error) {
		if err := arity(op, 2, a); err != nil {
			return "", err
		}
		// NEG(x) is x < 0; on 64 bits it reads the high word's sign, as
		// Mesa 22.3's lavapipe gets 64-bit signed comparisons wrong.
		neg := "(%s < 0)"
		if ak.value == "int64_t" {
			neg = "(unpackInt2x32(%s).y < 0)"
		}
		f = negRE.ReplaceAllStringFunc(f, func(m string) string { return fmt.Sprintf(neg, m[4:len(m)-1]) })
		f = strings.NewReplacer("U(", u+"(", "S(", s+"(").Replace(f)
		return fmt.Sprintf(f, a[0], a[1]), nil
	}
	one := func(f string) (string, error) {
		if err := arity(op, 1, a); err != nil {
			return "", err
		}
		return fmt.Sprintf(f, a[0]), nil
	}
	if o := glslBinary[name]; o != "" {
		if gt == "bool" {
			return "", ir.OpErrorf(op, "'%s' on i1 is not supported by vulkan-spirv code generation", name)
		}
		return two("(%s " + o + " %s)")
	}
	if f := glslUnaryCall[name]; f != "" {
		return one(f + "(%s)")
	}
	qnan := nan
	if gt == "double" {
		qnan = "double(" + nan + ")"
	}
	switch name {
	case "arith.andi", "arith.ori", "arith.xori":
		ops := map[string][2]string{"arith.andi": {"&", "&&"}, "arith.ori": {"|", "||"}, "arith.xori": {"^", "^^"}}[name]
		if gt == "bool" {
			return two("(%s " + ops[1] + " %s)")
		}
		return two("(%s " + ops[0] + " %s)")
	// Division by zero and INT_MIN / -1, which GLSL leaves undefined,
	// and shifts by the width or more give what llvm-cpu's kernels give:
	// a zero quotient and the dividend as remainder, the wrapped negation
	// (remainder 0), and all bits shifted out.
	case "arith.divsi":
		return two("(%[2]s == S(0) ? S(0) : (%[2]s == S(-1) ? -%[1]s : %[1]s / %[2]s))")
	case "arith.remsi":
		return two("(%[2]s == S(0) ? %[1]s : (%[2]s == S(-1) ? S(0) : %[1]s - %[2]s * (%[1]s / %[2]s)))")
	case "arith.floordivsi", "arith.ceildivsi":
		// The truncated quotient, one less (floor) when inexact with
		// the operands' signs apart, one more (ceil) when together.
		rel := map[string]string{"arith.floordivsi": "!=", "arith.ceildivsi": "=="}[name]
		adj := map[string]string{"arith.floordivsi": "-", "arith.ceildivsi": "+"}[name]
		return two("(%[2]s == S(0) ? S(0) : (%[2]s == S(-1) ? -%[1]s : %[1]s / %[2]s " + adj + " ((%[1]s - (%[1]s / %[2]s) * %[2]s != S(0) && NEG(%[1]s) " + rel + " NEG(%[2]s)) ? S(1) : S(0))))")
	case "arith.divui":
		return two("(%[2]s == S(0) ? S(0) : S(U(%[1]s) / U(%[2]s)))")
	case "arith.remui":
		return two("(%[2]s == S(0) ? %[1]s : S(U(%[1]s) %% U(%[2]s)))")
	case "arith.shli":
		return two(fmt.Sprintf("(U(%%[2]s) >= U(%d) ? S(0) : %%[1]s << %%[2]s)", ak.bits))
	case "arith.shrsi":
		return two(fmt.Sprintf("(U(%%[2]s) >= U(%d) ? (NEG(%%[1]s) ? S(-1) : S(0)) : %%[1]s >> %%[2]s)", ak.bits))
	case "arith.shrui":
		return two(fmt.Sprintf("(U(%%[2]s) >= U(%d) ? S(0) : S(U(%%[1]s) >> U(%%[2]s)))", ak.bits))
	case "arith.maxsi":
		return two("max(%s, %s)")
	case "arith.minsi":
		return two("min(%s, %s)")
	case "arith.maxui":
		return two("S(max(U(%s), U(%s)))")
	case "arith.minui":
		return two("S(min(U(%s), U(%s)))")
	// -0 is below +0 for these ops, and GLSL's max and min may return
	// either zero: equal zeros are summed instead (+0 unless both are
	// -0), negated for the minimum.
	case "arith.maximumf":
		return two("((isnan(%[1]s) || isnan(%[2]s)) ? " + qnan + " : " + maxZeros + ")")
	case "arith.minimumf":
		return two("((isnan(%[1]s) || isnan(%[2]s)) ? " + qnan + " : " + minZeros + ")")
	case "arith.maxnumf":
		return two("(isnan(%[1]s) ? %[2]s : (isnan(%[2]s) ? %[1]s : " + maxZeros + "))")
	case "arith.minnumf":
		return two("(isnan(%[1]s) ? %[2]s : (isnan(%[2]s) ? %[1]s : " + minZeros + "))")
	case "arith.negf":
		return one("(-%s)")
	case "arith.select":
		if err := arity(op, 3, a); err != nil {
			return "", err
		}
		return fmt.Sprintf("(%s ? %s : %s)", a[0], a[1], a[2]), nil
	case "math.fma":
		if err := arity(op, 3, a); err != nil {
			return "", err
		}
		return fmt.Sprintf("fma(%s, %s, %s)", a[0], a[1], a[2]), nil
	case "math.round":
		// Half away from zero. Not floor(|x| + 0.5): that sum rounds
		// up for the f32 just below 0.5.
		return one("(abs(%[1]s - trunc(%[1]s)) >= 0.5 ? trunc(%[1]s) + sign(%[1]s) : trunc(%[1]s))")
	case "arith.cmpi":
		return cmpi(op, ak, a)
	case "arith.cmpf":
		return cmpf(op, a)
	}
	return "", ir.OpErrorf(op, "'%s' is not supported by vulkan-spirv code generation", name)
}

// maxZeros and minZeros are max and min of non-NaN %[1]s and %[2]s with
// -0 ordered below +0.
const (
	maxZeros = "((%[1]s == %[2]s && %[1]s == 0.0) ? %[1]s + %[2]s : max(%[1]s, %[2]s))"
	minZeros = "((%[1]s == %[2]s && %[1]s == 0.0) ? -(-%[1]s - %[2]s) : min(%[1]s, %[2]s))"
)

// negRE matches NEG(x) in expression templates.
var negRE = regexp.MustCompile(`NEG\(%\[[12]\]s\)`)

func cmpi(op *ir.Operation, ak elemKind, a []string) (string, error) {
	if err := arity(op, 2, a); err != nil {
		return "", err
	}
	n, _ := op.IntAttr("predicate")
	if n < 0 || int(n) >= len(arith.CmpIPredicates) {
		return "", ir.OpErrorf(op, "bad predicate %d", n)
	}
	p := arith.CmpIPredicates[n]
	x, y := a[0], a[1]
	if p[0] == 'u' {
		u := "uint"
		if ak.value == "int64_t" {
			u = "uint64_t"
		}
		x, y = u+"("+x+")", u+"("+y+")"
	}
	if ak.value == "int64_t" && p != "eq" && p != "ne" {
		// Ordered 64-bit compares on 32-bit words (gi_lt64s, gi_lt64u):
		// Mesa 22.3's lavapipe gets 64-bit OpSLessThan wrong.
		lt := "gi_lt64s"
		if p[0] == 'u' {
			lt = "gi_lt64u"
		}
		f := map[string]string{"lt": "%[1]s(%[2]s, %[3]s)", "le": "(!%[1]s(%[3]s, %[2]s))", "gt": "%[1]s(%[3]s, %[2]s)", "ge": "(!%[1]s(%[2]s, %[3]s))"}[p[1:]]
		return fmt.Sprintf(f, lt, a[0], a[1]), nil
	}
	rel := map[string]string{"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
		"ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}[p]
	return fmt.Sprintf("(%s %s %s)", x, rel, y), nil
}

func cmpf(op *ir.Operation, a []string) (string, error) {
	if err := arity(op, 2, a); err != nil {
		return "", err
	}
	n, _ := op.IntAttr("predicate")
	if n < 0 || int(n) >= len(arith.CmpFPredicates) {
		return "", ir.OpErrorf(op, "bad predicate %d", n)
	}
	p := arith.CmpFPredicates[n]
	x, y := a[0], a[1]
	unord := fmt.Sprintf("(isnan(%s) || isnan(%s))", x, y)
	switch p {
	case "false":
		return "false", nil
	case "true":
		return "true", nil
	case "ord":
		return "(!" + unord + ")", nil
	case "uno":
		return unord, nil
	}
	rel := map[string]string{"eq": "==", "gt": ">", "ge": ">=", "lt": "<", "le": "<=", "ne": "!="}[p[1:]]
	if p[0] == 'o' {
		return fmt.Sprintf("(!%s && %s %s %s)", unord, x, rel, y), nil
	}
	return fmt.Sprintf("(%s || %s %s %s)", unord, x, rel, y), nil
}

// constant renders a scalar or splat constant of kind k exactly: a float
// is first rounded to its type (f16 and bf16 to nearest even).
func constant(op *ir.Operation, k elemKind) (string, error) {
	a := op.Attr("value")
	if d, ok := a.(*ir.DenseAttr); ok {
		if !d.Splat || len(d.Elements) != 1 {
			return "", ir.OpErrorf(op, "only splat dense constants can be used in generated vulkan-spirv code")
		}
		a = d.Elements[0]
	}
	var f float64
	var i int64
	switch a := a.(type) {
	case ir.IntegerAttr:
		i, f = a.Value, float64(a.Value)
	case ir.FloatAttr:
		f = a.Value
		i = int64(a.Value)
	case ir.BoolAttr:
		if a.Value {
			i, f = 1, 1
		}
	default:
		return "", ir.OpErrorf(op, "unsupported constant value %s", ir.AttrString(a))
	}
	switch k.value {
	case "float":
		v := float32(f)
		if k.half != "" {
			v = roundHalf(f, k.half)
		}
		return "uintBitsToFloat(0x" + strconv.FormatUint(uint64(math.Float32bits(v)), 16) + "u)", nil
	case "double":
		return doubleLiteral(f), nil
	case "int":
		return "int(" + strconv.FormatUint(uint64(uint32(i)), 10) + "u)", nil
	case "int64_t":
		return fmt.Sprintf("int64_t(0x%xul)", uint64(i)), nil
	case "bool":
		if i&1 != 0 {
			return "true", nil
		}
		return "false", nil
	}
	return "", ir.OpErrorf(op, "unsupported constant type %s", k.value)
}

// doubleLiteral is f's exact GLSL value, NaN and infinities included.
func doubleLiteral(f float64) string {
	b := math.Float64bits(f)
	return fmt.Sprintf("packDouble2x32(uvec2(0x%08xu, 0x%08xu))", uint32(b), uint32(b>>32))
}

// roundHalf rounds f to the nearest f16 or bf16 value (ties to even,
// subnormals kept, overflow to infinity), which f32 holds exactly.
func roundHalf(f float64, half string) float32 {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return float32(f)
	}
	prec, minExp, max := 11, -14, 65504.0
	if half == "bf16" {
		prec, minExp, max = 8, -126, 0x1.fep127
	}
	_, e := math.Frexp(f) // |f| in [2^(e-1), 2^e)
	q := e - prec
	if low := minExp - prec + 1; q < low {
		q = low
	}
	r := math.Ldexp(math.RoundToEven(math.Ldexp(f, -q)), q)
	if math.Abs(r) > max {
		r = math.Copysign(math.Inf(1), f)
	}
	return float32(r)
}
