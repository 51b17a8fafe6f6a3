package llvmcpu

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// ElementwiseAttr marks a compiler-generated elementwise entry function;
// the contract (elementwise.Attr) is defined by package elementwise.
const ElementwiseAttr = elementwise.Attr

// DefaultTileSize is the tile of an elementwise entry that names none.
const DefaultTileSize = elementwise.DefaultTileSize

// Export describes one entry point of a generated library.
type Export struct {
	Name          string
	Ordinal       int
	ConstantCount int
	BindingCount  int
	WorkgroupSize [3]uint32
	// LocalMemoryPages is the per-workgroup scratch memory the entry
	// needs, in 4 KiB pages.
	LocalMemoryPages int
	// config is the configuration a generated entry records in
	// ConfigSection (config.go); nil for a hand-written shim.
	config *entryConfig
}

// Library is the C translation of one executable variant.
type Library struct {
	// Name is used in the library header and in file names.
	Name string
	// Source is the self-contained C text.
	Source string
	// Exports are the entry points in ordinal order.
	Exports []Export
	// StaticImports are the external symbols the shims call, sorted.
	StaticImports []string
	// Imports are the library's import table, sorted: the functions
	// declared without hal.import.static, which the runtime resolves
	// against the loaded executable plugins when it creates the
	// executable. Their index is the import ordinal.
	Imports []string
}

// memref is the C view of a memref SSA value: a descriptor variable of a
// struct with base, aligned, offset, sizes and strides.
type memref struct {
	elem ir.Type
	rank int
}

type cgen struct {
	lib      *Library
	helpers  map[string]bool
	structs  map[string]memref
	externs  map[string]string // symbol -> prototype
	body     strings.Builder
	module   *ir.Operation
	funcs    map[string]*ir.Operation
	staticFn map[string]bool
	// imports maps an import's name to the C identifier of its ordinal
	// constant, emitted by assemble once all imports are known.
	imports map[string]string
	// importCalls counts dynamic import calls, for unique local names.
	importCalls int
	// localPages is the local memory (4 KiB pages) each entry function
	// needs per workgroup, by C name.
	localPages map[string]int
}

// GenerateC translates a llvm-cpu hal.executable.variant (with its
// builtin.module of shim functions and generated elementwise kernels) into
// a self-contained C library implementing the runtime's CPU executable ABI.
func GenerateC(variant *ir.Operation) (*Library, error) {
	if variant == nil || variant.Name != "hal.executable.variant" {
		return nil, fmt.Errorf("llvm-cpu codegen expects a hal.executable.variant")
	}
	mod := hal.InnerModule(variant)
	if mod == nil {
		return nil, ir.OpErrorf(variant, "llvm-cpu variant has no builtin.module; external CPU variants are not supported (put the shims that call the object's functions in a builtin.module)")
	}
	name := variant.SymName()
	if exe := variant.ParentOp(); exe != nil && exe.SymName() != "" {
		name = exe.SymName() + "_" + name
	}
	g := &cgen{
		lib:        &Library{Name: name},
		helpers:    map[string]bool{},
		structs:    map[string]memref{},
		externs:    map[string]string{},
		module:     mod,
		funcs:      map[string]*ir.Operation{},
		staticFn:   map[string]bool{},
		imports:    map[string]string{},
		localPages: map[string]int{},
	}
	for _, o := range mod.Body().Ops {
		if o.Name == "func.func" {
			g.funcs[o.SymName()] = o
		}
	}
	var exports []*ir.Operation
	for _, o := range variant.Body().Ops {
		if o.Name == "hal.executable.export" {
			exports = append(exports, o)
		}
	}
	if len(exports) == 0 {
		return nil, ir.OpErrorf(variant, "variant has no hal.executable.export")
	}
	ordinals := map[int]bool{}
	for i, ex := range exports {
		ord := i
		if n, ok := ex.IntAttr("ordinal"); ok {
			ord = int(n)
		}
		if ord < 0 || ord >= len(exports) || ordinals[ord] {
			return nil, ir.OpErrorf(ex, "export ordinals must be dense and unique in [0, %d); found %d", len(exports), ord)
		}
		ordinals[ord] = true
		fn := g.funcs[ex.SymName()]
		if fn == nil || fn.Body() == nil {
			return nil, ir.OpErrorf(ex, "export @%s has no function @%s with a body in the variant's builtin.module", ex.SymName(), ex.SymName())
		}
		e, err := g.entry(ex, fn, ord)
		if err != nil {
			return nil, err
		}
		g.lib.Exports = append(g.lib.Exports, e)
	}
	sort.Slice(g.lib.Exports, func(i, j int) bool { return g.lib.Exports[i].Ordinal < g.lib.Exports[j].Ordinal })
	g.lib.Source = g.assemble()
	return g.lib, nil
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func (g *cgen) memrefStruct(t *ir.MemRefType) (string, memref, error) {
	if t.Unranked {
		return "", memref{}, fmt.Errorf("unranked memrefs are not supported")
	}
	if _, err := cType(t.Elem); err != nil {
		return "", memref{}, err
	}
	m := memref{elem: t.Elem, rank: len(t.Shape)}
	n := "gi_memref_" + sanitize(ir.TypeString(t.Elem)) + "_" + strconv.Itoa(m.rank)
	g.structs[n] = m
	return n, m, nil
}

// exportLayoutCounts returns the constant and binding counts of an export.
func exportLayoutCounts(ex *ir.Operation) (int, int, *hal.PipelineLayoutAttr) {
	l := hal.ExportLayout(ex)
	if l == nil {
		return -1, -1, nil
	}
	return int(l.ConstantCount()), len(l.AllBindings()), l
}

func workgroupSize(ex *ir.Operation) [3]uint32 {
	var ws [3]uint32
	if arr, ok := ex.Attr("workgroup_size").(*ir.ArrayAttr); ok {
		for i, e := range arr.Elems {
			if i < 3 {
				if v, ok := e.(ir.IntegerAttr); ok && v.Value > 0 {
					ws[i] = uint32(v.Value)
				}
			}
		}
	}
	return ws
}

// bindingIndex maps a subspan's (set, binding) to its position in the
// dispatch state's dense binding list: the rank of the pair among the
// layout's bindings sorted by (set, binding).
func bindingIndex(op *ir.Operation, layout *hal.PipelineLayoutAttr) (int, error) {
	b, _ := op.IntAttr("binding")
	if l, ok := op.Attr("layout").(*hal.PipelineLayoutAttr); ok && !l.SeedForm {
		if int(b) >= len(l.Bindings) || b < 0 {
			return 0, ir.OpErrorf(op, "binding(%d) is outside the layout's %d bindings", b, len(l.Bindings))
		}
		return int(b), nil
	}
	set, _ := op.IntAttr("set")
	if l, ok := op.Attr("layout").(*hal.PipelineLayoutAttr); ok {
		layout = l
	}
	if layout == nil {
		return int(b), nil
	}
	type key struct{ s, b int64 }
	var keys []key
	for _, sb := range layout.AllBindings() {
		keys = append(keys, key{sb.Set, sb.Binding.Ordinal})
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].s != keys[j].s {
			return keys[i].s < keys[j].s
		}
		return keys[i].b < keys[j].b
	})
	for i, k := range keys {
		if k.s == set && k.b == b {
			return i, nil
		}
	}
	return 0, ir.OpErrorf(op, "set(%d) binding(%d) is not declared in the export's layout", set, b)
}

