package vulkan

import (
	"fmt"
	"math"
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
// shader values. Types narrower than 32 bits are packed into uint words
// (perWord elements each, low bytes first, as the host lays them out),
// because 8- and 16-bit storage are device features the target does not
// assume; they are read with bitfieldExtract and written with atomics on
// their word, since neighbouring elements may belong to other invocations.
type elemKind struct {
	buf     string // element type of the buffer's runtime array
	value   string // GLSL type of values: float, int or bool
	bits    int    // width of the IR type (1 for i1, stored in a byte)
	perWord int    // elements per buffer element: 1, 2 or 4
}

// loopNestKind maps an IR scalar type to its storage and value form, or
// explains which device feature a type would need.
func loopNestKind(t ir.Type) (elemKind, error) {
	switch t := t.(type) {
	case ir.FloatType:
		switch t.Name {
		case "f32":
			return elemKind{buf: "float", value: "float", bits: 32, perWord: 1}, nil
		case "f64":
			return elemKind{}, fmt.Errorf("element type 'f64' needs the Vulkan device feature shaderFloat64 (Float64 capability), which generated vulkan-spirv dispatches do not require of devices; use f32")
		case "f16":
			return elemKind{}, fmt.Errorf("element type 'f16' needs the Vulkan device features shaderFloat16 and storageBuffer16BitAccess (Float16 and StorageBuffer16BitAccess capabilities), which generated vulkan-spirv dispatches do not require of devices; use f32")
		}
	case ir.IntegerType:
		switch t.Width {
		case 32:
			return elemKind{buf: "int", value: "int", bits: 32, perWord: 1}, nil
		case 16:
			return elemKind{buf: "uint", value: "int", bits: 16, perWord: 2}, nil
		case 8:
			return elemKind{buf: "uint", value: "int", bits: 8, perWord: 4}, nil
		case 1:
			return elemKind{buf: "uint", value: "bool", bits: 1, perWord: 4}, nil
		case 64:
			return elemKind{}, fmt.Errorf("element type '%s' needs the Vulkan device feature shaderInt64 (Int64 capability), which generated vulkan-spirv dispatches do not require of devices; use i32", ir.TypeString(t))
		}
	case ir.IndexType:
		// Shader indices are 32-bit, as IREE's SPIR-V path uses them.
		return elemKind{buf: "int", value: "int", bits: 32, perWord: 1}, nil
	}
	return elemKind{}, fmt.Errorf("element type '%s' is not supported by vulkan-spirv code generation (f32, i32, i16, i8, i1 and index are)", ir.TypeString(t))
}

// narrow reports whether values of the kind are integers narrower than 32
// bits, kept sign-extended in an int.
func (k elemKind) narrow() bool { return k.value == "int" && k.bits < 32 }

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
}

// matmulShape is a matmul-shaped kernel and its block layout.
type matmulShape struct {
	*gpuloops.Matmul
	gpuloops.Layout
}

// generateLoopNest returns the compute shader of a loop-nest entry
// function (the loopnest.Attr contract): the parallel loops are spread
// over the LoopNestWorkgroupSize invocations of each workgroup, which owns
// one tile of the first parallel loop, and every invocation runs the
// reduction loops of its output elements in order.
func generateLoopNest(funcs map[string]*ir.Operation, fn *ir.Operation, d *ir.DictAttr, opts GLSLOptions) (string, error) {
	k, err := loopnest.Decode(d)
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
	g := &lnGen{k: k, bindings: k.Bindings(), scalars: map[int]string{}, opts: opts}
	for _, b := range g.bindings {
		kind, err := loopNestKind(b.Type.Elem)
		if err != nil {
			return "", ir.OpErrorf(fn, "%s #%d: %v", roleName(b.Role), b.Index, err)
		}
		g.kinds = append(g.kinds, kind)
	}
	w := &g.w
	w.WriteString("#version 450\n// Generated by goiree's vulkan-spirv target: a linalg loop nest.\n")
	if g.red = reductionOf(k, body); g.red != nil && !opts.NoSubgroups {
		// Shared reductions cross subgroup lanes (GroupNonUniform and
		// GroupNonUniformShuffle capabilities, Vulkan 1.1).
		w.WriteString("#extension GL_KHR_shader_subgroup_basic : require\n#extension GL_KHR_shader_subgroup_shuffle : require\n")
	}
	g.mm = matmulOf(k, opts.Device)
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
		g.warpRows = !opts.NoSubgroups && gpuloops.WarpRows(k, LoopNestWorkgroupSize/32)
		if !g.warpRows {
			// One part per subgroup, however small the subgroups are.
			fmt.Fprintf(w, "shared %s part[%d];\n\n", kind.value, LoopNestWorkgroupSize)
		}
		if err := g.combineFunction(kind); err != nil {
			return "", err
		}
	}
	w.WriteString(mulSatGLSL)
	w.WriteString("void main() {\n")
	if err := g.prologue(); err != nil {
		return "", ir.OpErrorf(fn, "%v", err)
	}
	if err := g.loops(); err != nil {
		return "", ir.OpErrorf(fn, "%v", err)
	}
	w.WriteString("}\n")
	return w.String(), nil
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

