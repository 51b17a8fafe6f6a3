package vmgen_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/vm"
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
		{"swap_n", "hal.buffer_view; 2xi32=1 2; hal.buffer_view; 3xi32=3 4 5", []string{"2xi32=1 2", "3xi32=3 4 5", "4"}},
		{"swap_n", "hal.buffer_view; 3xi32=3 4 5; hal.buffer_view; 2xi32=1 2", []string{"2xi32=1 2", "3xi32=3 4 5", "7"}},
		{"splat_wide", "hal.buffer_view; 0xi64=; hal.buffer_view; 0xf64=", []string{"0", "5", "1.5"}},
		{"splat_wide", "hal.buffer_view; 1xi64=-5000000000; hal.buffer_view; 1xf64=0.125", []string{"1", "-5000000000", "0.125"}},
		{"splat_wide", "hal.buffer_view; 7xi64=" + strings.TrimSpace(strings.Repeat("77 ", 7)) + "; hal.buffer_view; 7xf64=" + strings.TrimSpace(strings.Repeat("-2.5 ", 7)), []string{"7", "77", "-2.5"}},
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

// TestSplatWideLarge fills 1000 8-byte elements (ten doubling copies, the
// last partial) and checks every one.
func TestSplatWideLarge(t *testing.T) {
	s := hostSession(t, "tensors.mlir")
	res, err := s.Call("splat_wide", "1000", "-123456789012", "3.25")
	if err != nil {
		t.Fatal(err)
	}
	defer vm.ReleaseValues(res)
	i64 := int64(-123456789012)
	for i, want := range []uint64{uint64(i64), math.Float64bits(3.25)} {
		v, err := halmodule.BufferViewOf(res[i])
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, 8*1000)
		if err := v.Buffer().Read(0, raw); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 1000; k++ {
			if got := binary.LittleEndian.Uint64(raw[8*k:]); got != want {
				t.Fatalf("result %d element %d = %#x, want %#x", i, k, got, want)
			}
		}
	}
}
