package vmgen

import (
	"fmt"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/vm"
)

// The flow.tensor ops a program (or the tensor-op conversion) leaves in
// host code:
//
//   - constant, dynamic_constant: uploaded like arith.constant;
//   - tie_shape, reshape, bitcast: the same buffer under a new type and
//     dims (a view made from it when one is needed), no copy;
//   - load: hal.buffer.load after a flush, at the element's byte offset;
//   - store: hal.buffer.store after a flush, into the target's buffer when
//     this is the target's last use and the function owns the buffer,
//     else into a copy (copy-on-write);
//   - splat: hal.command_buffer.fill_buffer;
//   - clone: hal.command_buffer.copy_buffer into a new buffer;
//   - empty, alloca: a new buffer.

// flowTensorOp lowers one flow.tensor op; handled is false for other ops.
func (fe *fnEmitter) flowTensorOp(op *ir.Operation) (handled bool, err error) {
	switch op.Name {
	case "flow.tensor.constant", "flow.tensor.dynamic_constant":
		return true, fe.flowConstant(op)
	case "flow.tensor.tie_shape":
		if len(op.Operands) < 1 {
			return true, ir.OpErrorf(op, "flow.tensor.tie_shape needs a tensor")
		}
		return true, fe.retype(op, op.Operands[0], op.Operands[1:])
	case "flow.tensor.reshape", "flow.tensor.bitcast":
		seg, err := segments(op, 3)
		if err != nil {
			return true, err
		}
		if len(seg[0]) != 1 {
			return true, ir.OpErrorf(op, "'%s' needs one source", op.Name)
		}
		return true, fe.retype(op, seg[0][0], seg[2])
	case "flow.tensor.load":
		return true, fe.tensorLoad(op)
	case "flow.tensor.store":
		return true, fe.tensorStore(op)
	case "flow.tensor.splat":
		return true, fe.tensorSplat(op)
	case "flow.tensor.clone":
		return true, fe.tensorClone(op)
	case "flow.tensor.empty", "flow.tensor.alloca":
		dims, err := fe.resultDims(op, op.Results[0].Type, op.Operands)
		if err != nil {
			return true, err
		}
		tv, err := fe.newTensor(op, op.Results[0], dims)
		if err != nil {
			return true, err
		}
		tv.buf = fe.allocate(tv.bytes, dims)
		tv.buf.refs++
		fe.tensors[op.Results[0]] = tv
		return true, nil
	}
	return false, nil
}

// flowConstant materializes flow.tensor.constant; a dynamic_constant has
// the value's static extents under a type that hides them.
func (fe *fnEmitter) flowConstant(op *ir.Operation) error {
	if !fe.used(op.Results[0]) {
		return nil
	}
	d, ok := op.Attr("value").(*ir.DenseAttr)
	if !ok {
		return ir.OpErrorf(op, "unsupported constant %s", ir.AttrString(op.Attr("value")))
	}
	tv, err := fe.materialize(op, d, d.Type)
	if err != nil {
		return err
	}
	tt, ok := op.Results[0].Type.(*ir.TensorType)
	if !ok {
		return ir.OpErrorf(op, "result must be a ranked tensor")
	}
	tv.typ = tt
	tv.buf.refs++
	fe.tensors[op.Results[0]] = tv
	return nil
}

// retype gives op's result the buffer of src with the result's type and
// dims (the dynamic ones from dyn). The element size may change (a
// bitcast); the byte size must not, which the verifier checks for static
// shapes.
func (fe *fnEmitter) retype(op *ir.Operation, src *ir.Value, dyn []*ir.Value) error {
	tv, err := fe.tensor(op, src)
	if err != nil {
		return err
	}
	dims, err := fe.resultDims(op, op.Results[0].Type, dyn)
	if err != nil {
		return err
	}
	out, err := fe.newTensor(op, op.Results[0], dims)
	if err != nil {
		return err
	}
	out.buf = tv.buf
	out.buf.refs++
	if out.etype == tv.etype && sameDims(out.dims, tv.dims) && tv.hasView && tv.def == fe.block {
		out.view, out.hasView = tv.view, true
	}
	fe.tensors[op.Results[0]] = out
	return nil
}

func sameDims(a, b []dimVal) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].key() != b[i].key() {
			return false
		}
	}
	return true
}

