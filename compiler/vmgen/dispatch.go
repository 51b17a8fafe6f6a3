package vmgen

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/vm"
)

// candidate is one (variant, export) a dispatch may run.
type candidate struct {
	variant, export *ir.Operation
}

// candidates resolves a dispatch's entry points to HAL variants and
// exports, in the order they are tried at run time.
func (fe *fnEmitter) candidates(op *ir.Operation) ([]candidate, error) {
	d := flow.Dispatch{Op: op}
	var out []candidate
	for _, ref := range d.EntryPoints() {
		res, err := hal.ResolveEntryPoint(fe.e.opts.Registry, op, ref)
		if err != nil {
			return nil, err
		}
		if res.Executable.Name != "hal.executable" {
			return nil, ir.OpErrorf(op, "entry point %s names a %s; materialize it into a hal.executable with one variant per target before host code generation", ir.AttrString(ref), res.Executable.Name)
		}
		for _, ex := range res.Exports {
			v := ex.ParentOp()
			if v == nil || v.Name != "hal.executable.variant" {
				return nil, ir.OpErrorf(op, "export of %s is not inside a variant", ir.AttrString(ref))
			}
			out = append(out, candidate{variant: v, export: ex})
		}
	}
	if len(out) == 0 {
		return nil, ir.OpErrorf(op, "dispatch has no entry point")
	}
	return out, nil
}

// binding is where one resource goes.
type binding struct {
	set, ordinal int64
}

// resourceBindings returns the (set, binding) of every resource of a
// dispatch for one export.
func resourceBindings(op, export *ir.Operation, n int) ([]binding, error) {
	explicit, has, err := hal.InterfaceBindings(op)
	if err != nil {
		return nil, err
	}
	if has {
		if len(explicit) != n {
			return nil, ir.OpErrorf(op, "has %d resources (tensor operands and untied results) but hal.interface.bindings lists %d", n, len(explicit))
		}
		out := make([]binding, n)
		for i, b := range explicit {
			out[i] = binding{b.Set, b.Binding}
		}
		return out, nil
	}
	l := hal.ExportLayout(export)
	if l == nil {
		out := make([]binding, n)
		for i := range out {
			out[i] = binding{0, int64(i)}
		}
		return out, nil
	}
	all := l.AllBindings()
	if len(all) != n {
		return nil, ir.OpErrorf(op, "has %d resources (tensor operands and untied results) but the layout of @%s declares %d bindings", n, export.SymName(), len(all))
	}
	out := make([]binding, n)
	for i, sb := range all {
		out[i] = binding{sb.Set, sb.Binding.Ordinal}
	}
	return out, nil
}

