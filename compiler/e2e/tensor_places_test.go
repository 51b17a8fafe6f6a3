package e2e_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// TestTensorPlaces runs slices written at an offset
// (testdata/tensor_places.mlir) against plain Go loops: the elements
// outside each slice keep the destination's values.
func TestTensorPlaces(t *testing.T) {
	module := compileLinalg(t, "tensor_places.mlir")
	r := rand.New(rand.NewSource(7))
	x, y := randF32(r, 4, 6), randF32(r, 2, 2)
	x23 := randF32(r, 2, 3)
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "insert_strided", x.arg(), y.arg())
		want := f32s{shape: x.shape, v: append([]float32(nil), x.v...)}
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				want.v[(1+2*i)*6+2+3*j] = y.v[i*2+j]
			}
		}
		checkF32(t, "strided insert_slice", shapes[0], data[0], want)
		checkF32(t, "insert_slice destination", shapes[1], data[1], x)

		_, data = invoke(t, dev, module, "insert_row", "3x4xi32=0 1 2 3 4 5 6 7 8 9 10 11", "4xi32=-1 -2 -3 -4")
		checkI32(t, "rank-reduced insert_slice", data[0], []int32{0, 1, 2, 3, 4, 5, 6, 7, -1, -2, -3, -4})

		_, data = invoke(t, dev, module, "concat", "2x3xi32=1 2 3 -1 -2 -3", "2x5xi32=4 5 6 7 8 -4 -5 -6 -7 -8", "1x8xi32=9 9 9 9 9 9 9 9")
		checkI32(t, "concat", data[0], []int32{1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, -5, -6, -7, -8, 9, 9, 9, 9, 9, 9, 9, 9})

		shapes, data = invoke(t, dev, module, "pad", x23.arg(), "f32=0.25")
		pad := f32s{shape: []int{5, 4}}
		for i := 0; i < 5; i++ {
			for j := 0; j < 4; j++ {
				v := float32(0.25)
				if i >= 1 && i < 3 && j < 3 {
					v = x23.v[(i-1)*3+j]
				}
				pad.v = append(pad.v, v)
			}
		}
		checkF32(t, "pad", shapes[0], data[0], pad)

		for _, n := range []int{0, 1, 4} {
			in := "0x3xi32"
			var want []int32
			var vals []string
			for i := 0; i < n; i++ {
				for j := 0; j < 3; j++ {
					vals = append(vals, fmt.Sprint(10*i+j))
				}
			}
			if n > 0 {
				in = fmt.Sprintf("%dx3xi32=%s", n, strings.Join(vals, " "))
			}
			for i := 0; i <= n; i++ {
				for j := 0; j < 5; j++ {
					v := int32(7)
					if i < n && j >= 2 {
						v = int32(10*i + j - 2)
					}
					want = append(want, v)
				}
			}
			shapes, data = invoke(t, dev, module, "pad_dynamic", in)
			if shapes[0][0] != int64(n+1) || shapes[0][1] != 5 {
				t.Fatalf("pad_dynamic %d: shape %v", n, shapes[0])
			}
			checkI32(t, fmt.Sprintf("pad_dynamic %d", n), data[0], want)
		}
		// Inserting 2 rows needs a destination of at least 2 rows.
		_, data = invoke(t, dev, module, "insert_dynamic", "3x4xi32=0 1 2 3 4 5 6 7 8 9 10 11", "2x2xi32=-1 -2 -3 -4")
		checkI32(t, "insert_dynamic", data[0], []int32{0, -1, -2, 3, 4, -3, -4, 7, 8, 9, 10, 11})
		const short = `dispatch of export 0 ("insert_dynamic_linalg_0") failed with status 1`
		if out, err := tryRun(dev, module, "insert_dynamic", "1x4xi32=0 1 2 3", "2x2xi32=-1 -2 -3 -4"); failsDispatches() && (err == nil || !strings.Contains(err.Error(), short)) {
			t.Fatalf("insert_dynamic into 1 row: got %q, %v; want an error containing %q", out, err, short)
		}
	})
}