// elementOffset returns the byte offset of the element at indices in a
// row-major tensor.
func (fe *fnEmitter) elementOffset(op *ir.Operation, tv *tensorVal, indices []*ir.Value) (vm.Reg, error) {
	if len(indices) != len(tv.dims) {
		return vm.Reg{}, ir.OpErrorf(op, "%d indices for a rank-%d tensor", len(indices), len(tv.dims))
	}
	f := fe.f
	var acc vm.Reg
	for i, idx := range indices {
		r, err := fe.scalar(op, idx)
		if err != nil {
			return vm.Reg{}, err
		}
		if r.Kind() != vm.KindI64 {
			return vm.Reg{}, ir.OpErrorf(op, "indices must be index values")
		}
		if i == 0 {
			acc = r
			continue
		}
		m, s := f.NewI64(), f.NewI64()
		f.Emit(vm.OpMulI64, m, acc, fe.dimReg(tv.dims[i]))
		f.Emit(vm.OpAddI64, s, m, r)
		acc = s
	}
	if len(indices) == 0 {
		return fe.i64(0), nil
	}
	off := f.NewI64()
	f.Emit(vm.OpMulI64, off, acc, fe.i64(tv.bytes))
	return off, nil
}

// checkIndices fails unless every index is inside its dimension.
func (fe *fnEmitter) checkIndices(op *ir.Operation, tv *tensorVal, indices []*ir.Value) error {
	f := fe.f
	var ok vm.Reg
	for i, idx := range indices {
		r, err := fe.scalar(op, idx)
		if err != nil {
			return err
		}
		in := f.NewI32()
		// Unsigned: a negative index is out of range too.
		f.Emit(vm.OpCmpLtI64U, in, r, fe.dimReg(tv.dims[i]))
		if i == 0 {
			ok = in
			continue
		}
		both := f.NewI32()
		f.Emit(vm.OpAndI32, both, ok, in)
		ok = both
	}
	if len(indices) > 0 {
		fe.failUnless(ok, codeOutOfRange, fmt.Sprintf("'%s': index out of range for %s", op.Name, ir.TypeString(tv.typ)))
	}
	return nil
}

// tensorLoad reads one element on the host.
func (fe *fnEmitter) tensorLoad(op *ir.Operation) error {
	seg, err := segments(op, 3)
	if err != nil {
		return err
	}
	if len(seg[0]) != 1 {
		return ir.OpErrorf(op, "flow.tensor.load needs one source")
	}
	tv, err := fe.tensor(op, seg[0][0])
	if err != nil {
		return err
	}
	r := op.Results[0]
	k, ok := kindOf(r.Type)
	if !ok || tv.bytes > 8 {
		return ir.OpErrorf(op, "loading '%s' elements on the host is not supported", ir.TypeString(r.Type))
	}
	if err := fe.checkIndices(op, tv, seg[2]); err != nil {
		return err
	}
	off, err := fe.elementOffset(op, tv, seg[2])
	if err != nil {
		return err
	}
	fe.flush(nil, false)
	f := fe.f
	load := func(at vm.Reg, width int64) vm.Reg {
		v := f.NewI32()
		f.CallImport(fe.e.imp("hal.buffer.load"), []vm.Reg{tv.buf.reg, at, fe.i32(int32(width))}, []vm.Reg{v})
		return v
	}
	dst := f.NewReg(k)
	fe.scalars[r] = dst
	if tv.bytes < 8 {
		v := load(off, tv.bytes)
		switch k {
		case vm.KindI32:
			f.Emit(vm.OpMovI32, dst, v)
		case vm.KindF32:
			f.Emit(vm.OpBitcastI32F32, dst, v)
		default:
			return ir.OpErrorf(op, "loading '%s' elements on the host is not supported", ir.TypeString(r.Type))
		}
		return nil
	}
	// Eight bytes: two little-endian halves.
	hiOff := f.NewI64()
	f.Emit(vm.OpAddI64, hiOff, off, fe.i64(4))
	lo, hi := load(off, 4), load(hiOff, 4)
	lo64, hi64, sh, bits := f.NewI64(), f.NewI64(), f.NewI64(), f.NewI64()
	f.Emit(vm.OpExtI32I64U, lo64, lo)
	f.Emit(vm.OpExtI32I64U, hi64, hi)
	f.Emit(vm.OpShlI64, sh, hi64, fe.i64(32))
	f.Emit(vm.OpOrI64, bits, sh, lo64)
	if k == vm.KindF64 {
		f.Emit(vm.OpBitcastI64F64, dst, bits)
	} else {
		f.Emit(vm.OpMovI64, dst, bits)
	}
	return nil
}

