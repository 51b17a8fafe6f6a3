package e2e_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// TestTensorHostOps runs the tensor ops that become flow.tensor host ops
// (testdata/tensor_host.mlir) on local-sync and local-task, against the
// inputs rearranged by plain Go.
func TestTensorHostOps(t *testing.T) {
	module := compileLinalg(t, "tensor_host.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) {
		checkTensorHostOps(t, dev, module)
	})
}

// TestGPUTensorHostOps runs the same programs compiled for the GPU
// targets: the host ops act on device buffers there.
func TestGPUTensorHostOps(t *testing.T) {
	forGPUs(t, "tensor_host.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		checkTensorHostOps(t, dev, module)
	})
}

func checkTensorHostOps(t *testing.T, dev rhal.Device, module []byte) {
	r := rand.New(rand.NewSource(6))
	x := randF32(r, 2, 6)
	shapes, data := invoke(t, dev, module, "reshape", x.arg())
	checkF32(t, "expand_shape", shapes[0], data[0], f32s{shape: []int{3, 4}, v: x.v})
	checkF32(t, "collapse_shape", shapes[1], data[1], f32s{shape: []int{12}, v: x.v})

	for _, n := range []int{0, 1, 5} {
		xd := randF32(r, n, 6)
		shapes, data = invoke(t, dev, module, "reshape_dynamic", xd.arg())
		checkF32(t, "dynamic expand_shape", shapes[0], data[0], f32s{shape: []int{n, 2, 3}, v: xd.v})
		checkF32(t, "expand_shape without output_shape", shapes[1], data[1], f32s{shape: []int{n, 3, 2}, v: xd.v})
		checkF32(t, "dynamic collapse_shape", shapes[2], data[2], f32s{shape: []int{n * 6}, v: xd.v})
	}

	x23 := randF32(r, 2, 3)
	shapes, data = invoke(t, dev, module, "cast", x23.arg())
	checkF32(t, "cast", shapes[0], data[0], x23)
	const bad = "dimension 0 of the 'tensor<?x3xf32>' operand is not 2"
	if out, err := tryRun(dev, module, "cast", randF32(r, 3, 3).arg()); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("cast of a 3x3 tensor to 2x3: got %q, %v; want an error containing %q", out, err, bad)
	}

	_, data = invoke(t, dev, module, "bitcast", "3xi32=1065353216 -1073741824 2139095040")
	checkF32(t, "bitcast", rhal.Shape{3}, data[0], f32s{shape: []int{3}, v: []float32{1, -2, float32(math.Inf(1))}})

	x34 := randF32(r, 3, 4)
	shapes, data = invoke(t, dev, module, "extract_insert", x34.arg(), "f32=42.5")
	checkF32(t, "extract", shapes[0], data[0], f32s{v: x34.v[2*4+3 : 2*4+4]})
	ins := f32s{shape: x34.shape, v: append([]float32(nil), x34.v...)}
	ins.v[1*4+2] = 42.5
	checkF32(t, "insert", shapes[1], data[1], ins)
	checkF32(t, "insert's destination", shapes[2], data[2], x34)

	for _, n := range []int{0, 3} {
		shapes, data = invoke(t, dev, module, "splat", "i32=-7", randF32(r, n).arg())
		checkI32(t, "splat", data[0], []int32{-7, -7, -7, -7, -7, -7})
		var want []int32
		for i := 0; i < 2*n; i++ {
			want = append(want, -7)
		}
		if len(shapes[1]) != 2 || shapes[1][0] != int64(n) || shapes[1][1] != 2 {
			t.Fatalf("dynamic splat: shape %v", shapes[1])
		}
		checkI32(t, "dynamic splat", data[1], want)
	}

	_, data = invoke(t, dev, module, "wide_elements", "i64=-5000000000", "i64=7")
	wide := []int64{-5000000000, 7, 7, -5000000000}
	if len(data[0]) != 8*len(wide) {
		t.Fatalf("wide_elements: %d bytes", len(data[0]))
	}
	for i, w := range wide {
		if g := int64(binary.LittleEndian.Uint64(data[0][8*i:])); g != w {
			t.Fatalf("wide_elements: element %d = %d, want %d", i, g, w)
		}
	}
}
