package vmgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/affine"
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/function"
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
}

// tensorVal is the host form of a tensor SSA value.
type tensorVal struct {
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
	scalars map[*ir.Value]vm.Reg
	consts  map[*ir.Value]int64
	tensors map[*ir.Value]*tensorVal
	lastUse map[*ir.Value]int
	dev     vm.Reg
	alloc   vm.Reg
	cb      vm.Reg
	hasCB   bool
	// needBarrier: a recorded command must be ordered before the next one.
	needBarrier bool
	free        []*bufState
	// owned lists every buffer this function allocated, in order.
	owned []*bufState
	index int // index of the op being lowered
	// memo maps constants and byte sizes already computed on every path to
	// the current point to their registers (see scoped).
	memo map[string]vm.Reg
}

func (e *emitter) function(fn *ir.Operation) error {
	cc, err := callingConvention(fn)
	if err != nil {
		return err
	}
	if len(fn.Regions) != 1 || len(fn.Regions[0].Blocks) != 1 {
		return ir.OpErrorf(fn, "host functions must have exactly one block (control flow is not supported)")
	}
	name := fn.SymName()
	f := e.b.Function(name, cc)
	fe := &fnEmitter{e: e, f: f, fn: fn, scalars: map[*ir.Value]vm.Reg{}, consts: map[*ir.Value]int64{},
		tensors: map[*ir.Value]*tensorVal{}, lastUse: map[*ir.Value]int{}, memo: map[string]vm.Reg{}}
	blk := fn.Body()
	for i, op := range blk.Ops {
		ir.Walk(op, func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				fe.lastUse[v] = i
			}
			return true
		})
	}
	fe.loc(fn)
	fe.prologue()
	ft := function.Type(fn)
	if ft == nil || len(ft.Inputs) != len(blk.Args) {
		return ir.OpErrorf(fn, "function type does not match its arguments")
	}
	for i, a := range blk.Args {
		if err := fe.argument(i, a, ft.Inputs[i]); err != nil {
			return err
		}
	}
	for i, op := range blk.Ops {
		fe.index = i
		fe.loc(op)
		if err := fe.op(op); err != nil {
			return err
		}
		fe.releaseDead(op, i)
	}
	e.b.Export(name, f, vm.Attr{Key: "iree.abi", Value: abiAttr(ft)})
	e.exported = append(e.exported, name)
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

