package vm

import (
	"math"
	"testing"
)

// pureCase runs one register-only instruction: the function takes the
// source operands as arguments and returns the destination.
type pureCase struct {
	op   Opcode
	args []Value
	want Value
}

func nan32() float32 { return float32(math.NaN()) }

var pureCases = []pureCase{
	{OpMovI32, []Value{I32(7)}, I32(7)},
	{OpMovI64, []Value{I64(-7)}, I64(-7)},
	{OpMovF32, []Value{F32(1.5)}, F32(1.5)},
	{OpMovF64, []Value{F64(2.5)}, F64(2.5)},

	{OpAddI32, []Value{I32(math.MaxInt32), I32(1)}, I32(math.MinInt32)},
	{OpSubI32, []Value{I32(3), I32(5)}, I32(-2)},
	{OpMulI32, []Value{I32(-3), I32(5)}, I32(-15)},
	{OpDivI32S, []Value{I32(-7), I32(2)}, I32(-3)},
	{OpDivI32S, []Value{I32(math.MinInt32), I32(-1)}, I32(math.MinInt32)},
	{OpDivI32U, []Value{I32(-2), I32(2)}, I32(math.MaxInt32)},
	{OpRemI32S, []Value{I32(-7), I32(2)}, I32(-1)},
	{OpRemI32U, []Value{I32(-1), I32(10)}, I32(5)},
	{OpCeilDivI32S, []Value{I32(7), I32(2)}, I32(4)},
	{OpCeilDivI32S, []Value{I32(-7), I32(2)}, I32(-3)},
	{OpCeilDivI32S, []Value{I32(-7), I32(-2)}, I32(4)},
	{OpCeilDivI32U, []Value{I32(1000003), I32(64)}, I32(15626)},
	{OpAndI32, []Value{I32(0xF0), I32(0x3C)}, I32(0x30)},
	{OpOrI32, []Value{I32(0xF0), I32(0x0F)}, I32(0xFF)},
	{OpXorI32, []Value{I32(0xFF), I32(0x0F)}, I32(0xF0)},
	{OpShlI32, []Value{I32(1), I32(33)}, I32(2)},
	{OpShrI32S, []Value{I32(-8), I32(1)}, I32(-4)},
	{OpShrI32U, []Value{I32(-8), I32(28)}, I32(15)},
	{OpMinI32S, []Value{I32(-1), I32(1)}, I32(-1)},
	{OpMinI32U, []Value{I32(-1), I32(1)}, I32(1)},
	{OpMaxI32S, []Value{I32(-1), I32(1)}, I32(1)},
	{OpMaxI32U, []Value{I32(-1), I32(1)}, I32(-1)},
	{OpNotI32, []Value{I32(0)}, I32(-1)},
	{OpNegI32, []Value{I32(5)}, I32(-5)},
	{OpAbsI32, []Value{I32(-5)}, I32(5)},

	{OpAddI64, []Value{I64(1 << 40), I64(1)}, I64(1<<40 + 1)},
	{OpSubI64, []Value{I64(0), I64(1)}, I64(-1)},
	{OpMulI64, []Value{I64(1 << 32), I64(3)}, I64(3 << 32)},
	{OpDivI64S, []Value{I64(-9), I64(4)}, I64(-2)},
	{OpDivI64U, []Value{I64(-1), I64(1 << 62)}, I64(3)},
	{OpRemI64S, []Value{I64(-9), I64(4)}, I64(-1)},
	{OpRemI64U, []Value{I64(-1), I64(10)}, I64(5)},
	{OpCeilDivI64S, []Value{I64(9), I64(4)}, I64(3)},
	{OpCeilDivI64U, []Value{I64(16 << 20), I64(64)}, I64(1 << 18)},
	{OpAndI64, []Value{I64(-1), I64(1 << 50)}, I64(1 << 50)},
	{OpOrI64, []Value{I64(1 << 50), I64(1)}, I64(1<<50 | 1)},
	{OpXorI64, []Value{I64(-1), I64(0)}, I64(-1)},
	{OpShlI64, []Value{I64(1), I64(40)}, I64(1 << 40)},
	{OpShrI64S, []Value{I64(-1 << 40), I64(40)}, I64(-1)},
	{OpShrI64U, []Value{I64(-1), I64(60)}, I64(15)},
	{OpMinI64S, []Value{I64(-1), I64(1)}, I64(-1)},
	{OpMinI64U, []Value{I64(-1), I64(1)}, I64(1)},
	{OpMaxI64S, []Value{I64(-1), I64(1)}, I64(1)},
	{OpMaxI64U, []Value{I64(-1), I64(1)}, I64(-1)},
	{OpNotI64, []Value{I64(-1)}, I64(0)},
	{OpNegI64, []Value{I64(math.MinInt64)}, I64(math.MinInt64)},
	{OpAbsI64, []Value{I64(-9)}, I64(9)},

	{OpAddF32, []Value{F32(1.5), F32(2)}, F32(3.5)},
	{OpSubF32, []Value{F32(1.5), F32(2)}, F32(-0.5)},
	{OpMulF32, []Value{F32(1.5), F32(2)}, F32(3)},
	{OpDivF32, []Value{F32(1), F32(4)}, F32(0.25)},
	{OpRemF32, []Value{F32(7), F32(3)}, F32(1)},
	{OpMinF32, []Value{F32(-1), F32(2)}, F32(-1)},
	{OpMaxF32, []Value{F32(-1), F32(2)}, F32(2)},
	{OpNegF32, []Value{F32(2)}, F32(-2)},
	{OpAbsF32, []Value{F32(-2)}, F32(2)},
	{OpSqrtF32, []Value{F32(9)}, F32(3)},
	{OpFloorF32, []Value{F32(-1.5)}, F32(-2)},
	{OpCeilF32, []Value{F32(-1.5)}, F32(-1)},

	{OpAddF64, []Value{F64(1.5), F64(2)}, F64(3.5)},
	{OpSubF64, []Value{F64(1.5), F64(2)}, F64(-0.5)},
	{OpMulF64, []Value{F64(1.5), F64(2)}, F64(3)},
	{OpDivF64, []Value{F64(1), F64(8)}, F64(0.125)},
	{OpRemF64, []Value{F64(-7), F64(3)}, F64(-1)},
	{OpMinF64, []Value{F64(-1), F64(2)}, F64(-1)},
	{OpMaxF64, []Value{F64(-1), F64(2)}, F64(2)},
	{OpNegF64, []Value{F64(2)}, F64(-2)},
	{OpAbsF64, []Value{F64(-2)}, F64(2)},
	{OpSqrtF64, []Value{F64(16)}, F64(4)},
	{OpFloorF64, []Value{F64(2.5)}, F64(2)},
	{OpCeilF64, []Value{F64(2.5)}, F64(3)},
	{OpTruncF64, []Value{F64(-2.7)}, F64(-2)},
	{OpRoundEvenF64, []Value{F64(2.5)}, F64(2)},
	{OpRoundEvenF64, []Value{F64(-3.5)}, F64(-4)},
	{OpFmaF64, []Value{F64(1 + 0x1p-30), F64(1 - 0x1p-30), F64(-1)}, F64(-0x1p-60)},
	{OpPowF64, []Value{F64(2), F64(-3)}, F64(0.125)},
	{OpPowF64, []Value{F64(-8), F64(1.0 / 3)}, F64(math.NaN())},
	{OpExpF64, []Value{F64(0)}, F64(1)},
	{OpExp2F64, []Value{F64(10)}, F64(1024)},
	{OpExpm1F64, []Value{F64(1e-20)}, F64(1e-20)},
	{OpLogF64, []Value{F64(1)}, F64(0)},
	{OpLogF64, []Value{F64(-1)}, F64(math.NaN())},
	{OpLog2F64, []Value{F64(0x1p-40)}, F64(-40)},
	{OpLog1pF64, []Value{F64(1e-20)}, F64(1e-20)},
	{OpTanhF64, []Value{F64(math.Inf(-1))}, F64(-1)},
	{OpErfF64, []Value{F64(0)}, F64(0)},
	{OpErfF64, []Value{F64(math.Inf(1))}, F64(1)},
	{OpSinF64, []Value{F64(0)}, F64(0)},
	{OpCosF64, []Value{F64(0)}, F64(1)},
	{OpAtan2F64, []Value{F64(1), F64(-1)}, F64(3 * math.Pi / 4)},
	{OpAtan2F64, []Value{F64(math.Copysign(0, -1)), F64(-1)}, F64(-math.Pi)},

	{OpTruncI32I8, []Value{I32(0x1234)}, I32(0x34)},
	{OpTruncI32I16, []Value{I32(0x12345)}, I32(0x2345)},
	{OpExtI8I32S, []Value{I32(0xFF)}, I32(-1)},
	{OpExtI8I32U, []Value{I32(-1)}, I32(0xFF)},
	{OpExtI16I32S, []Value{I32(0x8000)}, I32(-32768)},
	{OpExtI16I32U, []Value{I32(-1)}, I32(0xFFFF)},
	{OpExtI32I64S, []Value{I32(-1)}, I64(-1)},
	{OpExtI32I64U, []Value{I32(-1)}, I64(0xFFFFFFFF)},
	{OpTruncI64I32, []Value{I64(1<<32 + 5)}, I32(5)},
	{OpCastSI32F32, []Value{I32(-3)}, F32(-3)},
	{OpCastUI32F32, []Value{I32(-1)}, F32(4294967296)},
	{OpCastF32SI32, []Value{F32(-3.7)}, I32(-3)},
	{OpCastF32SI32, []Value{F32(1e20)}, I32(math.MaxInt32)},
	{OpCastF32SI32, []Value{F32(nan32())}, I32(0)},
	{OpCastF32UI32, []Value{F32(-5)}, I32(0)},
	{OpCastF32UI32, []Value{F32(4e9)}, I32(-294967296)},
	{OpCastSI64F32, []Value{I64(1 << 40)}, F32(1 << 40)},
	{OpCastF32SI64, []Value{F32(-2.5)}, I64(-2)},
	{OpCastSI64F64, []Value{I64(-5)}, F64(-5)},
	{OpCastUI64F64, []Value{I64(-1)}, F64(18446744073709551615)},
	{OpCastF64SI64, []Value{F64(1e300)}, I64(math.MaxInt64)},
	{OpCastF64UI64, []Value{F64(1e19)}, I64(-8446744073709551616)},
	{OpExtF32F64, []Value{F32(0.5)}, F64(0.5)},
	{OpTruncF64F32, []Value{F64(0.25)}, F32(0.25)},
	{OpBitcastI32F32, []Value{I32(0x3F800000)}, F32(1)},
	{OpBitcastF32I32, []Value{F32(1)}, I32(0x3F800000)},
	{OpBitcastI64F64, []Value{I64(0x3FF0000000000000)}, F64(1)},
	{OpBitcastF64I64, []Value{F64(1)}, I64(0x3FF0000000000000)},
	{OpExtF16F64, []Value{I32(0x3C00)}, F64(1)},
	{OpExtF16F64, []Value{I32(0xFBFF)}, F64(-65504)},
	{OpExtF16F64, []Value{I32(0x0001)}, F64(0x1p-24)},
	{OpExtF16F64, []Value{I32(0x7C00)}, F64(math.Inf(1))},
	{OpExtF16F64, []Value{I32(0x7E00)}, F64(math.NaN())},
	{OpExtBF16F64, []Value{I32(0x3F80)}, F64(1)},
	{OpExtBF16F64, []Value{I32(0xC040)}, F64(-3)},
	{OpTruncF64F16, []Value{F64(1)}, I32(0x3C00)},
	{OpTruncF64F16, []Value{F64(1 + 0x1p-11)}, I32(0x3C00)},           // tie, to even
	{OpTruncF64F16, []Value{F64(1 + 0x1p-11 + 0x1p-40)}, I32(0x3C01)}, // just above the tie
	{OpTruncF64F16, []Value{F64(65520)}, I32(0x7C00)},                 // rounds to infinity
	{OpTruncF64F16, []Value{F64(-0x1p-25)}, I32(0x8000)},              // tie below the smallest subnormal
	{OpTruncF64F16, []Value{F64(0x1p-25 + 0x1p-50)}, I32(0x0001)},     // just above it
	{OpTruncF64F16, []Value{F64(0x1p-14 - 0x1p-25)}, I32(0x0400)},     // subnormal carrying into the normals
	{OpTruncF64F16, []Value{F64(math.NaN())}, I32(0x7E00)},
	{OpTruncF64BF16, []Value{F64(1)}, I32(0x3F80)},
	{OpTruncF64BF16, []Value{F64(1 + 0x1p-8)}, I32(0x3F80)},           // tie, to even
	{OpTruncF64BF16, []Value{F64(1 + 0x1p-8 + 0x1p-30)}, I32(0x3F81)}, // a tie in f32, not in f64
	{OpTruncF64BF16, []Value{F64(math.Inf(-1))}, I32(0xFF80)},

	{OpCmpEqI32, []Value{I32(3), I32(3)}, I32(1)},
	{OpCmpNeI32, []Value{I32(3), I32(3)}, I32(0)},
	{OpCmpLtI32S, []Value{I32(-1), I32(0)}, I32(1)},
	{OpCmpLtI32U, []Value{I32(-1), I32(0)}, I32(0)},
	{OpCmpLteI32S, []Value{I32(0), I32(0)}, I32(1)},
	{OpCmpLteI32U, []Value{I32(-1), I32(0)}, I32(0)},
	{OpCmpGtI32S, []Value{I32(-1), I32(0)}, I32(0)},
	{OpCmpGtI32U, []Value{I32(-1), I32(0)}, I32(1)},
	{OpCmpGteI32S, []Value{I32(0), I32(0)}, I32(1)},
	{OpCmpGteI32U, []Value{I32(0), I32(-1)}, I32(0)},
	{OpCmpNzI32, []Value{I32(9)}, I32(1)},
	{OpCmpEqI64, []Value{I64(1 << 40), I64(1 << 40)}, I32(1)},
	{OpCmpNeI64, []Value{I64(1 << 40), I64(1)}, I32(1)},
	{OpCmpLtI64S, []Value{I64(-1), I64(0)}, I32(1)},
	{OpCmpLtI64U, []Value{I64(-1), I64(0)}, I32(0)},
	{OpCmpLteI64S, []Value{I64(1), I64(0)}, I32(0)},
	{OpCmpLteI64U, []Value{I64(0), I64(-1)}, I32(1)},
	{OpCmpGtI64S, []Value{I64(1), I64(0)}, I32(1)},
	{OpCmpGtI64U, []Value{I64(0), I64(-1)}, I32(0)},
	{OpCmpGteI64S, []Value{I64(-1), I64(0)}, I32(0)},
	{OpCmpGteI64U, []Value{I64(-1), I64(0)}, I32(1)},
	{OpCmpNzI64, []Value{I64(0)}, I32(0)},
	{OpCmpEqF32, []Value{F32(nan32()), F32(nan32())}, I32(0)},
	{OpCmpNeF32, []Value{F32(nan32()), F32(1)}, I32(1)},
	{OpCmpLtF32, []Value{F32(1), F32(2)}, I32(1)},
	{OpCmpLteF32, []Value{F32(2), F32(2)}, I32(1)},
	{OpCmpGtF32, []Value{F32(nan32()), F32(2)}, I32(0)},
	{OpCmpGteF32, []Value{F32(3), F32(2)}, I32(1)},
	{OpCmpNaNF32, []Value{F32(nan32())}, I32(1)},
	{OpCmpEqF64, []Value{F64(1), F64(1)}, I32(1)},
	{OpCmpNeF64, []Value{F64(1), F64(1)}, I32(0)},
	{OpCmpLtF64, []Value{F64(2), F64(1)}, I32(0)},
	{OpCmpLteF64, []Value{F64(math.NaN()), F64(1)}, I32(0)},
	{OpCmpGtF64, []Value{F64(2), F64(1)}, I32(1)},
	{OpCmpGteF64, []Value{F64(1), F64(2)}, I32(0)},
	{OpCmpNaNF64, []Value{F64(1)}, I32(0)},

	{OpSelectI32, []Value{I32(1), I32(10), I32(20)}, I32(10)},
	{OpSelectI64, []Value{I32(0), I64(10), I64(20)}, I64(20)},
	{OpSelectF32, []Value{I32(5), F32(1), F32(2)}, F32(1)},
	{OpSelectF64, []Value{I32(0), F64(1), F64(2)}, F64(2)},
}

