package vmgen

import (
	"github.com/goiree/goiree/compiler/dialect/util"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/vm"
)

// Control flow. A function's blocks become labelled code in reverse
// postorder; each block argument has registers of its own (a tensor: its
// buffer and one i64 per dynamic extent), which every branch to the block
// fills from its operands. Device work is never pending across a branch:
// the block's command buffer is submitted and waited on before its
// terminator, so each block starts with no command buffer and the buffers
// it allocated and no longer needs are released at its end.

// statusFailedPrecondition is the status of a failed cf.assert, as in
// IREE's lowering of it to vm.cond_fail.
const statusFailedPrecondition = 9

// statusInternal is the status of util.unreachable, as IREE lowers it.
const statusInternal = 13

// isReturn reports whether op returns from the function.
func isReturn(op *ir.Operation) bool {
	return op.Name == "func.return" || op.Name == "util.return"
}

// isTerminator reports whether op ends a host block.
func isTerminator(op *ir.Operation) bool {
	switch op.Name {
	case "func.return", "util.return", "cf.br", "cf.cond_br", "cf.switch", "util.unreachable":
		return true
	}
	return false
}

// reversePostorder lists the blocks of r reachable from its entry, each
// after every block that dominates it.
func reversePostorder(r *ir.Region) []*ir.Block {
	seen := map[*ir.Block]bool{}
	var post []*ir.Block
	var visit func(b *ir.Block)
	visit = func(b *ir.Block) {
		seen[b] = true
		if t := b.Terminator(); t != nil {
			for _, s := range t.Successors {
				if !seen[s] {
					visit(s)
				}
			}
		}
		post = append(post, b)
	}
	visit(r.Blocks[0])
	out := make([]*ir.Block, len(post))
	for i, b := range post {
		out[len(post)-1-i] = b
	}
	return out
}

// escapingValues returns the values of r that live beyond their block's
// own accounting: used in another block, or passed along a branch.
func escapingValues(r *ir.Region) map[*ir.Value]bool {
	out := map[*ir.Value]bool{}
	for _, b := range r.Blocks {
		for _, op := range b.Ops {
			if len(op.Successors) > 0 {
				for _, v := range op.Operands {
					out[v] = true
				}
			}
			ir.Walk(op, func(o *ir.Operation) bool {
				for _, v := range o.Operands {
					if v.ParentBlock() != b {
						out[v] = true
					}
				}
				return true
			})
		}
	}
	return out
}

// startBlock resets the per-block state for lowering b.
func (fe *fnEmitter) startBlock(b *ir.Block) {
	fe.block = b
	fe.free = nil
	fe.owned = nil
	fe.hasCB = false
	fe.needBarrier = false
	fe.lastUse = map[*ir.Value]int{}
	for i, op := range b.Ops {
		ir.Walk(op, func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				fe.lastUse[v] = i
			}
			return true
		})
	}
}

// pinEscaping marks the buffers of op's results that escape their block,
// and records where the results are defined.
func (fe *fnEmitter) pinEscaping(op *ir.Operation) {
	for _, r := range op.Results {
		tv, ok := fe.tensors[r]
		if !ok {
			continue
		}
		if tv.def == nil {
			tv.def = op.Block
		}
		if fe.escapes[r] && tv.buf != nil {
			tv.buf.pinned = true
		}
	}
}