// entry emits the C function of one export.
func (g *cgen) entry(ex, fn *ir.Operation, ordinal int) (Export, error) {
	consts, bindings, layout := exportLayoutCounts(ex)
	e := Export{Name: ex.SymName(), Ordinal: ordinal, ConstantCount: consts, BindingCount: bindings, WorkgroupSize: workgroupSize(ex)}
	e.config = g.kernelConfig(fn, e.WorkgroupSize)
	cname := "gi_entry_" + sanitize(e.Name)
	if d, ok := fn.Attr(ElementwiseAttr).(*ir.DictAttr); ok {
		nc, nb, err := g.elementwise(fn, d, cname)
		if err != nil {
			return e, err
		}
		if e.ConstantCount < 0 {
			e.ConstantCount, e.BindingCount = nc, nb
		}
		return e, nil
	}
	if d, ok := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr); ok {
		nc, nb, err := g.loopGroup(fn, d, cname)
		if err != nil {
			return e, err
		}
		if e.ConstantCount < 0 {
			e.ConstantCount, e.BindingCount = nc, nb
		} else if e.ConstantCount != nc || e.BindingCount != nb {
			return e, ir.OpErrorf(ex, "layout has %d bindings and %d constants; the row group needs %d and %d", e.BindingCount, e.ConstantCount, nb, nc)
		}
		return e, nil
	}
	if d, ok := fn.Attr(loopnest.Attr).(*ir.DictAttr); ok {
		nc, nb, err := g.loopNest(fn, d, cname)
		if err != nil {
			return e, err
		}
		e.LocalMemoryPages = g.localPages[cname]
		if e.ConstantCount < 0 {
			e.ConstantCount, e.BindingCount = nc, nb
		}
		return e, nil
	}
	w := &g.body
	fmt.Fprintf(w, "static int %s(const gi_environment_t* env, const gi_dispatch_state_t* ds, const gi_workgroup_state_t* ws) {\n", cname)
	w.WriteString("  (void)env; (void)ds; (void)ws;\n")
	next := 0
	s := &scalarEmitter{out: w, names: map[*ir.Value]string{}, next: &next, helpers: g.helpers, indent: "  "}
	mem := map[*ir.Value]memref{}
	// Stream-style entry functions take !stream.binding and primitive
	// arguments: bindings in order, primitives from the constants in order.
	nb, nc := 0, 0
	for _, a := range fn.Body().Args {
		switch t := a.Type.(type) {
		case *ir.DialectType:
			if t.Name != "stream.binding" {
				return e, ir.OpErrorf(fn, "entry argument of type '%s' is not supported", ir.TypeString(a.Type))
			}
			n := s.define(a)
			fmt.Fprintf(w, "  char* %s = (char*)ds->binding_ptrs[%d];\n", n, nb)
			nb++
		default:
			if !ir.IsPrimitive(a.Type) {
				return e, ir.OpErrorf(fn, "entry argument of type '%s' is not supported", ir.TypeString(a.Type))
			}
			ct, err := cType(a.Type)
			if err != nil {
				return e, ir.OpErrorf(fn, "%v", err)
			}
			n := s.define(a)
			fmt.Fprintf(w, "  const %s %s = %s;\n", ct, n, fromConstant(a.Type, "ds->constants["+strconv.Itoa(nc)+"]"))
			nc++
		}
	}
	if len(fn.Body().Args) > 0 && e.ConstantCount < 0 {
		e.ConstantCount, e.BindingCount = nc, nb
	}
	if len(fn.Regions[0].Blocks) != 1 {
		return e, ir.OpErrorf(fn, "entry functions must have a single block")
	}
	for _, op := range fn.Body().Ops {
		if err := g.op(s, mem, op, layout); err != nil {
			return e, err
		}
	}
	w.WriteString("}\n\n")
	return e, nil
}

