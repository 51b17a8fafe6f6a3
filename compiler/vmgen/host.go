package vmgen

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/affine"
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/vm"
)

// Status codes used by generated checks.
const (
	codeInvalidArgument = 3
	codeNotFound        = 5
	codeOutOfRange      = 11
)

// dimVal is one tensor dimension: a compile-time constant or an i64
// register.
type dimVal struct {
	static bool
	n      int64
	reg    vm.Reg
}

func (d dimVal) key() string {
	if d.static {
		return strconv.FormatInt(d.n, 10)
	}
	return d.reg.String()
}

// bufState is one hal.buffer the function holds.
type bufState struct {
	reg   vm.Reg
	owned bool // allocated by this function, so reusable when dead
	refs  int  // live tensor values backed by it
	key   string
	// pinned: the buffer outlives the block's own accounting (a value
	// backed by it is used in another block, passed along a branch or to
	// a call, or stored in a global), so it is never reused or released
	// early and never updated in place.
	pinned bool
}

// tensorVal is the host form of a tensor SSA value.
type tensorVal struct {
	def     *ir.Block // where the value is defined
	typ     *ir.TensorType
	buf     *bufState
	view    vm.Reg
	hasView bool
	dims    []dimVal
	bytes   int64 // element size
	etype   int32
}

type fnEmitter struct {
	e       *emitter
	f       *vm.FunctionBuilder
	fn      *ir.Operation
	public  bool // exported: arguments come from outside and are checked
	block   *ir.Block
	labels  map[*ir.Block]vm.Label
	escapes map[*ir.Value]bool
	scalars map[*ir.Value]vm.Reg
	consts  map[*ir.Value]int64
	tensors map[*ir.Value]*tensorVal
	// lastUse maps each value used in the current block to the index of
	// its last use there.
	lastUse map[*ir.Value]int
	dev     vm.Reg
	alloc   vm.Reg
	// cb is the register of the pending command buffer; hasCB says one is
	// being recorded at this point of the block. It is created by the
	// first command after a flush.
	cb    vm.Reg
	hasCB bool
	// needBarrier: a recorded command must be ordered before the next one.
	needBarrier bool
	free        []*bufState
	// owned lists the buffers allocated in the current block and not yet
	// released, in order.
	owned []*bufState
	index int // index of the op being lowered
	// memo maps constants and byte sizes already computed on every path to
	// the current point to their registers (see scoped).
	memo map[string]vm.Reg
}

// function lowers one function (func.func or util.func) into the VM
// function declared for it; public functions are exported with IREE's
// ABI. Blocks are emitted in reverse postorder, so every value is defined
// before the blocks it dominates use it.
func (e *emitter) function(fn *ir.Operation) error {
	if len(fn.Regions) != 1 || len(fn.Regions[0].Blocks) == 0 {
		return ir.OpErrorf(fn, "function @%s has no body", fn.SymName())
	}
	f := e.funcs[fn]
	public := isPublic(fn)
	fe := &fnEmitter{e: e, f: f, fn: fn, public: public, scalars: map[*ir.Value]vm.Reg{}, consts: map[*ir.Value]int64{},
		tensors: map[*ir.Value]*tensorVal{}, memo: map[string]vm.Reg{}, labels: map[*ir.Block]vm.Label{}}
	region := fn.Regions[0]
	blocks := reversePostorder(region)
	fe.escapes = escapingValues(region)
	entry := region.Blocks[0]
	fe.startBlock(entry)
	fe.loc(fn)
	fe.prologue()
	ft := functionType(fn)
	if ft == nil || len(ft.Inputs) != len(entry.Args) {
		return ir.OpErrorf(fn, "function type does not match its arguments")
	}
	for i, a := range entry.Args {
		if err := fe.argument(i, a, ft.Inputs[i]); err != nil {
			return err
		}
	}
	// Every other block gets a label and registers for its arguments,
	// which the branches to it fill.
	for _, b := range blocks[1:] {
		fe.labels[b] = f.NewLabel()
		if err := fe.blockArgs(b); err != nil {
			return err
		}
	}
	var entryMemo map[string]vm.Reg
	for bi, b := range blocks {
		if bi > 0 {
			// Registers loaded in the entry block hold on every path;
			// those of other blocks only on the paths through them.
			fe.memo = maps.Clone(entryMemo)
			fe.startBlock(b)
			f.Bind(fe.labels[b])
		}
		if err := fe.emitBlock(b); err != nil {
			return err
		}
		if bi == 0 {
			entryMemo = maps.Clone(fe.memo)
		}
	}
	if public {
		e.b.Export(e.nameOf(fn), f, vm.Attr{Key: "iree.abi", Value: abiAttr(ft)})
		e.exported = append(e.exported, e.nameOf(fn))
	}
	return nil
}

// emitBlock lowers the ops of one block; the last must be a terminator.
func (fe *fnEmitter) emitBlock(b *ir.Block) error {
	if len(b.Ops) == 0 {
		return ir.OpErrorf(fe.fn, "block ^%s of @%s has no terminator", b.Name, fe.fn.SymName())
	}
	for i, op := range b.Ops {
		fe.index = i
		fe.loc(op)
		if err := fe.op(op); err != nil {
			return err
		}
		fe.pinEscaping(op)
		fe.releaseDead(op, i)
	}
	if !isTerminator(b.Ops[len(b.Ops)-1]) {
		return ir.OpErrorf(b.Ops[len(b.Ops)-1], "block does not end with a terminator (found '%s')", b.Ops[len(b.Ops)-1].Name)
	}
	return nil
}

// abiAttr describes the function's tensor signature for reflection, e.g.
// "(tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>".
func abiAttr(ft *ir.FunctionType) string {
	return ir.TypeString(ft)
}

func (fe *fnEmitter) loc(op *ir.Operation) {
	if op.Pos.IsValid() {
		fe.f.Loc(op.Pos.File, op.Pos.Line, op.Pos.Col)
	}
}

// viewOps make tensors without device work: they pass views along.
var viewOps = map[string]bool{
	"util.global.load": true, "func.call": true, "util.call": true, "util.optimization_barrier": true,
	"flow.tensor.reshape": true, "flow.tensor.bitcast": true, "flow.tensor.tie_shape": true,
}

// needsDevice reports whether the function records device work or
// allocates: a dispatch, or an op other than viewOps making a tensor.
func needsDevice(fn *ir.Operation) bool {
	need := false
	ir.Walk(fn, func(o *ir.Operation) bool {
		if o.Name == "flow.dispatch" || o.Name == "check.expect_eq_const" || o.Name == "check.expect_almost_eq_const" {
			need = true
		}
		if !viewOps[o.Name] && o != fn {
			for _, r := range o.Results {
				if _, ok := r.Type.(*ir.TensorType); ok {
					need = true
				}
			}
		}
		return !need
	})
	return need
}

// selectTensor lowers arith.select with a scalar condition between two
// tensors: a select of their buffer refs (and dynamic extents). The result
// may alias either buffer, so both are pinned: neither is reused or
// updated in place afterwards.
func (fe *fnEmitter) selectTensor(op *ir.Operation) error {
	if len(op.Operands) != 3 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "arith.select takes a condition and two values")
	}
	if _, ok := op.Operands[0].Type.(*ir.TensorType); ok {
		return ir.OpErrorf(op, "arith.select with a tensor condition reached host code generation; run elementwise dispatch formation first")
	}
	cond, err := fe.scalar(op, op.Operands[0])
	if err != nil {
		return err
	}
	a, err := fe.tensor(op, op.Operands[1])
	if err != nil {
		return err
	}
	b, err := fe.tensor(op, op.Operands[2])
	if err != nil {
		return err
	}
	f := fe.f
	out := &tensorVal{typ: a.typ, bytes: a.bytes, etype: a.etype, buf: &bufState{reg: f.NewRefReg(), refs: 1, pinned: true}}
	f.Emit(vm.OpSelectRef, out.buf.reg, cond, a.buf.reg, b.buf.reg)
	for i, d := range a.dims {
		if d.static && b.dims[i].static && d.n == b.dims[i].n {
			out.dims = append(out.dims, d)
			continue
		}
		r := f.NewI64()
		f.Emit(vm.OpSelectI64, r, cond, fe.dimReg(d), fe.dimReg(b.dims[i]))
		out.dims = append(out.dims, dimVal{reg: r})
	}
	a.buf.pinned, b.buf.pinned = true, true
	fe.tensors[op.Results[0]] = out
	return nil
}

