package e2e_test

import (
	"math"
	"math/rand"
	"sort"
	"strconv"
	"sync"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// linalgextOps caches the compiled linalgext_ops.mlir: every test here
// runs one of its functions.
var linalgextOps struct {
	once   sync.Once
	module []byte
	err    error
}

// linalgextModule compiles linalgext_ops.mlir once (skipping without
// clang, as compileLinalg does).
func linalgextModule(t *testing.T) []byte {
	t.Helper()
	tools(t)
	if gpuMode != "" {
		module, err := compile("linalgext_ops.mlir", nil)
		if err != nil {
			t.Fatalf("compiling linalgext_ops.mlir for %s: %v", gpuMode, err)
		}
		return module
	}
	linalgextOps.once.Do(func() { linalgextOps.module, linalgextOps.err = compile("linalgext_ops.mlir", nil) })
	if linalgextOps.err != nil {
		t.Fatalf("compiling linalgext_ops.mlir: %v", linalgextOps.err)
	}
	return linalgextOps.module
}

// packRef packs x (rows×cols) by the definition of linalg.pack: packed
// element (outer..., inner...) is x at outer*tile+inner along each tiled
// dimension (outer dimensions in outerPerm's order), or pad beyond x.
func packRef(x f32s, innerPos, tiles, outerPerm []int, pad float32) f32s {
	n := len(x.shape)
	tileOf := make([]int, n)
	for d := range tileOf {
		tileOf[d] = -1
	}
	for j, d := range innerPos {
		tileOf[d] = j
	}
	outer := make([]int, n)
	for d := 0; d < n; d++ {
		outer[d] = x.shape[d]
		if j := tileOf[d]; j >= 0 {
			outer[d] = (x.shape[d] + tiles[j] - 1) / tiles[j]
		}
	}
	var shape []int
	for _, d := range outerPerm {
		shape = append(shape, outer[d])
	}
	shape = append(shape, tiles...)
	out := f32s{shape: shape}
	idx := make([]int, len(shape))
	for {
		u := make([]int, n)
		in := true
		for q, d := range outerPerm {
			u[d] = idx[q]
			if j := tileOf[d]; j >= 0 {
				u[d] = idx[q]*tiles[j] + idx[n+j]
			}
			in = in && u[d] < x.shape[d]
		}
		if in {
			out.v = append(out.v, x.v[u[0]*x.shape[1]+u[1]])
		} else {
			out.v = append(out.v, pad)
		}
		k := len(idx) - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return out
		}
	}
}

// TestLinalgExtPackUnpack packs with padding and both permutations,
// unpacks back (dropping the padding), and packs a dynamically shaped
// tensor with a dynamic tile, against packRef.
func TestLinalgExtPackUnpack(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(16))
	x := randF32(r, 13, 15)
	packed := packRef(x, []int{1, 0}, []int{5, 4}, []int{1, 0}, -1)
	y := randF32(r, 11, 6)
	packedDyn := packRef(y, []int{0, 1}, []int{3, 4}, []int{0, 1}, 0)
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "pack_pad", x.arg())
		checkF32(t, "pack_pad", shapes[0], data[0], packed)
		shapes, data = invoke(t, dev, module, "unpack_slice", packed.arg())
		checkF32(t, "unpack_slice", shapes[0], data[0], x)
		shapes, data = invoke(t, dev, module, "pack_dyn", y.arg(), "3")
		checkF32(t, "pack_dyn", shapes[0], data[0], packedDyn)
	})
}

// TestLinalgExtAttention runs attention with a float mask against
// softmax(Q K^T * scale + mask) V computed in float64.
func TestLinalgExtAttention(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(17))
	q, k, v, m := randF32(r, 2, 3, 4), randF32(r, 2, 5, 4), randF32(r, 2, 5, 6), randF32(r, 2, 3, 5)
	want := f32s{shape: []int{2, 3, 6}, v: make([]float32, 2*3*6)}
	for b := 0; b < 2; b++ {
		for i := 0; i < 3; i++ {
			s := make([]float64, 5)
			mx := math.Inf(-1)
			for j := range s {
				for l := 0; l < 4; l++ {
					s[j] += float64(q.v[(b*3+i)*4+l]) * float64(k.v[(b*5+j)*4+l])
				}
				s[j] = s[j]*0.5 + float64(m.v[(b*3+i)*5+j])
				mx = math.Max(mx, s[j])
			}
			sum := 0.0
			for j := range s {
				s[j] = math.Exp(s[j] - mx)
				sum += s[j]
			}
			for c := 0; c < 6; c++ {
				acc := 0.0
				for j := range s {
					acc += s[j] / sum * float64(v.v[(b*5+j)*6+c])
				}
				want.v[(b*3+i)*6+c] = float32(acc)
			}
		}
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "attention", q.arg(), k.arg(), v.arg(), m.arg())
		checkF32(t, "attention", shapes[0], data[0], want)
	})
}

