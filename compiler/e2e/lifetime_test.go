package e2e_test

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/runtime/base/status"
	rhal "github.com/goiree/goiree/runtime/hal"
	cudadriver "github.com/goiree/goiree/runtime/hal/drivers/cuda"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	vkdriver "github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

// Lifetime tests: a compiled program (user kernels and generated
// elementwise code, testdata/lifetime_*.mlir) is called lifetimeCalls
// times on each driver, each call's result released by the caller. Every
// intermediate must be released by the program and every result by its
// release, so afterwards the memory live is the inputs', and the peak
// stays within lifetimeFactor of one call's working set.
const (
	lifetimeCalls    = 2000
	lifetimeElements = 100000
	lifetimeFactor   = 2.5
)

// lifetimeTarget builds the program for one driver, or skips.
type lifetimeTarget struct {
	driver string
	device func(t *testing.T) rhal.Device
	module func(t *testing.T) []byte
}

var lifetimeTargets = []lifetimeTarget{
	{"local-sync", func(t *testing.T) rhal.Device { return must(t)(localsync.NewDevice()) }, cpuLifetimeModule},
	{"local-task", func(t *testing.T) rhal.Device { return must(t)(localtask.NewDevice(localtask.Options{})) }, cpuLifetimeModule},
	{"vulkan", vulkanLifetimeDevice, vulkanLifetimeModule},
	{"cuda", cudaLifetimeDevice, cudaLifetimeModule},
}

// must returns a function that fails t on err and returns the device,
// closed when the test ends.
func must(t *testing.T) func(d rhal.Device, err error) rhal.Device {
	return func(d rhal.Device, err error) rhal.Device {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
}

func cpuLifetimeModule(t *testing.T) []byte {
	clang := tools(t)
	dir := t.TempDir()
	buildKernels(t, clang, dir)
	m, err := compile("lifetime_cpu.mlir", []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func vulkanLifetimeDevice(t *testing.T) rhal.Device {
	if err := vkdriver.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if infos, err := vkdriver.NewDriver().Devices(); err != nil || len(infos) == 0 {
		t.Skipf("skipping: no Vulkan device (%v); install mesa-vulkan-drivers for lavapipe", err)
	}
	d, err := vkdriver.NewDevice(0)
	return must(t)(d, err)
}

func vulkanLifetimeModule(t *testing.T) []byte {
	glslc, err := vulkan.Options{}.FindGlslc()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	dir := t.TempDir()
	for _, name := range []string{"lifetime_mul", "lifetime_mul_inplace"} {
		out, err := exec.Command(glslc, "-fshader-stage=compute", "-o", filepath.Join(dir, name+".spv"), filepath.Join("testdata", name+".glsl")).CombinedOutput()
		if err != nil {
			t.Fatalf("glslc %s: %v\n%s", name, err, out)
		}
	}
	return compileWith(t, "lifetime_vulkan.mlir", dir, backend.Options{})
}

func cudaLifetimeDevice(t *testing.T) rhal.Device {
	if err := cudadriver.Available(); err != nil {
		t.Skipf("skipping: no CUDA device: %v", err)
	}
	d, err := cudadriver.NewDevice(0)
	dev := must(t)(d, err)
	t.Logf("cuda device memory: %s", d.Allocator().(*cudadriver.Allocator).PoolInfo())
	return dev
}

func cudaLifetimeModule(t *testing.T) []byte {
	clang := tools(t)
	dir := t.TempDir()
	out, err := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
		"--cuda-gpu-arch=sm_80", "-O2", "-S", filepath.Join("testdata", "lifetime.cu"),
		"-o", filepath.Join(dir, "lifetime_sm_80.ptx")).CombinedOutput()
	if err != nil {
		t.Skipf("skipping: clang cannot build PTX here: %v\n%s", err, out)
	}
	return compileWith(t, "lifetime_cuda.mlir", dir, backend.Options{})
}

// compileWith compiles a testdata program whose objects are in dir.
func compileWith(t *testing.T, file, dir string, opts backend.Options) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, pipeline.Options{ObjectSearchPaths: []string{dir}}, "")
	if err != nil {
		t.Fatalf("%s: front end: %v", file, err)
	}
	opts.Registry, opts.Targets = s.Registry, s.Targets
	opts.LLVMCPU = llvmcpu.Options{Objects: s.Resolver}
	m, err := backend.Compile(s.Module.Op, opts)
	if err != nil {
		t.Fatalf("%s: back end: %v", file, err)
	}
	return m
}

