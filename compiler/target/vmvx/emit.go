package vmvx

import (
	"fmt"
	"math"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/affine"
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/vm"
)

// How IR scalars live in VM registers:
//
//   - i1, i8, i16, i32 in i32 registers, i1 as 0 or 1, i8 and i16
//     sign-extended from their width (so signed comparisons and divisions
//     work on the register as it is; unsigned ones zero-extend first);
//   - i64 and index in i64 registers;
//   - f32 in f32 registers, f64 in f64 registers;
//   - f16 and bf16 in f64 registers, always holding a value of their type:
//     each op computes in f64 and rounds once to the 16-bit format, which
//     gives the correctly rounded result for the basic operations.
//
// f32 math functions compute in f64 and round to f32.

// fn emits one VM function. Constants are materialized in a block at the
// end of the function that runs first (the entry branches to it and it
// branches back), so a constant register is set wherever it is used, in
// or out of loops, and each constant is loaded once per call.
type fn struct {
	f      *vm.FunctionBuilder
	consts map[constKey]vm.Reg
	order  []constKey
	vals   map[*ir.Value]vm.Reg
	start  vm.Label
	cblock vm.Label
	what   string // the kernel, for failure messages
}

type constKey struct {
	kind vm.ValueKind
	bits uint64
	half string // "f16"/"bf16": the f64 constant rounded to that type
}

func newFn(f *vm.FunctionBuilder, what string) *fn {
	e := &fn{f: f, consts: map[constKey]vm.Reg{}, vals: map[*ir.Value]vm.Reg{}, what: what}
	e.start, e.cblock = f.NewLabel(), f.NewLabel()
	f.Br(e.cblock)
	f.Bind(e.start)
	return e
}

// finish ends the function: return, then the constant block.
func (e *fn) finish() {
	e.f.Return()
	e.f.Bind(e.cblock)
	for _, k := range e.order {
		r := e.consts[k]
		switch k.kind {
		case vm.KindI32:
			e.f.ConstI32(r, int32(uint32(k.bits)))
		case vm.KindI64:
			e.f.ConstI64(r, int64(k.bits))
		case vm.KindF32:
			e.f.ConstF32(r, math.Float32frombits(uint32(k.bits)))
		case vm.KindF64:
			e.f.ConstF64(r, math.Float64frombits(k.bits))
			if k.half != "" {
				t := e.f.NewI32()
				e.f.Emit(truncHalf[k.half], t, r)
				e.f.Emit(extHalf[k.half], r, t)
			}
		}
	}
	e.f.Br(e.start)
}

func (e *fn) constant(k constKey) vm.Reg {
	if r, ok := e.consts[k]; ok {
		return r
	}
	r := e.f.NewReg(k.kind)
	e.consts[k] = r
	e.order = append(e.order, k)
	return r
}

func (e *fn) ci32(v int32) vm.Reg {
	return e.constant(constKey{kind: vm.KindI32, bits: uint64(uint32(v))})
}
func (e *fn) ci64(v int64) vm.Reg { return e.constant(constKey{kind: vm.KindI64, bits: uint64(v)}) }
func (e *fn) cf32(v float32) vm.Reg {
	return e.constant(constKey{kind: vm.KindF32, bits: uint64(math.Float32bits(v))})
}
func (e *fn) cf64(v float64) vm.Reg {
	return e.constant(constKey{kind: vm.KindF64, bits: math.Float64bits(v)})
}

// emit appends op with a new destination register of kind k.
func (e *fn) emit(k vm.ValueKind, op vm.Opcode, srcs ...vm.Reg) vm.Reg {
	d := e.f.NewReg(k)
	ops := []any{d}
	for _, s := range srcs {
		ops = append(ops, s)
	}
	e.f.Emit(op, ops...)
	return d
}

var movOp = map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpMovI32, vm.KindI64: vm.OpMovI64, vm.KindF32: vm.OpMovF32, vm.KindF64: vm.OpMovF64}

func (e *fn) mov(dst, src vm.Reg) { e.f.Emit(movOp[dst.Kind()], dst, src) }

// failIf ends the invocation with OUT_OF_RANGE and msg when cond (i32) is
// non-zero.
func (e *fn) failIf(cond vm.Reg, msg string) {
	bad, ok := e.f.NewLabel(), e.f.NewLabel()
	e.f.CondBr(cond, bad, ok)
	e.f.Bind(bad)
	e.f.Fail(e.ci32(int32(status.OutOfRange)), e.what+": "+msg)
	e.f.Bind(ok)
}

// loop runs body for idx (an i64 register) from lo up to hi (exclusive):
// one test before the first iteration, then one at the bottom of each.
func (e *fn) loop(idx, lo, hi vm.Reg, body func() error) error {
	e.mov(idx, lo)
	in, out := e.f.NewLabel(), e.f.NewLabel()
	e.f.CondBr(e.emit(vm.KindI32, vm.OpCmpLtI64S, idx, hi), in, out)
	e.f.Bind(in)
	if err := body(); err != nil {
		return err
	}
	e.f.Emit(vm.OpAddI64, idx, idx, e.ci64(1))
	e.f.CondBr(e.emit(vm.KindI32, vm.OpCmpLtI64S, idx, hi), in, out)
	e.f.Bind(out)
	return nil
}

var (
	extHalf   = map[string]vm.Opcode{"f16": vm.OpExtF16F64, "bf16": vm.OpExtBF16F64}
	truncHalf = map[string]vm.Opcode{"f16": vm.OpTruncF64F16, "bf16": vm.OpTruncF64BF16}
)

// halfKind returns "f16" or "bf16" for those types, "" otherwise.
func halfKind(t ir.Type) string {
	if f, ok := t.(ir.FloatType); ok && (f.Name == "f16" || f.Name == "bf16") {
		return f.Name
	}
	return ""
}

func floatName(t ir.Type) string {
	f, _ := t.(ir.FloatType)
	return f.Name
}

