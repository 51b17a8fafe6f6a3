package vm

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// TestBufferDot runs buffer.dot.f32 and buffer.dot.f64 over strided
// elements of two buffers against a Go loop, and checks that ranges
// outside a buffer and negative steps fail.
func TestBufferDot(t *testing.T) {
	const n = 37
	a32, b32 := make([]byte, 4*3*n), make([]byte, 4*n)
	a64, b64 := make([]byte, 8*3*n), make([]byte, 8*n)
	for i := 0; i < 3*n; i++ {
		binary.LittleEndian.PutUint32(a32[4*i:], math.Float32bits(float32(i%7)-2.5))
		binary.LittleEndian.PutUint64(a64[8*i:], math.Float64bits(float64(i%7)-2.5))
	}
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(b32[4*i:], math.Float32bits(float32(i)*0.1))
		binary.LittleEndian.PutUint64(b64[8*i:], math.Float64bits(float64(i)*0.1))
	}
	for _, tc := range []struct {
		op    Opcode
		a, b  []byte
		width int64
	}{
		{OpBufferDotF32, a32, b32, 4},
		{OpBufferDotF64, a64, b64, 8},
	} {
		kind, cc := KindF32, "0frIIrIII_f"
		if tc.width == 8 {
			kind, cc = KindF64, "0FrIIrIII_F"
		}
		b := NewModuleBuilder("m")
		f := b.Function("dot", cc)
		dst := f.NewReg(kind)
		f.Emit(tc.op, dst, f.Arg(0), f.Arg(1), f.Arg(2), f.Arg(3), f.Arg(4), f.Arg(5), f.Arg(6), f.Arg(7))
		f.Return(dst)
		b.Export("dot", f)
		ctx, err := NewInstance().NewContext(buildModule(t, b))
		if err != nil {
			t.Fatal(err)
		}
		fn, err := ctx.LookupFunction("dot")
		if err != nil {
			t.Fatal(err)
		}
		acc := func(v float64) Value {
			if kind == KindF32 {
				return F32(float32(v))
			}
			return F64(v)
		}
		call := func(accv float64, aOff, aStep, bOff, bStep, count int64) (float64, error) {
			res, err := ctx.Invoke(fn, []Value{acc(accv), RefValue(NewBuffer(tc.a, true).Ref()), I64(aOff), I64(aStep),
				RefValue(NewBuffer(tc.b, true).Ref()), I64(bOff), I64(bStep), I64(count)})
			if err != nil {
				return 0, err
			}
			if kind == KindF32 {
				return float64(res[0].F32()), nil
			}
			return res[0].F64(), nil
		}
		// Every third element of a (from element 1) against b.
		got, err := call(0.75, tc.width, 3*tc.width, 0, tc.width, n)
		if err != nil {
			t.Fatal(err)
		}
		want32, want64 := float32(0.75), 0.75
		for i := 0; i < n; i++ {
			x := float64((1+3*i)%7) - 2.5
			want32 += float32(float32(x) * (float32(i) * 0.1))
			want64 += x * (float64(i) * 0.1)
		}
		if want := float64(want32); kind == KindF32 && got != want || kind == KindF64 && got != want64 {
			t.Errorf("%s = %v, want %v (f32) / %v (f64)", tc.op, got, want32, want64)
		}
		// A zero step repeats one element; n = 0 gives the accumulator.
		if got, err := call(1, 0, 0, 0, tc.width, 4); err != nil || got != 1+(-2.5)*(0+0.1+0.2+0.3) && math.Abs(got-(1+(-2.5)*0.6)) > 1e-6 {
			t.Errorf("%s with a zero step = %v, %v", tc.op, got, err)
		}
		if got, err := call(5, -8, -1, 1<<40, 3, 0); err != nil || got != 5 {
			t.Errorf("%s of no elements = %v, %v", tc.op, got, err)
		}
		for _, bad := range []struct {
			args [5]int64
			want string
		}{
			{[5]int64{tc.width, 3 * tc.width, 0, tc.width, n + 1}, "outside vm.buffer"},
			{[5]int64{0, tc.width, 0, -tc.width, 2}, "step -"},
			{[5]int64{0, 1 << 62, 0, tc.width, 4}, "overflows"},
		} {
			_, err := call(0, bad.args[0], bad.args[1], 0, bad.args[3], bad.args[4])
			if err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("%s%v: %v, want an error containing %q", tc.op, bad.args, err, bad.want)
			}
		}
	}
}
