package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// The StableHLO programs of testdata/stablehlo_conv_reduce.mlir (convolutions,
// reductions of several operands, reduce_window, dynamic shapes, rng,
// complex numbers and FFTs, data-dependent reads) go
// through the StableHLO input lowering and run on local-sync and
// local-task; each result is checked against a plain Go loop written from
// the StableHLO specification (windows indexed from the padded input,
// out-of-range elements being the padding value).

func TestStableHLOConvReduce(t *testing.T) {
	module := compileLinalg(t, "stablehlo_conv_reduce.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		r := rand.New(rand.NewSource(5))
		checkConvGrouped(t, dev, module, r)
		checkConvDepthwiseI8(t, dev, module, r)
		checkReduceMulti(t, dev, module, r)
		checkPool(t, dev, module, r)
		checkDynamicShapes(t, dev, module, r)
		checkRNGUniform(t, dev, module)
		checkComplexOps(t, dev, module, r)
		checkFFTs(t, dev, module, r)
		checkIRFFTs(t, dev, module, r)
		checkSelects(t, dev, module, r)
		checkGatherScatter(t, dev, module, r)
		checkSortRows(t, dev, module, r)
		checkHouseholder(t, dev, module)
		checkRNGNormal(t, dev, module)
	})
}

func checkConvGrouped(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	const (
		n, c, h, w  = 2, 4, 7, 6 // input NCHW
		o, g        = 6, 2       // output features, groups
		kh, kw      = 3, 2
		sh, sw      = 2, 1 // strides
		dh, dw      = 1, 2 // rhs dilation
		padT, padL  = 1, 2 // low padding (high padding only sizes the output)
		oh, ow      = 3, 7
		cg, og      = c / g, o / g
		outElements = n * oh * ow * o
	)
	x, k := randF32(r, n, c, h, w), randF32(r, o, cg, kh, kw)
	_, data := invoke(t, dev, module, "conv_grouped", x.arg(), k.arg())
	want := f32s{shape: []int{n, oh, ow, o}, v: make([]float32, outElements)}
	for b := 0; b < n; b++ {
		for y := 0; y < oh; y++ {
			for xo := 0; xo < ow; xo++ {
				for f := 0; f < o; f++ {
					grp := f / og
					var acc float64
					for ky := 0; ky < kh; ky++ {
						for kx := 0; kx < kw; kx++ {
							iy, ix := y*sh+ky*dh-padT, xo*sw+kx*dw-padL
							if iy < 0 || iy >= h || ix < 0 || ix >= w {
								continue
							}
							for ci := 0; ci < cg; ci++ {
								in := x.v[((b*c+grp*cg+ci)*h+iy)*w+ix]
								acc += float64(in) * float64(k.v[((f*cg+ci)*kh+ky)*kw+kx])
							}
						}
					}
					want.v[((b*oh+y)*ow+xo)*o+f] = float32(acc)
				}
			}
		}
	}
	checkF32(t, "grouped convolution", rhal.Shape{n, oh, ow, o}, data[0], want)
}

func checkConvDepthwiseI8(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, k := make([]int64, 9*3), make([]int64, 2*3)
	for i := range x {
		x[i] = int64(r.Intn(256) - 128)
	}
	for i := range k {
		k[i] = int64(r.Intn(256) - 128)
	}
	x[0], k[0] = -128, -128 // the product that needs the widening most
	_, data := invoke(t, dev, module, "conv_depthwise_i8", intArg("1x9x3", "i8", x), intArg("2x1x3", "i8", k))
	var want []int32
	for ox := 0; ox < 8; ox++ {
		for f := 0; f < 3; f++ {
			acc := int32(0)
			for kx := 0; kx < 2; kx++ {
				acc += int32(x[(ox+kx)*3+f]) * int32(k[kx*3+f])
			}
			want = append(want, acc)
		}
	}
	checkI32(t, "depthwise i8 convolution", data[0], want)
}

