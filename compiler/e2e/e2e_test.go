package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	rhal "github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
)

// tools returns clang, skipping the test when clang or ld.lld is missing.
// While TestGPUOps reruns a CPU family for a GPU target (gpuMode), the
// family compiles for that target only and needs neither: the GPU
// machines have no LLVM, so tools returns "" there.
func tools(t testing.TB) string {
	t.Helper()
	if gpuMode != "" {
		return ""
	}
	c, err := llvmcpu.Options{}.FindClang()
	if err != nil {
		t.Skipf("skipping: %v (clang-16 builds the sample kernels)", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v (ld.lld-16 links CPU executables)", err)
	}
	return c
}

// buildKernels compiles the sample kernels into dir, under the object
// names the programs reference.
func buildKernels(t testing.TB, clang, dir string) {
	t.Helper()
	for _, k := range []struct{ src, obj, triple string }{
		{"functions.c", "functions_x86_64.o", "x86_64-unknown-unknown-eabi-elf"},
		{"functions.c", "functions_arm_64.o", "aarch64-unknown-unknown-eabi-elf"},
		{"functions_head.c", "functions_head_x86_64.o", "x86_64-unknown-unknown-eabi-elf"},
	} {
		src, obj := k.src, k.obj
		args := []string{"-target", k.triple, "-std=c17", "-ffreestanding", "-fPIC", "-O2",
			"-fvisibility=hidden", "-fdata-sections", "-ffunction-sections", "-c",
			"-o", filepath.Join(dir, obj), filepath.Join("testdata", src)}
		if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			t.Fatalf("compiling %s: %v\n%s", src, err, out)
		}
	}
}

// compile runs the front end and the back end on a program: parse and
// verify, resolve objects, form elementwise dispatches, emit bytecode.
func compile(file string, searchPaths []string) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		return nil, err
	}
	return compileSource(file, src, searchPaths)
}

func compileSource(file string, src []byte, searchPaths []string) ([]byte, error) {
	if gpuMode != "" {
		return compileSourceForGPU(file, src, searchPaths)
	}
	s, err := pipeline.Compile(file, src, pipeline.Options{ObjectSearchPaths: searchPaths}, "")
	if err != nil {
		return nil, err
	}
	return backend.Compile(s.Module.Op, backend.Options{
		Registry: s.Registry,
		Targets:  s.Targets,
		LLVMCPU:  llvmcpu.Options{Objects: s.Resolver},
	})
}

type device struct {
	name string
	make func() (rhal.Device, error)
}

var devices = []device{
	{"local-sync", func() (rhal.Device, error) { return localsync.NewDevice() }},
	{"local-task", func() (rhal.Device, error) { return localtask.NewDevice(localtask.Options{}) }},
}