// blockArgs allocates the registers of a non-entry block's arguments.
func (fe *fnEmitter) blockArgs(b *ir.Block) error {
	f := fe.f
	for _, a := range b.Args {
		tt, ok := a.Type.(*ir.TensorType)
		if !ok {
			k, ok := kindOf(a.Type)
			if !ok {
				return ir.OpErrorf(fe.fn, "block ^%s argument %d: type '%s' is not supported in host code", b.Name, a.Index, ir.TypeString(a.Type))
			}
			fe.scalars[a] = f.NewReg(k)
			continue
		}
		if tt.Unranked {
			return ir.OpErrorf(fe.fn, "block ^%s argument %d: unranked tensors are not supported", b.Name, a.Index)
		}
		et, size, err := elementTypeCode(tt.Elem)
		if err != nil {
			return ir.OpErrorf(fe.fn, "block ^%s argument %d: %v", b.Name, a.Index, err)
		}
		tv := &tensorVal{def: b, typ: tt, bytes: size, etype: et, buf: &bufState{reg: f.NewRefReg(), pinned: true}}
		for _, n := range tt.Shape {
			if n == ir.Dynamic {
				tv.dims = append(tv.dims, dimVal{reg: f.NewI64()})
			} else {
				tv.dims = append(tv.dims, dimVal{static: true, n: n})
			}
		}
		fe.tensors[a] = tv
	}
	return nil
}

// move is one register copy of a branch.
type move struct{ dst, src vm.Reg }

var movOps = map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpMovI32, vm.KindI64: vm.OpMovI64, vm.KindF32: vm.OpMovF32, vm.KindF64: vm.OpMovF64, vm.KindRef: vm.OpMovRef}

// edgeMoves returns the copies that pass operands to the arguments of
// succ.
func (fe *fnEmitter) edgeMoves(op *ir.Operation, succ *ir.Block, operands []*ir.Value) ([]move, error) {
	if len(operands) != len(succ.Args) {
		return nil, ir.OpErrorf(op, "branch to ^%s passes %d operands but the block takes %d arguments", succ.Name, len(operands), len(succ.Args))
	}
	var out []move
	for i, v := range operands {
		a := succ.Args[i]
		if !ir.TypesEqual(v.Type, a.Type) {
			return nil, ir.OpErrorf(op, "branch operand %d has type '%s' but ^%s's argument %d is '%s'", i, ir.TypeString(v.Type), succ.Name, i, ir.TypeString(a.Type))
		}
		if _, ok := v.Type.(*ir.TensorType); !ok {
			r, err := fe.scalar(op, v)
			if err != nil {
				return nil, err
			}
			out = append(out, move{fe.scalars[a], r})
			continue
		}
		tv, err := fe.tensor(op, v)
		if err != nil {
			return nil, err
		}
		dst := fe.tensors[a]
		out = append(out, move{dst.buf.reg, tv.buf.reg})
		for d, dd := range dst.dims {
			if !dd.static {
				out = append(out, move{dd.reg, fe.dimReg(tv.dims[d])})
			}
		}
	}
	return out, nil
}

// emitMoves performs the copies of one edge as a parallel assignment:
// when a source is also a destination (a loop passing its arguments
// around), every source is first copied to a temporary.
func (fe *fnEmitter) emitMoves(ms []move) {
	dsts := map[vm.Reg]bool{}
	for _, m := range ms {
		dsts[m.dst] = true
	}
	clash := false
	for _, m := range ms {
		if dsts[m.src] && m.src != m.dst {
			clash = true
		}
	}
	var refTemps []vm.Reg
	if clash {
		tmp := make([]move, len(ms))
		for i, m := range ms {
			t := fe.f.NewReg(m.src.Kind())
			fe.f.Emit(movOps[m.src.Kind()], t, m.src)
			tmp[i] = move{m.dst, t}
			if t.Kind() == vm.KindRef {
				refTemps = append(refTemps, t)
			}
		}
		ms = tmp
	}
	for _, m := range ms {
		if m.dst != m.src {
			fe.f.Emit(movOps[m.dst.Kind()], m.dst, m.src)
		}
	}
	// A temporary must not keep a buffer alive after the edge.
	for _, t := range refTemps {
		fe.f.Emit(vm.OpConstRefZero, t)
	}
}