// identity lowers util.optimization_barrier: each result is its operand.
func (fe *fnEmitter) identity(op *ir.Operation) error {
	if len(op.Operands) != len(op.Results) {
		return ir.OpErrorf(op, "'%s' must have as many results as operands", op.Name)
	}
	for i, v := range op.Operands {
		r := op.Results[i]
		if _, ok := v.Type.(*ir.TensorType); !ok {
			reg, err := fe.scalar(op, v)
			if err != nil {
				return err
			}
			// Not a known constant either: the barrier stops folding.
			fe.scalars[r] = reg
			continue
		}
		tv, err := fe.tensor(op, v)
		if err != nil {
			return err
		}
		cp := *tv
		cp.def = nil
		if tv.def != fe.block {
			cp.hasView = false
		}
		cp.buf.refs++
		fe.tensors[r] = &cp
	}
	return nil
}

// prologue gets the device. A function that records device work loads it
// and its allocator from the module's globals (resolved on the first such
// call, as hal.devices.get(0) and hal.device.allocator) and creates the
// command buffer; a scalar-only function calls hal.devices.get itself, as
// it always has, and nothing else.
func (fe *fnEmitter) prologue() {
	f := fe.f
	e := fe.e
	if !needsDevice(fe.fn) {
		zero := f.NewI32()
		f.ConstI32(zero, 0)
		fe.dev = f.NewRefReg()
		f.CallImport(e.imp("hal.devices.get"), []vm.Reg{zero}, []vm.Reg{fe.dev})
		return
	}
	init := e.deviceInit()
	fe.dev = f.NewRefReg()
	f.Emit(vm.OpGlobalLoadRef, fe.dev, e.devGlobal)
	ready, resolve := f.NewLabel(), f.NewLabel()
	nz := f.NewI32()
	f.Emit(vm.OpCmpNzRef, nz, fe.dev)
	f.CondBr(nz, ready, resolve)
	f.Bind(resolve)
	f.Call(init, nil, []vm.Reg{fe.dev})
	f.Bind(ready)
	fe.alloc = f.NewRefReg()
	f.Emit(vm.OpGlobalLoadRef, fe.alloc, e.allocGlobal)
	fe.cb = f.NewRefReg()
}

// ensureCB starts a command buffer unless one is being recorded. Call it
// before any branching code that records commands, so that every path
// records into the same one.
func (fe *fnEmitter) ensureCB() {
	if fe.hasCB {
		return
	}
	// One-shot, any category, any queue, no capacity hint.
	fe.f.CallImport(fe.e.imp("hal.command_buffer.create"), []vm.Reg{fe.dev, fe.i32(1), fe.i32(0), fe.i64(-1), fe.i32(0)}, []vm.Reg{fe.cb})
	fe.hasCB = true
	fe.needBarrier = false
}

// flush submits the pending command buffer and waits for it, so the host
// may read what it wrote (a load, a check, a call, leaving the block).
// Right after the wait, the command buffer's register and those of the
// block's dead transients are overwritten with null, which releases the
// VM's references (as IREE's vm.discard.refs does): their memory is back
// in the allocator's pool. At a return (final), every buffer of the block
// except those in keep is released.
func (fe *fnEmitter) flush(keep map[*bufState]bool, final bool) {
	if !fe.hasCB {
		return
	}
	f := fe.f
	f.CallImport(fe.e.imp("hal.command_buffer.end"), []vm.Reg{fe.cb}, nil)
	f.CallImport(fe.e.imp("hal.ex.submit_and_wait"), []vm.Reg{fe.dev, fe.cb}, nil)
	f.Emit(vm.OpConstRefZero, fe.cb)
	fe.hasCB = false
	fe.needBarrier = false
	var still []*bufState
	for _, b := range fe.owned {
		dead := b.refs <= 0 && !b.pinned
		if keep[b] || !(final || dead) {
			still = append(still, b)
			continue
		}
		f.Emit(vm.OpConstRefZero, b.reg)
	}
	fe.owned = still
	fe.free = nil
}

// i32 returns a register holding v: one already loaded on every path to
// here, or a new constant.
func (fe *fnEmitter) i32(v int32) vm.Reg {
	key := "i32 " + strconv.FormatInt(int64(v), 10)
	if r, ok := fe.memo[key]; ok {
		return r
	}
	r := fe.f.NewI32()
	fe.f.ConstI32(r, v)
	fe.memo[key] = r
	return r
}

// i64 is i32 for an i64 constant.
func (fe *fnEmitter) i64(v int64) vm.Reg {
	key := "i64 " + strconv.FormatInt(v, 10)
	if r, ok := fe.memo[key]; ok {
		return r
	}
	r := fe.f.NewI64()
	fe.f.ConstI64(r, v)
	fe.memo[key] = r
	return r
}

// scoped runs emit for code that only some paths execute (a failure block,
// one candidate of a dispatch): registers it memoizes are forgotten after
// it, since code after the region cannot rely on them.
func (fe *fnEmitter) scoped(emit func() error) error {
	saved := make(map[string]vm.Reg, len(fe.memo))
	for k, r := range fe.memo {
		saved[k] = r
	}
	err := emit()
	fe.memo = saved
	return err
}

func (fe *fnEmitter) strRef(s string) vm.Reg {
	r := fe.f.NewRefReg()
	fe.f.Emit(vm.OpConstRefRodata, r, fe.e.str(s))
	return r
}

// failUnless emits: if cond == 0, fail with code and message.
func (fe *fnEmitter) failUnless(cond vm.Reg, code int32, msg string) {
	ok, bad := fe.f.NewLabel(), fe.f.NewLabel()
	fe.f.CondBr(cond, ok, bad)
	fe.f.Bind(bad)
	fe.scoped(func() error {
		fe.f.Fail(fe.i32(code), msg)
		return nil
	})
	fe.f.Bind(ok)
}

