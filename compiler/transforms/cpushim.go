package transforms

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// The attributes of a hal.executable.export that ask the compiler to write
// the CPU dispatch shim itself: the export is implemented by a plain C
// function of the variant's objects, called once per workgroup as
//
//	fn(bindings..., constants..., workgroup_id_x, workgroup_id_y, workgroup_id_z)
//
// Bindings come in the layout's order, constants in ordinal order, the
// workgroup ids as index (size_t/int64_t).
const (
	// CPUFunctionAttr names the C function (a string); it opts in.
	CPUFunctionAttr = "goiree.cpu_function"
	// CPUArgumentsAttr selects how bindings are passed: "bareptr" (the
	// default: one pointer per binding) or "memref" (MLIR's memref
	// convention: base pointer, aligned pointer, offset, size, stride).
	CPUArgumentsAttr = "goiree.cpu_arguments"
	// CPUBindingTypesAttr gives each binding's element type (an array of
	// types; default i8). It is the pointee of the C pointers, and the
	// unit of offset and size in memref style.
	CPUBindingTypesAttr = "goiree.cpu_binding_types"
	// CPUBindingSizesAttr gives, in memref style, the ordinal of the push
	// constant holding each binding's element count (an array of
	// integers, required there).
	CPUBindingSizesAttr = "goiree.cpu_binding_sizes"
	// CPUConstantTypesAttr gives each push constant's type as the C
	// function receives it (an array of i32, f32 or index; default i32).
	// index zero-extends the 32-bit constant.
	CPUConstantTypesAttr = "goiree.cpu_constant_types"
)

// cpuShimAttrs are copied from a hal.dispatch.extern to the export that
// outlining creates.
var cpuShimAttrs = []string{CPUFunctionAttr, CPUArgumentsAttr, CPUBindingTypesAttr, CPUBindingSizesAttr, CPUConstantTypesAttr}

// GenerateCPUShims writes the dispatch shim of every export of an llvm-cpu
// variant that names a C function with goiree.cpu_function: a func.func of
// the export's name that loads the push constants, takes each binding with
// hal.interface.binding.subspan, reads the workgroup id and calls the C
// function, declared as a hal.import.static extern (with llvm.bareptr in
// bare-pointer style). The functions go into the variant's builtin.module,
// which is created when the variant has none, so the llvm-cpu back end
// compiles them like hand-written shims and the kernel ABI check verifies
// that the objects define the function. Exports of other targets keep the
// attributes and are otherwise left alone.
func GenerateCPUShims(module *ir.Operation, reg *ir.Registry) error {
	for _, v := range Variants(module) {
		t := hal.VariantTarget(v)
		if t == nil || t.Backend != "llvm-cpu" {
			continue
		}
		if err := generateVariantShims(v, reg); err != nil {
			return err
		}
	}
	return nil
}

// shimSpec is what an export's attributes say about its C function.
type shimSpec struct {
	symbol     string
	bare       bool
	bindings   []hal.SetBinding
	elemTypes  []ir.Type
	sizeConsts []int64 // memref style only
	constTypes []ir.Type
}

func generateVariantShims(v *ir.Operation, reg *ir.Registry) error {
	var specs []*shimSpec
	var exports []*ir.Operation
	for _, e := range v.Body().Ops {
		if e.Name != "hal.executable.export" || e.Attr(CPUFunctionAttr) == nil {
			continue
		}
		s, err := parseShimSpec(e)
		if err != nil {
			return err
		}
		specs = append(specs, s)
		exports = append(exports, e)
	}
	if len(specs) == 0 {
		return nil
	}
	inner := hal.InnerModule(v)
	exportNames := map[string]bool{}
	for _, e := range v.Body().Ops {
		if e.Name == "hal.executable.export" {
			exportNames[e.SymName()] = true
		}
	}
	// Declarations already in the module, and the ones this pass adds,
	// by symbol: one C function may serve several exports, but only with
	// one signature.
	decls := map[string]string{}
	var text strings.Builder
	text.WriteString("module {\n")
	for i, s := range specs {
		e := exports[i]
		if exportNames[s.symbol] {
			return ir.OpErrorf(e, "%s = %q names an export of the variant; the C function needs a name of its own (the export's function is the generated shim)", CPUFunctionAttr, s.symbol)
		}
		if inner != nil {
			if fn := ir.LookupSymbolIn(inner, e.SymName()); fn != nil {
				return ir.OpErrorf(e, "has %s but the variant's builtin.module already defines @%s; remove one of them", CPUFunctionAttr, e.SymName())
			}
			if fn := ir.LookupSymbolIn(inner, s.symbol); fn != nil {
				return ir.OpErrorf(e, "%s = %q: the variant's builtin.module already has a symbol of that name", CPUFunctionAttr, s.symbol)
			}
		}
		decl := s.declaration()
		if old, ok := decls[s.symbol]; ok {
			if old != decl {
				return ir.OpErrorf(e, "C function %q is called by two exports with different signatures", s.symbol)
			}
		} else {
			decls[s.symbol] = decl
			text.WriteString(decl)
		}
		text.WriteString(s.shim(e.SymName()))
	}
	text.WriteString("}\n")
	file := fmt.Sprintf("<cpu shims of @%s>", v.SymName())
	m, err := ir.Parse(file, []byte(text.String()), reg)
	if err != nil {
		// The text is ours; a failure here is a bug, reported with the
		// text so it can be reproduced.
		return ir.OpErrorf(v, "internal error: generated CPU shims do not parse: %v\n%s", err, text.String())
	}
	// Diagnostics about generated ops point at the export they serve.
	pos := exports[0].Pos
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		o.Pos = pos
		return true
	})
	if inner == nil {
		v.Body().Append(m.Op)
		return nil
	}
	for _, o := range append([]*ir.Operation(nil), m.Op.Body().Ops...) {
		o.Remove()
		inner.Body().Append(o)
	}
	return nil
}