// jump emits the copies of an edge and the branch to its block.
func (fe *fnEmitter) jump(op *ir.Operation, succ *ir.Block, operands []*ir.Value) error {
	ms, err := fe.edgeMoves(op, succ, operands)
	if err != nil {
		return err
	}
	fe.emitMoves(ms)
	fe.f.Br(fe.labels[succ])
	return nil
}

// segments splits op's operands by its operandSegmentSizes attribute,
// which must list want groups.
func segments(op *ir.Operation, want int) ([][]*ir.Value, error) {
	a, ok := op.Attr("operandSegmentSizes").(*ir.DenseArrayAttr)
	if !ok {
		// The attribute's name before MLIR 18.
		a, ok = op.Attr("operand_segment_sizes").(*ir.DenseArrayAttr)
	}
	if !ok || len(a.Values) != want {
		return nil, ir.OpErrorf(op, "'%s' needs an operandSegmentSizes attribute with %d entries", op.Name, want)
	}
	var out [][]*ir.Value
	k := 0
	for _, n := range a.Values {
		if n < 0 || k+int(n) > len(op.Operands) {
			return nil, ir.OpErrorf(op, "operandSegmentSizes does not match the %d operands", len(op.Operands))
		}
		out = append(out, op.Operands[k:k+int(n)])
		k += int(n)
	}
	if k != len(op.Operands) {
		return nil, ir.OpErrorf(op, "operandSegmentSizes does not match the %d operands", len(op.Operands))
	}
	return out, nil
}

// branchOp lowers cf.br, cf.cond_br and cf.switch. Pending device work is
// flushed first.
func (fe *fnEmitter) branchOp(op *ir.Operation) error {
	fe.flush(nil, false)
	for _, s := range op.Successors {
		if _, ok := fe.labels[s]; !ok {
			return ir.OpErrorf(op, "branch to a block outside the function or to its entry block")
		}
	}
	switch op.Name {
	case "cf.br":
		if len(op.Successors) != 1 {
			return ir.OpErrorf(op, "cf.br needs one successor")
		}
		return fe.jump(op, op.Successors[0], op.Operands)
	case "cf.cond_br":
		if len(op.Successors) != 2 {
			return ir.OpErrorf(op, "cf.cond_br needs two successors")
		}
		seg, err := segments(op, 3)
		if err != nil {
			return err
		}
		if len(seg[0]) != 1 {
			return ir.OpErrorf(op, "cf.cond_br needs one condition")
		}
		cond, err := fe.scalar(op, seg[0][0])
		if err != nil {
			return err
		}
		return fe.twoWay(op, cond, op.Successors[0], seg[1], op.Successors[1], seg[2])
	case "cf.switch":
		return fe.switchOp(op)
	}
	return ir.OpErrorf(op, "'%s' is not a branch", op.Name)
}

// twoWay emits a conditional branch; an edge whose block takes arguments
// goes through a label that copies them.
func (fe *fnEmitter) twoWay(op *ir.Operation, cond vm.Reg, t *ir.Block, tOps []*ir.Value, e *ir.Block, eOps []*ir.Value) error {
	f := fe.f
	tl, el := fe.labels[t], fe.labels[e]
	if len(tOps) > 0 {
		tl = f.NewLabel()
	}
	if len(eOps) > 0 {
		el = f.NewLabel()
	}
	f.CondBr(cond, tl, el)
	if len(tOps) > 0 {
		f.Bind(tl)
		if err := fe.jump(op, t, tOps); err != nil {
			return err
		}
	}
	if len(eOps) > 0 {
		f.Bind(el)
		if err := fe.jump(op, e, eOps); err != nil {
			return err
		}
	}
	return nil
}