// fromConstant converts a 32-bit dispatch constant to a scalar type.
func fromConstant(t ir.Type, c string) string {
	switch t := t.(type) {
	case ir.FloatType:
		if t.Name == "f32" {
			return "({ float gi_f; uint32_t gi_u = " + c + "; __builtin_memcpy(&gi_f, &gi_u, 4); gi_f; })"
		}
	case ir.IndexType:
		return "(int64_t)(uint64_t)" + c
	}
	return "(" + mustCType(t) + ")" + c
}

func (g *cgen) op(s *scalarEmitter, mem map[*ir.Value]memref, op *ir.Operation, layout *hal.PipelineLayoutAttr) error {
	if ok, err := s.emit(op); ok {
		return err
	}
	w := s.out
	switch op.Name {
	case "func.return":
		w.WriteString("  return 0;\n")
		return nil
	case "hal.interface.constant.load":
		if len(op.Results) != 1 {
			return ir.OpErrorf(op, "expects one result")
		}
		ct, err := cType(op.Results[0].Type)
		if err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		idx := hal.ConstantOrdinal(op)
		fmt.Fprintf(w, "  const %s %s = %s;\n", ct, s.define(op.Results[0]), fromConstant(op.Results[0].Type, "ds->constants["+strconv.FormatInt(idx, 10)+"]"))
		return nil
	case "hal.interface.workgroup.id", "hal.interface.workgroup.count", "hal.interface.workgroup.size",
		"flow.dispatch.workgroup.id", "flow.dispatch.workgroup.count", "flow.dispatch.workgroup.size",
		"stream.dispatch.workgroup.id", "stream.dispatch.workgroup.count", "stream.dispatch.workgroup.size":
		d, _ := op.IntAttr("dimension")
		if d < 0 || d > 2 || len(op.Results) != 1 {
			return ir.OpErrorf(op, "dimension %d out of range [0, 2]", d)
		}
		axis := "xyz"[d : d+1]
		var src string
		switch op.Name[strings.LastIndexByte(op.Name, '.')+1:] {
		case "id":
			src = "ws->workgroup_id_" + axis
		case "count":
			src = "ds->workgroup_count_" + axis
		default:
			src = "ds->workgroup_size_" + axis
		}
		fmt.Fprintf(w, "  const int64_t %s = (int64_t)%s;\n", s.define(op.Results[0]), src)
		return nil
	case "hal.interface.binding.subspan", "stream.binding.subspan":
		return g.subspan(s, mem, op, layout)
	case "iree_codegen.extract_strided_metadata":
		return g.extractMetadata(s, mem, op)
	case "func.call":
		return g.call(s, mem, op)
	}
	return ir.OpErrorf(op, "'%s' is not supported in llvm-cpu dispatch functions", op.Name)
}

