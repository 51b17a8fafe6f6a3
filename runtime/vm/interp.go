package vm

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/goiree/goiree/runtime/base/status"
)

// frame is one activation on the executor's call stack.
type frame struct {
	mi   *moduleInstance
	fi   int
	fn   *function
	pc   int              // in a caller: offset of its call's result list
	at   int              // in a caller: offset of its call instruction
	base [KindRef + 1]int // first register of each bank
	w    window           // the frame's registers (re-sliced when the stacks grow)
	// borrowed is the number of leading ref registers holding arguments
	// borrowed from the caller (not retained, not released on pop): set
	// for functions that never write their argument registers
	// (function.argRefsReadOnly), whose caller keeps the arguments alive
	// for the call.
	borrowed int
}

// executor runs bytecode for one context. Its register stacks and native
// call frame are reused across invocations.
type executor struct {
	inst   *Instance
	i32    []int32
	i64    []int64
	f32    []float32
	f64    []float64
	refs   []Ref
	top    [KindRef + 1]int
	frames []frame
	call   NativeCall
	args   []Value
	// argsUsed bounds the argument slots that may hold a ref since the
	// invocation started (see loadArgs).
	argsUsed int
	res      []Value
	segs     []int
	trace    io.Writer
	limit    int64 // branches and calls allowed per invocation; 0 = no limit
	steps    int64 // remaining in the current invocation (0 = unlimited)
}

func (ex *executor) init(inst *Instance) {
	ex.inst = inst
	ex.frames = make([]frame, 0, 16)
	ex.i32 = make([]int32, 256)
	ex.i64 = make([]int64, 256)
	ex.f32 = make([]float32, 64)
	ex.f64 = make([]float64, 64)
	ex.refs = make([]Ref, 256)
	ex.args = make([]Value, 0, 32)
	ex.res = make([]Value, 0, 8)
	ex.segs = make([]int, 0, 4)
	ex.call.ex = ex
}

// r16 reads the 16-bit operand at offset p of code.
func r16(code []byte, p int) int { return le16(code[p:]) }

// le16 reads a little-endian register index or length operand.
//
// The interpreter spells out 32- and 64-bit operand reads byte by byte
// instead of calling binary.LittleEndian: in a function as big as exec the
// compiler only inlines callees of very low cost, and those calls are not;
// the spelled-out form compiles to one load.
func le16(b []byte) int { return int(binary.LittleEndian.Uint16(b)) }

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func refEq(a, b Ref) bool { return a.obj == b.obj }

// push allocates registers for a call of fi in mi. Scalar registers are
// zeroed here; ref registers above the top of the stack are always null
// (pop and reset clear them, and the stacks grow with null refs), so they
// need no clearing.
func (ex *executor) push(mi *moduleInstance, fi int) error {
	n := len(ex.frames)
	if n >= ex.inst.maxStackDepth {
		return status.Errorf(status.ResourceExhausted, "call stack exceeds %d frames", ex.inst.maxStackDepth)
	}
	f := &mi.module.funcs[fi]
	c, b := &f.regCounts, ex.top
	e := [KindRef + 1]int{0, b[KindI32] + c[KindI32], b[KindI64] + c[KindI64], b[KindF32] + c[KindF32], b[KindF64] + c[KindF64], b[KindRef] + c[KindRef]}
	if max(e[KindI32], e[KindI64], e[KindF32], e[KindF64], e[KindRef]) > ex.inst.maxRegisters {
		for k := KindI32; k <= KindRef; k++ {
			if e[k] > ex.inst.maxRegisters {
				return status.Errorf(status.ResourceExhausted, "call stack exceeds %d %s registers", ex.inst.maxRegisters, k)
			}
		}
	}
	if e[KindI32] > len(ex.i32) || e[KindI64] > len(ex.i64) || e[KindF32] > len(ex.f32) || e[KindF64] > len(ex.f64) || e[KindRef] > len(ex.refs) {
		ex.grow(e)
	}
	if n == cap(ex.frames) {
		ex.frames = append(ex.frames, frame{})
	}
	// The frame is filled in place: building it aside and copying it in
	// costs wide copies that stall on the narrow stores just made.
	ex.frames = ex.frames[:n+1]
	fr := &ex.frames[n]
	fr.mi, fr.fi, fr.fn, fr.pc, fr.at, fr.borrowed = mi, fi, f, 0, 0, 0
	fr.base = b
	ex.top = e
	// Most functions use only some banks; an unused bank's window keeps
	// its (stale) pointer with length 0, which writes no pointer.
	w := &fr.w
	if c[KindI32] > 0 {
		w.i32 = ex.i32[b[KindI32]:e[KindI32]]
		clear(w.i32)
	} else {
		w.i32 = w.i32[:0]
	}
	if c[KindI64] > 0 {
		w.i64 = ex.i64[b[KindI64]:e[KindI64]]
		clear(w.i64)
	} else {
		w.i64 = w.i64[:0]
	}
	if c[KindF32] > 0 {
		w.f32 = ex.f32[b[KindF32]:e[KindF32]]
		clear(w.f32)
	} else {
		w.f32 = w.f32[:0]
	}
	if c[KindF64] > 0 {
		w.f64 = ex.f64[b[KindF64]:e[KindF64]]
		clear(w.f64)
	} else {
		w.f64 = w.f64[:0]
	}
	if c[KindRef] > 0 {
		w.refs = ex.refs[b[KindRef]:e[KindRef]]
	} else {
		w.refs = w.refs[:0]
	}
	return nil
}

// grow grows the register stacks to hold top registers (at least
// doubling), copying the live registers, and re-slices the windows of the
// frames on the stack.
func (ex *executor) grow(top [KindRef + 1]int) {
	ex.i32 = growBank(ex.i32, top[KindI32])
	ex.i64 = growBank(ex.i64, top[KindI64])
	ex.f32 = growBank(ex.f32, top[KindF32])
	ex.f64 = growBank(ex.f64, top[KindF64])
	ex.refs = growBank(ex.refs, top[KindRef])
	for i := range ex.frames {
		fr := &ex.frames[i]
		b, w := &fr.base, &fr.w
		w.i32 = ex.i32[b[KindI32] : b[KindI32]+len(w.i32)]
		w.i64 = ex.i64[b[KindI64] : b[KindI64]+len(w.i64)]
		w.f32 = ex.f32[b[KindF32] : b[KindF32]+len(w.f32)]
		w.f64 = ex.f64[b[KindF64] : b[KindF64]+len(w.f64)]
		w.refs = ex.refs[b[KindRef] : b[KindRef]+len(w.refs)]
	}
}

func growBank[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	return append(s, make([]T, max(n, 2*len(s))-len(s))...)
}

// pop releases the top frame's registers, releasing the objects its ref
// registers hold.
func (ex *executor) pop() {
	fr := &ex.frames[len(ex.frames)-1]
	if refs := fr.w.refs; len(refs) > 0 {
		// Only counted refs the frame owns need a call; one clear then
		// drops them all.
		for i := fr.borrowed; i < len(refs); i++ {
			if t := refs[i].typ; t != nil && t.counted.Load() {
				_ = releaseCounted(refs[i])
			}
		}
		clear(refs)
	}
	ex.top = fr.base
	ex.frames = ex.frames[:len(ex.frames)-1]
}

// reset drops every frame after an error.
func (ex *executor) reset() {
	for len(ex.frames) > 0 {
		ex.pop()
	}
	ex.top = [KindRef + 1]int{}
	clear(ex.args[:cap(ex.args)])
	clear(ex.res[:cap(ex.res)])
	ex.argsUsed = 0
}

// where formats the current position for error messages.
func (ex *executor) where(fr *frame, pc int) string {
	s := fmt.Sprintf("%s.%s+%d", fr.mi.module.name, fr.fn.name, pc)
	if loc := fr.mi.module.SourceLocation(fr.fi, pc); loc != "" {
		s += " (" + loc + ")"
	}
	return s
}

// trap builds a runtime error at pc of the top frame, with a backtrace.
func (ex *executor) trap(code status.Code, pc int, msg string) error {
	return ex.trapErr(status.New(code, msg), pc)
}