// prologue reads the scalar inputs and dynamic sizes from the push
// constants, derives the loop ranges, and returns (writing nothing) when a
// binding is shorter than its shape, two dimensions a loop indexes differ
// or a constant index is outside its dimension: Vulkan has no status for
// one dispatch, so the contract's failure leaves the outputs unwritten.
func (g *lnGen) prologue() error {
	w := &g.w
	for i, o := range g.k.Inputs {
		if o.Scalar == nil {
			continue
		}
		kind, err := loopNestKind(o.Scalar)
		if err != nil {
			return fmt.Errorf("scalar input #%d: %v", i, err)
		}
		c := fmt.Sprintf("pc.c[%d]", g.nconst)
		g.nconst++
		var v string
		switch {
		case kind.value == "float":
			v = "uintBitsToFloat(" + c + ")"
		case kind.value == "bool":
			v = "((" + c + " & 1u) != 0u)"
		case kind.narrow():
			v = fmt.Sprintf("bitfieldExtract(int(%s), 0, %d)", c, kind.bits)
		default:
			v = "int(" + c + ")"
		}
		g.scalars[i] = "s" + strconv.Itoa(i)
		fmt.Fprintf(w, "  %s %s = %s;\n", kind.value, g.scalars[i], v)
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
	k := g.kinds[bi]
	if k.perWord == 1 {
		return fmt.Sprintf("b%d.v[%s]", bi, off)
	}
	shift := log2(k.perWord)
	word := fmt.Sprintf("b%d.v[(%s) >> %du]", bi, off, shift)
	pos := fmt.Sprintf("int(((%s) & %du) * %du)", off, k.perWord-1, 32/k.perWord)
	if k.value == "bool" {
		return fmt.Sprintf("(bitfieldExtract(%s, %s, 8) != 0u)", word, pos)
	}
	return fmt.Sprintf("bitfieldExtract(int(%s), %s, %d)", word, pos, 32/k.perWord)
}

// store writes v to binding bi's element at offset off.
func (g *lnGen) store(indent string, bi int, off, v string) string {
	k := g.kinds[bi]
	if k.perWord == 1 {
		return fmt.Sprintf("%sb%d.v[%s] = %s;\n", indent, bi, off, v)
	}
	bits := 32 / k.perWord
	mask := fmt.Sprintf("0x%xu", uint32(1)<<bits-1)
	val := fmt.Sprintf("(uint(%s) & %s)", v, mask)
	if k.value == "bool" {
		val = fmt.Sprintf("(%s ? 1u : 0u)", v)
	}
	word := fmt.Sprintf("b%d.v[(%s) >> %du]", bi, off, log2(k.perWord))
	shift := fmt.Sprintf("(((%s) & %du) * %du)", off, k.perWord-1, bits)
	return fmt.Sprintf("%[1]satomicAnd(%[2]s, ~(%[3]s << %[4]s));\n%[1]satomicOr(%[2]s, %[5]s << %[4]s);\n", indent, word, mask, shift, val)
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
		fmt.Fprintf(w, "  for (; i < count; i += %du) {\n", LoopNestWorkgroupSize)
	default:
		fmt.Fprintf(w, "  for (uint i = gl_LocalInvocationID.x; i < count; i += %du) {\n", LoopNestWorkgroupSize)
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
		return g.sharedReduction()
	}
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
		fmt.Fprintf(w, "    %s acc%d = %s;\n", kind.value, i, init)
	}
	indent := "    "
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
	fmt.Fprintf(w, "%sbody(%s);\n", indent, strings.Join(args, ", "))
	for range reds {
		indent = indent[2:]
		fmt.Fprintf(w, "%s}\n", indent)
	}
	for i := range k.Outputs {
		w.WriteString(g.store(indent, g.find("out", i), offs[i], "acc"+strconv.Itoa(i)))
	}
	w.WriteString("  }\n")
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
	step := ElementwiseUnroll * LoopNestWorkgroupSize
	last := step - LoopNestWorkgroupSize
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
	fmt.Fprintf(w, "    uint c%d = lo + rest;\n    rest = %du;\n", outer, LoopNestWorkgroupSize)
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
		for l := range k.Ranges {
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
		fmt.Fprintf(w, "      body(%s);\n", strings.Join(e.args, ", "))
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
	sg := &scalarGen{glslGen: glslGen{names: map[*ir.Value]string{}}, helpers: map[string]bool{}}
	defer func() {
		// The math helpers the body calls go before it.
		g.w.WriteString(sg.helperText())
		g.w.WriteString(text.String())
	}()
	blk := body.Body()
	if len(body.Regions[0].Blocks) != 1 {
		return ir.OpErrorf(body, "loop-nest bodies must have a single block")
	}
	var params []string
	for i, a := range blk.Args {
		kind, err := loopNestKind(ft.Inputs[i])
		if err != nil {
			return ir.OpErrorf(body, "argument %d: %v", i, err)
		}
		n := "a" + strconv.Itoa(i)
		sg.names[a] = n
		sg.kinds = append(sg.kinds, kind)
		params = append(params, kind.value+" "+n)
	}
	var rkinds []elemKind
	for i, t := range ft.Results {
		kind, err := loopNestKind(t)
		if err != nil {
			return ir.OpErrorf(body, "result %d: %v", i, err)
		}
		rkinds = append(rkinds, kind)
		params = append(params, fmt.Sprintf("out %s r%d", kind.value, i))
	}
	fmt.Fprintf(w, "void body(%s) {\n", strings.Join(params, ", "))
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
	return nil
}

