package vm

import "strconv"

// This file is the single table of the bytecode instruction set: every
// opcode's name, operand encoding and semantics. The assembler, the
// verifier, the interpreter's decoder and the disassembler all read it, and
// ISA.md is generated from it (go test -run TestISADoc -update).

// Opcode is the first byte of an instruction.
type Opcode uint8

// operandKind says how one operand is encoded and what it refers to.
type operandKind uint8

const (
	oNone operandKind = iota
	// Registers: u16 index into the bank of that kind.
	oRegI32
	oRegI64
	oRegF32
	oRegF64
	oRegRef
	// Immediates, little-endian.
	oImmI32 // 4 bytes
	oImmI64 // 8 bytes
	oImmF32 // 4 bytes, IEEE bits
	oImmF64 // 8 bytes, IEEE bits
	// u32 ordinals and offsets.
	oTarget    // bytecode offset from the start of the function
	oFunc      // internal function ordinal
	oImport    // import ordinal
	oRodata    // rodata segment ordinal
	oGlobal32  // byte offset of a 4-byte global (4-aligned)
	oGlobal64  // byte offset of an 8-byte global (8-aligned)
	oGlobalRef // index of a ref global
	// Variable-length operands: a u16 count followed by count u16 entries.
	oSegments // tuple counts of the callee's variadic groups
	oArgs     // argument registers; banks follow the callee's arguments
	oResults  // result registers; banks follow the callee's (or, for return, the function's) results
	// u16 length followed by that many bytes of UTF-8 text.
	oString
)

// fixedSize returns the encoded size of a fixed-size operand kind (0 for
// variable-length ones).
func (k operandKind) fixedSize() int {
	switch k {
	case oRegI32, oRegI64, oRegF32, oRegF64, oRegRef:
		return 2
	case oImmI32, oImmF32, oTarget, oFunc, oImport, oRodata, oGlobal32, oGlobal64, oGlobalRef:
		return 4
	case oImmI64, oImmF64:
		return 8
	}
	return 0
}

// regKind returns the bank of a register operand kind (KindNone if the
// operand is not a register).
func (k operandKind) regKind() ValueKind {
	switch k {
	case oRegI32:
		return KindI32
	case oRegI64:
		return KindI64
	case oRegF32:
		return KindF32
	case oRegF64:
		return KindF64
	case oRegRef:
		return KindRef
	}
	return KindNone
}

var operandDocs = [...]string{
	oRegI32:    "i32 reg (u16)",
	oRegI64:    "i64 reg (u16)",
	oRegF32:    "f32 reg (u16)",
	oRegF64:    "f64 reg (u16)",
	oRegRef:    "ref reg (u16)",
	oImmI32:    "imm i32 (4 B)",
	oImmI64:    "imm i64 (8 B)",
	oImmF32:    "imm f32 (4 B)",
	oImmF64:    "imm f64 (8 B)",
	oTarget:    "target (u32)",
	oFunc:      "function (u32)",
	oImport:    "import (u32)",
	oRodata:    "rodata (u32)",
	oGlobal32:  "global4 byte offset (u32)",
	oGlobal64:  "global8 byte offset (u32)",
	oGlobalRef: "ref global (u32)",
	oSegments:  "segments (u16 n, n×u16)",
	oArgs:      "args (u16 n, n×u16 reg)",
	oResults:   "results (u16 n, n×u16 reg)",
	oString:    "string (u16 n, n bytes)",
}

// opInfo describes one opcode.
type opInfo struct {
	name     string
	operands []operandKind
	dsts     int  // number of leading operands the instruction writes
	term     bool // ends a block: nothing falls through
	doc      string
}

func op(name string, dsts int, doc string, operands ...operandKind) opInfo {
	return opInfo{name: name, operands: operands, dsts: dsts, doc: doc}
}

func term(name, doc string, operands ...operandKind) opInfo {
	return opInfo{name: name, operands: operands, term: true, doc: doc}
}

// Opcodes, numbered in groups with room to grow so that adding an opcode
// does not renumber the others. Opcode 0 is invalid so that zeroed bytecode
// is rejected; unlisted numbers are invalid too.
const OpInvalid Opcode = 0

// Constants.
const (
	OpConstI32 Opcode = iota + 0x01
	OpConstI64
	OpConstF32
	OpConstF64
	OpConstRefZero
	OpConstRefRodata
)

// Moves.
const (
	OpMovI32 Opcode = iota + 0x08
	OpMovI64
	OpMovF32
	OpMovF64
	OpMovRef
)

// Control flow.
const (
	OpBr Opcode = iota + 0x10
	OpCondBr
	OpCall
	OpCallImport
	OpCallImportVariadic
	OpReturn
	OpFail
	OpImportResolved
)