// needsDevice reports whether the function records device work.
func needsDevice(fn *ir.Operation) bool {
	need := false
	ir.Walk(fn, func(o *ir.Operation) bool {
		switch o.Name {
		case "flow.dispatch", "tensor.empty":
			need = true
		case "arith.constant":
			if _, ok := o.Results[0].Type.(*ir.TensorType); ok {
				need = true
			}
		}
		return !need
	})
	return need
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
	// One-shot, any category, any queue, no capacity hint.
	f.CallImport(e.imp("hal.command_buffer.create"), []vm.Reg{fe.dev, fe.i32(1), fe.i32(0), fe.i64(-1), fe.i32(0)}, []vm.Reg{fe.cb})
	fe.hasCB = true
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
	for d, n := range tt.Shape {
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
	if _, used := fe.lastUse[a]; !used {
		tv.buf.refs = 0
	}
	return nil
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
		tv.buf.refs--
		if tv.buf.refs == 0 && tv.buf.owned && op.Name != "func.return" {
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
	switch op.Name {
	case "arith.constant":
		return fe.tensorConstant(op)
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
	case "func.return":
		return fe.ret(op)
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
	d, ok := op.Attr("value").(*ir.DenseAttr)
	if !ok {
		return ir.OpErrorf(op, "unsupported constant %s", ir.AttrString(op.Attr("value")))
	}
	if _, used := fe.lastUse[op.Results[0]]; !used {
		return nil
	}
	raw, err := d.RawBytes()
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	if len(raw) > 64*1024 {
		return ir.OpErrorf(op, "tensor constants larger than 64 KiB are not supported (%d bytes)", len(raw))
	}
	var dims []dimVal
	tt, _ := op.Results[0].Type.(*ir.TensorType)
	if tt == nil {
		return ir.OpErrorf(op, "constant must be a tensor")
	}
	for _, n := range tt.Shape {
		dims = append(dims, dimVal{static: true, n: n})
	}
	tv, err := fe.newTensor(op, op.Results[0], dims)
	if err != nil {
		return err
	}
	tv.buf = fe.allocate(tv.bytes, dims)
	tv.buf.refs++
	src := fe.f.NewRefReg()
	fe.f.Emit(vm.OpConstRefRodata, src, fe.e.b.Rodata(raw, "application/octet-stream"))
	fe.beforeCommand()
	fe.f.CallImport(fe.e.imp("hal.command_buffer.update_buffer"), []vm.Reg{fe.cb, src, fe.i64(0), tv.buf.reg, fe.i64(0), fe.i64(int64(len(raw)))}, nil)
	fe.barrier()
	fe.tensors[op.Results[0]] = tv
	return nil
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
	if fe.needBarrier {
		fe.f.CallImport(fe.e.imp("hal.command_buffer.execution_barrier"), []vm.Reg{fe.cb, fe.i32(0), fe.i32(0), fe.i64(0)}, nil)
		fe.needBarrier = false
	}
}

func (fe *fnEmitter) ret(op *ir.Operation) error {
	f := fe.f
	if fe.hasCB {
		f.CallImport(fe.e.imp("hal.command_buffer.end"), []vm.Reg{fe.cb}, nil)
		f.CallImport(fe.e.imp("hal.ex.submit_and_wait"), []vm.Reg{fe.dev, fe.cb}, nil)
		fe.releaseTransients(op)
	}
	var regs []vm.Reg
	for _, v := range op.Operands {
		if _, ok := v.Type.(*ir.TensorType); !ok {
			r, err := fe.scalar(op, v)
			if err != nil {
				return err
			}
			regs = append(regs, r)
			continue
		}
		tv, err := fe.tensor(op, v)
		if err != nil {
			return err
		}
		if tv.hasView {
			regs = append(regs, tv.view)
			continue
		}
		var dimRegs []vm.Reg
		for _, d := range tv.dims {
			if d.static {
				dimRegs = append(dimRegs, fe.i64(d.n))
			} else {
				dimRegs = append(dimRegs, d.reg)
			}
		}
		view := f.NewRefReg()
		args := append([]vm.Reg{tv.buf.reg, fe.i64(0), fe.byteSize(tv.bytes, tv.dims), fe.i32(tv.etype), fe.i32(1)}, dimRegs...)
		f.CallImportVariadic(fe.e.imp("hal.buffer_view.create"), []int{len(dimRegs)}, args, []vm.Reg{view})
		tv.view, tv.hasView = view, true
		regs = append(regs, view)
	}
	f.Return(regs...)
	return nil
}

// releaseTransients releases, right after the submission that last used
// them has finished, the command buffer and every buffer this function
// allocated that no result is backed by: overwriting a ref register with
// null drops the VM's reference (as IREE's vm.discard.refs does), so the
// memory is back in the device allocator's pool before the result views
// are made and the function returns.
func (fe *fnEmitter) releaseTransients(ret *ir.Operation) {
	keep := map[*bufState]bool{}
	for _, v := range ret.Operands {
		if tv, ok := fe.tensors[v]; ok && tv.buf != nil {
			keep[tv.buf] = true
		}
	}
	fe.f.Emit(vm.OpConstRefZero, fe.cb)
	for _, b := range fe.owned {
		if !keep[b] {
			fe.f.Emit(vm.OpConstRefZero, b.reg)
		}
	}
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
	if !strings.HasPrefix(op.Name, "arith.") {
		return false, nil
	}
	for _, v := range op.Operands {
		if _, ok := v.Type.(*ir.TensorType); ok {
			return false, nil
		}
	}
	f := fe.f
	k, ok := kindOf(r.Type)
	if !ok {
		return true, ir.OpErrorf(op, "type '%s' is not supported in host code", ir.TypeString(r.Type))
	}
	if op.Name == "arith.constant" {
		dst := f.NewReg(k)
		switch a := op.Attr("value").(type) {
		case ir.IntegerAttr:
			if k == vm.KindI32 {
				f.ConstI32(dst, int32(a.Value))
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
	if io, ok := intBinary[op.Name]; ok {
		code := io.i32
		if k == vm.KindI64 {
			code = io.i64
		}
		f.Emit(code, dst, args[0], args[1])
		fe.scalars[r] = dst
		fe.fold(op, r)
		return true, nil
	}
	if fo, ok := floatBinary[op.Name]; ok {
		code := fo.f32
		if k == vm.KindF64 {
			code = fo.f64
		}
		f.Emit(code, dst, args[0], args[1])
		fe.scalars[r] = dst
		return true, nil
	}
	var at ir.Type
	if len(op.Operands) > 0 {
		at = op.Operands[0].Type
	}
	switch op.Name {
	case "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci":
		from, to := intWidth(at), intWidth(r.Type)
		signed := op.Name == "arith.index_cast" || op.Name == "arith.extsi"
		switch {
		case from == 64 && to == 64, from <= 32 && to <= 32 && from == to:
			if k == vm.KindI64 {
				f.Emit(vm.OpMovI64, dst, args[0])
			} else {
				f.Emit(vm.OpMovI32, dst, args[0])
			}
		case from == 64:
			f.Emit(vm.OpTruncI64I32, dst, args[0])
			if to < 32 {
				t := f.NewI32()
				f.Emit(truncOp(to), t, dst)
				dst = t
			}
		case to == 64:
			src := args[0]
			if from < 32 {
				t := f.NewI32()
				f.Emit(extOp(from, signed), t, src)
				src = t
			}
			if signed {
				f.Emit(vm.OpExtI32I64S, dst, src)
			} else {
				f.Emit(vm.OpExtI32I64U, dst, src)
			}
		case to < from:
			f.Emit(truncOp(to), dst, args[0])
		default:
			f.Emit(extOp(from, signed), dst, args[0])
		}
		fe.scalars[r] = dst
		fe.fold(op, r)
		return true, nil
	case "arith.cmpi":
		n, _ := op.IntAttr("predicate")
		if n < 0 || int(n) >= len(arith.CmpIPredicates) {
			return true, ir.OpErrorf(op, "bad predicate")
		}
		io := cmpiOps[arith.CmpIPredicates[n]]
		code := io.i32
		if intWidth(at) == 64 {
			code = io.i64
		}
		f.Emit(code, dst, args[0], args[1])
		fe.scalars[r] = dst
		return true, nil
	case "arith.select":
		code := map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpSelectI32, vm.KindI64: vm.OpSelectI64, vm.KindF32: vm.OpSelectF32, vm.KindF64: vm.OpSelectF64}[k]
		f.Emit(code, dst, args[0], args[1], args[2])
		fe.scalars[r] = dst
		return true, nil
	case "arith.negf":
		if k == vm.KindF32 {
			f.Emit(vm.OpNegF32, dst, args[0])
		} else {
			f.Emit(vm.OpNegF64, dst, args[0])
		}
		fe.scalars[r] = dst
		return true, nil
	case "arith.floordivsi":
		fe.scalars[r] = fe.floorDiv(k, args[0], args[1])
		return true, nil
	case "arith.sitofp", "arith.uitofp":
		ak, _ := kindOf(at)
		signed := op.Name == "arith.sitofp"
		switch {
		case ak == vm.KindI32 && k == vm.KindF32 && signed:
			f.Emit(vm.OpCastSI32F32, dst, args[0])
		case ak == vm.KindI32 && k == vm.KindF32:
			f.Emit(vm.OpCastUI32F32, dst, args[0])
		case ak == vm.KindI64 && k == vm.KindF32 && signed:
			f.Emit(vm.OpCastSI64F32, dst, args[0])
		case ak == vm.KindI64 && k == vm.KindF64 && signed:
			f.Emit(vm.OpCastSI64F64, dst, args[0])
		case ak == vm.KindI64 && k == vm.KindF64:
			f.Emit(vm.OpCastUI64F64, dst, args[0])
		default:
			return true, ir.OpErrorf(op, "conversion '%s' to '%s' is not supported in host code", ir.TypeString(at), ir.TypeString(r.Type))
		}
		fe.scalars[r] = dst
		return true, nil
	case "arith.extf", "arith.truncf":
		if k == vm.KindF64 {
			f.Emit(vm.OpExtF32F64, dst, args[0])
		} else {
			f.Emit(vm.OpTruncF64F32, dst, args[0])
		}
		fe.scalars[r] = dst
		return true, nil
	}
	return true, ir.OpErrorf(op, "'%s' is not supported in host code", op.Name)
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