// scalarGen translates the scalar ops of a loop-nest body. It extends the
// elementwise translation with index values (32-bit ints), index casts
// and integers narrower than 32 bits, which live sign-extended in ints:
// results are re-extended from their width after every op, and unsigned
// ops see their operands zero-extended.
type scalarGen struct {
	glslGen
	kinds []elemKind
	// helpers are the math helper functions the body calls (mathglsl.go).
	helpers map[string]bool
}

var unsignedOperands = map[string]bool{
	"arith.divui": true, "arith.remui": true, "arith.shrui": true, "arith.maxui": true,
	"arith.minui": true, "arith.uitofp": true, "arith.extui": true, "arith.index_castui": true,
}

func (g *scalarGen) op(op *ir.Operation) (string, error) {
	if len(op.Results) != 1 {
		return "", ir.OpErrorf(op, "'%s' is not supported by vulkan-spirv code generation", op.Name)
	}
	rk, err := loopNestKind(arith.ElementType(op.Results[0].Type))
	if err != nil {
		return "", ir.OpErrorf(op, "%v", err)
	}
	if op.Name == "arith.constant" {
		lit, err := constant(op, arith.ElementType(op.Results[0].Type), rk.value)
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
		k, err := loopNestKind(arith.ElementType(v.Type))
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
		if err := arity(op, 1, a); err != nil {
			return "", err
		}
		switch {
		case ak.value == "bool" && rk.value == "int":
			expr = map[bool]string{true: "(%s ? 1 : 0)", false: "(%s ? -1 : 0)"}[op.Name == "arith.extui"]
			expr = fmt.Sprintf(expr, a[0])
		case ak.value == "int" && rk.value == "bool":
			expr = fmt.Sprintf("((%s & 1) != 0)", a[0])
		case ak.value == "int" && rk.value == "int":
			expr = a[0]
		default:
			return "", ir.OpErrorf(op, "'%s' from %s to %s is not supported by vulkan-spirv code generation", op.Name, ir.TypeString(op.Operands[0].Type), ir.TypeString(op.Results[0].Type))
		}
	default:
		if e, ok, err := g.mathOp(op, rk, ak, a); ok || err != nil {
			if err != nil {
				return "", err
			}
			expr = e
			break
		}
		// Wrapping int arithmetic agrees with every narrower width up to
		// the re-extension below.
		expr, err = expression(op, rk.value, ak.value, a)
		if err != nil {
			return "", err
		}
	}
	if rk.narrow() {
		expr = fmt.Sprintf("bitfieldExtract(int(%s), 0, %d)", expr, rk.bits)
	}
	return fmt.Sprintf("%s %s = %s;", rk.value, g.define(op.Results[0]), expr), nil
}

func isUnsignedCmp(op *ir.Operation) bool {
	n, _ := op.IntAttr("predicate")
	return n >= 0 && int(n) < len(arith.CmpIPredicates) && arith.CmpIPredicates[n][0] == 'u'
}

