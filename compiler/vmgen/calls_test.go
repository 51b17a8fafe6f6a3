package vmgen_test

import (
	"fmt"
	"testing"
)

// TestCalls runs a chain of calls to private and public functions with
// several results against Go.
func TestCalls(t *testing.T) {
	s := hostSession(t, "calls.mlir")
	for _, c := range [][2]int32{{7, 5}, {-9, 4}, {100, 7}, {0, 3}} {
		x, y := c[0], c[1]
		sq := x * x
		q, r := sq/y, sq%y
		sum := int32(0)
		for i := int32(0); i < x; i++ {
			sum += i
		}
		want := fmt.Sprintf("i32=%d; i32=%d; i32=%d", q, r, q*q+sum)
		if got := call(t, s, "chain", fmt.Sprint(x), fmt.Sprint(y)); got != want {
			t.Errorf("chain(%d, %d) = %s, want %s", x, y, got, want)
		}
	}
	if got := call(t, s, "sum_below", "5"); got != "i32=10" {
		t.Errorf("sum_below(5) = %s, want i32=10", got)
	}
	if _, err := s.Lookup("square"); err == nil {
		t.Errorf("private function @square is exported")
	}
}