func (ex *executor) trapErr(err error, pc int) error {
	fr := &ex.frames[len(ex.frames)-1]
	trace := "at " + ex.where(fr, pc)
	for i := len(ex.frames) - 2; i >= 0; i-- {
		trace += ", called from " + ex.where(&ex.frames[i], ex.frames[i].at)
	}
	return fmt.Errorf("%w; %s", err, trace)
}

// run executes internal function fi of mi with args and stores its results.
func (ex *executor) run(mi *moduleInstance, fi int, args, results []Value) error {
	if err := ex.push(mi, fi); err != nil {
		return err
	}
	fr := &ex.frames[len(ex.frames)-1]
	ex.steps = 0
	if ex.limit > 0 {
		ex.steps = ex.limit + 1
	}
	var next [KindRef + 1]int
	for i, a := range fr.fn.sig.Args {
		fr.writeArg(a.Kind, next[a.Kind], &args[i])
		next[a.Kind]++
	}
	if err := ex.loop(results); err != nil {
		ex.reset()
		return err
	}
	// On success callNative has already cleared its result slots; the
	// argument slots used and the bottom frame's registers remain to drop.
	dropRefs(ex.args[:ex.argsUsed])
	ex.argsUsed = 0
	for len(ex.frames) > 0 {
		ex.pop()
	}
	ex.top = [KindRef + 1]int{}
	return nil
}

// refResult returns the ref in register r of a returning frame fr for
// result j of the return whose result registers are listed at code[at:]
// (kinds are the function's result kinds). The frame is about to pop,
// which would release the register: instead the last result naming r
// takes the register's reference with it (the register is nulled), and
// an earlier result naming r too retains one of its own. This saves a
// retain and a release per returned ref. A borrowed argument register
// has no reference to give: its result is retained.
func refResult(fr *frame, kinds []ValueKind, code []byte, at, j, r int) Ref {
	w := &fr.w
	ref := w.refs[r]
	if r < fr.borrowed {
		retainRef(ref)
		return ref
	}
	for i := j + 1; i < len(kinds); i++ {
		if kinds[i] == KindRef && r16(code, at+2*i) == r {
			retainRef(ref)
			return ref
		}
	}
	w.refs[r] = Ref{}
	return ref
}

// writeArg stores an argument of the newly pushed frame fr in register r
// of bank k (arguments are stored in order). A function that never writes
// its argument registers borrows its ref arguments (the caller's
// reference outlives the call: a Go caller's for the call, a bytecode
// caller's register while it waits), saving a retain and a release per
// ref argument; others retain them as any register store does.
func (fr *frame) writeArg(k ValueKind, r int, v *Value) {
	if k == KindRef && fr.fn.argRefsReadOnly {
		fr.w.refs[r] = v.ref
		fr.borrowed = r + 1
		return
	}
	fr.w.write(k, r, v)
}

// window is the register banks of one frame, resliced to its register
// counts; the verifier has checked every register operand against them.
type window struct {
	i32  []int32
	i64  []int64
	f32  []float32
	f64  []float64
	refs []Ref
}

// read returns register r of bank k.
func (w *window) read(k ValueKind, r int) Value {
	switch k {
	case KindI32:
		return I32(w.i32[r])
	case KindI64:
		return I64(w.i64[r])
	case KindF32:
		return F32(w.f32[r])
	case KindF64:
		return F64(w.f64[r])
	case KindRef:
		return RefValue(w.refs[r])
	}
	return Value{}
}

// write stores *v in register r of bank k; a ref is retained and the
// register's old ref released.
func (w *window) write(k ValueKind, r int, v *Value) {
	switch k {
	case KindI32:
		w.i32[r] = int32(uint32(v.bits))
	case KindI64:
		w.i64[r] = int64(v.bits)
	case KindF32:
		w.f32[r] = math.Float32frombits(uint32(v.bits))
	case KindF64:
		w.f64[r] = math.Float64frombits(v.bits)
	case KindRef:
		assignRef(&w.refs[r], &v.ref)
	}
}

// loop is the interpreter. It runs the top frame from its start until the
// bottom frame returns, one exec per stretch of code inside one frame.
// With tracing on it single-steps exec, writing each instruction before
// running it.
func (ex *executor) loop(results []Value) error {
	step := ex.trace != nil
	pc := 0
	for {
		if step {
			ex.traceInstr(&ex.frames[len(ex.frames)-1], pc)
		}
		next, err := ex.exec(results, pc, step)
		if err != nil || next < 0 {
			return err
		}
		pc = next
	}
}