func (fe *fnEmitter) argument(i int, a *ir.Value, t ir.Type) error {
	f := fe.f
	reg := f.Arg(i)
	tt, ok := t.(*ir.TensorType)
	if !ok {
		if w := intWidth(t); w > 0 && w < 32 && fe.public {
			// Narrow integers live zero-extended in i32 registers; a
			// caller may pass them sign-extended.
			reg = fe.normalize(t, reg)
		}
		fe.scalars[a] = reg
		return nil
	}
	if tt.Unranked {
		return ir.OpErrorf(fe.fn, "argument %d: unranked tensors are not supported", i)
	}
	et, size, err := elementTypeCode(tt.Elem)
	if err != nil {
		return ir.OpErrorf(fe.fn, "argument %d: %v", i, err)
	}
	tv := &tensorVal{typ: tt, view: reg, hasView: true, bytes: size, etype: et}
	if !fe.public {
		// An internal function's callers are this module's own code,
		// which passes views of the declared types.
		return fe.adoptView(a, tv)
	}
	nz := f.NewI32()
	f.Emit(vm.OpCmpNzRef, nz, reg)
	fe.failUnless(nz, codeInvalidArgument, fmt.Sprintf("input %d of @%s must be a %s buffer view, got null", i, fe.fn.SymName(), ir.TypeString(tt)))
	// One hal.buffer_view.assert checks rank, element type, encoding and
	// the static dimensions (a dynamic one is passed as -1, which matches
	// any extent); only then are the dynamic extents read, so a wrong rank
	// is reported by the assert, with the input's index, and never as an
	// out-of-range hal.buffer_view.dim.
	dimRegs := make([]vm.Reg, 0, len(tt.Shape))
	for _, n := range tt.Shape {
		if n == ir.Dynamic {
			dimRegs = append(dimRegs, fe.i64(-1))
		} else {
			dimRegs = append(dimRegs, fe.i64(n))
		}
	}
	args := append([]vm.Reg{reg, fe.strRef(fmt.Sprintf("input %d", i)), fe.i32(et), fe.i32(1)}, dimRegs...)
	f.CallImportVariadic(fe.e.imp("hal.buffer_view.assert"), []int{len(dimRegs)}, args, nil)
	return fe.adoptView(a, tv)
}

// adoptView completes the host form of a tensor value arriving as a
// buffer view (tv.view, of type tv.typ): its dynamic extents and its
// buffer, which this function does not own.
func (fe *fnEmitter) adoptView(a *ir.Value, tv *tensorVal) error {
	f := fe.f
	reg := tv.view
	for d, n := range tv.typ.Shape {
		if n == ir.Dynamic {
			r := f.NewI64()
			f.CallImport(fe.e.imp("hal.buffer_view.dim"), []vm.Reg{reg, fe.i32(int32(d))}, []vm.Reg{r})
			tv.dims = append(tv.dims, dimVal{reg: r})
		} else {
			tv.dims = append(tv.dims, dimVal{static: true, n: n})
		}
	}
	buf := f.NewRefReg()
	f.CallImport(fe.e.imp("hal.buffer_view.buffer"), []vm.Reg{reg}, []vm.Reg{buf})
	tv.buf = &bufState{reg: buf, refs: 1}
	fe.tensors[a] = tv
	if !fe.used(a) {
		tv.buf.refs = 0
	}
	return nil
}

// used reports whether v is read after its definition: by a later op of
// the block being lowered, or in another block (lastUse covers only the
// current block, so a constant read only under a branch would otherwise
// look dead and never be materialized).
func (fe *fnEmitter) used(v *ir.Value) bool {
	_, here := fe.lastUse[v]
	return here || fe.escapes[v]
}

// releaseDead drops the tensors whose last use is op i; their buffers,
// when allocated here and no longer referenced, become reusable.
func (fe *fnEmitter) releaseDead(op *ir.Operation, i int) {
	seen := map[*ir.Value]bool{}
	drop := func(v *ir.Value) {
		if seen[v] {
			return
		}
		seen[v] = true
		tv, ok := fe.tensors[v]
		if !ok || tv.buf == nil {
			return
		}
		if tv.buf.pinned || v.ParentBlock() != fe.block {
			return
		}
		tv.buf.refs--
		if tv.buf.refs == 0 && tv.buf.owned && !isReturn(op) {
			fe.free = append(fe.free, tv.buf)
		}
	}
	for _, v := range op.Operands {
		if fe.lastUse[v] == i {
			drop(v)
		}
	}
	for _, r := range op.Results {
		if _, used := fe.lastUse[r]; !used {
			drop(r)
		}
	}
}

// scalar returns the register of a scalar value.
func (fe *fnEmitter) scalar(op *ir.Operation, v *ir.Value) (vm.Reg, error) {
	if r, ok := fe.scalars[v]; ok {
		return r, nil
	}
	return vm.Reg{}, ir.OpErrorf(op, "operand %%%s has no host value (is it defined by an unsupported op?)", v.Name)
}

// tensor returns the host form of a tensor value.
func (fe *fnEmitter) tensor(op *ir.Operation, v *ir.Value) (*tensorVal, error) {
	if tv, ok := fe.tensors[v]; ok {
		return tv, nil
	}
	return nil, ir.OpErrorf(op, "tensor operand %%%s has no host value", v.Name)
}

// byteSize computes elemBytes * prod(dims) into an i64 register (once per
// size on a path).
func (fe *fnEmitter) byteSize(bytes int64, dims []dimVal) vm.Reg {
	key := "size " + bufKey(bytes, dims)
	if r, ok := fe.memo[key]; ok {
		return r
	}
	r := fe.computeByteSize(bytes, dims)
	fe.memo[key] = r
	return r
}

func (fe *fnEmitter) computeByteSize(bytes int64, dims []dimVal) vm.Reg {
	static := bytes
	var dyn []vm.Reg
	for _, d := range dims {
		if d.static {
			static *= d.n
		} else {
			dyn = append(dyn, d.reg)
		}
	}
	acc := fe.i64(static)
	for _, r := range dyn {
		n := fe.f.NewI64()
		fe.f.Emit(vm.OpMulI64, n, acc, r)
		acc = n
	}
	return acc
}

func bufKey(bytes int64, dims []dimVal) string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(bytes, 10))
	for _, d := range dims {
		b.WriteString("x" + d.key())
	}
	return b.String()
}

// allocate returns a buffer for a new tensor: a dead transient of the same
// size when there is one, else a fresh allocation.
func (fe *fnEmitter) allocate(bytes int64, dims []dimVal) *bufState {
	key := bufKey(bytes, dims)
	for i, b := range fe.free {
		if b.key == key {
			fe.free = append(fe.free[:i], fe.free[i+1:]...)
			return b
		}
	}
	size := fe.byteSize(bytes, dims)
	buf := fe.f.NewRefReg()
	fe.f.CallImport(fe.e.imp("hal.allocator.allocate"), []vm.Reg{fe.alloc, fe.i64(-1), fe.i32(0), fe.i32(0), size}, []vm.Reg{buf})
	b := &bufState{reg: buf, owned: true, key: key}
	fe.owned = append(fe.owned, b)
	return b
}

func (fe *fnEmitter) newTensor(op *ir.Operation, v *ir.Value, dims []dimVal) (*tensorVal, error) {
	tt, ok := v.Type.(*ir.TensorType)
	if !ok || tt.Unranked {
		return nil, ir.OpErrorf(op, "result must be a ranked tensor")
	}
	et, size, err := elementTypeCode(tt.Elem)
	if err != nil {
		return nil, ir.OpErrorf(op, "%v", err)
	}
	return &tensorVal{typ: tt, dims: dims, bytes: size, etype: et}, nil
}

// resultDims pairs a result type's dims with the dynamic dim values given.
func (fe *fnEmitter) resultDims(op *ir.Operation, t ir.Type, dyn []*ir.Value) ([]dimVal, error) {
	tt, ok := t.(*ir.TensorType)
	if !ok || tt.Unranked {
		return nil, ir.OpErrorf(op, "result must be a ranked tensor, found '%s'", ir.TypeString(t))
	}
	var out []dimVal
	k := 0
	for _, n := range tt.Shape {
		if n != ir.Dynamic {
			out = append(out, dimVal{static: true, n: n})
			continue
		}
		if k >= len(dyn) {
			return nil, ir.OpErrorf(op, "missing dynamic dimension values")
		}
		r, err := fe.scalar(op, dyn[k])
		if err != nil {
			return nil, err
		}
		k++
		if c, ok := fe.consts[dyn[k-1]]; ok {
			out = append(out, dimVal{static: true, n: c})
			continue
		}
		out = append(out, dimVal{reg: r})
	}
	return out, nil
}

