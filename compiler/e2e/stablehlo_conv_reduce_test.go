package e2e_test

import (
	"math"
	"math/rand"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// The StableHLO programs of testdata/stablehlo_conv_reduce.mlir (convolutions,
// reductions of several operands, reduce_window, dynamic shapes, rng) go
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
