package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// TestGPULoopNests runs testdata/gpu_loopnest.mlir on every GPU device:
// narrow integer results (on Vulkan, packed in words that invocations and
// workgroups share, so each element must be written alone), row
// reductions that a workgroup's threads share, at lengths below, at and
// above the workgroup sizes and empty, and matmul-shaped kernels tiled in
// shared memory with partial blocks in every direction.
func TestGPULoopNests(t *testing.T) {
	forGPUs(t, "gpu_loopnest.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		t.Run("narrow", func(t *testing.T) { testNarrow(t, dev, module) })
		t.Run("rows", func(t *testing.T) { testRows(t, dev, module) })
		t.Run("tiled", func(t *testing.T) { testTiled(t, dev, module) })
	})
}

// testNarrow checks @narrow: trunci to i8, an i16 sum that wraps plus the
// loop index, a signed compare to i1 and an unsigned i8 division.
func testNarrow(t *testing.T, dev rhal.Device, module []byte) {
	x := make([]int32, 37)
	y := make([]int16, 37)
	var xs, ys []string
	for i := range x {
		x[i] = int32(i*i*977 - 30000)
		y[i] = int16(i*1777 - 32000)
		xs = append(xs, fmt.Sprint(x[i]))
		ys = append(ys, fmt.Sprint(y[i]))
	}
	k := int8(-7) // 249 as an unsigned i8
	_, data := invoke(t, dev, module, "narrow", "37xi32="+strings.Join(xs, " "), "37xi16="+strings.Join(ys, " "), fmt.Sprintf("i32=%d", k))
	for i := range x {
		t8 := int8(x[i])
		d := y[i] + y[i] + int16(i)
		lt := x[i] < int32(y[i])
		q := uint8(t8) / uint8(k)
		if g := int8(data[0][i]); g != t8 {
			t.Errorf("trunci[%d] = %d, want %d", i, g, t8)
		}
		if g := int16(binary.LittleEndian.Uint16(data[1][2*i:])); g != d {
			t.Errorf("addi[%d] = %d, want %d", i, g, d)
		}
		if g := data[2][i] != 0; g != lt {
			t.Errorf("cmpi[%d] = %v, want %v", i, g, lt)
		}
		if g := data[3][i]; g != q {
			t.Errorf("divui[%d] = %d, want %d", i, g, q)
		}
	}
}

// testRows checks @rows against Go loops. The f32 inputs are multiples of
// 1/8 small enough that every order of summation is exact.
func testRows(t *testing.T, dev rhal.Device, module []byte) {
	for _, sz := range [][2]int{{3, 1000}, {5, 127}, {2, 128}, {4, 129}, {70, 3}, {2, 0}, {0, 5}} {
		rows, cols := sz[0], sz[1]
		var xs, ys []string
		sums := make([]float32, rows)
		maxs := make([]int32, rows)
		for i := 0; i < rows; i++ {
			sums[i], maxs[i] = 0.5, -5
			for j := 0; j < cols; j++ {
				x := float32((i*31+j*17)%41-20) / 8
				y := int32((i*7919+j*104729)%20011 - 10000)
				sums[i] += x
				maxs[i] = max(maxs[i], y)
				xs = append(xs, fmt.Sprint(x))
				ys = append(ys, fmt.Sprint(y))
			}
		}
		shape := fmt.Sprintf("%dx%dx", rows, cols)
		_, data := invoke(t, dev, module, "rows", shape+"f32="+strings.Join(xs, " "), shape+"i32="+strings.Join(ys, " "))
		for i := 0; i < rows; i++ {
			if g := math.Float32frombits(binary.LittleEndian.Uint32(data[0][4*i:])); g != sums[i] {
				t.Errorf("rows %v: sum[%d] = %v, want %v", sz, i, g, sums[i])
			}
			if g := int32(binary.LittleEndian.Uint32(data[1][4*i:])); g != maxs[i] {
				t.Errorf("rows %v: max[%d] = %v, want %v", sz, i, g, maxs[i])
			}
		}
	}
}

// testTiled checks @tiled against Go loops; the f32 inputs are small
// multiples of 1/4, so every product and sum is exact.
func testTiled(t *testing.T, dev rhal.Device, module []byte) {
	val := func(i, mod int) float32 { return float32(i*7919%mod-mod/2) / 4 }
	tensor := func(shape string, n, mod int) ([]float32, string) {
		v := make([]float32, n)
		s := make([]string, n)
		for i := range v {
			v[i] = val(i+mod, mod)
			s[i] = fmt.Sprint(v[i])
		}
		return v, shape + "xf32=" + strings.Join(s, " ")
	}
	a, as := tensor("2x45x70", 2*45*70, 13)
	b, bs := tensor("2x70x67", 2*70*67, 11)
	c, cs := tensor("2050x20", 2050*20, 9)
	d, ds := tensor("20x70", 20*70, 7)
	p := make([]int32, 9*33)
	q := make([]int32, 33*130)
	var ps, qs []string
	for i := range p {
		p[i] = int32(i*7919%2001 - 1000)
		ps = append(ps, fmt.Sprint(p[i]))
	}
	for i := range q {
		q[i] = int32(i*104729%3001 - 1500)
		qs = append(qs, fmt.Sprint(q[i]))
	}
	_, data := invoke(t, dev, module, "tiled", as, bs, cs, ds, "9x33xi32="+strings.Join(ps, " "), "33x130xi32="+strings.Join(qs, " "))
	f32At := func(r, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(data[r][4*i:])) }
	bad := 0
	for n := 0; n < 2; n++ {
		for i := 0; i < 45; i++ {
			for j := 0; j < 67; j++ {
				var acc float32
				for l := 0; l < 70; l++ {
					acc += a[n*45*70+i*70+l] * b[n*70*67+l*67+j]
				}
				if g := f32At(0, n*45*67+i*67+j); g != acc && bad < 5 {
					bad++
					t.Errorf("batch_matmul[%d,%d,%d] = %v, want %v", n, i, j, g, acc)
				}
			}
		}
	}
	for i := 0; i < 2050; i++ {
		for j := 0; j < 70; j++ {
			var acc float32
			for l := 0; l < 20; l++ {
				acc += c[i*20+l] * d[l*70+j]
			}
			if g := f32At(1, i*70+j); g != acc && bad < 10 {
				bad++
				t.Errorf("matmul[%d,%d] = %v, want %v", i, j, g, acc)
			}
		}
	}
	for i := 0; i < 9; i++ {
		for j := 0; j < 130; j++ {
			acc := int32(-100000)
			for l := 0; l < 33; l++ {
				acc = max(acc, p[i*33+l]+q[l*130+j])
			}
			if g := int32(binary.LittleEndian.Uint32(data[2][4*(i*130+j):])); g != acc && bad < 15 {
				bad++
				t.Errorf("max-plus[%d,%d] = %v, want %v", i, j, g, acc)
			}
		}
	}
}
