package e2e_test

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// TestStableHLOPretty compiles testdata/stablehlo_pretty.mlir, StableHLO
// written in the custom forms JAX prints, through llvm-cpu and checks each
// result against a plain Go loop.
func TestStableHLOPretty(t *testing.T) {
	module := compileLinalg(t, "stablehlo_pretty.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		r := rand.New(rand.NewSource(17))
		checkPrettyMLP(t, dev, module, r)
		checkPrettyShapes(t, dev, module, r)
		checkGatherRow(t, dev, module, r)
	})
}

func checkPrettyMLP(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	const n, in, hid, out = 4, 8, 16, 3
	x, w1, b1, w2 := randF32(r, n, in), randF32(r, in, hid), randF32(r, hid), randF32(r, hid, out)
	shapes, data := invoke(t, dev, module, "mlp", x.arg(), w1.arg(), b1.arg(), w2.arg())
	h := f32s{shape: []int{n, hid}, v: make([]float32, n*hid)}
	for i := 0; i < n; i++ {
		for j := 0; j < hid; j++ {
			var acc float32
			for k := 0; k < in; k++ {
				acc += x.v[i*in+k] * w1.v[k*hid+j]
			}
			h.v[i*hid+j] = float32(math.Max(float64(acc+b1.v[j]), 0))
		}
	}
	y := matmulRef(h, w2, 0)
	sum := f32s{shape: []int{n}, v: make([]float32, n)}
	maxAbs := f32s{shape: []int{n}, v: make([]float32, n)}
	for i := 0; i < n; i++ {
		for j := 0; j < out; j++ {
			v := y.v[i*out+j]
			sum.v[i] += v
			maxAbs.v[i] = float32(math.Max(float64(maxAbs.v[i]), math.Abs(float64(v))))
		}
	}
	checkF32Rel(t, "mlp output", shapes[0], data[0], y, 1e-5)
	checkF32Rel(t, "mlp row sums", shapes[1], data[1], sum, 1e-5)
	checkF32(t, "mlp row max |y|", shapes[2], data[2], maxAbs)
}

func checkPrettyShapes(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x := randF32(r, 2, 3)
	shapes, data := invoke(t, dev, module, "shapes", x.arg())
	// s[i][0] = transpose(x)[2i][1] = x[1][2i]; c[i] = [s[i], s[i]];
	// r = c with rows swapped.
	var rv [2][2]float32
	for i := 0; i < 2; i++ {
		v := x.v[1*3+2*(1-i)]
		rv[i] = [2]float32{v, v}
	}
	// Pad: one row of -1 on top and two columns of -1 on the right.
	want := f32s{shape: []int{3, 4}, v: make([]float32, 12)}
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			p := float32(-1)
			if i > 0 && j < 2 {
				p = rv[i-1][j]
			}
			if f := float32(j); p > f {
				want.v[i*4+j] = p
			} else {
				want.v[i*4+j] = f
			}
		}
	}
	checkF32(t, "shapes", shapes[0], data[0], want)
}

func checkGatherRow(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	x := randF32(r, 5, 3)
	for _, i := range []int{2, 0, 7} {
		shapes, data := invoke(t, dev, module, "gather_row", x.arg(), "i64="+strconv.Itoa(i))
		row := min(i, 4) // gather clamps the start so the slice fits
		want := f32s{shape: []int{3}, v: append([]float32(nil), x.v[row*3:row*3+3]...)}
		checkF32(t, "gather_row "+strconv.Itoa(i), shapes[0], data[0], want)
	}
}

// TestStableHLOPrettyReversal checks that a convolution whose custom form
// reverses a window dimension (window = {reverse = [true, false]}, an
// array<i1> attribute) is refused, not lowered as if unreversed.
func TestStableHLOPrettyReversal(t *testing.T) {
	tools(t)
	src := `func.func @f(%x: tensor<1x8x8x1xf32>, %k: tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32> {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {reverse = [true, false]} : (tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32>
  return %r : tensor<1x6x6x1xf32>
}`
	_, err := compileSource("reversal.mlir", []byte(src), nil)
	const want = "reversal.mlir:2:8: error: 'stablehlo.convolution' op window_reversal is not supported yet"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error containing %q", err, want)
	}
}
