package e2e_test

import (
	"math/rand"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// runEncodings checks testdata/encodings.mlir against Go loops over the
// same values without encodings; @region also checks that a program's
// dispatch region around a linalg op is dissolved into its function.
func runEncodings(t *testing.T, dev rhal.Device, module []byte) {
	r := rand.New(rand.NewSource(17))
	a, b := randF32(r, 5, 7), randF32(r, 7, 3)
	shapes, data := invoke(t, dev, module, "matmul", a.arg(), b.arg())
	checkF32(t, "matmul", shapes[0], data[0], matmulRef(a, b, 1))

	x := randF32(r, 6, 4)
	want := f32s{shape: []int{6, 4}}
	for _, v := range x.v {
		want.v = append(want.v, v+v)
	}
	shapes, data = invoke(t, dev, module, "dynamic_rows", x.arg())
	checkF32(t, "dynamic_rows", shapes[0], data[0], want)

	y := randF32(r, 9, 4)
	want = f32s{shape: []int{9, 4}}
	for _, v := range y.v {
		want.v = append(want.v, v*3-1)
	}
	shapes, data = invoke(t, dev, module, "region", y.arg())
	checkF32(t, "region", shapes[0], data[0], want)
}

func TestEncodingsDropped(t *testing.T) {
	module := compileLinalg(t, "encodings.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) { runEncodings(t, dev, module) })
}

func TestGPUEncodingsDropped(t *testing.T) {
	forGPUs(t, "encodings.mlir", runEncodings)
}
