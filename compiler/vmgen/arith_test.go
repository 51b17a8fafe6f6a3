package vmgen_test

import (
	"fmt"
	"math"
	"testing"
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNarrowIntegers checks i8, i16 and i1 host math against Go's int8,
// int16 and bool arithmetic; the inputs are passed as i32, the way the
// ABI carries them, including sign-extended negatives.
func TestNarrowIntegers(t *testing.T) {
	s := hostSession(t, "arith.mlir")
	for _, c := range [][2]int8{{-100, 7}, {100, 100}, {-128, -1}, {5, -3}, {-7, 2}} {
		a, b := c[0], c[1]
		q := a / b
		if a == -128 && b == -1 {
			q = -128 // wraps, as MLIR's divsi result does
		}
		m := a
		if b > a {
			m = b
		}
		want := fmt.Sprintf("i32=%d; i32=%d; i32=%d; i32=%d; i32=%d; i32=%d; i32=%d",
			q, a+b, uint8(a+b), b2i(a < b), b2i(uint8(a) < uint8(b)), a>>1, m)
		if got := call(t, s, "narrow", fmt.Sprint(a), fmt.Sprint(b)); got != want {
			t.Errorf("narrow(%d, %d) = %s, want %s", a, b, got, want)
		}
	}
	for _, x := range []int32{0, 1, 2, 3, 0x8000, 0x17fff, -1} {
		bit := x&1 == 1
		f := bit != true
		sx := 0
		if f {
			sx = -1
		}
		want := fmt.Sprintf("i32=%d; i32=%d; i32=0", sx, int16(x))
		if got := call(t, s, "bits", fmt.Sprint(x)); got != want {
			t.Errorf("bits(%d) = %s, want %s", x, got, want)
		}
	}
}

// TestFloatHostMath checks cmpf's ordered and unordered predicates with a
// NaN, maxnumf/minnumf and the conversions against Go.
func TestFloatHostMath(t *testing.T) {
	s := hostSession(t, "arith.mlir")
	for _, c := range [][2]float32{{1.5, 2.5}, {-3.75, 7}, {8, -2}} {
		x, y := c[0], c[1]
		i := int32(x)
		u := int64(0)
		if y > 0 {
			u = int64(y)
		}
		want := fmt.Sprintf("i32=%d; i32=1; i32=0; i32=1; f32=%v; f32=%v; i32=%d; i64=%d; f64=%v; i32=%d; f32=%v",
			b2i(x < y), x, y, i, u, float64(i), int32(math.Float32bits(x)), x)
		if got := call(t, s, "floats", fmt.Sprint(x), fmt.Sprint(y)); got != want {
			t.Errorf("floats(%v, %v) = %s, want %s", x, y, got, want)
		}
	}
}

// TestHostMath checks the scalar math ops the VM has instructions for
// against Go's math package.
func TestHostMath(t *testing.T) {
	s := hostSession(t, "arith.mlir")
	for _, c := range []struct {
		x float32
		y float64
		i int8
	}{{2, -1.5, -7}, {-9, 2.25, 100}, {0.25, 3, -128}} {
		ai := c.i
		if ai < 0 {
			ai = -ai // -128 stays -128: wraps in 8 bits
		}
		res, err := s.Call("math", fmt.Sprint(c.x), fmt.Sprint(c.y), fmt.Sprint(c.i))
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(res[0].F32(), res[1].F32(), res[2].F64(), res[3].F64(), res[4].I32())
		want := fmt.Sprint(float32(math.Sqrt(float64(c.x))), float32(math.Abs(float64(c.x))), math.Floor(c.y), math.Ceil(c.y), int32(uint8(ai)))
		if got != want {
			t.Errorf("math(%v, %v, %d) = %s, want %s", c.x, c.y, c.i, got, want)
		}
	}
}
