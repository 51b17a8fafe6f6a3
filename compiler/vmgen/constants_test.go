package vmgen_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// TestLargeConstant: a constant of 8 KiB is uploaded once per context and
// kept: calls return its values, later calls allocate nothing for it, and
// a store into it goes to a copy, leaving the constant intact.
func TestLargeConstant(t *testing.T) {
	const n = 2048
	raw := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(i)/2))
	}
	src := fmt.Sprintf(`
func.func @big(%%i: index, %%v: f32) -> (f32, f32) {
  %%k = arith.constant dense<"0x%X"> : tensor<%dxf32>
  %%e = flow.tensor.load %%k[%%i] : tensor<%dxf32>
  %%s = flow.tensor.store %%v, %%k[%%i] : tensor<%dxf32>
  %%e2 = flow.tensor.load %%s[%%i] : tensor<%dxf32>
  return %%e, %%e2 : f32, f32
}`, raw, n, n, n, n)
	s, dev := hostSessionSource(t, "big.mlir", []byte(src))
	allocated := func() int64 {
		st := dev.Allocator().Statistics()
		return st.HostBytesAllocated + st.DeviceBytesAllocated
	}
	var perCall []int64
	for call, i := range []int{7, 2047, 0} {
		before := allocated()
		res, err := s.Call("big", fmt.Sprint(i), "-1")
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(res[0].F32(), res[1].F32())
		if want := fmt.Sprint(float32(i)/2, float32(-1)); got != want {
			t.Errorf("call %d: big(%d) = %s, want %s", call, i, got, want)
		}
		if err := vm.ReleaseValues(res); err != nil {
			t.Fatal(err)
		}
		perCall = append(perCall, allocated()-before)
	}
	// The first call allocates the constant and the stored copy, later
	// ones only the copy.
	class := rhal.SizeClass(4 * n)
	if perCall[0] != 2*class || perCall[1] != class || perCall[2] != class {
		t.Errorf("bytes allocated per call = %v, want %d then %d", perCall, 2*class, class)
	}
	if strings.Count(string(mustEmitSource(t, "big.mlir", []byte(src))), string(raw[:64])) != 1 {
		t.Errorf("the constant's bytes are not in the module exactly once")
	}
}