// TestLinalgExtOnlineAttention runs one step of online_attention from a
// running state that is not the initial one (so the old maximum, sum and
// accumulator all matter) against the same recurrence in float64.
func TestLinalgExtOnlineAttention(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(18))
	q, k, v := randF32(r, 2, 3, 4), randF32(r, 2, 5, 4), randF32(r, 2, 5, 6)
	acc, max, sum := randF32(r, 2, 3, 6), randF32(r, 2, 3), randF32(r, 2, 3)
	for i := range sum.v {
		sum.v[i] = float32(math.Abs(float64(sum.v[i]))) + 1
	}
	wantAcc := f32s{shape: acc.shape, v: make([]float32, len(acc.v))}
	wantMax := f32s{shape: max.shape, v: make([]float32, len(max.v))}
	wantSum := f32s{shape: sum.shape, v: make([]float32, len(sum.v))}
	for b := 0; b < 2; b++ {
		for i := 0; i < 3; i++ {
			row := b*3 + i
			s := make([]float64, 5)
			mx := float64(max.v[row])
			for j := range s {
				for l := 0; l < 4; l++ {
					s[j] += float64(q.v[row*4+l]) * 0.25 * math.Log2E * float64(k.v[(b*5+j)*4+l])
				}
				mx = math.Max(mx, s[j])
			}
			norm := math.Exp2(float64(max.v[row]) - mx)
			total := float64(sum.v[row]) * norm
			for j := range s {
				s[j] = math.Exp2(s[j] - mx)
				total += s[j]
			}
			wantMax.v[row], wantSum.v[row] = float32(mx), float32(total)
			for c := 0; c < 6; c++ {
				a := float64(acc.v[row*6+c]) * norm
				for j := range s {
					a += s[j] * float64(v.v[(b*5+j)*6+c])
				}
				wantAcc.v[row*6+c] = float32(a)
			}
		}
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "online", q.arg(), k.arg(), v.arg(), acc.arg(), max.arg(), sum.arg())
		checkF32(t, "online acc", shapes[0], data[0], wantAcc)
		checkF32(t, "online max", shapes[1], data[1], wantMax)
		checkF32(t, "online sum", shapes[2], data[2], wantSum)
	})
}

// TestLinalgExtArgCompare runs an argmin along rows with an index base
// and an argmax down columns carrying explicit indices, on values with
// ties (the first best element wins), against Go loops.
func TestLinalgExtArgCompare(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(19))
	x := f32s{shape: []int{4, 9}, v: make([]float32, 36)}
	for i := range x.v {
		x.v[i] = float32(r.Intn(5)) // few distinct values: ties
	}
	const base = 100
	minV, minI := f32s{shape: []int{4}}, make([]int32, 4)
	for i := 0; i < 4; i++ {
		best, at := float32(1e30), 0
		for j := 0; j < 9; j++ {
			if v := x.v[i*9+j]; v < best {
				best, at = v, j
			}
		}
		minV.v = append(minV.v, best)
		minI[i] = int32(base + at)
	}
	y := f32s{shape: []int{9, 4}, v: make([]float32, 36)}
	var yi []int32
	idx := "9x4xi32="
	for i := range y.v {
		y.v[i] = float32(r.Intn(5))
		yi = append(yi, int32(1000+i))
		if i > 0 {
			idx += " "
		}
		idx += strconv.Itoa(1000 + i)
	}
	maxV, maxI := f32s{shape: []int{4}}, make([]int32, 4)
	for c := 0; c < 4; c++ {
		best, at := float32(-1e30), int32(-1)
		for j := 0; j < 9; j++ {
			if v := y.v[j*4+c]; v > best {
				best, at = v, yi[j*4+c]
			}
		}
		maxV.v = append(maxV.v, best)
		maxI[c] = at
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "argmin_base", x.arg(), strconv.Itoa(base))
		checkF32(t, "argmin value", shapes[0], data[0], minV)
		checkI32(t, "argmin index", data[1], minI)
		shapes, data = invoke(t, dev, module, "argmax_merge", y.arg(), idx)
		checkF32(t, "argmax value", shapes[0], data[0], maxV)
		checkI32(t, "argmax index", data[1], maxI)
	})
}

