package e2e_test

import (
	"math"
	"math/rand"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// The StableHLO and MHLO programs (testdata/stablehlo_ops.mlir) go through
// the StableHLO input lowering (package conversion/stablehlotolinalg) and
// run on local-sync and local-task; every element of every result is
// checked against a plain Go loop written from the StableHLO specification.

func TestStableHLOOps(t *testing.T) {
	module := compileLinalg(t, "stablehlo_ops.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		r := rand.New(rand.NewSource(16))
		checkStableHLOFloat(t, dev, module, r)
		checkStableHLOInt(t, dev, module, r)
		checkStableHLOShapes(t, dev, module, r)
		checkStableHLODots(t, dev, module, r)
		checkStableHLOMore(t, dev, module, r)
		checkStableHLOReduce(t, dev, module, r)
		checkStableHLODotGeneral(t, dev, module, r)
		checkStableHLOFinite(t, dev, module)
		checkStableHLOPad(t, dev, module, r)
		checkCHLOBroadcast(t, dev, module, r)
		checkStableHLOBatchNorm(t, dev, module, r)
	})
}

func checkStableHLOFloat(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a, b := randF32(r, 3, 4), randF32(r, 3, 4)
	a.v[0], a.v[1] = 0, -2
	shapes, data := invoke(t, dev, module, "float_ops", a.arg(), b.arg())
	want := make([][]float32, 6)
	for i, x := range a.v {
		y := b.v[i]
		sg := float32(0)
		if x > 0 {
			sg = 1
		} else if x < 0 {
			sg = -1
		}
		want[0] = append(want[0], x+y)
		want[1] = append(want[1], x/y)
		want[2] = append(want[2], min(max(x, -0.5), 0.75))
		want[3] = append(want[3], max(x, y))
		want[4] = append(want[4], sg)
		want[5] = append(want[5], float32(1/(1+math.Exp(-math.Exp(float64(x))))))
	}
	for k, w := range want {
		checkF32(t, []string{"add", "divide", "clamp", "compare+select", "sign", "logistic(exp)"}[k], shapes[k], data[k], f32s{shape: []int{3, 4}, v: w})
	}
}

func checkStableHLOInt(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	const n = 16
	a, b, s := make([]int64, n), make([]int64, n), make([]int64, n)
	for i := range a {
		a[i] = int64(r.Int31()) - 1<<30
		b[i] = int64(r.Intn(2001) - 1000)
		if b[i] == 0 {
			b[i] = 7
		}
		// Shifts of 32 and more, and negative ones, are defined by
		// StableHLO (0, or the sign for arithmetic shifts).
		s[i] = int64(i*3 - 6)
	}
	a[0], a[1] = -1, math.MinInt32
	shapes, data := invoke(t, dev, module, "int_ops", intArg("16", "i32", a), intArg("16", "i32", b), intArg("16", "i32", s))
	var shl, sra, srl, rem, sel []int32
	f := f32s{shape: []int{n}}
	for i := 0; i < n; i++ {
		x, y, sh := int32(a[i]), int32(b[i]), uint32(s[i])
		if sh >= 32 {
			shl = append(shl, 0)
			srl = append(srl, 0)
			sra = append(sra, x>>31)
		} else {
			shl = append(shl, x<<sh)
			srl = append(srl, int32(uint32(x)>>sh))
			sra = append(sra, x>>sh)
		}
		// Remainder takes the dividend's sign, as Go's % does.
		rem = append(rem, x%y)
		f.v = append(f.v, float32(y))
		if x <= y {
			sel = append(sel, x)
		} else {
			sel = append(sel, -y)
		}
	}
	checkI32(t, "shift_left", data[0], shl)
	checkI32(t, "shift_right_arithmetic", data[1], sra)
	checkI32(t, "shift_right_logical", data[2], srl)
	checkI32(t, "remainder", data[3], rem)
	checkF32(t, "convert", shapes[4], data[4], f)
	checkI32(t, "compare+select", data[5], sel)
}

