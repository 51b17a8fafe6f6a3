package vmvx

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/target"
	rvmvx "github.com/goiree/goiree/runtime/hal/local/vmvx"
	"github.com/goiree/goiree/runtime/vm"
)

// Builder builds vmvx variants; it implements target.Builder.
type Builder struct {
	// DumpSourcesTo and DumpBinariesTo, when set, receive the module's
	// disassembly and the module.
	DumpSourcesTo, DumpBinariesTo string
}

// Build implements target.Builder.
func (b Builder) Build(variant *ir.Operation) ([]byte, error) {
	out, name, err := build(variant)
	if err != nil {
		return nil, err
	}
	if b.DumpBinariesTo != "" {
		if err := target.Dump(b.DumpBinariesTo, name+".vmfb", out); err != nil {
			return nil, err
		}
	}
	if b.DumpSourcesTo != "" {
		m, err := vm.LoadBytecodeModule(out)
		if err != nil {
			return nil, fmt.Errorf("reloading the vmvx module of %s: %w", name, err)
		}
		var sb strings.Builder
		if err := m.Disassemble(&sb); err != nil {
			return nil, err
		}
		if err := target.Dump(b.DumpSourcesTo, name+".vmasm", []byte(sb.String())); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Build compiles a vmvx hal.executable.variant into its VM bytecode module
// (the "vmvx-bytecode-fb" format, see the package documentation).
func Build(variant *ir.Operation) ([]byte, error) {
	out, _, err := build(variant)
	return out, err
}

type gen struct {
	mb    *vm.ModuleBuilder
	funcs map[string]*ir.Operation
}

func build(variant *ir.Operation) ([]byte, string, error) {
	if variant == nil || variant.Name != "hal.executable.variant" {
		return nil, "", fmt.Errorf("vmvx code generation expects a hal.executable.variant")
	}
	t := hal.VariantTarget(variant)
	if t == nil || t.Backend != "vmvx" {
		return nil, "", ir.OpErrorf(variant, "variant is not a vmvx variant")
	}
	if t.Format != rvmvx.Format {
		return nil, "", ir.OpErrorf(variant, "executable format %q is not supported by vmvx code generation (supported: %s)", t.Format, rvmvx.Format)
	}
	if objs := hal.VariantObjects(variant); len(objs) > 0 {
		return nil, "", ir.OpErrorf(variant, "vmvx executables cannot link executable objects (#hal.executable.object): the vmvx target interprets the kernels the compiler generates; compile kernels in objects for llvm-cpu")
	}
	mod := hal.InnerModule(variant)
	if mod == nil {
		return nil, "", ir.OpErrorf(variant, "vmvx variant has no builtin.module")
	}
	name := sanitize(variant.SymName())
	if exe := variant.ParentOp(); exe != nil && exe.SymName() != "" {
		name = sanitize(exe.SymName()) + "_" + name
	}
	g := &gen{mb: vm.NewModuleBuilder(name), funcs: map[string]*ir.Operation{}}
	g.mb.AddAttr(rvmvx.ABIAttr, rvmvx.ABIVersion)
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
		return nil, "", ir.OpErrorf(variant, "variant has no hal.executable.export")
	}
	ordinals := make([]int, len(exports))
	seen := map[int]bool{}
	for i, ex := range exports {
		ord := i
		if n, ok := ex.IntAttr("ordinal"); ok {
			ord = int(n)
		}
		if ord < 0 || ord >= len(exports) || seen[ord] {
			return nil, "", ir.OpErrorf(ex, "export ordinals must be dense and unique in [0, %d); found %d", len(exports), ord)
		}
		seen[ord] = true
		ordinals[i] = ord
	}
	idx := make([]int, len(exports))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ordinals[idx[a]] < ordinals[idx[b]] })
	for _, i := range idx {
		if err := g.entry(exports[i], ordinals[i]); err != nil {
			return nil, "", err
		}
	}
	out, err := g.mb.Build()
	if err != nil {
		return nil, "", fmt.Errorf("assembling the vmvx module of %s: %w", name, err)
	}
	return out, name, nil
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

// entry compiles one export into an exported VM function.
func (g *gen) entry(ex *ir.Operation, ordinal int) error {
	name := ex.SymName()
	fn := g.funcs[name]
	if fn == nil || fn.Body() == nil {
		return ir.OpErrorf(ex, "export @%s has no function @%s with a body in the variant's builtin.module", name, name)
	}
	nb, nc := -1, -1
	if l := hal.ExportLayout(ex); l != nil {
		nb, nc = len(l.AllBindings()), int(l.ConstantCount())
	}
	var f *vm.FunctionBuilder
	var err error
	switch {
	case fn.Attr(elementwise.Attr) != nil:
		d, ok := fn.Attr(elementwise.Attr).(*ir.DictAttr)
		if !ok {
			return ir.OpErrorf(fn, "%s must be a dictionary", elementwise.Attr)
		}
		f, err = g.elementwise(name, fn, d, nb, nc)
	case fn.Attr(loopnest.Attr) != nil:
		d, ok := fn.Attr(loopnest.Attr).(*ir.DictAttr)
		if !ok {
			return ir.OpErrorf(fn, "%s must be a dictionary", loopnest.Attr)
		}
		f, err = g.loopNest(name, fn, d, nb, nc)
	default:
		return ir.OpErrorf(fn, "vmvx code generation compiles the kernels the compiler generates (elementwise and loop-nest dispatches); @%s is a hand-written dispatch function, which only the llvm-cpu target compiles", name)
	}
	if err != nil {
		return err
	}
	attrs := []vm.Attr{{Key: rvmvx.OrdinalAttr, Value: strconv.Itoa(ordinal)}}
	if ws, ok := ex.Attr("workgroup_size").(*ir.ArrayAttr); ok && len(ws.Elems) == 3 {
		var parts []string
		for _, e := range ws.Elems {
			v, _ := e.(ir.IntegerAttr)
			parts = append(parts, strconv.FormatInt(v.Value, 10))
		}
		attrs = append(attrs, vm.Attr{Key: rvmvx.WorkgroupSizeAttr, Value: strings.Join(parts, ",")})
	}
	g.mb.Export(name, f, attrs...)
	return nil
}