// i32 arithmetic.
const (
	OpAddI32 Opcode = iota + 0x20
	OpSubI32
	OpMulI32
	OpDivI32S
	OpDivI32U
	OpRemI32S
	OpRemI32U
	OpCeilDivI32S
	OpCeilDivI32U
	OpAndI32
	OpOrI32
	OpXorI32
	OpShlI32
	OpShrI32S
	OpShrI32U
	OpMinI32S
	OpMinI32U
	OpMaxI32S
	OpMaxI32U
	OpNotI32
	OpNegI32
	OpAbsI32
)

// i64 arithmetic.
const (
	OpAddI64 Opcode = iota + 0x38
	OpSubI64
	OpMulI64
	OpDivI64S
	OpDivI64U
	OpRemI64S
	OpRemI64U
	OpCeilDivI64S
	OpCeilDivI64U
	OpAndI64
	OpOrI64
	OpXorI64
	OpShlI64
	OpShrI64S
	OpShrI64U
	OpMinI64S
	OpMinI64U
	OpMaxI64S
	OpMaxI64U
	OpNotI64
	OpNegI64
	OpAbsI64
)

// f32 arithmetic.
const (
	OpAddF32 Opcode = iota + 0x50
	OpSubF32
	OpMulF32
	OpDivF32
	OpRemF32
	OpMinF32
	OpMaxF32
	OpNegF32
	OpAbsF32
	OpSqrtF32
	OpFloorF32
	OpCeilF32
)

// f64 arithmetic.
const (
	OpAddF64 Opcode = iota + 0x60
	OpSubF64
	OpMulF64
	OpDivF64
	OpRemF64
	OpMinF64
	OpMaxF64
	OpNegF64
	OpAbsF64
	OpSqrtF64
	OpFloorF64
	OpCeilF64
	OpTruncF64
	OpRoundEvenF64
	OpFmaF64
	OpPowF64
)

// Casts.
const (
	OpTruncI32I8 Opcode = iota + 0x70
	OpTruncI32I16
	OpExtI8I32S
	OpExtI8I32U
	OpExtI16I32S
	OpExtI16I32U
	OpExtI32I64S
	OpExtI32I64U
	OpTruncI64I32
	OpCastSI32F32
	OpCastUI32F32
	OpCastF32SI32
	OpCastF32UI32
	OpCastSI64F32
	OpCastF32SI64
	OpCastSI64F64
	OpCastUI64F64
	OpCastF64SI64
	OpCastF64UI64
	OpExtF32F64
	OpTruncF64F32
	OpBitcastI32F32
	OpBitcastF32I32
	OpBitcastI64F64
	OpBitcastF64I64
	OpExtF16F64
	OpExtBF16F64
	OpTruncF64F16
	OpTruncF64BF16
)

// Comparisons (result: i32 0 or 1).
const (
	OpCmpEqI32 Opcode = iota + 0x90
	OpCmpNeI32
	OpCmpLtI32S
	OpCmpLtI32U
	OpCmpLteI32S
	OpCmpLteI32U
	OpCmpGtI32S
	OpCmpGtI32U
	OpCmpGteI32S
	OpCmpGteI32U
	OpCmpNzI32
	OpCmpEqI64
	OpCmpNeI64
	OpCmpLtI64S
	OpCmpLtI64U
	OpCmpLteI64S
	OpCmpLteI64U
	OpCmpGtI64S
	OpCmpGtI64U
	OpCmpGteI64S
	OpCmpGteI64U
	OpCmpNzI64
	OpCmpEqF32
	OpCmpNeF32
	OpCmpLtF32
	OpCmpLteF32
	OpCmpGtF32
	OpCmpGteF32
	OpCmpNaNF32
	OpCmpEqF64
	OpCmpNeF64
	OpCmpLtF64
	OpCmpLteF64
	OpCmpGtF64
	OpCmpGteF64
	OpCmpNaNF64
	OpCmpEqRef
	OpCmpNeRef
	OpCmpNzRef
)

// Select.
const (
	OpSelectI32 Opcode = iota + 0xB8
	OpSelectI64
	OpSelectF32
	OpSelectF64
	OpSelectRef
)

// Globals.
const (
	OpGlobalLoadI32 Opcode = iota + 0xC0
	OpGlobalStoreI32
	OpGlobalLoadI64
	OpGlobalStoreI64
	OpGlobalLoadF32
	OpGlobalStoreF32
	OpGlobalLoadF64
	OpGlobalStoreF64
	OpGlobalLoadRef
	OpGlobalStoreRef
)

// Buffers.
const (
	OpBufferLength Opcode = iota + 0xD0
	OpBufferAlloc
	OpBufferClone
	OpBufferCopy
	OpBufferFillI8
	OpBufferLoadI8U
	OpBufferLoadI8S
	OpBufferLoadI16U
	OpBufferLoadI16S
	OpBufferLoadI32
	OpBufferLoadI64
	OpBufferLoadF32
	OpBufferLoadF64
	OpBufferStoreI8
	OpBufferStoreI16
	OpBufferStoreI32
	OpBufferStoreI64
	OpBufferStoreF32
	OpBufferStoreF64
	OpBufferDotF32
	OpBufferDotF64
)