func checkStableHLOShapes(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a, v := randF32(r, 3, 4), randF32(r, 4)
	shapes, data := invoke(t, dev, module, "shapes", a.arg(), v.arg())
	at := func(i, j int) float32 { return a.v[4*i+j] }
	tr := f32s{shape: []int{4, 3}}
	for j := 0; j < 4; j++ {
		for i := 0; i < 3; i++ {
			tr.v = append(tr.v, at(i, j))
		}
	}
	bc := f32s{shape: []int{2, 3, 4}}
	for n := 0; n < 6; n++ {
		bc.v = append(bc.v, v.v...)
	}
	// Rows 1..2, columns 0 and 3.
	sl := f32s{shape: []int{2, 2}, v: []float32{at(1, 0), at(1, 3), at(2, 0), at(2, 3)}}
	cc := f32s{shape: []int{3, 8}}
	for i := 0; i < 3; i++ {
		cc.v = append(append(cc.v, a.v[4*i:4*i+4]...), a.v[4*i:4*i+4]...)
	}
	io := f32s{shape: []int{2, 5}}
	for i := 0; i < 2; i++ {
		for j := 0; j < 5; j++ {
			io.v = append(io.v, float32(j))
		}
	}
	for k, w := range []f32s{tr, bc, sl, cc, io, {shape: []int{12}, v: a.v}} {
		checkF32(t, []string{"transpose", "broadcast_in_dim", "slice", "concatenate", "iota", "reshape"}[k], shapes[k], data[k], w)
	}
}

func checkStableHLODots(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a, b := make([]int64, 8), make([]int64, 12)
	for i := range a {
		a[i] = int64(r.Intn(256) - 128)
	}
	for i := range b {
		b[i] = int64(r.Intn(256) - 128)
	}
	m, v := randF32(r, 3, 4), randF32(r, 4)
	shapes, data := invoke(t, dev, module, "dots", intArg("2x4", "i8", a), intArg("4x3", "i8", b), m.arg(), v.arg())
	var mm []int32
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			var acc int32
			for k := 0; k < 4; k++ {
				acc += int32(a[4*i+k]) * int32(b[3*k+j])
			}
			mm = append(mm, acc)
		}
	}
	mv := f32s{shape: []int{3}}
	for i := 0; i < 3; i++ {
		var acc float32
		for k := 0; k < 4; k++ {
			acc += m.v[4*i+k] * v.v[k]
		}
		mv.v = append(mv.v, acc)
	}
	checkI32(t, "dot i8 matmul", data[0], mm)
	checkF32(t, "dot matvec", shapes[1], data[1], mv)
}

func checkStableHLOMore(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a := randF32(r, 2, 3)
	shapes, data := invoke(t, dev, module, "more", a.arg())
	bc := f32s{shape: []int{4, 2, 3}}
	for i := 0; i < 4; i++ {
		bc.v = append(bc.v, a.v...)
	}
	pw := f32s{shape: []int{2, 3}}
	for _, x := range a.v {
		pw.v = append(pw.v, float32(math.Pow(math.Abs(float64(x)), float64(x))))
	}
	checkF32(t, "broadcast", shapes[0], data[0], bc)
	checkF32(t, "power", shapes[1], data[1], pw)
}

func checkStableHLOReduce(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a := randF32(r, 2, 3, 4)
	v := make([]int64, 16)
	sum := int32(1) // the init value
	for i := range v {
		v[i] = int64(r.Intn(2001) - 1000)
		sum += int32(v[i])
	}
	shapes, data := invoke(t, dev, module, "reduce", a.arg(), intArg("16", "i32", v))
	mx := f32s{shape: []int{3}}
	for j := 0; j < 3; j++ {
		m := float32(math.Inf(-1))
		for i := 0; i < 2; i++ {
			for k := 0; k < 4; k++ {
				m = max(m, a.v[12*i+4*j+k])
			}
		}
		mx.v = append(mx.v, m)
	}
	checkF32(t, "reduce max", shapes[0], data[0], mx)
	checkI32(t, "reduce add", data[1], []int32{sum})
}

