package kernelsrc_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/kernelsrc"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	rhal "github.com/goiree/goiree/runtime/hal"
	cudadriver "github.com/goiree/goiree/runtime/hal/drivers/cuda"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	vkdriver "github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

// needTools skips a test when one of the named programs is not on PATH.
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("skipping: %s not on PATH (%v)", n, err)
		}
	}
}

// compile runs the whole compiler on a testdata program, with the kernel
// sources compiled into a fresh cache so the test exercises the tools.
func compile(t *testing.T, file string) ([]byte, *pipeline.State) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, pipeline.Options{
		ObjectSearchPaths: []string{"testdata"},
		KernelSources:     kernelsrc.Options{CacheDir: t.TempDir()},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{
		Registry: s.Registry,
		Targets:  s.Targets,
		LLVMCPU:  llvmcpu.Options{Objects: s.Resolver},
	})
	if err != nil {
		t.Fatal(err)
	}
	return vmfb, s
}

// invoke runs fn of module on dev and returns its f32 results.
func invoke(t *testing.T, dev rhal.Device, module []byte, fn string, args ...*bufferfmt.Buffer) [][]float32 {
	t.Helper()
	s, err := session.Open(dev, module)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := s.Lookup(fn)
	if err != nil {
		t.Fatal(err)
	}
	var in []vm.Value
	for _, a := range args {
		v, err := functionio.NewBufferView(dev.Allocator(), a)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, vm.RefValue(halmodule.BufferViewRef(v)))
	}
	res, err := s.Invoke(f, in)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float32
	for _, r := range res {
		view, err := halmodule.BufferViewOf(r)
		if err != nil {
			t.Fatal(err)
		}
		b, err := functionio.ReadBufferView(view)
		if err != nil {
			t.Fatal(err)
		}
		fs := make([]float32, len(b.Data)/4)
		for i := range fs {
			fs[i] = math.Float32frombits(binary.LittleEndian.Uint32(b.Data[4*i:]))
		}
		out = append(out, fs)
	}
	return out
}

func f32Buffer(shape rhal.Shape, v []float32) *bufferfmt.Buffer {
	b := &bufferfmt.Buffer{Shape: shape, ElementType: rhal.ElementTypeF32, Data: make([]byte, 4*len(v))}
	for i, f := range v {
		binary.LittleEndian.PutUint32(b.Data[4*i:], math.Float32bits(f))
	}
	return b
}

func randoms(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(r.Intn(2001)-1000) / 64
	}
	return out
}

// same compares results with a reference allowing one ulp-scale error
// (the kernels may contract a multiply and an add).
func same(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, want %d", what, len(got), len(want))
	}
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*math.Max(1, math.Abs(float64(want[i]))) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestCPUSourceWithoutShims compiles noshim.c from source and calls its two
// functions through generated shims on local-task: scale_rows with bare
// pointers, an f32 constant and a two-dimensional grid, and sub_inplace in
// memref style.
func TestCPUSourceWithoutShims(t *testing.T) {
	needTools(t, "clang-16", "ld.lld-16")
	vmfb, s := compile(t, "cpu_noshim.mlir")
	// The source object became an object file in the test's cache.
	if text := s.Print(); strings.Contains(text, `"noshim.c"`) || !strings.Contains(text, ".o\"") {
		t.Errorf("the variant still names the source, or no compiled object:\n%s", text)
	}
	dev, err := localtask.NewDevice(localtask.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	r := rand.New(rand.NewSource(1))
	for _, shape := range [][2]int{{1, 1}, {3, 32}, {5, 77}, {64, 100}} {
		rows, cols := shape[0], shape[1]
		a, sc := randoms(r, rows*cols), randoms(r, cols)
		got := invoke(t, dev, vmfb, "run", f32Buffer(rhal.Shape{int64(rows), int64(cols)}, a), f32Buffer(rhal.Shape{int64(cols)}, sc))
		want := make([]float32, rows*cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				scaled := a[i*cols+j]*sc[j] + 0.5
				want[i*cols+j] = scaled - a[i*cols+j]
			}
		}
		same(t, "cpu_noshim", got[0], want)
	}
}

// TestVulkanGLSLSource compiles fma.glsl from source and runs it on a
// Vulkan device (lavapipe where no GPU is present).
func TestVulkanGLSLSource(t *testing.T) {
	needTools(t, "glslc")
	if err := vkdriver.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	infos, err := vkdriver.NewDriver().Devices()
	if err != nil || len(infos) == 0 {
		t.Skipf("skipping: no Vulkan device (%v); install mesa-vulkan-drivers for lavapipe", err)
	}
	vmfb, _ := compile(t, "vulkan_source.mlir")
	dev, err := vkdriver.NewDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	r := rand.New(rand.NewSource(2))
	for _, n := range []int{1, 64, 1000} {
		a, b := randoms(r, n), randoms(r, n)
		got := invoke(t, dev, vmfb, "run", f32Buffer(rhal.Shape{int64(n)}, a), f32Buffer(rhal.Shape{int64(n)}, b))
		want := make([]float32, n)
		for i := range want {
			want[i] = (a[i]*b[i] + 1) + b[i]
		}
		same(t, "vulkan_source", got[0], want)
	}
}

// TestCUDASourceToPTX compiles axpy.cu for sm_52 and sm_80: each variant's
// object is PTX for its architecture, embedded in the module. Running it
// needs a CUDA GPU.
func TestCUDASourceToPTX(t *testing.T) {
	needTools(t, "clang-16")
	vmfb, s := compile(t, "cuda_source.mlir")
	var archs []string
	for _, p := range strings.Split(s.Print(), "path = \"")[1:] {
		path := p[:strings.IndexByte(p, '"')]
		ptx, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(ptx), "\n") {
			if strings.HasPrefix(line, ".target ") {
				archs = append(archs, strings.TrimPrefix(line, ".target "))
			}
		}
		if !strings.Contains(string(ptx), ".entry axpy(") {
			t.Errorf("%s has no .entry axpy", path)
		}
	}
	if strings.Join(archs, ",") != "sm_52,sm_80" {
		t.Errorf("PTX targets = %v, want [sm_52 sm_80]", archs)
	}
	for _, arch := range []string{"sm_52", "sm_80"} {
		if !strings.Contains(string(vmfb), ".target "+arch+"\n") {
			t.Errorf("the module does not embed the %s PTX", arch)
		}
	}
	if err := cudadriver.Available(); err != nil {
		t.Skipf("skipping the run: needs a CUDA GPU and driver (%v)", err)
	}
	dev, err := cudadriver.NewDevice(0)
	if err != nil {
		t.Skipf("skipping the run: no CUDA device (%v)", err)
	}
	defer dev.Close()
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{1, 64, 1000} {
		x, y := randoms(r, n), randoms(r, n)
		got := invoke(t, dev, vmfb, "run", f32Buffer(rhal.Shape{int64(n)}, x), f32Buffer(rhal.Shape{int64(n)}, y))
		want := make([]float32, n)
		for i := range want {
			want[i] = 3*x[i] + y[i]
		}
		same(t, "cuda_source", got[0], want)
	}
}