// run loads a module, invokes fn with the --input style inputs and
// returns what iree-run-module prints for the results.
func run(t testing.TB, dev rhal.Device, module []byte, fn string, inputs ...string) string {
	t.Helper()
	out, err := tryRun(dev, module, fn, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tryRun(dev rhal.Device, module []byte, fn string, inputs ...string) (string, error) {
	s, err := session.Open(dev, module)
	if err != nil {
		return "", err
	}
	defer s.Close()
	return s.Run(fn, inputs...)
}

func repeat(s string, n int) string {
	return strings.TrimSpace(strings.Repeat(s+" ", n))
}

// TestMixedInvocation runs the CPU sample in both spellings on local-sync
// and local-task: 8 elements, 100 (a partial tile) and 1,000,000.
func TestMixedInvocation(t *testing.T) {
	clang := tools(t)
	dir := t.TempDir()
	buildKernels(t, clang, dir)
	for _, file := range []string{"cpu_hal.mlir", "cpu_hal_head.mlir", "cpu_stream.mlir"} {
		module, err := compile(file, []string{dir})
		if err != nil {
			t.Fatalf("compiling %s: %v", file, err)
		}
		for _, d := range devices {
			t.Run(file+"/"+d.name, func(t *testing.T) {
				dev, err := d.make()
				if err != nil {
					t.Fatal(err)
				}
				defer dev.Close()
				got := run(t, dev, module, "mixed_invocation", "8xf32=2", "8xf32=4")
				want := "result[0]: hal.buffer_view\n8xf32=96 96 96 96 96 96 96 96\n"
				if got != want {
					t.Fatalf("8 elements:\n got %q\nwant %q", got, want)
				}
				got = run(t, dev, module, "mixed_invocation", "100xf32=2", "100xf32=4")
				if want := "100xf32=" + repeat("96", 100) + "\n"; !strings.HasSuffix(got, want) {
					t.Fatalf("100 elements: got %q", got)
				}
				got = run(t, dev, module, "mixed_invocation", "1000000xf32=2", "1000000xf32=4")
				if want := "1000000xf32=" + repeat("96", 1024) + "...\n"; !strings.HasSuffix(got, want) {
					t.Fatalf("1,000,000 elements: got %.200q...", got)
				}
				if strings.Contains(got, "96 0") || strings.Count(got, "96") != 1024 {
					t.Fatalf("1,000,000 elements: unexpected values")
				}
			})
		}
	}
}

// TestLargeResultAllCorrect checks every element of a large result, not
// just the printed prefix.
func TestLargeResultAllCorrect(t *testing.T) {
	clang := tools(t)
	dir := t.TempDir()
	buildKernels(t, clang, dir)
	module, err := compile("cpu_hal_head.mlir", []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localtask.NewDevice(localtask.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	s, err := session.Open(dev, module)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 1000003
	res, err := s.Call("mixed_invocation", fmt.Sprintf("%dxf32=2", n), fmt.Sprintf("%dxf32=4", n))
	if err != nil {
		t.Fatal(err)
	}
	view, err := halmodule.BufferViewOf(res[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := functionio.ReadBufferView(view)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Shape; len(got) != 1 || got[0] != n {
		t.Fatalf("shape %v", got)
	}
	raw := b.Data
	for i := 0; i < n; i++ {
		if raw[4*i] != 0 || raw[4*i+1] != 0 || raw[4*i+2] != 0xC0 || raw[4*i+3] != 0x42 {
			t.Fatalf("element %d = % x, want 96 (00 00 c0 42)", i, raw[4*i:4*i+4])
		}
	}
}

// TestElementwiseOnly runs a program whose only dispatches are generated:
// (a + b) * a - b.
func TestElementwiseOnly(t *testing.T) {
	tools(t)
	module, err := compile("elementwise.mlir", nil)
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
			got := run(t, dev, module, "chain", "4xf32=1 2 3 4", "4xf32=10 20 30 40")
			// (1+10)*1-10 = 1, (2+20)*2-20 = 24, (3+30)*3-30 = 69, (4+40)*4-40 = 136
			if want := "result[0]: hal.buffer_view\n4xf32=1 24 69 136\n"; got != want {
				t.Fatalf("got %q want %q", got, want)
			}
			got = run(t, dev, module, "chain", "3000xf32=3", "3000xf32=2")
			if want := "3000xf32=" + repeat("13", 1024) + "...\n"; !strings.HasSuffix(got, want) {
				t.Fatalf("3000 elements: %.120q", got)
			}
		})
	}
}

// TestDeterministic compiles the same program twice and compares bytes.
func TestDeterministic(t *testing.T) {
	clang := tools(t)
	dir := t.TempDir()
	buildKernels(t, clang, dir)
	a, err := compile("cpu_hal.mlir", []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	b, err := compile("cpu_hal.mlir", []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("two compiles differ (%d and %d bytes)", len(a), len(b))
	}
}

// TestInputChecks checks the argument validation emitted into the
// exported function.
func TestInputChecks(t *testing.T) {
	tools(t)
	module, err := compile("elementwise.mlir", nil)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	for _, tc := range []struct {
		inputs []string
		want   string
	}{
		{[]string{"4xi32=1", "4xf32=1"}, "input 0"},
		{[]string{"2x2xf32=1", "4xf32=1"}, "input 0: rank mismatch; expected rank 1 (?) but have rank 2 (2x2)"},
	} {
		_, err := tryRun(dev, module, "chain", tc.inputs...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("inputs %v: error %v, want it to mention %q", tc.inputs, err, tc.want)
		}
	}
}

// TestCompileErrors checks the messages for a missing object, an object
// that lacks a called symbol and a dispatch whose operands do not fit the
// export's layout.
func TestCompileErrors(t *testing.T) {
	clang := tools(t)
	src, err := os.ReadFile(filepath.Join("testdata", "cpu_hal_head.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	_, err = compileSource("cpu_hal_head.mlir", src, []string{empty})
	if err == nil || !strings.Contains(err.Error(), "referenced object file not found on any path") ||
		!strings.Contains(err.Error(), filepath.Join(empty, "functions_head_x86_64.o")) {
		t.Errorf("missing object: %v", err)
	}

	partial := t.TempDir()
	c := filepath.Join(partial, "partial.c")
	if err := os.WriteFile(c, []byte("void simple_mul_workgroup(void) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(clang, "-target", "x86_64-unknown-unknown-eabi-elf", "-fPIC", "-c", "-o",
		filepath.Join(partial, "functions_head_x86_64.o"), c).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, err = compileSource("cpu_hal_head.mlir", src, []string{partial})
	if err == nil || !strings.Contains(err.Error(), "simple_mul_inplace_workgroup") || !(strings.Contains(err.Error(), "undefined symbol") || strings.Contains(err.Error(), "does not define function")) {
		t.Errorf("missing symbol: %v", err)
	}

	bad := strings.Replace(string(src), "@simple_mul[%n](%n_i32, %lhs, %rhs)", "@simple_mul[%n](%lhs, %rhs)", 1)
	bad = strings.Replace(bad, "(i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}", "(tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}", 1)
	_, err = compileSource("bad.mlir", []byte(bad), []string{partial})
	if err == nil || !strings.Contains(err.Error(), "declares 1 constants") {
		t.Errorf("operand count mismatch: %v", err)
	}
}

// TestTransientReuseRuns runs three chained dispatches whose last result
// reuses the first intermediate's buffer: x * 8 everywhere.
func TestTransientReuseRuns(t *testing.T) {
	tools(t)
	module, err := compile("reuse.mlir", nil)
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
			got := run(t, dev, module, "octuple", "5xf32=1 2 3 4 -0.5")
			if want := "result[0]: hal.buffer_view\n5xf32=8 16 24 32 -4\n"; got != want {
				t.Fatalf("got %q want %q", got, want)
			}
		})
	}
}

// TestTiedArgumentIsCopied dispatches an in-place kernel on a function
// argument: the caller's buffer must not change, so the host copies it
// first; returning both shows the difference.
func TestTiedArgumentIsCopied(t *testing.T) {
	clang := tools(t)
	dir := t.TempDir()
	buildKernels(t, clang, dir)
	src, err := os.ReadFile(filepath.Join("testdata", "cpu_hal_head.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	i := strings.Index(text, "  func.func @mixed_invocation")
	if i < 0 {
		t.Fatal("no host function in cpu_hal_head.mlir")
	}
	text = text[:i] + `  func.func @scale(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %r = flow.dispatch @kernels::@x86_64::@simple_mul_inplace[%n](%n_i32, %lhs, %rhs) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %rhs{%n}
    return %r, %rhs : tensor<?xf32>, tensor<?xf32>
  }
}
`
	module, err := compileSource("tied.mlir", []byte(text), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	got := run(t, dev, module, "scale", "3xf32=2", "3xf32=5")
	if want := "result[0]: hal.buffer_view\n3xf32=10 10 10\nresult[1]: hal.buffer_view\n3xf32=5 5 5\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

// TestMixedElementTypes runs a fused dispatch with splat constants, a
// comparison and a select, producing f32 and i1 results.
func TestMixedElementTypes(t *testing.T) {
	tools(t)
	module, err := compile("mixed.mlir", nil)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localtask.NewDevice(localtask.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	got := run(t, dev, module, "relu_scale", "2x3xf32=[1 -2 3][-4 5 -6]", "2x3xf32=1")
	// max(2a + 1, 0) and 2a + 1 > 0.
	// The runtime's printer may show i1 values as numbers or as hex bytes.
	want := "result[0]: hal.buffer_view\n2x3xf32=[3 0 7][0 11 0]\nresult[1]: hal.buffer_view\n2x3xi1=[1 0 1][0 1 0]\n"
	wantHex := "result[0]: hal.buffer_view\n2x3xf32=[3 0 7][0 11 0]\nresult[1]: hal.buffer_view\n2x3xi1=[01 00 01][00 01 00]\n"
	if got != want && got != wantHex {
		t.Fatalf("got %q want %q", got, want)
	}
}

// TestScalarFunction runs host-only index and i32 math.
func TestScalarFunction(t *testing.T) {
	module, err := compile("scalars.mlir", nil)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	// n = 100: ceildiv(100, 64) + 100 mod 3 - 100 floordiv 7 = 2 + 1 - 14 = -11;
	// max(100 * -2, -2) = -2.
	got := run(t, dev, module, "tiles", "100", "-2")
	if want := "result[0]: i64=-11\nresult[1]: i32=-2\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

// BenchmarkCompile measures a whole compile of the samples (clang and lld
// included); SPEC §4 asks for at most 0.3 s for the CPU sample.
func BenchmarkCompile(b *testing.B) {
	clang := tools(b)
	dir := b.TempDir()
	buildKernels(b, clang, dir)
	for _, file := range []string{"cpu_hal.mlir", "cpu_stream.mlir"} {
		b.Run(file, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := compile(file, []string{dir}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNoRunnableVariant compiles a program for arm_64 only: on an x86-64
// device the dispatch finds no variant and fails with a clear error.
func TestNoRunnableVariant(t *testing.T) {
	tools(t)
	src := `#arm = #hal.executable.target<"llvm-cpu", "embedded-elf-arm_64">
#dev = #hal.device.target<"llvm-cpu", {executable_targets = [#arm]}>
module @arm_only attributes {hal.device.targets = [#dev]} {
  func.func @double(%a: tensor<?xf32>) -> tensor<?xf32> {
    %r = arith.addf %a, %a : tensor<?xf32>
    return %r : tensor<?xf32>
  }
}
`
	module, err := compileSource("arm_only.mlir", []byte(src), nil)
	if err != nil {
		t.Skipf("skipping: cannot build for arm_64 here: %v", err)
	}
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	_, err = tryRun(dev, module, "double", "4xf32=1")
	if err == nil || !strings.Contains(err.Error(), "no variant of @double_dispatch_0::@double_dispatch_0_elementwise can run on this device") ||
		!strings.Contains(err.Error(), "embedded-elf-arm_64") {
		t.Errorf("error %v", err)
	}
}

// BenchmarkInvokeSmall measures one call of the CPU sample on 8 elements
// through the whole stack (VM, hal module, device): two custom dispatches,
// one generated dispatch, allocation and submission.
func BenchmarkInvokeSmall(b *testing.B) {
	clang := tools(b)
	dir := b.TempDir()
	buildKernels(b, clang, dir)
	module, err := compile("cpu_hal_head.mlir", []string{dir})
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range devices {
		b.Run(d.name, func(b *testing.B) {
			dev, err := d.make()
			if err != nil {
				b.Fatal(err)
			}
			defer dev.Close()
			s, err := session.Open(dev, module)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			f, err := s.Lookup("mixed_invocation")
			if err != nil {
				b.Fatal(err)
			}
			in, err := functionio.ParseInputs([]string{"8xf32=2", "8xf32=4"})
			if err != nil {
				b.Fatal(err)
			}
			args, err := s.Arguments(f, in)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Invoke(f, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