func checkReduceMulti(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	// Few distinct values, so that rows have ties for the maximum.
	v := f32s{shape: []int{5, 7}}
	for i := 0; i < 35; i++ {
		v.v = append(v.v, float32(r.Intn(5))-2)
	}
	shapes, data := invoke(t, dev, module, "reduce_multi", v.arg())
	mx := f32s{shape: []int{5}}
	var arg []int32
	for i := 0; i < 5; i++ {
		best, at := float32(math.Inf(-1)), 0
		for j := 0; j < 7; j++ {
			if x := v.v[7*i+j]; x > best {
				best, at = x, j
			}
		}
		mx.v = append(mx.v, best)
		arg = append(arg, int32(at))
	}
	capped := f32s{shape: []int{7}}
	for j := 0; j < 7; j++ {
		m := float32(math.Inf(-1))
		for i := 0; i < 5; i++ {
			m = max(m, v.v[7*i+j])
		}
		capped.v = append(capped.v, min(m, 1.5))
	}
	checkF32(t, "argmax value", shapes[0], data[0], mx)
	checkI32(t, "argmax index", data[1], arg)
	checkF32(t, "capped max", shapes[2], data[2], capped)
}

func checkPool(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, v := randF32(r, 1, 6, 7, 2), randF32(r, 10)
	shapes, data := invoke(t, dev, module, "pool", x.arg(), v.arg())
	pool := f32s{shape: []int{1, 3, 4, 2}}
	for y := 0; y < 3; y++ {
		for xo := 0; xo < 4; xo++ {
			for c := 0; c < 2; c++ {
				m := float32(math.Inf(-1))
				for ky := 0; ky < 3; ky++ {
					for kx := 0; kx < 2; kx++ {
						// Low padding 1 on the height, 0 on the width;
						// window dilation 2 on the width.
						iy, ix := y*2+ky-1, xo*2+kx*2
						if iy >= 0 && iy < 6 && ix < 7 {
							m = max(m, x.v[(iy*7+ix)*2+c])
						}
					}
				}
				pool.v = append(pool.v, m)
			}
		}
	}
	sum := f32s{shape: []int{10}}
	for i := 0; i < 10; i++ {
		var s float32
		for j := i - 2; j <= i; j++ {
			if j >= 0 {
				s += v.v[j]
			}
		}
		sum.v = append(sum.v, s)
	}
	checkF32(t, "max pool", shapes[0], data[0], pool)
	checkF32(t, "running sum", shapes[1], data[1], sum)
}

func checkDynamicShapes(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	for _, s := range [][3]int{{3, 4, 5}, {6, 2, 1}, {1, 7, 3}} {
		m, k, n := s[0], s[1], s[2]
		a, b := randF32(r, m, k), randF32(r, k, n)
		shapes, data := invoke(t, dev, module, "dynamic", a.arg(), b.arg())
		e := matmulRef(a, b, 0)
		rows := f32s{shape: []int{m}}
		for i := 0; i < m; i++ {
			var acc float32
			for j := 0; j < n; j++ {
				e.v[i*n+j] = float32(math.Abs(float64(e.v[i*n+j])))
				acc += e.v[i*n+j]
			}
			rows.v = append(rows.v, acc)
		}
		checkF32(t, "dynamic |a @ b|", shapes[0], data[0], e)
		checkF32(t, "dynamic row sums", shapes[1], data[1], rows)
	}
}

func checkRNGUniform(t *testing.T, dev rhal.Device, module []byte) {
	const lo, hi = float32(-3), float32(5)
	shapes, data := invoke(t, dev, module, "rng", "f32=-3", "f32=5")
	want := f32s{shape: []int{4, 5, 3}}
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			for k := 0; k < 3; k++ {
				// IREE's generator: x = 1103515245 * (x + index) + 12345
				// per dimension, modulo 2^32, from 0.
				var x uint32
				for _, ix := range []int{i, j, k} {
					x = 1103515245*(x+uint32(ix)) + 12345
				}
				want.v = append(want.v, float32(x)/(1<<32)*(hi-lo)+lo)
			}
		}
	}
	checkF32(t, "rng uniform", shapes[0], data[0], want)
}