// exec interprets the top frame from offset pc until it calls a bytecode
// function, returns or fails (or, with step set, for one instruction). It
// returns the offset to continue at in the then top frame, or -1 once the
// bottom frame has returned and results are set.
//
// The frame, its code, globals and register window stay fixed for one
// exec: if they changed inside the loop, the compiler would carry them
// around the loop in registers and spill them at the top of every
// instruction.
func (ex *executor) exec(results []Value, pc int, step bool) (int, error) {
	fr := &ex.frames[len(ex.frames)-1]
	code := fr.fn.code
	w := &fr.w
	globals := fr.mi.globals
	for {
		switch Opcode(code[pc]) {
		case OpConstI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = int32((uint32(in[3]) | uint32(in[4])<<8 | uint32(in[5])<<16 | uint32(in[6])<<24))
			pc += 7
		case OpConstI64:
			in := (*[11]byte)(code[pc : pc+11])
			w.i64[le16(in[1:])] = int64((uint64(in[3]) | uint64(in[4])<<8 | uint64(in[5])<<16 | uint64(in[6])<<24 | uint64(in[7])<<32 | uint64(in[8])<<40 | uint64(in[9])<<48 | uint64(in[10])<<56))
			pc += 11
		case OpConstF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.f32[le16(in[1:])] = math.Float32frombits((uint32(in[3]) | uint32(in[4])<<8 | uint32(in[5])<<16 | uint32(in[6])<<24))
			pc += 7
		case OpConstF64:
			in := (*[11]byte)(code[pc : pc+11])
			w.f64[le16(in[1:])] = math.Float64frombits((uint64(in[3]) | uint64(in[4])<<8 | uint64(in[5])<<16 | uint64(in[6])<<24 | uint64(in[7])<<32 | uint64(in[8])<<40 | uint64(in[9])<<48 | uint64(in[10])<<56))
			pc += 11
		case OpConstRefZero:
			in := (*[3]byte)(code[pc : pc+3])
			if r := &w.refs[le16(in[1:])]; r.obj != nil {
				moveRef(r, Ref{})
			}
			pc += 3
		case OpConstRefRodata:
			in := (*[7]byte)(code[pc : pc+7])
			// assignRef, written out: rodata is never counted, so this
			// is a plain store unless the register held a counted ref.
			if dst := &w.refs[le16(in[1:])]; dst.typ.isCounted() {
				assignCounted(dst, &fr.mi.rodataRefs[(uint32(in[3])|uint32(in[4])<<8|uint32(in[5])<<16|uint32(in[6])<<24)])
			} else {
				*dst = fr.mi.rodataRefs[(uint32(in[3]) | uint32(in[4])<<8 | uint32(in[5])<<16 | uint32(in[6])<<24)]
			}
			pc += 7
		case OpGlobalLoadI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = int32(binary.LittleEndian.Uint32(globals[(uint32(in[3]) | uint32(in[4])<<8 | uint32(in[5])<<16 | uint32(in[6])<<24):]))
			pc += 7
		case OpGlobalStoreI32:
			in := (*[7]byte)(code[pc : pc+7])
			binary.LittleEndian.PutUint32(globals[(uint32(in[1])|uint32(in[2])<<8|uint32(in[3])<<16|uint32(in[4])<<24):], uint32(w.i32[le16(in[5:])]))
			pc += 7
		case OpGlobalLoadI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = int64(binary.LittleEndian.Uint64(globals[(uint32(in[3]) | uint32(in[4])<<8 | uint32(in[5])<<16 | uint32(in[6])<<24):]))
			pc += 7
		case OpGlobalStoreI64:
			in := (*[7]byte)(code[pc : pc+7])
			binary.LittleEndian.PutUint64(globals[(uint32(in[1])|uint32(in[2])<<8|uint32(in[3])<<16|uint32(in[4])<<24):], uint64(w.i64[le16(in[5:])]))
			pc += 7
		case OpGlobalLoadF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.f32[le16(in[1:])] = math.Float32frombits(binary.LittleEndian.Uint32(globals[(uint32(in[3]) | uint32(in[4])<<8 | uint32(in[5])<<16 | uint32(in[6])<<24):]))
			pc += 7
		case OpGlobalStoreF32:
			in := (*[7]byte)(code[pc : pc+7])
			binary.LittleEndian.PutUint32(globals[(uint32(in[1])|uint32(in[2])<<8|uint32(in[3])<<16|uint32(in[4])<<24):], math.Float32bits(w.f32[le16(in[5:])]))
			pc += 7
		case OpGlobalLoadF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = math.Float64frombits(binary.LittleEndian.Uint64(globals[(uint32(in[3]) | uint32(in[4])<<8 | uint32(in[5])<<16 | uint32(in[6])<<24):]))
			pc += 7
		case OpGlobalStoreF64:
			in := (*[7]byte)(code[pc : pc+7])
			binary.LittleEndian.PutUint64(globals[(uint32(in[1])|uint32(in[2])<<8|uint32(in[3])<<16|uint32(in[4])<<24):], math.Float64bits(w.f64[le16(in[5:])]))
			pc += 7
		case OpGlobalLoadRef:
			in := (*[7]byte)(code[pc : pc+7])
			// assignRef, written out (the inliner would not): globals
			// mostly hold uncounted refs (device, executables).
			dst, src := &w.refs[le16(in[1:])], &fr.mi.globalRefs[(uint32(in[3])|uint32(in[4])<<8|uint32(in[5])<<16|uint32(in[6])<<24)]
			if src.typ.isCounted() || dst.typ.isCounted() {
				assignCounted(dst, src)
			} else {
				*dst = *src
			}
			pc += 7
		case OpGlobalStoreRef:
			in := (*[7]byte)(code[pc : pc+7])
			assignRef(&fr.mi.globalRefs[(uint32(in[1])|uint32(in[2])<<8|uint32(in[3])<<16|uint32(in[4])<<24)], &w.refs[le16(in[5:])])
			pc += 7
		case OpBufferLength:
			in := (*[5]byte)(code[pc : pc+5])
			r := w.refs[le16(in[3:])]
			b, ok := r.obj.(*Buffer)
			if !ok || r.typ != BufferType {
				return 0, ex.trapErr(status.Errorf(status.InvalidArgument, "buffer.length of %s, want a vm.buffer", r), pc)
			}
			w.i64[le16(in[1:])] = int64(len(b.data))
			pc += 5
		case OpBufferAlloc:
			in := (*[5]byte)(code[pc : pc+5])
			n := w.i64[le16(in[3:])]
			if n < 0 || n > maxBufferAlloc {
				return 0, ex.trapErr(status.Errorf(status.OutOfRange, "buffer.alloc of %d bytes outside [0, %d]", n, int64(maxBufferAlloc)), pc)
			}
			moveRef(&w.refs[le16(in[1:])], NewBuffer(make([]byte, n), false).Ref())
			pc += 5
		case OpBufferClone:
			in := (*[9]byte)(code[pc : pc+9])
			src, err := bufferRange(w.refs[le16(in[3:])], w.i64[le16(in[5:])], w.i64[le16(in[7:])], false)
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			moveRef(&w.refs[le16(in[1:])], NewBuffer(append([]byte(nil), src...), false).Ref())
			pc += 9
		case OpBufferCopy:
			in := (*[11]byte)(code[pc : pc+11])
			n := w.i64[le16(in[9:])]
			src, err := bufferRange(w.refs[le16(in[1:])], w.i64[le16(in[3:])], n, false)
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			dst, err := bufferRange(w.refs[le16(in[5:])], w.i64[le16(in[7:])], n, true)
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			copy(dst, src)
			pc += 11
		case OpBufferFillI8:
			in := (*[9]byte)(code[pc : pc+9])
			dst, err := bufferRange(w.refs[le16(in[1:])], w.i64[le16(in[3:])], w.i64[le16(in[5:])], true)
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			v := byte(w.i32[le16(in[7:])])
			for i := range dst {
				dst[i] = v
			}
			pc += 9
		case OpBufferLoadI8U, OpBufferLoadI8S, OpBufferLoadI16U, OpBufferLoadI16S, OpBufferLoadI32, OpBufferLoadI64, OpBufferLoadF32, OpBufferLoadF64:
			in := (*[7]byte)(code[pc : pc+7])
			op := Opcode(in[0])
			width := loadStoreWidth(op)
			b, err := bufferRange(w.refs[le16(in[3:])], w.i64[le16(in[5:])], width, false)
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			d := le16(in[1:])
			switch op {
			case OpBufferLoadI8U:
				w.i32[d] = int32(b[0])
			case OpBufferLoadI8S:
				w.i32[d] = int32(int8(b[0]))
			case OpBufferLoadI16U:
				w.i32[d] = int32(binary.LittleEndian.Uint16(b))
			case OpBufferLoadI16S:
				w.i32[d] = int32(int16(binary.LittleEndian.Uint16(b)))
			case OpBufferLoadI32:
				w.i32[d] = int32(binary.LittleEndian.Uint32(b))
			case OpBufferLoadI64:
				w.i64[d] = int64(binary.LittleEndian.Uint64(b))
			case OpBufferLoadF32:
				w.f32[d] = math.Float32frombits(binary.LittleEndian.Uint32(b))
			case OpBufferLoadF64:
				w.f64[d] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			}
			pc += 7
		case OpBufferStoreI8, OpBufferStoreI16, OpBufferStoreI32, OpBufferStoreI64, OpBufferStoreF32, OpBufferStoreF64:
			in := (*[7]byte)(code[pc : pc+7])
			op := Opcode(in[0])
			b, err := bufferRange(w.refs[le16(in[1:])], w.i64[le16(in[3:])], loadStoreWidth(op), true)
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			v := le16(in[5:])
			switch op {
			case OpBufferStoreI8:
				b[0] = byte(w.i32[v])
			case OpBufferStoreI16:
				binary.LittleEndian.PutUint16(b, uint16(w.i32[v]))
			case OpBufferStoreI32:
				binary.LittleEndian.PutUint32(b, uint32(w.i32[v]))
			case OpBufferStoreI64:
				binary.LittleEndian.PutUint64(b, uint64(w.i64[v]))
			case OpBufferStoreF32:
				binary.LittleEndian.PutUint32(b, math.Float32bits(w.f32[v]))
			case OpBufferStoreF64:
				binary.LittleEndian.PutUint64(b, math.Float64bits(w.f64[v]))
			}
			pc += 7
		case OpBufferDotF32, OpBufferDotF64:
			in := (*[19]byte)(code[pc : pc+19])
			n := w.i64[le16(in[17:])]
			if Opcode(in[0]) == OpBufferDotF32 {
				acc := w.f32[le16(in[3:])]
				if n > 0 {
					a, as, err := dotRange(w.refs[le16(in[5:])], w.i64[le16(in[7:])], w.i64[le16(in[9:])], n, 4)
					if err != nil {
						return 0, ex.trapErr(err, pc)
					}
					b, bs, err := dotRange(w.refs[le16(in[11:])], w.i64[le16(in[13:])], w.i64[le16(in[15:])], n, 4)
					if err != nil {
						return 0, ex.trapErr(err, pc)
					}
					for i, j := int64(0), int64(0); n > 0; n-- {
						x := math.Float32frombits(binary.LittleEndian.Uint32(a[i:]))
						y := math.Float32frombits(binary.LittleEndian.Uint32(b[j:]))
						acc += float32(x * y) // the conversion keeps Go from fusing the multiply-add
						i, j = i+as, j+bs
					}
				}
				w.f32[le16(in[1:])] = acc
			} else {
				acc := w.f64[le16(in[3:])]
				if n > 0 {
					a, as, err := dotRange(w.refs[le16(in[5:])], w.i64[le16(in[7:])], w.i64[le16(in[9:])], n, 8)
					if err != nil {
						return 0, ex.trapErr(err, pc)
					}
					b, bs, err := dotRange(w.refs[le16(in[11:])], w.i64[le16(in[13:])], w.i64[le16(in[15:])], n, 8)
					if err != nil {
						return 0, ex.trapErr(err, pc)
					}
					for i, j := int64(0), int64(0); n > 0; n-- {
						x := math.Float64frombits(binary.LittleEndian.Uint64(a[i:]))
						y := math.Float64frombits(binary.LittleEndian.Uint64(b[j:]))
						acc += float64(x * y)
						i, j = i+as, j+bs
					}
				}
				w.f64[le16(in[1:])] = acc
			}
			pc += 19
		case OpListAlloc:
			in := (*[5]byte)(code[pc : pc+5])
			n := w.i32[le16(in[3:])]
			if n < 0 || n > maxListSize {
				return 0, ex.trapErr(status.Errorf(status.OutOfRange, "list.alloc capacity %d outside [0, %d]", n, maxListSize), pc)
			}
			moveRef(&w.refs[le16(in[1:])], NewList(int(n)).Ref())
			pc += 5
		case OpListSize:
			in := (*[5]byte)(code[pc : pc+5])
			l, err := listOf(w.refs[le16(in[3:])])
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			w.i32[le16(in[1:])] = int32(l.Len())
			pc += 5
		case OpListResize:
			in := (*[5]byte)(code[pc : pc+5])
			l, err := listOf(w.refs[le16(in[1:])])
			if err == nil {
				err = l.Resize(int(w.i32[le16(in[3:])]))
			}
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			pc += 5
		case OpListGetI32, OpListGetI64, OpListGetF32, OpListGetF64, OpListGetRef:
			in := (*[7]byte)(code[pc : pc+7])
			op := Opcode(in[0])
			k := KindI32 + ValueKind(op-OpListGetI32)
			v, err := listGet(w.refs[le16(in[3:])], w.i32[le16(in[5:])], k)
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			w.write(k, le16(in[1:]), &v)
			pc += 7
		case OpListSetI32, OpListSetI64, OpListSetF32, OpListSetF64, OpListSetRef:
			in := (*[7]byte)(code[pc : pc+7])
			op := Opcode(in[0])
			k := KindI32 + ValueKind(op-OpListSetI32)
			l, err := listOf(w.refs[le16(in[1:])])
			if err == nil {
				err = l.Set(int(w.i32[le16(in[3:])]), w.read(k, le16(in[5:])))
			}
			if err != nil {
				return 0, ex.trapErr(err, pc)
			}
			pc += 7
		case OpBr:
			if ex.steps > 0 {
				if ex.steps--; ex.steps == 0 {
					return 0, ex.trap(status.DeadlineExceeded, pc, "step limit reached")
				}
			}
			in := (*[5]byte)(code[pc : pc+5])
			pc = int(uint32(in[1]) | uint32(in[2])<<8 | uint32(in[3])<<16 | uint32(in[4])<<24)
		case OpCondBr:
			if ex.steps > 0 {
				if ex.steps--; ex.steps == 0 {
					return 0, ex.trap(status.DeadlineExceeded, pc, "step limit reached")
				}
			}
			in := (*[11]byte)(code[pc : pc+11])
			if w.i32[le16(in[1:])] != 0 {
				pc = int((uint32(in[3]) | uint32(in[4])<<8 | uint32(in[5])<<16 | uint32(in[6])<<24))
			} else {
				pc = int((uint32(in[7]) | uint32(in[8])<<8 | uint32(in[9])<<16 | uint32(in[10])<<24))
			}
		case OpFail:
			c := status.Code(w.i32[r16(code, pc+1)])
			if c == status.OK {
				c = status.Unknown
			}
			n := r16(code, pc+3)
			return 0, ex.trap(c, pc, string(code[pc+5:pc+5+n]))
		case OpImportResolved:
			in := (*[7]byte)(code[pc : pc+7])
			imp := &fr.mi.imports[int(uint32(in[3])|uint32(in[4])<<8|uint32(in[5])<<16|uint32(in[6])<<24)]
			w.i32[r16(code, pc+1)] = b2i(imp.native != nil || imp.target != nil)
			pc += 7
		case OpCall, OpCallImport, OpCallImportVariadic:
			if ex.steps > 0 {
				if ex.steps--; ex.steps == 0 {
					return 0, ex.trap(status.DeadlineExceeded, pc, "step limit reached")
				}
			}
			in := (*[5]byte)(code[pc : pc+5])
			op := Opcode(in[0])
			ord := int(uint32(in[1]) | uint32(in[2])<<8 | uint32(in[3])<<16 | uint32(in[4])<<24)
			if op != OpCall {
				if nf := fr.mi.imports[ord].native; nf != nil {
					fr.at = pc // for NativeCall.CallerLocation
					next, err := ex.callNative(w, nf, &fr.fn.sites[fr.fn.siteAt[pc>>siteShift]])
					if err != nil {
						return 0, ex.trapErr(err, pc)
					}
					pc = next
					break
				}
			}
			p := pc + 5
			var segs []int
			if op == OpCallImportVariadic {
				n := r16(code, p)
				if n > cap(ex.segs) {
					ex.segs = make([]int, n)
				}
				segs = ex.segs[:n]
				for j := range segs {
					segs[j] = r16(code, p+2+2*j)
				}
				p += 2 + 2*n
			}
			target, tfi := fr.mi, ord
			if op != OpCall {
				imp := &fr.mi.imports[ord]
				if imp.target == nil {
					return 0, ex.trap(status.NotFound, pc, "optional import "+imp.name+" is not available")
				}
				target, tfi = imp.target, imp.fn
			}
			// Bytecode call: save the caller's position, push the callee and
			// copy the arguments.
			nargs := r16(code, p)
			fr.at = pc
			fr.pc = p + 2 + 2*nargs
			if err := ex.push(target, tfi); err != nil {
				return 0, ex.trapErr(err, pc)
			}
			caller := &ex.frames[len(ex.frames)-2]
			callee := &ex.frames[len(ex.frames)-1]
			var next [KindRef + 1]int
			for j, a := range callee.fn.sig.Args {
				v := caller.w.read(a.Kind, r16(code, p+2+2*j))
				callee.writeArg(a.Kind, next[a.Kind], &v)
				next[a.Kind]++
			}
			return 0, nil
		case OpReturn:
			kinds := fr.fn.sig.Results
			if len(ex.frames) == 1 {
				// The caller owns the results: each ref takes the
				// reference of its register (see refResult).
				for j, k := range kinds {
					r := r16(code, pc+3+2*j)
					if k == KindRef {
						results[j] = RefValue(refResult(fr, kinds, code, pc+3, j, r))
					} else {
						results[j] = w.read(k, r)
					}
				}
				return -1, nil
			}
			caller := &ex.frames[len(ex.frames)-2]
			ccode := caller.fn.code
			for j, k := range kinds {
				r, dst := r16(code, pc+3+2*j), r16(ccode, caller.pc+2+2*j)
				if k == KindRef {
					moveRef(&caller.w.refs[dst], refResult(fr, kinds, code, pc+3, j, r))
					continue
				}
				v := w.read(k, r)
				caller.w.write(k, dst, &v)
			}
			ex.pop()
			return caller.pc + 2 + 2*r16(ccode, caller.pc), nil
		case OpAddI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = w.i32[le16(in[3:])] + w.i32[le16(in[5:])]
			pc += 7
		case OpSubI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = w.i32[le16(in[3:])] - w.i32[le16(in[5:])]
			pc += 7
		case OpMulI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = w.i32[le16(in[3:])] * w.i32[le16(in[5:])]
			pc += 7
		case OpAndI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = w.i32[le16(in[3:])] & w.i32[le16(in[5:])]
			pc += 7
		case OpOrI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = w.i32[le16(in[3:])] | w.i32[le16(in[5:])]
			pc += 7
		case OpXorI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = w.i32[le16(in[3:])] ^ w.i32[le16(in[5:])]
			pc += 7
		case OpShlI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = w.i32[le16(in[3:])] << (uint32(w.i32[le16(in[5:])]) & 31)
			pc += 7
		case OpShrI32S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = w.i32[le16(in[3:])] >> (uint32(w.i32[le16(in[5:])]) & 31)
			pc += 7
		case OpShrI32U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = int32(uint32(w.i32[le16(in[3:])]) >> (uint32(w.i32[le16(in[5:])]) & 31))
			pc += 7
		case OpMinI32S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = min(w.i32[le16(in[3:])], w.i32[le16(in[5:])])
			pc += 7
		case OpMinI32U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = int32(min(uint32(w.i32[le16(in[3:])]), uint32(w.i32[le16(in[5:])])))
			pc += 7
		case OpMaxI32S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = max(w.i32[le16(in[3:])], w.i32[le16(in[5:])])
			pc += 7
		case OpMaxI32U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = int32(max(uint32(w.i32[le16(in[3:])]), uint32(w.i32[le16(in[5:])])))
			pc += 7
		case OpDivI32S:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i32[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i32[le16(in[1:])] = divSI32(w.i32[le16(in[3:])], y)
			pc += 7
		case OpDivI32U:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i32[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i32[le16(in[1:])] = divUI32(w.i32[le16(in[3:])], y)
			pc += 7
		case OpRemI32S:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i32[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i32[le16(in[1:])] = remSI32(w.i32[le16(in[3:])], y)
			pc += 7
		case OpRemI32U:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i32[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i32[le16(in[1:])] = remUI32(w.i32[le16(in[3:])], y)
			pc += 7
		case OpCeilDivI32S:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i32[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i32[le16(in[1:])] = ceilDivSI32(w.i32[le16(in[3:])], y)
			pc += 7
		case OpCeilDivI32U:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i32[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i32[le16(in[1:])] = ceilDivUI32(w.i32[le16(in[3:])], y)
			pc += 7
		case OpNotI32:
			in := (*[5]byte)(code[pc : pc+5])
			w.i32[le16(in[1:])] = ^w.i32[le16(in[3:])]
			pc += 5
		case OpNegI32:
			in := (*[5]byte)(code[pc : pc+5])
			w.i32[le16(in[1:])] = -w.i32[le16(in[3:])]
			pc += 5
		case OpAbsI32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			if x < 0 {
				x = -x
			}
			w.i32[le16(in[1:])] = x
			pc += 5
		case OpAddI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = w.i64[le16(in[3:])] + w.i64[le16(in[5:])]
			pc += 7
		case OpSubI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = w.i64[le16(in[3:])] - w.i64[le16(in[5:])]
			pc += 7
		case OpMulI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = w.i64[le16(in[3:])] * w.i64[le16(in[5:])]
			pc += 7
		case OpAndI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = w.i64[le16(in[3:])] & w.i64[le16(in[5:])]
			pc += 7
		case OpOrI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = w.i64[le16(in[3:])] | w.i64[le16(in[5:])]
			pc += 7
		case OpXorI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = w.i64[le16(in[3:])] ^ w.i64[le16(in[5:])]
			pc += 7
		case OpShlI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = w.i64[le16(in[3:])] << (uint64(w.i64[le16(in[5:])]) & 63)
			pc += 7
		case OpShrI64S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = w.i64[le16(in[3:])] >> (uint64(w.i64[le16(in[5:])]) & 63)
			pc += 7
		case OpShrI64U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = int64(uint64(w.i64[le16(in[3:])]) >> (uint64(w.i64[le16(in[5:])]) & 63))
			pc += 7
		case OpMinI64S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = min(w.i64[le16(in[3:])], w.i64[le16(in[5:])])
			pc += 7
		case OpMinI64U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = int64(min(uint64(w.i64[le16(in[3:])]), uint64(w.i64[le16(in[5:])])))
			pc += 7
		case OpMaxI64S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = max(w.i64[le16(in[3:])], w.i64[le16(in[5:])])
			pc += 7
		case OpMaxI64U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i64[le16(in[1:])] = int64(max(uint64(w.i64[le16(in[3:])]), uint64(w.i64[le16(in[5:])])))
			pc += 7
		case OpDivI64S:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i64[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i64[le16(in[1:])] = divSI64(w.i64[le16(in[3:])], y)
			pc += 7
		case OpDivI64U:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i64[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i64[le16(in[1:])] = divUI64(w.i64[le16(in[3:])], y)
			pc += 7
		case OpRemI64S:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i64[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i64[le16(in[1:])] = remSI64(w.i64[le16(in[3:])], y)
			pc += 7
		case OpRemI64U:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i64[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i64[le16(in[1:])] = remUI64(w.i64[le16(in[3:])], y)
			pc += 7
		case OpCeilDivI64S:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i64[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i64[le16(in[1:])] = ceilDivSI64(w.i64[le16(in[3:])], y)
			pc += 7
		case OpCeilDivI64U:
			in := (*[7]byte)(code[pc : pc+7])
			y := w.i64[le16(in[5:])]
			if y == 0 {
				return 0, ex.trap(status.OutOfRange, pc, "integer division by zero")
			}
			w.i64[le16(in[1:])] = ceilDivUI64(w.i64[le16(in[3:])], y)
			pc += 7
		case OpNotI64:
			in := (*[5]byte)(code[pc : pc+5])
			w.i64[le16(in[1:])] = ^w.i64[le16(in[3:])]
			pc += 5
		case OpNegI64:
			in := (*[5]byte)(code[pc : pc+5])
			w.i64[le16(in[1:])] = -w.i64[le16(in[3:])]
			pc += 5
		case OpAbsI64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i64[le16(in[3:])]
			if x < 0 {
				x = -x
			}
			w.i64[le16(in[1:])] = x
			pc += 5
		case OpAddF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.f32[le16(in[1:])] = w.f32[le16(in[3:])] + w.f32[le16(in[5:])]
			pc += 7
		case OpSubF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.f32[le16(in[1:])] = w.f32[le16(in[3:])] - w.f32[le16(in[5:])]
			pc += 7
		case OpMulF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.f32[le16(in[1:])] = w.f32[le16(in[3:])] * w.f32[le16(in[5:])]
			pc += 7
		case OpDivF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.f32[le16(in[1:])] = w.f32[le16(in[3:])] / w.f32[le16(in[5:])]
			pc += 7
		case OpRemF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.f32[le16(in[1:])] = float32(math.Mod(float64(w.f32[le16(in[3:])]), float64(w.f32[le16(in[5:])])))
			pc += 7
		case OpMinF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.f32[le16(in[1:])] = min(w.f32[le16(in[3:])], w.f32[le16(in[5:])])
			pc += 7
		case OpMaxF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.f32[le16(in[1:])] = max(w.f32[le16(in[3:])], w.f32[le16(in[5:])])
			pc += 7
		case OpNegF32:
			in := (*[5]byte)(code[pc : pc+5])
			w.f32[le16(in[1:])] = -w.f32[le16(in[3:])]
			pc += 5
		case OpAbsF32:
			in := (*[5]byte)(code[pc : pc+5])
			w.f32[le16(in[1:])] = float32(math.Abs(float64(w.f32[le16(in[3:])])))
			pc += 5
		case OpSqrtF32:
			in := (*[5]byte)(code[pc : pc+5])
			w.f32[le16(in[1:])] = float32(math.Sqrt(float64(w.f32[le16(in[3:])])))
			pc += 5
		case OpFloorF32:
			in := (*[5]byte)(code[pc : pc+5])
			w.f32[le16(in[1:])] = float32(math.Floor(float64(w.f32[le16(in[3:])])))
			pc += 5
		case OpCeilF32:
			in := (*[5]byte)(code[pc : pc+5])
			w.f32[le16(in[1:])] = float32(math.Ceil(float64(w.f32[le16(in[3:])])))
			pc += 5
		case OpAddF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = w.f64[le16(in[3:])] + w.f64[le16(in[5:])]
			pc += 7
		case OpSubF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = w.f64[le16(in[3:])] - w.f64[le16(in[5:])]
			pc += 7
		case OpMulF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = w.f64[le16(in[3:])] * w.f64[le16(in[5:])]
			pc += 7
		case OpDivF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = w.f64[le16(in[3:])] / w.f64[le16(in[5:])]
			pc += 7
		case OpRemF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = math.Mod(w.f64[le16(in[3:])], w.f64[le16(in[5:])])
			pc += 7
		case OpMinF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = min(w.f64[le16(in[3:])], w.f64[le16(in[5:])])
			pc += 7
		case OpMaxF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = max(w.f64[le16(in[3:])], w.f64[le16(in[5:])])
			pc += 7
		case OpNegF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = -w.f64[le16(in[3:])]
			pc += 5
		case OpAbsF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Abs(w.f64[le16(in[3:])])
			pc += 5
		case OpSqrtF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Sqrt(w.f64[le16(in[3:])])
			pc += 5
		case OpFloorF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Floor(w.f64[le16(in[3:])])
			pc += 5
		case OpCeilF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Ceil(w.f64[le16(in[3:])])
			pc += 5
		case OpTruncF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Trunc(w.f64[le16(in[3:])])
			pc += 5
		case OpRoundEvenF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.RoundToEven(w.f64[le16(in[3:])])
			pc += 5
		case OpExpF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Exp(w.f64[le16(in[3:])])
			pc += 5
		case OpExp2F64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Exp2(w.f64[le16(in[3:])])
			pc += 5
		case OpExpm1F64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Expm1(w.f64[le16(in[3:])])
			pc += 5
		case OpLogF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Log(w.f64[le16(in[3:])])
			pc += 5
		case OpLog2F64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Log2(w.f64[le16(in[3:])])
			pc += 5
		case OpLog1pF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Log1p(w.f64[le16(in[3:])])
			pc += 5
		case OpTanhF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Tanh(w.f64[le16(in[3:])])
			pc += 5
		case OpErfF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Erf(w.f64[le16(in[3:])])
			pc += 5
		case OpSinF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Sin(w.f64[le16(in[3:])])
			pc += 5
		case OpCosF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = math.Cos(w.f64[le16(in[3:])])
			pc += 5
		case OpPowF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = math.Pow(w.f64[le16(in[3:])], w.f64[le16(in[5:])])
			pc += 7
		case OpAtan2F64:
			in := (*[7]byte)(code[pc : pc+7])
			w.f64[le16(in[1:])] = math.Atan2(w.f64[le16(in[3:])], w.f64[le16(in[5:])])
			pc += 7
		case OpFmaF64:
			in := (*[9]byte)(code[pc : pc+9])
			w.f64[le16(in[1:])] = math.FMA(w.f64[le16(in[3:])], w.f64[le16(in[5:])], w.f64[le16(in[7:])])
			pc += 9
		case OpTruncI32I8:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.i32[le16(in[1:])] = x & 0xFF
			pc += 5
		case OpTruncI32I16:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.i32[le16(in[1:])] = x & 0xFFFF
			pc += 5
		case OpExtI8I32S:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.i32[le16(in[1:])] = int32(int8(x))
			pc += 5
		case OpExtI8I32U:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.i32[le16(in[1:])] = int32(uint8(x))
			pc += 5
		case OpExtI16I32S:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.i32[le16(in[1:])] = int32(int16(x))
			pc += 5
		case OpExtI16I32U:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.i32[le16(in[1:])] = int32(uint16(x))
			pc += 5
		case OpExtI32I64S:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.i64[le16(in[1:])] = int64(x)
			pc += 5
		case OpExtI32I64U:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.i64[le16(in[1:])] = int64(uint32(x))
			pc += 5
		case OpTruncI64I32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i64[le16(in[3:])]
			w.i32[le16(in[1:])] = int32(x)
			pc += 5
		case OpCastSI32F32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.f32[le16(in[1:])] = float32(x)
			pc += 5
		case OpCastUI32F32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.f32[le16(in[1:])] = float32(uint32(x))
			pc += 5
		case OpCastF32SI32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f32[le16(in[3:])]
			w.i32[le16(in[1:])] = int32(satS(float64(x), math.MinInt32, math.MaxInt32))
			pc += 5
		case OpCastF32UI32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f32[le16(in[3:])]
			w.i32[le16(in[1:])] = int32(uint32(satU(float64(x), math.MaxUint32)))
			pc += 5
		case OpCastSI64F32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i64[le16(in[3:])]
			w.f32[le16(in[1:])] = float32(x)
			pc += 5
		case OpCastF32SI64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f32[le16(in[3:])]
			w.i64[le16(in[1:])] = satI64(float64(x))
			pc += 5
		case OpCastSI64F64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i64[le16(in[3:])]
			w.f64[le16(in[1:])] = float64(x)
			pc += 5
		case OpCastUI64F64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i64[le16(in[3:])]
			w.f64[le16(in[1:])] = float64(uint64(x))
			pc += 5
		case OpCastF64SI64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f64[le16(in[3:])]
			w.i64[le16(in[1:])] = satI64(x)
			pc += 5
		case OpCastF64UI64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f64[le16(in[3:])]
			w.i64[le16(in[1:])] = int64(satU64(x))
			pc += 5
		case OpExtF32F64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f32[le16(in[3:])]
			w.f64[le16(in[1:])] = float64(x)
			pc += 5
		case OpTruncF64F32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f64[le16(in[3:])]
			w.f32[le16(in[1:])] = float32(x)
			pc += 5
		case OpBitcastI32F32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i32[le16(in[3:])]
			w.f32[le16(in[1:])] = math.Float32frombits(uint32(x))
			pc += 5
		case OpBitcastF32I32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f32[le16(in[3:])]
			w.i32[le16(in[1:])] = int32(math.Float32bits(x))
			pc += 5
		case OpBitcastI64F64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.i64[le16(in[3:])]
			w.f64[le16(in[1:])] = math.Float64frombits(uint64(x))
			pc += 5
		case OpBitcastF64I64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f64[le16(in[3:])]
			w.i64[le16(in[1:])] = int64(math.Float64bits(x))
			pc += 5
		case OpExtF16F64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = f16Format.toFloat64(uint16(w.i32[le16(in[3:])]))
			pc += 5
		case OpExtBF16F64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = bf16Format.toFloat64(uint16(w.i32[le16(in[3:])]))
			pc += 5
		case OpTruncF64F16:
			in := (*[5]byte)(code[pc : pc+5])
			w.i32[le16(in[1:])] = int32(f16Format.fromFloat64(w.f64[le16(in[3:])]))
			pc += 5
		case OpTruncF64BF16:
			in := (*[5]byte)(code[pc : pc+5])
			w.i32[le16(in[1:])] = int32(bf16Format.fromFloat64(w.f64[le16(in[3:])]))
			pc += 5
		case OpCmpEqI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i32[le16(in[3:])] == w.i32[le16(in[5:])])
			pc += 7
		case OpCmpNeI32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i32[le16(in[3:])] != w.i32[le16(in[5:])])
			pc += 7
		case OpCmpLtI32S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i32[le16(in[3:])] < w.i32[le16(in[5:])])
			pc += 7
		case OpCmpLtI32U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(uint32(w.i32[le16(in[3:])]) < uint32(w.i32[le16(in[5:])]))
			pc += 7
		case OpCmpLteI32S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i32[le16(in[3:])] <= w.i32[le16(in[5:])])
			pc += 7
		case OpCmpLteI32U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(uint32(w.i32[le16(in[3:])]) <= uint32(w.i32[le16(in[5:])]))
			pc += 7
		case OpCmpGtI32S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i32[le16(in[3:])] > w.i32[le16(in[5:])])
			pc += 7
		case OpCmpGtI32U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(uint32(w.i32[le16(in[3:])]) > uint32(w.i32[le16(in[5:])]))
			pc += 7
		case OpCmpGteI32S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i32[le16(in[3:])] >= w.i32[le16(in[5:])])
			pc += 7
		case OpCmpGteI32U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(uint32(w.i32[le16(in[3:])]) >= uint32(w.i32[le16(in[5:])]))
			pc += 7
		case OpCmpNzI32:
			in := (*[5]byte)(code[pc : pc+5])
			w.i32[le16(in[1:])] = b2i(w.i32[le16(in[3:])] != 0)
			pc += 5
		case OpCmpEqI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i64[le16(in[3:])] == w.i64[le16(in[5:])])
			pc += 7
		case OpCmpNeI64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i64[le16(in[3:])] != w.i64[le16(in[5:])])
			pc += 7
		case OpCmpLtI64S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i64[le16(in[3:])] < w.i64[le16(in[5:])])
			pc += 7
		case OpCmpLtI64U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(uint64(w.i64[le16(in[3:])]) < uint64(w.i64[le16(in[5:])]))
			pc += 7
		case OpCmpLteI64S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i64[le16(in[3:])] <= w.i64[le16(in[5:])])
			pc += 7
		case OpCmpLteI64U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(uint64(w.i64[le16(in[3:])]) <= uint64(w.i64[le16(in[5:])]))
			pc += 7
		case OpCmpGtI64S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i64[le16(in[3:])] > w.i64[le16(in[5:])])
			pc += 7
		case OpCmpGtI64U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(uint64(w.i64[le16(in[3:])]) > uint64(w.i64[le16(in[5:])]))
			pc += 7
		case OpCmpGteI64S:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.i64[le16(in[3:])] >= w.i64[le16(in[5:])])
			pc += 7
		case OpCmpGteI64U:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(uint64(w.i64[le16(in[3:])]) >= uint64(w.i64[le16(in[5:])]))
			pc += 7
		case OpCmpNzI64:
			in := (*[5]byte)(code[pc : pc+5])
			w.i32[le16(in[1:])] = b2i(w.i64[le16(in[3:])] != 0)
			pc += 5
		case OpCmpEqF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f32[le16(in[3:])] == w.f32[le16(in[5:])])
			pc += 7
		case OpCmpNeF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(!(w.f32[le16(in[3:])] == w.f32[le16(in[5:])]))
			pc += 7
		case OpCmpLtF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f32[le16(in[3:])] < w.f32[le16(in[5:])])
			pc += 7
		case OpCmpLteF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f32[le16(in[3:])] <= w.f32[le16(in[5:])])
			pc += 7
		case OpCmpGtF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f32[le16(in[3:])] > w.f32[le16(in[5:])])
			pc += 7
		case OpCmpGteF32:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f32[le16(in[3:])] >= w.f32[le16(in[5:])])
			pc += 7
		case OpCmpNaNF32:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f32[le16(in[3:])]
			w.i32[le16(in[1:])] = b2i(x != x)
			pc += 5
		case OpCmpEqF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f64[le16(in[3:])] == w.f64[le16(in[5:])])
			pc += 7
		case OpCmpNeF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(!(w.f64[le16(in[3:])] == w.f64[le16(in[5:])]))
			pc += 7
		case OpCmpLtF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f64[le16(in[3:])] < w.f64[le16(in[5:])])
			pc += 7
		case OpCmpLteF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f64[le16(in[3:])] <= w.f64[le16(in[5:])])
			pc += 7
		case OpCmpGtF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f64[le16(in[3:])] > w.f64[le16(in[5:])])
			pc += 7
		case OpCmpGteF64:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(w.f64[le16(in[3:])] >= w.f64[le16(in[5:])])
			pc += 7
		case OpCmpNaNF64:
			in := (*[5]byte)(code[pc : pc+5])
			x := w.f64[le16(in[3:])]
			w.i32[le16(in[1:])] = b2i(x != x)
			pc += 5
		case OpCmpEqRef:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(refEq(w.refs[le16(in[3:])], w.refs[le16(in[5:])]))
			pc += 7
		case OpCmpNeRef:
			in := (*[7]byte)(code[pc : pc+7])
			w.i32[le16(in[1:])] = b2i(!refEq(w.refs[le16(in[3:])], w.refs[le16(in[5:])]))
			pc += 7
		case OpCmpNzRef:
			in := (*[5]byte)(code[pc : pc+5])
			w.i32[le16(in[1:])] = b2i(w.refs[le16(in[3:])].obj != nil)
			pc += 5
		case OpSelectI32:
			in := (*[9]byte)(code[pc : pc+9])
			if w.i32[le16(in[3:])] != 0 {
				w.i32[le16(in[1:])] = w.i32[le16(in[5:])]
			} else {
				w.i32[le16(in[1:])] = w.i32[le16(in[7:])]
			}
			pc += 9
		case OpSelectI64:
			in := (*[9]byte)(code[pc : pc+9])
			if w.i32[le16(in[3:])] != 0 {
				w.i64[le16(in[1:])] = w.i64[le16(in[5:])]
			} else {
				w.i64[le16(in[1:])] = w.i64[le16(in[7:])]
			}
			pc += 9
		case OpSelectF32:
			in := (*[9]byte)(code[pc : pc+9])
			if w.i32[le16(in[3:])] != 0 {
				w.f32[le16(in[1:])] = w.f32[le16(in[5:])]
			} else {
				w.f32[le16(in[1:])] = w.f32[le16(in[7:])]
			}
			pc += 9
		case OpSelectF64:
			in := (*[9]byte)(code[pc : pc+9])
			if w.i32[le16(in[3:])] != 0 {
				w.f64[le16(in[1:])] = w.f64[le16(in[5:])]
			} else {
				w.f64[le16(in[1:])] = w.f64[le16(in[7:])]
			}
			pc += 9
		case OpSelectRef:
			in := (*[9]byte)(code[pc : pc+9])
			if w.i32[le16(in[3:])] != 0 {
				assignRef(&w.refs[le16(in[1:])], &w.refs[le16(in[5:])])
			} else {
				assignRef(&w.refs[le16(in[1:])], &w.refs[le16(in[7:])])
			}
			pc += 9
		case OpMovI32:
			in := (*[5]byte)(code[pc : pc+5])
			w.i32[le16(in[1:])] = w.i32[le16(in[3:])]
			pc += 5
		case OpMovI64:
			in := (*[5]byte)(code[pc : pc+5])
			w.i64[le16(in[1:])] = w.i64[le16(in[3:])]
			pc += 5
		case OpMovF32:
			in := (*[5]byte)(code[pc : pc+5])
			w.f32[le16(in[1:])] = w.f32[le16(in[3:])]
			pc += 5
		case OpMovF64:
			in := (*[5]byte)(code[pc : pc+5])
			w.f64[le16(in[1:])] = w.f64[le16(in[3:])]
			pc += 5
		case OpMovRef:
			in := (*[5]byte)(code[pc : pc+5])
			assignRef(&w.refs[le16(in[1:])], &w.refs[le16(in[3:])])
			pc += 5
		default:
			return 0, ex.trap(status.Internal, pc, fmt.Sprintf("unverified opcode %d", code[pc]))
		}
		if step {
			return pc, nil
		}
	}
}

