package e2e_test

import (
	"math"
	"math/rand"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// TestLinalgSoftmaxOp runs linalg.softmax along a middle dimension and
// along the last dimension of a dynamically shaped tensor, against a Go
// loop in float64.
func TestLinalgSoftmaxOp(t *testing.T) {
	module := compileLinalg(t, "linalg_softmax_op.mlir")
	r := rand.New(rand.NewSource(12))
	// Softmax along the middle dimension of 5x7x30.
	xs := randF32(r, 5, 7, 30)
	for i := range xs.v {
		xs.v[i] *= 30
	}
	wantSM := f32s{shape: xs.shape, v: make([]float32, len(xs.v))}
	for a := 0; a < 5; a++ {
		for c := 0; c < 30; c++ {
			at := func(b int) int { return (a*7+b)*30 + c }
			m := math.Inf(-1)
			for b := 0; b < 7; b++ {
				m = math.Max(m, float64(xs.v[at(b)]))
			}
			s := 0.0
			for b := 0; b < 7; b++ {
				s += math.Exp(float64(xs.v[at(b)]) - m)
			}
			for b := 0; b < 7; b++ {
				wantSM.v[at(b)] = float32(math.Exp(float64(xs.v[at(b)])-m) / s)
			}
		}
	}
	xdyn := randF32(r, 3, 513)
	wantDyn := f32s{shape: xdyn.shape, v: make([]float32, len(xdyn.v))}
	for a := 0; a < 3; a++ {
		row := xdyn.v[a*513 : (a+1)*513]
		m, s := math.Inf(-1), 0.0
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		for _, v := range row {
			s += math.Exp(float64(v) - m)
		}
		for b, v := range row {
			wantDyn.v[a*513+b] = float32(math.Exp(float64(v)-m) / s)
		}
	}

	forDevices(t, func(t *testing.T, dev rhal.Device) {
		shapes, data := invoke(t, dev, module, "softmax", xs.arg())
		checkF32(t, "softmax", shapes[0], data[0], wantSM)
		shapes, data = invoke(t, dev, module, "softmax_dyn", xdyn.arg())
		checkF32(t, "softmax_dyn", shapes[0], data[0], wantDyn)
	})
}
