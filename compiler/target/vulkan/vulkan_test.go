package vulkan_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/vmgen"
	rhal "github.com/goiree/goiree/runtime/hal"
	vkdriver "github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/schemas/spirv"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

// glslc returns the glslc binary, skipping the test without it.
func glslc(t testing.TB) string {
	t.Helper()
	p, err := vulkan.Options{}.FindGlslc()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	return p
}

// buildShaders compiles the sample shaders into dir.
func buildShaders(t testing.TB, dir string) {
	t.Helper()
	tool := glslc(t)
	for _, name := range []string{"simple_mul", "simple_mul_inplace"} {
		out, err := exec.Command(tool, "-fshader-stage=compute", "-o", filepath.Join(dir, name+".spv"), filepath.Join("testdata", name+".glsl")).CombinedOutput()
		if err != nil {
			t.Fatalf("glslc %s: %v\n%s", name, err, out)
		}
	}
}

// spirvVal validates SPIR-V words with spirv-val when it is installed.
func spirvVal(t testing.TB, code []uint32) {
	t.Helper()
	tool, err := exec.LookPath("spirv-val")
	if err != nil {
		t.Logf("spirv-val not found on PATH; generated SPIR-V not validated")
		return
	}
	b := make([]byte, 4*len(code))
	for i, w := range code {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	p := filepath.Join(t.TempDir(), "x.spv")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tool, "--target-env", "vulkan1.1", p).CombinedOutput(); err != nil {
		t.Fatalf("spirv-val: %v\n%s", err, out)
	}
}

// compile runs the front end and the back end, with every built SPIR-V
// executable checked by spirv-val.
func compile(t testing.TB, file string, searchPaths []string) ([]byte, error) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		return nil, err
	}
	s, err := pipeline.Compile(file, src, pipeline.Options{ObjectSearchPaths: searchPaths}, "")
	if err != nil {
		return nil, err
	}
	b := checked{t: t, b: vulkan.Builder{Options: vulkan.Options{Objects: s.Resolver}}}
	return backend.Compile(s.Module.Op, backend.Options{
		Registry:    s.Registry,
		Targets:     s.Targets,
		Executables: vmgen.Backends{"vulkan-spirv": b},
	})
}

type checked struct {
	t testing.TB
	b vulkan.Builder
}

func (c checked) Build(variant *ir.Operation) ([]byte, error) {
	out, err := c.b.Build(variant)
	if err != nil {
		return nil, err
	}
	exe, err := spirv.Unmarshal(out)
	if err != nil {
		c.t.Fatalf("built executable does not decode: %v", err)
	}
	spirvVal(c.t, exe.Code)
	return out, nil
}

// device returns a Vulkan device, skipping where there is none.
func device(t testing.TB) rhal.Device {
	t.Helper()
	if err := vkdriver.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	infos, err := vkdriver.NewDriver().Devices()
	if err != nil || len(infos) == 0 {
		t.Skipf("skipping: no Vulkan device (%v); install mesa-vulkan-drivers for lavapipe", err)
	}
	d, err := vkdriver.NewDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// invoke runs fn of module on dev with the given argument buffers.
func invoke(t testing.TB, dev rhal.Device, module []byte, fn string, args ...*bufferfmt.Buffer) []vm.Value {
	t.Helper()
	s, err := session.Open(dev, module)
	if err != nil {
		t.Fatal(err)
	}
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
	return res
}

func printed(t testing.TB, res []vm.Value) string {
	t.Helper()
	var b bytes.Buffer
	if err := functionio.PrintResults(&b, res, 1024); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func resultFloats(t testing.TB, v vm.Value) []float32 {
	t.Helper()
	view, err := halmodule.BufferViewOf(v)
	if err != nil {
		t.Fatal(err)
	}
	b, err := functionio.ReadBufferView(view)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(b.Data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b.Data[4*i:]))
	}
	return out
}

func f32Buffer(v []float32) *bufferfmt.Buffer {
	b := &bufferfmt.Buffer{Shape: rhal.Shape{int64(len(v))}, ElementType: rhal.ElementTypeF32, Data: make([]byte, 4*len(v))}
	for i, f := range v {
		binary.LittleEndian.PutUint32(b.Data[4*i:], math.Float32bits(f))
	}
	return b
}

func splat(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func repeat(s string, n int) string { return strings.TrimSpace(strings.Repeat(s+" ", n)) }

// TestSample runs the Vulkan sample: glslc-built shaders, one executable
// each, and a generated elementwise add: 8 elements print 96, and
// 1,000,000 varied elements are all checked.
func TestSample(t *testing.T) {
	dir := t.TempDir()
	buildShaders(t, dir)
	module, err := compile(t, "vulkan.mlir", []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	dev := device(t)
	got := printed(t, invoke(t, dev, module, "mixed_invocation", f32Buffer(splat(8, 2)), f32Buffer(splat(8, 4))))
	t.Logf("8 elements: %s", strings.TrimSpace(got))
	if want := "8xf32=" + repeat("96", 8) + "\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("got %q, want suffix %q", got, want)
	}
	const n = 1000000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i%101)/4, float32(i%7)-2
	}
	res := resultFloats(t, invoke(t, dev, module, "mixed_invocation", f32Buffer(a), f32Buffer(b))[0])
	if len(res) != n {
		t.Fatalf("%d results, want %d", len(res), n)
	}
	for i := range res {
		p := a[i] * b[i]
		if want := (p + b[i]) * p; res[i] != want {
			t.Fatalf("element %d = %v, want %v", i, res[i], want)
		}
	}
}