// maxBufferAlloc bounds buffer.alloc.
const maxBufferAlloc = 1 << 31

// bufferRange returns bytes [off, off+n) of the vm.buffer r, or an error
// naming the problem (null or wrong type, read-only for writes, range
// outside the buffer); the arithmetic cannot overflow.
func bufferRange(r Ref, off, n int64, write bool) ([]byte, error) {
	b, ok := r.obj.(*Buffer)
	if !ok || r.typ != BufferType {
		return nil, status.Errorf(status.InvalidArgument, "expected a vm.buffer, got %s", r)
	}
	if write && b.readOnly {
		return nil, status.New(status.PermissionDenied, "vm.buffer is read-only")
	}
	size := int64(len(b.data))
	if off < 0 || n < 0 || off > size || n > size-off {
		return nil, status.Errorf(status.OutOfRange, "range at offset %d of length %d outside vm.buffer of %d bytes", off, n, size)
	}
	return b.data[off : off+n], nil
}

// dotRange returns the bytes of buffer r that n elements of width bytes,
// step bytes apart from byte offset off, span, and the step.
func dotRange(r Ref, off, step, n, width int64) ([]byte, int64, error) {
	if step < 0 {
		return nil, 0, status.Errorf(status.OutOfRange, "buffer.dot step %d is negative", step)
	}
	if step > 0 && n-1 > (math.MaxInt64-width)/step {
		return nil, 0, status.Errorf(status.OutOfRange, "buffer.dot of %d elements %d bytes apart overflows", n, step)
	}
	b, err := bufferRange(r, off, (n-1)*step+width, false)
	return b, step, err
}