// bank returns the register kind holding values of a scalar type.
func bank(t ir.Type) (vm.ValueKind, error) {
	switch t := t.(type) {
	case ir.IndexType:
		return vm.KindI64, nil
	case ir.IntegerType:
		switch t.Width {
		case 1, 8, 16, 32:
			return vm.KindI32, nil
		case 64:
			return vm.KindI64, nil
		}
	case ir.FloatType:
		switch t.Name {
		case "f32":
			return vm.KindF32, nil
		case "f16", "bf16", "f64":
			return vm.KindF64, nil
		}
	}
	return vm.KindNone, fmt.Errorf("type '%s' is not supported by vmvx code generation", ir.TypeString(t))
}

// intWidth is the bit width of an integer or index type (0 otherwise).
func intWidth(t ir.Type) int {
	switch t := t.(type) {
	case ir.IntegerType:
		return t.Width
	case ir.IndexType:
		return 64
	}
	return 0
}

// elemSize is the byte size of a scalar element in a buffer (i1 takes a
// byte, as the llvm-cpu target stores it).
func elemSize(t ir.Type) int64 {
	switch t := t.(type) {
	case ir.FloatType:
		switch t.Name {
		case "f16", "bf16":
			return 2
		case "f64":
			return 8
		}
		return 4
	case ir.IntegerType:
		if t.Width <= 8 {
			return 1
		}
		return int64(t.Width / 8)
	case ir.IndexType:
		return 8
	}
	return 0
}

// norm brings the low w bits of an i32 register to the canonical form of
// an integer of width w.
func (e *fn) norm(r vm.Reg, w int) vm.Reg {
	switch w {
	case 1:
		return e.emit(vm.KindI32, vm.OpAndI32, r, e.ci32(1))
	case 8:
		return e.emit(vm.KindI32, vm.OpExtI8I32S, r)
	case 16:
		return e.emit(vm.KindI32, vm.OpExtI16I32S, r)
	}
	return r
}

// zext returns the unsigned value of a canonical integer of width w (in
// its own bank).
func (e *fn) zext(r vm.Reg, w int) vm.Reg {
	switch w {
	case 8:
		return e.emit(vm.KindI32, vm.OpExtI8I32U, r)
	case 16:
		return e.emit(vm.KindI32, vm.OpExtI16I32U, r)
	}
	return r
}

// sval returns the signed value of a canonical integer of width w: i1
// true is -1.
func (e *fn) sval(r vm.Reg, w int) vm.Reg {
	if w == 1 {
		return e.emit(vm.KindI32, vm.OpNegI32, r)
	}
	return r
}

// toF64 returns a float value in an f64 register.
func (e *fn) toF64(r vm.Reg, t ir.Type) vm.Reg {
	if floatName(t) == "f32" {
		return e.emit(vm.KindF64, vm.OpExtF32F64, r)
	}
	return r
}

// fromF64 rounds an f64 register to float type t, in t's bank.
func (e *fn) fromF64(r vm.Reg, t ir.Type) vm.Reg {
	switch n := floatName(t); n {
	case "f32":
		return e.emit(vm.KindF32, vm.OpTruncF64F32, r)
	case "f16", "bf16":
		return e.emit(vm.KindF64, extHalf[n], e.emit(vm.KindI32, truncHalf[n], r))
	}
	return r
}

// intOps are the i32 and i64 opcodes of one integer operation.
type intOps struct{ i32, i64 vm.Opcode }

var (
	opAdd      = intOps{vm.OpAddI32, vm.OpAddI64}
	opSub      = intOps{vm.OpSubI32, vm.OpSubI64}
	opMul      = intOps{vm.OpMulI32, vm.OpMulI64}
	opAnd      = intOps{vm.OpAndI32, vm.OpAndI64}
	opOr       = intOps{vm.OpOrI32, vm.OpOrI64}
	opXor      = intOps{vm.OpXorI32, vm.OpXorI64}
	opDivS     = intOps{vm.OpDivI32S, vm.OpDivI64S}
	opDivU     = intOps{vm.OpDivI32U, vm.OpDivI64U}
	opRemS     = intOps{vm.OpRemI32S, vm.OpRemI64S}
	opRemU     = intOps{vm.OpRemI32U, vm.OpRemI64U}
	opCeilDivS = intOps{vm.OpCeilDivI32S, vm.OpCeilDivI64S}
	opCeilDivU = intOps{vm.OpCeilDivI32U, vm.OpCeilDivI64U}
	opShl      = intOps{vm.OpShlI32, vm.OpShlI64}
	opShrS     = intOps{vm.OpShrI32S, vm.OpShrI64S}
	opShrU     = intOps{vm.OpShrI32U, vm.OpShrI64U}
	opMinS     = intOps{vm.OpMinI32S, vm.OpMinI64S}
	opMinU     = intOps{vm.OpMinI32U, vm.OpMinI64U}
	opMaxS     = intOps{vm.OpMaxI32S, vm.OpMaxI64S}
	opMaxU     = intOps{vm.OpMaxI32U, vm.OpMaxI64U}
	opAbs      = intOps{vm.OpAbsI32, vm.OpAbsI64}
	opEq       = intOps{vm.OpCmpEqI32, vm.OpCmpEqI64}
	opNe       = intOps{vm.OpCmpNeI32, vm.OpCmpNeI64}
	opLtS      = intOps{vm.OpCmpLtI32S, vm.OpCmpLtI64S}
	opLteS     = intOps{vm.OpCmpLteI32S, vm.OpCmpLteI64S}
	opGtS      = intOps{vm.OpCmpGtI32S, vm.OpCmpGtI64S}
	opGteS     = intOps{vm.OpCmpGteI32S, vm.OpCmpGteI64S}
	opLtU      = intOps{vm.OpCmpLtI32U, vm.OpCmpLtI64U}
	opLteU     = intOps{vm.OpCmpLteI32U, vm.OpCmpLteI64U}
	opGtU      = intOps{vm.OpCmpGtI32U, vm.OpCmpGtI64U}
	opGteU     = intOps{vm.OpCmpGteI32U, vm.OpCmpGteI64U}
	opSelect   = intOps{vm.OpSelectI32, vm.OpSelectI64}
)