// TestElementwiseOnly runs programs whose only dispatches are generated
// SPIR-V (validated by spirv-val as they are built).
func TestElementwiseOnly(t *testing.T) {
	glslc(t)
	module, err := compile(t, "elementwise.mlir", nil)
	if err != nil {
		t.Fatal(err)
	}
	dev := device(t)
	got := printed(t, invoke(t, dev, module, "chain", f32Buffer(splat(4, 2)), f32Buffer(splat(4, 3))))
	if want := "4xf32=7 7 7 7\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("chain: got %q, want %q", got, want)
	}
	const n = 1000000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i%50)/8, float32(i%9)-4
	}
	for _, tc := range []struct {
		fn   string
		want func(a, b float32) float32
	}{
		{"chain", func(a, b float32) float32 { return (a+b)*a - b }},
		{"select", func(a, b float32) float32 {
			if a >= -b {
				return max(a, -b)
			}
			return -b
		}},
	} {
		res := resultFloats(t, invoke(t, dev, module, tc.fn, f32Buffer(a), f32Buffer(b))[0])
		for i := range res {
			if w := tc.want(a[i], b[i]); res[i] != w {
				t.Fatalf("%s: element %d = %v, want %v", tc.fn, i, res[i], w)
			}
		}
	}
	parse := func(spec string) *bufferfmt.Buffer {
		b, err := bufferfmt.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Seven elements: the i1 buffers end inside a 32-bit word.
	got = printed(t, invoke(t, dev, module, "relu_mask", parse("7xf32=1 -2 3 -4 5 0 7"), parse("7xf32=0 0 4 -5 5 -1 6")))
	if want := "7xf32=1 0 4 -4 5 0 7\nresult[1]: hal.buffer_view\n7xi1=01 00 00 01 00 01 01\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("relu_mask: got %q, want suffix %q", got, want)
	}
	got = printed(t, invoke(t, dev, module, "mask_select", parse("7xi1=1 0 0 1 0 1 1"), parse("7xf32=1 2 3 4 5 6 7"), parse("7xf32=-1 -2 -3 -4 -5 -6 -7")))
	if want := "7xf32=1 -2 -3 4 -5 6 7\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("mask_select: got %q, want suffix %q", got, want)
	}
	ia := &bufferfmt.Buffer{Shape: rhal.Shape{5}, ElementType: rhal.ElementTypeI32, Data: make([]byte, 20)}
	ib := &bufferfmt.Buffer{Shape: rhal.Shape{5}, ElementType: rhal.ElementTypeI32, Data: make([]byte, 20)}
	for i, v := range [][2]int32{{3, 4}, {-7, 3}, {1 << 20, 1 << 12}, {-5, -2}, {9, 1}} {
		binary.LittleEndian.PutUint32(ia.Data[4*i:], uint32(v[0]))
		binary.LittleEndian.PutUint32(ib.Data[4*i:], uint32(v[1]))
	}
	got = printed(t, invoke(t, dev, module, "ints", ia, ib))
	// s = a*b (wrapping), r = s rem b (sign of s), s + r.
	if want := "5xi32=12 -21 0 10 9\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("ints: got %q, want %q", got, want)
	}
}

// TestMissingEntryPoint: an export whose name is not an entry point of its
// SPIR-V object fails at compile time, naming both.
func TestMissingEntryPoint(t *testing.T) {
	dir := t.TempDir()
	buildShaders(t, dir)
	_, err := compile(t, "missing_entry.mlir", []string{dir})
	if err == nil {
		t.Fatal("compiled; want an error for the missing entry point")
	}
	t.Logf("error: %v", err)
	for _, want := range []string{"simple_mul", "main"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func ExampleRenameEntryPoint() {
	// A module header and one OpEntryPoint GLCompute %1 "main".
	code := []uint32{spirv.Magic, 0x10000, 0, 2, 0, 5<<16 | 15, 5, 1, 0x6e69616d, 0}
	out, err := vulkan.RenameEntryPoint(code, "main", "simple_mul")
	fmt.Println(len(out)-len(code), err)
	// Output: 1 <nil>
}

// TestSeedSpelling compiles the sample with the seed's backend name
// ("vulkan") through the back end's own builders and runs it.
func TestSeedSpelling(t *testing.T) {
	dir := t.TempDir()
	buildShaders(t, dir)
	src, err := os.ReadFile(filepath.Join("testdata", "vulkan.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.ReplaceAll(src, []byte(`#hal.executable.target<"vulkan-spirv"`), []byte(`#hal.executable.target<"vulkan"`))
	s, err := pipeline.Compile("seed.mlir", src, pipeline.Options{ObjectSearchPaths: []string{dir}}, "")
	if err != nil {
		t.Fatal(err)
	}
	module, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets, LLVMCPU: llvmcpu.Options{Objects: s.Resolver}})
	if err != nil {
		t.Fatal(err)
	}
	got := printed(t, invoke(t, device(t), module, "mixed_invocation", f32Buffer(splat(8, 2)), f32Buffer(splat(8, 4))))
	if want := "8xf32=" + repeat("96", 8) + "\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("got %q, want suffix %q", got, want)
	}
}