func (fe *fnEmitter) op(op *ir.Operation) error {
	if handled, err := fe.scalarOp(op); handled {
		return err
	}
	if handled, err := fe.flowTensorOp(op); handled {
		return err
	}
	switch op.Name {
	case "arith.constant":
		return fe.tensorConstant(op)
	case "arith.select":
		return fe.selectTensor(op)
	case "tensor.dim":
		return fe.tensorDim(op)
	case "tensor.empty":
		dims, err := fe.resultDims(op, op.Results[0].Type, op.Operands)
		if err != nil {
			return err
		}
		tv, err := fe.newTensor(op, op.Results[0], dims)
		if err != nil {
			return err
		}
		tv.buf = fe.allocate(tv.bytes, dims)
		tv.buf.refs++
		fe.tensors[op.Results[0]] = tv
		return nil
	case "flow.dispatch":
		return fe.dispatch(op)
	case "func.return", "util.return":
		return fe.ret(op)
	case "cf.br", "cf.cond_br", "cf.switch":
		return fe.branchOp(op)
	case "cf.assert":
		return fe.assertOp(op)
	case "util.unreachable":
		// As IREE lowers it: an INTERNAL failure with the op's message.
		msg := "unreachable location reached"
		if s, ok := op.Attr("message").(ir.StringAttr); ok {
			msg = s.Value
		}
		fe.f.Fail(fe.i32(statusInternal), msg)
		return nil
	case "func.call", "util.call":
		return fe.callOp(op)
	case "util.global.load":
		return fe.globalLoad(op)
	case "util.global.store":
		return fe.globalStore(op)
	case "util.optimization_barrier":
		return fe.identity(op)
	case "util.null":
		if len(op.Results) != 1 {
			return ir.OpErrorf(op, "util.null has one result")
		}
		if k, ok := kindOf(op.Results[0].Type); !ok || k != vm.KindRef {
			return ir.OpErrorf(op, "util.null of type '%s' is not supported in host code", ir.TypeString(op.Results[0].Type))
		}
		r := fe.f.NewRefReg()
		fe.f.Emit(vm.OpConstRefZero, r)
		fe.scalars[op.Results[0]] = r
		return nil
	case "check.expect_true", "check.expect_false", "check.expect_all_true", "check.expect_eq",
		"check.expect_eq_const", "check.expect_almost_eq", "check.expect_almost_eq_const":
		return fe.checkOp(op)
	case "util.unfoldable_constant":
		if _, ok := op.Results[0].Type.(*ir.TensorType); ok {
			return fe.tensorConstant(op)
		}
	}
	if IsElementwiseTensorOp(op) {
		return ir.OpErrorf(op, "elementwise tensor op '%s' reached host code generation; run elementwise dispatch formation first", op.Name)
	}
	return ir.OpErrorf(op, "'%s' is not supported in host code", op.Name)
}

// IsElementwiseTensorOp reports whether op is arith/math on tensors.
func IsElementwiseTensorOp(op *ir.Operation) bool {
	if !strings.HasPrefix(op.Name, "arith.") && !strings.HasPrefix(op.Name, "math.") {
		return false
	}
	for _, r := range op.Results {
		if _, ok := r.Type.(*ir.TensorType); ok {
			return true
		}
	}
	return false
}

func (fe *fnEmitter) tensorDim(op *ir.Operation) error {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "expects a tensor and an index")
	}
	tv, err := fe.tensor(op, op.Operands[0])
	if err != nil {
		return err
	}
	idx, ok := fe.consts[op.Operands[1]]
	if !ok {
		return ir.OpErrorf(op, "tensor.dim needs a constant dimension index")
	}
	if idx < 0 || int(idx) >= len(tv.dims) {
		return ir.OpErrorf(op, "dimension %d is out of range for %s", idx, ir.TypeString(tv.typ))
	}
	d := tv.dims[idx]
	if d.static {
		fe.scalars[op.Results[0]] = fe.i64(d.n)
		fe.consts[op.Results[0]] = d.n
	} else {
		fe.scalars[op.Results[0]] = d.reg
	}
	return nil
}

// tensorConstant materializes a dense tensor constant into a buffer.
func (fe *fnEmitter) tensorConstant(op *ir.Operation) error {
	if !fe.used(op.Results[0]) {
		return nil
	}
	tv, err := fe.materialize(op, op.Attr("value"), op.Results[0].Type)
	if err != nil {
		return err
	}
	tv.buf.refs++
	fe.tensors[op.Results[0]] = tv
	return nil
}

// materialize records the upload of a dense constant of tensor type t into
// a new buffer (no reference counted on it yet).
func (fe *fnEmitter) materialize(op *ir.Operation, value ir.Attribute, t ir.Type) (*tensorVal, error) {
	d, ok := value.(*ir.DenseAttr)
	if !ok {
		return nil, ir.OpErrorf(op, "unsupported constant %s", ir.AttrString(value))
	}
	raw, err := d.RawBytes()
	if err != nil {
		return nil, ir.OpErrorf(op, "%v", err)
	}
	var dims []dimVal
	tt, _ := t.(*ir.TensorType)
	if tt == nil || tt.Unranked {
		return nil, ir.OpErrorf(op, "constant must be a ranked tensor")
	}
	for _, n := range tt.Shape {
		dims = append(dims, dimVal{static: true, n: n})
	}
	tv := &tensorVal{typ: tt, dims: dims}
	if tv.etype, tv.bytes, err = elementTypeCode(tt.Elem); err != nil {
		return nil, ir.OpErrorf(op, "%v", err)
	}
	if len(raw) >= largeConstant {
		tv.buf = fe.cachedConstant(raw)
		return tv, nil
	}
	tv.buf = fe.allocate(tv.bytes, dims)
	src := fe.f.NewRefReg()
	fe.f.Emit(vm.OpConstRefRodata, src, fe.e.b.Rodata(raw, "application/octet-stream"))
	fe.beforeCommand()
	fe.uploadChunks(src, tv.buf.reg, len(raw))
	fe.barrier()
	return tv, nil
}

// largeConstant is the size from which a tensor constant is uploaded once
// per context into a buffer kept in a global, instead of at every use.
const largeConstant = 4096

// cachedConstant returns a buffer holding raw: the one in the constant's
// ref global, or, on the context's first use, a new buffer that the
// pending command buffer uploads raw into and that is then stored in the
// global. The buffer is shared by every use, so it is never reused or
// updated in place (a tied dispatch or a store copies it first).
func (fe *fnEmitter) cachedConstant(raw []byte) *bufState {
	e, f := fe.e, fe.f
	sum := sha256.Sum256(raw)
	c, ok := e.constants[sum]
	if !ok {
		c = &constInfo{data: e.b.Rodata(raw, "application/octet-stream"), global: e.b.AddGlobal(vm.KindRef)}
		e.constants[sum] = c
	}
	fe.ensureCB()
	buf := f.NewRefReg()
	f.Emit(vm.OpGlobalLoadRef, buf, c.global)
	nz := f.NewI32()
	f.Emit(vm.OpCmpNzRef, nz, buf)
	ready, upload := f.NewLabel(), f.NewLabel()
	f.CondBr(nz, ready, upload)
	f.Bind(upload)
	fe.scoped(func() error {
		f.CallImport(e.imp("hal.allocator.allocate"), []vm.Reg{fe.alloc, fe.i64(-1), fe.i32(0), fe.i32(0), fe.i64(int64(len(raw)))}, []vm.Reg{buf})
		src := f.NewRefReg()
		f.Emit(vm.OpConstRefRodata, src, c.data)
		fe.beforeCommand()
		fe.uploadChunks(src, buf, len(raw))
		f.Emit(vm.OpGlobalStoreRef, c.global, buf)
		return nil
	})
	f.Bind(ready)
	fe.barrier()
	return &bufState{reg: buf, pinned: true}
}