// iop emits an integer op of width w (bank i32 below 64 bits).
func (e *fn) iop(o intOps, w int, srcs ...vm.Reg) vm.Reg {
	if w == 64 {
		return e.emit(vm.KindI64, o.i64, srcs...)
	}
	return e.emit(vm.KindI32, o.i32, srcs...)
}

// icmp emits an integer comparison of width w (result: i32 0 or 1).
func (e *fn) icmp(o intOps, w int, a, b vm.Reg) vm.Reg {
	if w == 64 {
		return e.emit(vm.KindI32, o.i64, a, b)
	}
	return e.emit(vm.KindI32, o.i32, a, b)
}

func (e *fn) iconst(v int64, w int) vm.Reg {
	if w == 64 {
		return e.ci64(v)
	}
	return e.ci32(int32(v))
}

// selectReg emits dst = cond ? a : b in a's bank.
func (e *fn) selectReg(cond, a, b vm.Reg) vm.Reg {
	op := map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpSelectI32, vm.KindI64: vm.OpSelectI64, vm.KindF32: vm.OpSelectF32, vm.KindF64: vm.OpSelectF64}[a.Kind()]
	return e.emit(a.Kind(), op, cond, a, b)
}

func (e *fn) not1(c vm.Reg) vm.Reg { return e.emit(vm.KindI32, vm.OpXorI32, c, e.ci32(1)) }

// safeDivisor returns (divisor or 1 where it is 0, divisor == 0).
func (e *fn) safeDivisor(d vm.Reg, w int) (vm.Reg, vm.Reg) {
	zero := e.icmp(opEq, w, d, e.iconst(0, w))
	return e.selectReg(zero, e.iconst(1, w), d), zero
}

// affineExpr evaluates an affine expression over i64 dims and symbols.
// Division and modulo round toward negative infinity, as in MLIR.
func (e *fn) affineExpr(x *ir.AffineExpr, dims, syms []vm.Reg) (vm.Reg, error) {
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
		return e.ci64(x.Value), nil
	}
	l, err := e.affineExpr(x.LHS, dims, syms)
	if err != nil {
		return vm.Reg{}, err
	}
	r, err := e.affineExpr(x.RHS, dims, syms)
	if err != nil {
		return vm.Reg{}, err
	}
	switch x.Kind {
	case ir.AffineAdd:
		return e.emit(vm.KindI64, vm.OpAddI64, l, r), nil
	case ir.AffineMul:
		return e.emit(vm.KindI64, vm.OpMulI64, l, r), nil
	case ir.AffineCeilDiv:
		return e.emit(vm.KindI64, vm.OpCeilDivI64S, l, r), nil
	case ir.AffineMod, ir.AffineFloorDiv:
		q := e.emit(vm.KindI64, vm.OpDivI64S, l, r)
		m := e.emit(vm.KindI64, vm.OpRemI64S, l, r)
		// The truncated results are one off when the remainder is non-zero
		// and its sign differs from the divisor's.
		signs := e.emit(vm.KindI32, vm.OpCmpLtI64S, e.emit(vm.KindI64, vm.OpXorI64, m, r), e.ci64(0))
		fix := e.emit(vm.KindI32, vm.OpAndI32, e.emit(vm.KindI32, vm.OpCmpNzI64, m), signs)
		if x.Kind == ir.AffineMod {
			return e.selectReg(fix, e.emit(vm.KindI64, vm.OpAddI64, m, r), m), nil
		}
		return e.selectReg(fix, e.emit(vm.KindI64, vm.OpSubI64, q, e.ci64(1)), q), nil
	}
	return vm.Reg{}, fmt.Errorf("unknown affine expression kind %d", x.Kind)
}

// value returns the register of an SSA value.
func (e *fn) value(op *ir.Operation, v *ir.Value) (vm.Reg, error) {
	r, ok := e.vals[v]
	if !ok {
		return vm.Reg{}, ir.OpErrorf(op, "value %%%s is used before it is defined", v.Name)
	}
	return r, nil
}

// scalarOp emits one scalar op of a kernel body (arith, math, affine).
func (e *fn) scalarOp(op *ir.Operation) error {
	switch op.Name {
	case "arith.constant":
		return e.constantOp(op)
	case "affine.apply", "affine.min", "affine.max":
		return e.affineOp(op)
	case "tensor.extract":
		return e.indexedRead(op)
	}
	if !strings.HasPrefix(op.Name, "arith.") && !strings.HasPrefix(op.Name, "math.") {
		return ir.OpErrorf(op, "is not supported in vmvx kernels (bodies are arith, math and affine ops)")
	}
	if len(op.Results) != 1 {
		return ir.OpErrorf(op, "with %d results is not supported by vmvx code generation", len(op.Results))
	}
	args := make([]vm.Reg, len(op.Operands))
	for i, v := range op.Operands {
		r, err := e.value(op, v)
		if err != nil {
			return err
		}
		args[i] = r
	}
	if want := arity(op.Name); want >= 0 && len(args) != want {
		return ir.OpErrorf(op, "expects %d operands, found %d", want, len(args))
	}
	rt := arith.ElementType(op.Results[0].Type)
	if _, err := bank(rt); err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	var at ir.Type
	if len(op.Operands) > 0 {
		at = arith.ElementType(op.Operands[0].Type)
		if _, err := bank(at); err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
	}
	var r vm.Reg
	var err error
	if _, ok := rt.(ir.FloatType); ok && op.Name != "arith.select" && op.Name != "arith.bitcast" && !strings.HasSuffix(op.Name, "tofp") && op.Name != "arith.extf" && op.Name != "arith.truncf" {
		r, err = e.floatOp(op, rt, args)
	} else {
		r, err = e.otherOp(op, rt, at, args)
	}
	if err != nil {
		return err
	}
	e.vals[op.Results[0]] = r
	return nil
}