func TestPureOpcodes(t *testing.T) {
	for i, tc := range pureCases {
		info, _ := lookupOp(tc.op)
		var argKinds []ValueKind
		for _, a := range tc.args {
			argKinds = append(argKinds, a.Kind())
		}
		b := NewModuleBuilder("isa")
		f := b.Function("f", MakeCallingConvention(argKinds, []ValueKind{tc.want.Kind()}))
		dst := f.NewReg(tc.want.Kind())
		operands := []any{dst}
		for j := range tc.args {
			operands = append(operands, f.Arg(j))
		}
		f.Emit(tc.op, operands...)
		f.Return(dst)
		b.Export("f", f)
		m := buildModule(t, b)
		ctx, err := NewInstance().NewContext(m)
		if err != nil {
			t.Fatal(err)
		}
		got := invoke(t, ctx, "f", tc.args...)[0]
		if !sameValue(got, tc.want) {
			t.Errorf("case %d: %s%v = %v, want %v", i, info.name, tc.args, got, tc.want)
		}
	}
}

func sameValue(a, b Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case KindF32:
		return a.F32() == b.F32() || (a.F32() != a.F32() && b.F32() != b.F32())
	case KindF64:
		return a.F64() == b.F64() || (a.F64() != a.F64() && b.F64() != b.F64())
	case KindRef:
		return a.Ref().Object() == b.Ref().Object()
	}
	return a.bits == b.bits
}