// normalRef is numpy's account of IREE's rng NORMAL expansion: the
// Mersenne Twister is numpy's (RandomState(0) seeds it as std::mt19937(0)
// does), each uniform is libstdc++'s generate_canonical of two draws.
const normalRef = `
import sys
import numpy as np
count, mu, sigma = int(sys.argv[1]), np.float32(sys.argv[2]), np.float32(sys.argv[3])
bits = np.random.RandomState(0)._bit_generator
def uniform():
    a, b = bits.random_raw(), bits.random_raw()
    return min((float(a) + float(b) * 2.0**32) / 2.0**64, np.nextafter(1.0, 0.0))
half = (count + 1) // 2
z0, z1 = [], []
for _ in range(half):
    while True:
        u1, u2 = np.float32(uniform()), np.float32(uniform())
        if u1 > np.finfo(np.float32).eps:
            break
    mag = sigma * np.sqrt(np.float32(-2.0 * np.log(np.float64(u1))))
    angle = np.float64(np.float32(2 * np.pi) * u2)
    z0.append(mag * np.float32(np.cos(angle)) + mu)
    z1.append(mag * np.float32(np.sin(angle)) + mu)
print(" ".join(repr(float(v)) for v in (z0 + z1)[:count]))
`

func checkRNGNormal(t *testing.T, dev rhal.Device, module []byte) {
	out, err := exec.Command("/usr/bin/python3", "-c", normalRef, "399", "0.5", "2").Output()
	if err != nil {
		t.Skipf("skipping rng NORMAL: numpy reference: %v", err)
	}
	want := f32s{shape: []int{21, 19}}
	for _, f := range strings.Fields(string(out)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatal(err)
		}
		want.v = append(want.v, float32(v))
	}
	shapes, data := invoke(t, dev, module, "rng_normal", "f32=0.5", "f32=2")
	checkF32(t, "rng normal", shapes[0], data[0], want)
}

func checkComplexOps(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a, b, c, d := randF32(r, 6), randF32(r, 6), randF32(r, 6), randF32(r, 6)
	shapes, data := invoke(t, dev, module, "complex_ops", a.arg(), b.arg(), c.arg(), d.arg())
	var want [5]f32s
	for i := range want {
		want[i].shape = []int{6}
	}
	for i := 0; i < 6; i++ {
		z, w := complex(float64(a.v[i]), float64(b.v[i])), complex(float64(c.v[i]), float64(d.v[i]))
		e := cmplx.Exp(z * w)
		n := -(cmplx.Sin(z) - cmplx.Cos(w))
		for k, v := range []float64{real(e), imag(e), real(n), imag(n), cmplx.Abs(z)} {
			want[k].v = append(want[k].v, float32(v))
		}
	}
	for k, w := range want {
		// exp of a product reaches e^8; compare relative to the magnitude.
		checkF32Rel(t, []string{"real(exp(z*w))", "imag(exp(z*w))", "real(-(sin z - cos w))", "imag(-(sin z - cos w))", "abs z"}[k], shapes[k], data[k], w, 2e-5)
	}
}

