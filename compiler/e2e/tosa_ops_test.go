package e2e_test

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// The TOSA programs (testdata/tosa_ops.mlir) go through the TOSA input
// lowering (package conversion/tosatolinalg) and run on local-sync and
// local-task; every element of every result is checked against a plain Go
// loop written from the TOSA specification's pseudocode.

// intArg is the --input spelling of an integer tensor.
func intArg(shape string, elem string, v []int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sx%s=", shape, elem)
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}

func checkI8(t *testing.T, what string, data []byte, want []int64) {
	t.Helper()
	if len(data) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(data), len(want))
	}
	for i, w := range want {
		if g := int64(int8(data[i])); g != w {
			t.Fatalf("%s: element %d = %d, want %d", what, i, g, w)
		}
	}
}

func toI32(v []int64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

func clampI(v, lo, hi int64) int64 { return max(lo, min(hi, v)) }

func TestTosaOps(t *testing.T) {
	module := compileLinalg(t, "tosa_ops.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		r := rand.New(rand.NewSource(8))
		checkTosaFloat(t, dev, module, r)
		checkTosaInt(t, dev, module, r)
		checkTosaShapes(t, dev, module, r)
		checkTosaPad(t, dev, module, r)
		checkTosaLookups(t, dev, module, r)
		checkTosaPool(t, dev, module, r)
		checkTosaControl(t, dev, module)
		checkTosaSliceConcat(t, dev, module, r)
		checkTosaConvs(t, dev, module, r)
		checkTosaAvgPool(t, dev, module, r)
		checkTosaArgmax(t, dev, module, r)
	})
}

func checkTosaFloat(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a, b := randF32(r, 3, 4), randF32(r, 1, 4)
	shapes, data := invoke(t, dev, module, "float_ops", a.arg(), b.arg())
	var add, sig, cl, mx, sel []float32
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			x, y := a.v[4*i+j], b.v[j]
			add = append(add, x+y)
			sig = append(sig, float32(1/(1+math.Exp(-float64(x)))))
			cl = append(cl, min(max(x, -0.5), 0.75))
			mx = append(mx, max(x, y))
			if x > y {
				sel = append(sel, x)
			} else {
				sel = append(sel, 1/y)
			}
		}
	}
	for k, w := range [][]float32{add, sig, cl, mx, sel} {
		checkF32(t, []string{"add", "sigmoid", "clamp", "maximum", "select"}[k], shapes[k], data[k], f32s{shape: []int{3, 4}, v: w})
	}
}

func checkTosaInt(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	const n = 16
	a, b, s, x := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	f := f32s{shape: []int{n}, v: make([]float32, n)}
	for i := range a {
		a[i] = int64(r.Int31()) - 1<<30
		b[i] = int64(r.Intn(2001) - 1000)
		s[i] = int64(i % 12)
		x[i] = int64(r.Intn(256) - 128)
		// Halves test round-half-to-even, large values saturation.
		f.v[i] = float32(r.Intn(1201)-600) / 2
	}
	a[0], a[1], x[0], x[1] = 0, -1, -128, 127
	f.v[0], f.v[1], f.v[2] = 2.5, -3.5, 0.5
	_, data := invoke(t, dev, module, "int_ops", intArg("16", "i32", a), intArg("16", "i32", b), intArg("16", "i32", s), intArg("16", "i8", x), f.arg())
	var mul, ars, neg, cast, clz []int64
	for i := 0; i < n; i++ {
		// mul: (a*b + 2^(shift-1)) >> shift in 64 bits, shift 3.
		mul = append(mul, int64(int32((a[i]*b[i]+4)>>3)))
		// arithmetic_right_shift with round: add the last bit shifted out.
		v := int64(int32(a[i]) >> s[i])
		if s[i] > 0 {
			v += int64(int32(a[i])>>(s[i]-1)) & 1
		}
		ars = append(ars, v)
		// negate: output_zp - (x - input_zp), saturated to i8.
		neg = append(neg, clampI(-3-(x[i]-5), -128, 127))
		cast = append(cast, clampI(int64(math.RoundToEven(float64(f.v[i]))), -128, 127))
		clz = append(clz, int64(bits.LeadingZeros32(uint32(int32(a[i])))))
	}
	checkI32(t, "mul shift", data[0], toI32(mul))
	checkI32(t, "arithmetic_right_shift", data[1], toI32(ars))
	checkI8(t, "negate", data[2], neg)
	checkI8(t, "cast", data[3], cast)
	checkI32(t, "clz", data[4], toI32(clz))
}