func (g *cgen) subspan(s *scalarEmitter, mem map[*ir.Value]memref, op *ir.Operation, layout *hal.PipelineLayoutAttr) error {
	if len(op.Results) != 1 {
		return ir.OpErrorf(op, "expects one result")
	}
	mt, ok := op.Results[0].Type.(*ir.MemRefType)
	if !ok {
		return ir.OpErrorf(op, "llvm-cpu codegen needs subspans of memref type, found '%s'", ir.TypeString(op.Results[0].Type))
	}
	st, m, err := g.memrefStruct(mt)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	var base, offset string
	var dims []*ir.Value
	if op.Name == "stream.binding.subspan" {
		if len(op.Operands) < 2 {
			return ir.OpErrorf(op, "expects a binding and an offset")
		}
		b, err := s.name(op.Operands[0])
		if err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		off, err := s.name(op.Operands[1])
		if err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		base, offset = b, off
		dims = op.Operands[2:]
	} else {
		idx, err := bindingIndex(op, layout)
		if err != nil {
			return err
		}
		base = "((char*)ds->binding_ptrs[" + strconv.Itoa(idx) + "])"
		offset = "0"
		segs := ir.SegmentSizes(op)
		nOff := 0
		if len(segs) == 2 {
			nOff = int(segs[0])
		}
		if nOff == 1 {
			if offset, err = s.name(op.Operands[0]); err != nil {
				return ir.OpErrorf(op, "%v", err)
			}
		}
		dims = op.Operands[nOff:]
	}
	et, _ := storageType(mt.Elem)
	n := s.define(op.Results[0])
	mem[op.Results[0]] = m
	fmt.Fprintf(s.out, "  %s %s;\n", st, n)
	fmt.Fprintf(s.out, "  %s.base = %s.aligned = (%s*)(%s + %s);\n  %s.offset = 0;\n", n, n, et, base, offset, n)
	di := 0
	for i, d := range mt.Shape {
		if d == ir.Dynamic {
			if di >= len(dims) {
				return ir.OpErrorf(op, "missing dynamic dimension %d", i)
			}
			dn, err := s.name(dims[di])
			if err != nil {
				return ir.OpErrorf(op, "%v", err)
			}
			di++
			fmt.Fprintf(s.out, "  %s.sizes[%d] = (int64_t)%s;\n", n, i, dn)
		} else {
			fmt.Fprintf(s.out, "  %s.sizes[%d] = %dLL;\n", n, i, d)
		}
	}
	for i := m.rank - 1; i >= 0; i-- {
		if i == m.rank-1 {
			fmt.Fprintf(s.out, "  %s.strides[%d] = 1;\n", n, i)
		} else {
			fmt.Fprintf(s.out, "  %s.strides[%d] = %s.strides[%d] * %s.sizes[%d];\n", n, i, n, i+1, n, i+1)
		}
	}
	return nil
}

func (g *cgen) extractMetadata(s *scalarEmitter, mem map[*ir.Value]memref, op *ir.Operation) error {
	if len(op.Operands) != 1 || len(op.Results) < 2 {
		return ir.OpErrorf(op, "expects one memref operand and at least two results")
	}
	src, err := s.name(op.Operands[0])
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	m, ok := mem[op.Operands[0]]
	if !ok {
		return ir.OpErrorf(op, "operand is not a memref")
	}
	if len(op.Results) != 2+2*m.rank {
		return ir.OpErrorf(op, "expected %d results for a rank-%d memref, found %d", 2+2*m.rank, m.rank, len(op.Results))
	}
	bt, ok := op.Results[0].Type.(*ir.MemRefType)
	if !ok {
		return ir.OpErrorf(op, "first result must be a memref")
	}
	st, bm, err := g.memrefStruct(bt)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	n := s.define(op.Results[0])
	mem[op.Results[0]] = bm
	fmt.Fprintf(s.out, "  %s %s;\n  %s.base = %s.base;\n  %s.aligned = %s.aligned;\n  %s.offset = 0;\n", st, n, n, src, n, src, n)
	fmt.Fprintf(s.out, "  const int64_t %s = %s.offset;\n", s.define(op.Results[1]), src)
	for i := 0; i < m.rank; i++ {
		fmt.Fprintf(s.out, "  const int64_t %s = %s.sizes[%d];\n", s.define(op.Results[2+i]), src, i)
	}
	for i := 0; i < m.rank; i++ {
		fmt.Fprintf(s.out, "  const int64_t %s = %s.strides[%d];\n", s.define(op.Results[2+m.rank+i]), src, i)
	}
	return nil
}