// lifetimeSession is the program loaded on a device with its inputs.
type lifetimeSession struct {
	dev  rhal.Device
	ctx  *vm.Context
	fn   *vm.Function
	a, b []float32
	args []vm.Value
}

func newLifetimeSession(t *testing.T, dev rhal.Device, module []byte) *lifetimeSession {
	t.Helper()
	ss, err := session.Open(dev, module)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := ss.Lookup("step")
	if err != nil {
		t.Fatal(err)
	}
	s := &lifetimeSession{dev: dev, ctx: ss.Context, fn: fn}
	s.a, s.b = make([]float32, lifetimeElements), make([]float32, lifetimeElements)
	for i := range s.a {
		// Small integers: every step is exact in float32.
		s.a[i], s.b[i] = float32(i%7), float32(i%5-2)
	}
	s.args = []vm.Value{s.input(t, s.a), s.input(t, s.b)}
	return s
}

// input makes a buffer view of vals on the device; the session owns it.
func (s *lifetimeSession) input(t *testing.T, vals []float32) vm.Value {
	t.Helper()
	buf, err := s.dev.Allocator().AllocateBuffer(rhal.BufferParams{}, int64(4*len(vals)))
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	if err := buf.Write(0, raw); err != nil {
		t.Fatal(err)
	}
	view, err := rhal.NewBufferView(buf, rhal.Shape{int64(len(vals))}, rhal.ElementTypeF32, rhal.EncodingDenseRowMajor)
	if err != nil {
		t.Fatal(err)
	}
	return vm.RefValue(halmodule.BufferViewRef(view))
}

// call invokes step; with check it verifies every element against a
// plain Go loop.
func (s *lifetimeSession) call(t *testing.T, check bool) []vm.Value {
	t.Helper()
	res, err := s.ctx.Invoke(s.fn, s.args)
	if err != nil {
		t.Fatal(err)
	}
	if !check {
		return res
	}
	v, err := halmodule.BufferViewOf(res[0])
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4*lifetimeElements)
	if err := v.Buffer().Read(0, got); err != nil {
		t.Fatal(err)
	}
	for i := range s.a {
		p := s.a[i] * s.b[i]
		want := (p+s.b[i])*p - s.a[i]
		if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != want {
			t.Fatalf("element %d = %v, want %v", i, g, want)
		}
	}
	return res
}

// live returns the bytes the device allocator has handed out and not had
// back, over every memory kind.
func live(s rhal.AllocatorStatistics) int64 {
	return s.HostBytesAllocated - s.HostBytesFreed + s.DeviceBytesAllocated - s.DeviceBytesFreed
}

func peak(s rhal.AllocatorStatistics) int64 { return s.HostBytesPeak + s.DeviceBytesPeak }

