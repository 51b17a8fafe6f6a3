package vm

import (
	"fmt"
	"math"

	"github.com/goiree/goiree/runtime/base/status"
)

// ValueKind is the type of a Value and of a register bank.
type ValueKind uint8

// Value kinds. Their calling-convention characters are i, I, f, F and r.
const (
	KindNone ValueKind = iota // the zero Value
	KindI32
	KindI64
	KindF32
	KindF64
	KindRef
)

// String returns the kind's name: "i32", "i64", "f32", "f64", "ref".
func (k ValueKind) String() string {
	switch k {
	case KindI32:
		return "i32"
	case KindI64:
		return "i64"
	case KindF32:
		return "f32"
	case KindF64:
		return "f64"
	case KindRef:
		return "ref"
	}
	return "none"
}

// Value is one argument or result crossing the VM boundary: a typed scalar
// or a ref. The zero Value has KindNone. Values are small and passed by
// value; building one does not allocate.
type Value struct {
	kind ValueKind
	bits uint64
	ref  Ref
}

// I32 returns an i32 Value.
func I32(v int32) Value { return Value{kind: KindI32, bits: uint64(uint32(v))} }

// I64 returns an i64 Value.
func I64(v int64) Value { return Value{kind: KindI64, bits: uint64(v)} }

// F32 returns an f32 Value.
func F32(v float32) Value { return Value{kind: KindF32, bits: uint64(math.Float32bits(v))} }

// F64 returns an f64 Value.
func F64(v float64) Value { return Value{kind: KindF64, bits: math.Float64bits(v)} }

// RefValue returns a ref Value (null when r is the zero Ref).
func RefValue(r Ref) Value { return Value{kind: KindRef, ref: r} }

// Kind returns the Value's kind.
func (v Value) Kind() ValueKind { return v.kind }

// I32 returns the value as int32 (the low 32 bits for other scalar kinds).
func (v Value) I32() int32 { return int32(uint32(v.bits)) }

// I64 returns the value as int64 (sign-extended for an i32 Value).
func (v Value) I64() int64 {
	if v.kind == KindI32 {
		return int64(int32(uint32(v.bits)))
	}
	return int64(v.bits)
}

// F32 returns the value as float32.
func (v Value) F32() float32 { return math.Float32frombits(uint32(v.bits)) }

// F64 returns the value as float64.
func (v Value) F64() float64 { return math.Float64frombits(v.bits) }

// Ref returns the ref held by a ref Value (the null Ref otherwise).
func (v Value) Ref() Ref { return v.ref }

// RefAs returns the object of a ref Value of type t, or an
// INVALID_ARGUMENT error naming the expected and actual type.
func (v Value) RefAs(t *RefType) (any, error) {
	if v.kind != KindRef {
		return nil, status.Errorf(status.InvalidArgument, "expected a %s ref, got a %s value", t.Name(), v.kind)
	}
	return v.ref.As(t)
}

// String formats the value for diagnostics, e.g. "i32=5" or "ref<hal.buffer>".
func (v Value) String() string {
	switch v.kind {
	case KindI32:
		return fmt.Sprintf("i32=%d", v.I32())
	case KindI64:
		return fmt.Sprintf("i64=%d", v.I64())
	case KindF32:
		return fmt.Sprintf("f32=%g", v.F32())
	case KindF64:
		return fmt.Sprintf("f64=%g", v.F64())
	case KindRef:
		return v.ref.String()
	}
	return "none"
}
