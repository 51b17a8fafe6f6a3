package vmgen_test

import (
	"fmt"
	"strings"
	"testing"
)

func collatz(n int64) int64 {
	steps := int64(0)
	for n != 1 {
		if n%2 == 1 {
			n = 3*n + 1
		} else {
			n /= 2
		}
		steps++
	}
	return steps
}

func fib(n int32) int32 {
	a, b := int32(0), int32(1)
	for ; n > 0; n-- {
		a, b = b, a+b
	}
	return a
}

// TestControlFlow runs loops, a switch and an assert written with cf
// branches against the same computations in Go.
func TestControlFlow(t *testing.T) {
	s := hostSession(t, "control.mlir")
	for _, n := range []int64{1, 2, 7, 27, 97} {
		if got, want := call(t, s, "collatz", fmt.Sprint(n)), fmt.Sprintf("i64=%d", collatz(n)); got != want {
			t.Errorf("collatz(%d) = %s, want %s", n, got, want)
		}
	}
	for _, n := range []int32{0, 1, 2, 10, 30} {
		if got, want := call(t, s, "fib", fmt.Sprint(n)), fmt.Sprintf("i32=%d", fib(n)); got != want {
			t.Errorf("fib(%d) = %s, want %s", n, got, want)
		}
	}
	cases := map[int32]int32{1: 10, 5: 20, -3: 30, 0: 0, 4: 4, 77: 77}
	for x, want := range cases {
		if got := call(t, s, "pick", fmt.Sprint(x)); got != fmt.Sprintf("i32=%d", want) {
			t.Errorf("pick(%d) = %s, want i32=%d", x, got, want)
		}
	}
	if got := call(t, s, "checked_sqrt", "3"); got != "f32=9" {
		t.Errorf("checked_sqrt(3) = %s, want f32=9", got)
	}
	if got := call(t, s, "small", "2"); got != "i32=2" {
		t.Errorf("small(2) = %s, want i32=2", got)
	}
	if _, err := s.Run("small", "3"); err == nil || !strings.Contains(err.Error(), "x out of range") || !strings.Contains(err.Error(), "INTERNAL") {
		t.Errorf("small(3): got %v, want INTERNAL with the unreachable's message", err)
	}
	// 7 + 10 on the first branch, 8 on the second.
	for c, want := range map[string]string{"1": "i32=17", "0": "i32=8"} {
		if got := call(t, s, "branch_constant", c); got != want {
			t.Errorf("branch_constant(%s) = %s, want %s", c, got, want)
		}
	}
	_, err := s.Run("checked_sqrt", "-1")
	if err == nil || !strings.Contains(err.Error(), "x must not be negative") || !strings.Contains(err.Error(), "FAILED_PRECONDITION") {
		t.Errorf("checked_sqrt(-1): got %v, want the assert's message", err)
	}
}