// call emits a call to a hal.import.static extern, expanding memref
// arguments by MLIR's calling convention: (base, aligned, offset, sizes...,
// strides...) per memref, or one pointer with llvm.bareptr.
func (g *cgen) call(s *scalarEmitter, mem map[*ir.Value]memref, op *ir.Operation) error {
	ref, ok := op.Attr("callee").(ir.SymbolRefAttr)
	if !ok {
		return ir.OpErrorf(op, "call has no callee")
	}
	callee := g.funcs[ref.Root]
	if callee == nil {
		return ir.OpErrorf(op, "callee @%s is not declared in the variant's module", ref.Root)
	}
	if callee.Body() != nil && len(callee.Body().Ops) > 0 {
		return ir.OpErrorf(op, "calls to functions defined in the variant (@%s) are not supported; only hal.import.static externs can be called", ref.Root)
	}
	if callee.HasAttr("hal.import.bitcode") {
		// IREE links such functions from LLVM bitcode objects; this back
		// end compiles C and links ELF objects, and treating the function
		// as a run-time import would only fail later.
		return ir.OpErrorf(op, "@%s has hal.import.bitcode: bitcode imports are not supported by the llvm-cpu back end (declare it hal.import.static with an ELF object, or without either to import it from an executable plugin)", ref.Root)
	}
	dynamic := !callee.HasAttr("hal.import.static")
	bare := false
	if b, ok := callee.Attr("llvm.bareptr").(ir.BoolAttr); ok && b.Value {
		bare = true
	} else if _, ok := callee.Attr("llvm.bareptr").(ir.UnitAttr); ok {
		bare = true
	} else if a, ok := callee.Attr("llvm.bareptr").(*ir.ArrayAttr); ok && len(a.Elems) > 0 {
		// [true], as IREE's rewriteAsFlowDispatch writes it.
		bare = true
		for _, e := range a.Elems {
			if b, ok := e.(ir.BoolAttr); !ok || !b.Value {
				bare = false
			}
		}
	}
	ft := function.Type(callee)
	if ft == nil {
		return ir.OpErrorf(op, "callee @%s has no function type", ref.Root)
	}
	if len(ft.Inputs) != len(op.Operands) {
		return ir.OpErrorf(op, "call passes %d arguments but @%s takes %d", len(op.Operands), ref.Root, len(ft.Inputs))
	}
	if !dynamic && callee.HasAttr("hal.import.fields") {
		return ir.OpErrorf(op, "@%s has hal.import.fields, which only imports resolved at run time (declared without hal.import.static) can receive", ref.Root)
	}
	var params, args []string
	for i, v := range op.Operands {
		n, err := s.name(v)
		if err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		if mt, ok := ft.Inputs[i].(*ir.MemRefType); ok {
			et, err := storageType(mt.Elem)
			if err != nil {
				return ir.OpErrorf(op, "%v", err)
			}
			if _, ok := mem[v]; !ok {
				return ir.OpErrorf(op, "argument %d is not a memref value", i)
			}
			if bare {
				params = append(params, et+"*")
				args = append(args, n+".aligned")
				continue
			}
			params = append(params, et+"*", et+"*", "int64_t")
			args = append(args, n+".base", n+".aligned", n+".offset")
			for d := 0; d < len(mt.Shape); d++ {
				params = append(params, "int64_t")
				args = append(args, n+".sizes["+strconv.Itoa(d)+"]")
			}
			for d := 0; d < len(mt.Shape); d++ {
				params = append(params, "int64_t")
				args = append(args, n+".strides["+strconv.Itoa(d)+"]")
			}
			continue
		}
		if halfKind(ft.Inputs[i]) != "" {
			return ir.OpErrorf(op, "argument %d: %s scalars cannot be passed to external functions (pass them in a memref)", i, ir.TypeString(ft.Inputs[i]))
		}
		ct, err := cType(ft.Inputs[i])
		if err != nil {
			return ir.OpErrorf(op, "argument %d: %v", i, err)
		}
		params = append(params, ct)
		args = append(args, n)
	}
	if dynamic {
		return g.importCall(s, op, callee, ref.Root, ft, params, args)
	}
	ret := "void"
	if len(ft.Results) > 1 {
		return ir.OpErrorf(op, "imports with more than one result are not supported")
	}
	if len(ft.Results) == 1 {
		var err error
		if ret, err = cType(ft.Results[0]); err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
	}
	if len(params) == 0 {
		params = []string{"void"}
	}
	proto := fmt.Sprintf("extern %s %s(%s) __attribute__((visibility(\"hidden\")));", ret, ref.Root, strings.Join(params, ", "))
	if old, ok := g.externs[ref.Root]; ok && old != proto {
		return ir.OpErrorf(op, "@%s is called with two different C signatures", ref.Root)
	}
	g.externs[ref.Root] = proto
	callExpr := fmt.Sprintf("%s(%s)", ref.Root, strings.Join(args, ", "))
	if len(op.Results) == 1 {
		fmt.Fprintf(s.out, "  const %s %s = %s;\n", ret, s.define(op.Results[0]), callExpr)
	} else {
		fmt.Fprintf(s.out, "  %s;\n", callExpr)
	}
	return nil
}

// importFields are the values hal.import.fields may append to an import's
// parameters: their C types and how the entry function reads them.
var importFields = map[string][2]string{
	"processor_id":   {"uint32_t", "ws->processor_id"},
	"processor_data": {"const uint64_t*", "env->processor.data"},
}