// storeElement writes value (a register of the element's kind) at off.
func (fe *fnEmitter) storeElement(buf, off, value vm.Reg, bytes int64) {
	f := fe.f
	store := func(v, at vm.Reg, width int64) {
		f.CallImport(fe.e.imp("hal.buffer.store"), []vm.Reg{v, buf, at, fe.i32(int32(width))}, nil)
	}
	switch value.Kind() {
	case vm.KindI32:
		store(value, off, bytes)
		return
	case vm.KindF32:
		v := f.NewI32()
		f.Emit(vm.OpBitcastF32I32, v, value)
		store(v, off, 4)
		return
	}
	bits := value
	if value.Kind() == vm.KindF64 {
		bits = f.NewI64()
		f.Emit(vm.OpBitcastF64I64, bits, value)
	}
	lo, hi, sh := f.NewI32(), f.NewI32(), f.NewI64()
	f.Emit(vm.OpTruncI64I32, lo, bits)
	f.Emit(vm.OpShrI64U, sh, bits, fe.i64(32))
	f.Emit(vm.OpTruncI64I32, hi, sh)
	hiOff := f.NewI64()
	f.Emit(vm.OpAddI64, hiOff, off, fe.i64(4))
	store(lo, off, 4)
	store(hi, hiOff, 4)
}

// tensorStore writes one element, in place when the target is dead after
// this op and owned here, else into a copy.
func (fe *fnEmitter) tensorStore(op *ir.Operation) error {
	seg, err := segments(op, 4)
	if err != nil {
		return err
	}
	if len(seg[0]) != 1 || len(seg[1]) != 1 {
		return ir.OpErrorf(op, "flow.tensor.store needs a value and a target")
	}
	val, target := seg[0][0], seg[1][0]
	tv, err := fe.tensor(op, target)
	if err != nil {
		return err
	}
	v, err := fe.scalar(op, val)
	if err != nil {
		return err
	}
	if tv.bytes > 8 || (v.Kind() == vm.KindI32 && tv.bytes > 4) {
		return ir.OpErrorf(op, "storing '%s' elements on the host is not supported", ir.TypeString(val.Type))
	}
	if err := fe.checkIndices(op, tv, seg[3]); err != nil {
		return err
	}
	off, err := fe.elementOffset(op, tv, seg[3])
	if err != nil {
		return err
	}
	buf := tv.buf
	if !(buf.owned && !buf.pinned && buf.refs == 1 && fe.lastUse[target] == fe.index) {
		nb := fe.allocate(tv.bytes, tv.dims)
		fe.beforeCommand()
		fe.f.CallImport(fe.e.imp("hal.command_buffer.copy_buffer"), []vm.Reg{fe.cb, buf.reg, fe.i64(0), nb.reg, fe.i64(0), fe.byteSize(tv.bytes, tv.dims)}, nil)
		fe.barrier()
		buf = nb
	}
	fe.flush(map[*bufState]bool{buf: true}, false)
	fe.storeElement(buf.reg, off, v, tv.bytes)
	out := &tensorVal{typ: tv.typ, dims: tv.dims, bytes: tv.bytes, etype: tv.etype, buf: buf}
	buf.refs++
	fe.tensors[op.Results[0]] = out
	return nil
}

