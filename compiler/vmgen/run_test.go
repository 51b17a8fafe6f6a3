package vmgen_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

// TestRepeatedCalls runs the emitted reuse.mlir (x -> 8x through three
// dispatches) several times in each of two contexts of one module, with a
// different length each call: the first call of a context resolves the
// device, allocator and executable into its globals and later calls use
// them.
func TestRepeatedCalls(t *testing.T) {
	needTools(t)
	m, err := vm.LoadBytecodeModule(emit(t, "reuse.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	for c := 0; c < 2; c++ {
		s, err := session.New(dev, []*vm.BytecodeModule{m}, session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fn, err := s.Lookup("octuple")
		if err != nil {
			t.Fatal(err)
		}
		for call, n := range []int{5, 2048, 1} {
			buf, err := dev.Allocator().AllocateBuffer(hal.BufferParams{}, int64(4*n))
			if err != nil {
				t.Fatal(err)
			}
			in, _ := buf.HostBytes()
			for i := 0; i < n; i++ {
				binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i+c)))
			}
			view, err := hal.NewBufferView(buf, hal.Shape{int64(n)}, hal.ElementTypeF32, hal.EncodingDenseRowMajor)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Context.Invoke(fn, []vm.Value{vm.RefValue(halmodule.BufferViewRef(view))})
			if err != nil {
				t.Fatalf("context %d call %d: %v", c, call, err)
			}
			out, err := halmodule.BufferViewOf(res[0])
			if err != nil {
				t.Fatal(err)
			}
			got, _ := out.Buffer().HostBytes()
			if out.Rank() != 1 || len(got) < 4*n {
				t.Fatalf("context %d call %d: result %v", c, call, out)
			}
			for i := 0; i < n; i++ {
				if v := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); v != 8*float32(i+c) {
					t.Fatalf("context %d call %d: out[%d] = %v, want %v", c, call, i, v, 8*float32(i+c))
				}
			}
		}
	}
}
