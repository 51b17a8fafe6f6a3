package vmgen_test

import (
	"fmt"
	"testing"
)

// TestGlobals checks IREE's globals behaviour: a later call sees what an
// earlier one stored, initial values and the initializer have run before
// the first call, and a new context starts from the initial values again.
func TestGlobals(t *testing.T) {
	for c := 0; c < 2; c++ {
		s := hostSession(t, "globals.mlir")
		for i := 1; i <= 3; i++ {
			if got, want := call(t, s, "next"), fmt.Sprintf("i32=%d", i); got != want {
				t.Errorf("context %d: next() call %d = %s, want %s", c, i, got, want)
			}
		}
		if got, want := call(t, s, "scalars"), "f32=2.5; i64=12345678901"; got != want {
			t.Errorf("scalars() = %s, want %s", got, want)
		}
		if got, want := call(t, s, "get_table"), "hal.buffer_view; 2x2xi32=[1 2][3 4]"; got != want {
			t.Errorf("get_table() = %q, want %q", got, want)
		}
		prev := "3xf32=1 2 3"
		for _, in := range []string{"3xf32=4 5 6", "3xf32=7 8 9", "3xf32=-1 0 1"} {
			if got, want := call(t, s, "swap", in), "hal.buffer_view; "+prev; got != want {
				t.Errorf("swap(%s) = %q, want %q", in, got, want)
			}
			prev = in
		}
	}
}