// uploadChunks records the copy of n bytes of the rodata buffer src into
// dst, in the 64 KiB pieces hal.command_buffer.update_buffer takes.
func (fe *fnEmitter) uploadChunks(src, dst vm.Reg, n int) {
	const chunk = 64 * 1024
	for off := 0; off < n; off += chunk {
		m := min(chunk, n-off)
		fe.f.CallImport(fe.e.imp("hal.command_buffer.update_buffer"), []vm.Reg{fe.cb, src, fe.i64(int64(off)), dst, fe.i64(int64(off)), fe.i64(int64(m))}, nil)
	}
}

// barrier orders the command just recorded before any later one. The
// barrier itself is recorded lazily, by beforeCommand, so that the last
// command of a function is not followed by a barrier that orders nothing
// (host code is straight-line, so emission order is execution order).
func (fe *fnEmitter) barrier() {
	fe.needBarrier = true
}

// beforeCommand records the barrier a previous command asked for; call it
// before emitting each command-buffer command.
func (fe *fnEmitter) beforeCommand() {
	fe.ensureCB()
	if fe.needBarrier {
		fe.f.CallImport(fe.e.imp("hal.command_buffer.execution_barrier"), []vm.Reg{fe.cb, fe.i32(0), fe.i32(0), fe.i64(0)}, nil)
		fe.needBarrier = false
	}
}

func (fe *fnEmitter) ret(op *ir.Operation) error {
	f := fe.f
	keep := map[*bufState]bool{}
	for _, v := range op.Operands {
		if tv, ok := fe.tensors[v]; ok && tv.buf != nil {
			keep[tv.buf] = true
		}
	}
	fe.flush(keep, true)
	regs, err := fe.valueRegs(op, op.Operands)
	if err != nil {
		return err
	}
	f.Return(regs...)
	return nil
}

// valueRegs returns the registers that pass values across a VM call
// boundary: scalars as they are, tensors as buffer views (made here for
// tensors that have none).
func (fe *fnEmitter) valueRegs(op *ir.Operation, vals []*ir.Value) ([]vm.Reg, error) {
	var regs []vm.Reg
	for _, v := range vals {
		if _, ok := v.Type.(*ir.TensorType); !ok {
			r, err := fe.scalar(op, v)
			if err != nil {
				return nil, err
			}
			regs = append(regs, r)
			continue
		}
		tv, err := fe.tensor(op, v)
		if err != nil {
			return nil, err
		}
		regs = append(regs, fe.view(tv))
	}
	return regs, nil
}

// view returns a buffer view of a tensor, creating it on first use.
func (fe *fnEmitter) view(tv *tensorVal) vm.Reg {
	if tv.hasView {
		return tv.view
	}
	f := fe.f
	var dimRegs []vm.Reg
	for _, d := range tv.dims {
		dimRegs = append(dimRegs, fe.dimReg(d))
	}
	view := f.NewRefReg()
	args := append([]vm.Reg{tv.buf.reg, fe.i64(0), fe.byteSize(tv.bytes, tv.dims), fe.i32(tv.etype), fe.i32(1)}, dimRegs...)
	f.CallImportVariadic(fe.e.imp("hal.buffer_view.create"), []int{len(dimRegs)}, args, []vm.Reg{view})
	// The view is only valid on the paths through here: a tensor defined
	// in one block and viewed in two others must not share it.
	if tv.def == fe.block {
		tv.view, tv.hasView = view, true
	}
	return view
}

// dimReg returns an i64 register holding a dimension.
func (fe *fnEmitter) dimReg(d dimVal) vm.Reg {
	if d.static {
		return fe.i64(d.n)
	}
	return d.reg
}

// ---- scalar host math ----

type intOps struct{ i32, i64 vm.Opcode }

var intBinary = map[string]intOps{
	"arith.addi": {vm.OpAddI32, vm.OpAddI64}, "arith.subi": {vm.OpSubI32, vm.OpSubI64},
	"arith.muli": {vm.OpMulI32, vm.OpMulI64}, "arith.divsi": {vm.OpDivI32S, vm.OpDivI64S},
	"arith.divui": {vm.OpDivI32U, vm.OpDivI64U}, "arith.remsi": {vm.OpRemI32S, vm.OpRemI64S},
	"arith.remui": {vm.OpRemI32U, vm.OpRemI64U}, "arith.ceildivsi": {vm.OpCeilDivI32S, vm.OpCeilDivI64S},
	"arith.ceildivui": {vm.OpCeilDivI32U, vm.OpCeilDivI64U}, "arith.andi": {vm.OpAndI32, vm.OpAndI64},
	"arith.ori": {vm.OpOrI32, vm.OpOrI64}, "arith.xori": {vm.OpXorI32, vm.OpXorI64},
	"arith.shli": {vm.OpShlI32, vm.OpShlI64}, "arith.shrsi": {vm.OpShrI32S, vm.OpShrI64S},
	"arith.shrui": {vm.OpShrI32U, vm.OpShrI64U}, "arith.maxsi": {vm.OpMaxI32S, vm.OpMaxI64S},
	"arith.minsi": {vm.OpMinI32S, vm.OpMinI64S}, "arith.maxui": {vm.OpMaxI32U, vm.OpMaxI64U},
	"arith.minui": {vm.OpMinI32U, vm.OpMinI64U},
}

type floatOps struct{ f32, f64 vm.Opcode }

var floatBinary = map[string]floatOps{
	"arith.addf": {vm.OpAddF32, vm.OpAddF64}, "arith.subf": {vm.OpSubF32, vm.OpSubF64},
	"arith.mulf": {vm.OpMulF32, vm.OpMulF64}, "arith.divf": {vm.OpDivF32, vm.OpDivF64},
	"arith.remf": {vm.OpRemF32, vm.OpRemF64}, "arith.maximumf": {vm.OpMaxF32, vm.OpMaxF64},
	"arith.minimumf": {vm.OpMinF32, vm.OpMinF64},
}

var cmpiOps = map[string]intOps{
	"eq": {vm.OpCmpEqI32, vm.OpCmpEqI64}, "ne": {vm.OpCmpNeI32, vm.OpCmpNeI64},
	"slt": {vm.OpCmpLtI32S, vm.OpCmpLtI64S}, "sle": {vm.OpCmpLteI32S, vm.OpCmpLteI64S},
	"sgt": {vm.OpCmpGtI32S, vm.OpCmpGtI64S}, "sge": {vm.OpCmpGteI32S, vm.OpCmpGteI64S},
	"ult": {vm.OpCmpLtI32U, vm.OpCmpLtI64U}, "ule": {vm.OpCmpLteI32U, vm.OpCmpLteI64U},
	"ugt": {vm.OpCmpGtI32U, vm.OpCmpGtI64U}, "uge": {vm.OpCmpGteI32U, vm.OpCmpGteI64U},
}

func intWidth(t ir.Type) int {
	switch t := t.(type) {
	case ir.IndexType:
		return 64
	case ir.IntegerType:
		return t.Width
	}
	return 0
}