func (fe *fnEmitter) dispatch(op *ir.Operation) error {
	d := flow.Dispatch{Op: op}
	f := fe.f
	cands, err := fe.candidates(op)
	if err != nil {
		return err
	}
	args := d.Arguments()
	tied := ir.TiedOperands(op)
	// Every candidate records into the same command buffer.
	fe.ensureCB()

	// Primitive operands become 32-bit constants, in order.
	var consts []vm.Reg
	for _, a := range args {
		if _, ok := a.Type.(*ir.TensorType); ok {
			continue
		}
		r, err := fe.scalar(op, a)
		if err != nil {
			return err
		}
		c, err := fe.toConstant(op, a, r)
		if err != nil {
			return err
		}
		consts = append(consts, c)
	}
	for _, c := range cands {
		if l := hal.ExportLayout(c.export); l != nil && int(l.ConstantCount()) != len(consts) {
			return ir.OpErrorf(op, "passes %d primitive operands (push constants) but the layout of @%s::@%s::@%s declares %d constants",
				len(consts), c.variant.ParentOp().SymName(), c.variant.SymName(), c.export.SymName(), l.ConstantCount())
		}
	}

	// Tensor operands are bound in order; a tied operand that is still
	// needed after the dispatch (or belongs to the caller) is copied first
	// so the dispatch can update it in place.
	operandBuf := map[int]*bufState{}
	var resources []*bufState
	// lengths[i] is the byte length resources[i] is bound with: for an
	// operand, the size its dispatch dimensions declare (`%t{%n}`), so a
	// buffer shorter than the kernel will access fails the command buffer's
	// binding range check instead of being read past its end.
	var lengths []vm.Reg
	argDims := d.ArgumentDims()
	nextDim := 0
	tiedTo := map[int]bool{}
	for _, t := range tied {
		if t >= 0 {
			tiedTo[int(t)] = true
		}
	}
	for i, a := range args {
		if _, ok := a.Type.(*ir.TensorType); !ok {
			continue
		}
		tv, err := fe.tensor(op, a)
		if err != nil {
			return err
		}
		nd := ir.DynamicDimCount(a.Type)
		if nextDim+nd > len(argDims) {
			return ir.OpErrorf(op, "missing operand dimensions")
		}
		declared, err := fe.resultDims(op, a.Type, argDims[nextDim:nextDim+nd])
		if err != nil {
			return err
		}
		nextDim += nd
		buf := tv.buf
		if tiedTo[i] && !(buf.owned && !buf.pinned && buf.refs == 1 && fe.lastUse[a] == fe.index) {
			nb := fe.allocate(tv.bytes, tv.dims)
			size := fe.byteSize(tv.bytes, tv.dims)
			fe.beforeCommand()
			f.CallImport(fe.e.imp("hal.command_buffer.copy_buffer"), []vm.Reg{fe.cb, buf.reg, fe.i64(0), nb.reg, fe.i64(0), size}, nil)
			fe.barrier()
			buf = nb
		}
		operandBuf[i] = buf
		resources = append(resources, buf)
		lengths = append(lengths, fe.byteSize(tv.bytes, declared))
	}
	// Results: tied ones alias their operand's buffer, the others get a
	// buffer (a dead transient of the same size, or a new allocation).
	resultDims := d.ResultDims()
	k := 0
	results := make([]*tensorVal, len(op.Results))
	for i, r := range op.Results {
		n := ir.DynamicDimCount(r.Type)
		if k+n > len(resultDims) {
			return ir.OpErrorf(op, "missing result dimensions")
		}
		dims, err := fe.resultDims(op, r.Type, resultDims[k:k+n])
		if err != nil {
			return err
		}
		k += n
		tv, err := fe.newTensor(op, r, dims)
		if err != nil {
			return err
		}
		if i < len(tied) && tied[i] >= 0 {
			tv.buf = operandBuf[int(tied[i])]
		} else {
			tv.buf = fe.allocate(tv.bytes, dims)
			resources = append(resources, tv.buf)
			lengths = append(lengths, fe.i64(-1))
		}
		results[i] = tv
	}

	workload := make([]vm.Reg, 0, len(d.Workload()))
	for _, w := range d.Workload() {
		r, err := fe.scalar(op, w)
		if err != nil {
			return err
		}
		workload = append(workload, r)
	}

	done := f.NewLabel()
	var formats []string
	// settled holds the executables of earlier candidates without a
	// condition: such a candidate is used whenever the device runs its
	// binary, so a later one sharing that binary could never be.
	settled := map[*exeInfo]bool{}
	for _, c := range cands {
		x, err := fe.e.executable(c.variant)
		if err != nil {
			return err
		}
		if settled[x] {
			continue // a variant sharing an earlier unconditional one's binary
		}
		cond := variantCondition(c)
		if cond == nil {
			settled[x] = true
		}
		formats = append(formats, x.format)
		binds, err := resourceBindings(op, c.export, len(resources))
		if err != nil {
			return err
		}
		use, get, next := f.NewLabel(), f.NewLabel(), f.NewLabel()
		if cond != nil {
			// The variant's condition is asked at every dispatch, before
			// the executable: variants may share one (the same binary), so
			// a cached executable says nothing about this variant.
			if err := fe.scoped(func() error {
				holds, err := fe.condition(cond)
				if err != nil {
					return err
				}
				check := f.NewLabel()
				f.CondBr(holds, check, next)
				f.Bind(check)
				return nil
			}); err != nil {
				return err
			}
		}
		// The executable cached in its global, else the getter, which
		// creates it when the device runs its format.
		ok, exe := f.NewI32(), f.NewRefReg()
		f.Emit(vm.OpGlobalLoadRef, exe, x.global)
		f.Emit(vm.OpCmpNzRef, ok, exe)
		f.CondBr(ok, use, get)
		f.Bind(get)
		f.Call(x.getter, []vm.Reg{fe.dev}, []vm.Reg{ok, exe})
		f.CondBr(ok, use, next)
		f.Bind(use)
		if err := fe.scoped(func() error {
			return fe.record(op, c, exe, consts, resources, lengths, binds, workload)
		}); err != nil {
			return err
		}
		f.Br(done)
		f.Bind(next)
	}
	ref := flow.Dispatch{Op: op}.EntryPoints()[0]
	fe.scoped(func() error {
		f.Fail(fe.i32(codeNotFound), fmt.Sprintf("no variant of %s can run on this device (the module has formats %s)", ir.AttrString(ref), strings.Join(formats, ", ")))
		return nil
	})
	f.Bind(done)

	for i, r := range op.Results {
		results[i].buf.refs++
		fe.tensors[r] = results[i]
	}
	return nil
}