// importCall emits a call of a function resolved at run time (declared
// without hal.import.static) through the environment's import table, as
// IREE's CPU backend does: the results, the arguments (already expanded to
// C values in params/args) and the fields named by hal.import.fields are
// packed, in that order, into a struct with natural C alignment whose
// address is passed to `int fn(void* params, void* context, void*
// reserved)` through the import thunk. A non-zero result ends the
// workgroup with that status; the results are read back from the struct.
func (g *cgen) importCall(s *scalarEmitter, op, callee *ir.Operation, symbol string, ft *ir.FunctionType, params, args []string) error {
	name := symbol
	if n, ok := callee.Attr("hal.import.name").(ir.StringAttr); ok {
		name = n.Value
	}
	if name == "" {
		return ir.OpErrorf(op, "@%s: hal.import.name must not be empty", symbol)
	}
	if strings.HasPrefix(name, "?") {
		// An optional import may resolve to NULL, and there is no defined
		// behaviour for calling one that did (IREE does not implement it
		// either); only the runtime's import tables accept them.
		return ir.OpErrorf(op, "@%s: optional imports (hal.import.name %q) cannot be called", symbol, name)
	}
	var resultTypes []string
	for i, t := range ft.Results {
		ct, err := cType(t)
		if err != nil {
			return ir.OpErrorf(op, "result %d of @%s: %v", i, symbol, err)
		}
		resultTypes = append(resultTypes, ct)
	}
	if len(op.Results) != len(resultTypes) {
		return ir.OpErrorf(op, "call has %d results but @%s returns %d", len(op.Results), symbol, len(resultTypes))
	}
	var fieldTypes, fieldValues []string
	if f := callee.Attr("hal.import.fields"); f != nil {
		arr, ok := f.(*ir.ArrayAttr)
		if !ok {
			return ir.OpErrorf(op, "@%s: hal.import.fields must be an array of strings", symbol)
		}
		for _, e := range arr.Elems {
			sa, ok := e.(ir.StringAttr)
			if !ok {
				return ir.OpErrorf(op, "@%s: hal.import.fields must be an array of strings, found %s", symbol, ir.AttrString(e))
			}
			fv, ok := importFields[sa.Value]
			if !ok {
				return ir.OpErrorf(op, "@%s: unknown hal.import.fields entry %q (known: \"processor_data\", \"processor_id\")", symbol, sa.Value)
			}
			fieldTypes = append(fieldTypes, fv[0])
			fieldValues = append(fieldValues, fv[1])
		}
	}
	ord, ok := g.imports[name]
	if !ok {
		ord = "GI_IMPORT_" + strconv.Itoa(len(g.imports))
		g.imports[name] = ord
	}
	g.importCalls++
	id := strconv.Itoa(g.importCalls)
	w := s.out
	fmt.Fprintf(w, "  struct {")
	for i, t := range resultTypes {
		fmt.Fprintf(w, " %s r%d;", t, i)
	}
	for i, t := range params {
		fmt.Fprintf(w, " %s a%d;", t, i)
	}
	for i, t := range fieldTypes {
		fmt.Fprintf(w, " %s f%d;", t, i)
	}
	if len(resultTypes)+len(params)+len(fieldTypes) == 0 {
		w.WriteString(" char unused;")
	}
	fmt.Fprintf(w, " } gi_params%s = {", id)
	var inits []string
	for i, a := range args {
		inits = append(inits, fmt.Sprintf(".a%d = %s", i, a))
	}
	for i, v := range fieldValues {
		inits = append(inits, fmt.Sprintf(".f%d = %s", i, v))
	}
	if len(inits) == 0 {
		w.WriteString("0};\n")
	} else {
		fmt.Fprintf(w, "%s};\n", strings.Join(inits, ", "))
	}
	fmt.Fprintf(w, "  const int gi_status%s = ((gi_import_thunk_t)env->import_thunk)(((const gi_import_fn_t*)env->import_funcs)[%s], &gi_params%s, (void*)env->import_contexts[%s], (void*)0);\n", id, ord, id, ord)
	fmt.Fprintf(w, "  if (gi_status%s != 0) return gi_status%s;\n", id, id)
	for i, r := range op.Results {
		fmt.Fprintf(w, "  const %s %s = gi_params%s.r%d;\n", resultTypes[i], s.define(r), id, i)
	}
	return nil
}