// indexedRead emits tensor.extract %t[%off] of a loop nest's indexed
// input: a load at byte offset off * element size of its buffer (off is
// inside the tensor; see loopnest.Attr).
func (e *fn) indexedRead(op *ir.Operation) error {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "only reads of a loop nest's indexed input at one offset are supported in vmvx kernels")
	}
	buf, err := e.value(op, op.Operands[0])
	if err != nil {
		return err
	}
	off, err := e.value(op, op.Operands[1])
	if err != nil {
		return err
	}
	rt := op.Results[0].Type
	if _, err := bank(rt); err != nil || buf.Kind() != vm.KindRef || off.Kind() != vm.KindI64 {
		return ir.OpErrorf(op, "only reads of a loop nest's indexed input at one offset are supported in vmvx kernels")
	}
	bytes := e.emit(vm.KindI64, vm.OpMulI64, off, e.ci64(elemSize(rt)))
	e.vals[op.Results[0]] = e.load(buf, bytes, rt)
	return nil
}

// arity returns the operand count of a scalar op, or -1 when unknown.
func arity(name string) int {
	switch name {
	case "arith.select", "math.fma":
		return 3
	case "arith.negf", "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
		"arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.bitcast":
		return 1
	case "math.powf", "math.atan2", "math.copysign", "math.fpowi":
		return 2
	}
	if strings.HasPrefix(name, "math.") {
		return 1
	}
	return 2
}

func (e *fn) constantOp(op *ir.Operation) error {
	if len(op.Results) != 1 {
		return ir.OpErrorf(op, "expects one result")
	}
	t := arith.ElementType(op.Results[0].Type)
	k, err := bank(t)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	a := op.Attr("value")
	if d, ok := a.(*ir.DenseAttr); ok {
		if !d.Splat || len(d.Elements) != 1 {
			return ir.OpErrorf(op, "only scalar and splat constants can be used in vmvx kernels")
		}
		a = d.Elements[0]
	}
	var iv int64
	var fv float64
	switch a := a.(type) {
	case ir.IntegerAttr:
		iv, fv = a.Value, float64(a.Value)
	case ir.FloatAttr:
		fv = a.Value
	case ir.BoolAttr:
		if a.Value {
			iv, fv = 1, 1
		}
	default:
		return ir.OpErrorf(op, "unsupported constant %s", ir.AttrString(a))
	}
	var r vm.Reg
	switch w := intWidth(t); {
	case w == 64:
		r = e.ci64(iv)
	case w > 0:
		// The canonical form of the low w bits.
		switch w {
		case 1:
			iv &= 1
		case 8:
			iv = int64(int8(iv))
		case 16:
			iv = int64(int16(iv))
		}
		r = e.ci32(int32(iv))
	case k == vm.KindF32:
		r = e.cf32(float32(fv))
	default:
		r = e.constant(constKey{kind: vm.KindF64, bits: math.Float64bits(fv), half: halfKind(t)})
	}
	e.vals[op.Results[0]] = r
	return nil
}

func (e *fn) affineOp(op *ir.Operation) error {
	m := affine.Map(op)
	if m == nil || len(m.Results) == 0 || op.Name == "affine.apply" && len(m.Results) != 1 {
		return ir.OpErrorf(op, "needs an affine map with one result (affine.apply) or at least one")
	}
	if len(op.Operands) != m.NumDims+m.NumSyms || len(op.Results) != 1 {
		return ir.OpErrorf(op, "affine map takes %d operands, got %d", m.NumDims+m.NumSyms, len(op.Operands))
	}
	args := make([]vm.Reg, len(op.Operands))
	for i, v := range op.Operands {
		r, err := e.value(op, v)
		if err != nil {
			return err
		}
		if r.Kind() != vm.KindI64 {
			return ir.OpErrorf(op, "affine operands must be index values")
		}
		args[i] = r
	}
	var acc vm.Reg
	for i, x := range m.Results {
		r, err := e.affineExpr(x, args[:m.NumDims], args[m.NumDims:])
		if err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		switch {
		case i == 0:
			acc = r
		case op.Name == "affine.min":
			acc = e.emit(vm.KindI64, vm.OpMinI64S, acc, r)
		default:
			acc = e.emit(vm.KindI64, vm.OpMaxI64S, acc, r)
		}
	}
	e.vals[op.Results[0]] = acc
	return nil
}

// floatUnary are math ops computed by one f64 opcode.
var floatUnary = map[string]vm.Opcode{
	"math.exp": vm.OpExpF64, "math.exp2": vm.OpExp2F64, "math.expm1": vm.OpExpm1F64,
	"math.log": vm.OpLogF64, "math.log2": vm.OpLog2F64, "math.log1p": vm.OpLog1pF64,
	"math.tanh": vm.OpTanhF64, "math.erf": vm.OpErfF64, "math.sin": vm.OpSinF64, "math.cos": vm.OpCosF64,
	"math.trunc": vm.OpTruncF64, "math.roundeven": vm.OpRoundEvenF64,
}

// floatBasic are the ops with f32 and f64 opcodes; f16 and bf16 use the
// f64 one and round.
var floatBasic = map[string][2]vm.Opcode{
	"arith.addf": {vm.OpAddF32, vm.OpAddF64}, "arith.subf": {vm.OpSubF32, vm.OpSubF64},
	"arith.mulf": {vm.OpMulF32, vm.OpMulF64}, "arith.divf": {vm.OpDivF32, vm.OpDivF64},
	"arith.remf": {vm.OpRemF32, vm.OpRemF64}, "arith.maximumf": {vm.OpMaxF32, vm.OpMaxF64},
	"arith.minimumf": {vm.OpMinF32, vm.OpMinF64}, "arith.negf": {vm.OpNegF32, vm.OpNegF64},
	"math.absf": {vm.OpAbsF32, vm.OpAbsF64}, "math.sqrt": {vm.OpSqrtF32, vm.OpSqrtF64},
	"math.floor": {vm.OpFloorF32, vm.OpFloorF64}, "math.ceil": {vm.OpCeilF32, vm.OpCeilF64},
}

