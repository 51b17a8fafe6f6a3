package vmgen_test

import (
	"strings"
	"testing"
)

// TestFlowTensorOps runs the host flow.tensor ops against values worked
// out by hand from the inputs.
func TestFlowTensorOps(t *testing.T) {
	s := hostSession(t, "tensors.mlir")
	for _, c := range []struct {
		fn, want string
		in       []string
	}{
		{"sum2d", "f32=21", []string{"2x3xf32=[1 2 3][4 5 6]"}},
		{"poke", "hal.buffer_view; 4xi32=1 2 3 4; hal.buffer_view; 4xi32=1 2 -9 4", []string{"4xi32=1 2 3 4", "2", "-9"}},
		{"build", "hal.buffer_view; 5xi16=-6 -7 -7 -7 -7", []string{"5", "-7"}},
		{"views", "hal.buffer_view; 3x2xf32=[1 2][3 4][5 6]; hal.buffer_view; 6xi32=1065353216 1073741824 1077936128 1082130432 1084227584 1086324736", []string{"2x3xf32=[1 2 3][4 5 6]"}},
		{"wide", "i64=-5000000000; f64=0.25; hal.buffer_view; 3xi64=7 -5000000000 -5000000000", []string{"3xi64=7 -5000000000 9", "2xf64=1.5 0.25"}},
		{"consts", "hal.buffer_view; 2x2xi8=[1 -2][3 -4]; i32=3", []string{"1"}},
		{"pick", "hal.buffer_view; 2xi32=1 2; i32=1", []string{"1", "2xi32=1 2", "3xi32=7 8 9"}},
		{"pick", "hal.buffer_view; 3xi32=7 8 9; i32=7", []string{"0", "2xi32=1 2", "3xi32=7 8 9"}},
	} {
		if got := call(t, s, c.fn, c.in...); got != c.want {
			t.Errorf("%s(%s) = %q, want %q", c.fn, strings.Join(c.in, ", "), got, c.want)
		}
	}
	if _, err := s.Run("poke", "4xi32=1 2 3 4", "4", "0"); err == nil || !strings.Contains(err.Error(), "index out of range for tensor<?xi32>") {
		t.Errorf("poke at 4 of 4: got %v, want an out-of-range failure", err)
	}
}