func checkStableHLODotGeneral(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a, b := randF32(r, 2, 4, 3), randF32(r, 2, 4, 5)
	shapes, data := invoke(t, dev, module, "dot_general", a.arg(), b.arg())
	// Batch n: out[n, i, j] = sum over k of a[n, k, i] * b[n, k, j].
	want := f32s{shape: []int{2, 3, 5}}
	for n := 0; n < 2; n++ {
		for i := 0; i < 3; i++ {
			for j := 0; j < 5; j++ {
				var acc float32
				for k := 0; k < 4; k++ {
					acc += a.v[12*n+3*k+i] * b.v[20*n+5*k+j]
				}
				want.v = append(want.v, acc)
			}
		}
	}
	checkF32(t, "dot_general", shapes[0], data[0], want)
}

func checkStableHLOFinite(t *testing.T, dev rhal.Device, module []byte) {
	in := f32s{shape: []int{6}, v: []float32{1, float32(math.Inf(1)), float32(math.NaN()), -0.0, float32(math.Inf(-1)), math.MaxFloat32}}
	_, data := invoke(t, dev, module, "finite", in.arg())
	var want []int32
	for _, x := range in.v {
		f := int32(0)
		if !math.IsInf(float64(x), 0) && !math.IsNaN(float64(x)) {
			f = 1
		}
		want = append(want, f)
	}
	checkI32(t, "is_finite", data[0], want)
	var bits []int32
	for _, x := range in.v {
		bits = append(bits, int32(math.Float32bits(x)))
	}
	checkI32(t, "bitcast_convert", data[1], bits)
}

func checkStableHLOPad(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a := randF32(r, 2, 3)
	shapes, data := invoke(t, dev, module, "pad", a.arg())
	// One row before, two after, one column after, filled with -1.5.
	want := f32s{shape: []int{5, 4}}
	for i := 0; i < 5; i++ {
		for j := 0; j < 4; j++ {
			v := float32(-1.5)
			if i >= 1 && i < 3 && j < 3 {
				v = a.v[3*(i-1)+j]
			}
			want.v = append(want.v, v)
		}
	}
	checkF32(t, "pad", shapes[0], data[0], want)
}

func checkCHLOBroadcast(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a, b := randF32(r, 3, 1), randF32(r, 4)
	shapes, data := invoke(t, dev, module, "chlo", a.arg(), b.arg())
	m, s := f32s{shape: []int{3, 4}}, f32s{shape: []int{3, 4}}
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			p := a.v[i] * b.v[j]
			m.v = append(m.v, p)
			s.v = append(s.v, a.v[i]-p)
		}
	}
	checkF32(t, "chlo.broadcast_multiply", shapes[0], data[0], m)
	checkF32(t, "chlo.broadcast_subtract", shapes[1], data[1], s)
}

func checkStableHLOBatchNorm(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x, scale, offset, mean, vr := randF32(r, 2, 3, 2), randF32(r, 3), randF32(r, 3), randF32(r, 3), randF32(r, 3)
	for i := range vr.v {
		vr.v[i] = float32(math.Abs(float64(vr.v[i])))
	}
	shapes, data := invoke(t, dev, module, "batch_norm", x.arg(), scale.arg(), offset.arg(), mean.arg(), vr.arg())
	want := f32s{shape: []int{2, 3, 2}}
	for i, v := range x.v {
		f := (i / 2) % 3
		sd := math.Sqrt(float64(vr.v[f]) + 1e-3)
		want.v = append(want.v, float32(float64(scale.v[f])*(float64(v)-float64(mean.v[f]))/sd+float64(offset.v[f])))
	}
	checkF32(t, "batch_norm_inference", shapes[0], data[0], want)
}