// TestLifetimes calls the program 2000 times on every driver and checks
// the allocator's statistics afterwards.
func TestLifetimes(t *testing.T) {
	for _, tg := range lifetimeTargets {
		t.Run(tg.driver, func(t *testing.T) {
			dev := tg.device(t)
			module := tg.module(t)
			s := newLifetimeSession(t, dev, module)
			alloc := dev.Allocator()
			inputs := live(alloc.Statistics())
			class := rhal.SizeClass(4 * lifetimeElements)
			if inputs != 2*class {
				t.Fatalf("live after making the inputs: %d bytes, want 2 × %d", inputs, class)
			}
			if err := vm.ReleaseValues(s.call(t, true)); err != nil {
				t.Fatal(err)
			}
			// One call's working set: the inputs and the buffers the call
			// held at once (two or three: the program reuses dead ones).
			working := peak(alloc.Statistics())
			if working > 5*class {
				t.Fatalf("one call's peak is %d bytes, more than the inputs and three buffers of %d", working, class)
			}
			for i := 1; i < lifetimeCalls; i++ {
				res := s.call(t, i == lifetimeCalls-1)
				if err := vm.ReleaseValues(res); err != nil {
					t.Fatalf("call %d: releasing the result: %v", i, err)
				}
			}
			st := alloc.Statistics()
			t.Logf("%s after %d calls: %s", tg.driver, lifetimeCalls, strings.TrimSpace(st.String()))
			if got := live(st); got != inputs {
				t.Errorf("live after %d calls = %d bytes, want the inputs' %d", lifetimeCalls, got, inputs)
			}
			if p := peak(st); float64(p) > lifetimeFactor*float64(working) {
				t.Errorf("peak after %d calls = %d bytes, more than %.1f × one call's %d", lifetimeCalls, p, lifetimeFactor, working)
			}
			if err := vm.ReleaseValues(s.args); err != nil {
				t.Fatal(err)
			}
			if err := s.ctx.Close(); err != nil {
				t.Fatal(err)
			}
			if got := live(alloc.Statistics()); got != 0 {
				t.Errorf("live after releasing the inputs and closing the context = %d bytes, want 0", got)
			}
		})
	}
}

// TestLifetimeMisuse: a result released twice, a released result passed
// back in, a read after release and an allocation larger than the device
// are each a status error (never a crash or a wrong result), and the
// session keeps working afterwards.
func TestLifetimeMisuse(t *testing.T) {
	for _, tg := range lifetimeTargets {
		t.Run(tg.driver, func(t *testing.T) {
			dev := tg.device(t)
			s := newLifetimeSession(t, dev, tg.module(t))
			res := s.call(t, true)
			v, err := halmodule.BufferViewOf(res[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Release(); err != nil {
				t.Fatal(err)
			}
			errs := []struct {
				what string
				err  error
				code status.Code
				want string
			}{
				{"second release", v.Release(), status.FailedPrecondition, "released twice"},
				{"second release through the VM value", res[0].Ref().Release(), status.FailedPrecondition, "released twice"},
				{"read after release", v.Buffer().Read(0, make([]byte, 4)), status.FailedPrecondition, "use of a released buffer"},
			}
			_, err = s.ctx.Invoke(s.fn, []vm.Value{res[0], s.args[1]})
			errs = append(errs, struct {
				what string
				err  error
				code status.Code
				want string
			}{"a released result as an input", err, status.FailedPrecondition, "argument 0: use of a released hal.buffer_view"})
			_, err = dev.Allocator().AllocateBuffer(rhal.BufferParams{Type: rhal.MemoryTypeDeviceLocal}, 1<<50)
			errs = append(errs, struct {
				what string
				err  error
				code status.Code
				want string
			}{"an allocation larger than the device", err, status.ResourceExhausted, "allocation of 1125899906842624 bytes exceeds"})
			for _, e := range errs {
				if status.CodeOf(e.err) != e.code || !strings.Contains(e.err.Error(), e.want) {
					t.Errorf("%s: %v; want %v containing %q", e.what, e.err, e.code, e.want)
				} else {
					t.Logf("%s: %v", e.what, e.err)
				}
			}
			before := live(dev.Allocator().Statistics())
			if err := vm.ReleaseValues(s.call(t, true)); err != nil {
				t.Fatal(err)
			}
			if got := live(dev.Allocator().Statistics()); got != before {
				t.Errorf("live after a good call following the errors: %d bytes, want %d", got, before)
			}
		})
	}
}

// TestLifetimeCUDAProgramCompiles builds the CUDA program without a GPU,
// so that the program the GPU machine runs is known to compile.
func TestLifetimeCUDAProgramCompiles(t *testing.T) {
	m := cudaLifetimeModule(t)
	if _, err := vm.LoadBytecodeModule(m); err != nil {
		t.Fatal(err)
	}
}