// loadStoreWidth returns the access width of a buffer load or store; the
// same table serves every load and store opcode.
func loadStoreWidth(op Opcode) int64 {
	switch op {
	case OpBufferLoadI8U, OpBufferLoadI8S, OpBufferStoreI8:
		return 1
	case OpBufferLoadI16U, OpBufferLoadI16S, OpBufferStoreI16:
		return 2
	case OpBufferLoadI32, OpBufferLoadF32, OpBufferStoreI32, OpBufferStoreF32:
		return 4
	}
	return 8
}

// traceInstr writes the instruction at pc of fr to the trace writer.
func (ex *executor) traceInstr(fr *frame, pc int) {
	text, _ := fr.mi.module.disassembleInstr(fr.fn, pc)
	fmt.Fprintf(ex.trace, "[%s.%s+%04d] %s\n", fr.mi.module.name, fr.fn.name, pc, text)
}

// callNative calls the native function nf from call site site with the
// registers of w. It returns the offset of the next instruction. The
// verifier has checked the site's registers against the import's
// signature, which is nf's.
func (ex *executor) callNative(w *window, nf *resolvedNative, site *callSite) (int, error) {
	n, nres := len(site.args), len(site.res)
	if n > cap(ex.args) {
		ex.args = make([]Value, n)
		ex.argsUsed = 0
	}
	args := ex.args[:n]
	ex.argsUsed = max(ex.argsUsed, n)
	if site.byBank != nil {
		loadArgsByBank(args, site, w)
	} else {
		loadArgs(args, site.args, w)
	}
	if nres > cap(ex.res) {
		ex.res = make([]Value, nres)
	}
	res := ex.res[:nres]
	for i := range res {
		res[i].kind, res[i].bits = KindNone, 0
	}
	nseg := len(site.segs)
	if nseg > cap(ex.segs) {
		ex.segs = make([]int, nseg)
	}
	segs := ex.segs[:nseg]
	for i, c := range site.segs {
		segs[i] = c
	}
	c := &ex.call
	// Reslicing a field in place (s = s[:n]) stores only its length, so the
	// usual case writes no pointer (no write barrier while the garbage
	// collector marks); the fields are reassigned only when the slots grew
	// or a native function replaced them.
	if sameArray(c.Args, ex.args) {
		c.Args = c.Args[:n]
	} else {
		c.Args = args
	}
	if sameArray(c.Results, ex.res) {
		c.Results = c.Results[:nres]
	} else {
		c.Results = res
	}
	if sameArray(c.Segments, ex.segs) {
		c.Segments = c.Segments[:nseg]
	} else {
		c.Segments = segs
	}
	if err := nf.fn.Func(c); err != nil {
		releaseElements(res)
		return 0, fmt.Errorf("%s.%s: %w", nf.module, nf.fn.Name, err)
	}
	for i, s := range site.res {
		v := &res[i]
		switch {
		case v.kind != s.kind:
			got := v.kind
			releaseElements(res[i:])
			return 0, nf.badResult(i, got)
		case s.kind == KindI32:
			w.i32[s.reg] = int32(uint32(v.bits))
		case s.kind == KindI64:
			w.i64[s.reg] = int64(v.bits)
		case s.kind == KindRef:
			// A native result carries a reference the callee made for
			// the caller: it moves into the register.
			// moveRef, written out: the register's old ref is mostly
			// null or uncounted.
			if dst := &w.refs[s.reg]; dst.typ.isCounted() {
				moveCounted(dst, &v.ref)
			} else {
				*dst = v.ref
			}
			if v.ref.obj != nil {
				v.ref = Ref{}
			}
		case s.kind == KindF32:
			w.f32[s.reg] = math.Float32frombits(uint32(v.bits))
		case s.kind == KindF64:
			w.f64[s.reg] = math.Float64frombits(v.bits)
		}
	}
	return site.next, nil
}

