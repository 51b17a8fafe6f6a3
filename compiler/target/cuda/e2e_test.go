package cuda_test

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	rhal "github.com/goiree/goiree/runtime/hal"
	cudadriver "github.com/goiree/goiree/runtime/hal/drivers/cuda"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

var largeElements = flag.Int("cuda.large", 1<<20, "element count of TestLargeOnCUDA (the GPU script passes 268435456)")

// compile runs the front end (objects resolved from testdata) and the back
// end on a program in testdata.
func compile(t testing.TB, file string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, pipeline.Options{ObjectSearchPaths: []string{"testdata"}}, "")
	if err != nil {
		t.Fatalf("front end: %v", err)
	}
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets})
	if err != nil {
		t.Fatalf("back end: %v", err)
	}
	return vmfb
}

// TestCompile builds both programs everywhere: no GPU is needed to compile.
func TestCompile(t *testing.T) {
	for _, f := range []string{"sample.mlir", "elementwise.mlir", "multi_arch.mlir"} {
		t.Run(f, func(t *testing.T) {
			vmfb := compile(t, f)
			if _, err := vm.LoadBytecodeModule(vmfb); err != nil {
				t.Fatalf("loading the compiled module: %v", err)
			}
			if !bytes.Contains(vmfb, []byte(cudadriver.Format)) {
				t.Errorf("module does not name the %s format", cudadriver.Format)
			}
			if !bytes.Contains(vmfb, []byte(".entry")) {
				t.Errorf("module embeds no PTX")
			}
		})
	}
}

// cudaDevice creates the cuda device or skips the test where CUDA is
// absent (CI has no GPU).
func cudaDevice(t testing.TB) rhal.Device {
	t.Helper()
	if err := cudadriver.Available(); err != nil {
		t.Skipf("skipping: no CUDA device: %v", err)
	}
	dev, err := cudadriver.NewDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// testSession is a runtime session whose failures end the test.
type testSession struct{ *session.Session }

// load makes a session of module on dev, closed when the test ends.
func load(t testing.TB, dev rhal.Device, module []byte) *testSession {
	t.Helper()
	s, err := session.Open(dev, module)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &testSession{s}
}

// run invokes fn with --input style inputs and returns what
// iree-run-module prints.
func (s *testSession) run(t testing.TB, fn string, inputs ...string) string {
	t.Helper()
	out, err := s.Run(fn, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (s *testSession) invoke(t testing.TB, fn string, inputs ...string) []vm.Value {
	t.Helper()
	results, err := s.Call(fn, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return results
}

func repeat(s string, n int) string { return strings.TrimSpace(strings.Repeat(s+" ", n)) }

// TestSampleOnCUDA: (a*b + b) * (a*b) with a = 2, b = 4 is 96.
func TestSampleOnCUDA(t *testing.T) {
	dev := cudaDevice(t)
	s := load(t, dev, compile(t, "sample.mlir"))
	got := s.run(t, "mixed_invocation", "8xf32=2", "8xf32=4")
	t.Logf("mixed_invocation(8xf32=2, 8xf32=4):\n%s", got)
	if want := "result[0]: hal.buffer_view\n8xf32=" + repeat("96", 8) + "\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	got = s.run(t, "mixed_invocation", "100xf32=3", "100xf32=0.5")
	if want := "100xf32=" + repeat("3", 100); !strings.Contains(got, want) { // (1.5+0.5)*1.5
		t.Fatalf("100 elements: got\n%s", got)
	}
}

// TestElementwiseOnCUDA runs the programs with only generated dispatches.
func TestElementwiseOnCUDA(t *testing.T) {
	dev := cudaDevice(t)
	s := load(t, dev, compile(t, "elementwise.mlir"))
	got := s.run(t, "chain", "5xf32=1 2 3 4 5", "5xf32=2")
	t.Logf("chain(5xf32=1 2 3 4 5, 5xf32=2):\n%s", got)
	// (a+b)*a-b
	if want := "5xf32=1 6 13 22 33"; !strings.Contains(got, want) {
		t.Fatalf("chain: got\n%s\nwant %s", got, want)
	}
	got = s.run(t, "relu_scale", "4xf32=-3 -0.5 1 2", "4xi32=1 1 -5 0")
	t.Logf("relu_scale(4xf32=-3 -0.5 1 2, 4xi32=1 1 -5 0):\n%s", got)
	// 2a + b: -5, 0, -3, 4 -> relu 0 0 0 4; positive: 0 0 0 1
	// The runtime's printer may show i1 values as numbers or as hex bytes.
	if !strings.Contains(got, "4xf32=0 0 0 4") || !strings.Contains(got, "4xi1=0 0 0 1") && !strings.Contains(got, "4xi1=00 00 00 01") {
		t.Fatalf("relu_scale: got\n%s", got)
	}
}

// TestLargeOnCUDA checks every element of the sample over -cuda.large
// elements (the GPU script runs 256M) and reports the time per call.
func TestLargeOnCUDA(t *testing.T) {
	dev := cudaDevice(t)
	n := *largeElements
	s := load(t, dev, compile(t, "sample.mlir"))
	a, b := make([]byte, 4*n), make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(a[4*i:], math.Float32bits(float32(i%1000)*0.25))
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(i%7)+1))
	}
	view := func(data []byte) vm.Value {
		buf, err := dev.Allocator().AllocateBuffer(rhal.BufferParams{}, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if err := buf.Write(0, data); err != nil {
			t.Fatal(err)
		}
		v, err := rhal.NewBufferView(buf, []int64{int64(n)}, rhal.ElementTypeF32, rhal.EncodingDenseRowMajor)
		if err != nil {
			t.Fatal(err)
		}
		return vm.RefValue(halmodule.BufferViewRef(v))
	}
	f, err := s.Lookup("mixed_invocation")
	if err != nil {
		t.Fatal(err)
	}
	args := []vm.Value{view(a), view(b)}
	var results []vm.Value
	const calls = 3
	var best time.Duration
	for c := 0; c < calls; c++ {
		start := time.Now()
		results, err = s.Context.Invoke(f, args)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); c == 0 || d < best {
			best = d
		}
	}
	out, err := halmodule.BufferViewOf(results[0])
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4*n)
	if err := out.Buffer().Read(0, got); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := 0; i < n; i++ {
		x := float32(i%1000) * 0.25
		y := float32(i%7) + 1
		p := x * y
		want := (p + y) * p
		if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != want {
			if bad < 5 {
				t.Errorf("element %d: got %v, want %v", i, g, want)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d elements wrong", bad, n)
	}
	gb := float64(5*4*n) / 1e9 // bytes the three dispatches move
	fmt.Printf("large: %d elements checked correct; best of %d calls %.2f ms (%.1f GB/s over the %0.2f GB the dispatches touch)\n",
		n, calls, float64(best.Microseconds())/1000, gb/best.Seconds(), gb)
}