// tensorSplat fills a new buffer with one value.
func (fe *fnEmitter) tensorSplat(op *ir.Operation) error {
	if len(op.Operands) < 1 {
		return ir.OpErrorf(op, "flow.tensor.splat needs a value")
	}
	dims, err := fe.resultDims(op, op.Results[0].Type, op.Operands[1:])
	if err != nil {
		return err
	}
	tv, err := fe.newTensor(op, op.Results[0], dims)
	if err != nil {
		return err
	}
	v, err := fe.scalar(op, op.Operands[0])
	if err != nil {
		return err
	}
	if tv.bytes == 8 && (v.Kind() == vm.KindI64 || v.Kind() == vm.KindF64) {
		tv.buf = fe.allocate(tv.bytes, dims)
		tv.buf.refs++
		fe.splatWide(tv, v)
		fe.tensors[op.Results[0]] = tv
		return nil
	}
	pattern := v
	switch v.Kind() {
	case vm.KindF32:
		pattern = fe.f.NewI32()
		fe.f.Emit(vm.OpBitcastF32I32, pattern, v)
	case vm.KindI32:
	default:
		return ir.OpErrorf(op, "splatting '%s' elements on the host is not supported", ir.TypeString(op.Operands[0].Type))
	}
	if tv.bytes > 4 {
		return ir.OpErrorf(op, "splatting '%s' elements on the host is not supported", ir.TypeString(tv.typ.Elem))
	}
	tv.buf = fe.allocate(tv.bytes, dims)
	tv.buf.refs++
	fe.beforeCommand()
	fe.f.CallImport(fe.e.imp("hal.command_buffer.fill_buffer"), []vm.Reg{fe.cb, tv.buf.reg, fe.i64(0), fe.byteSize(tv.bytes, dims), pattern, fe.i32(int32(tv.bytes))}, nil)
	fe.barrier()
	fe.tensors[op.Results[0]] = tv
	return nil
}

// splatWide fills tv's buffer with an 8-byte value, which is wider than
// any fill pattern: the host writes the first element (after a flush, so
// no pending command still uses a reused buffer), then copies double the
// filled prefix until the buffer is full, each copy ordered after the
// last.
func (fe *fnEmitter) splatWide(tv *tensorVal, v vm.Reg) {
	f := fe.f
	size := fe.byteSize(tv.bytes, tv.dims)
	fe.flush(map[*bufState]bool{tv.buf: true}, false)
	nonEmpty := f.NewI32()
	f.Emit(vm.OpCmpGtI64S, nonEmpty, size, fe.i64(0))
	fill, done := f.NewLabel(), f.NewLabel()
	f.CondBr(nonEmpty, fill, done)
	f.Bind(fill)
	fe.scoped(func() error {
		fe.storeElement(tv.buf.reg, fe.i64(0), v, 8)
		return nil
	})
	// The command buffer is created on both paths, before the loop.
	f.Bind(done)
	fe.ensureCB()
	filled := f.NewI64()
	f.Emit(vm.OpMovI64, filled, fe.i64(8))
	loop, body, out := f.NewLabel(), f.NewLabel(), f.NewLabel()
	f.Bind(loop)
	more := f.NewI32()
	f.Emit(vm.OpCmpLtI64S, more, filled, size)
	f.CondBr(more, body, out)
	f.Bind(body)
	fe.scoped(func() error {
		rest, n := f.NewI64(), f.NewI64()
		f.Emit(vm.OpSubI64, rest, size, filled)
		f.Emit(vm.OpMinI64S, n, rest, filled)
		f.CallImport(fe.e.imp("hal.command_buffer.copy_buffer"), []vm.Reg{fe.cb, tv.buf.reg, fe.i64(0), tv.buf.reg, filled, n}, nil)
		f.CallImport(fe.e.imp("hal.command_buffer.execution_barrier"), []vm.Reg{fe.cb, fe.i32(0), fe.i32(0), fe.i64(0)}, nil)
		f.Emit(vm.OpAddI64, filled, filled, n)
		return nil
	})
	f.Br(loop)
	f.Bind(out)
	fe.needBarrier = false
}

// tensorClone copies a tensor into a new buffer.
func (fe *fnEmitter) tensorClone(op *ir.Operation) error {
	if len(op.Operands) < 1 {
		return ir.OpErrorf(op, "flow.tensor.clone needs a tensor")
	}
	src, err := fe.tensor(op, op.Operands[0])
	if err != nil {
		return err
	}
	tv, err := fe.newTensor(op, op.Results[0], src.dims)
	if err != nil {
		return err
	}
	tv.buf = fe.allocate(tv.bytes, src.dims)
	tv.buf.refs++
	fe.beforeCommand()
	fe.f.CallImport(fe.e.imp("hal.command_buffer.copy_buffer"), []vm.Reg{fe.cb, src.buf.reg, fe.i64(0), tv.buf.reg, fe.i64(0), fe.byteSize(tv.bytes, src.dims)}, nil)
	fe.barrier()
	fe.tensors[op.Results[0]] = tv
	return nil
}
