package vulkan

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// LoopNestWorkgroupSize is the local size of loop-nest shaders. 128 is the
// largest size every Vulkan device accepts (maxComputeWorkGroupInvocations
// is at least 128), and a multiple of every common subgroup size (lavapipe
// 8, Intel 8-32, NVIDIA 32, AMD 64), so whole subgroups stay busy. The size
// is in the SPIR-V's LocalSize execution mode, which iree-dump-module shows.
const LoopNestWorkgroupSize = 128

// elemKind is how a tensor element type lives in a storage buffer and in
// shader values. f32, i32 and index are 32-bit words. f64 and i64 are
// doubles and 64-bit integers (the Float64 and Int64 capabilities,
// shaderFloat64 and shaderInt64). f16 and bf16 live in 16-bit storage
// (uint16_t elements, the StorageBuffer16BitAccess capability) and in f32
// values that hold exactly the type's values: loads widen them exactly,
// each op computes in f32 and rounds its result to the type to nearest
// even in integer code, and stores narrow exactly. For +, -, *, / and sqrt
// that equals the IEEE op of the narrow type, since f32 has more than
// twice their precision plus two bits, and it needs no Float16 capability
// (shaderFloat16), whose arithmetic a device may run at higher precision.
// Integers narrower than 32 bits are packed into uint words (perWord
// elements each, low bytes first, as the host lays them out), so that they
// run on devices without 8- and 16-bit storage; they are read with
// bitfieldExtract and written with atomics on their word, since
// neighbouring elements may belong to other invocations.
type elemKind struct {
	buf     string // element type of the buffer's runtime array
	value   string // GLSL type of values: float, double, int, int64_t or bool
	bits    int    // width of the IR type (1 for i1, stored in a byte)
	perWord int    // elements per buffer element: 1, 2 or 4
	// half is "f16" or "bf16" for the 16-bit floats held in f32 values.
	half string
}

// loopNestKind maps an IR scalar type to its storage and value form.
func loopNestKind(t ir.Type) (elemKind, error) {
	switch t := t.(type) {
	case ir.FloatType:
		switch t.Name {
		case "f32":
			return elemKind{buf: "float", value: "float", bits: 32, perWord: 1}, nil
		case "f64":
			return elemKind{buf: "double", value: "double", bits: 64, perWord: 1}, nil
		case "f16", "bf16":
			return elemKind{buf: "uint16_t", value: "float", bits: 16, perWord: 1, half: t.Name}, nil
		}
	case ir.IntegerType:
		switch t.Width {
		case 64:
			return elemKind{buf: "int64_t", value: "int64_t", bits: 64, perWord: 1}, nil
		case 32:
			return elemKind{buf: "int", value: "int", bits: 32, perWord: 1}, nil
		case 16:
			return elemKind{buf: "uint", value: "int", bits: 16, perWord: 2}, nil
		case 8:
			return elemKind{buf: "uint", value: "int", bits: 8, perWord: 4}, nil
		case 1:
			return elemKind{buf: "uint", value: "bool", bits: 1, perWord: 4}, nil
		}
	case ir.IndexType:
		// Shader indices are 32-bit, as IREE's SPIR-V path uses them.
		return elemKind{buf: "int", value: "int", bits: 32, perWord: 1}, nil
	}
	return elemKind{}, fmt.Errorf("element type '%s' is not supported by vulkan-spirv code generation (f64, f32, f16, bf16, i64, i32, i16, i8, i1 and index are)", ir.TypeString(t))
}

// narrow reports whether values of the kind are integers narrower than 32
// bits, kept sign-extended in an int.
func (k elemKind) narrow() bool { return k.value == "int" && k.bits < 32 }

// glslNeeds collects the GLSL extensions and type helper functions a
// shader uses, so that its SPIR-V declares only the capabilities its
// element types need: an f32 kernel runs on any device.
type glslNeeds struct {
	exts    map[string]bool
	helpers map[string]bool // keys of typeHelpers
	types   map[string]bool // element types that need a device feature
	// denorms: the shader computes f32 math helpers (mathglsl.go), whose
	// results and arguments reach f32's subnormals.
	denorms bool
}

func newGLSLNeeds() *glslNeeds {
	return &glslNeeds{exts: map[string]bool{}, helpers: map[string]bool{}, types: map[string]bool{}}
}

// kind is loopNestKind, recording what the kind needs.
func (n *glslNeeds) kind(t ir.Type) (elemKind, error) {
	k, err := loopNestKind(t)
	if err == nil {
		n.use(k)
	}
	return k, err
}

func (n *glslNeeds) use(k elemKind) {
	switch k.buf {
	case "uint16_t":
		n.exts["GL_EXT_shader_16bit_storage"] = true
	case "int64_t":
		n.exts["GL_EXT_shader_explicit_arithmetic_types_int64"] = true
		n.types["i64"] = true
		n.helpers["cmp64"] = true
	case "double":
		n.types["f64"] = true
	}
	if k.half != "" {
		n.helpers[k.half] = true
		n.types[k.half] = true
	}
}

// typeFeatures are the element types whose shaders need a device
// feature: the feature, the SPIR-V capability, and the entry of IREE's
// #iree_gpu.target wgp (compute or storage) that says a device has it.
var typeFeatures = []struct{ typ, feature, capability, field, has string }{
	{"f64", "shaderFloat64", "Float64", "compute", "fp64"},
	{"i64", "shaderInt64", "Int64", "compute", "int64"},
	{"f16", "storageBuffer16BitAccess", "StorageBuffer16BitAccess", "storage", "b16"},
	{"bf16", "storageBuffer16BitAccess", "StorageBuffer16BitAccess", "storage", "b16"},
}

// check refuses, at compile time, an element type whose device feature
// the target's device description (--iree-vulkan-target or an
// iree_codegen.target_info entry) says the device lacks. Without a
// description (dev.Arch empty) nothing is refused here: the runtime
// refuses the executable on a device without the feature when it is
// prepared, naming the feature.
func (n *glslNeeds) check(dev Device) error {
	if dev.Arch == "" {
		return nil
	}
	for _, f := range typeFeatures {
		if !n.types[f.typ] {
			continue
		}
		list := dev.Compute
		if f.field == "storage" {
			list = dev.Storage
		}
		if !slices.Contains(strings.Split(list, "|"), f.has) {
			return fmt.Errorf("element type '%s' needs the Vulkan device feature %s (%s capability), which the target device %q does not have (its %s = %s has no %s)", f.typ, f.feature, f.capability, dev.Arch, f.field, list, f.has)
		}
	}
	return nil
}