// TestEveryOpcodeIsTested fails when an opcode has no test; run after the
// other tests in this package register what they cover.
func TestEveryOpcodeIsTested(t *testing.T) {
	tested := map[Opcode]bool{}
	for _, tc := range pureCases {
		tested[tc.op] = true
	}
	for op := range coveredBySpecialTests {
		tested[op] = true
	}
	for _, op := range validOpcodes() {
		if !tested[op] {
			t.Errorf("opcode %s has no test", op)
		}
	}
}

// coveredBySpecialTests lists the opcodes that TestSpecialOpcodes and the
// interpreter tests exercise.
var coveredBySpecialTests = map[Opcode]bool{
	OpConstI32: true, OpConstI64: true, OpConstF32: true, OpConstF64: true,
	OpConstRefZero: true, OpConstRefRodata: true, OpMovRef: true,
	OpCmpEqRef: true, OpCmpNeRef: true, OpCmpNzRef: true, OpSelectRef: true,
	OpGlobalLoadI32: true, OpGlobalStoreI32: true, OpGlobalLoadI64: true, OpGlobalStoreI64: true,
	OpGlobalLoadF32: true, OpGlobalStoreF32: true, OpGlobalLoadF64: true, OpGlobalStoreF64: true,
	OpGlobalLoadRef: true, OpGlobalStoreRef: true, OpBufferLength: true,
	OpBufferAlloc: true, OpBufferClone: true, OpBufferCopy: true, OpBufferFillI8: true,
	OpBufferLoadI8U: true, OpBufferLoadI8S: true, OpBufferLoadI16U: true, OpBufferLoadI16S: true,
	OpBufferLoadI32: true, OpBufferLoadI64: true, OpBufferLoadF32: true, OpBufferLoadF64: true,
	OpBufferStoreI8: true, OpBufferStoreI16: true, OpBufferStoreI32: true, OpBufferStoreI64: true,
	OpBufferStoreF32: true, OpBufferStoreF64: true, OpBufferDotF32: true, OpBufferDotF64: true,
	OpListAlloc: true, OpListSize: true, OpListResize: true,
	OpListGetI32: true, OpListGetI64: true, OpListGetF32: true, OpListGetF64: true, OpListGetRef: true,
	OpListSetI32: true, OpListSetI64: true, OpListSetF32: true, OpListSetF64: true, OpListSetRef: true,
	OpBr: true, OpCondBr: true, OpCall: true, OpCallImport: true, OpCallImportVariadic: true,
	OpReturn: true, OpFail: true, OpImportResolved: true,
}