// floatOp emits an op with a float result computed from floats.
func (e *fn) floatOp(op *ir.Operation, rt ir.Type, a []vm.Reg) (vm.Reg, error) {
	k, _ := bank(rt)
	if ops, ok := floatBasic[op.Name]; ok {
		if k == vm.KindF32 {
			return e.emit(vm.KindF32, ops[0], a...), nil
		}
		return e.fromF64(e.emit(vm.KindF64, ops[1], a...), rt), nil
	}
	wide := func(i int) vm.Reg { return e.toF64(a[i], rt) }
	if o, ok := floatUnary[op.Name]; ok {
		return e.fromF64(e.emit(vm.KindF64, o, wide(0)), rt), nil
	}
	switch op.Name {
	case "math.log10":
		// As Go's math.Log10 computes it.
		l := e.emit(vm.KindF64, vm.OpLog2F64, wide(0))
		return e.fromF64(e.emit(vm.KindF64, vm.OpMulF64, l, e.cf64(math.Ln2/math.Ln10)), rt), nil
	case "math.tan":
		return e.fromF64(e.emit(vm.KindF64, vm.OpDivF64, e.emit(vm.KindF64, vm.OpSinF64, wide(0)), e.emit(vm.KindF64, vm.OpCosF64, wide(0))), rt), nil
	case "math.atan":
		return e.fromF64(e.emit(vm.KindF64, vm.OpAtan2F64, wide(0), e.cf64(1)), rt), nil
	case "math.atan2":
		return e.fromF64(e.emit(vm.KindF64, vm.OpAtan2F64, wide(0), wide(1)), rt), nil
	case "math.powf":
		return e.fromF64(e.emit(vm.KindF64, vm.OpPowF64, wide(0), wide(1)), rt), nil
	case "math.fpowi":
		n := a[1]
		if n.Kind() == vm.KindI32 {
			n = e.emit(vm.KindI64, vm.OpExtI32I64S, e.sval(n, intWidth(op.Operands[1].Type)))
		}
		return e.fromF64(e.emit(vm.KindF64, vm.OpPowF64, wide(0), e.emit(vm.KindF64, vm.OpCastSI64F64, n)), rt), nil
	case "math.fma":
		return e.fromF64(e.emit(vm.KindF64, vm.OpFmaF64, wide(0), wide(1), wide(2)), rt), nil
	case "math.rsqrt":
		return e.fromF64(e.emit(vm.KindF64, vm.OpDivF64, e.cf64(1), e.emit(vm.KindF64, vm.OpSqrtF64, wide(0))), rt), nil
	case "math.round":
		// Half away from zero: trunc, plus the sign when the fraction is at
		// least a half (keeping trunc's signed zero otherwise).
		x := wide(0)
		t := e.emit(vm.KindF64, vm.OpTruncF64, x)
		frac := e.emit(vm.KindF64, vm.OpAbsF64, e.emit(vm.KindF64, vm.OpSubF64, x, t))
		up := e.emit(vm.KindI32, vm.OpCmpGteF64, frac, e.cf64(0.5))
		sign := e.selectReg(e.emit(vm.KindI32, vm.OpCmpLtF64, x, e.cf64(0)), e.cf64(-1), e.cf64(1))
		return e.fromF64(e.selectReg(up, e.emit(vm.KindF64, vm.OpAddF64, t, sign), t), rt), nil
	case "math.copysign":
		if k == vm.KindF32 {
			x := e.emit(vm.KindI32, vm.OpBitcastF32I32, a[0])
			y := e.emit(vm.KindI32, vm.OpBitcastF32I32, a[1])
			bits := e.emit(vm.KindI32, vm.OpOrI32, e.emit(vm.KindI32, vm.OpAndI32, x, e.ci32(math.MaxInt32)), e.emit(vm.KindI32, vm.OpAndI32, y, e.ci32(math.MinInt32)))
			return e.emit(vm.KindF32, vm.OpBitcastI32F32, bits), nil
		}
		x := e.emit(vm.KindI64, vm.OpBitcastF64I64, a[0])
		y := e.emit(vm.KindI64, vm.OpBitcastF64I64, a[1])
		bits := e.emit(vm.KindI64, vm.OpOrI64, e.emit(vm.KindI64, vm.OpAndI64, x, e.ci64(math.MaxInt64)), e.emit(vm.KindI64, vm.OpAndI64, y, e.ci64(math.MinInt64)))
		return e.emit(vm.KindF64, vm.OpBitcastI64F64, bits), nil
	case "arith.maxnumf", "arith.minnumf":
		// The other operand where one is NaN.
		o := [2]vm.Opcode{vm.OpMaxF32, vm.OpMaxF64}
		if op.Name == "arith.minnumf" {
			o = [2]vm.Opcode{vm.OpMinF32, vm.OpMinF64}
		}
		var m, na, nb vm.Reg
		if k == vm.KindF32 {
			m = e.emit(k, o[0], a[0], a[1])
			na, nb = e.emit(vm.KindI32, vm.OpCmpNaNF32, a[0]), e.emit(vm.KindI32, vm.OpCmpNaNF32, a[1])
		} else {
			m = e.emit(k, o[1], a[0], a[1])
			na, nb = e.emit(vm.KindI32, vm.OpCmpNaNF64, a[0]), e.emit(vm.KindI32, vm.OpCmpNaNF64, a[1])
		}
		m = e.selectReg(na, a[1], m)
		return e.selectReg(nb, a[0], m), nil
	}
	return vm.Reg{}, ir.OpErrorf(op, "is not supported by vmvx code generation")
}