// winogradBT and winogradAT are the F(6x6, 3x3) matrices of Lavin and
// Gray's construction as IREE's tests expect them (B^T, and A^T).
var (
	winogradBT = [8][8]float64{
		{1, 0, -5.25, 0, 5.25, 0, -1, 0},
		{0, 1, 1, -4.25, -4.25, 1, 1, 0},
		{0, -1, 1, 4.25, -4.25, -1, 1, 0},
		{0, 0.5, 0.25, -2.5, -1.25, 2, 1, 0},
		{0, -0.5, 0.25, 2.5, -1.25, -2, 1, 0},
		{0, 2, 4, -2.5, -5, 0.5, 1, 0},
		{0, -2, 4, 2.5, -5, -0.5, 1, 0},
		{0, -1, 0, 5.25, 0, -5.25, 0, 1},
	}
	winogradAT = [6][8]float64{
		{1, 1, 1, 1, 1, 1, 1, 0},
		{0, 1, -1, 2, -2, 0.5, -0.5, 0},
		{0, 1, 1, 4, 4, 0.25, 0.25, 0},
		{0, 1, -1, 8, -8, 0.125, -0.125, 0},
		{0, 1, 1, 16, 16, 0.0625, 0.0625, 0},
		{0, 1, -1, 32, -32, 0.03125, -0.03125, 1},
	}
)

// TestLinalgExtWinograd runs the input transform on an NHWC image that
// needs zero padding to whole tiles and the output transform into an
// NCHW image smaller than its tiles, against B^T d B and A^T m A per tile.
func TestLinalgExtWinograd(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(20))
	x := randF32(r, 2, 10, 14, 3)
	wantIn := f32s{shape: []int{8, 8, 2, 2, 3, 3}, v: make([]float32, 8*8*2*2*3*3)}
	for n := 0; n < 2; n++ {
		for th := 0; th < 2; th++ {
			for tw := 0; tw < 3; tw++ {
				for c := 0; c < 3; c++ {
					d := func(i, j int) float64 {
						y, z := 6*th+i, 6*tw+j
						if y >= 10 || z >= 14 {
							return 0
						}
						return float64(x.v[((n*10+y)*14+z)*3+c])
					}
					for a := 0; a < 8; a++ {
						for b := 0; b < 8; b++ {
							s := 0.0
							for i := 0; i < 8; i++ {
								for j := 0; j < 8; j++ {
									s += winogradBT[a][i] * d(i, j) * winogradBT[b][j]
								}
							}
							wantIn.v[((((a*8+b)*2+n)*2+th)*3+tw)*3+c] = float32(s)
						}
					}
				}
			}
		}
	}
	m := randF32(r, 8, 8, 2, 2, 2, 3)
	wantOut := f32s{shape: []int{2, 3, 10, 11}, v: make([]float32, 2*3*10*11)}
	for n := 0; n < 2; n++ {
		for c := 0; c < 3; c++ {
			for y := 0; y < 10; y++ {
				for z := 0; z < 11; z++ {
					th, tw, p, q := y/6, z/6, y%6, z%6
					s := 0.0
					for a := 0; a < 8; a++ {
						for b := 0; b < 8; b++ {
							s += winogradAT[p][a] * float64(m.v[((((a*8+b)*2+n)*2+th)*2+tw)*3+c]) * winogradAT[q][b]
						}
					}
					wantOut.v[((n*3+c)*10+y)*11+z] = float32(s)
				}
			}
		}
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "winograd_input", x.arg())
		checkF32(t, "winograd_input", shapes[0], data[0], wantIn)
		shapes, data = invoke(t, dev, module, "winograd_output", m.arg())
		checkF32(t, "winograd_output", shapes[0], data[0], wantOut)
	})
}

