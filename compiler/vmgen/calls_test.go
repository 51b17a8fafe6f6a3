package vmgen_test

import (
	"fmt"
	"testing"

	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	"github.com/goiree/goiree/runtime/tooling/session"
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

// TestImports: a body-less declaration named module.function calls that
// function of another module in the context, as IREE's multiple-module
// programs do; tensors cross as buffer views and opaque refs pass through.
func TestImports(t *testing.T) {
	a := mustEmitSource(t, "mod_a.mlir", []byte(`
module @mod_a {
  func.func @twice(%x: i32) -> i32 {
    %r = arith.addi %x, %x : i32
    return %r : i32
  }
  func.func @first(%t: tensor<?xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %t, %c0 : tensor<?xf32>
    %e = flow.tensor.load %t[%c0] : tensor<?xf32>{%n}
    return %e : f32
  }
  func.func @same(%v: !hal.buffer_view) -> !hal.buffer_view {
    return %v : !hal.buffer_view
  }
}`))
	b := mustEmitSource(t, "main.mlir", []byte(`
func.func private @mod_a.twice(i32) -> i32
func.func private @mod_a.first(tensor<?xf32>) -> f32
func.func private @mod_a.same(!hal.buffer_view) -> !hal.buffer_view
func.func @run(%x: i32, %t: tensor<?xf32>) -> (i32, f32, !hal.buffer_view) {
  %a = call @mod_a.twice(%x) : (i32) -> i32
  %b = call @mod_a.twice(%a) : (i32) -> i32
  %f = call @mod_a.first(%t) : (tensor<?xf32>) -> f32
  %n = util.null : !hal.buffer_view
  %s = call @mod_a.same(%n) : (!hal.buffer_view) -> !hal.buffer_view
  return %b, %f, %s : i32, f32, !hal.buffer_view
}`))
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	s, err := session.Open(dev, a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := call(t, s, "run", "5", "3xf32=2.5 1 0"), "i32=20; f32=2.5; (null)"; got != want {
		t.Errorf("run = %q, want %q", got, want)
	}
}

// TestUnusedPrivateDropped: a private function nothing calls is dropped
// (as IREE's symbol DCE does), so host code it could not lower does not
// stop the module; one that is called is kept.
func TestUnusedPrivateDropped(t *testing.T) {
	s, _ := hostSessionSource(t, "dce.mlir", []byte(`
func.func private @unused(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}
func.func private @used(%x: f32) -> f32 {
  %y = math.sqrt %x : f32
  return %y : f32
}
func.func @f(%x: f32) -> f32 {
  %y = call @used(%x) : (f32) -> f32
  return %y : f32
}`))
	if got := call(t, s, "f", "16"); got != "f32=4" {
		t.Errorf("f(16) = %s, want f32=4", got)
	}
}