// otherOp emits integer ops, comparisons, casts, select and bitcast.
func (e *fn) otherOp(op *ir.Operation, rt, at ir.Type, a []vm.Reg) (vm.Reg, error) {
	w := intWidth(rt)
	aw := intWidth(at)
	switch op.Name {
	case "arith.addi", "arith.subi", "arith.muli":
		o := map[string]intOps{"arith.addi": opAdd, "arith.subi": opSub, "arith.muli": opMul}[op.Name]
		return e.norm(e.iop(o, w, a[0], a[1]), w), nil
	case "arith.andi", "arith.ori", "arith.xori":
		o := map[string]intOps{"arith.andi": opAnd, "arith.ori": opOr, "arith.xori": opXor}[op.Name]
		return e.iop(o, w, a[0], a[1]), nil
	case "arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi":
		// A zero divisor gives 0 (a remainder the dividend), as the
		// llvm-cpu target does, instead of failing the dispatch.
		x, y := e.sval(a[0], w), e.sval(a[1], w)
		d, zero := e.safeDivisor(y, w)
		var r vm.Reg
		switch op.Name {
		case "arith.divsi":
			r = e.selectReg(zero, e.iconst(0, w), e.iop(opDivS, w, x, d))
		case "arith.remsi":
			r = e.selectReg(zero, x, e.iop(opRemS, w, x, d))
		case "arith.ceildivsi":
			r = e.selectReg(zero, e.iconst(0, w), e.iop(opCeilDivS, w, x, d))
		default:
			q, m := e.iop(opDivS, w, x, d), e.iop(opRemS, w, x, d)
			neg := e.icmp(opLtS, w, e.iop(opXor, w, m, d), e.iconst(0, w))
			fix := e.emit(vm.KindI32, vm.OpAndI32, e.icmp(opNe, w, m, e.iconst(0, w)), neg)
			q = e.selectReg(fix, e.iop(opSub, w, q, e.iconst(1, w)), q)
			r = e.selectReg(zero, e.iconst(0, w), q)
		}
		return e.norm(r, w), nil
	case "arith.divui", "arith.remui", "arith.ceildivui":
		x, y := e.zext(a[0], w), e.zext(a[1], w)
		d, zero := e.safeDivisor(y, w)
		var r vm.Reg
		switch op.Name {
		case "arith.divui":
			r = e.selectReg(zero, e.iconst(0, w), e.iop(opDivU, w, x, d))
		case "arith.remui":
			r = e.selectReg(zero, x, e.iop(opRemU, w, x, d))
		default:
			r = e.selectReg(zero, e.iconst(0, w), e.iop(opCeilDivU, w, x, d))
		}
		return e.norm(r, w), nil
	case "arith.shli", "arith.shrsi", "arith.shrui":
		// Shifting by the width or more gives 0 (the sign for shrsi), as
		// on the llvm-cpu target, rather than the VM's masked amount.
		n := e.zext(a[1], w)
		if w == 1 {
			if op.Name == "arith.shrsi" {
				return a[0], nil
			}
			return e.selectReg(n, e.ci32(0), a[0]), nil
		}
		big := e.icmp(opGteU, w, n, e.iconst(int64(w), w))
		switch op.Name {
		case "arith.shli":
			return e.norm(e.selectReg(big, e.iconst(0, w), e.iop(opShl, w, a[0], n)), w), nil
		case "arith.shrsi":
			return e.iop(opShrS, w, a[0], e.iop(opMinU, w, n, e.iconst(int64(w-1), w))), nil
		}
		return e.norm(e.selectReg(big, e.iconst(0, w), e.iop(opShrU, w, e.zext(a[0], w), n)), w), nil
	case "arith.maxsi", "arith.minsi":
		o := opMaxS
		if op.Name == "arith.minsi" {
			o = opMinS
		}
		return e.norm(e.iop(o, w, e.sval(a[0], w), e.sval(a[1], w)), w), nil
	case "arith.maxui", "arith.minui":
		o := opMaxU
		if op.Name == "arith.minui" {
			o = opMinU
		}
		return e.norm(e.iop(o, w, e.zext(a[0], w), e.zext(a[1], w)), w), nil
	case "math.ctpop", "math.ctlz", "math.cttz":
		return e.bitCount(op.Name, a[0], w), nil
	case "math.absi":
		return e.norm(e.iop(opAbs, w, e.sval(a[0], w)), w), nil
	case "arith.cmpi":
		n, _ := op.IntAttr("predicate")
		if n < 0 || int(n) >= len(arith.CmpIPredicates) {
			return vm.Reg{}, ir.OpErrorf(op, "bad predicate %d", n)
		}
		p := arith.CmpIPredicates[n]
		x, y := a[0], a[1]
		switch p[0] {
		case 'u':
			x, y = e.zext(x, aw), e.zext(y, aw)
		case 's':
			x, y = e.sval(x, aw), e.sval(y, aw)
		}
		o := map[string]intOps{"eq": opEq, "ne": opNe, "slt": opLtS, "sle": opLteS, "sgt": opGtS, "sge": opGteS,
			"ult": opLtU, "ule": opLteU, "ugt": opGtU, "uge": opGteU}[p]
		return e.icmp(o, aw, x, y), nil
	case "arith.cmpf":
		return e.cmpf(op, at, a[0], a[1])
	case "arith.select":
		return e.selectReg(a[0], a[1], a[2]), nil
	case "arith.extsi", "arith.index_cast":
		if w <= aw { // index_cast down
			return e.truncInt(a[0], aw, w), nil
		}
		x := e.sval(a[0], aw)
		if w == 64 && aw < 64 {
			return e.emit(vm.KindI64, vm.OpExtI32I64S, x), nil
		}
		return x, nil
	case "arith.extui", "arith.index_castui":
		if w <= aw {
			return e.truncInt(a[0], aw, w), nil
		}
		x := e.zext(a[0], aw)
		if w == 64 && aw < 64 {
			return e.emit(vm.KindI64, vm.OpExtI32I64U, x), nil
		}
		return e.norm(x, w), nil
	case "arith.trunci":
		return e.truncInt(a[0], aw, w), nil
	case "arith.sitofp", "arith.uitofp":
		x := a[0]
		signed := op.Name == "arith.sitofp"
		if floatName(rt) == "f32" {
			switch {
			case aw < 64 && signed:
				return e.emit(vm.KindF32, vm.OpCastSI32F32, e.sval(x, aw)), nil
			case aw < 64:
				return e.emit(vm.KindF32, vm.OpCastUI32F32, e.zext(x, aw)), nil
			case signed:
				return e.emit(vm.KindF32, vm.OpCastSI64F32, x), nil
			}
			return e.emit(vm.KindF32, vm.OpTruncF64F32, e.emit(vm.KindF64, vm.OpCastUI64F64, x)), nil
		}
		if aw < 64 {
			if signed {
				x = e.emit(vm.KindI64, vm.OpExtI32I64S, e.sval(x, aw))
			} else {
				x = e.emit(vm.KindI64, vm.OpExtI32I64U, e.zext(x, aw))
			}
		}
		if signed {
			return e.fromF64(e.emit(vm.KindF64, vm.OpCastSI64F64, x), rt), nil
		}
		return e.fromF64(e.emit(vm.KindF64, vm.OpCastUI64F64, x), rt), nil
	case "arith.fptosi", "arith.fptoui":
		if w == 1 {
			// As C converts to _Bool: non-zero is true.
			if floatName(at) == "f32" {
				return e.not1(e.emit(vm.KindI32, vm.OpCmpEqF32, a[0], e.cf32(0))), nil
			}
			return e.not1(e.emit(vm.KindI32, vm.OpCmpEqF64, a[0], e.cf64(0))), nil
		}
		if op.Name == "arith.fptosi" && floatName(at) == "f32" {
			if w == 64 {
				return e.emit(vm.KindI64, vm.OpCastF32SI64, a[0]), nil
			}
			return e.norm(e.emit(vm.KindI32, vm.OpCastF32SI32, a[0]), w), nil
		}
		if op.Name == "arith.fptoui" && floatName(at) == "f32" && w < 64 {
			return e.norm(e.emit(vm.KindI32, vm.OpCastF32UI32, a[0]), w), nil
		}
		x := e.toF64(a[0], at)
		var r vm.Reg
		if op.Name == "arith.fptosi" {
			r = e.emit(vm.KindI64, vm.OpCastF64SI64, x)
		} else {
			r = e.emit(vm.KindI64, vm.OpCastF64UI64, x)
		}
		if w == 64 {
			return r, nil
		}
		return e.norm(e.emit(vm.KindI32, vm.OpTruncI64I32, r), w), nil
	case "arith.extf":
		switch {
		case floatName(at) == floatName(rt):
			return a[0], nil
		case floatName(rt) == "f32":
			return e.emit(vm.KindF32, vm.OpTruncF64F32, a[0]), nil // an f16/bf16 value is exact in f32
		}
		return e.toF64(a[0], at), nil
	case "arith.truncf":
		return e.fromF64(e.toF64(a[0], at), rt), nil
	case "arith.bitcast":
		return e.bitcast(op, rt, at, a[0])
	case "math.isnan", "math.isinf", "math.isfinite", "math.isnormal":
		x := e.toF64(a[0], at)
		switch op.Name {
		case "math.isnan":
			return e.emit(vm.KindI32, vm.OpCmpNaNF64, x), nil
		case "math.isinf":
			return e.emit(vm.KindI32, vm.OpCmpEqF64, e.emit(vm.KindF64, vm.OpAbsF64, x), e.cf64(math.Inf(1))), nil
		case "math.isfinite":
			return e.emit(vm.KindI32, vm.OpCmpEqF64, e.emit(vm.KindF64, vm.OpSubF64, x, x), e.cf64(0)), nil
		}
		smallest := map[string]float64{"f32": 0x1p-126, "f64": 0x1p-1022, "f16": 0x1p-14, "bf16": 0x1p-126}[floatName(at)]
		abs := e.emit(vm.KindF64, vm.OpAbsF64, x)
		finite := e.emit(vm.KindI32, vm.OpCmpEqF64, e.emit(vm.KindF64, vm.OpSubF64, abs, abs), e.cf64(0))
		return e.emit(vm.KindI32, vm.OpAndI32, e.emit(vm.KindI32, vm.OpCmpGteF64, abs, e.cf64(smallest)), finite), nil
	}
	return vm.Reg{}, ir.OpErrorf(op, "is not supported by vmvx code generation")
}