// TestLinalgExtScan runs an inclusive scan with a non-commutative
// combiner (prev - x) along rows and an exclusive one (prev*x + x) down
// columns from a given accumulator, against Go loops of IREE's
// definition; the accumulator result is the last output.
func TestLinalgExtScan(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(21))
	x, a := randF32(r, 3, 7), randF32(r, 3)
	wantX, wantA := f32s{shape: x.shape, v: make([]float32, 21)}, f32s{shape: a.shape, v: make([]float32, 3)}
	for i := 0; i < 3; i++ {
		prev := x.v[i*7]
		wantX.v[i*7] = prev
		for j := 1; j < 7; j++ {
			prev -= x.v[i*7+j]
			wantX.v[i*7+j] = prev
		}
		wantA.v[i] = prev
	}
	y, b := randF32(r, 7, 3), randF32(r, 3)
	wantY, wantB := f32s{shape: y.shape, v: make([]float32, 21)}, f32s{shape: b.shape, v: make([]float32, 3)}
	for j := 0; j < 3; j++ {
		prev := b.v[j]
		wantY.v[j] = prev
		for i := 1; i < 7; i++ {
			v := y.v[(i-1)*3+j]
			prev = prev*v + v
			wantY.v[i*3+j] = prev
		}
		wantB.v[j] = prev
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "scan_sub", x.arg(), a.arg())
		checkF32(t, "scan_sub", shapes[0], data[0], wantX)
		checkF32(t, "scan_sub accumulator", shapes[1], data[1], wantA)
		shapes, data = invoke(t, dev, module, "scan_exclusive", y.arg(), b.arg())
		checkF32(t, "scan_exclusive", shapes[0], data[0], wantY)
		checkF32(t, "scan_exclusive accumulator", shapes[1], data[1], wantB)
	})
}

// TestLinalgExtSort sorts keys with many ties in descending order along
// rows, carrying values that record each key's position, against Go's
// stable sort: equal keys keep their order.
func TestLinalgExtSort(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(22))
	keys := f32s{shape: []int{3, 9}}
	vals := "3x9xi32="
	for i := 0; i < 27; i++ {
		keys.v = append(keys.v, float32(r.Intn(4)))
		if i > 0 {
			vals += " "
		}
		vals += strconv.Itoa(i)
	}
	wantK := f32s{shape: keys.shape}
	var wantV []int32
	for row := 0; row < 3; row++ {
		idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
		sort.SliceStable(idx, func(a, b int) bool { return keys.v[row*9+idx[a]] > keys.v[row*9+idx[b]] })
		for _, j := range idx {
			wantK.v = append(wantK.v, keys.v[row*9+j])
			wantV = append(wantV, int32(row*9+j))
		}
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "sort_pairs", keys.arg(), vals)
		checkF32(t, "sorted keys", shapes[0], data[0], wantK)
		checkI32(t, "sorted values", data[1], wantV)
	})
}

// topkInsert is the scalar definition of iree_linalg_ext.topk: each input
// element, in order, is carried through the k outputs, displacing a
// worse value (and a larger index among equal values).
func topkInsert(vals []float32, idx []int32, ov []float32, oi []int32, before func(a, b float32) bool) {
	for n := range vals {
		cv, ci := vals[n], idx[n]
		for k := range ov {
			f, r := before(cv, ov[k]), before(ov[k], cv)
			takeIdx := f || (f == r && ci < oi[k])
			if f {
				cv, ov[k] = ov[k], cv
			}
			if takeIdx {
				ci, oi[k] = oi[k], ci
			}
		}
	}
}