// counts checks the export's layout (nb bindings, nc constants; -1 when
// it has none) against what the kernel needs and returns the counts its
// function takes.
func counts(fn *ir.Operation, nb, nc, needB, needC int) (int, int, error) {
	if nb < 0 {
		return needB, needC, nil
	}
	if nb < needB || nc < needC {
		return 0, 0, ir.OpErrorf(fn, "the export's layout has %d binding(s) and %d constant(s); the kernel needs %d and %d", nb, nc, needB, needC)
	}
	return nb, nc, nil
}

// newEntry starts the exported function of a kernel.
func (g *gen) newEntry(name string, nb, nc int) (*vm.FunctionBuilder, *fn) {
	f := g.mb.Function(name, rvmvx.CallingConvention(nb, nc))
	return f, newFn(f, "vmvx kernel "+name)
}

// inline emits a scalar body function with its block arguments bound to
// args and returns the registers of the values it returns.
func (e *fn) inline(body *ir.Operation, args []vm.Reg) ([]vm.Reg, error) {
	if len(body.Regions) != 1 || len(body.Regions[0].Blocks) != 1 {
		return nil, ir.OpErrorf(body, "kernel bodies must have a single block")
	}
	b := body.Body()
	if len(b.Args) != len(args) {
		return nil, ir.OpErrorf(body, "kernel body takes %d arguments, the kernel passes %d", len(b.Args), len(args))
	}
	for i, a := range b.Args {
		if _, ok := a.Type.(*ir.TensorType); ok {
			// An indexed input of a loop nest: its binding's buffer,
			// read by tensor.extract (see scalarOp).
			if args[i].Kind() != vm.KindRef {
				return nil, ir.OpErrorf(body, "argument %d of type '%s' does not match the kernel's operand", i, ir.TypeString(a.Type))
			}
			e.vals[a] = args[i]
			continue
		}
		k, err := bank(a.Type)
		if err != nil {
			return nil, ir.OpErrorf(body, "argument %d: %v", i, err)
		}
		if k != args[i].Kind() {
			return nil, ir.OpErrorf(body, "argument %d of type '%s' does not match the kernel's operand", i, ir.TypeString(a.Type))
		}
		e.vals[a] = args[i]
	}
	for _, op := range b.Ops {
		if op.Name == "func.return" {
			out := make([]vm.Reg, len(op.Operands))
			for i, v := range op.Operands {
				r, err := e.value(op, v)
				if err != nil {
					return nil, err
				}
				out[i] = r
			}
			return out, nil
		}
		if err := e.scalarOp(op); err != nil {
			return nil, err
		}
	}
	return nil, ir.OpErrorf(body, "kernel body has no func.return")
}

// load reads an element of type t at byte offset off of buf.
func (e *fn) load(buf, off vm.Reg, t ir.Type) vm.Reg {
	switch w := intWidth(t); {
	case w == 1:
		return e.emit(vm.KindI32, vm.OpCmpNzI32, e.emit(vm.KindI32, vm.OpBufferLoadI8U, buf, off))
	case w == 8:
		return e.emit(vm.KindI32, vm.OpBufferLoadI8S, buf, off)
	case w == 16:
		return e.emit(vm.KindI32, vm.OpBufferLoadI16S, buf, off)
	case w == 32:
		return e.emit(vm.KindI32, vm.OpBufferLoadI32, buf, off)
	case w == 64:
		return e.emit(vm.KindI64, vm.OpBufferLoadI64, buf, off)
	}
	switch n := floatName(t); n {
	case "f32":
		return e.emit(vm.KindF32, vm.OpBufferLoadF32, buf, off)
	case "f16", "bf16":
		return e.emit(vm.KindF64, extHalf[n], e.emit(vm.KindI32, vm.OpBufferLoadI16U, buf, off))
	}
	return e.emit(vm.KindF64, vm.OpBufferLoadF64, buf, off)
}

// store writes v, of type t, at byte offset off of buf.
func (e *fn) store(buf, off vm.Reg, t ir.Type, v vm.Reg) {
	switch w := intWidth(t); {
	case w == 1 || w == 8:
		e.f.Emit(vm.OpBufferStoreI8, buf, off, v)
		return
	case w == 16:
		e.f.Emit(vm.OpBufferStoreI16, buf, off, v)
		return
	case w == 32:
		e.f.Emit(vm.OpBufferStoreI32, buf, off, v)
		return
	case w == 64:
		e.f.Emit(vm.OpBufferStoreI64, buf, off, v)
		return
	}
	switch n := floatName(t); n {
	case "f32":
		e.f.Emit(vm.OpBufferStoreF32, buf, off, v)
	case "f16", "bf16":
		e.f.Emit(vm.OpBufferStoreI16, buf, off, e.emit(vm.KindI32, truncHalf[n], v))
	default:
		e.f.Emit(vm.OpBufferStoreF64, buf, off, v)
	}
}

// zero returns a register holding 0 of type t.
func (e *fn) zero(t ir.Type) vm.Reg {
	k, _ := bank(t)
	switch k {
	case vm.KindI32:
		return e.ci32(0)
	case vm.KindI64:
		return e.ci64(0)
	case vm.KindF32:
		return e.cf32(0)
	}
	return e.cf64(0)
}