// scalarOp lowers scalar arith and affine ops (host code and workgroup
// count regions); handled is false for other ops.
func (fe *fnEmitter) scalarOp(op *ir.Operation) (bool, error) {
	if len(op.Results) != 1 {
		return false, nil
	}
	r := op.Results[0]
	if _, ok := r.Type.(*ir.TensorType); ok {
		return false, nil
	}
	if op.Name == "affine.apply" {
		return true, fe.affineApply(op)
	}
	unfoldable := op.Name == "util.unfoldable_constant"
	if mo, ok := mathUnary[op.Name]; ok {
		return true, fe.mathOp(op, mo)
	}
	if !strings.HasPrefix(op.Name, "arith.") && !unfoldable {
		return false, nil
	}
	for _, v := range op.Operands {
		if _, ok := v.Type.(*ir.TensorType); ok {
			return false, nil
		}
	}
	f := fe.f
	k, ok := kindOf(r.Type)
	if !ok && op.Name == "arith.constant" && !fe.used(r) {
		// A constant of a type host code cannot hold (f16) that nothing on
		// the host reads: dispatch formation cloned it into the kernels
		// using it.
		return true, nil
	}
	if !ok {
		return true, ir.OpErrorf(op, "type '%s' is not supported in host code", ir.TypeString(r.Type))
	}
	if op.Name == "arith.constant" || unfoldable {
		dst := f.NewReg(k)
		// An unfoldable constant is loaded but not known to the compiler,
		// so nothing computed from it is folded.
		defer func() {
			if unfoldable {
				delete(fe.consts, r)
			}
		}()
		switch a := op.Attr("value").(type) {
		case ir.IntegerAttr:
			if k == vm.KindI32 {
				f.ConstI32(dst, int32(fe.maskConst(r.Type, a.Value)))
			} else {
				f.ConstI64(dst, a.Value)
			}
			fe.consts[r] = a.Value
		case ir.BoolAttr:
			v := int32(0)
			if a.Value {
				v = 1
			}
			f.ConstI32(dst, v)
			fe.consts[r] = int64(v)
		case ir.FloatAttr:
			if k == vm.KindF32 {
				f.ConstF32(dst, float32(a.Value))
			} else {
				f.ConstF64(dst, a.Value)
			}
		default:
			return true, ir.OpErrorf(op, "unsupported constant %s", ir.AttrString(a))
		}
		fe.scalars[r] = dst
		return true, nil
	}
	args := make([]vm.Reg, len(op.Operands))
	for i, v := range op.Operands {
		a, err := fe.scalar(op, v)
		if err != nil {
			return true, err
		}
		args[i] = a
	}
	want := 2
	switch {
	case op.Name == "arith.select":
		want = 3
	case strings.Contains(op.Name, "cast") || strings.HasPrefix(op.Name, "arith.ext") || strings.HasPrefix(op.Name, "arith.trunc") ||
		strings.HasSuffix(op.Name, "tofp") || strings.HasPrefix(op.Name, "arith.fpto") || op.Name == "arith.negf":
		want = 1
	}
	if len(args) != want {
		return true, ir.OpErrorf(op, "expects %d operands, found %d", want, len(args))
	}
	dst := f.NewReg(k)
	fe.scalars[r] = dst
	var at ir.Type
	if len(op.Operands) > 0 {
		at = op.Operands[0].Type
	}
	if io, ok := intBinary[op.Name]; ok {
		code := io.i32
		if k == vm.KindI64 {
			code = io.i64
		}
		a, b := args[0], args[1]
		if signedIntOps[op.Name] {
			a, b = fe.signExtend(r.Type, a), fe.signExtend(r.Type, b)
		}
		f.Emit(code, dst, a, b)
		fe.narrow(r, dst)
		fe.fold(op, r)
		return true, nil
	}
	if fo, ok := floatBinary[op.Name]; ok {
		code := fo.f32
		if k == vm.KindF64 {
			code = fo.f64
		}
		f.Emit(code, dst, args[0], args[1])
		return true, nil
	}
	switch op.Name {
	case "arith.maxnumf", "arith.minnumf":
		fe.numMinMax(op.Name == "arith.maxnumf", k, dst, args[0], args[1])
		return true, nil
	case "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci":
		signed := op.Name == "arith.index_cast" || op.Name == "arith.extsi"
		fe.intCast(at, r.Type, signed, dst, args[0])
		fe.fold(op, r)
		return true, nil
	case "arith.cmpi":
		n, _ := op.IntAttr("predicate")
		if n < 0 || int(n) >= len(arith.CmpIPredicates) {
			return true, ir.OpErrorf(op, "bad predicate")
		}
		pred := arith.CmpIPredicates[n]
		io := cmpiOps[pred]
		code := io.i32
		if intWidth(at) == 64 {
			code = io.i64
		}
		a, b := args[0], args[1]
		if pred[0] == 's' {
			a, b = fe.signExtend(at, a), fe.signExtend(at, b)
		}
		f.Emit(code, dst, a, b)
		return true, nil
	case "arith.cmpf":
		n, _ := op.IntAttr("predicate")
		if n < 0 || int(n) >= len(arith.CmpFPredicates) {
			return true, ir.OpErrorf(op, "bad predicate")
		}
		ak, _ := kindOf(at)
		fe.cmpf(arith.CmpFPredicates[n], ak == vm.KindF64, dst, args[0], args[1])
		return true, nil
	case "arith.select":
		code := map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpSelectI32, vm.KindI64: vm.OpSelectI64, vm.KindF32: vm.OpSelectF32, vm.KindF64: vm.OpSelectF64}[k]
		f.Emit(code, dst, args[0], args[1], args[2])
		return true, nil
	case "arith.negf":
		if k == vm.KindF32 {
			f.Emit(vm.OpNegF32, dst, args[0])
		} else {
			f.Emit(vm.OpNegF64, dst, args[0])
		}
		return true, nil
	case "arith.floordivsi":
		fe.scalars[r] = fe.floorDiv(k, fe.signExtend(r.Type, args[0]), fe.signExtend(r.Type, args[1]))
		if w := intWidth(r.Type); w < 32 {
			fe.scalars[r] = fe.normalize(r.Type, fe.scalars[r])
		}
		return true, nil
	case "arith.sitofp", "arith.uitofp":
		if err := fe.intToFloat(at, op.Name == "arith.sitofp", k, dst, args[0]); err != nil {
			return true, ir.OpErrorf(op, "%v", err)
		}
		return true, nil
	case "arith.fptosi", "arith.fptoui":
		fe.floatToInt(at, r.Type, op.Name == "arith.fptosi", dst, args[0])
		return true, nil
	case "arith.bitcast":
		ak, _ := kindOf(at)
		switch {
		case ak == k:
			f.Emit(movOps[k], dst, args[0])
		case ak == vm.KindI32 && k == vm.KindF32:
			f.Emit(vm.OpBitcastI32F32, dst, args[0])
		case ak == vm.KindF32 && k == vm.KindI32:
			f.Emit(vm.OpBitcastF32I32, dst, args[0])
		case ak == vm.KindI64 && k == vm.KindF64:
			f.Emit(vm.OpBitcastI64F64, dst, args[0])
		case ak == vm.KindF64 && k == vm.KindI64:
			f.Emit(vm.OpBitcastF64I64, dst, args[0])
		default:
			return true, ir.OpErrorf(op, "bitcast '%s' to '%s' is not supported in host code", ir.TypeString(at), ir.TypeString(r.Type))
		}
		return true, nil
	case "arith.extf", "arith.truncf":
		ak, _ := kindOf(at)
		if ak == k {
			f.Emit(movOps[k], dst, args[0])
		} else if k == vm.KindF64 {
			f.Emit(vm.OpExtF32F64, dst, args[0])
		} else {
			f.Emit(vm.OpTruncF64F32, dst, args[0])
		}
		return true, nil
	}
	return true, ir.OpErrorf(op, "'%s' is not supported in host code", op.Name)
}