// toConstant converts a primitive dispatch operand to its i32 push
// constant: index values are truncated to 32 bits, f32 is bit-cast.
func (fe *fnEmitter) toConstant(op *ir.Operation, v *ir.Value, r vm.Reg) (vm.Reg, error) {
	f := fe.f
	switch r.Kind() {
	case vm.KindI32:
		return r, nil
	case vm.KindI64:
		if _, ok := v.Type.(ir.IndexType); !ok {
			return vm.Reg{}, ir.OpErrorf(op, "operand '%%%s' of type '%s' cannot be passed as a 32-bit push constant; pass an i32 (e.g. arith.trunci)", v.Name, ir.TypeString(v.Type))
		}
		t := f.NewI32()
		f.Emit(vm.OpTruncI64I32, t, r)
		return t, nil
	case vm.KindF32:
		t := f.NewI32()
		f.Emit(vm.OpBitcastF32I32, t, r)
		return t, nil
	}
	return vm.Reg{}, ir.OpErrorf(op, "operand '%%%s' of type '%s' cannot be passed as a 32-bit push constant", v.Name, ir.TypeString(v.Type))
}

// record emits the dispatch of one candidate export as one
// hal.command_buffer.dispatch.inline call: the constants, then the bound
// buffers in (set, binding) order (each bound at offset 0 with its entry in
// lengths), which is the order the export sees them.
func (fe *fnEmitter) record(op *ir.Operation, c candidate, exe vm.Reg, consts []vm.Reg, resources []*bufState, lengths []vm.Reg, binds []binding, workload []vm.Reg) error {
	f := fe.f
	order := make([]int, len(binds))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := binds[order[a]], binds[order[b]]
		if x.set != y.set {
			return x.set < y.set
		}
		return x.ordinal < y.ordinal
	})
	for i := 1; i < len(order); i++ {
		if binds[order[i]] == binds[order[i-1]] {
			return ir.OpErrorf(op, "binds two resources to set %d binding %d", binds[order[i]].set, binds[order[i]].ordinal)
		}
	}
	counts, fits, err := fe.workgroupCount(op, c.export, workload)
	if err != nil {
		return err
	}
	ordinal := int64(0)
	if n, ok := c.export.IntAttr("ordinal"); ok {
		ordinal = n
	}
	fe.checkCounts(c.export, counts, fits)
	args := []vm.Reg{fe.cb, exe, fe.i32(int32(ordinal))}
	for _, r := range counts {
		t := f.NewI32()
		f.Emit(vm.OpTruncI64I32, t, r)
		args = append(args, t)
	}
	args = append(args, fe.i64(0))
	args = append(args, consts...)
	for _, i := range order {
		args = append(args, resources[i].reg, fe.i64(0), lengths[i])
	}
	fe.beforeCommand()
	f.CallImportVariadic(fe.e.imp("hal.command_buffer.dispatch.inline"), []int{len(consts), len(order)}, args, nil)
	fe.barrier()
	return nil
}