func parseShimSpec(e *ir.Operation) (*shimSpec, error) {
	s := &shimSpec{bare: true}
	sym, ok := e.Attr(CPUFunctionAttr).(ir.StringAttr)
	if !ok || !isCIdentifier(sym.Value) {
		return nil, ir.OpErrorf(e, "%s must be a string naming a C function (a C identifier), found %s", CPUFunctionAttr, ir.AttrString(e.Attr(CPUFunctionAttr)))
	}
	s.symbol = sym.Value
	if a := e.Attr(CPUArgumentsAttr); a != nil {
		str, ok := a.(ir.StringAttr)
		switch {
		case ok && str.Value == "bareptr":
		case ok && str.Value == "memref":
			s.bare = false
		default:
			return nil, ir.OpErrorf(e, "%s must be \"bareptr\" or \"memref\", found %s", CPUArgumentsAttr, ir.AttrString(a))
		}
	}
	l := hal.ExportLayout(e)
	if l == nil {
		return nil, ir.OpErrorf(e, "has %s but no layout; the generated shim passes the layout's bindings and constants", CPUFunctionAttr)
	}
	// Arguments follow (set, binding) order, however the layout lists them.
	s.bindings = l.AllBindings()
	sort.SliceStable(s.bindings, func(i, j int) bool {
		a, b := s.bindings[i], s.bindings[j]
		return a.Set < b.Set || a.Set == b.Set && a.Binding.Ordinal < b.Binding.Ordinal
	})
	nc := int(l.ConstantCount())

	types := func(name string, n int, def ir.Type, allowed func(ir.Type) bool, what string) ([]ir.Type, error) {
		out := make([]ir.Type, n)
		for i := range out {
			out[i] = def
		}
		a := e.Attr(name)
		if a == nil {
			return out, nil
		}
		arr, ok := a.(*ir.ArrayAttr)
		if !ok || len(arr.Elems) != n {
			return nil, ir.OpErrorf(e, "%s must be an array of %d types (one per %s), found %s", name, n, what, ir.AttrString(a))
		}
		for i, el := range arr.Elems {
			ta, ok := el.(ir.TypeAttr)
			if !ok || !allowed(ta.Type) {
				return nil, ir.OpErrorf(e, "%s: entry %d is %s, which is not a supported %s type", name, i, ir.AttrString(el), what)
			}
			out[i] = ta.Type
		}
		return out, nil
	}
	var err error
	if s.elemTypes, err = types(CPUBindingTypesAttr, len(s.bindings), ir.I8, isShimElementType, "binding"); err != nil {
		return nil, err
	}
	if s.constTypes, err = types(CPUConstantTypesAttr, nc, ir.I32, isShimConstantType, "constant"); err != nil {
		return nil, err
	}
	sizes := e.Attr(CPUBindingSizesAttr)
	if s.bare {
		if sizes != nil {
			return nil, ir.OpErrorf(e, "%s applies to %s = \"memref\" only", CPUBindingSizesAttr, CPUArgumentsAttr)
		}
		return s, nil
	}
	arr, ok := sizes.(*ir.ArrayAttr)
	if !ok || len(arr.Elems) != len(s.bindings) {
		found := "none"
		if sizes != nil {
			found = ir.AttrString(sizes)
		}
		return nil, ir.OpErrorf(e, "%s = \"memref\" needs %s, an array of %d push-constant ordinals giving each binding's element count, found %s",
			CPUArgumentsAttr, CPUBindingSizesAttr, len(s.bindings), found)
	}
	for i, el := range arr.Elems {
		n, ok := el.(ir.IntegerAttr)
		if !ok || n.Value < 0 || n.Value >= int64(nc) {
			return nil, ir.OpErrorf(e, "%s: entry %d is %s, not a push-constant ordinal in [0, %d)", CPUBindingSizesAttr, i, ir.AttrString(el), nc)
		}
		s.sizeConsts = append(s.sizeConsts, n.Value)
	}
	return s, nil
}

func isCIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

func isShimElementType(t ir.Type) bool {
	switch t := t.(type) {
	case ir.IntegerType:
		return t.Width == 8 || t.Width == 16 || t.Width == 32 || t.Width == 64
	case ir.FloatType:
		return t.Name == "f16" || t.Name == "f32" || t.Name == "f64"
	}
	return false
}

func isShimConstantType(t ir.Type) bool {
	switch t := t.(type) {
	case ir.IndexType:
		return true
	case ir.IntegerType:
		return t.Width == 32
	case ir.FloatType:
		return t.Name == "f32"
	}
	return false
}

// argTypes are the function's parameter types in IR: a memref per binding,
// the constants, three workgroup ids.
func (s *shimSpec) argTypes() []string {
	var out []string
	for _, et := range s.elemTypes {
		out = append(out, "memref<?x"+ir.TypeString(et)+">")
	}
	for _, ct := range s.constTypes {
		out = append(out, ir.TypeString(ct))
	}
	return append(out, "index", "index", "index")
}

func (s *shimSpec) declaration() string {
	attrs := "hal.import.static"
	if s.bare {
		attrs += ", llvm.bareptr"
	}
	return fmt.Sprintf("  func.func private @%s(%s) attributes {%s}\n", s.symbol, strings.Join(s.argTypes(), ", "), attrs)
}

// shim is the body of the export's function.
func (s *shimSpec) shim(export string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  func.func @%s() {\n", quoteSymbol(export))
	b.WriteString("    %c0 = arith.constant 0 : index\n")
	var args []string
	// Raw constants, then each as the type the function takes; a memref
	// size reads its constant as an index.
	for i := range s.constTypes {
		fmt.Fprintf(&b, "    %%k%d = hal.interface.constant.load[%d] : i32\n", i, i)
	}
	constIndex := func(i int64) string {
		name := fmt.Sprintf("%%k%d_index", i)
		return name
	}
	needIndex := map[int64]bool{}
	for _, c := range s.sizeConsts {
		needIndex[c] = true
	}
	for i, ct := range s.constTypes {
		if _, ok := ct.(ir.IndexType); ok {
			needIndex[int64(i)] = true
		}
	}
	for i := range s.constTypes {
		if needIndex[int64(i)] {
			fmt.Fprintf(&b, "    %s = arith.index_castui %%k%d : i32 to index\n", constIndex(int64(i)), i)
		}
	}
	for i, sb := range s.bindings {
		// In bare-pointer style only the pointer reaches the function; the
		// memref's size is 0, which claims nothing about the buffer.
		size := "%c0"
		if !s.bare {
			size = constIndex(s.sizeConsts[i])
		}
		mt := "memref<?x" + ir.TypeString(s.elemTypes[i]) + ">"
		fmt.Fprintf(&b, "    %%b%d = hal.interface.binding.subspan set(%d) binding(%d) type(storage_buffer) offset(%%c0) alignment(64) : %s{%s}\n",
			i, sb.Set, sb.Binding.Ordinal, mt, size)
		args = append(args, fmt.Sprintf("%%b%d", i))
	}
	for i, ct := range s.constTypes {
		switch ct.(type) {
		case ir.IndexType:
			args = append(args, constIndex(int64(i)))
		case ir.FloatType:
			fmt.Fprintf(&b, "    %%k%d_f32 = arith.bitcast %%k%d : i32 to f32\n", i, i)
			args = append(args, fmt.Sprintf("%%k%d_f32", i))
		default:
			args = append(args, fmt.Sprintf("%%k%d", i))
		}
	}
	for d := 0; d < 3; d++ {
		fmt.Fprintf(&b, "    %%id%d = hal.interface.workgroup.id[%d] : index\n", d, d)
		args = append(args, fmt.Sprintf("%%id%d", d))
	}
	fmt.Fprintf(&b, "    func.call @%s(%s) : (%s) -> ()\n", s.symbol, strings.Join(args, ", "), strings.Join(s.argTypes(), ", "))
	b.WriteString("    return\n  }\n")
	return b.String()
}

// quoteSymbol spells a symbol name for MLIR text: bare when it is a plain
// identifier, quoted otherwise.
func quoteSymbol(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || r == '$' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain {
		return name
	}
	return ir.QuoteString(name)
}