// truncInt keeps the low w bits of an integer of width aw.
func (e *fn) truncInt(x vm.Reg, aw, w int) vm.Reg {
	if aw == 64 && w < 64 {
		x = e.emit(vm.KindI32, vm.OpTruncI64I32, x)
	}
	return e.norm(x, w)
}

func (e *fn) cmpf(op *ir.Operation, at ir.Type, x, y vm.Reg) (vm.Reg, error) {
	n, _ := op.IntAttr("predicate")
	if n < 0 || int(n) >= len(arith.CmpFPredicates) {
		return vm.Reg{}, ir.OpErrorf(op, "bad predicate %d", n)
	}
	p := arith.CmpFPredicates[n]
	ops := map[string]vm.Opcode{"eq": vm.OpCmpEqF64, "ne": vm.OpCmpNeF64, "lt": vm.OpCmpLtF64, "le": vm.OpCmpLteF64,
		"gt": vm.OpCmpGtF64, "ge": vm.OpCmpGteF64, "nan": vm.OpCmpNaNF64}
	if floatName(at) == "f32" {
		ops = map[string]vm.Opcode{"eq": vm.OpCmpEqF32, "ne": vm.OpCmpNeF32, "lt": vm.OpCmpLtF32, "le": vm.OpCmpLteF32,
			"gt": vm.OpCmpGtF32, "ge": vm.OpCmpGteF32, "nan": vm.OpCmpNaNF32}
	}
	c := func(name string, a, b vm.Reg) vm.Reg { return e.emit(vm.KindI32, ops[name], a, b) }
	unord := func() vm.Reg {
		return e.emit(vm.KindI32, vm.OpOrI32, e.emit(vm.KindI32, ops["nan"], x), e.emit(vm.KindI32, ops["nan"], y))
	}
	// The VM's float comparisons are ordered (false on NaN) but for ne.
	switch p {
	case "false":
		return e.ci32(0), nil
	case "true":
		return e.ci32(1), nil
	case "ord":
		return e.not1(unord()), nil
	case "uno":
		return unord(), nil
	case "oeq", "ogt", "oge", "olt", "ole":
		return c(p[1:], x, y), nil
	case "one":
		return e.emit(vm.KindI32, vm.OpOrI32, c("lt", x, y), c("gt", x, y)), nil
	case "une":
		return c("ne", x, y), nil
	case "ueq":
		return e.emit(vm.KindI32, vm.OpOrI32, unord(), c("eq", x, y)), nil
	case "ugt":
		return e.not1(c("le", x, y)), nil
	case "uge":
		return e.not1(c("lt", x, y)), nil
	case "ult":
		return e.not1(c("ge", x, y)), nil
	case "ule":
		return e.not1(c("gt", x, y)), nil
	}
	return vm.Reg{}, ir.OpErrorf(op, "unknown predicate %q", p)
}