// mathUnary are the scalar math ops the VM has instructions for, by
// register bank.
var mathUnary = map[string]map[vm.ValueKind]vm.Opcode{
	"math.sqrt":  {vm.KindF32: vm.OpSqrtF32, vm.KindF64: vm.OpSqrtF64},
	"math.absf":  {vm.KindF32: vm.OpAbsF32, vm.KindF64: vm.OpAbsF64},
	"math.floor": {vm.KindF32: vm.OpFloorF32, vm.KindF64: vm.OpFloorF64},
	"math.ceil":  {vm.KindF32: vm.OpCeilF32, vm.KindF64: vm.OpCeilF64},
	"math.absi":  {vm.KindI32: vm.OpAbsI32, vm.KindI64: vm.OpAbsI64},
}

// mathOp lowers a scalar math op of mathUnary.
func (fe *fnEmitter) mathOp(op *ir.Operation, codes map[vm.ValueKind]vm.Opcode) error {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "'%s' takes one operand", op.Name)
	}
	r := op.Results[0]
	k, _ := kindOf(r.Type)
	code, ok := codes[k]
	if !ok {
		return ir.OpErrorf(op, "'%s' on '%s' is not supported in host code", op.Name, ir.TypeString(r.Type))
	}
	a, err := fe.scalar(op, op.Operands[0])
	if err != nil {
		return err
	}
	if op.Name == "math.absi" {
		a = fe.signExtend(r.Type, a)
	}
	dst := fe.f.NewReg(k)
	fe.f.Emit(code, dst, a)
	fe.scalars[r] = dst
	fe.narrow(r, dst)
	return nil
}

// signedIntOps are the integer ops that read their operands as signed.
var signedIntOps = map[string]bool{
	"arith.divsi": true, "arith.remsi": true, "arith.ceildivsi": true, "arith.shrsi": true,
	"arith.maxsi": true, "arith.minsi": true,
}

// narrow keeps an integer result narrower than 32 bits zero-extended.
func (fe *fnEmitter) narrow(r *ir.Value, dst vm.Reg) {
	w := intWidth(r.Type)
	if w == 0 || w >= 32 {
		return
	}
	fe.scalars[r] = fe.normalize(r.Type, dst)
}

// intCast converts between integer types (index is i64): truncation keeps
// the low bits, extension is signed or not.
func (fe *fnEmitter) intCast(from, to ir.Type, signed bool, dst, src vm.Reg) {
	f := fe.f
	fw, tw := intWidth(from), intWidth(to)
	if signed && fw < 32 {
		src = fe.signExtend(from, src)
	}
	switch {
	case fw == 64 && tw == 64:
		f.Emit(vm.OpMovI64, dst, src)
	case fw == 64:
		if tw == 32 {
			f.Emit(vm.OpTruncI64I32, dst, src)
			return
		}
		t := f.NewI32()
		f.Emit(vm.OpTruncI64I32, t, src)
		f.Emit(vm.OpMovI32, dst, fe.normalize(to, t))
	case tw == 64:
		if signed {
			f.Emit(vm.OpExtI32I64S, dst, src)
		} else {
			f.Emit(vm.OpExtI32I64U, dst, src)
		}
	case tw < 32:
		f.Emit(vm.OpMovI32, dst, fe.normalize(to, src))
	default:
		f.Emit(vm.OpMovI32, dst, src)
	}
}

// cmpf emits an arith.cmpf predicate: ordered predicates are false when
// either operand is NaN, unordered ones true.
func (fe *fnEmitter) cmpf(pred string, wide bool, dst, a, b vm.Reg) {
	f := fe.f
	pick := func(o32, o64 vm.Opcode) vm.Opcode {
		if wide {
			return o64
		}
		return o32
	}
	isNaN := func() vm.Reg {
		x, y, o := f.NewI32(), f.NewI32(), f.NewI32()
		f.Emit(pick(vm.OpCmpNaNF32, vm.OpCmpNaNF64), x, a)
		f.Emit(pick(vm.OpCmpNaNF32, vm.OpCmpNaNF64), y, b)
		f.Emit(vm.OpOrI32, o, x, y)
		return o
	}
	base := map[string][2]vm.Opcode{
		"eq": {vm.OpCmpEqF32, vm.OpCmpEqF64}, "gt": {vm.OpCmpGtF32, vm.OpCmpGtF64},
		"ge": {vm.OpCmpGteF32, vm.OpCmpGteF64}, "lt": {vm.OpCmpLtF32, vm.OpCmpLtF64},
		"le": {vm.OpCmpLteF32, vm.OpCmpLteF64},
	}
	switch pred {
	case "false":
		f.ConstI32(dst, 0)
	case "true":
		f.ConstI32(dst, 1)
	case "ord":
		n := isNaN()
		f.Emit(vm.OpXorI32, dst, n, fe.i32(1))
	case "uno":
		f.Emit(vm.OpMovI32, dst, isNaN())
	case "one":
		// Ordered and not equal: neither is NaN and a != b.
		ne, n, ord := f.NewI32(), isNaN(), f.NewI32()
		f.Emit(pick(vm.OpCmpNeF32, vm.OpCmpNeF64), ne, a, b)
		f.Emit(vm.OpXorI32, ord, n, fe.i32(1))
		f.Emit(vm.OpAndI32, dst, ne, ord)
	case "une":
		f.Emit(pick(vm.OpCmpNeF32, vm.OpCmpNeF64), dst, a, b)
	default:
		ops := base[pred[1:]]
		if pred[0] == 'o' {
			// The VM's comparisons are ordered already.
			f.Emit(pick(ops[0], ops[1]), dst, a, b)
			return
		}
		// Unordered: NaN or the ordered comparison.
		c := f.NewI32()
		f.Emit(pick(ops[0], ops[1]), c, a, b)
		f.Emit(vm.OpOrI32, dst, c, isNaN())
	}
}

// numMinMax emits maxnumf/minnumf: a NaN operand yields the other one.
func (fe *fnEmitter) numMinMax(isMax bool, k vm.ValueKind, dst, a, b vm.Reg) {
	f := fe.f
	wide := k == vm.KindF64
	op, nan, sel := vm.OpMinF32, vm.OpCmpNaNF32, vm.OpSelectF32
	switch {
	case isMax && wide:
		op, nan, sel = vm.OpMaxF64, vm.OpCmpNaNF64, vm.OpSelectF64
	case isMax:
		op = vm.OpMaxF32
	case wide:
		op, nan, sel = vm.OpMinF64, vm.OpCmpNaNF64, vm.OpSelectF64
	}
	m, t := f.NewReg(k), f.NewReg(k)
	an, bn := f.NewI32(), f.NewI32()
	f.Emit(op, m, a, b)
	f.Emit(nan, bn, b)
	f.Emit(sel, t, bn, a, m)
	f.Emit(nan, an, a)
	f.Emit(sel, dst, an, b, t)
}

// intToFloat emits sitofp/uitofp from any integer width to f32 or f64.
func (fe *fnEmitter) intToFloat(from ir.Type, signed bool, k vm.ValueKind, dst, src vm.Reg) error {
	f := fe.f
	w := intWidth(from)
	if w < 32 {
		if signed {
			src = fe.signExtend(from, src)
		}
		w = 32
	}
	if w == 32 {
		if k == vm.KindF32 {
			if signed {
				f.Emit(vm.OpCastSI32F32, dst, src)
			} else {
				f.Emit(vm.OpCastUI32F32, dst, src)
			}
			return nil
		}
		wide := f.NewI64()
		if signed {
			f.Emit(vm.OpExtI32I64S, wide, src)
		} else {
			f.Emit(vm.OpExtI32I64U, wide, src)
		}
		src = wide
	}
	switch {
	case k == vm.KindF32 && signed:
		f.Emit(vm.OpCastSI64F32, dst, src)
	case k == vm.KindF32:
		d := f.NewF64()
		f.Emit(vm.OpCastUI64F64, d, src)
		f.Emit(vm.OpTruncF64F32, dst, d)
	case signed:
		f.Emit(vm.OpCastSI64F64, dst, src)
	default:
		f.Emit(vm.OpCastUI64F64, dst, src)
	}
	return nil
}