// header is the shader's first lines: the version, a comment and the
// extensions, in order.
func (n *glslNeeds) header(comment string) string {
	var b strings.Builder
	b.WriteString("#version 450\n" + comment)
	var exts []string
	for e := range n.exts {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	keep := n.types["bf16"] || n.denorms
	if keep && !n.exts["GL_EXT_spirv_intrinsics"] {
		exts = append(exts, "GL_EXT_spirv_intrinsics")
		sort.Strings(exts)
	}
	for _, e := range exts {
		fmt.Fprintf(&b, "#extension %s : require\n", e)
	}
	if keep {
		// bf16 has f32's exponent range, so its arithmetic, done in f32,
		// reaches f32's subnormals, as do the f32 math helpers (exp(-100)
		// and log of a subnormal), which devices may flush to zero by
		// default (NVIDIA's do): the shader asks to keep them
		// (SPV_KHR_float_controls' DenormPreserve for 32-bit floats, the
		// device's shaderDenormPreserveFloat32).
		b.WriteString("spirv_execution_mode(extensions = [\"SPV_KHR_float_controls\"], capabilities = [4464], 4459, 32);\n")
	}
	return b.String()
}

// helperText is the GLSL of the type helpers the shader uses.
func (n *glslNeeds) helperText() string {
	var b strings.Builder
	for _, h := range typeHelpers {
		if n.helpers[h.name] {
			b.WriteString(h.text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// typeHelpers are the conversion functions of the 16-bit floats, in the
// order they are written. f16 and bf16 results are rounded from f32
// (gi_rf16, gi_rbf16); a value that is already rounded to odd in f32
// (gi_*_odd: wider integers and f64, whose direct rounding to f32 and then
// to 16 bits could round twice the wrong way) rounds correctly that way.
var typeHelpers = []struct{ name, text string }{
	{"f16", `// gi_f16 is the value of f16 bits h (exact, subnormals included).
float gi_f16(uint h) {
  uint s = (h & 0x8000u) << 16;
  uint e = (h >> 10) & 0x1fu;
  uint m = h & 0x3ffu;
  if (e == 0u) {
    return uintBitsToFloat(s | floatBitsToUint(float(m) * 5.9604644775390625e-8));
  }
  if (e == 31u) {
    return uintBitsToFloat(s | 0x7f800000u | (m << 13));
  }
  return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
}

// gi_f16bits rounds f to the nearest f16, ties to even, as bits: above
// the largest finite value (65504) from 65520 on to infinity, below the
// smallest normal to subnormals; NaN stays NaN.
uint gi_f16bits(float f) {
  uint x = floatBitsToUint(f);
  uint s = (x >> 16) & 0x8000u;
  uint a = x & 0x7fffffffu;
  if (a > 0x7f800000u) {
    return s | 0x7e00u | ((a >> 13) & 0x3ffu);
  }
  if (a >= 0x477ff000u) {
    return s | 0x7c00u;
  }
  if (a >= 0x38800000u) {
    uint r = a - 0x38000000u;
    return s | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13);
  }
  if (a < 0x33000000u) {
    return s;
  }
  uint m = (a & 0x7fffffu) | 0x800000u;
  uint sh = 126u - (a >> 23);
  uint q = m >> sh;
  uint rem = m & ((1u << sh) - 1u);
  uint halfway = 1u << (sh - 1u);
  if (rem > halfway || (rem == halfway && (q & 1u) != 0u)) {
    q++;
  }
  return s | q;
}

float gi_rf16(float f) {
  return gi_f16(gi_f16bits(f));
}
`},
	{"bf16", `// gi_bf16bits rounds f to the nearest bf16, ties to even, as bits;
// NaN stays NaN (quiet).
uint gi_bf16bits(float f) {
  uint x = floatBitsToUint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return (x >> 16) | 0x40u;
  }
  return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
}

float gi_rbf16(float f) {
  return uintBitsToFloat(gi_bf16bits(f) << 16);
}
`},
	{"odd32", `// gi_u2f_odd is u rounded to f32 to odd: the 24 leading bits, the
// last set when any bit below them is.
float gi_u2f_odd(uint u) {
  int msb = findMSB(u);
  if (msb < 24) {
    return float(u);
  }
  int sh = msb - 23;
  uint v = (u >> uint(sh)) | ((u & ((1u << uint(sh)) - 1u)) != 0u ? 1u : 0u);
  return ldexp(float(v), sh);
}

float gi_i2f_odd(int i) {
  float r = gi_u2f_odd(uint(abs(i)));
  return i < 0 ? -r : r;
}
`},
	{"odd64", `float gi_u64f_odd(uint64_t u) {
  uvec2 w = unpackUint2x32(u);
  if (w.y == 0u && w.x < 0x1000000u) {
    return float(w.x);
  }
  int msb = w.y != 0u ? 32 + findMSB(w.y) : findMSB(w.x);
  int sh = msb - 23;
  uint v = uint(u >> uint(sh)) | ((u & ((1ul << uint(sh)) - 1ul)) != 0ul ? 1u : 0u);
  return ldexp(float(v), sh);
}

float gi_i64f_odd(int64_t i) {
  bool neg = unpackInt2x32(i).y < 0;
  float r = gi_u64f_odd(uint64_t(neg ? -i : i));
  return neg ? -r : r;
}
`},
	{"cmp64", `// gi_lt64s and gi_lt64u are a < b, signed and unsigned, on the
// values' 32-bit words: Mesa 22.3's lavapipe gets 64-bit OpSLessThan
// wrong.
bool gi_lt64s(int64_t a, int64_t b) {
  ivec2 x = unpackInt2x32(a);
  ivec2 y = unpackInt2x32(b);
  return x.y < y.y || (x.y == y.y && uint(x.x) < uint(y.x));
}

bool gi_lt64u(int64_t a, int64_t b) {
  uvec2 x = unpackUint2x32(uint64_t(a));
  uvec2 y = unpackUint2x32(uint64_t(b));
  return x.y < y.y || (x.y == y.y && x.x < y.x);
}
`},
	{"d2f", `// gi_d2f_odd is d rounded to f32 to odd: an inexact conversion that
// landed on an even neighbour moves to the odd one on d's other side.
float gi_d2f_odd(double d) {
  float t = float(d);
  if (isnan(d) || isinf(t) || double(t) == d) {
    return t;
  }
  uint b = floatBitsToUint(t);
  if ((b & 1u) == 0u) {
    b = abs(double(t)) > abs(d) ? b - 1u : b + 1u;
  }
  return uintBitsToFloat(b);
}
`},
}

// roundExpr rounds the f32 value e to kind k's type (f16 or bf16).
func roundExpr(k elemKind, e string) string {
	switch k.half {
	case "f16":
		return "gi_rf16(" + e + ")"
	case "bf16":
		return "gi_rbf16(" + e + ")"
	}
	return e
}

// loadElem is the value of element off of buffer buf (b0, in1, ...).
func loadElem(k elemKind, buf, off string) string {
	if k.perWord == 1 {
		e := fmt.Sprintf("%s.v[%s]", buf, off)
		switch k.half {
		case "f16":
			return "gi_f16(uint(" + e + "))"
		case "bf16":
			return "uintBitsToFloat(uint(" + e + ") << 16)"
		}
		return e
	}
	word := fmt.Sprintf("%s.v[(%s) >> %du]", buf, off, log2(k.perWord))
	pos := fmt.Sprintf("int(((%s) & %du) * %du)", off, k.perWord-1, 32/k.perWord)
	if k.value == "bool" {
		return fmt.Sprintf("(bitfieldExtract(%s, %s, 8) != 0u)", word, pos)
	}
	return fmt.Sprintf("bitfieldExtract(int(%s), %s, %d)", word, pos, 32/k.perWord)
}

// storeElem writes v to element off of buffer buf.
func storeElem(indent string, k elemKind, buf, off, v string) string {
	if k.perWord == 1 {
		switch k.half {
		case "f16":
			v = "uint16_t(gi_f16bits(" + v + "))"
		case "bf16":
			v = "uint16_t(gi_bf16bits(" + v + "))"
		}
		return fmt.Sprintf("%s%s.v[%s] = %s;\n", indent, buf, off, v)
	}
	bits := 32 / k.perWord
	mask := fmt.Sprintf("0x%xu", uint32(1)<<bits-1)
	val := fmt.Sprintf("(uint(%s) & %s)", v, mask)
	if k.value == "bool" {
		val = fmt.Sprintf("(%s ? 1u : 0u)", v)
	}
	word := fmt.Sprintf("%s.v[(%s) >> %du]", buf, off, log2(k.perWord))
	shift := fmt.Sprintf("(((%s) & %du) * %du)", off, k.perWord-1, bits)
	return fmt.Sprintf("%[1]satomicAnd(%[2]s, ~(%[3]s << %[4]s));\n%[1]satomicOr(%[2]s, %[5]s << %[4]s);\n", indent, word, mask, shift, val)
}

// lnGen writes one loop-nest shader.
type lnGen struct {
	k        *loopnest.Kernel
	bindings []loopnest.Binding
	kinds    []elemKind // per binding
	w        strings.Builder
	nconst   int
	sizes    [][]string // per binding and dimension: a literal or a name
	ranges   []string   // per loop
	scalars  map[int]string
	// red is the reduction that the workgroup's invocations share
	// (see reductionOf), or nil.
	red *gpuloops.Reduction
	// opts are the device assumptions (GLSLOptions).
	opts GLSLOptions
	// warpRows is set when each subgroup of the workgroup reduces output
	// elements of its own (gpuloops.WarpRows).
	warpRows bool
	// rename gives loops whose index offset reads from another variable
	// than d<l>.
	rename map[int]string
	// mm is the shape of a matmul-shaped kernel, tiled in shared memory,
	// or nil.
	mm *matmulShape
	// needs are the extensions and helpers the shader uses.
	needs *glslNeeds
	// The fields below let a row group (group.go) emit its stages with
	// the generator of one loop nest. suffix follows the names of the
	// functions and shared arrays the stage writes (body, combine,
	// part), so that stages do not clash; bufs, when set, are the group
	// bindings of the stage's bindings; vals, when set, name for some
	// bindings a variable that holds their element instead of a buffer
	// (a stage's per-row result); helpers, when set, collects the math
	// helpers of the bodies, which the group writes once.
	suffix  string
	bufs    []int
	vals    []string
	helpers *scalarGen
	// threads, when set, is the workgroup's size instead of
	// LoopNestWorkgroupSize (a row group's, group.go).
	threads int
}

// size is the number of invocations of the shader's workgroup.
func (g *lnGen) size() int {
	if g.threads > 0 {
		return g.threads
	}
	return LoopNestWorkgroupSize
}

// fn is the name of the stage's function or shared array base.
func (g *lnGen) fn(base string) string { return base + g.suffix }

// buf is the name of binding bi's buffer.
func (g *lnGen) buf(bi int) string {
	if g.bufs != nil {
		return "b" + strconv.Itoa(g.bufs[bi])
	}
	return "b" + strconv.Itoa(bi)
}

// matmulShape is a matmul-shaped kernel and its block layout.
type matmulShape struct {
	*gpuloops.Matmul
	gpuloops.Layout
	// coop marks an f16 matmul on cooperative matrices (coopmatmul.go);
	// whole, one whose blocks are all whole, on workgroup-scope matrices
	// (wholeBlocks).
	coop, whole bool
}

// generateLoopNest returns the compute shader of a loop-nest entry
// function (the loopnest.Attr contract): the parallel loops are spread
// over the LoopNestWorkgroupSize invocations of each workgroup, which owns
// one tile of the first parallel loop, and every invocation runs the
// reduction loops of its output elements in order.
func generateLoopNest(funcs map[string]*ir.Operation, fn *ir.Operation, d *ir.DictAttr, opts GLSLOptions) (string, error) {
	k, err := loopnest.DecodeIndexed(d)
	if err != nil {
		return "", ir.OpErrorf(fn, "%v", err)
	}
	if why := k.Fused(); why != "" {
		return "", ir.OpErrorf(fn, "the loop nest has %s, which this target does not compile (dispatch formation fuses only for targets that do)", why)
	}
	body := funcs[k.Body]
	if body == nil || body.Body() == nil {
		return "", ir.OpErrorf(fn, "loop-nest body @%s is not defined in the module", k.Body)
	}
	ft := function.Type(body)
	nl, ni, no := len(k.Ranges), len(k.Inputs), len(k.Outputs)
	if ft == nil || len(ft.Inputs) != nl+ni+no || len(ft.Results) != no {
		return "", ir.OpErrorf(body, "loop-nest body must take %d indices, %d inputs and %d accumulators and return %d values", nl, ni, no, no)
	}
	g := &lnGen{k: k, bindings: k.Bindings(), scalars: map[int]string{}, opts: opts, needs: newGLSLNeeds()}
	for _, b := range g.bindings {
		kind, err := g.needs.kind(b.Type.Elem)
		if err != nil {
			return "", ir.OpErrorf(fn, "%s #%d: %v", roleName(b.Role), b.Index, err)
		}
		g.kinds = append(g.kinds, kind)
	}
	w := &g.w
	if g.red = reductionOf(k, body); g.red != nil && !opts.NoSubgroups {
		// Shared reductions cross subgroup lanes (GroupNonUniform and
		// GroupNonUniformShuffle capabilities, Vulkan 1.1).
		g.needs.exts["GL_KHR_shader_subgroup_basic"] = true
		g.needs.exts["GL_KHR_shader_subgroup_shuffle"] = true
	}
	g.mm = matmulOf(k, body, opts)
	// splitOf gives a matmul-shaped kernel column groups in z whether or
	// not it is tiled here; the untiled kernel leaves every group but the
	// first idle.
	zGuard := g.mm != nil
	for _, kind := range g.kinds {
		if kind.bits == 64 {
			// The tiles hold 32-bit vec4s.
			g.mm = nil
		}
	}
	fmt.Fprintf(w, "layout(local_size_x = %d, local_size_y = 1, local_size_z = 1) in;\n", g.localSize())
	for bi, b := range g.bindings {
		q := "readonly "
		if b.Role == "out" {
			q = ""
		}
		fmt.Fprintf(w, "layout(set = 0, binding = %d) %srestrict buffer B%d { %s v[]; } b%d;\n", bi, q, bi, g.kinds[bi].buf, bi)
	}
	if n := k.NumConstants(); n > 0 {
		fmt.Fprintf(w, "layout(push_constant) uniform Constants { uint c[%d]; } pc;\n", n)
	}
	w.WriteString("\n")
	if err := g.bodyFunction(body, ft); err != nil {
		return "", err
	}
	if g.mm != nil {
		w.WriteString(g.sharedTiles(g.mm))
	}
	if g.red != nil {
		kind := g.kinds[g.find("out", 0)]
		// Four subgroups of NVIDIA's 32 invocations.
		g.warpRows = !opts.NoSubgroups && gpuloops.WarpRows(k, g.size()/32)
		if !g.warpRows {
			// One part per subgroup, however small the subgroups are.
			fmt.Fprintf(w, "shared %s %s[%d];\n\n", kind.value, g.fn("part"), g.size())
		}
		if err := g.combineFunction(kind); err != nil {
			return "", err
		}
	}
	w.WriteString(mulSatGLSL)
	w.WriteString("void main() {\n")
	if zGuard && g.mm == nil {
		w.WriteString("  if (gl_WorkGroupID.z != 0u) {\n    return;\n  }\n")
	}
	if err := g.prologue(); err != nil {
		return "", ir.OpErrorf(fn, "%v", err)
	}
	if err := g.loops(); err != nil {
		return "", ir.OpErrorf(fn, "%v", err)
	}
	w.WriteString("}\n")
	if err := g.needs.check(opts.Device); err != nil {
		return "", ir.OpErrorf(fn, "%v", err)
	}
	return g.needs.header("// Generated by goiree's vulkan-spirv target: a linalg loop nest.\n") + w.String(), nil
}

func roleName(role string) string {
	switch role {
	case "in":
		return "input"
	case "init":
		return "init of output"
	}
	return "output"
}

// mulSatGLSL multiplies and adds sizes, saturating at 2^32-1, so that a
// binding's needed length or an index's largest value cannot wrap around
// to something small.
const mulSatGLSL = `uint mulSat(uint a, uint b) {
  uint hi, lo;
  umulExtended(a, b, hi, lo);
  return hi != 0u ? 0xffffffffu : lo;
}

uint addSat(uint a, uint b) {
  uint carry;
  uint s = uaddCarry(a, b, carry);
  return carry != 0u ? 0xffffffffu : s;
}

`

// scalarInputs reads the kernel's scalar inputs from the push constants,
// from g.nconst on, into variables s<i> (followed by the suffix).
func (g *lnGen) scalarInputs() error {
	w := &g.w
	for i, o := range g.k.Inputs {
		if o.Scalar == nil {
			continue
		}
		kind, err := g.needs.kind(o.Scalar)
		if err != nil {
			return fmt.Errorf("scalar input #%d: %v", i, err)
		}
		if kind.bits == 64 {
			return fmt.Errorf("scalar input #%d of type %s cannot come from a 32-bit push constant", i, ir.TypeString(o.Scalar))
		}
		c := fmt.Sprintf("pc.c[%d]", g.nconst)
		g.nconst++
		var v string
		switch {
		case kind.half == "f16":
			v = "gi_f16(" + c + " & 0xffffu)"
		case kind.half == "bf16":
			v = "uintBitsToFloat(" + c + " << 16)"
		case kind.value == "float":
			v = "uintBitsToFloat(" + c + ")"
		case kind.value == "bool":
			v = "((" + c + " & 1u) != 0u)"
		case kind.narrow():
			v = fmt.Sprintf("bitfieldExtract(int(%s), 0, %d)", c, kind.bits)
		default:
			v = "int(" + c + ")"
		}
		g.scalars[i] = "s" + strconv.Itoa(i) + g.suffix
		fmt.Fprintf(w, "  %s %s = %s;\n", kind.value, g.scalars[i], v)
	}
	return nil
}

// prologue reads the scalar inputs and dynamic sizes from the push
// constants, derives the loop ranges, and returns (writing nothing) when a
// binding is shorter than its shape, two dimensions a loop indexes differ
// or a constant index is outside its dimension: Vulkan has no status for
// one dispatch, so the contract's failure leaves the outputs unwritten.
func (g *lnGen) prologue() error {
	w := &g.w
	if err := g.scalarInputs(); err != nil {
		return err
	}
	g.sizes = make([][]string, len(g.bindings))
	for bi, b := range g.bindings {
		g.sizes[bi] = make([]string, len(b.Type.Shape))
		for r, sz := range b.Type.Shape {
			if sz == ir.Dynamic {
				g.sizes[bi][r] = fmt.Sprintf("n%d_%d", bi, r)
				fmt.Fprintf(w, "  uint %s = pc.c[%d];\n", g.sizes[bi][r], g.nconst)
				g.nconst++
			} else {
				if sz > 0xffffffff {
					return fmt.Errorf("%s #%d: dimension %d (size %d) does not fit the 32-bit indices of vulkan-spirv dispatches", roleName(b.Role), b.Index, r, sz)
				}
				g.sizes[bi][r] = strconv.FormatInt(sz, 10) + "u"
			}
		}
	}
	g.ranges = make([]string, len(g.k.Ranges))
	for l, r := range g.k.Ranges {
		if r != ir.Dynamic {
			g.ranges[l] = strconv.FormatInt(r, 10) + "u"
		}
	}
	// A dynamic range is the size of a dimension the loop indexes
	// directly, in an operand that is not partial when there is one.
	for _, partial := range []bool{false, true} {
		for bi, b := range g.bindings {
			for r, e := range b.Map.Results {
				if e.Kind == ir.AffineDim && g.ranges[e.Pos] == "" && b.Partial == partial {
					g.ranges[e.Pos] = g.sizes[bi][r]
				}
			}
		}
	}
	var conds []string
	for bi, b := range g.bindings {
		need := "1u"
		for _, sz := range g.sizes[bi] {
			need = fmt.Sprintf("mulSat(%s, %s)", need, sz)
		}
		if per := g.kinds[bi].perWord; per > 1 {
			// Whole words: the runtime rounds binding ranges up to them.
			need = fmt.Sprintf("((%s / %du) + (%s %% %du == 0u ? 0u : 1u))", need, per, need, per)
		}
		conds = append(conds, fmt.Sprintf("uint(b%d.v.length()) < %s", bi, need))
		if b.Indexed {
			// Computed offsets are clamped into the tensor, which needs
			// an element to clamp to.
			conds = append(conds, g.sizes[bi][0]+" == 0u")
		}
		for r, e := range b.Map.Results {
			dyn := b.Type.Shape[r] == ir.Dynamic
			switch {
			case e.Kind == ir.AffineDim && (dyn || g.k.Ranges[e.Pos] == ir.Dynamic) && g.ranges[e.Pos] != g.sizes[bi][r] && b.Partial:
				// A partly written output or partly read input may be
				// longer than the loop.
				conds = append(conds, fmt.Sprintf("%s > %s", g.ranges[e.Pos], g.sizes[bi][r]))
			case e.Kind == ir.AffineDim && (dyn || g.k.Ranges[e.Pos] == ir.Dynamic) && g.ranges[e.Pos] != g.sizes[bi][r]:
				conds = append(conds, fmt.Sprintf("%s != %s", g.ranges[e.Pos], g.sizes[bi][r]))
			case e.Kind == ir.AffineConst && dyn:
				conds = append(conds, fmt.Sprintf("%du >= %s", e.Value, g.sizes[bi][r]))
			}
		}
	}
	// Window indices (a convolution's input) that the types do not prove
	// in bounds: with every loop they use at its last iteration, the
	// index must be inside its dimension (when no loop is empty).
	for bi, b := range g.bindings {
		for r, e := range b.Map.Results {
			if e.Kind == ir.AffineDim || e.Kind == ir.AffineConst {
				continue
			}
			lin, ok := loopnest.Linear(e)
			if !ok {
				return fmt.Errorf("%s #%d: index %d (%s) is not a non-negative combination of loop indices", roleName(b.Role), b.Index, r, e)
			}
			if hi, ok := lin.Max(g.k.Ranges); ok && b.Type.Shape[r] != ir.Dynamic && hi < b.Type.Shape[r] {
				continue
			}
			hi := strconv.FormatInt(lin.Const, 10) + "u"
			var nonEmpty []string
			for _, d := range sortedDims(lin) {
				nonEmpty = append(nonEmpty, g.ranges[d]+" > 0u")
				hi = fmt.Sprintf("addSat(%s, mulSat(%du, %s - 1u))", hi, lin.Coeffs[d], g.ranges[d])
			}
			conds = append(conds, fmt.Sprintf("(%s && %s >= %s)", strings.Join(nonEmpty, " && "), hi, g.sizes[bi][r]))
		}
	}
	fmt.Fprintf(w, "  if (%s) {\n    return;\n  }\n", strings.Join(conds, " ||\n      "))
	return nil
}

// sortedDims lists the loops a linear index uses, in order.
func sortedDims(lin loopnest.LinearIndex) []int {
	var ds []int
	for d, c := range lin.Coeffs {
		if c != 0 {
			ds = append(ds, d)
		}
	}
	sort.Ints(ds)
	return ds
}

// offset is the row-major element offset of binding bi at its map, in
// terms of the loop index variables d0, d1, ....
func (g *lnGen) offset(bi int) (string, error) {
	m := g.bindings[bi].Map
	if len(m.Results) == 0 {
		return "0u", nil
	}
	off := ""
	for r, e := range m.Results {
		var x string
		switch e.Kind {
		case ir.AffineDim:
			x = g.dim(e.Pos)
		case ir.AffineConst:
			x = strconv.FormatInt(e.Value, 10) + "u"
		default:
			lin, ok := loopnest.Linear(e)
			if !ok {
				return "", fmt.Errorf("%s #%d: index %d (%s) is not a non-negative combination of loop indices", roleName(g.bindings[bi].Role), g.bindings[bi].Index, r, e)
			}
			terms := []string{strconv.FormatInt(lin.Const, 10) + "u"}
			for _, d := range sortedDims(lin) {
				terms = append(terms, fmt.Sprintf("%du * %s", lin.Coeffs[d], g.dim(d)))
			}
			x = "(" + strings.Join(terms, " + ") + ")"
		}
		if off == "" {
			off = x
		} else {
			off = fmt.Sprintf("(%s) * %s + %s", off, g.sizes[bi][r], x)
		}
	}
	return off, nil
}

// dim is the variable of loop l's index: d<l>, or its rename.
func (g *lnGen) dim(l int) string {
	if n, ok := g.rename[l]; ok {
		return n
	}
	return "d" + strconv.Itoa(l)
}

// load is the value of binding bi's element at offset off.
func (g *lnGen) load(bi int, off string) string {
	if g.vals != nil && g.vals[bi] != "" {
		return g.vals[bi]
	}
	return loadElem(g.kinds[bi], g.buf(bi), off)
}

// store writes v to binding bi's element at offset off.
func (g *lnGen) store(indent string, bi int, off, v string) string {
	if g.vals != nil && g.vals[bi] != "" {
		return fmt.Sprintf("%s%s = %s;\n", indent, g.vals[bi], v)
	}
	return storeElem(indent, g.kinds[bi], g.buf(bi), off, v)
}

func log2(n int) int {
	s := 0
	for 1<<s < n {
		s++
	}
	return s
}

func (g *lnGen) find(role string, i int) int {
	for bi, b := range g.bindings {
		if b.Role == role && b.Index == i {
			return bi
		}
	}
	return -1
}

// loops writes the parallel loops, spread over the workgroup's
// invocations with the last parallel loop fastest (neighbouring
// invocations write neighbouring output elements), and the sequential
// reduction loops of each output element.
func (g *lnGen) loops() error {
	w := &g.w
	k := g.k
	var pars, reds []int
	for i, it := range k.Iterators {
		if it == "parallel" {
			pars = append(pars, i)
		} else {
			reds = append(reds, i)
		}
	}
	outer := k.OuterParallel()
	// The tile is the workgroup's linear index over a grid that may be
	// split into rows when it exceeds a device's limit in x.
	w.WriteString("  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;\n")
	if outer >= 0 {
		fmt.Fprintf(w, "  uint lo = tile * %du;\n", k.Tile)
		fmt.Fprintf(w, "  uint hi = min(%s, lo + %du);\n", g.ranges[outer], k.Tile)
		w.WriteString("  if (lo >= hi) {\n    return;\n  }\n")
		count := "(hi - lo)"
		for _, p := range pars[1:] {
			count = fmt.Sprintf("mulSat(%s, %s)", count, g.ranges[p])
		}
		fmt.Fprintf(w, "  uint count = %s;\n", count)
	} else {
		w.WriteString("  if (tile != 0u) {\n    return;\n  }\n  uint count = 1u;\n")
	}
	if g.mm != nil {
		return g.tiledMatmul(g.mm)
	}
	switch {
	case g.red != nil && g.warpRows:
		// Each subgroup takes every gl_NumSubgroups-th output element.
		w.WriteString("  for (uint i = gl_SubgroupID; i < count; i += gl_NumSubgroups) {\n")
	case g.red != nil:
		// Every invocation walks the same output elements, so the
		// barriers below are reached by all of them.
		w.WriteString("  for (uint i = 0u; i < count; i++) {\n")
	case len(reds) == 0 && outer >= 0:
		if err := g.unrolled(pars, outer); err != nil {
			return err
		}
		// The loop below finishes the elements the unrolled one left.
		fmt.Fprintf(w, "  for (; i < count; i += %du) {\n", g.size())
	default:
		fmt.Fprintf(w, "  for (uint i = gl_LocalInvocationID.x; i < count; i += %du) {\n", g.size())
	}
	if outer >= 0 {
		w.WriteString("    uint rest = i;\n")
		for j := len(pars) - 1; j >= 1; j-- {
			p := pars[j]
			fmt.Fprintf(w, "    uint d%d = rest %% %s;\n    rest /= %s;\n", p, g.ranges[p], g.ranges[p])
		}
		fmt.Fprintf(w, "    uint d%d = lo + rest;\n", outer)
	}
	if g.red != nil {
		if err := g.sharedReduction(); err != nil {
			return err
		}
	} else if err := g.element("    ", reds); err != nil {
		return err
	}
	w.WriteString("  }\n")
	return nil
}

// element writes the computation of one output element at the loop
// indices d<l> of the parallel loops: its accumulators from their
// initial values, the reduction loops reds in order around the body's
// call, and the stores.
func (g *lnGen) element(indent string, reds []int) error {
	w := &g.w
	k := g.k
	offs := make([]string, len(k.Outputs))
	for i, o := range k.Outputs {
		off, err := g.offset(g.find("out", i))
		if err != nil {
			return err
		}
		offs[i] = off
		kind := g.kinds[g.find("out", i)]
		init := zero(kind)
		if o.Init {
			init = g.load(g.find("init", i), off)
		}
		fmt.Fprintf(w, "%s%s acc%d = %s;\n", indent, kind.value, i, init)
	}
	for _, r := range reds {
		fmt.Fprintf(w, "%sfor (uint d%d = 0u; d%d < %s; d%d++) {\n", indent, r, r, g.ranges[r], r)
		indent += "  "
	}
	var args []string
	for l := range k.Ranges {
		args = append(args, fmt.Sprintf("int(d%d)", l))
	}
	for i, o := range k.Inputs {
		if o.Scalar != nil {
			args = append(args, g.scalars[i])
			continue
		}
		if o.Indexed {
			continue // the body reads its binding itself
		}
		bi := g.find("in", i)
		off, err := g.offset(bi)
		if err != nil {
			return err
		}
		args = append(args, g.load(bi, off))
	}
	for i := range k.Outputs {
		args = append(args, "acc"+strconv.Itoa(i))
	}
	for i := range k.Outputs {
		args = append(args, "acc"+strconv.Itoa(i))
	}
	fmt.Fprintf(w, "%s%s(%s);\n", indent, g.fn("body"), strings.Join(args, ", "))
	for range reds {
		indent = indent[2:]
		fmt.Fprintf(w, "%s}\n", indent)
	}
	for i := range k.Outputs {
		w.WriteString(g.store(indent, g.find("out", i), offs[i], "acc"+strconv.Itoa(i)))
	}
	return nil
}

// ElementwiseUnroll is how many elements an invocation of a loop nest
// without reduction loops (elementwise and broadcast kernels) handles per
// step: their inputs are all loaded before any is used, so that several
// loads are in flight per invocation, which a bandwidth-bound kernel
// needs.
const ElementwiseUnroll = 4

// unrolled writes the loop over a workgroup's parallel iterations in
// steps of ElementwiseUnroll per invocation, leaving i at the first
// iteration it did not run; neighbouring invocations still take
// neighbouring iterations (i, i + size, ...), so each load and store of
// a step is coalesced.
func (g *lnGen) unrolled(pars []int, outer int) error {
	w := &g.w
	k := g.k
	step := ElementwiseUnroll * g.size()
	last := step - g.size()
	fmt.Fprintf(w, "  uint i = gl_LocalInvocationID.x;\n  if (count > %du) {\n", last)
	// The indices of iteration i as digits c<l> (the last parallel loop
	// fastest), and those of a step of the workgroup size as st<l>: each
	// next element's indices are the digits plus the step's, with
	// carries, instead of a division per loop per element. (Every range
	// is positive here: count is.)
	w.WriteString("    uint rest = i;\n")
	for q := len(pars) - 1; q >= 1; q-- {
		p := pars[q]
		fmt.Fprintf(w, "    uint c%d = rest %% %s;\n    rest /= %s;\n", p, g.ranges[p], g.ranges[p])
	}
	fmt.Fprintf(w, "    uint c%d = lo + rest;\n    rest = %du;\n", outer, g.size())
	for q := len(pars) - 1; q >= 1; q-- {
		p := pars[q]
		fmt.Fprintf(w, "    uint st%d = rest %% %s;\n    rest /= %s;\n", p, g.ranges[p], g.ranges[p])
	}
	fmt.Fprintf(w, "    uint st%d = rest;\n", outer)
	fmt.Fprintf(w, "    for (; i < count - %du; i += %du) {\n", last, step)
	type elem struct{ args, stores []string }
	elems := make([]elem, ElementwiseUnroll)
	defer func() { g.rename = nil }()
	for j := range elems {
		g.rename = map[int]string{}
		for _, l := range pars {
			g.rename[l] = fmt.Sprintf("d%d_%d", l, j)
		}
		for _, p := range pars {
			fmt.Fprintf(w, "      uint %s = c%d;\n", g.dim(p), p)
		}
		// The next element's digits.
		w.WriteString("      {\n        uint carry = 0u;\n")
		for q := len(pars) - 1; q >= 1; q-- {
			p := pars[q]
			fmt.Fprintf(w, "        c%[1]d += st%[1]d + carry;\n        carry = c%[1]d >= %[2]s ? 1u : 0u;\n        c%[1]d -= carry * %[2]s;\n", p, g.ranges[p])
		}
		fmt.Fprintf(w, "        c%[1]d += st%[1]d + carry;\n      }\n", outer)
		e := &elems[j]
		for l := range k.Ranges {
			e.args = append(e.args, fmt.Sprintf("int(%s)", g.dim(l)))
		}
		for i, o := range k.Inputs {
			if o.Scalar != nil {
				e.args = append(e.args, g.scalars[i])
				continue
			}
			if o.Indexed {
				continue // the body reads its binding itself
			}
			bi := g.find("in", i)
			off, err := g.offset(bi)
			if err != nil {
				return err
			}
			x := fmt.Sprintf("x%d_%d", j, i)
			fmt.Fprintf(w, "      %s %s = %s;\n", g.kinds[bi].value, x, g.load(bi, off))
			e.args = append(e.args, x)
		}
		var accs []string
		for i, o := range k.Outputs {
			bi := g.find("out", i)
			off, err := g.offset(bi)
			if err != nil {
				return err
			}
			kind := g.kinds[bi]
			init := zero(kind)
			if o.Init {
				init = g.load(g.find("init", i), off)
			}
			acc := fmt.Sprintf("acc%d_%d", j, i)
			fmt.Fprintf(w, "      %s %s = %s;\n", kind.value, acc, init)
			accs = append(accs, acc)
			e.stores = append(e.stores, g.store("      ", bi, off, acc))
		}
		e.args = append(append(e.args, accs...), accs...)
	}
	for _, e := range elems {
		fmt.Fprintf(w, "      %s(%s);\n", g.fn("body"), strings.Join(e.args, ", "))
		for _, st := range e.stores {
			w.WriteString(st)
		}
	}
	w.WriteString("    }\n  }\n")
	return nil
}

func zero(k elemKind) string {
	switch k.value {
	case "float":
		return "0.0"
	case "bool":
		return "false"
	}
	return "0"
}

// bodyFunction writes the scalar body as a GLSL function taking the loop
// indices, the input elements and the accumulators, with the new
// accumulators as out parameters (GLSL copies them out on return, so an
// accumulator may be passed as both).
func (g *lnGen) bodyFunction(body *ir.Operation, ft *ir.FunctionType) error {
	var text strings.Builder
	w := &text
	sg := newScalarGen(g.needs, g.opts.Device)
	sg.exact = g.mm == nil
	defer func() {
		if g.helpers != nil {
			// A row group writes its stages' helpers once.
			for h := range sg.helpers {
				g.helpers.helpers[h] = true
			}
			g.w.WriteString(text.String())
			return
		}
		// The type and math helpers the body calls go before it (the
		// bindings' kinds are known by now, so the loads in main find
		// theirs here too).
		g.w.WriteString(g.needs.helperText())
		g.w.WriteString(sg.helperText())
		g.w.WriteString(text.String())
	}()
	blk := body.Body()
	if len(body.Regions[0].Blocks) != 1 {
		return ir.OpErrorf(body, "loop-nest bodies must have a single block")
	}
	var params []string
	// An indexed input's argument is not passed: the body reads the
	// input's binding, a global, at the offsets it computes.
	indexed := map[*ir.Value]int{}
	for i, a := range blk.Args {
		if _, ok := a.Type.(*ir.TensorType); ok {
			in := i - len(g.k.Ranges)
			if in < 0 || in >= len(g.k.Inputs) || !g.k.Inputs[in].Indexed {
				return ir.OpErrorf(body, "argument %d of type '%s' is not an indexed input", i, ir.TypeString(a.Type))
			}
			indexed[a] = g.find("in", in)
			continue
		}
		kind, err := g.needs.kind(ft.Inputs[i])
		if err != nil {
			return ir.OpErrorf(body, "argument %d: %v", i, err)
		}
		n := "a" + strconv.Itoa(i)
		sg.names[a] = n
		params = append(params, kind.value+" "+n)
	}
	var rkinds []elemKind
	for i, t := range ft.Results {
		kind, err := g.needs.kind(t)
		if err != nil {
			return ir.OpErrorf(body, "result %d: %v", i, err)
		}
		rkinds = append(rkinds, kind)
		params = append(params, fmt.Sprintf("out %s r%d", kind.value, i))
	}
	fmt.Fprintf(w, "void %s(%s) {\n", g.fn("body"), strings.Join(params, ", "))
	returned := false
	for _, op := range blk.Ops {
		if op.Name == "func.return" {
			if len(op.Operands) != len(ft.Results) {
				return ir.OpErrorf(op, "returns %d values, the body type has %d results", len(op.Operands), len(ft.Results))
			}
			for i, v := range op.Operands {
				n, err := sg.use(op, v)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "  r%d = %s;\n", i, n)
			}
			returned = true
			continue
		}
		if op.Name == "tensor.extract" {
			line, err := g.indexedRead(sg, op, indexed)
			if err != nil {
				return err
			}
			w.WriteString("  " + line + "\n")
			continue
		}
		line, err := sg.op(op)
		if err != nil {
			return err
		}
		w.WriteString("  " + line + "\n")
	}
	if !returned {
		return ir.OpErrorf(body, "loop-nest body has no func.return")
	}
	w.WriteString("}\n\n")
	if g.red == nil || !g.red.WideParts() {
		return nil
	}
	// A reduction with wide parts folds the value the combiner would
	// fold into its f32 part itself: bodyValue is the body but its
	// combiner, from the same arguments (the accumulator unused).
	fmt.Fprintf(w, "float %s(%s) {\n", g.fn("bodyValue"), strings.Join(params[:len(blk.Args)], ", "))
	for _, op := range blk.Ops {
		if op == g.red.Combiner || op.Name == "func.return" {
			continue
		}
		line, err := sg.op(op)
		if err != nil {
			return err
		}
		w.WriteString("  " + line + "\n")
	}
	v, err := sg.use(g.red.Combiner, g.red.Value)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  return %s;\n}\n\n", v)
	return nil
}

// indexedRead translates tensor.extract %t[%off] of an indexed input (an
// argument in indexed, mapped to its binding): a load of the binding's
// element off, which the body computed inside the tensor.
func (g *lnGen) indexedRead(sg *scalarGen, op *ir.Operation, indexed map[*ir.Value]int) (string, error) {
	bi, ok := -1, false
	if len(op.Operands) == 2 && len(op.Results) == 1 {
		bi, ok = indexed[op.Operands[0]]
	}
	if !ok {
		return "", ir.OpErrorf(op, "only reads of a loop nest's indexed input at one offset are supported by vulkan-spirv code generation")
	}
	off, err := sg.use(op, op.Operands[1])
	if err != nil {
		return "", err
	}
	rk, err := g.needs.kind(op.Results[0].Type)
	if err != nil {
		return "", ir.OpErrorf(op, "%v", err)
	}
	return fmt.Sprintf("%s %s = %s;", rk.value, sg.define(op.Results[0]), loadElem(g.kinds[bi], "b"+strconv.Itoa(bi), "uint("+off+")")), nil
}

// scalarGen translates the scalar ops of a loop-nest or elementwise body:
// arithmetic, comparisons, casts and math on every element kind. Index
// values are 32-bit ints; integers narrower than 32 bits live
// sign-extended in ints: results are re-extended from their width after
// every op, and unsigned ops see their operands zero-extended. f16 and
// bf16 results are rounded to their type after every op that can leave
// it.
type scalarGen struct {
	glslGen
	needs *glslNeeds
	// helpers are the math helper functions the body calls (mathglsl.go).
	helpers map[string]bool
	// exact marks float products precise (NoContraction): GLSL lets a
	// compiler fuse a product into the sum or difference that uses it,
	// which rounds once where the program rounds twice. NVIDIA's driver
	// does, and IREE's layernorm, whose x - mean * (1 / n) is exactly 0
	// rounded twice, came out -0.15 there. Matmul bodies are left to
	// fuse (the tiled kernels rely on the fma), as the CPU targets'
	// accumulation does.
	exact bool
	// fusedFMA is the device's Device.FusedFMA: f32 division takes the
	// fma path (gi_divf).
	fusedFMA bool
}

func newScalarGen(needs *glslNeeds, dev Device) *scalarGen {
	return &scalarGen{glslGen: glslGen{names: map[*ir.Value]string{}}, needs: needs, helpers: map[string]bool{}, fusedFMA: dev.FusedFMA()}
}

var unsignedOperands = map[string]bool{
	"arith.divui": true, "arith.remui": true, "arith.shrui": true, "arith.maxui": true,
	"arith.minui": true, "arith.uitofp": true, "arith.extui": true, "arith.index_castui": true,
}

// exactOps are the float ops whose result is one of their operands'
// values or an integer value of their magnitude: no rounding to f16 or
// bf16 is needed after them.
var exactOps = map[string]bool{
	"arith.select": true, "arith.negf": true, "math.absf": true, "math.copysign": true,
	"arith.maximumf": true, "arith.minimumf": true, "arith.maxnumf": true, "arith.minnumf": true,
	"math.floor": true, "math.ceil": true, "math.trunc": true, "math.roundeven": true, "math.round": true,
}

func (g *scalarGen) op(op *ir.Operation) (string, error) {
	if len(op.Results) != 1 {
		return "", ir.OpErrorf(op, "'%s' is not supported by vulkan-spirv code generation", op.Name)
	}
	rk, err := g.needs.kind(arith.ElementType(op.Results[0].Type))
	if err != nil {
		return "", ir.OpErrorf(op, "%v", err)
	}
	if op.Name == "arith.constant" {
		lit, err := constant(op, rk)
		if err != nil {
			return "", err
		}
		if rk.narrow() {
			lit = fmt.Sprintf("bitfieldExtract(%s, 0, %d)", lit, rk.bits)
		}
		return fmt.Sprintf("%s %s = %s;", rk.value, g.define(op.Results[0]), lit), nil
	}
	a := make([]string, len(op.Operands))
	var ak elemKind
	for i, v := range op.Operands {
		if a[i], err = g.use(op, v); err != nil {
			return "", err
		}
		k, err := g.needs.kind(arith.ElementType(v.Type))
		if err != nil {
			return "", ir.OpErrorf(op, "%v", err)
		}
		if i == 0 {
			ak = k
		}
		if k.narrow() && (unsignedOperands[op.Name] || op.Name == "arith.cmpi" && isUnsignedCmp(op)) {
			a[i] = fmt.Sprintf("int(uint(%s) & 0x%xu)", a[i], uint32(1)<<k.bits-1)
		}
	}
	var expr string
	switch op.Name {
	case "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci":
		expr, err = intCast(op, ak, rk, a)
	case "arith.extf", "arith.truncf":
		expr, err = g.floatCast(op, ak, rk, a)
	case "arith.sitofp", "arith.uitofp":
		expr, err = g.toFloat(op, ak, rk, a)
	case "arith.fptosi", "arith.fptoui":
		expr, err = toInt(op, ak, rk, a)
	case "arith.bitcast":
		expr, err = bitcast(op, ak, rk, a)
	default:
		var ok bool
		if expr, ok, err = g.mathOp(op, rk, ak, a); !ok && err == nil {
			// Wrapping int arithmetic agrees with every narrower width
			// up to the re-extension below.
			expr, err = expression(op, rk, ak, a)
		}
		if err == nil && rk.half != "" && !exactOps[op.Name] {
			expr = roundExpr(rk, expr)
		}
	}
	if err != nil {
		return "", err
	}
	if rk.narrow() {
		expr = fmt.Sprintf("bitfieldExtract(int(%s), 0, %d)", expr, rk.bits)
	}
	decl := rk.value
	if g.exact && op.Name == "arith.mulf" && (rk.value == "float" || rk.value == "double") {
		decl = "precise " + decl
	}
	return fmt.Sprintf("%s %s = %s;", decl, g.define(op.Results[0]), expr), nil
}

// unsupportedCast is the error of a cast between kinds the target does
// not convert.
func unsupportedCast(op *ir.Operation) error {
	return ir.OpErrorf(op, "'%s' from %s to %s is not supported by vulkan-spirv code generation", op.Name, ir.TypeString(arith.ElementType(op.Operands[0].Type)), ir.TypeString(arith.ElementType(op.Results[0].Type)))
}

// intCast converts between the integer kinds (i1, narrow, 32-bit, i64,
// index).
func intCast(op *ir.Operation, ak, rk elemKind, a []string) (string, error) {
	if err := arity(op, 1, a); err != nil {
		return "", err
	}
	x := a[0]
	unsigned := op.Name == "arith.extui" || op.Name == "arith.index_castui"
	switch {
	case ak.value == "bool" && (rk.value == "int" || rk.value == "int64_t"):
		if unsigned {
			return fmt.Sprintf("%s(%s ? 1 : 0)", rk.value, x), nil
		}
		return fmt.Sprintf("%s(%s ? -1 : 0)", rk.value, x), nil
	case ak.value == "int" && rk.value == "bool":
		return fmt.Sprintf("((%s & 1) != 0)", x), nil
	case ak.value == "int64_t" && rk.value == "bool":
		return fmt.Sprintf("((int(%s) & 1) != 0)", x), nil
	case ak.value == rk.value && rk.value != "bool":
		return x, nil
	case ak.value == "int" && rk.value == "int64_t":
		if unsigned {
			return "int64_t(uint(" + x + "))", nil
		}
		return "int64_t(" + x + ")", nil
	case ak.value == "int64_t" && rk.value == "int":
		// Truncation keeps the low 32 bits.
		return "int(" + x + ")", nil
	}
	return "", unsupportedCast(op)
}

// floatCast is extf and truncf between f16, bf16, f32 and f64.
func (g *scalarGen) floatCast(op *ir.Operation, ak, rk elemKind, a []string) (string, error) {
	if err := arity(op, 1, a); err != nil {
		return "", err
	}
	x := a[0]
	switch {
	case ak.value == "double" && rk.value == "double":
		return x, nil
	case rk.value == "double" && ak.value == "float":
		return "double(" + x + ")", nil
	case ak.value == "double" && rk.value == "float" && rk.half == "":
		return "float(" + x + ")", nil
	case ak.value == "double" && rk.value == "float":
		// f64 to f32 to odd, then to 16 bits: one correct rounding.
		g.needs.helpers["d2f"] = true
		return roundExpr(rk, "gi_d2f_odd("+x+")"), nil
	case ak.value == "float" && rk.value == "float":
		if rk.half != "" && rk.half != ak.half {
			return roundExpr(rk, x), nil
		}
		return x, nil
	}
	return "", unsupportedCast(op)
}

// toFloat is sitofp and uitofp. A conversion to f16 or bf16 goes through
// f32 rounded to odd, so that it rounds once.
func (g *scalarGen) toFloat(op *ir.Operation, ak, rk elemKind, a []string) (string, error) {
	if err := arity(op, 1, a); err != nil {
		return "", err
	}
	signed := op.Name == "arith.sitofp"
	x := a[0]
	if ak.value == "bool" {
		// i1's one bit is -1 signed, 1 unsigned.
		if signed {
			x = "(" + x + " ? -1 : 0)"
		} else {
			x = "(" + x + " ? 1 : 0)"
		}
		ak = elemKind{value: "int", bits: 32}
	}
	if ak.value != "int" && ak.value != "int64_t" || rk.value != "float" && rk.value != "double" {
		return "", unsupportedCast(op)
	}
	wide := ak.value == "int64_t"
	if !signed {
		if wide {
			x = "uint64_t(" + x + ")"
		} else {
			x = "uint(" + x + ")"
		}
	}
	if rk.half == "" {
		return rk.value + "(" + x + ")", nil
	}
	fn := map[[2]bool]string{{true, false}: "gi_i2f_odd", {false, false}: "gi_u2f_odd", {true, true}: "gi_i64f_odd", {false, true}: "gi_u64f_odd"}[[2]bool{signed, wide}]
	if wide {
		g.needs.helpers["odd64"] = true
	} else {
		g.needs.helpers["odd32"] = true
	}
	return roundExpr(rk, fn+"("+x+")"), nil
}

// toInt is fptosi and fptoui (out-of-range values are undefined, as in
// MLIR).
func toInt(op *ir.Operation, ak, rk elemKind, a []string) (string, error) {
	if err := arity(op, 1, a); err != nil {
		return "", err
	}
	x := a[0]
	if ak.value != "float" && ak.value != "double" {
		return "", unsupportedCast(op)
	}
	signed := op.Name == "arith.fptosi"
	switch rk.value {
	case "int":
		if signed {
			return "int(" + x + ")", nil
		}
		return "int(uint(" + x + "))", nil
	case "int64_t":
		if signed {
			return "int64_t(" + x + ")", nil
		}
		return "int64_t(uint64_t(" + x + "))", nil
	case "bool":
		return "(int(" + x + ") != 0)", nil
	}
	return "", unsupportedCast(op)
}

// bitcast reinterprets bits between a float kind and the integer kind of
// its width.
func bitcast(op *ir.Operation, ak, rk elemKind, a []string) (string, error) {
	if err := arity(op, 1, a); err != nil {
		return "", err
	}
	x := a[0]
	switch {
	case ak == rk:
		return x, nil
	case rk.value == "float" && rk.half == "" && ak.value == "int" && ak.bits == 32:
		return "intBitsToFloat(" + x + ")", nil
	case ak.value == "float" && ak.half == "" && rk.value == "int" && rk.bits == 32:
		return "floatBitsToInt(" + x + ")", nil
	case rk.value == "double" && ak.value == "int64_t":
		return "int64BitsToDouble(" + x + ")", nil
	case ak.value == "double" && rk.value == "int64_t":
		return "doubleBitsToInt64(" + x + ")", nil
	case rk.half == "f16" && ak.value == "int" && ak.bits == 16:
		return "gi_f16(uint(" + x + ") & 0xffffu)", nil
	case rk.half == "bf16" && ak.value == "int" && ak.bits == 16:
		return "uintBitsToFloat((uint(" + x + ") & 0xffffu) << 16)", nil
	case ak.half == "f16" && rk.value == "int" && rk.bits == 16:
		return "int(gi_f16bits(" + x + "))", nil
	case ak.half == "bf16" && rk.value == "int" && rk.bits == 16:
		return "int(gi_bf16bits(" + x + "))", nil
	}
	return "", unsupportedCast(op)
}

func isUnsignedCmp(op *ir.Operation) bool {
	n, _ := op.IntAttr("predicate")
	return n >= 0 && int(n) < len(arith.CmpIPredicates) && arith.CmpIPredicates[n][0] == 'u'
}

// reductionOf is gpuloops.ReductionOf for outputs held one element per
// buffer word (f32, i32, index), whose parts live in shared memory and
// cross subgroup lanes as values of that type.
func reductionOf(k *loopnest.Kernel, body *ir.Operation) *gpuloops.Reduction {
	if k.FirstIndexed() >= 0 {
		return nil // the shared reduction passes every input to the body
	}
	if kind, err := loopNestKind(k.Outputs[0].Type.Elem); err != nil || kind.perWord != 1 {
		return nil
	}
	r := gpuloops.ReductionOf(k, body)
	if r == nil {
		return nil
	}
	if _, _, ok := r.Identity(); !ok {
		return nil
	}
	return r
}

// ReductionUnroll is how many elements of its strided part a workgroup
// invocation loads before it folds them: independent loads in flight
// are what a bandwidth-bound reduction needs, one at a time leaves most
// of the memory system idle.
const ReductionUnroll = 4

// identity is the GLSL literal of the reduction's identity, exact for
// -0, infinities and NaN.
func identity(r *gpuloops.Reduction, kind elemKind) string {
	f, i, _ := r.Identity()
	switch kind.value {
	case "float":
		return fmt.Sprintf("uintBitsToFloat(0x%08xu)", math.Float32bits(float32(f)))
	case "double":
		return doubleLiteral(f)
	case "int64_t":
		return fmt.Sprintf("int64_t(0x%xul)", uint64(i))
	}
	return fmt.Sprintf("int(0x%08xu)", uint32(i))
}

// shuffleXor is x from lane gl_SubgroupInvocationID ^ o. 64-bit values
// cross as two 32-bit words: subgroup operations on 64-bit integers need
// the device feature shaderSubgroupExtendedTypes, on words only the
// shuffle itself.
func shuffleXor(k elemKind, x, o string) string {
	switch k.value {
	case "double":
		return fmt.Sprintf("packDouble2x32(subgroupShuffleXor(unpackDouble2x32(%s), %s))", x, o)
	case "int64_t":
		return fmt.Sprintf("int64_t(packUint2x32(subgroupShuffleXor(unpackUint2x32(uint64_t(%s)), %s)))", x, o)
	}
	return fmt.Sprintf("subgroupShuffleXor(%s, %s)", x, o)
}

// combineFunction writes combine(a, b), the reduction's combiner alone
// with a and b in the places of its operands. A reduction with wide parts
// (gpuloops.Reduction.WideParts) combines its f16 or bf16 parts as the
// f32 values they are held in, without rounding them to the type.
func (g *lnGen) combineFunction(kind elemKind) error {
	c := g.red.Combiner
	if g.red.WideParts() {
		op := "+"
		if c.Name == "arith.mulf" {
			op = "*"
		}
		fmt.Fprintf(&g.w, "float %s(float a, float b) {\n  return a %s b;\n}\n\n", g.fn("combine"), op)
		return nil
	}
	sg := newScalarGen(g.needs, g.opts.Device)
	sg.names[c.Operands[0]], sg.names[c.Operands[1]] = "a", "b"
	line, err := sg.op(c)
	if err != nil {
		return err
	}
	if len(sg.helpers) > 0 {
		return ir.OpErrorf(c, "the combiner '%s' needs helper functions", c.Name)
	}
	fmt.Fprintf(&g.w, "%[1]s %[4]s(%[1]s a, %[1]s b) {\n  %[2]s\n  return %[3]s;\n}\n\n", kind.value, line, sg.names[c.Results[0]], g.fn("combine"))
	return nil
}

// sharedReduction writes the body of the output-element loop for a
// shared reduction (gpuloops.Reduction). Each invocation runs the body
// over a strided part of the row from the combiner's identity, loading
// ReductionUnroll elements before it folds them; the subgroup combines
// its parts with shuffles (a butterfly, so every lane ends with the
// subgroup's total), the subgroups' totals meet in shared memory, and the
// first subgroup combines them the same way; its first invocation folds
// the total into the accumulator's initial value and stores it. The
// combiner runs through combine, the body's own op, so NaNs and signed
// zeros follow its semantics rather than those of subgroupMax and the
// like. An f16 or bf16 sum or product keeps its parts in f32
// (gpuloops.Reduction.WideParts): bodyValue computes each element's value
// in the 16-bit type, combine adds or multiplies the f32 values without
// rounding them to it, and the initial value plus the total is rounded
// once when stored.
func (g *lnGen) sharedReduction() error {
	w := &g.w
	k := g.k
	r := g.red.Loop
	out := g.find("out", 0)
	kind := g.kinds[out]
	outOff, err := g.offset(out)
	if err != nil {
		return err
	}
	id := identity(g.red, kind)
	body, bodyValue, combine, part := g.fn("body"), g.fn("bodyValue"), g.fn("combine"), g.fn("part")
	// fold writes the body's call for the elements at reduction indices
	// e + j * stride, j in js: every input loaded first, then the calls
	// in order.
	fold := func(indent string, js []int) error {
		calls := make([]string, len(js))
		for c, j := range js {
			ej := "e"
			if j > 0 {
				ej = fmt.Sprintf("e%d", j)
				fmt.Fprintf(w, "%suint %s = e + %du * stride;\n", indent, ej, j)
			}
			g.rename = map[int]string{r: ej}
			var as []string
			for l := range k.Ranges {
				as = append(as, fmt.Sprintf("int(%s)", g.dim(l)))
			}
			for i, o := range k.Inputs {
				if o.Scalar != nil {
					as = append(as, g.scalars[i])
					continue
				}
				if o.Indexed {
					continue // the body reads its binding itself
				}
				bi := g.find("in", i)
				off, err := g.offset(bi)
				if err != nil {
					return err
				}
				x := fmt.Sprintf("x%d_%d", j, i)
				fmt.Fprintf(w, "%s%s %s = %s;\n", indent, g.kinds[bi].value, x, g.load(bi, off))
				as = append(as, x)
			}
			g.rename = nil
			calls[c] = fmt.Sprintf("%s%s(%s, p, p);\n", indent, body, strings.Join(as, ", "))
			if g.red.WideParts() {
				calls[c] = fmt.Sprintf("%sp = %s(p, %s(%s, p));\n", indent, combine, bodyValue, strings.Join(as, ", "))
			}
		}
		for _, c := range calls {
			w.WriteString(c)
		}
		return nil
	}
	n := g.ranges[r]
	// The invocations sharing the row: the workgroup, or the subgroup.
	lane, stride := "gl_LocalInvocationID.x", fmt.Sprintf("%du", g.size())
	if g.warpRows {
		lane, stride = "gl_SubgroupInvocationID", "gl_SubgroupSize"
	}
	fmt.Fprintf(w, "    %s p = %s;\n    uint stride = %s;\n    uint e0 = %s;\n    uint e = e0;\n", kind.value, id, stride, lane)
	// Whole groups while e + (ReductionUnroll-1) * stride < n, then
	// single elements.
	fmt.Fprintf(w, "    uint last = %du * stride;\n", ReductionUnroll-1)
	fmt.Fprintf(w, "    if (%s > last) {\n      for (; e < %s - last; e += %du * stride) {\n", n, n, ReductionUnroll)
	var js []int
	for j := 0; j < ReductionUnroll; j++ {
		js = append(js, j)
	}
	if err := fold("        ", js); err != nil {
		return err
	}
	fmt.Fprintf(w, "      }\n    }\n    for (; e < %s; e += stride) {\n", n)
	if err := fold("      ", []int{0}); err != nil {
		return err
	}
	w.WriteString("    }\n")
	init := zero(kind)
	if k.Outputs[0].Init {
		init = g.load(g.find("init", 0), outOff)
	}
	// The total folds into the accumulator in the body's operand order;
	// wide parts round once, here.
	fold1 := combine + "(%s, acc)"
	if g.red.Value != g.red.Combiner.Operands[0] {
		fold1 = combine + "(acc, %s)"
	}
	if g.red.WideParts() {
		fold1 = roundExpr(kind, fold1)
	}
	if g.opts.NoSubgroups {
		// The parts meet pairwise in shared memory.
		fmt.Fprintf(w, "    %[2]s[e0] = p;\n    barrier();\n    for (uint s = %[1]du; s > 0u; s >>= 1) {\n", g.size()/2, part)
		fmt.Fprintf(w, "      if (e0 < s) {\n        %[1]s[e0] = %[2]s(%[1]s[e0], %[1]s[e0 + s]);\n      }\n      barrier();\n    }\n", part, combine)
		fmt.Fprintf(w, "    if (e0 == 0u) {\n      %s acc = %s;\n      acc = %s;\n", kind.value, init, fmt.Sprintf(fold1, part+"[0]"))
		w.WriteString(g.store("      ", out, outOff, "acc"))
		w.WriteString("    }\n    barrier();\n")
		return nil
	}
	fmt.Fprintf(w, "    for (uint o = gl_SubgroupSize >> 1; o > 0u; o >>= 1) {\n      p = %s(p, %s);\n    }\n", combine, shuffleXor(kind, "p", "o"))
	if g.warpRows {
		fmt.Fprintf(w, "    if (gl_SubgroupInvocationID == 0u) {\n      %s acc = %s;\n      acc = %s;\n", kind.value, init, fmt.Sprintf(fold1, "p"))
		w.WriteString(g.store("      ", out, outOff, "acc"))
		w.WriteString("    }\n")
		return nil
	}
	fmt.Fprintf(w, "    if (gl_SubgroupInvocationID == 0u) {\n      %s[gl_SubgroupID] = p;\n    }\n    barrier();\n", part)
	w.WriteString("    if (gl_SubgroupID == 0u) {\n")
	fmt.Fprintf(w, "      %s q = %s;\n", kind.value, id)
	fmt.Fprintf(w, "      for (uint s = gl_SubgroupInvocationID; s < gl_NumSubgroups; s += gl_SubgroupSize) {\n        q = %s(q, %s[s]);\n      }\n", combine, part)
	fmt.Fprintf(w, "      for (uint o = gl_SubgroupSize >> 1; o > 0u; o >>= 1) {\n        q = %s(q, %s);\n      }\n", combine, shuffleXor(kind, "q", "o"))
	fmt.Fprintf(w, "      if (gl_SubgroupInvocationID == 0u) {\n        %s acc = %s;\n        acc = %s;\n", kind.value, init, fmt.Sprintf(fold1, "q"))
	w.WriteString(g.store("        ", out, outOff, "acc"))
	w.WriteString("      }\n    }\n    barrier();\n")
	return nil
}