// fromConstant converts a 32-bit push constant to a scalar of type t the
// way the llvm-cpu target does: f32 by its bits, integers from the low
// bits (i64 and index zero-extended), other floats by value.
func (e *fn) fromConstant(c vm.Reg, t ir.Type) vm.Reg {
	switch w := intWidth(t); {
	case w == 64:
		return e.emit(vm.KindI64, vm.OpExtI32I64U, c)
	case w > 0:
		return e.norm(c, w)
	}
	if floatName(t) == "f32" {
		return e.emit(vm.KindF32, vm.OpBitcastI32F32, c)
	}
	return e.fromF64(e.emit(vm.KindF64, vm.OpCastSI64F64, e.emit(vm.KindI64, vm.OpExtI32I64U, c)), t)
}

// elementwise emits a generated elementwise kernel (the elementwise.Attr
// contract): constant 0 is the element count, the body's inputs and then
// its results are the bindings, and workgroup x processes its tile.
func (g *gen) elementwise(name string, fn *ir.Operation, d *ir.DictAttr, nb, nc int) (*vm.FunctionBuilder, error) {
	ref, ok := d.Get("body").(ir.SymbolRefAttr)
	if !ok {
		return nil, ir.OpErrorf(fn, "%s needs a body symbol", elementwise.Attr)
	}
	tile := int64(elementwise.DefaultTileSize)
	if t, ok := d.Get("tile_size").(ir.IntegerAttr); ok && t.Value > 0 {
		tile = t.Value
	}
	body := g.funcs[ref.Root]
	if body == nil || body.Body() == nil {
		return nil, ir.OpErrorf(fn, "elementwise body @%s is not defined in the module", ref.Root)
	}
	ft := function.Type(body)
	if ft == nil || len(ft.Results) == 0 {
		return nil, ir.OpErrorf(body, "elementwise body must return at least one value")
	}
	types := append(append([]ir.Type(nil), ft.Inputs...), ft.Results...)
	for _, t := range types {
		if _, err := bank(t); err != nil {
			return nil, ir.OpErrorf(body, "%v", err)
		}
	}
	nb, nc, err := counts(fn, nb, nc, len(types), 1)
	if err != nil {
		return nil, err
	}
	f, e := g.newEntry(name, nb, nc)
	// The element count, capped by what every binding holds.
	n := e.emit(vm.KindI64, vm.OpExtI32I64U, f.Arg(nb))
	for i, t := range types {
		l := e.emit(vm.KindI64, vm.OpBufferLength, f.Arg(i))
		n = e.emit(vm.KindI64, vm.OpMinI64U, n, e.emit(vm.KindI64, vm.OpDivI64U, l, e.ci64(elemSize(t))))
	}
	wg := e.emit(vm.KindI64, vm.OpExtI32I64U, f.Arg(nb+nc))
	lo := e.emit(vm.KindI64, vm.OpMulI64, wg, e.ci64(tile))
	hi := e.emit(vm.KindI64, vm.OpMinI64S, e.emit(vm.KindI64, vm.OpAddI64, lo, e.ci64(tile)), n)
	i := f.NewI64()
	err = e.loop(i, lo, hi, func() error {
		var args []vm.Reg
		for j, t := range ft.Inputs {
			off := e.emit(vm.KindI64, vm.OpMulI64, i, e.ci64(elemSize(t)))
			args = append(args, e.load(f.Arg(j), off, t))
		}
		res, err := e.inline(body, args)
		if err != nil {
			return err
		}
		if len(res) != len(ft.Results) {
			return ir.OpErrorf(body, "returns %d values, its type says %d", len(res), len(ft.Results))
		}
		for j, t := range ft.Results {
			off := e.emit(vm.KindI64, vm.OpMulI64, i, e.ci64(elemSize(t)))
			e.store(f.Arg(len(ft.Inputs)+j), off, t, res[j])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.finish()
	return f, nil
}

// loopNest emits a generated loop-nest kernel (the loopnest.Attr
// contract, compiler/loopnest/contract.go), with every check the contract
// asks for failing the call.
func (g *gen) loopNest(name string, fn *ir.Operation, d *ir.DictAttr, nb, nc int) (*vm.FunctionBuilder, error) {
	k, err := loopnest.DecodeIndexed(d)
	if err != nil {
		return nil, ir.OpErrorf(fn, "%v", err)
	}
	body := g.funcs[k.Body]
	if body == nil || body.Body() == nil {
		return nil, ir.OpErrorf(fn, "loop-nest body @%s is not defined in the module", k.Body)
	}
	ft := function.Type(body)
	nl, ni, no := len(k.Ranges), len(k.Inputs), len(k.Outputs)
	if ft == nil || len(ft.Inputs) != nl+ni+no || len(ft.Results) != no {
		return nil, ir.OpErrorf(body, "loop-nest body must take %d indices, %d inputs and %d accumulators and return %d values", nl, ni, no, no)
	}
	bindings := k.Bindings()
	for _, b := range bindings {
		if _, err := bank(b.Type.Elem); err != nil {
			return nil, ir.OpErrorf(fn, "%v", err)
		}
	}
	nb, nc, err = counts(fn, nb, nc, len(bindings), k.NumConstants())
	if err != nil {
		return nil, err
	}
	f, e := g.newEntry(name, nb, nc)
	ci := 0
	nextConstant := func() vm.Reg {
		c := f.Arg(nb + ci)
		ci++
		return c
	}
	scalars := map[int]vm.Reg{}
	for i, o := range k.Inputs {
		if o.Scalar != nil {
			if _, err := bank(o.Scalar); err != nil {
				return nil, ir.OpErrorf(fn, "%v", err)
			}
			scalars[i] = e.fromConstant(nextConstant(), o.Scalar)
		}
	}
	// Sizes and row-major strides of every binding, and the check that
	// its buffer holds its shape.
	sizes := make([][]vm.Reg, len(bindings))
	strides := make([][]vm.Reg, len(bindings))
	for bi, b := range bindings {
		rank := len(b.Type.Shape)
		sizes[bi] = make([]vm.Reg, rank)
		strides[bi] = make([]vm.Reg, rank)
		static := true
		for r, sz := range b.Type.Shape {
			if sz == ir.Dynamic {
				sizes[bi][r] = e.emit(vm.KindI64, vm.OpExtI32I64U, nextConstant())
				static = false
			} else {
				sizes[bi][r] = e.ci64(sz)
			}
		}
		total := e.ci64(1)
		for r := rank - 1; r >= 0; r-- {
			strides[bi][r] = total
			total = e.emit(vm.KindI64, vm.OpMulI64, total, sizes[bi][r])
		}
		if b.Indexed {
			// Computed offsets are clamped into the tensor, which needs
			// an element to clamp to.
			e.failIf(e.not1(e.emit(vm.KindI32, vm.OpCmpNzI64, sizes[bi][0])), fmt.Sprintf("binding %d (input #%d), read at computed indices, is empty", bi, b.Index))
		}
		es := elemSize(b.Type.Elem)
		length := e.emit(vm.KindI64, vm.OpBufferLength, f.Arg(bi))
		what := fmt.Sprintf("binding %d (%s #%d) is shorter than its shape %s", bi, roleName(b.Role), b.Index, ir.TypeString(b.Type))
		if static {
			need, ok := staticBytes(b.Type.Shape, es)
			if !ok {
				return nil, ir.OpErrorf(fn, "binding %d: %s does not fit in memory", bi, ir.TypeString(b.Type))
			}
			e.failIf(e.emit(vm.KindI32, vm.OpCmpLtI64U, length, e.ci64(need)), what)
			continue
		}
		// need * size <= length, one dimension at a time without
		// overflowing: size <= length / need (a zero size ends the
		// checks: nothing is read).
		need := e.ci64(es)
		bad := e.ci32(0)
		for _, sz := range sizes[bi] {
			q := e.emit(vm.KindI64, vm.OpDivI64U, length, e.emit(vm.KindI64, vm.OpMaxI64U, need, e.ci64(1)))
			over := e.emit(vm.KindI32, vm.OpAndI32, e.emit(vm.KindI32, vm.OpCmpGtI64U, sz, q), e.emit(vm.KindI32, vm.OpCmpNzI64, need))
			bad = e.emit(vm.KindI32, vm.OpOrI32, bad, over)
			need = e.emit(vm.KindI64, vm.OpMulI64, need, sz)
		}
		e.failIf(bad, what)
	}
	if ci > nc {
		return nil, ir.OpErrorf(fn, "the kernel reads %d constants but the export has %d", ci, nc)
	}
	// Loop ranges: static ones are constants, a dynamic one is the first
	// dimension its loop indexes directly.
	ranges := make([]vm.Reg, nl)
	set := make([]bool, nl)
	for l, r := range k.Ranges {
		if r != ir.Dynamic {
			ranges[l], set[l] = e.ci64(r), true
		}
	}
	// A dynamic range is the size of a dimension the loop indexes
	// directly, in an operand that is not partial when there is one.
	for _, partial := range []bool{false, true} {
		for bi, b := range bindings {
			for r, x := range b.Map.Results {
				if x.Kind == ir.AffineDim && !set[x.Pos] && b.Partial == partial {
					ranges[x.Pos], set[x.Pos] = sizes[bi][r], true
				}
			}
		}
	}
	for l := range set {
		if !set[l] {
			return nil, ir.OpErrorf(fn, "dynamic loop d%d is not the bare index of any operand dimension", l)
		}
	}
	// The dimensions each loop indexes directly must equal its range (a
	// partly written output's or partly read input's may be longer), and
	// constant indices must
	// be inside their dimensions.
	for bi, b := range bindings {
		for r, x := range b.Map.Results {
			dyn := b.Type.Shape[r] == ir.Dynamic
			switch {
			case x.Kind == ir.AffineDim && (dyn || k.Ranges[x.Pos] == ir.Dynamic) && b.Partial:
				e.failIf(e.emit(vm.KindI32, vm.OpCmpGtI64S, ranges[x.Pos], sizes[bi][r]), fmt.Sprintf("loop d%d is longer than dimension %d of binding %d", x.Pos, r, bi))
			case x.Kind == ir.AffineDim && (dyn || k.Ranges[x.Pos] == ir.Dynamic):
				e.failIf(e.emit(vm.KindI32, vm.OpCmpNeI64, ranges[x.Pos], sizes[bi][r]), fmt.Sprintf("dimension %d of binding %d differs from the range of loop d%d", r, bi, x.Pos))
			case x.Kind == ir.AffineConst && dyn:
				e.failIf(e.emit(vm.KindI32, vm.OpCmpGteI64S, e.ci64(x.Value), sizes[bi][r]), fmt.Sprintf("index %d is outside dimension %d of binding %d", x.Value, r, bi))
			}
		}
	}
	// Window indices the types do not prove in bounds: with every loop
	// they use at its last iteration, the index must be inside the
	// dimension (when no loop it uses is empty).
	for bi, b := range bindings {
		for r, x := range b.Map.Results {
			if x.Kind == ir.AffineDim || x.Kind == ir.AffineConst {
				continue
			}
			lin, ok := loopnest.Linear(x)
			if !ok {
				return nil, ir.OpErrorf(fn, "binding %d: index %s is not a non-negative combination of loop indices", bi, x)
			}
			if hi, ok := lin.Max(k.Ranges); ok && b.Type.Shape[r] != ir.Dynamic && hi < b.Type.Shape[r] {
				continue
			}
			var ds []int
			for l := range lin.Coeffs {
				ds = append(ds, l)
			}
			sort.Ints(ds)
			reach := e.ci64(lin.Const)
			nonEmpty := e.ci32(1)
			for _, l := range ds {
				nonEmpty = e.emit(vm.KindI32, vm.OpAndI32, nonEmpty, e.emit(vm.KindI32, vm.OpCmpGtI64S, ranges[l], e.ci64(0)))
				last := e.emit(vm.KindI64, vm.OpSubI64, ranges[l], e.ci64(1))
				reach = e.emit(vm.KindI64, vm.OpAddI64, reach, e.emit(vm.KindI64, vm.OpMulI64, e.ci64(lin.Coeffs[l]), last))
			}
			out := e.emit(vm.KindI32, vm.OpCmpGteI64S, reach, sizes[bi][r])
			e.failIf(e.emit(vm.KindI32, vm.OpAndI32, nonEmpty, out), fmt.Sprintf("index %d of binding %d (%s) reaches outside its dimension", r, bi, x))
		}
	}
	outer := k.OuterParallel()
	wg := e.emit(vm.KindI64, vm.OpExtI32I64U, f.Arg(nb+nc))
	var lo, hi vm.Reg
	if outer >= 0 {
		lo = e.emit(vm.KindI64, vm.OpMulI64, wg, e.ci64(k.Tile))
		hi = e.emit(vm.KindI64, vm.OpMinI64S, e.emit(vm.KindI64, vm.OpAddI64, lo, e.ci64(k.Tile)), ranges[outer])
	} else {
		// One workgroup does everything; others have nothing to do.
		done, work := f.NewLabel(), f.NewLabel()
		f.CondBr(e.emit(vm.KindI32, vm.OpCmpNzI64, wg), done, work)
		f.Bind(done)
		f.Return()
		f.Bind(work)
	}
	dims := make([]vm.Reg, nl)
	for l := range dims {
		dims[l] = f.NewI64()
	}
	find := func(role string, i int) int {
		for bi, b := range bindings {
			if b.Role == role && b.Index == i {
				return bi
			}
		}
		return -1
	}
	// Every index of every binding is linear in the loops (Decode checks
	// it), so its byte offset is base[bi] + sum over loops l of
	// coef[bi][l] * d_l. The loops keep each binding's offset in a
	// register per loop level, stepped by its coefficient, instead of
	// evaluating the map at every element.
	base := make([]vm.Reg, len(bindings))
	coef := make([][]vm.Reg, len(bindings))
	for bi, b := range bindings {
		es := e.ci64(elemSize(b.Type.Elem))
		base[bi] = e.ci64(0)
		coef[bi] = make([]vm.Reg, nl)
		used := make([]bool, nl)
		for r, x := range b.Map.Results {
			lin, ok := loopnest.Linear(x)
			if !ok {
				return nil, ir.OpErrorf(fn, "binding %d: index %s is not linear in the loops", bi, x)
			}
			step := e.emit(vm.KindI64, vm.OpMulI64, strides[bi][r], es)
			if lin.Const != 0 {
				base[bi] = e.emit(vm.KindI64, vm.OpAddI64, base[bi], e.emit(vm.KindI64, vm.OpMulI64, e.ci64(lin.Const), step))
			}
			for l := 0; l < nl; l++ { // in order: the same program gives the same bytes
				c := lin.Coeffs[l]
				if c == 0 {
					continue
				}
				term := e.emit(vm.KindI64, vm.OpMulI64, e.ci64(c), step)
				if used[l] {
					term = e.emit(vm.KindI64, vm.OpAddI64, coef[bi][l], term)
				}
				coef[bi][l], used[l] = term, true
			}
		}
		for l := range used {
			if !used[l] {
				coef[bi][l] = vm.Reg{}
			}
		}
	}
	cur := append([]vm.Reg(nil), base...)
	// open runs body inside loop l from lo to hi with the offsets of the
	// bindings the loop moves stepping along.
	open := func(l int, lo, hi vm.Reg, body func() error) error {
		saved := append([]vm.Reg(nil), cur...)
		var moved []int
		for bi := range bindings {
			if coef[bi][l] != (vm.Reg{}) {
				start := e.emit(vm.KindI64, vm.OpAddI64, cur[bi], e.emit(vm.KindI64, vm.OpMulI64, coef[bi][l], lo))
				cur[bi] = f.NewI64()
				e.mov(cur[bi], start)
				moved = append(moved, bi)
			}
		}
		err := e.loop(dims[l], lo, hi, func() error {
			if err := body(); err != nil {
				return err
			}
			for _, bi := range moved {
				f.Emit(vm.OpAddI64, cur[bi], cur[bi], coef[bi][l])
			}
			return nil
		})
		copy(cur, saved)
		return err
	}
	var pars, reds []int
	for l, it := range k.Iterators {
		if it == "parallel" {
			pars = append(pars, l)
		} else {
			reds = append(reds, l)
		}
	}
	accs := make([]vm.Reg, no)
	for i, o := range k.Outputs {
		kind, err := bank(o.AccType().Elem)
		if err != nil {
			return nil, ir.OpErrorf(fn, "%v", err)
		}
		accs[i] = f.NewReg(kind)
	}
	// step is the body at one point of all loops: the accumulators take
	// the values it returns.
	step := func() error {
		args := append([]vm.Reg(nil), dims...)
		for i, o := range k.Inputs {
			if r, ok := scalars[i]; ok {
				args = append(args, r)
				continue
			}
			bi := find("in", i)
			if o.Indexed {
				args = append(args, f.Arg(bi))
				continue
			}
			args = append(args, e.load(f.Arg(bi), cur[bi], o.Type.Elem))
		}
		args = append(args, accs...)
		res, err := e.inline(body, args)
		if err != nil {
			return err
		}
		if len(res) != no {
			return ir.OpErrorf(body, "returns %d values, the kernel has %d outputs", len(res), no)
		}
		// A result that is another accumulator goes through a temporary.
		direct := true
		for i, r := range res {
			if r.Kind() != accs[i].Kind() {
				return ir.OpErrorf(body, "result %d does not have its output's element type", i)
			}
			for _, a := range accs {
				direct = direct && r != a
			}
		}
		if direct {
			for i, r := range res {
				e.mov(accs[i], r)
			}
			return nil
		}
		tmp := make([]vm.Reg, no)
		for i, r := range res {
			tmp[i] = f.NewReg(r.Kind())
			e.mov(tmp[i], r)
		}
		for i := range res {
			e.mov(accs[i], tmp[i])
		}
		return nil
	}
	dp := dotReduction(k, body)
	split := splitReduction(k, body)
	var scratch vm.Reg
	if split != nil && len(reds) > 0 && (k.Ranges[reds[len(reds)-1]] == ir.Dynamic || k.Ranges[reds[len(reds)-1]] > pairwiseOver) {
		// Room for a chunk of values and the pairwise levels, 8 bytes
		// each, allocated once per call.
		scratch = f.NewRefReg()
		f.Emit(vm.OpBufferAlloc, scratch, e.ci64(8*(reductionChunk+64)))
	} else {
		split = nil
	}
	var reduce func(j int) error
	reduce = func(j int) error {
		if j == len(reds) {
			return step()
		}
		l := reds[j]
		if j < len(reds)-1 {
			return open(l, e.ci64(0), ranges[l], func() error { return reduce(j + 1) })
		}
		inner := func() error { return open(l, e.ci64(0), ranges[l], step) }
		if dp != nil {
			// acc + x * y over the loop: one buffer.dot instruction.
			inner = func() error {
				a, b := find("in", dp.x), find("in", dp.y)
				stepOf := func(bi int) vm.Reg {
					if coef[bi][l] == (vm.Reg{}) {
						return e.ci64(0)
					}
					return coef[bi][l]
				}
				op := vm.OpBufferDotF32
				if accs[0].Kind() == vm.KindF64 {
					op = vm.OpBufferDotF64
				}
				f.Emit(op, accs[0], accs[0], f.Arg(a), cur[a], stepOf(a), f.Arg(b), cur[b], stepOf(b), ranges[l])
				return nil
			}
		}
		if split == nil {
			return inner()
		}
		// The innermost reduction: in order up to pairwiseOver steps,
		// pairwise beyond (as the llvm-cpu target does).
		long, short, done := f.NewLabel(), f.NewLabel(), f.NewLabel()
		f.CondBr(e.emit(vm.KindI32, vm.OpCmpGtI64S, ranges[l], e.ci64(pairwiseOver)), long, short)
		f.Bind(long)
		if err := e.pairwise(split, body, l, ranges[l], dims, k, scalars, find, cur, accs[0], scratch, open); err != nil {
			return err
		}
		f.Br(done)
		f.Bind(short)
		if err := inner(); err != nil {
			return err
		}
		f.Bind(done)
		return nil
	}
	var epilogue *ir.Operation
	if k.Epilogue != "" {
		epilogue = g.funcs[k.Epilogue]
		eft := function.Type(epilogue)
		np, ne := len(pars), len(k.EpilogueInputs)
		if epilogue == nil || epilogue.Body() == nil || eft == nil || len(eft.Inputs) != np+no+ne || len(eft.Results) != no {
			return nil, ir.OpErrorf(fn, "loop-nest epilogue @%s must be a function in the module taking %d indices, %d accumulators and %d inputs and returning %d values", k.Epilogue, np, no, ne, no)
		}
	}
	point := func() error {
		for i, o := range k.Outputs {
			acc := o.AccType().Elem
			if o.Init {
				bi := find("init", i)
				e.mov(accs[i], e.load(f.Arg(bi), cur[bi], acc))
			} else {
				e.mov(accs[i], e.zero(acc))
			}
		}
		if err := reduce(0); err != nil {
			return err
		}
		vals := accs
		if epilogue != nil {
			// The finished accumulators through the epilogue: the
			// parallel indices, the accumulators, the epilogue inputs.
			var args []vm.Reg
			for _, l := range pars {
				args = append(args, dims[l])
			}
			args = append(args, accs...)
			for i, o := range k.EpilogueInputs {
				bi := find("epilogue", i)
				args = append(args, e.load(f.Arg(bi), cur[bi], o.Type.Elem))
			}
			res, err := e.inline(epilogue, args)
			if err != nil {
				return err
			}
			if len(res) != no {
				return ir.OpErrorf(epilogue, "returns %d values, the kernel has %d outputs", len(res), no)
			}
			vals = res
		}
		for i, o := range k.Outputs {
			bi := find("out", i)
			if want, _ := bank(o.Type.Elem); vals[i].Kind() != want {
				return ir.OpErrorf(fn, "output #%d: the value stored is not of the output's element type", i)
			}
			e.store(f.Arg(bi), cur[bi], o.Type.Elem, vals[i])
		}
		return nil
	}
	var parallel func(j int) error
	parallel = func(j int) error {
		if j == len(pars) {
			return point()
		}
		l := pars[j]
		if l == outer {
			return open(l, lo, hi, func() error { return parallel(j + 1) })
		}
		return open(l, e.ci64(0), ranges[l], func() error { return parallel(j + 1) })
	}
	if err := parallel(0); err != nil {
		return nil, err
	}
	e.finish()
	return f, nil
}

func roleName(role string) string {
	return map[string]string{"in": "input", "epilogue": "epilogue input", "init": "init of output", "out": "output"}[role]
}

// staticBytes is the byte size of a static shape, ok false if it
// overflows int64.
func staticBytes(shape []int64, es int64) (int64, bool) {
	n := uint64(es)
	for _, d := range shape {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		n = lo
	}
	return int64(n), true
}

// pairwiseOver is the reduction length above which an associative
// reduction is reduced pairwise; reductionChunk is how many of its values
// are computed before they are paired.
const (
	pairwiseOver   = 1024
	reductionChunk = 256
)

// assocCombiners are the combiners a reduction may reassociate (the
// kernel contract): float results then differ by rounding only.
var assocCombiners = map[string]bool{
	"arith.addf": true, "arith.mulf": true, "arith.maximumf": true, "arith.minimumf": true,
	"arith.maxnumf": true, "arith.minnumf": true, "arith.addi": true, "arith.muli": true,
	"arith.andi": true, "arith.ori": true, "arith.xori": true, "arith.maxsi": true,
	"arith.minsi": true, "arith.maxui": true, "arith.minui": true,
}

// split is a one-output reduction body whose accumulator is used once,
// by an associative combiner whose result the body returns: acc' =
// comb(acc, v) with v computed from the inputs alone.
type split struct {
	comb   *ir.Operation
	acc, v *ir.Value
}

// splitReduction returns the split of a reduction body, or nil when it
// has another shape.
func splitReduction(k *loopnest.Kernel, body *ir.Operation) *split {
	if len(k.Outputs) != 1 || k.FirstIndexed() >= 0 {
		return nil
	}
	b := body.Body()
	acc := b.Args[len(k.Ranges)+len(k.Inputs)]
	var comb, ret *ir.Operation
	uses := 0
	for _, o := range b.Ops {
		for _, v := range o.Operands {
			if v == acc {
				uses++
				comb = o
			}
		}
		if o.Name == "func.return" {
			ret = o
		}
	}
	if uses != 1 || ret == nil || comb == ret || len(ret.Operands) != 1 || len(comb.Operands) != 2 || len(comb.Results) != 1 ||
		ret.Operands[0] != comb.Results[0] || len(comb.Regions) > 0 || !assocCombiners[comb.Name] || len(comb.Attrs) > 0 {
		return nil
	}
	v := comb.Operands[0]
	if v == acc {
		v = comb.Operands[1]
	}
	if v == acc || !ir.TypesEqual(v.Type, acc.Type) {
		return nil
	}
	for _, o := range b.Ops {
		if o == comb || o == ret {
			continue
		}
		for _, x := range o.Operands {
			if x == comb.Results[0] {
				return nil
			}
		}
	}
	return &split{comb: comb, acc: acc, v: v}
}

// combine emits comb(a, b) of a split body.
func (e *fn) combine(sp *split, a, b vm.Reg) (vm.Reg, error) {
	e.vals[sp.acc], e.vals[sp.v] = a, b
	if err := e.scalarOp(sp.comb); err != nil {
		return vm.Reg{}, err
	}
	return e.vals[sp.comb.Results[0]], nil
}

// loadSlot loads 8-byte slot i (an i64 register) of the scratch buffer
// into a register of kind k; storeSlot stores v there.
func (e *fn) loadSlot(buf, i vm.Reg, k vm.ValueKind) vm.Reg {
	off := e.emit(vm.KindI64, vm.OpMulI64, i, e.ci64(8))
	op := map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpBufferLoadI32, vm.KindI64: vm.OpBufferLoadI64, vm.KindF32: vm.OpBufferLoadF32, vm.KindF64: vm.OpBufferLoadF64}[k]
	return e.emit(k, op, buf, off)
}

func (e *fn) storeSlot(buf, i, v vm.Reg) {
	off := e.emit(vm.KindI64, vm.OpMulI64, i, e.ci64(8))
	op := map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpBufferStoreI32, vm.KindI64: vm.OpBufferStoreI64, vm.KindF32: vm.OpBufferStoreF32, vm.KindF64: vm.OpBufferStoreF64}[v.Kind()]
	e.f.Emit(op, buf, off, v)
}

// pairwise emits the innermost reduction loop l of a split body: chunks
// of reductionChunk values v are computed into the scratch buffer and
// reduced as a tree (each level pairs the first half with the second; an
// odd middle value waits a level), the chunk results meet in a binary
// counter (level i holds the result of 2^i chunks, slots reductionChunk+i)
// and the levels are folded into acc at the end. Rounding errors then grow
// with log n rather than n.
func (e *fn) pairwise(sp *split, body *ir.Operation, l int, n vm.Reg, dims []vm.Reg, k *loopnest.Kernel, scalars map[int]vm.Reg,
	find func(string, int) int, cur []vm.Reg, acc, scratch vm.Reg, open func(int, vm.Reg, vm.Reg, func() error) error) error {
	f := e.f
	kind := acc.Kind()
	chunks := f.NewI64()
	e.mov(chunks, e.ci64(0))
	kb, kn, end := f.NewI64(), f.NewI64(), f.NewI64()
	e.mov(kb, e.ci64(0))
	in, out := f.NewLabel(), f.NewLabel()
	f.CondBr(e.emit(vm.KindI32, vm.OpCmpLtI64S, kb, n), in, out)
	f.Bind(in)
	e.mov(kn, e.emit(vm.KindI64, vm.OpMinI64S, e.emit(vm.KindI64, vm.OpSubI64, n, kb), e.ci64(reductionChunk)))
	e.mov(end, e.emit(vm.KindI64, vm.OpAddI64, kb, kn))
	// The chunk's values: the body without its combiner.
	err := open(l, kb, end, func() error {
		args := append([]vm.Reg(nil), dims...)
		for i, o := range k.Inputs {
			if r, ok := scalars[i]; ok {
				args = append(args, r)
				continue
			}
			bi := find("in", i)
			args = append(args, e.load(f.Arg(bi), cur[bi], o.Type.Elem))
		}
		b := body.Body()
		for i, a := range b.Args[:len(args)] {
			e.vals[a] = args[i]
		}
		e.vals[sp.acc] = acc
		for _, op := range b.Ops {
			if op == sp.comb || op.Name == "func.return" {
				continue
			}
			if err := e.scalarOp(op); err != nil {
				return err
			}
		}
		v, err := e.value(sp.comb, sp.v)
		if err != nil {
			return err
		}
		e.storeSlot(scratch, e.emit(vm.KindI64, vm.OpSubI64, dims[l], kb), v)
		return nil
	})
	if err != nil {
		return err
	}
	// The tree over the chunk.
	m, h, u, t := f.NewI64(), f.NewI64(), f.NewI64(), f.NewI64()
	e.mov(m, kn)
	tin, tout := f.NewLabel(), f.NewLabel()
	f.CondBr(e.emit(vm.KindI32, vm.OpCmpGtI64S, m, e.ci64(1)), tin, tout)
	f.Bind(tin)
	e.mov(h, e.emit(vm.KindI64, vm.OpShrI64U, m, e.ci64(1)))
	e.mov(u, e.emit(vm.KindI64, vm.OpSubI64, m, h))
	err = e.loop(t, e.ci64(0), h, func() error {
		a := e.loadSlot(scratch, t, kind)
		b := e.loadSlot(scratch, e.emit(vm.KindI64, vm.OpAddI64, t, u), kind)
		c, err := e.combine(sp, a, b)
		if err != nil {
			return err
		}
		e.storeSlot(scratch, t, c)
		return nil
	})
	if err != nil {
		return err
	}
	e.mov(m, u)
	f.CondBr(e.emit(vm.KindI32, vm.OpCmpGtI64S, m, e.ci64(1)), tin, tout)
	f.Bind(tout)
	// The binary counter: carry the chunk's result up the levels.
	c := f.NewReg(kind)
	e.mov(c, e.loadSlot(scratch, e.ci64(0), kind))
	lvl := f.NewI64()
	e.mov(lvl, e.ci64(0))
	cin, cout := f.NewLabel(), f.NewLabel()
	bit := func() vm.Reg {
		return e.emit(vm.KindI32, vm.OpCmpNzI64, e.emit(vm.KindI64, vm.OpAndI64, e.emit(vm.KindI64, vm.OpShrI64U, chunks, lvl), e.ci64(1)))
	}
	f.CondBr(bit(), cin, cout)
	f.Bind(cin)
	slot := e.emit(vm.KindI64, vm.OpAddI64, lvl, e.ci64(reductionChunk))
	r, err := e.combine(sp, e.loadSlot(scratch, slot, kind), c)
	if err != nil {
		return err
	}
	e.mov(c, r)
	f.Emit(vm.OpAddI64, lvl, lvl, e.ci64(1))
	f.CondBr(bit(), cin, cout)
	f.Bind(cout)
	e.storeSlot(scratch, e.emit(vm.KindI64, vm.OpAddI64, lvl, e.ci64(reductionChunk)), c)
	f.Emit(vm.OpAddI64, chunks, chunks, e.ci64(1))
	f.Emit(vm.OpAddI64, kb, kb, e.ci64(reductionChunk))
	f.CondBr(e.emit(vm.KindI32, vm.OpCmpLtI64S, kb, n), in, out)
	f.Bind(out)
	// Fold the levels, lowest first, then into the accumulator.
	total, have := f.NewReg(kind), f.NewI32()
	e.mov(total, acc)
	e.mov(have, e.ci32(0))
	i := f.NewI64()
	err = e.loop(i, e.ci64(0), e.ci64(63), func() error {
		set := e.emit(vm.KindI32, vm.OpCmpNzI64, e.emit(vm.KindI64, vm.OpAndI64, e.emit(vm.KindI64, vm.OpShrI64U, chunks, i), e.ci64(1)))
		lv := e.loadSlot(scratch, e.emit(vm.KindI64, vm.OpAddI64, i, e.ci64(reductionChunk)), kind)
		both, err := e.combine(sp, lv, total)
		if err != nil {
			return err
		}
		e.mov(total, e.selectReg(set, e.selectReg(have, both, lv), total))
		e.mov(have, e.emit(vm.KindI32, vm.OpOrI32, have, set))
		return nil
	})
	if err != nil {
		return err
	}
	r, err = e.combine(sp, acc, total)
	if err != nil {
		return err
	}
	e.mov(acc, e.selectReg(have, r, acc))
	return nil
}

// dotBody is a reduction body acc + x * y (or y * x, or the sum the other
// way round) of two tensor inputs x and y, in f32 or f64.
type dotBody struct{ x, y int }

// dotReduction returns the inputs of a dot-product body, or nil.
func dotReduction(k *loopnest.Kernel, body *ir.Operation) *dotBody {
	if len(k.Outputs) != 1 || k.FirstIndexed() >= 0 {
		return nil
	}
	if n := floatName(k.Outputs[0].AccType().Elem); n != "f32" && n != "f64" {
		return nil
	}
	b := body.Body()
	if len(b.Ops) != 3 {
		return nil
	}
	mul, add, ret := b.Ops[0], b.Ops[1], b.Ops[2]
	nl, ni := len(k.Ranges), len(k.Inputs)
	acc := b.Args[nl+ni]
	if mul.Name != "arith.mulf" || add.Name != "arith.addf" || ret.Name != "func.return" || len(ret.Operands) != 1 || ret.Operands[0] != add.Results[0] {
		return nil
	}
	if !(add.Operands[0] == acc && add.Operands[1] == mul.Results[0] || add.Operands[1] == acc && add.Operands[0] == mul.Results[0]) {
		return nil
	}
	input := func(v *ir.Value) int {
		for i := 0; i < ni; i++ {
			if b.Args[nl+i] == v && k.Inputs[i].Scalar == nil && ir.TypesEqual(v.Type, acc.Type) {
				return i
			}
		}
		return -1
	}
	x, y := input(mul.Operands[0]), input(mul.Operands[1])
	if x < 0 || y < 0 {
		return nil
	}
	return &dotBody{x: x, y: y}
}