// reductionOf is gpuloops.ReductionOf for outputs held one element per
// buffer word (f32, i32, index), whose parts live in shared memory and
// cross subgroup lanes as values of that type.
func reductionOf(k *loopnest.Kernel, body *ir.Operation) *gpuloops.Reduction {
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
	if kind.value == "float" {
		return fmt.Sprintf("uintBitsToFloat(0x%08xu)", math.Float32bits(float32(f)))
	}
	return fmt.Sprintf("int(0x%08xu)", uint32(i))
}

// combineFunction writes combine(a, b), the reduction's combiner alone
// with a and b in the places of its operands.
func (g *lnGen) combineFunction(kind elemKind) error {
	c := g.red.Combiner
	sg := &scalarGen{glslGen: glslGen{names: map[*ir.Value]string{c.Operands[0]: "a", c.Operands[1]: "b"}}, helpers: map[string]bool{}}
	line, err := sg.op(c)
	if err != nil {
		return err
	}
	if len(sg.helpers) > 0 {
		return ir.OpErrorf(c, "the combiner '%s' needs helper functions", c.Name)
	}
	fmt.Fprintf(&g.w, "%[1]s combine(%[1]s a, %[1]s b) {\n  %[2]s\n  return %[3]s;\n}\n\n", kind.value, line, sg.names[c.Results[0]])
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
// like.
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
			calls[c] = fmt.Sprintf("%sbody(%s, p, p);\n", indent, strings.Join(as, ", "))
		}
		for _, c := range calls {
			w.WriteString(c)
		}
		return nil
	}
	n := g.ranges[r]
	// The invocations sharing the row: the workgroup, or the subgroup.
	lane, stride := "gl_LocalInvocationID.x", fmt.Sprintf("%du", LoopNestWorkgroupSize)
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
	// The total folds into the accumulator in the body's operand order.
	fold1 := "combine(%s, acc)"
	if g.red.Value != g.red.Combiner.Operands[0] {
		fold1 = "combine(acc, %s)"
	}
	if g.opts.NoSubgroups {
		// The parts meet pairwise in shared memory.
		fmt.Fprintf(w, "    part[e0] = p;\n    barrier();\n    for (uint s = %du; s > 0u; s >>= 1) {\n", LoopNestWorkgroupSize/2)
		w.WriteString("      if (e0 < s) {\n        part[e0] = combine(part[e0], part[e0 + s]);\n      }\n      barrier();\n    }\n")
		fmt.Fprintf(w, "    if (e0 == 0u) {\n      %s acc = %s;\n      acc = %s;\n", kind.value, init, fmt.Sprintf(fold1, "part[0]"))
		w.WriteString(g.store("      ", out, outOff, "acc"))
		w.WriteString("    }\n    barrier();\n  }\n")
		return nil
	}
	w.WriteString("    for (uint o = gl_SubgroupSize >> 1; o > 0u; o >>= 1) {\n      p = combine(p, subgroupShuffleXor(p, o));\n    }\n")
	if g.warpRows {
		fmt.Fprintf(w, "    if (gl_SubgroupInvocationID == 0u) {\n      %s acc = %s;\n      acc = %s;\n", kind.value, init, fmt.Sprintf(fold1, "p"))
		w.WriteString(g.store("      ", out, outOff, "acc"))
		w.WriteString("    }\n  }\n")
		return nil
	}
	w.WriteString("    if (gl_SubgroupInvocationID == 0u) {\n      part[gl_SubgroupID] = p;\n    }\n    barrier();\n")
	w.WriteString("    if (gl_SubgroupID == 0u) {\n")
	fmt.Fprintf(w, "      %s q = %s;\n", kind.value, id)
	w.WriteString("      for (uint s = gl_SubgroupInvocationID; s < gl_NumSubgroups; s += gl_SubgroupSize) {\n        q = combine(q, part[s]);\n      }\n")
	w.WriteString("      for (uint o = gl_SubgroupSize >> 1; o > 0u; o >>= 1) {\n        q = combine(q, subgroupShuffleXor(q, o));\n      }\n")
	fmt.Fprintf(w, "      if (gl_SubgroupInvocationID == 0u) {\n        %s acc = %s;\n        acc = %s;\n", kind.value, init, fmt.Sprintf(fold1, "q"))
	w.WriteString(g.store("        ", out, outOff, "acc"))
	w.WriteString("      }\n    }\n    barrier();\n  }\n")
	return nil
}