// bitcast reinterprets the bits of x (of type at) as type rt.
func (e *fn) bitcast(op *ir.Operation, rt, at ir.Type, x vm.Reg) (vm.Reg, error) {
	if h := halfKind(at); h != "" {
		x, at = e.emit(vm.KindI32, truncHalf[h], x), ir.IntegerType{Width: 16} // exact: x is of type at
	}
	if h := halfKind(rt); h != "" {
		return e.emit(vm.KindF64, extHalf[h], x), nil
	}
	switch {
	case intWidth(rt) > 0 && intWidth(at) > 0:
		return e.norm(x, intWidth(rt)), nil
	case floatName(rt) == "f32":
		return e.emit(vm.KindF32, vm.OpBitcastI32F32, x), nil
	case floatName(rt) == "f64":
		return e.emit(vm.KindF64, vm.OpBitcastI64F64, x), nil
	case floatName(at) == "f32":
		return e.norm(e.emit(vm.KindI32, vm.OpBitcastF32I32, x), intWidth(rt)), nil
	case floatName(at) == "f64":
		return e.emit(vm.KindI64, vm.OpBitcastF64I64, x), nil
	}
	return vm.Reg{}, ir.OpErrorf(op, "cannot bitcast '%s' to '%s'", ir.TypeString(at), ir.TypeString(rt))
}

// bitCount emits math.ctpop, math.ctlz or math.cttz of a canonical integer
// of width w as a small loop over its bits (0 counts w leading or trailing
// zeros).
func (e *fn) bitCount(name string, a vm.Reg, w int) vm.Reg {
	f := e.f
	k := a.Kind()
	bits := 32
	if k == vm.KindI64 {
		bits = 64
	}
	x, c := f.NewReg(k), f.NewReg(k)
	e.mov(c, e.iconst(0, bits))
	head, body, done := f.NewLabel(), f.NewLabel(), f.NewLabel()
	switch name {
	case "math.ctpop":
		// Clear the lowest set bit until none is left.
		e.mov(x, e.zext(a, w))
		f.Bind(head)
		f.CondBr(e.icmp(opNe, bits, x, e.iconst(0, bits)), body, done)
		f.Bind(body)
		e.mov(x, e.iop(opAnd, bits, x, e.iop(opSub, bits, x, e.iconst(1, bits))))
	case "math.cttz":
		// Shift right until the lowest bit is set; a bit past the width
		// stops the loop at w for 0.
		x0 := e.zext(a, w)
		if w < bits {
			x0 = e.iop(opOr, bits, x0, e.iop(opShl, bits, e.iconst(1, bits), e.iconst(int64(w), bits)))
		}
		e.mov(x, x0)
		f.Bind(head)
		f.CondBr(e.icmp(opEq, bits, e.iop(opAnd, bits, x, e.iconst(1, bits)), e.iconst(0, bits)), body, done)
		f.Bind(body)
		if w == bits {
			// All 0: 64 (or 32) shifts leave 0 forever; stop at the width.
			stop := f.NewLabel()
			f.CondBr(e.icmp(opEq, bits, c, e.iconst(int64(w), bits)), done, stop)
			f.Bind(stop)
		}
		e.mov(x, e.iop(opShrU, bits, x, e.iconst(1, bits)))
	default: // math.ctlz
		// Move bit w-1 to the register's top bit and shift left until it
		// is set, stopping at w for 0.
		e.mov(x, e.iop(opShl, bits, a, e.iconst(int64(bits-w), bits)))
		f.Bind(head)
		top := e.icmp(opLtS, bits, x, e.iconst(0, bits))
		more := e.emit(vm.KindI32, vm.OpAndI32, e.not1(top), e.icmp(opLtS, bits, c, e.iconst(int64(w), bits)))
		f.CondBr(more, body, done)
		f.Bind(body)
		e.mov(x, e.iop(opShl, bits, x, e.iconst(1, bits)))
	}
	f.Emit(map[vm.ValueKind]vm.Opcode{vm.KindI32: vm.OpAddI32, vm.KindI64: vm.OpAddI64}[k], c, c, e.iconst(1, bits))
	f.Br(head)
	f.Bind(done)
	return e.norm(c, w)
}
