package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	rhal "github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	checkmodule "github.com/goiree/goiree/runtime/modules/check"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

// fmtF32 writes float32 values in the --input grammar.
func fmtF32(shape string, vals []float32) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprint(v)
	}
	return shape + "=" + strings.Join(parts, " ")
}

// callF32 calls fn in a new session (with the check module, which
// programs using check ops import) and returns its single f32 tensor
// result's elements.
func callF32(t *testing.T, dev rhal.Device, module []byte, fn string, inputs ...string) []float32 {
	t.Helper()
	bm, err := vm.LoadBytecodeModule(module)
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.New(dev, []*vm.BytecodeModule{bm}, session.Options{Natives: []vm.NativeModule{checkmodule.New()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Call(fn, inputs...)
	if err != nil {
		t.Fatalf("%s(%s): %v", fn, strings.Join(inputs, ", "), err)
	}
	defer vm.ReleaseValues(res)
	if len(res) != 1 {
		t.Fatalf("%s returned %d values, want 1", fn, len(res))
	}
	return resultF32(t, res[0])
}

// resultF32 returns the elements of an f32 buffer view result.
func resultF32(t *testing.T, val vm.Value) []float32 {
	t.Helper()
	v, err := halmodule.BufferViewOf(val)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(1)
	for _, d := range v.Shape() {
		n *= d
	}
	raw := make([]byte, 4*n)
	if err := v.Buffer().Read(0, raw); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

// TestHostLoops runs dispatches in loop bodies and branch arms on both
// CPU drivers and, where present, the GPU devices, against Go loops.
func TestHostLoops(t *testing.T) {
	onEveryDevice(t, "host_loops.mlir", checkHostLoops)
}

// onEveryDevice compiles testdata file for the CPU drivers and runs check
// with it on each of them, then on every GPU device with file compiled for
// that device's target.
func onEveryDevice(t *testing.T, file string, check func(t *testing.T, dev rhal.Device, module []byte)) {
	t.Helper()
	tools(t)
	module, err := compile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range devices {
		t.Run(d.name, func(t *testing.T) {
			dev, err := d.make()
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			check(t, dev, module)
		})
	}
	forGPUs(t, file, check)
}

// checkHostLoops calls host_loops.mlir's functions on dev.
func checkHostLoops(t *testing.T, dev rhal.Device, module []byte) {
	in := []float32{1, -2, 0.5, 3, 7}
	for _, n := range []int{0, 1, 5, 20} {
		want := slices.Clone(in)
		for k := 0; k < n; k++ {
			for i := range want {
				want[i] = want[i]*2 + 1
			}
		}
		if got := callF32(t, dev, module, "affine_n", fmtF32("5xf32", in), fmt.Sprint(n)); !slices.Equal(got, want) {
			t.Errorf("affine_n(n=%d) = %v, want %v", n, got, want)
		}
	}
	x := []float32{1, 2, 3, 4}
	for _, c := range []int{0, 1} {
		want := make([]float32, 4)
		for i, v := range x {
			if c == 1 {
				want[i] = 2 * v
			} else {
				want[i] = v + 10
			}
		}
		if got := callF32(t, dev, module, "choose", fmtF32("4xf32", x), fmt.Sprint(c)); !slices.Equal(got, want) {
			t.Errorf("choose(c=%d) = %v, want %v", c, got, want)
		}
	}
	x3 := []float32{0.5, -1, 4}
	for _, n := range []int{0, 1, 6} {
		want := make([]float32, 3)
		for k := 0; k < n; k++ {
			for i, v := range x3 {
				want[i] += v + float32(k)
			}
		}
		if got := callF32(t, dev, module, "accumulate", fmtF32("3xf32", x3), fmt.Sprint(n)); !slices.Equal(got, want) {
			t.Errorf("accumulate(n=%d) = %v, want %v", n, got, want)
		}
	}
	x4 := []float32{0.5, -0.25, 0, 0.125}
	for _, n := range []int{0, 1, 3} {
		want := slices.Clone(x4)
		for k := 0; k < n; k++ {
			for i, v := range want {
				want[i] = v*v + v
			}
		}
		if got := callF32(t, dev, module, "square_plus", fmtF32("4xf32", x4), fmt.Sprint(n)); !slices.Equal(got, want) {
			t.Errorf("square_plus(n=%d) = %v, want %v", n, got, want)
		}
	}
}

// TestHostLoopMemory: a 1000-iteration loop of dispatches needs no more
// memory at its peak than a 2-iteration one (each iteration's buffers are
// released by the next), and everything but the caller's input is freed
// when the result is released.
func TestHostLoopMemory(t *testing.T) {
	tools(t)
	module, err := compile("host_loops.mlir", nil)
	if err != nil {
		t.Fatal(err)
	}
	const elems = 4096
	peakOf := func(n int) (int64, int64) {
		dev, err := localsync.NewDevice()
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		s, err := session.Open(dev, module)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.Call("affine_n", fmt.Sprintf("%dxf32=0", elems), fmt.Sprint(n))
		if err != nil {
			t.Fatal(err)
		}
		if err := vm.ReleaseValues(res); err != nil {
			t.Fatal(err)
		}
		st := dev.Allocator().Statistics()
		return peak(st), live(st)
	}
	p2, l2 := peakOf(2)
	p1000, l1000 := peakOf(1000)
	t.Logf("peak: %d bytes (2 iterations), %d (1000)", p2, p1000)
	if p1000 != p2 {
		t.Errorf("peak with 1000 iterations = %d bytes, with 2 = %d: memory grows with the iteration count", p1000, p2)
	}
	// Only the session's input buffer remains.
	if class := rhal.SizeClass(4 * elems); l2 != class || l1000 != class {
		t.Errorf("live after releasing the result = %d (2 iterations), %d (1000), want the input's %d", l2, l1000, class)
	}
}

// TestHostCalls runs calls between functions with dispatches, a mutable
// tensor global updated through a call on every invocation (IREE's
// globals behaviour: a later call sees the stored value; a new context
// starts from the initial value) and an IREE-style check function, on
// both CPU drivers.
func TestHostCalls(t *testing.T) {
	tools(t)
	module, err := compile("host_calls.mlir", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range devices {
		t.Run(d.name, func(t *testing.T) {
			dev, err := d.make()
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			x := []float32{1, -2, 0.5, 3}
			if got, want := callF32(t, dev, module, "quadruple", fmtF32("4xf32", x)), []float32{4, -8, 2, 12}; !slices.Equal(got, want) {
				t.Errorf("quadruple = %v, want %v", got, want)
			}
			bm, err := vm.LoadBytecodeModule(module)
			if err != nil {
				t.Fatal(err)
			}
			for c := 0; c < 2; c++ {
				chk := checkmodule.New()
				s, err := session.New(dev, []*vm.BytecodeModule{bm}, session.Options{Natives: []vm.NativeModule{chk}})
				if err != nil {
					t.Fatal(err)
				}
				total := make([]float32, 4)
				for call := 0; call < 3; call++ {
					in := []float32{float32(call), 1, -0.5, 2}
					for i := range total {
						total[i] += in[i]
					}
					res, err := s.Call("accumulate", fmtF32("4xf32", in))
					if err != nil {
						t.Fatal(err)
					}
					got := resultF32(t, res[0])
					if !slices.Equal(got, total) {
						t.Errorf("context %d call %d: accumulate = %v, want %v", c, call, got, total)
					}
					vm.ReleaseValues(res)
				}
				if _, err := s.Call("check_quadruple"); err != nil {
					t.Fatal(err)
				}
				if f := chk.TakeFailures(); len(f) != 0 {
					t.Errorf("check_quadruple failed: %v", f)
				}
				s.Close()
			}
		})
	}
}

// TestHostGlobalAddresses runs globals reached through util.global.address
// (an indirectly loaded weight, an indirectly stored running total) on
// both CPU drivers, against a Go loop, over several calls of one session.
func TestHostGlobalAddresses(t *testing.T) {
	tools(t)
	module, err := compile("host_global_addresses.mlir", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := []float32{2, -1, 0.5, 4}
	for _, d := range devices {
		t.Run(d.name, func(t *testing.T) {
			dev, err := d.make()
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			bm, err := vm.LoadBytecodeModule(module)
			if err != nil {
				t.Fatal(err)
			}
			s, err := session.New(dev, []*vm.BytecodeModule{bm}, session.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			total := make([]float32, 4)
			for call := 0; call < 3; call++ {
				x := []float32{1, float32(call), -3, 0.25}
				for i := range total {
					total[i] += x[i] * w[i]
				}
				res, err := s.Call("scale_and_accumulate", fmtF32("4xf32", x))
				if err != nil {
					t.Fatal(err)
				}
				if got := resultF32(t, res[0]); !slices.Equal(got, total) {
					t.Errorf("call %d: scale_and_accumulate = %v, want %v", call, got, total)
				}
				vm.ReleaseValues(res)
			}
		})
	}
}

// TestRepeatedLayers compiles thirteen layers alternating two ops, which
// form thirteen dispatches of two distinct executables: the flow phase
// keeps two (executable deduplication), every dispatch still computes its
// own layer on both CPU drivers and the GPU devices, checked against a Go
// loop.
func TestRepeatedLayers(t *testing.T) {
	tools(t)
	src, err := os.ReadFile(filepath.Join("testdata", "repeated_layers.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("repeated_layers.mlir", src, pipeline.Options{}, "flow")
	if err != nil {
		t.Fatal(err)
	}
	flowText := ir.PrintModule(s.Module, s.Registry, ir.PrintOptions{})
	if n := strings.Count(flowText, "hal.executable private"); n != 2 {
		t.Errorf("flow phase has %d executables, want 2:\n%s", n, flowText)
	}
	if n := strings.Count(flowText, "flow.dispatch @"); n != 13 {
		t.Errorf("flow phase has %d dispatches, want 13", n)
	}
	x := []float32{1, -2, 0.5, 3}
	want := slices.Clone(x)
	for i := range 13 {
		for j := range want {
			if i%2 == 0 {
				want[j] *= 2
			} else {
				want[j]++
			}
		}
	}
	check := func(t *testing.T, dev rhal.Device, module []byte) {
		if got := callF32(t, dev, module, "layers", fmtF32("4xf32", x)); !slices.Equal(got, want) {
			t.Errorf("layers = %v, want %v", got, want)
		}
	}
	onEveryDevice(t, "repeated_layers.mlir", check)
}

// TestHostF16Constants compiles f16 scalar constants written in host code
// (captured by a body, filling an accumulator) and checks the count of
// positive elements plus one half, on every device.
func TestHostF16Constants(t *testing.T) {
	x := []float32{1, -2, 0.5, 3, 0, -7, 2, 9}
	check := func(t *testing.T, dev rhal.Device, module []byte) {
		if got := callF32(t, dev, module, "f16_constants", fmtF32("8xf32", x)); len(got) != 1 || got[0] != 5.5 {
			t.Errorf("f16_constants = %v, want [5.5]", got)
		}
	}
	onEveryDevice(t, "host_f16_constants.mlir", check)
}
