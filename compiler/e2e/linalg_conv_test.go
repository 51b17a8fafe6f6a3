package e2e_test

import (
	"math"
	"math/rand"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// conv2D is the reference of the NHWC/HWCF (depthwise: HWC) convolutions
// and NHWC pooling, one window element at a time in float64.
type convSpec struct {
	n, h, w, c, kh, kw, f int
	sh, sw, dh, dw        int
	depthwise             bool
}

func (s convSpec) out() (int, int) {
	return (s.h-(s.kh-1)*s.dh-1)/s.sh + 1, (s.w-(s.kw-1)*s.dw-1)/s.sw + 1
}

// window calls fn for every output element (index o in NHWC order, or
// NHWF) with the input and filter indices of each window element.
func (s convSpec) window(fn func(o, in, filt int)) {
	oh, ow := s.out()
	oc := s.f
	if s.depthwise {
		oc = s.c
	}
	for n := 0; n < s.n; n++ {
		for y := 0; y < oh; y++ {
			for x := 0; x < ow; x++ {
				for f := 0; f < oc; f++ {
					o := ((n*oh+y)*ow+x)*oc + f
					for ky := 0; ky < s.kh; ky++ {
						for kx := 0; kx < s.kw; kx++ {
							iy, ix := y*s.sh+ky*s.dh, x*s.sw+kx*s.dw
							if s.depthwise {
								fn(o, ((n*s.h+iy)*s.w+ix)*s.c+f, (ky*s.kw+kx)*s.c+f)
								continue
							}
							for c := 0; c < s.c; c++ {
								fn(o, ((n*s.h+iy)*s.w+ix)*s.c+c, ((ky*s.kw+kx)*s.c+c)*s.f+f)
							}
						}
					}
				}
			}
		}
	}
}

func TestLinalgConvPool(t *testing.T) {
	module := compileLinalg(t, "linalg_conv.mlir")
	r := rand.New(rand.NewSource(11))

	cs := convSpec{n: 2, h: 9, w: 11, c: 3, kh: 3, kw: 2, f: 5, sh: 2, sw: 1, dh: 1, dw: 3}
	x, w := randF32(r, 2, 9, 11, 3), randF32(r, 3, 2, 3, 5)
	oh, ow := cs.out()
	acc := make([]float64, 2*oh*ow*5)
	cs.window(func(o, i, f int) { acc[o] += float64(x.v[i]) * float64(w.v[f]) })
	wantConv := f32s{shape: []int{2, oh, ow, 5}}
	for _, v := range acc {
		wantConv.v = append(wantConv.v, float32(v))
	}

	// NCHW/FCHW through the same reference on transposed data.
	xc, wc := randF32(r, 1, 3, 8, 8), randF32(r, 4, 3, 3, 3)
	wantNCHW := f32s{shape: []int{1, 4, 6, 6}, v: make([]float32, 4*36)}
	for f := 0; f < 4; f++ {
		for y := 0; y < 6; y++ {
			for xx := 0; xx < 6; xx++ {
				s := 0.0
				for c := 0; c < 3; c++ {
					for ky := 0; ky < 3; ky++ {
						for kx := 0; kx < 3; kx++ {
							s += float64(xc.v[(c*8+y+ky)*8+xx+kx]) * float64(wc.v[((f*3+c)*3+ky)*3+kx])
						}
					}
				}
				wantNCHW.v[(f*6+y)*6+xx] = float32(s)
			}
		}
	}

	ds := convSpec{n: 1, h: 8, w: 8, c: 4, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, depthwise: true}
	xd, wd := randF32(r, 1, 8, 8, 4), randF32(r, 3, 3, 4)
	dacc := make([]float64, 3*3*4)
	ds.window(func(o, i, f int) { dacc[o] += float64(xd.v[i]) * float64(wd.v[f]) })
	wantDW := f32s{shape: []int{1, 3, 3, 4}}
	for _, v := range dacc {
		wantDW.v = append(wantDW.v, float32(v))
	}

	ps := convSpec{n: 1, h: 8, w: 8, c: 2, kh: 2, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, depthwise: true}
	xp := randF32(r, 1, 8, 8, 2)
	sum, mx := make([]float64, 4*3*2), make([]float64, 4*3*2)
	for i := range mx {
		mx[i] = math.Inf(-1)
	}
	ps.window(func(o, i, _ int) {
		sum[o] += float64(xp.v[i])
		mx[o] = math.Max(mx[o], float64(xp.v[i]))
	})
	wantSum, wantMax := f32s{shape: []int{1, 4, 3, 2}}, f32s{shape: []int{1, 4, 3, 2}}
	for i := range sum {
		wantSum.v = append(wantSum.v, float32(sum[i]))
		wantMax.v = append(wantMax.v, float32(mx[i]))
	}

	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "conv_nhwc", x.arg(), w.arg())
		checkF32(t, "conv_nhwc", shapes[0], data[0], wantConv)
		shapes, data = invoke(t, dev, module, "conv_nchw", xc.arg(), wc.arg())
		checkF32(t, "conv_nchw", shapes[0], data[0], wantNCHW)
		shapes, data = invoke(t, dev, module, "depthwise", xd.arg(), wd.arg())
		checkF32(t, "depthwise", shapes[0], data[0], wantDW)
		shapes, data = invoke(t, dev, module, "pools", xp.arg())
		checkF32(t, "pooling_nhwc_sum", shapes[0], data[0], wantSum)
		checkF32(t, "pooling_nhwc_max", shapes[1], data[1], wantMax)
	})
}