// sameArray reports whether a and b are slices of the same array from its
// start.
func sameArray[T any](a, b []T) bool {
	return cap(a) == cap(b) && cap(a) > 0 && &a[:1][0] == &b[:1][0]
}

// loadArgs fills args[j] from the register slots[j] of w.
//
// Argument slots are not cleared after a call: a slot may still hold the
// ref of an earlier call of the invocation (run drops them at its end). A
// scalar load drops such a ref and otherwise writes kind and bits only, so
// that in the usual case no pointer is written (no write barrier while the
// garbage collector marks), and a ref load overwrites it.
func loadArgs(args []Value, slots []siteSlot, w *window) {
	slots = slots[:len(args)]
	i32, i64, refs := w.i32, w.i64, w.refs
	for j := range args {
		a, s := &args[j], slots[j]
		if s.kind != KindRef && a.ref.obj != nil {
			a.ref = Ref{}
		}
		switch s.kind {
		case KindI32:
			a.kind, a.bits = KindI32, uint64(uint32(i32[s.reg]))
		case KindI64:
			a.kind, a.bits = KindI64, uint64(i64[s.reg])
		case KindRef:
			a.kind, a.bits, a.ref = KindRef, 0, refs[s.reg]
		case KindF32:
			a.kind, a.bits = KindF32, uint64(math.Float32bits(w.f32[s.reg]))
		case KindF64:
			a.kind, a.bits = KindF64, math.Float64bits(w.f64[s.reg])
		}
	}
}