// elementwise emits a generated elementwise kernel and its scalar body.
func (g *cgen) elementwise(fn *ir.Operation, d *ir.DictAttr, cname string) (int, int, error) {
	ref, ok := d.Get("body").(ir.SymbolRefAttr)
	if !ok {
		return 0, 0, ir.OpErrorf(fn, "%s needs a body symbol", ElementwiseAttr)
	}
	tile := int64(DefaultTileSize)
	if t, ok := d.Get("tile_size").(ir.IntegerAttr); ok && t.Value > 0 {
		tile = t.Value
	}
	body := g.funcs[ref.Root]
	if body == nil || body.Body() == nil {
		return 0, 0, ir.OpErrorf(fn, "elementwise body @%s is not defined in the module", ref.Root)
	}
	ft := function.Type(body)
	if ft == nil || len(ft.Results) == 0 {
		return 0, 0, ir.OpErrorf(body, "elementwise body must return at least one value")
	}
	bname := "gi_body_" + sanitize(ref.Root)
	if !g.staticFn[bname] {
		g.staticFn[bname] = true
		if err := g.scalarFunc(body, bname, ft); err != nil {
			return 0, 0, err
		}
	}
	w := &g.body
	fmt.Fprintf(w, "static int %s(const gi_environment_t* env, const gi_dispatch_state_t* ds, const gi_workgroup_state_t* ws) {\n", cname)
	w.WriteString("  (void)env;\n  uint64_t n = ds->constants[0];\n")
	nb := 0
	for i, t := range ft.Inputs {
		ct, err := storageType(t)
		if err != nil {
			return 0, 0, ir.OpErrorf(body, "%v", err)
		}
		fmt.Fprintf(w, "  const %s* restrict in%d = (const %s*)ds->binding_ptrs[%d];\n", ct, i, ct, nb)
		fmt.Fprintf(w, "  if (ds->binding_lengths[%d] / sizeof(%s) < n) n = ds->binding_lengths[%d] / sizeof(%s);\n", nb, ct, nb, ct)
		nb++
	}
	for i, t := range ft.Results {
		ct, err := storageType(t)
		if err != nil {
			return 0, 0, ir.OpErrorf(body, "%v", err)
		}
		fmt.Fprintf(w, "  %s* restrict out%d = (%s*)ds->binding_ptrs[%d];\n", ct, i, ct, nb)
		fmt.Fprintf(w, "  if (ds->binding_lengths[%d] / sizeof(%s) < n) n = ds->binding_lengths[%d] / sizeof(%s);\n", nb, ct, nb, ct)
		nb++
	}
	fmt.Fprintf(w, "  uint64_t begin = (uint64_t)ws->workgroup_id_x * %dull;\n  uint64_t end = begin + %dull;\n  if (end > n) end = n;\n", tile, tile)
	w.WriteString("  for (uint64_t i = begin; i < end; ++i) {\n")
	var call, pre, post []string
	for i, t := range ft.Inputs {
		call = append(call, loadValue(g.helpers, t, "in"+strconv.Itoa(i)+"[i]"))
	}
	for i, t := range ft.Results {
		if halfKind(t) == "" {
			call = append(call, "&out"+strconv.Itoa(i)+"[i]")
			continue
		}
		// f16/bf16 results come back as floats and are stored as bits.
		pre = append(pre, fmt.Sprintf("    float r%d;\n", i))
		call = append(call, "&r"+strconv.Itoa(i))
		post = append(post, fmt.Sprintf("    out%d[i] = %s;\n", i, storeValue(g.helpers, t, "r"+strconv.Itoa(i))))
	}
	fmt.Fprintf(w, "%s    %s(%s);\n%s  }\n  return 0;\n}\n\n", strings.Join(pre, ""), bname, strings.Join(call, ", "), strings.Join(post, ""))
	return 1, nb, nil
}

// scalarFunc emits a static inline C function for a scalar body function;
// results are written through pointers.
func (g *cgen) scalarFunc(fn *ir.Operation, cname string, ft *ir.FunctionType) error {
	var hdr strings.Builder
	next := 0
	s := &scalarEmitter{out: &hdr, names: map[*ir.Value]string{}, next: &next, helpers: g.helpers, indent: "  "}
	var params []string
	for _, a := range fn.Body().Args {
		if tt, ok := a.Type.(*ir.TensorType); ok {
			// An indexed input of a loop nest: the binding's elements.
			st, err := storageType(tt.Elem)
			if err != nil {
				return ir.OpErrorf(fn, "%v", err)
			}
			params = append(params, "const "+st+"* restrict "+s.define(a))
			continue
		}
		ct, err := cType(a.Type)
		if err != nil {
			return ir.OpErrorf(fn, "%v", err)
		}
		params = append(params, ct+" "+s.define(a))
	}
	for i, t := range ft.Results {
		ct, err := cType(t)
		if err != nil {
			return ir.OpErrorf(fn, "%v", err)
		}
		params = append(params, ct+"* restrict r"+strconv.Itoa(i))
	}
	var body strings.Builder
	s.out = &body
	if len(fn.Regions[0].Blocks) != 1 {
		return ir.OpErrorf(fn, "elementwise bodies must have a single block")
	}
	for _, op := range fn.Body().Ops {
		if op.Name == "func.return" {
			for i, v := range op.Operands {
				n, err := s.name(v)
				if err != nil {
					return ir.OpErrorf(op, "%v", err)
				}
				fmt.Fprintf(&body, "  *r%d = %s;\n", i, n)
			}
			continue
		}
		if op.Name == "tensor.extract" && len(op.Operands) == 2 && len(op.Results) == 1 {
			// A read of an indexed input at an offset the body computed
			// (in bounds: see loopnest.Attr).
			p, err := s.name(op.Operands[0])
			if err != nil {
				return ir.OpErrorf(op, "%v", err)
			}
			off, err := s.name(op.Operands[1])
			if err != nil {
				return ir.OpErrorf(op, "%v", err)
			}
			ct, err := cType(op.Results[0].Type)
			if err != nil {
				return ir.OpErrorf(op, "%v", err)
			}
			s.line("const %s %s = %s;", ct, s.define(op.Results[0]), loadValue(g.helpers, op.Results[0].Type, p+"["+off+"]"))
			continue
		}
		ok, err := s.emit(op)
		if err != nil {
			return err
		}
		if !ok {
			return ir.OpErrorf(op, "'%s' cannot be used in an elementwise body", op.Name)
		}
	}
	fmt.Fprintf(&g.body, "static inline __attribute__((always_inline)) void %s(%s) {\n%s}\n\n", cname, strings.Join(params, ", "), body.String())
	return nil
}