func checkTosaShapes(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x := randF32(r, 2, 3, 4)
	a, b := make([]int64, 2*3*5), make([]int64, 2*5*4)
	for i := range a {
		a[i] = int64(r.Intn(256) - 128)
	}
	for i := range b {
		b[i] = int64(r.Intn(256) - 128)
	}
	shapes, data := invoke(t, dev, module, "shapes", x.arg(), intArg("2x3x5", "i8", a), intArg("2x5x4", "i8", b))
	var rmax, tr []float32
	for i := 0; i < 2; i++ {
		for k := 0; k < 4; k++ {
			m := float32(math.Inf(-1))
			for j := 0; j < 3; j++ {
				m = max(m, x.v[12*i+4*j+k])
			}
			rmax = append(rmax, m)
		}
	}
	for k := 0; k < 4; k++ {
		for i := 0; i < 2; i++ {
			for j := 0; j < 3; j++ {
				tr = append(tr, x.v[12*i+4*j+k])
			}
		}
	}
	var mm, rsum []int32
	for n := 0; n < 2; n++ {
		for h := 0; h < 3; h++ {
			var row int32
			for w := 0; w < 4; w++ {
				var acc int32
				for c := 0; c < 5; c++ {
					acc += int32(a[15*n+5*h+c]-1) * int32(b[20*n+4*c+w]+2)
				}
				mm = append(mm, acc)
				row += acc
			}
			rsum = append(rsum, row)
		}
	}
	checkF32(t, "reduce_max", shapes[0], data[0], f32s{shape: []int{2, 1, 4}, v: rmax})
	checkF32(t, "transpose", shapes[1], data[1], f32s{shape: []int{4, 2, 3}, v: tr})
	checkI32(t, "matmul", data[2], mm)
	checkI32(t, "reduce_sum", data[3], rsum)
	checkF32(t, "reshape", shapes[4], data[4], f32s{shape: []int{6, 4}, v: x.v})
}

func checkTosaPad(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x := randF32(r, 2, 3)
	i := []int64{11, -12, 13, -14}
	shapes, data := invoke(t, dev, module, "pad", x.arg(), intArg("2x2", "i32", i))
	// One row before, two columns after, filled with -1.5.
	a := f32s{shape: []int{3, 5}}
	for r := 0; r < 3; r++ {
		for c := 0; c < 5; c++ {
			v := float32(-1.5)
			if r >= 1 && c < 3 {
				v = x.v[3*(r-1)+c]
			}
			a.v = append(a.v, v)
		}
	}
	checkF32(t, "pad f32", shapes[0], data[0], a)
	// Two rows after, one column before, filled with 7.
	var b []int32
	for r := 0; r < 4; r++ {
		for c := 0; c < 3; c++ {
			v := int32(7)
			if r < 2 && c >= 1 {
				v = int32(i[2*r+c-1])
			}
			b = append(b, v)
		}
	}
	checkI32(t, "pad i32", data[1], b)
}

func checkTosaLookups(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	v := randF32(r, 2, 5, 3)
	idx := make([]int64, 8)
	for i := range idx {
		idx[i] = int64(r.Intn(5))
	}
	x8, t8, x16, t16 := make([]int64, 16), make([]int64, 256), make([]int64, 16), make([]int64, 513)
	for i := range x8 {
		x8[i] = int64(r.Intn(256) - 128)
		x16[i] = int64(r.Intn(65536) - 32768)
	}
	x8[0], x8[1], x16[0], x16[1] = -128, 127, -32768, 32767
	for i := range t8 {
		t8[i] = int64(r.Intn(256) - 128)
	}
	for i := range t16 {
		t16[i] = int64(r.Intn(65536) - 32768)
	}
	shapes, data := invoke(t, dev, module, "lookups", v.arg(), intArg("2x4", "i32", idx),
		intArg("16", "i8", x8), intArg("256", "i8", t8), intArg("16", "i16", x16), intArg("513", "i16", t16))
	g := f32s{shape: []int{2, 4, 3}}
	for n := 0; n < 2; n++ {
		for w := 0; w < 4; w++ {
			for c := 0; c < 3; c++ {
				g.v = append(g.v, v.v[15*n+3*int(idx[4*n+w])+c])
			}
		}
	}
	checkF32(t, "gather", shapes[0], data[0], g)
	var a []int64
	var b []int32
	for i := range x8 {
		a = append(a, t8[x8[i]+128])
		u := x16[i] + 32768
		base, next := t16[u>>7], t16[u>>7+1]
		b = append(b, int32(base<<7+(next-base)*(u&127)))
	}
	checkI8(t, "table i8", data[1], a)
	checkI32(t, "table i16", data[2], b)
}