// floatToInt emits fptosi/fptoui (toward zero, saturating at the
// intermediate width).
func (fe *fnEmitter) floatToInt(from, to ir.Type, signed bool, dst, src vm.Reg) {
	f := fe.f
	fk, _ := kindOf(from)
	w := intWidth(to)
	if fk == vm.KindF32 && w <= 32 {
		out := dst
		if w < 32 {
			out = f.NewI32()
		}
		if signed {
			f.Emit(vm.OpCastF32SI32, out, src)
		} else {
			f.Emit(vm.OpCastF32UI32, out, src)
		}
		if w < 32 {
			f.Emit(vm.OpMovI32, dst, fe.normalize(to, out))
		}
		return
	}
	if fk == vm.KindF32 {
		if signed {
			f.Emit(vm.OpCastF32SI64, dst, src)
			return
		}
		d := f.NewF64()
		f.Emit(vm.OpExtF32F64, d, src)
		src = d
	}
	out := dst
	if w < 64 {
		out = f.NewI64()
	}
	if signed {
		f.Emit(vm.OpCastF64SI64, out, src)
	} else {
		f.Emit(vm.OpCastF64UI64, out, src)
	}
	if w < 64 {
		t := f.NewI32()
		f.Emit(vm.OpTruncI64I32, t, out)
		if w < 32 {
			t = fe.normalize(to, t)
		}
		f.Emit(vm.OpMovI32, dst, t)
	}
}

func truncOp(to int) vm.Opcode {
	if to <= 8 {
		return vm.OpTruncI32I8
	}
	return vm.OpTruncI32I16
}

func extOp(from int, signed bool) vm.Opcode {
	switch {
	case from <= 8 && signed:
		return vm.OpExtI8I32S
	case from <= 8:
		return vm.OpExtI8I32U
	case signed:
		return vm.OpExtI16I32S
	}
	return vm.OpExtI16I32U
}

// fold records compile-time constants through simple integer ops so that
// static shapes stay static.
func (fe *fnEmitter) fold(op *ir.Operation, r *ir.Value) {
	vals := make([]int64, len(op.Operands))
	for i, v := range op.Operands {
		c, ok := fe.consts[v]
		if !ok {
			return
		}
		vals[i] = c
	}
	switch op.Name {
	case "arith.addi":
		fe.consts[r] = vals[0] + vals[1]
	case "arith.subi":
		fe.consts[r] = vals[0] - vals[1]
	case "arith.muli":
		fe.consts[r] = vals[0] * vals[1]
	case "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui":
		fe.consts[r] = vals[0]
	}
}

// floorDiv emits floor(a / b) for b > 0 (affine semantics) or any b.
func (fe *fnEmitter) floorDiv(k vm.ValueKind, a, b vm.Reg) vm.Reg {
	f := fe.f
	if k == vm.KindI32 {
		q, r, neg, q1, out := f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32(), f.NewI32()
		f.Emit(vm.OpDivI32S, q, a, b)
		f.Emit(vm.OpRemI32S, r, a, b)
		// Adjust when the remainder is non-zero and its sign differs from b's.
		x := f.NewI32()
		f.Emit(vm.OpXorI32, x, r, b)
		f.Emit(vm.OpCmpLtI32S, neg, x, fe.i32(0))
		nz := f.NewI32()
		f.Emit(vm.OpCmpNzI32, nz, r)
		f.Emit(vm.OpAndI32, neg, neg, nz)
		f.Emit(vm.OpSubI32, q1, q, fe.i32(1))
		f.Emit(vm.OpSelectI32, out, neg, q1, q)
		return out
	}
	q, r, q1, out, x := f.NewI64(), f.NewI64(), f.NewI64(), f.NewI64(), f.NewI64()
	neg, nz := f.NewI32(), f.NewI32()
	f.Emit(vm.OpDivI64S, q, a, b)
	f.Emit(vm.OpRemI64S, r, a, b)
	f.Emit(vm.OpXorI64, x, r, b)
	f.Emit(vm.OpCmpLtI64S, neg, x, fe.i64(0))
	f.Emit(vm.OpCmpNzI64, nz, r)
	f.Emit(vm.OpAndI32, neg, neg, nz)
	f.Emit(vm.OpSubI64, q1, q, fe.i64(1))
	f.Emit(vm.OpSelectI64, out, neg, q1, q)
	return out
}

func (fe *fnEmitter) affineApply(op *ir.Operation) error {
	m := affine.Map(op)
	if m == nil || len(m.Results) != 1 {
		return ir.OpErrorf(op, "affine.apply needs a map with one result")
	}
	if len(op.Operands) != m.NumDims+m.NumSyms {
		return ir.OpErrorf(op, "affine map takes %d operands, got %d", m.NumDims+m.NumSyms, len(op.Operands))
	}
	regs := make([]vm.Reg, len(op.Operands))
	allConst := true
	vals := make([]int64, len(op.Operands))
	for i, v := range op.Operands {
		r, err := fe.scalar(op, v)
		if err != nil {
			return err
		}
		regs[i] = r
		c, ok := fe.consts[v]
		allConst = allConst && ok
		vals[i] = c
	}
	if allConst {
		out, err := m.Eval(vals[:m.NumDims], vals[m.NumDims:])
		if err == nil {
			fe.scalars[op.Results[0]] = fe.i64(out[0])
			fe.consts[op.Results[0]] = out[0]
			return nil
		}
	}
	r, err := fe.affineExpr(m.Results[0], regs[:m.NumDims], regs[m.NumDims:])
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	fe.scalars[op.Results[0]] = r
	return nil
}

func (fe *fnEmitter) affineExpr(x *ir.AffineExpr, dims, syms []vm.Reg) (vm.Reg, error) {
	f := fe.f
	switch x.Kind {
	case ir.AffineDim:
		if x.Pos >= len(dims) {
			return vm.Reg{}, fmt.Errorf("d%d out of range", x.Pos)
		}
		return dims[x.Pos], nil
	case ir.AffineSym:
		if x.Pos >= len(syms) {
			return vm.Reg{}, fmt.Errorf("s%d out of range", x.Pos)
		}
		return syms[x.Pos], nil
	case ir.AffineConst:
		return fe.i64(x.Value), nil
	}
	l, err := fe.affineExpr(x.LHS, dims, syms)
	if err != nil {
		return vm.Reg{}, err
	}
	r, err := fe.affineExpr(x.RHS, dims, syms)
	if err != nil {
		return vm.Reg{}, err
	}
	out := f.NewI64()
	switch x.Kind {
	case ir.AffineAdd:
		f.Emit(vm.OpAddI64, out, l, r)
	case ir.AffineMul:
		f.Emit(vm.OpMulI64, out, l, r)
	case ir.AffineCeilDiv:
		f.Emit(vm.OpCeilDivI64S, out, l, r)
	case ir.AffineFloorDiv:
		return fe.floorDiv(vm.KindI64, l, r), nil
	case ir.AffineMod:
		q := fe.floorDiv(vm.KindI64, l, r)
		p := f.NewI64()
		f.Emit(vm.OpMulI64, p, q, r)
		f.Emit(vm.OpSubI64, out, l, p)
	default:
		return vm.Reg{}, fmt.Errorf("unknown affine expression")
	}
	return out, nil
}