// switchOp lowers cf.switch to a compare and branch per case value, in
// order, then the default.
func (fe *fnEmitter) switchOp(op *ir.Operation) error {
	f := fe.f
	seg, err := segments(op, 3)
	if err != nil {
		return err
	}
	if len(seg[0]) != 1 {
		return ir.OpErrorf(op, "cf.switch needs one flag")
	}
	flag, err := fe.scalar(op, seg[0][0])
	if err != nil {
		return err
	}
	var values []int64
	if d, ok := op.Attr("case_values").(*ir.DenseAttr); ok {
		for _, el := range d.Elements {
			iv, ok := el.(ir.IntegerAttr)
			if !ok {
				return ir.OpErrorf(op, "case_values must be integers")
			}
			values = append(values, iv.Value)
		}
		if d.Splat && len(values) == 1 {
			n := int64(1)
			if tt, ok := d.Type.(*ir.TensorType); ok && len(tt.Shape) == 1 {
				n = tt.Shape[0]
			}
			for int64(len(values)) < n {
				values = append(values, values[0])
			}
		}
	}
	if len(op.Successors) != len(values)+1 {
		return ir.OpErrorf(op, "cf.switch has %d case values but %d case destinations", len(values), len(op.Successors)-1)
	}
	var caseSegs []int64
	if a, ok := op.Attr("case_operand_segments").(*ir.DenseArrayAttr); ok {
		caseSegs = a.Values
	}
	if len(caseSegs) == 0 {
		caseSegs = make([]int64, len(values))
	}
	if len(caseSegs) != len(values) {
		return ir.OpErrorf(op, "case_operand_segments has %d entries for %d cases", len(caseSegs), len(values))
	}
	wide := intWidth(seg[0][0].Type) == 64
	k := 0
	for i, v := range values {
		n := int(caseSegs[i])
		if n < 0 || k+n > len(seg[2]) {
			return ir.OpErrorf(op, "case_operand_segments does not match the case operands")
		}
		hit := f.NewI32()
		if wide {
			f.Emit(vm.OpCmpEqI64, hit, flag, fe.i64(v))
		} else {
			f.Emit(vm.OpCmpEqI32, hit, flag, fe.i32(int32(fe.maskConst(seg[0][0].Type, v))))
		}
		next := f.NewLabel()
		taken := f.NewLabel()
		f.CondBr(hit, taken, next)
		f.Bind(taken)
		if err := fe.jump(op, op.Successors[i+1], seg[2][k:k+n]); err != nil {
			return err
		}
		f.Bind(next)
		k += n
	}
	return fe.jump(op, op.Successors[0], seg[1])
}

// assertOp lowers cf.assert: fail with its message when the condition is
// false.
func (fe *fnEmitter) assertOp(op *ir.Operation) error {
	if len(op.Operands) != 1 {
		return ir.OpErrorf(op, "cf.assert takes one condition")
	}
	cond, err := fe.scalar(op, op.Operands[0])
	if err != nil {
		return err
	}
	msg := "assertion failed"
	if s, ok := op.Attr("msg").(ir.StringAttr); ok {
		msg = s.Value
	}
	fe.failUnless(cond, statusFailedPrecondition, msg)
	return nil
}

// maskConst is v as a zero-extended value of integer type t (how host
// registers hold integers narrower than 32 bits).
func (fe *fnEmitter) maskConst(t ir.Type, v int64) int64 {
	w := intWidth(t)
	if w > 0 && w < 32 {
		return v & (1<<w - 1)
	}
	return v
}

// isPublic reports whether a function is exported.
func isPublic(fn *ir.Operation) bool {
	if fn.Name == "util.initializer" {
		return false
	}
	v, ok := fn.Attr("sym_visibility").(ir.StringAttr)
	return !ok || v.Value == "public"
}