// checkCounts emits the check that the workgroup counts (index values) fit
// the HAL's 32-bit unsigned counts before they are truncated for
// hal.command_buffer.dispatch.inline: a count of 2^32 would otherwise become
// 0 and the kernel would silently not run. Counts that are constants in
// range need no check (often two of the three are 1), so the common path
// costs an or per further computed count, one unsigned compare and a
// branch (nothing when all three are such constants); a count out of range calls
// hal.ex.workgroup_count_error, which fails naming the dispatch and the
// three counts (the VM adds the source location of the dispatch).
//
// fits[i] is set when counts[i] is a constant in range.
func (fe *fnEmitter) checkCounts(export *ir.Operation, counts []vm.Reg, fits []bool) {
	f := fe.f
	var computed []vm.Reg
	for i, r := range counts {
		if !fits[i] {
			computed = append(computed, r)
		}
	}
	if len(computed) == 0 {
		return
	}
	limit := fe.i64(math.MaxUint32)
	all := computed[0]
	for _, r := range computed[1:] {
		or := f.NewI64()
		f.Emit(vm.OpOrI64, or, all, r)
		all = or
	}
	// Unsigned: a negative count is out of range too.
	bad := f.NewI32()
	f.Emit(vm.OpCmpGtI64U, bad, all, limit)
	badL, okL := f.NewLabel(), f.NewLabel()
	f.CondBr(bad, badL, okL)
	f.Bind(badL)
	name := "@" + export.SymName()
	if v := export.ParentOp(); v != nil {
		name = "@" + v.SymName() + "::" + name
		if x := v.ParentOp(); x != nil && x.SymName() != "" {
			name = "@" + x.SymName() + "::" + name
		}
	}
	what := "dispatch of " + name
	fe.scoped(func() error {
		f.CallImport(fe.e.imp("hal.ex.workgroup_count_error"), []vm.Reg{fe.strRef(what), counts[0], counts[1], counts[2]}, nil)
		// Not reached: the import always fails. A runtime without it fails
		// at context creation, before anything runs.
		f.Fail(fe.i32(codeOutOfRange), what+": a workgroup count does not fit in 32 bits")
		return nil
	})
	f.Bind(okL)
}

// workgroupCount evaluates the export's count region on the workload. It
// returns the three count registers and, for each, whether it is a
// constant that fits the HAL's 32-bit unsigned counts (checkCounts needs
// not test it).
func (fe *fnEmitter) workgroupCount(op, export *ir.Operation, workload []vm.Reg) ([]vm.Reg, []bool, error) {
	if len(export.Regions) == 0 || len(export.Regions[0].Blocks) == 0 {
		return nil, nil, ir.OpErrorf(op, "export @%s has no workgroup count region", export.SymName())
	}
	if len(export.Regions[0].Blocks) != 1 {
		return nil, nil, ir.OpErrorf(export, "workgroup count regions must have one block")
	}
	blk := export.Regions[0].Blocks[0]
	wi := 0
	for _, a := range blk.Args {
		if dt, ok := a.Type.(*ir.DialectType); ok && dt.Name == "hal.device" {
			fe.scalars[a] = fe.dev
			continue
		}
		if wi >= len(workload) {
			return nil, nil, ir.OpErrorf(op, "export @%s's count region takes %d workload values but the dispatch passes %d", export.SymName(), len(blk.Args)-1, len(workload))
		}
		fe.scalars[a] = workload[wi]
		delete(fe.consts, a)
		wi++
	}
	if wi != len(workload) {
		return nil, nil, ir.OpErrorf(op, "export @%s's count region takes %d workload values but the dispatch passes %d", export.SymName(), wi, len(workload))
	}
	for _, o := range blk.Ops {
		if o.Name == "hal.return" || o.Name == "stream.return" {
			if len(o.Operands) != 3 {
				return nil, nil, ir.OpErrorf(o, "workgroup count region must return 3 values")
			}
			var out []vm.Reg
			var fits []bool
			for _, v := range o.Operands {
				r, err := fe.scalar(o, v)
				if err != nil {
					return nil, nil, err
				}
				if r.Kind() != vm.KindI64 {
					return nil, nil, ir.OpErrorf(o, "workgroup counts must be index values")
				}
				out = append(out, r)
				n, isConst := fe.consts[v]
				fits = append(fits, isConst && n >= 0 && n <= math.MaxUint32)
			}
			return out, fits, nil
		}
		if err := fe.regionOp(o, "a workgroup count region"); err != nil {
			return nil, nil, err
		}
	}
	return nil, nil, ir.OpErrorf(export, "workgroup count region has no terminator")
}