// TestLinalgExtTopK merges rows (with ties and their own indices) into
// sorted outputs that already hold candidates (argmin-style, ascending),
// and takes the top 5 values of rows without indices (topk_v2), against
// the insertion definition.
func TestLinalgExtTopK(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(23))
	x := f32s{shape: []int{3, 12}}
	xi := "3x12xi32="
	var idx []int32
	for i := 0; i < 36; i++ {
		x.v = append(x.v, float32(r.Intn(6)))
		idx = append(idx, int32(100+r.Intn(50)))
		if i > 0 {
			xi += " "
		}
		xi += strconv.Itoa(int(idx[i]))
	}
	ov := f32s{shape: []int{3, 4}, v: []float32{0, 1, 2, 9, 1, 1, 3, 9, 0.5, 2, 9, 9}}
	oiv := []int32{7, 120, 5, 3, 110, 130, 2, 1, 4, 6, 8, 9}
	oi := "3x4xi32="
	for i, v := range oiv {
		if i > 0 {
			oi += " "
		}
		oi += strconv.Itoa(int(v))
	}
	wantV, wantI := f32s{shape: []int{3, 4}}, []int32(nil)
	for row := 0; row < 3; row++ {
		v, i := append([]float32(nil), ov.v[row*4:row*4+4]...), append([]int32(nil), oiv[row*4:row*4+4]...)
		topkInsert(x.v[row*12:row*12+12], idx[row*12:row*12+12], v, i, func(a, b float32) bool { return a < b })
		wantV.v, wantI = append(wantV.v, v...), append(wantI, i...)
	}
	wantTop := f32s{shape: []int{3, 5}}
	for row := 0; row < 3; row++ {
		v, i := make([]float32, 5), make([]int32, 5)
		for k := range v {
			v[k] = -1e30
		}
		pos := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
		topkInsert(x.v[row*12:row*12+12], pos, v, i, func(a, b float32) bool { return a > b })
		wantTop.v = append(wantTop.v, v...)
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "topk_merge", x.arg(), xi, ov.arg(), oi)
		checkF32(t, "topk values", shapes[0], data[0], wantV)
		checkI32(t, "topk indices", data[1], wantI)
		shapes, data = invoke(t, dev, module, "topk_values", x.arg())
		checkF32(t, "topk_v2 values", shapes[0], data[0], wantTop)
	})
}

// TestLinalgExtGatherScatter gathers rows by index under a mask (masked
// rows keep the output's values), and scatters rows into a 3-D original
// through a swapped dimension_map with repeated indices, so updates to
// one place add up, against Go loops.
func TestLinalgExtGatherScatter(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(24))
	src, out := randF32(r, 6, 5), randF32(r, 4, 5)
	rows, mask := []int{5, 0, 3, 3}, []bool{true, false, true, true}
	want := f32s{shape: out.shape, v: append([]float32(nil), out.v...)}
	for b, row := range rows {
		if mask[b] {
			copy(want.v[b*5:b*5+5], src.v[row*5:row*5+5])
		}
	}
	upd, orig := randF32(r, 7, 3), randF32(r, 4, 5, 3)
	pairs := [][2]int{{1, 2}, {4, 0}, {1, 2}, {0, 3}, {4, 0}, {2, 1}, {1, 2}} // (index 0, index 1): original[index 1][index 0]
	wantS := f32s{shape: orig.shape, v: append([]float32(nil), orig.v...)}
	idx := "7x2xi32="
	for u, p := range pairs {
		for c := 0; c < 3; c++ {
			wantS.v[(p[1]*5+p[0])*3+c] += upd.v[u*3+c]
		}
		if u > 0 {
			idx += " "
		}
		idx += strconv.Itoa(p[0]) + " " + strconv.Itoa(p[1])
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "gather_rows", src.arg(), "4x1xi32=5 0 3 3", "4xi1=1 0 1 1", out.arg())
		checkF32(t, "gather_rows", shapes[0], data[0], want)
		shapes, data = invoke(t, dev, module, "scatter_add", upd.arg(), idx, orig.arg())
		checkF32(t, "scatter_add", shapes[0], data[0], wantS)
	})
}

// TestLinalgExtReverse reverses a dynamically sized and a static
// dimension of a 3-D tensor, against a Go loop.
func TestLinalgExtReverse(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(25))
	x := randF32(r, 4, 7, 3)
	want := f32s{shape: x.shape, v: make([]float32, len(x.v))}
	for i := 0; i < 4; i++ {
		for j := 0; j < 7; j++ {
			for k := 0; k < 3; k++ {
				want.v[(i*7+j)*3+k] = x.v[(i*7+6-j)*3+2-k]
			}
		}
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "reverse", x.arg())
		checkF32(t, "reverse", shapes[0], data[0], want)
	})
}

// TestLinalgElementwiseNamed chains linalg.sub, square, exp, max and
// negf, against a Go loop.
func TestLinalgElementwiseNamed(t *testing.T) {
	module := linalgextModule(t)
	r := rand.New(rand.NewSource(26))
	a, b := randF32(r, 3, 5), randF32(r, 3, 5)
	want := f32s{shape: a.shape}
	for i := range a.v {
		d := float64(a.v[i] - b.v[i])
		want.v = append(want.v, float32(-math.Max(d*d, math.Exp(float64(b.v[i])))))
	}
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "elementwise", a.arg(), b.arg())
		checkF32(t, "elementwise", shapes[0], data[0], want)
	})
}