// checkF32Rel compares a result with the reference within rel of the
// larger of 1 and the reference's magnitude.
func checkF32Rel(t *testing.T, what string, shape rhal.Shape, data []byte, want f32s, rel float64) {
	t.Helper()
	same := len(shape) == len(want.shape)
	for i := 0; same && i < len(shape); i++ {
		same = int(shape[i]) == want.shape[i]
	}
	if !same || len(data) != 4*len(want.v) {
		t.Fatalf("%s: shape %v (%d bytes), want %v", what, shape, len(data), want.shape)
	}
	bad := 0
	for i, w := range want.v {
		g := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		if d := math.Abs(float64(g) - float64(w)); !(d <= rel*math.Max(1, math.Abs(float64(w)))) {
			if bad++; bad <= 5 {
				t.Errorf("%s: element %d = %g, want %g", what, i, g, w)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d elements differ", what, bad, len(want.v))
	}
}

// fftRef prints numpy's rfft of each row of x (3x10) and fft and ifft(fft)
// of re + i im (8), real and imaginary parts in turn.
const fftRef = `
import sys
import numpy as np
v = np.array([float(f) for f in sys.argv[1:]])
x, z = v[:30].reshape(3, 10), v[30:38] + 1j * v[38:46]
r, f = np.fft.rfft(x, axis=1), np.fft.fft(z)
b = np.fft.ifft(f)
print(" ".join(repr(float(e)) for e in np.concatenate([a.ravel() for a in (r.real, r.imag, f.real, f.imag, b.real, b.imag)])))
`

func checkFFTs(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, re, im := randF32(r, 3, 10), randF32(r, 8), randF32(r, 8)
	var args []string
	for _, v := range append(append(append([]float32(nil), x.v...), re.v...), im.v...) {
		args = append(args, strconv.FormatFloat(float64(v), 'g', -1, 32))
	}
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", fftRef}, args...)...).Output()
	if err != nil {
		t.Skipf("skipping FFTs: numpy reference: %v", err)
	}
	var ref []float32
	for _, f := range strings.Fields(string(out)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatal(err)
		}
		ref = append(ref, float32(v))
	}
	shapes, data := invoke(t, dev, module, "ffts", x.arg(), re.arg(), im.arg())
	off := 0
	for k, what := range []string{"rfft real", "rfft imag", "fft real", "fft imag", "ifft(fft) real", "ifft(fft) imag"} {
		n := 8
		shape := []int{8}
		if k < 2 {
			n, shape = 18, []int{3, 6}
		}
		checkF32Rel(t, what, shapes[k], data[k], f32s{shape: shape, v: ref[off : off+n]}, 1e-5)
		off += n
	}
}

// checkIRFFTs checks IRFFT as the inverse of RFFT (even and odd lengths)
// and the FFT of a complex constant against a direct DFT in complex128.
func checkIRFFTs(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, y := randF32(r, 3, 10), randF32(r, 9)
	shapes, data := invoke(t, dev, module, "irffts", x.arg(), y.arg())
	checkF32Rel(t, "irfft(rfft(x)) even", shapes[0], data[0], x, 1e-5)
	checkF32Rel(t, "irfft(rfft(y)) odd", shapes[1], data[1], y, 1e-5)
	z := []complex128{complex(1, 2), complex(3, -1), 0.5, complex(-2, 4)}
	re, im := f32s{shape: []int{4}}, f32s{shape: []int{4}}
	for k := range z {
		var s complex128
		for n, v := range z {
			s += v * cmplx.Exp(complex(0, -2*math.Pi*float64(k*n)/4))
		}
		re.v, im.v = append(re.v, float32(real(s))), append(im.v, float32(imag(s)))
	}
	checkF32Rel(t, "fft(constant) real", shapes[2], data[2], re, 1e-6)
	checkF32Rel(t, "fft(constant) imag", shapes[3], data[3], im, 1e-6)
}

func checkSelects(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, u := randF32(r, 2, 5, 3), randF32(r, 1, 2, 2)
	at := func(a, b, c int) float32 { return x.v[(a*5+b)*3+c] }
	clamp := func(v, hi int) int { return max(0, min(v, hi)) }
	idx := make([]int64, 8)
	for i := range idx {
		idx[i] = int64(r.Intn(5))
	}
	// Starts past the ends and below zero, clamped to the last and first
	// positions a window fits.
	for _, st := range [][2]int{{1, 1}, {9, -4}, {-1, 7}} {
		s0, s1 := st[0], st[1]
		shapes, data := invoke(t, dev, module, "selects", x.arg(), intArg("2x4", "i32", idx),
			fmt.Sprintf("i32=%d", s0), fmt.Sprintf("i32=%d", s1), u.arg())
		ts := f32s{shape: []int{2, 4, 3}}
		for b := 0; b < 2; b++ {
			for i := 0; i < 4; i++ {
				for c := 0; c < 3; c++ {
					ts.v = append(ts.v, at(b, int(idx[b*4+i]), c))
				}
			}
		}
		rv := f32s{shape: []int{2, 5, 3}}
		for a := 0; a < 2; a++ {
			for b := 0; b < 5; b++ {
				for c := 0; c < 3; c++ {
					rv.v = append(rv.v, at(a, 4-b, 2-c))
				}
			}
		}
		ds := f32s{shape: []int{2, 3, 2}}
		o1, o2 := clamp(s0, 5-3), clamp(s1, 3-2)
		for a := 0; a < 2; a++ {
			for b := 0; b < 3; b++ {
				for c := 0; c < 2; c++ {
					ds.v = append(ds.v, at(a, o1+b, o2+c))
				}
			}
		}
		us := f32s{shape: []int{2, 5, 3}, v: append([]float32(nil), x.v...)}
		p0, p1, p2 := clamp(s1, 2-1), clamp(s0, 5-2), clamp(s1, 3-2)
		for b := 0; b < 2; b++ {
			for c := 0; c < 2; c++ {
				us.v[(p0*5+p1+b)*3+p2+c] = u.v[b*2+c]
			}
		}
		for k, w := range []f32s{ts, rv, ds, us} {
			checkF32(t, fmt.Sprintf("%s (starts %d, %d)", []string{"torch_index_select", "reverse", "dynamic_slice", "dynamic_update_slice"}[k], s0, s1), shapes[k], data[k], w)
		}
	}
}

func checkGatherScatter(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, o, u := randF32(r, 3, 5, 4), randF32(r, 6, 4), randF32(r, 5, 4)
	starts := make([]int64, 12)
	for i := range starts {
		starts[i] = int64(r.Intn(9) - 2) // some below 0 and past the end
	}
	rows := []int64{2, -1, 2, 7, 5}
	shapes, data := invoke(t, dev, module, "gather_scatter", x.arg(), intArg("2x3x2", "i32", starts), o.arg(), intArg("5x1", "i32", rows), u.arg())
	clamp := func(v int64, hi int) int { return max(0, min(int(v), hi)) }
	g := f32s{shape: []int{2, 3, 2, 3}}
	for b := 0; b < 6; b++ {
		s0, s1 := clamp(starts[2*b], 3-1), clamp(starts[2*b+1], 5-2)
		for i := 0; i < 2; i++ {
			for j := 0; j < 3; j++ {
				g.v = append(g.v, x.v[(s0*5+s1+i)*4+j])
			}
		}
	}
	sc := f32s{shape: []int{6, 4}, v: append([]float32(nil), o.v...)}
	for k, row := range rows {
		if row < 0 || row >= 6 {
			continue
		}
		for j := 0; j < 4; j++ {
			sc.v[int(row)*4+j] += u.v[k*4+j]
		}
	}
	checkF32(t, "gather", shapes[0], data[0], g)
	checkF32(t, "scatter add", shapes[1], data[1], sc)
}

func checkSortRows(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	v := f32s{shape: []int{4, 9}}
	for i := 0; i < 36; i++ {
		v.v = append(v.v, float32(r.Intn(5))) // ties in every row
	}
	shapes, data := invoke(t, dev, module, "sort_rows", v.arg())
	vals := f32s{shape: []int{4, 9}}
	var idx []int32
	for row := 0; row < 4; row++ {
		cols := []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
		sort.SliceStable(cols, func(a, b int) bool { return v.v[row*9+cols[a]] > v.v[row*9+cols[b]] })
		for _, c := range cols {
			vals.v = append(vals.v, v.v[row*9+c])
			idx = append(idx, int32(c))
		}
	}
	checkF32(t, "sorted values", shapes[0], data[0], vals)
	checkI32(t, "sorted indices", data[1], idx)
}

// qrRef prints numpy's QR of a 5x3 matrix: the reflectors and factors
// LAPACK's geqrf leaves (h transposed back to row-major A), then Q.
const qrRef = `
import numpy as np
b = np.random.RandomState(7).rand(5, 3).astype(np.float32)
h, tau = np.linalg.qr(b.astype(np.float64), mode="raw")
q = np.linalg.qr(b.astype(np.float64))[0]
print(" ".join(repr(float(v)) for v in np.concatenate([h.T.ravel(), tau, q.ravel()])))
`

func checkHouseholder(t *testing.T, dev rhal.Device, module []byte) {
	out, err := exec.Command("/usr/bin/python3", "-c", qrRef).Output()
	if err != nil {
		t.Skipf("skipping the Householder product: numpy reference: %v", err)
	}
	var v []float32
	for _, f := range strings.Fields(string(out)) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatal(err)
		}
		v = append(v, float32(x))
	}
	if len(v) != 15+3+15 {
		t.Fatalf("numpy printed %d numbers, want 33", len(v))
	}
	h, tau := f32s{shape: []int{5, 3}, v: v[:15]}, f32s{shape: []int{3}, v: v[15:18]}
	shapes, data := invoke(t, dev, module, "householder", h.arg(), tau.arg())
	checkF32Rel(t, "Householder product (Q of QR)", shapes[0], data[0], f32s{shape: []int{5, 3}, v: v[18:]}, 1e-5)
}