// loadArgsByBank is loadArgs for sites with many arguments: one loop per
// bank instead of a switch per argument.
func loadArgsByBank(args []Value, site *callSite, w *window) {
	b, slots := &site.bank, site.byBank
	for _, s := range slots[:b[KindI32]] {
		a := &args[s.pos]
		if a.ref.obj != nil {
			a.ref = Ref{}
		}
		a.kind, a.bits = KindI32, uint64(uint32(w.i32[s.reg]))
	}
	for _, s := range slots[b[KindI32]:b[KindI64]] {
		a := &args[s.pos]
		if a.ref.obj != nil {
			a.ref = Ref{}
		}
		a.kind, a.bits = KindI64, uint64(w.i64[s.reg])
	}
	for _, s := range slots[b[KindI64]:b[KindF32]] {
		a := &args[s.pos]
		if a.ref.obj != nil {
			a.ref = Ref{}
		}
		a.kind, a.bits = KindF32, uint64(math.Float32bits(w.f32[s.reg]))
	}
	for _, s := range slots[b[KindF32]:b[KindF64]] {
		a := &args[s.pos]
		if a.ref.obj != nil {
			a.ref = Ref{}
		}
		a.kind, a.bits = KindF64, math.Float64bits(w.f64[s.reg])
	}
	for _, s := range slots[b[KindF64]:b[KindRef]] {
		a := &args[s.pos]
		a.kind, a.bits, a.ref = KindRef, 0, w.refs[s.reg]
	}
}