// hostFunctions lists the functions with bodies (func.func, util.func and
// util.initializer) that the module keeps, in module order: the public
// ones, the initializers and every function they call, directly or not.
// A private function nothing calls is dropped, as IREE's symbol DCE
// drops it.
func (e *emitter) hostFunctions() []*ir.Operation {
	if e.live != nil {
		return e.live
	}
	var all []*ir.Operation
	byName := map[string]*ir.Operation{}
	for _, op := range e.module.Body().Ops {
		if util.IsHostFunction(op) && op.Body() != nil {
			all = append(all, op)
			if n := op.SymName(); n != "" {
				byName[n] = op
			}
		}
	}
	live := map[*ir.Operation]bool{}
	var work []*ir.Operation
	for _, op := range all {
		if isPublic(op) || op.Name == "util.initializer" {
			live[op] = true
			work = append(work, op)
		}
	}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		ir.Walk(fn, func(o *ir.Operation) bool {
			if ref, ok := o.Attr("callee").(ir.SymbolRefAttr); ok && (o.Name == "func.call" || o.Name == "util.call") {
				if c, ok := byName[ref.Root]; ok && !live[c] {
					live[c] = true
					work = append(work, c)
				}
			}
			return true
		})
	}
	e.live = []*ir.Operation{}
	for _, op := range all {
		if live[op] {
			e.live = append(e.live, op)
		}
	}
	return e.live
}

// declareFunctions declares a VM function for every host function, so
// calls can name functions lowered later.
func (e *emitter) declareFunctions() error {
	e.funcs = map[*ir.Operation]*vm.FunctionBuilder{}
	e.bySym = map[string]*ir.Operation{}
	fns := e.hostFunctions()
	if e.initFn != nil {
		fns = append(fns, e.initFn)
	}
	for _, fn := range fns {
		cc, err := callingConvention(fn)
		if err != nil {
			return err
		}
		name := e.nameOf(fn)
		if name == "" {
			return ir.OpErrorf(fn, "function has no name")
		}
		if _, dup := e.bySym[name]; dup {
			return ir.OpErrorf(fn, "redefinition of symbol @%s", name)
		}
		e.funcs[fn] = e.b.Function(name, cc)
		e.bySym[name] = fn
	}
	return nil
}

// nameOf returns the VM name of a host function.
func (e *emitter) nameOf(fn *ir.Operation) string {
	if n, ok := e.initNames[fn]; ok {
		return n
	}
	return fn.SymName()
}

// functionType returns the signature of a func.func or util.func; a
// util.initializer takes and returns nothing.
func functionType(fn *ir.Operation) *ir.FunctionType {
	if fn.Name == "util.initializer" {
		return &ir.FunctionType{}
	}
	if ta, ok := fn.Attr("function_type").(ir.TypeAttr); ok {
		if ft, ok := ta.Type.(*ir.FunctionType); ok {
			return ft
		}
	}
	return nil
}

// normalize returns r (an i32 register holding a value of integer type t
// narrower than 32 bits) zero-extended, the form host code keeps.
func (fe *fnEmitter) normalize(t ir.Type, r vm.Reg) vm.Reg {
	w := intWidth(t)
	out := fe.f.NewI32()
	switch {
	case w == 8:
		fe.f.Emit(vm.OpTruncI32I8, out, r)
	case w == 16:
		fe.f.Emit(vm.OpTruncI32I16, out, r)
	default:
		fe.f.Emit(vm.OpAndI32, out, r, fe.i32(int32(1<<w-1)))
	}
	return out
}

// signExtend returns r (a zero-extended narrow integer of type t) sign
// extended to 32 bits, for signed operations.
func (fe *fnEmitter) signExtend(t ir.Type, r vm.Reg) vm.Reg {
	w := intWidth(t)
	if w >= 32 || w == 0 {
		return r
	}
	out := fe.f.NewI32()
	switch w {
	case 8:
		fe.f.Emit(vm.OpExtI8I32S, out, r)
	case 16:
		fe.f.Emit(vm.OpExtI16I32S, out, r)
	default:
		// Shift the sign bit to bit 31 and back.
		s := fe.i32(int32(32 - w))
		t := fe.f.NewI32()
		fe.f.Emit(vm.OpShlI32, t, r, s)
		fe.f.Emit(vm.OpShrI32S, out, t, s)
	}
	return out
}
