package e2e_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// The tensor programs (testdata/tensor_ops.mlir) go through the tensor
// lowering (package conversion/tensortolinalg) and dispatch formation,
// and run on local-sync and local-task; every element of every result is
// checked against a plain Go loop.

func TestTensorOps(t *testing.T) {
	module := compileLinalg(t, "tensor_ops.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		checkTensorOps(t, dev, module, true)
	})
}

// TestGPUTensorOps runs the same programs compiled for the GPU targets.
// Their kernels return without writing when a size check fails rather
// than failing the dispatch, so the slice past the end is not run there.
func TestGPUTensorOps(t *testing.T) {
	forGPUs(t, "tensor_ops.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		checkTensorOps(t, dev, module, false)
	})
}

// checkTensorOps runs every function of tensor_ops.mlir; failing reports
// whether the device fails a dispatch whose size check fails.
func checkTensorOps(t *testing.T, dev rhal.Device, module []byte, failing bool) {
	r := rand.New(rand.NewSource(5))
	x46 := randF32(r, 4, 6)
	x45, y23 := randF32(r, 4, 5), randF32(r, 2, 3)
	x23 := randF32(r, 2, 3)
	for _, n := range []int{0, 1, 7, 130} {
		shapes, data := invoke(t, dev, module, "generate", randF32(r, n).arg())
		if len(shapes[0]) != 2 || shapes[0][0] != int64(n) || shapes[0][1] != 3 {
			t.Fatalf("generate %d: shape %v", n, shapes[0])
		}
		var want []int32
		for i := 0; i < n; i++ {
			for j := 0; j < 3; j++ {
				want = append(want, int32(10*i+j))
			}
		}
		checkI32(t, fmt.Sprintf("generate %d", n), data[0], want)
	}

	shapes, data := invoke(t, dev, module, "from_elements", "f32=-2.25", "f32=7")
	checkF32(t, "from_elements", shapes[0], data[0], f32s{shape: []int{2, 3}, v: []float32{-2.25, 7, 1.5, 7, -2.25, 1.5}})
	checkF32(t, "from_elements rank 0", shapes[1], data[1], f32s{v: []float32{7}})

	shapes, data = invoke(t, dev, module, "extract_origin", x46.arg())
	want := f32s{shape: []int{2, 3}}
	for i := 0; i < 2; i++ {
		want.v = append(want.v, x46.v[i*6:i*6+3]...)
	}
	checkF32(t, "extract_slice", shapes[0], data[0], want)
	checkF32(t, "extract_slice rank-reduced", shapes[1], data[1], f32s{shape: []int{6}, v: x46.v[:6]})
	checkF32(t, "extract_slice whole", shapes[2], data[2], x46)

	// Untouched elements keep the destination's values, and the
	// destination argument itself is not modified.
	shapes, data = invoke(t, dev, module, "insert_origin", x45.arg(), y23.arg())
	ins := f32s{shape: x45.shape, v: append([]float32(nil), x45.v...)}
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			ins.v[i*5+j] = y23.v[i*3+j]
		}
	}
	checkF32(t, "insert_slice", shapes[0], data[0], ins)
	checkF32(t, "insert_slice destination", shapes[1], data[1], x45)

	shapes, data = invoke(t, dev, module, "pad_high", x23.arg(), "f32=-9.5")
	pad := f32s{shape: []int{4, 5}}
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			v := float32(-9.5)
			if i < 2 && j < 3 {
				v = x23.v[i*3+j]
			}
			pad.v = append(pad.v, v)
		}
	}
	checkF32(t, "pad", shapes[0], data[0], pad)

	_, data = invoke(t, dev, module, "pad_index", "3x2xi32=1 2 3 4 5 6")
	var padI []int32
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			v := int32(-(100*i + j))
			if i < 3 && j < 2 {
				v = int32(i*2 + j + 1)
			}
			padI = append(padI, v)
		}
	}
	checkI32(t, "pad with an index-dependent value", data[0], padI)

	d := "9xi32=10 11 12 13 14 15 16 17 18"
	shapes, data = invoke(t, dev, module, "extract_strided", x46.arg(), d)
	want = f32s{shape: []int{2, 3}}
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			want.v = append(want.v, x46.v[(1+2*i)*6+2*j])
		}
	}
	checkF32(t, "strided extract_slice", shapes[0], data[0], want)
	checkF32(t, "rank-reduced extract_slice", shapes[1], data[1], f32s{shape: []int{4}, v: x46.v[19:23]})
	checkI32(t, "dynamic extract_slice", data[2], []int32{12, 13, 14, 15, 16, 17, 18})
	_, data = invoke(t, dev, module, "generate_scaled", randF32(r, 5).arg(), "i32=-3")
	checkI32(t, "generate with a captured scalar", data[0], []int32{0, -3, -6, -9, -12})

	x8 := randF32(r, 8)
	shapes, data = invoke(t, dev, module, "util_slice", x8.arg())
	scaled := f32s{shape: []int{4}}
	for _, v := range x8.v[2:6] {
		scaled.v = append(scaled.v, v*1.5)
	}
	checkF32(t, "util.func slice", shapes[0], data[0], scaled)

	if !failing {
		return
	}
	const past = `dispatch of export 0 ("extract_past_end_linalg_0") failed with status 1`
	if out, err := tryRun(dev, module, "extract_past_end", d); err == nil || !strings.Contains(err.Error(), past) {
		t.Fatalf("extract_past_end: got %q, %v; want an error containing %q", out, err, past)
	}
}

// TestTensorBadInput checks that bad tensor programs, and what the
// lowering cannot do yet, fail to compile with the problem named at its
// file:line:col.
func TestTensorBadInput(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"slice-out-of-bounds", `func.func @f(%x: tensor<4x4xf32>) -> tensor<2x2xf32> {
  %s = tensor.extract_slice %x[3, 0] [2, 2] [1, 1] : tensor<4x4xf32> to tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}`, "bad.mlir:2:8: error: 'tensor.extract_slice' op slice along dimension 0 runs out-of-bounds: 4 >= 4"},
		{"wrong-static-size", `func.func @f(%x: tensor<4xf32>) -> tensor<2x3xf32> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [2, 3] : tensor<4xf32> into tensor<2x3xf32>
  return %e : tensor<2x3xf32>
}`, "bad.mlir:2:8: error: 'tensor.expand_shape' op expected dimension 0 of collapsed type to be static value of 6"},
		{"rank-mismatch", `func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x6xf32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return %c : tensor<2x6xf32>
}`, "bad.mlir:2:8: error: 'tensor.concat' op rank of concatenated inputs must match result rank (input #1 has rank 1, the result 2)"},
		{"dynamic-offset", `func.func @f(%x: tensor<8xf32>, %o: index) -> tensor<2xf32> {
  %s = tensor.extract_slice %x[%o] [2] [1] : tensor<8xf32> to tensor<2xf32>
  return %s : tensor<2xf32>
}`, "bad.mlir:2:8: error: 'tensor.extract_slice' op dynamic offsets and strides (dimension 0) are not supported yet; only sizes may be dynamic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileSource("bad.mlir", []byte(tc.src), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}