// dropRefs zeroes the ref of every slot that holds one, restoring the
// invariant that argument and result slots hold no pointers between calls.
// Slots without a ref are not written: zeroing a whole slice would cost a
// bulk write barrier while the garbage collector is marking, and the next
// call overwrites kind and bits anyway.
func dropRefs(vs []Value) {
	for i := range vs {
		// A Ref with a nil object is always the null Ref (NewRef).
		if v := &vs[i]; v.ref.obj != nil {
			v.ref = Ref{}
		}
	}
}

func divSI32(a, b int32) int32 { return a / b }
func divUI32(a, b int32) int32 { return int32(uint32(a) / uint32(b)) }
func remSI32(a, b int32) int32 { return a % b }
func remUI32(a, b int32) int32 { return int32(uint32(a) % uint32(b)) }
func ceilDivSI32(a, b int32) int32 {
	q := a / b
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}
func ceilDivUI32(a, b int32) int32 {
	x, y := uint32(a), uint32(b)
	q := x / y
	if x%y != 0 {
		q++
	}
	return int32(q)
}
func divSI64(a, b int64) int64 { return a / b }
func divUI64(a, b int64) int64 { return int64(uint64(a) / uint64(b)) }
func remSI64(a, b int64) int64 { return a % b }
func remUI64(a, b int64) int64 { return int64(uint64(a) % uint64(b)) }
func ceilDivSI64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}
func ceilDivUI64(a, b int64) int64 {
	x, y := uint64(a), uint64(b)
	q := x / y
	if x%y != 0 {
		q++
	}
	return int64(q)
}

// satS converts x toward zero, saturating to [lo, hi]; NaN gives 0.
func satS(x float64, lo, hi float64) float64 {
	switch {
	case x != x:
		return 0
	case x <= lo:
		return lo
	case x >= hi:
		return hi
	}
	return math.Trunc(x)
}

// satU converts x toward zero, saturating to [0, hi]; NaN gives 0.
func satU(x float64, hi float64) float64 {
	switch {
	case x != x || x <= 0:
		return 0
	case x >= hi:
		return hi
	}
	return math.Trunc(x)
}

// satI64 converts x to int64 toward zero, saturating; NaN gives 0.
func satI64(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x <= math.MinInt64:
		return math.MinInt64
	case x >= math.MaxInt64:
		return math.MaxInt64
	}
	return int64(x)
}

// satU64 converts x to uint64 toward zero, saturating; NaN gives 0.
func satU64(x float64) uint64 {
	switch {
	case x != x || x <= 0:
		return 0
	case x >= math.MaxUint64:
		return math.MaxUint64
	}
	return uint64(x)
}