func checkTosaPool(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, in, w, bias := randF32(r, 1, 5, 6, 2), randF32(r, 3, 4), randF32(r, 2, 4), randF32(r, 2)
	shapes, data := invoke(t, dev, module, "pool_dense", x.arg(), in.arg(), w.arg(), bias.arg())
	// Kernel 2x3, stride 2, one padding row on top and one column on the
	// right; padding never wins the max.
	p := f32s{shape: []int{1, 3, 3, 2}}
	for oh := 0; oh < 3; oh++ {
		for ow := 0; ow < 3; ow++ {
			for c := 0; c < 2; c++ {
				m := float32(math.Inf(-1))
				for kh := 0; kh < 2; kh++ {
					for kw := 0; kw < 3; kw++ {
						h, ww := 2*oh+kh-1, 2*ow+kw
						if h >= 0 && h < 5 && ww < 6 {
							m = max(m, x.v[12*h+2*ww+c])
						}
					}
				}
				p.v = append(p.v, m)
			}
		}
	}
	checkF32(t, "max_pool2d", shapes[0], data[0], p)
	f := f32s{shape: []int{3, 2}}
	for n := 0; n < 3; n++ {
		for o := 0; o < 2; o++ {
			acc := bias.v[o]
			for i := 0; i < 4; i++ {
				acc += in.v[4*n+i] * w.v[4*o+i]
			}
			f.v = append(f.v, acc)
		}
	}
	checkF32(t, "fully_connected", shapes[1], data[1], f)
}

func checkTosaControl(t *testing.T, dev rhal.Device, module []byte) {
	x := []int64{3, -7, 0, 1 << 20}
	for _, tc := range []struct {
		cond bool
		i, k int64
	}{{true, 1, 1}, {false, 101, 5}, {true, -40, 45}, {false, 100, -1}} {
		c := "i1=0"
		if tc.cond {
			c = "i1=1"
		}
		_, data := invoke(t, dev, module, "control", c, intArg("4", "i32", x), fmt.Sprintf("i32=%d", tc.i), fmt.Sprintf("i32=%d", tc.k))
		var want []int32
		for _, v := range x {
			if tc.cond {
				want = append(want, int32(2*v))
			} else {
				want = append(want, int32(-v))
			}
		}
		i := tc.i
		for i <= 100 {
			i = 2*i + tc.k
		}
		what := fmt.Sprintf("cond %v, i %d, k %d", tc.cond, tc.i, tc.k)
		checkI32(t, "cond_if "+what, data[0], want)
		checkI32(t, "while_loop "+what, data[1], []int32{int32(i)})
	}
}

func checkTosaSliceConcat(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, y := randF32(r, 4, 6), randF32(r, 2, 6)
	shapes, data := invoke(t, dev, module, "slice_concat", x.arg(), y.arg())
	window := func(r0, c0, rows, cols int) f32s {
		w := f32s{shape: []int{rows, cols}}
		for i := 0; i < rows; i++ {
			w.v = append(w.v, x.v[6*(r0+i)+c0:6*(r0+i)+c0+cols]...)
		}
		return w
	}
	checkF32(t, "slice", shapes[0], data[0], window(1, 2, 2, 3))
	checkF32(t, "slice (attributes)", shapes[1], data[1], window(2, 4, 2, 2))
	checkF32(t, "concat", shapes[2], data[2], f32s{shape: []int{6, 6}, v: append(append([]float32(nil), y.v...), x.v...)})
}

// convRef is TOSA's conv2d (depthwise when mult > 0: weight [KH,KW,C,M])
// on NHWC data with N = 1, in float64: out = bias + sum (x - xzp) * (w -
// wzp), padding reading as xzp.
func convRef(x []float64, h, w, ic int, wt []float64, oc, kh, kw, mult int, bias []float64, pad, stride, dil [4]int, xzp, wzp float64, oh, ow int) []float64 {
	var out []float64
	for y := 0; y < oh; y++ {
		for z := 0; z < ow; z++ {
			for o := 0; o < oc; o++ {
				acc := bias[o]
				for a := 0; a < kh; a++ {
					for b := 0; b < kw; b++ {
						iy, iz := y*stride[0]+a*dil[0]-pad[0], z*stride[1]+b*dil[1]-pad[2]
						if iy < 0 || iy >= h || iz < 0 || iz >= w {
							continue
						}
						for c := 0; c < ic; c++ {
							var wv float64
							if mult > 0 {
								if c != o/mult {
									continue
								}
								wv = wt[((a*kw+b)*ic+c)*mult+o%mult]
							} else {
								wv = wt[((o*kh+a)*kw+b)*ic+c]
							}
							acc += (x[(iy*w+iz)*ic+c] - xzp) * (wv - wzp)
						}
					}
				}
				out = append(out, acc)
			}
		}
	}
	return out
}