// assemble produces the final C text: prelude, helpers, memref structs,
// extern prototypes, functions and the library tables.
func (g *cgen) assemble() string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Generated by goiree llvm-cpu codegen for %s. Do not edit.\n", g.lib.Name)
	b.WriteString(abiPrelude)
	b.WriteString("\n")
	for _, h := range helperOrder {
		if g.helpers[h] {
			b.WriteString(helperSource[h].src)
		}
	}
	var names []string
	for n := range g.structs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := g.structs[n]
		et, _ := storageType(m.elem)
		if m.rank == 0 {
			fmt.Fprintf(&b, "typedef struct { %s* base; %s* aligned; int64_t offset; } %s;\n", et, et, n)
		} else {
			fmt.Fprintf(&b, "typedef struct { %s* base; %s* aligned; int64_t offset; int64_t sizes[%d]; int64_t strides[%d]; } %s;\n", et, et, m.rank, m.rank, n)
		}
	}
	var ext []string
	for n := range g.externs {
		ext = append(ext, n)
	}
	sort.Strings(ext)
	for _, n := range ext {
		b.WriteString(g.externs[n] + "\n")
	}
	g.lib.StaticImports = ext
	imports := make([]string, 0, len(g.imports))
	for n := range g.imports {
		imports = append(imports, n)
	}
	// The runtime hands the sorted list to the plugins (IREE's resolvers
	// may rely on the order), so the ordinals follow it.
	sort.Strings(imports)
	g.lib.Imports = imports
	if len(imports) > 0 {
		b.WriteString("typedef int (*gi_import_fn_t)(void* params, void* context, void* reserved);\n")
		b.WriteString("typedef int (*gi_import_thunk_t)(gi_import_fn_t fn, void* params, void* context, void* reserved);\n")
		for i, n := range imports {
			fmt.Fprintf(&b, "#define %s %d /* %s */\n", g.imports[n], i, n)
		}
		fmt.Fprintf(&b, "static const char* const gi_import_names[%d] = {\n", len(imports))
		for _, n := range imports {
			fmt.Fprintf(&b, "  %s,\n", strconv.Quote(n))
		}
		b.WriteString("};\n")
	}
	b.WriteString("\n")
	b.WriteString(g.body.String())
	n := len(g.lib.Exports)
	fmt.Fprintf(&b, "static const gi_dispatch_fn_t gi_entry_points[%d] = {\n", n)
	for _, e := range g.lib.Exports {
		fmt.Fprintf(&b, "  gi_entry_%s,\n", sanitize(e.Name))
	}
	fmt.Fprintf(&b, "};\nstatic const char* const gi_entry_names[%d] = {\n", n)
	for _, e := range g.lib.Exports {
		fmt.Fprintf(&b, "  %s,\n", strconv.Quote(e.Name))
	}
	fmt.Fprintf(&b, "};\nstatic const gi_dispatch_attrs_t gi_entry_attrs[%d] = {\n", n)
	for _, e := range g.lib.Exports {
		cc, bc := e.ConstantCount, e.BindingCount
		if cc < 0 {
			cc = 0
		}
		if bc < 0 {
			bc = 0
		}
		local := ""
		if e.LocalMemoryPages > 0 {
			local = fmt.Sprintf(".local_memory_pages = %d, ", e.LocalMemoryPages)
		}
		fmt.Fprintf(&b, "  {%s.constant_count = %d, .binding_count = %d, .workgroup_size_x = %d, .workgroup_size_y = %d, .workgroup_size_z = %d},\n",
			local, cc, bc, e.WorkgroupSize[0], e.WorkgroupSize[1], e.WorkgroupSize[2])
	}
	b.WriteString("};\n")
	importTable := ""
	if len(imports) > 0 {
		importTable = fmt.Sprintf("\n  .imports = {.count = %d, .symbols = gi_import_names},", len(imports))
	}
	b.WriteString(configSection(g.lib.Exports))
	fmt.Fprintf(&b, `static const gi_library_header_t gi_header = {
  .version = 0x%08Xu,
  .name = %s,
  .sanitizer = 0,
};
static const gi_library_t gi_library = {
  .header = &gi_header,%s
  .exports = {.count = %d, .ptrs = gi_entry_points, .attrs = gi_entry_attrs, .names = gi_entry_names},
};

__attribute__((visibility("default")))
const gi_library_header_t** iree_hal_executable_library_query(uint32_t max_version, const gi_environment_t* environment) {
  (void)environment;
  return max_version == 0x%08Xu ? (const gi_library_header_t**)&gi_library : (const gi_library_header_t**)0;
}
`, abiVersion, strconv.Quote(g.lib.Name), importTable, n, abiVersion)
	return b.String()
}