const (
	rI32 = oRegI32
	rI64 = oRegI64
	rF32 = oRegF32
	rF64 = oRegF64
	rRef = oRegRef
)

// Lists.
const (
	OpListAlloc Opcode = iota + 0xE8
	OpListSize
	OpListResize
	OpListGetI32
	OpListGetI64
	OpListGetF32
	OpListGetF64
	OpListGetRef
	OpListSetI32
	OpListSetI64
	OpListSetF32
	OpListSetF64
	OpListSetRef
)

// f64 elementary functions, as Go's math package computes them. Kernels
// compute the f32 (and f16, bf16) forms in f64 and round the result.
const (
	OpExpF64 Opcode = iota + 0xF5
	OpExp2F64
	OpExpm1F64
	OpLogF64
	OpLog2F64
	OpLog1pF64
	OpTanhF64
	OpErfF64
	OpSinF64
	OpCosF64
	OpAtan2F64
)

// opTable is indexed by Opcode; entries with an empty name are invalid.
var opTable = [256]opInfo{
	OpConstI32:       op("const.i32", 1, "dst = imm", rI32, oImmI32),
	OpConstI64:       op("const.i64", 1, "dst = imm", rI64, oImmI64),
	OpConstF32:       op("const.f32", 1, "dst = imm", rF32, oImmF32),
	OpConstF64:       op("const.f64", 1, "dst = imm", rF64, oImmF64),
	OpConstRefZero:   op("const.ref.zero", 1, "dst = null (releasing what dst held)", rRef),
	OpConstRefRodata: op("const.ref.rodata", 1, "dst = read-only vm.buffer over rodata segment", rRef, oRodata),

	OpMovI32: op("mov.i32", 1, "dst = src", rI32, rI32),
	OpMovI64: op("mov.i64", 1, "dst = src", rI64, rI64),
	OpMovF32: op("mov.f32", 1, "dst = src", rF32, rF32),
	OpMovF64: op("mov.f64", 1, "dst = src", rF64, rF64),
	OpMovRef: op("mov.ref", 1, "dst = src (the ref is shared)", rRef, rRef),

	OpAddI32:      op("add.i32", 1, "dst = a + b (wrapping)", rI32, rI32, rI32),
	OpSubI32:      op("sub.i32", 1, "dst = a - b (wrapping)", rI32, rI32, rI32),
	OpMulI32:      op("mul.i32", 1, "dst = a * b (wrapping)", rI32, rI32, rI32),
	OpDivI32S:     op("div.i32.s", 1, "dst = a / b signed, toward zero; b = 0 fails", rI32, rI32, rI32),
	OpDivI32U:     op("div.i32.u", 1, "dst = a / b unsigned; b = 0 fails", rI32, rI32, rI32),
	OpRemI32S:     op("rem.i32.s", 1, "dst = a % b signed (sign of a); b = 0 fails", rI32, rI32, rI32),
	OpRemI32U:     op("rem.i32.u", 1, "dst = a % b unsigned; b = 0 fails", rI32, rI32, rI32),
	OpCeilDivI32S: op("ceildiv.i32.s", 1, "dst = ceil(a / b) signed; b = 0 fails", rI32, rI32, rI32),
	OpCeilDivI32U: op("ceildiv.i32.u", 1, "dst = ceil(a / b) unsigned; b = 0 fails", rI32, rI32, rI32),
	OpAndI32:      op("and.i32", 1, "dst = a & b", rI32, rI32, rI32),
	OpOrI32:       op("or.i32", 1, "dst = a | b", rI32, rI32, rI32),
	OpXorI32:      op("xor.i32", 1, "dst = a ^ b", rI32, rI32, rI32),
	OpShlI32:      op("shl.i32", 1, "dst = a << (b & 31)", rI32, rI32, rI32),
	OpShrI32S:     op("shr.i32.s", 1, "dst = a >> (b & 31), arithmetic", rI32, rI32, rI32),
	OpShrI32U:     op("shr.i32.u", 1, "dst = a >> (b & 31), logical", rI32, rI32, rI32),
	OpMinI32S:     op("min.i32.s", 1, "dst = min(a, b) signed", rI32, rI32, rI32),
	OpMinI32U:     op("min.i32.u", 1, "dst = min(a, b) unsigned", rI32, rI32, rI32),
	OpMaxI32S:     op("max.i32.s", 1, "dst = max(a, b) signed", rI32, rI32, rI32),
	OpMaxI32U:     op("max.i32.u", 1, "dst = max(a, b) unsigned", rI32, rI32, rI32),
	OpNotI32:      op("not.i32", 1, "dst = ^a", rI32, rI32),
	OpNegI32:      op("neg.i32", 1, "dst = -a (wrapping)", rI32, rI32),
	OpAbsI32:      op("abs.i32", 1, "dst = |a| (wrapping)", rI32, rI32),

	OpAddI64:      op("add.i64", 1, "dst = a + b (wrapping)", rI64, rI64, rI64),
	OpSubI64:      op("sub.i64", 1, "dst = a - b (wrapping)", rI64, rI64, rI64),
	OpMulI64:      op("mul.i64", 1, "dst = a * b (wrapping)", rI64, rI64, rI64),
	OpDivI64S:     op("div.i64.s", 1, "dst = a / b signed, toward zero; b = 0 fails", rI64, rI64, rI64),
	OpDivI64U:     op("div.i64.u", 1, "dst = a / b unsigned; b = 0 fails", rI64, rI64, rI64),
	OpRemI64S:     op("rem.i64.s", 1, "dst = a % b signed (sign of a); b = 0 fails", rI64, rI64, rI64),
	OpRemI64U:     op("rem.i64.u", 1, "dst = a % b unsigned; b = 0 fails", rI64, rI64, rI64),
	OpCeilDivI64S: op("ceildiv.i64.s", 1, "dst = ceil(a / b) signed; b = 0 fails", rI64, rI64, rI64),
	OpCeilDivI64U: op("ceildiv.i64.u", 1, "dst = ceil(a / b) unsigned; b = 0 fails", rI64, rI64, rI64),
	OpAndI64:      op("and.i64", 1, "dst = a & b", rI64, rI64, rI64),
	OpOrI64:       op("or.i64", 1, "dst = a | b", rI64, rI64, rI64),
	OpXorI64:      op("xor.i64", 1, "dst = a ^ b", rI64, rI64, rI64),
	OpShlI64:      op("shl.i64", 1, "dst = a << (b & 63)", rI64, rI64, rI64),
	OpShrI64S:     op("shr.i64.s", 1, "dst = a >> (b & 63), arithmetic", rI64, rI64, rI64),
	OpShrI64U:     op("shr.i64.u", 1, "dst = a >> (b & 63), logical", rI64, rI64, rI64),
	OpMinI64S:     op("min.i64.s", 1, "dst = min(a, b) signed", rI64, rI64, rI64),
	OpMinI64U:     op("min.i64.u", 1, "dst = min(a, b) unsigned", rI64, rI64, rI64),
	OpMaxI64S:     op("max.i64.s", 1, "dst = max(a, b) signed", rI64, rI64, rI64),
	OpMaxI64U:     op("max.i64.u", 1, "dst = max(a, b) unsigned", rI64, rI64, rI64),
	OpNotI64:      op("not.i64", 1, "dst = ^a", rI64, rI64),
	OpNegI64:      op("neg.i64", 1, "dst = -a (wrapping)", rI64, rI64),
	OpAbsI64:      op("abs.i64", 1, "dst = |a| (wrapping)", rI64, rI64),

	OpAddF32:   op("add.f32", 1, "dst = a + b", rF32, rF32, rF32),
	OpSubF32:   op("sub.f32", 1, "dst = a - b", rF32, rF32, rF32),
	OpMulF32:   op("mul.f32", 1, "dst = a * b", rF32, rF32, rF32),
	OpDivF32:   op("div.f32", 1, "dst = a / b (IEEE)", rF32, rF32, rF32),
	OpRemF32:   op("rem.f32", 1, "dst = fmod(a, b)", rF32, rF32, rF32),
	OpMinF32:   op("min.f32", 1, "dst = min(a, b); NaN if either is NaN", rF32, rF32, rF32),
	OpMaxF32:   op("max.f32", 1, "dst = max(a, b); NaN if either is NaN", rF32, rF32, rF32),
	OpNegF32:   op("neg.f32", 1, "dst = -a", rF32, rF32),
	OpAbsF32:   op("abs.f32", 1, "dst = |a|", rF32, rF32),
	OpSqrtF32:  op("sqrt.f32", 1, "dst = sqrt(a)", rF32, rF32),
	OpFloorF32: op("floor.f32", 1, "dst = floor(a)", rF32, rF32),
	OpCeilF32:  op("ceil.f32", 1, "dst = ceil(a)", rF32, rF32),

	OpAddF64:   op("add.f64", 1, "dst = a + b", rF64, rF64, rF64),
	OpSubF64:   op("sub.f64", 1, "dst = a - b", rF64, rF64, rF64),
	OpMulF64:   op("mul.f64", 1, "dst = a * b", rF64, rF64, rF64),
	OpDivF64:   op("div.f64", 1, "dst = a / b (IEEE)", rF64, rF64, rF64),
	OpRemF64:   op("rem.f64", 1, "dst = fmod(a, b)", rF64, rF64, rF64),
	OpMinF64:   op("min.f64", 1, "dst = min(a, b); NaN if either is NaN", rF64, rF64, rF64),
	OpMaxF64:   op("max.f64", 1, "dst = max(a, b); NaN if either is NaN", rF64, rF64, rF64),
	OpNegF64:   op("neg.f64", 1, "dst = -a", rF64, rF64),
	OpAbsF64:   op("abs.f64", 1, "dst = |a|", rF64, rF64),
	OpSqrtF64:  op("sqrt.f64", 1, "dst = sqrt(a)", rF64, rF64),
	OpFloorF64: op("floor.f64", 1, "dst = floor(a)", rF64, rF64),
	OpCeilF64:  op("ceil.f64", 1, "dst = ceil(a)", rF64, rF64),

	OpTruncF64:     op("trunc.f64", 1, "dst = a rounded toward zero", rF64, rF64),
	OpRoundEvenF64: op("roundeven.f64", 1, "dst = a rounded to the nearest integer, ties to even", rF64, rF64),
	OpFmaF64:       op("fma.f64", 1, "dst = a * b + c with one rounding", rF64, rF64, rF64, rF64),
	OpPowF64:       op("pow.f64", 1, "dst = a to the power b (C's pow special cases)", rF64, rF64, rF64),

	OpTruncI32I8:    op("trunc.i32.i8", 1, "dst = a & 0xFF", rI32, rI32),
	OpTruncI32I16:   op("trunc.i32.i16", 1, "dst = a & 0xFFFF", rI32, rI32),
	OpExtI8I32S:     op("ext.i8.i32.s", 1, "dst = sign-extend low 8 bits of a", rI32, rI32),
	OpExtI8I32U:     op("ext.i8.i32.u", 1, "dst = zero-extend low 8 bits of a", rI32, rI32),
	OpExtI16I32S:    op("ext.i16.i32.s", 1, "dst = sign-extend low 16 bits of a", rI32, rI32),
	OpExtI16I32U:    op("ext.i16.i32.u", 1, "dst = zero-extend low 16 bits of a", rI32, rI32),
	OpExtI32I64S:    op("ext.i32.i64.s", 1, "dst = sign-extend a", rI64, rI32),
	OpExtI32I64U:    op("ext.i32.i64.u", 1, "dst = zero-extend a", rI64, rI32),
	OpTruncI64I32:   op("trunc.i64.i32", 1, "dst = low 32 bits of a", rI32, rI64),
	OpCastSI32F32:   op("cast.si32.f32", 1, "dst = float(a) from signed", rF32, rI32),
	OpCastUI32F32:   op("cast.ui32.f32", 1, "dst = float(a) from unsigned", rF32, rI32),
	OpCastF32SI32:   op("cast.f32.si32", 1, "dst = a toward zero, saturating; NaN gives 0", rI32, rF32),
	OpCastF32UI32:   op("cast.f32.ui32", 1, "dst = a toward zero, saturating unsigned; NaN gives 0", rI32, rF32),
	OpCastSI64F32:   op("cast.si64.f32", 1, "dst = float(a) from signed", rF32, rI64),
	OpCastF32SI64:   op("cast.f32.si64", 1, "dst = a toward zero, saturating; NaN gives 0", rI64, rF32),
	OpCastSI64F64:   op("cast.si64.f64", 1, "dst = double(a) from signed", rF64, rI64),
	OpCastUI64F64:   op("cast.ui64.f64", 1, "dst = double(a) from unsigned", rF64, rI64),
	OpCastF64SI64:   op("cast.f64.si64", 1, "dst = a toward zero, saturating; NaN gives 0", rI64, rF64),
	OpCastF64UI64:   op("cast.f64.ui64", 1, "dst = a toward zero, saturating unsigned; NaN gives 0", rI64, rF64),
	OpExtF32F64:     op("ext.f32.f64", 1, "dst = double(a)", rF64, rF32),
	OpTruncF64F32:   op("trunc.f64.f32", 1, "dst = float(a), round to nearest", rF32, rF64),
	OpBitcastI32F32: op("bitcast.i32.f32", 1, "dst = the f32 with a's bits", rF32, rI32),
	OpBitcastF32I32: op("bitcast.f32.i32", 1, "dst = the bits of a", rI32, rF32),
	OpBitcastI64F64: op("bitcast.i64.f64", 1, "dst = the f64 with a's bits", rF64, rI64),
	OpBitcastF64I64: op("bitcast.f64.i64", 1, "dst = the bits of a", rI64, rF64),
	OpExtF16F64:     op("ext.f16.f64", 1, "dst = the IEEE half (binary16) in the low 16 bits of a, exactly", rF64, rI32),
	OpExtBF16F64:    op("ext.bf16.f64", 1, "dst = the bfloat16 in the low 16 bits of a, exactly", rF64, rI32),
	OpTruncF64F16:   op("trunc.f64.f16", 1, "dst = the binary16 bits of a, round to nearest even (NaN stays NaN, overflow gives infinity)", rI32, rF64),
	OpTruncF64BF16:  op("trunc.f64.bf16", 1, "dst = the bfloat16 bits of a, round to nearest even (NaN stays NaN, overflow gives infinity)", rI32, rF64),

	OpCmpEqI32:   op("cmp.eq.i32", 1, "dst = a == b", rI32, rI32, rI32),
	OpCmpNeI32:   op("cmp.ne.i32", 1, "dst = a != b", rI32, rI32, rI32),
	OpCmpLtI32S:  op("cmp.lt.i32.s", 1, "dst = a < b signed", rI32, rI32, rI32),
	OpCmpLtI32U:  op("cmp.lt.i32.u", 1, "dst = a < b unsigned", rI32, rI32, rI32),
	OpCmpLteI32S: op("cmp.lte.i32.s", 1, "dst = a <= b signed", rI32, rI32, rI32),
	OpCmpLteI32U: op("cmp.lte.i32.u", 1, "dst = a <= b unsigned", rI32, rI32, rI32),
	OpCmpGtI32S:  op("cmp.gt.i32.s", 1, "dst = a > b signed", rI32, rI32, rI32),
	OpCmpGtI32U:  op("cmp.gt.i32.u", 1, "dst = a > b unsigned", rI32, rI32, rI32),
	OpCmpGteI32S: op("cmp.gte.i32.s", 1, "dst = a >= b signed", rI32, rI32, rI32),
	OpCmpGteI32U: op("cmp.gte.i32.u", 1, "dst = a >= b unsigned", rI32, rI32, rI32),
	OpCmpNzI32:   op("cmp.nz.i32", 1, "dst = a != 0", rI32, rI32),
	OpCmpEqI64:   op("cmp.eq.i64", 1, "dst = a == b", rI32, rI64, rI64),
	OpCmpNeI64:   op("cmp.ne.i64", 1, "dst = a != b", rI32, rI64, rI64),
	OpCmpLtI64S:  op("cmp.lt.i64.s", 1, "dst = a < b signed", rI32, rI64, rI64),
	OpCmpLtI64U:  op("cmp.lt.i64.u", 1, "dst = a < b unsigned", rI32, rI64, rI64),
	OpCmpLteI64S: op("cmp.lte.i64.s", 1, "dst = a <= b signed", rI32, rI64, rI64),
	OpCmpLteI64U: op("cmp.lte.i64.u", 1, "dst = a <= b unsigned", rI32, rI64, rI64),
	OpCmpGtI64S:  op("cmp.gt.i64.s", 1, "dst = a > b signed", rI32, rI64, rI64),
	OpCmpGtI64U:  op("cmp.gt.i64.u", 1, "dst = a > b unsigned", rI32, rI64, rI64),
	OpCmpGteI64S: op("cmp.gte.i64.s", 1, "dst = a >= b signed", rI32, rI64, rI64),
	OpCmpGteI64U: op("cmp.gte.i64.u", 1, "dst = a >= b unsigned", rI32, rI64, rI64),
	OpCmpNzI64:   op("cmp.nz.i64", 1, "dst = a != 0", rI32, rI64),
	OpCmpEqF32:   op("cmp.eq.f32", 1, "dst = a == b (ordered: false if NaN)", rI32, rF32, rF32),
	OpCmpNeF32:   op("cmp.ne.f32", 1, "dst = !(a == b) (true if NaN)", rI32, rF32, rF32),
	OpCmpLtF32:   op("cmp.lt.f32", 1, "dst = a < b (ordered)", rI32, rF32, rF32),
	OpCmpLteF32:  op("cmp.lte.f32", 1, "dst = a <= b (ordered)", rI32, rF32, rF32),
	OpCmpGtF32:   op("cmp.gt.f32", 1, "dst = a > b (ordered)", rI32, rF32, rF32),
	OpCmpGteF32:  op("cmp.gte.f32", 1, "dst = a >= b (ordered)", rI32, rF32, rF32),
	OpCmpNaNF32:  op("cmp.nan.f32", 1, "dst = a is NaN", rI32, rF32),
	OpCmpEqF64:   op("cmp.eq.f64", 1, "dst = a == b (ordered: false if NaN)", rI32, rF64, rF64),
	OpCmpNeF64:   op("cmp.ne.f64", 1, "dst = !(a == b) (true if NaN)", rI32, rF64, rF64),
	OpCmpLtF64:   op("cmp.lt.f64", 1, "dst = a < b (ordered)", rI32, rF64, rF64),
	OpCmpLteF64:  op("cmp.lte.f64", 1, "dst = a <= b (ordered)", rI32, rF64, rF64),
	OpCmpGtF64:   op("cmp.gt.f64", 1, "dst = a > b (ordered)", rI32, rF64, rF64),
	OpCmpGteF64:  op("cmp.gte.f64", 1, "dst = a >= b (ordered)", rI32, rF64, rF64),
	OpCmpNaNF64:  op("cmp.nan.f64", 1, "dst = a is NaN", rI32, rF64),
	OpCmpEqRef:   op("cmp.eq.ref", 1, "dst = a and b refer to the same object (or are both null)", rI32, rRef, rRef),
	OpCmpNeRef:   op("cmp.ne.ref", 1, "dst = !(a cmp.eq.ref b)", rI32, rRef, rRef),
	OpCmpNzRef:   op("cmp.nz.ref", 1, "dst = a is not null", rI32, rRef),

	OpSelectI32: op("select.i32", 1, "dst = cond != 0 ? a : b", rI32, rI32, rI32, rI32),
	OpSelectI64: op("select.i64", 1, "dst = cond != 0 ? a : b", rI64, rI32, rI64, rI64),
	OpSelectF32: op("select.f32", 1, "dst = cond != 0 ? a : b", rF32, rI32, rF32, rF32),
	OpSelectF64: op("select.f64", 1, "dst = cond != 0 ? a : b", rF64, rI32, rF64, rF64),
	OpSelectRef: op("select.ref", 1, "dst = cond != 0 ? a : b", rRef, rI32, rRef, rRef),

	OpGlobalLoadI32:  op("global.load.i32", 1, "dst = the i32 global at the byte offset", rI32, oGlobal32),
	OpGlobalStoreI32: op("global.store.i32", 0, "the i32 global at the byte offset = src", oGlobal32, rI32),
	OpGlobalLoadI64:  op("global.load.i64", 1, "dst = the i64 global at the byte offset", rI64, oGlobal64),
	OpGlobalStoreI64: op("global.store.i64", 0, "the i64 global at the byte offset = src", oGlobal64, rI64),
	OpGlobalLoadF32:  op("global.load.f32", 1, "dst = the f32 global at the byte offset", rF32, oGlobal32),
	OpGlobalStoreF32: op("global.store.f32", 0, "the f32 global at the byte offset = src", oGlobal32, rF32),
	OpGlobalLoadF64:  op("global.load.f64", 1, "dst = the f64 global at the byte offset", rF64, oGlobal64),
	OpGlobalStoreF64: op("global.store.f64", 0, "the f64 global at the byte offset = src", oGlobal64, rF64),
	OpGlobalLoadRef:  op("global.load.ref", 1, "dst = ref global", rRef, oGlobalRef),
	OpGlobalStoreRef: op("global.store.ref", 0, "ref global = src", oGlobalRef, rRef),

	OpBufferLength:   op("buffer.length", 1, "dst = byte length of the vm.buffer; null or another type fails", rI64, rRef),
	OpBufferAlloc:    op("buffer.alloc", 1, "dst = new zeroed writable vm.buffer of length bytes; length < 0 or > 2^31 fails", rRef, rI64),
	OpBufferClone:    op("buffer.clone", 1, "dst = new writable vm.buffer holding bytes [offset, offset+length) of src", rRef, rRef, rI64, rI64),
	OpBufferCopy:     op("buffer.copy", 0, "copy length bytes from src at src_offset to dst at dst_offset (dst writable; overlap allowed)", rRef, rI64, rRef, rI64, rI64),
	OpBufferFillI8:   op("buffer.fill.i8", 0, "set bytes [offset, offset+length) of the writable buffer to the low 8 bits of value", rRef, rI64, rI64, rI32),
	OpBufferLoadI8U:  op("buffer.load.i8.u", 1, "dst = zero-extended byte at byte offset", rI32, rRef, rI64),
	OpBufferLoadI8S:  op("buffer.load.i8.s", 1, "dst = sign-extended byte at byte offset", rI32, rRef, rI64),
	OpBufferLoadI16U: op("buffer.load.i16.u", 1, "dst = zero-extended little-endian u16 at byte offset", rI32, rRef, rI64),
	OpBufferLoadI16S: op("buffer.load.i16.s", 1, "dst = sign-extended little-endian i16 at byte offset", rI32, rRef, rI64),
	OpBufferLoadI32:  op("buffer.load.i32", 1, "dst = little-endian i32 at byte offset (no alignment needed)", rI32, rRef, rI64),
	OpBufferLoadI64:  op("buffer.load.i64", 1, "dst = little-endian i64 at byte offset", rI64, rRef, rI64),
	OpBufferLoadF32:  op("buffer.load.f32", 1, "dst = little-endian f32 at byte offset", rF32, rRef, rI64),
	OpBufferLoadF64:  op("buffer.load.f64", 1, "dst = little-endian f64 at byte offset", rF64, rRef, rI64),
	OpBufferStoreI8:  op("buffer.store.i8", 0, "store the low 8 bits of value at byte offset of the writable buffer", rRef, rI64, rI32),
	OpBufferStoreI16: op("buffer.store.i16", 0, "store the low 16 bits of value, little-endian", rRef, rI64, rI32),
	OpBufferStoreI32: op("buffer.store.i32", 0, "store value, little-endian", rRef, rI64, rI32),
	OpBufferStoreI64: op("buffer.store.i64", 0, "store value, little-endian", rRef, rI64, rI64),
	OpBufferStoreF32: op("buffer.store.f32", 0, "store value, little-endian", rRef, rI64, rF32),
	OpBufferStoreF64: op("buffer.store.f64", 0, "store value, little-endian", rRef, rI64, rF64),
	OpBufferDotF32: op("buffer.dot.f32", 1, "dst = acc + the f32 elements of a at a_offset + i*a_step times those of b at b_offset + i*b_step, summed over i < n in order, every product and sum rounded to f32 (the inner loop of a matmul or convolution); n <= 0 gives acc, negative steps or elements outside a buffer fail",
		rF32, rF32, rRef, rI64, rI64, rRef, rI64, rI64, rI64),
	OpBufferDotF64: op("buffer.dot.f64", 1, "buffer.dot.f32 for f64 elements", rF64, rF64, rRef, rI64, rI64, rRef, rI64, rI64, rI64),

	OpListAlloc:  op("list.alloc", 1, "dst = new empty vm.list with room for capacity elements", rRef, rI32),
	OpListSize:   op("list.size", 1, "dst = number of elements of the list", rI32, rRef),
	OpListResize: op("list.resize", 0, "set the list's size, adding unset elements (read as 0 or null); size outside [0, 2^24] fails", rRef, rI32),
	OpListGetI32: op("list.get.i32", 1, "dst = element index; out of range or an element of another type fails", rI32, rRef, rI32),
	OpListGetI64: op("list.get.i64", 1, "dst = element index", rI64, rRef, rI32),
	OpListGetF32: op("list.get.f32", 1, "dst = element index", rF32, rRef, rI32),
	OpListGetF64: op("list.get.f64", 1, "dst = element index", rF64, rRef, rI32),
	OpListGetRef: op("list.get.ref", 1, "dst = element index", rRef, rRef, rI32),
	OpListSetI32: op("list.set.i32", 0, "element index = value; out of range fails", rRef, rI32, rI32),
	OpListSetI64: op("list.set.i64", 0, "element index = value", rRef, rI32, rI64),
	OpListSetF32: op("list.set.f32", 0, "element index = value", rRef, rI32, rF32),
	OpListSetF64: op("list.set.f64", 0, "element index = value", rRef, rI32, rF64),
	OpListSetRef: op("list.set.ref", 0, "element index = value", rRef, rI32, rRef),

	OpExpF64:   op("exp.f64", 1, "dst = e^a", rF64, rF64),
	OpExp2F64:  op("exp2.f64", 1, "dst = 2^a", rF64, rF64),
	OpExpm1F64: op("expm1.f64", 1, "dst = e^a - 1, accurate near 0", rF64, rF64),
	OpLogF64:   op("log.f64", 1, "dst = natural logarithm of a", rF64, rF64),
	OpLog2F64:  op("log2.f64", 1, "dst = base-2 logarithm of a (exact for powers of two)", rF64, rF64),
	OpLog1pF64: op("log1p.f64", 1, "dst = log(1 + a), accurate near 0", rF64, rF64),
	OpTanhF64:  op("tanh.f64", 1, "dst = hyperbolic tangent of a", rF64, rF64),
	OpErfF64:   op("erf.f64", 1, "dst = error function of a", rF64, rF64),
	OpSinF64:   op("sin.f64", 1, "dst = sine of a (radians)", rF64, rF64),
	OpCosF64:   op("cos.f64", 1, "dst = cosine of a (radians)", rF64, rF64),
	OpAtan2F64: op("atan2.f64", 1, "dst = arc tangent of a / b in (-pi, pi], by the signs of both", rF64, rF64, rF64),

	OpBr:                 term("br", "continue at target", oTarget),
	OpCondBr:             term("cond_br", "continue at the first target if cond != 0, else at the second", rI32, oTarget, oTarget),
	OpCall:               op("call", 0, "call an internal function; args and results are register lists typed by the callee's signature", oFunc, oArgs, oResults),
	OpCallImport:         op("call.import", 0, "call an import (non-variadic signature)", oImport, oArgs, oResults),
	OpCallImportVariadic: op("call.import.variadic", 0, "call an import with variadic groups; segments give the tuple count of each group, args are flattened", oImport, oSegments, oArgs, oResults),
	OpReturn:             term("return", "return the registers, typed by the function's results", oResults),
	OpFail:               term("fail", "fail with status code = code (0 is turned into UNKNOWN) and the message", rI32, oString),
	OpImportResolved:     op("import.resolved", 1, "dst = 1 if the import was resolved when the context was created, else 0 (only an optional import can be missing)", rI32, oImport),
}

// validOpcodes lists the valid opcodes in numeric order.
func validOpcodes() []Opcode {
	var ops []Opcode
	for op := 1; op < len(opTable); op++ {
		if opTable[op].name != "" {
			ops = append(ops, Opcode(op))
		}
	}
	return ops
}

// lookupOp returns the opInfo of op and whether op is a valid opcode.
func lookupOp(op Opcode) (*opInfo, bool) {
	info := &opTable[op]
	return info, info.name != ""
}

// Name returns the opcode's mnemonic, e.g. "add.i32", or "" for invalid
// opcodes.
func (op Opcode) Name() string { return opTable[op].name }

// String returns the mnemonic, or "opcode(N)" for invalid opcodes.
func (op Opcode) String() string {
	if n := opTable[op].name; n != "" {
		return n
	}
	return "opcode(" + strconv.Itoa(int(op)) + ")"
}