func f64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func checkTosaConvs(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, w, b := randF32(r, 1, 5, 6, 3), randF32(r, 4, 3, 2, 3), randF32(r, 4)
	xd, wd, bd := randF32(r, 1, 4, 5, 2), randF32(r, 2, 2, 2, 3), randF32(r, 6)
	xi, wi, bi := make([]int64, 32), make([]int64, 24), []int64{100, -7, 0}
	for i := range xi {
		xi[i] = int64(r.Intn(256) - 128)
	}
	for i := range wi {
		wi[i] = int64(r.Intn(256) - 128)
	}
	shapes, data := invoke(t, dev, module, "convs", x.arg(), w.arg(), b.arg(), intArg("1x4x4x2", "i8", xi), intArg("3x2x2x2", "i8", wi), intArg("3", "i32", bi), xd.arg(), wd.arg(), bd.arg())
	narrow := func(v []float64) []float32 {
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	}
	a := convRef(f64s(x.v), 5, 6, 3, f64s(w.v), 4, 3, 2, 0, f64s(b.v), [4]int{1, 1, 0, 1}, [4]int{2, 1}, [4]int{1, 2}, 0, 0, 3, 5)
	checkF32(t, "conv2d f32", shapes[0], data[0], f32s{shape: []int{1, 3, 5, 4}, v: narrow(a)})
	toF := func(v []int64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	iv := convRef(toF(xi), 4, 4, 2, toF(wi), 3, 2, 2, 0, toF(bi), [4]int{0, 1, 1, 0}, [4]int{1, 1}, [4]int{1, 1}, 3, -1, 4, 4)
	want := make([]int32, len(iv))
	for i, v := range iv {
		want[i] = int32(v)
	}
	checkI32(t, "conv2d i8", data[1], want)
	d := convRef(f64s(xd.v), 4, 5, 2, f64s(wd.v), 6, 2, 2, 3, f64s(bd.v), [4]int{}, [4]int{1, 2}, [4]int{1, 1}, 0, 0, 3, 2)
	checkF32(t, "depthwise_conv2d", shapes[2], data[2], f32s{shape: []int{1, 3, 2, 6}, v: narrow(d)})
}

func checkTosaAvgPool(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x := randF32(r, 1, 5, 6, 2)
	shapes, data := invoke(t, dev, module, "avg_pool", x.arg())
	// Kernel 2x3, stride 2, one padding row on top and one column on the
	// right; the average is over the window's unpadded elements.
	p := f32s{shape: []int{1, 3, 3, 2}}
	for oh := 0; oh < 3; oh++ {
		for ow := 0; ow < 3; ow++ {
			for c := 0; c < 2; c++ {
				var sum float32
				n := 0
				for kh := 0; kh < 2; kh++ {
					for kw := 0; kw < 3; kw++ {
						h, w := 2*oh+kh-1, 2*ow+kw
						if h >= 0 && h < 5 && w < 6 {
							sum += x.v[12*h+2*w+c]
							n++
						}
					}
				}
				p.v = append(p.v, sum/float32(n))
			}
		}
	}
	checkF32(t, "avg_pool2d", shapes[0], data[0], p)
}

func checkTosaArgmax(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	// Ties (few distinct values) pick the first index; a NaN in row 2
	// wins wherever it is.
	x := f32s{shape: []int{3, 5}, v: make([]float32, 15)}
	i := make([]int64, 15)
	for k := range x.v {
		x.v[k] = float32(r.Intn(3))
		i[k] = int64(r.Intn(4) - 2)
	}
	x.v[13] = float32(math.NaN())
	_, data := invoke(t, dev, module, "argmax", x.arg(), intArg("3x5", "i8", i))
	var a, b []int32
	for row := 0; row < 3; row++ {
		best := 0
		for k := 1; k < 5; k++ {
			v, m := x.v[5*row+k], x.v[5*row+best]
			if m == m && (v != v || v > m) {
				best = k
			}
		}
		a = append(a, int32(best))
	}
	for col := 0; col < 5; col++ {
		best := 0
		for k := 1; k < 3; k++ {
			if i[5*k+col] > i[5*best+col] {
				best = k
			}
		}
		b = append(b, int32(best))
	}
	checkI32(t, "argmax f32", data[0], a)
	checkI32(t, "argmax i8", data[1], b)
	var bools []int32
	for _, v := range x.v {
		if v != 0 {
			bools = append(bools, 1)
		} else {
			bools = append(bools, 0)
		}
	}
	checkI32(t, "cast f32 -> i1 -> i32", data[2], bools)
}
