package llvmcpu_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/objects"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	rhal "github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
)

// tools skips the test when clang or ld.lld is missing.
func tools(t *testing.T) (clang, lld string) {
	t.Helper()
	c, err := llvmcpu.Options{}.FindClang()
	if err != nil {
		t.Skipf("skipping: %v (clang-16 is needed to build test kernels)", err)
	}
	l, err := llvmcpu.Options{}.FindLinker()
	if err != nil {
		t.Skipf("skipping: %v (ld.lld-16 is needed to link CPU executables)", err)
	}
	return c, l
}

// compileKernel builds testdata/<name>.c into dir/<name>.o.
func compileKernel(t *testing.T, clang, dir, name string) string {
	t.Helper()
	obj := filepath.Join(dir, name+".o")
	args := []string{"-target", "x86_64-unknown-unknown-eabi-elf", "-std=c17", "-ffreestanding", "-fPIC", "-O2",
		"-fvisibility=hidden", "-fno-stack-protector", "-ffunction-sections", "-fdata-sections", "-c",
		"-o", obj, filepath.Join("testdata", name+".c")}
	if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
		t.Fatalf("compiling %s: %v\n%s", name, err, out)
	}
	return obj
}

func parseVariant(t *testing.T, file string) (*ir.Module, *ir.Operation) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	m, err := dialect.Parse(file, src, dialect.NewRegistry())
	if err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
	var variant *ir.Operation
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		if o.Name == "hal.executable.variant" && variant == nil {
			variant = o
		}
		return true
	})
	if variant == nil {
		t.Fatalf("%s has no variant", file)
	}
	return m, variant
}

func f32s(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func fromF32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// runner dispatches exports of one library on a local-sync device.
type runner struct {
	t   *testing.T
	dev rhal.Device
	exe rhal.Executable
}

func newRunner(t *testing.T, elf []byte) *runner {
	t.Helper()
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	cache, err := dev.CreateExecutableCache("test")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := cache.PrepareExecutable(rhal.ExecutableParams{Format: "embedded-elf-x86_64", Data: elf})
	if err != nil {
		t.Fatalf("loading generated library: %v", err)
	}
	t.Cleanup(func() { exe.Release() })
	return &runner{t: t, dev: dev, exe: exe}
}

func (r *runner) buffer(data []byte) *rhal.Buffer {
	b, err := r.dev.Allocator().AllocateBuffer(rhal.BufferParams{}, int64(len(data)))
	if err != nil {
		r.t.Fatal(err)
	}
	if err := b.Write(0, data); err != nil {
		r.t.Fatal(err)
	}
	return b
}

func (r *runner) dispatch(ordinal int, wg uint32, constants []uint32, bufs ...*rhal.Buffer) {
	r.t.Helper()
	cb, err := r.dev.CreateCommandBuffer(0, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := cb.Begin(); err != nil {
		r.t.Fatal(err)
	}
	var bs []rhal.Binding
	for i, b := range bufs {
		bs = append(bs, rhal.Binding{Ordinal: i, Buffer: b, Length: rhal.WholeBuffer})
	}
	if err := cb.DispatchWith(r.exe, ordinal, [3]uint32{wg, 1, 1}, constants, bs); err != nil {
		r.t.Fatal(err)
	}
	if err := cb.End(); err != nil {
		r.t.Fatal(err)
	}
	if err := rhal.SubmitAndWait(r.dev, cb); err != nil {
		r.t.Fatalf("dispatch %d: %v", ordinal, err)
	}
}

func read(t *testing.T, b *rhal.Buffer) []float32 {
	out := make([]byte, b.ByteLength())
	if err := b.Read(0, out); err != nil {
		t.Fatal(err)
	}
	return fromF32s(out)
}

func splat(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestShimsCallKernels builds the seed- and HEAD-spelling shims against C
// kernels, loads the library with the runtime's ELF loader and checks
// (a*b) and then b *= a on local-sync for a length that is not a multiple
// of the 64-element tile.
func TestShimsCallKernels(t *testing.T) {
	clang, _ := tools(t)
	for _, tc := range []struct{ file, kernel string }{
		{"shims_seed.mlir", "functions_seed"},
		{"shims_head.mlir", "functions_head"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := t.TempDir()
			compileKernel(t, clang, dir, tc.kernel)
			_, variant := parseVariant(t, tc.file)
			res := &objects.Resolver{SearchPaths: []string{dir}}
			dump := filepath.Join(dir, "dump")
			elf, err := llvmcpu.Build(variant, llvmcpu.Options{Objects: res, DumpSourcesTo: dump, DumpBinariesTo: dump})
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			for _, f := range []string{"executable_x86_64.c", "executable_x86_64.so"} {
				if _, err := os.Stat(filepath.Join(dump, f)); err != nil {
					t.Errorf("dump: %v", err)
				}
			}
			r := newRunner(t, elf)
			exports := r.exe.Exports()
			if len(exports) != 2 || exports[0].Name != "simple_mul" || exports[1].Name != "simple_mul_inplace" {
				t.Fatalf("exports = %+v", exports)
			}
			if exports[0].ConstantCount != 1 || exports[0].BindingCount != 3 || exports[1].BindingCount != 2 {
				t.Errorf("export attrs = %+v", exports)
			}
			const n = 100
			a := make([]float32, n)
			b := make([]float32, n)
			for i := range a {
				a[i] = float32(i)
				b[i] = 3
			}
			ba, bb, bc := r.buffer(f32s(a)), r.buffer(f32s(b)), r.buffer(f32s(splat(n+8, -1)))
			r.dispatch(0, (n+63)/64, []uint32{n}, ba, bb, bc)
			got := read(t, bc)
			for i := 0; i < n; i++ {
				if got[i] != a[i]*3 {
					t.Fatalf("simple_mul[%d] = %v, want %v", i, got[i], a[i]*3)
				}
			}
			for i := n; i < n+8; i++ {
				if got[i] != -1 {
					t.Fatalf("simple_mul wrote past dim at %d: %v", i, got[i])
				}
			}
			r.dispatch(1, (n+63)/64, []uint32{n}, ba, bb)
			got = read(t, bb)
			for i := 0; i < n; i++ {
				if got[i] != a[i]*3 {
					t.Fatalf("simple_mul_inplace[%d] = %v, want %v", i, got[i], a[i]*3)
				}
			}
		})
	}
}

const elementwiseVariant = `
#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#l = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
module {
  hal.executable private @ew {
    hal.executable.variant public @x86_64 target(#t) {
      hal.executable.export public @fused ordinal(0) layout(#l) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 16)>()[%n]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
      builtin.module {
        func.func private @fused_body(%a: f32, %b: f32) -> f32 {
          %s = arith.addf %a, %b : f32
          %p = arith.mulf %s, %a : f32
          %r = arith.subf %p, %b : f32
          %c = arith.constant 0.5 : f32
          %m = arith.maximumf %r, %c : f32
          %q = math.sqrt %m : f32
          %e = math.exp %q : f32
          %lg = math.log %e : f32
          return %lg : f32
        }
        func.func @fused() attributes {goiree.elementwise = {body = @fused_body, tile_size = 16 : index}} {
          return
        }
      }
    }
  }
}
`

// TestElementwiseKernel compiles a generated elementwise kernel and checks
// it, including tiles clamped at the element count.
func TestElementwiseKernel(t *testing.T) {
	tools(t)
	m, err := dialect.Parse("ew.mlir", []byte(elementwiseVariant), dialect.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var variant *ir.Operation
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		if o.Name == "hal.executable.variant" {
			variant = o
		}
		return true
	})
	elf, err := llvmcpu.Build(variant, llvmcpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, elf)
	const n = 37
	a := make([]float32, n)
	b := make([]float32, n)
	for i := range a {
		a[i] = float32(i) * 0.25
		b[i] = float32(i%5) - 1
	}
	out := r.buffer(f32s(splat(n+3, 7)))
	r.dispatch(0, (n+15)/16, []uint32{n}, r.buffer(f32s(a)), r.buffer(f32s(b)), out)
	got := read(t, out)
	for i := 0; i < n; i++ {
		v := (a[i]+b[i])*a[i] - b[i]
		if v < 0.5 {
			v = 0.5
		}
		want := float32(math.Sqrt(float64(v)))
		if d := math.Abs(float64(got[i] - want)); d > 1e-4*math.Max(1, float64(want)) {
			t.Fatalf("out[%d] = %v, want %v", i, got[i], want)
		}
	}
	if got[n] != 7 {
		t.Errorf("kernel wrote past n: %v", got[n:])
	}
}

// TestErrors checks the messages for missing tools, missing objects and
// missing symbols.
func TestErrors(t *testing.T) {
	clang, _ := tools(t)
	_, variant := parseVariant(t, "shims_head.mlir")

	_, err := llvmcpu.Build(variant, llvmcpu.Options{ClangPath: "/nonexistent/clang"})
	if err == nil || !strings.Contains(err.Error(), "--iree-llvmcpu-clang-path=") {
		t.Errorf("missing clang: %v", err)
	}
	_, err = llvmcpu.Build(variant, llvmcpu.Options{LinkerPath: "/nonexistent/ld.lld", Objects: &objects.Resolver{}})
	if err == nil || !strings.Contains(err.Error(), "--iree-llvmcpu-embedded-linker-path=") {
		t.Errorf("missing lld: %v", err)
	}

	_, err = llvmcpu.Build(variant, llvmcpu.Options{Objects: &objects.Resolver{SearchPaths: []string{t.TempDir()}}})
	if err == nil || !strings.Contains(err.Error(), "not found on any path") || !strings.Contains(err.Error(), "functions_head.o") {
		t.Errorf("missing object: %v", err)
	}

	// An object that defines only one of the two called symbols.
	dir := t.TempDir()
	src := filepath.Join(dir, "functions_head.c")
	if err := os.WriteFile(src, []byte("void simple_mul_workgroup(void) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(clang, "-target", "x86_64-unknown-unknown-eabi-elf", "-fPIC", "-c", "-o",
		filepath.Join(dir, "functions_head.o"), src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, err = llvmcpu.Build(variant, llvmcpu.Options{Objects: &objects.Resolver{SearchPaths: []string{dir}}})
	if err == nil || !strings.Contains(err.Error(), "undefined symbol simple_mul_inplace_workgroup") ||
		!strings.Contains(err.Error(), filepath.Join(dir, "functions_head.o")) {
		t.Errorf("missing symbol: %v", err)
	}

	// Data objects are linked through a temporary file.
	obj := compileKernel(t, clang, t.TempDir(), "functions_head")
	data, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	dense := &ir.DenseAttr{Type: &ir.VectorType{Shape: []int64{int64(len(data))}, Elem: ir.I8}}
	for _, c := range data {
		dense.Elements = append(dense.Elements, ir.IntegerAttr{Value: int64(int8(c)), Type: ir.I8})
	}
	variant.SetAttr("objects", &ir.ArrayAttr{Elems: []ir.Attribute{&hal.ExecutableObjectAttr{Data: dense}}})
	elf, err := llvmcpu.Build(variant, llvmcpu.Options{Objects: &objects.Resolver{}})
	if err != nil {
		t.Fatalf("data object: %v", err)
	}
	newRunner(t, elf)
}

// TestBuildArm64 builds the HEAD shims for embedded-elf-arm_64 against an
// aarch64 kernel object and checks the machine of the result.
func TestBuildArm64(t *testing.T) {
	clang, _ := tools(t)
	dir := t.TempDir()
	obj := filepath.Join(dir, "functions_head.o")
	if out, err := exec.Command(clang, "-target", "aarch64-unknown-unknown-eabi-elf", "-ffreestanding", "-fPIC", "-O2", "-c",
		"-o", obj, filepath.Join("testdata", "functions_head.c")).CombinedOutput(); err != nil {
		t.Skipf("skipping: clang cannot target aarch64 here: %v\n%s", err, out)
	}
	_, variant := parseVariant(t, "shims_head.mlir")
	variant.SetAttr("target", &hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-arm_64"})
	so, err := llvmcpu.Build(variant, llvmcpu.Options{Objects: &objects.Resolver{SearchPaths: []string{dir}}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(so))
	if err != nil {
		t.Fatal(err)
	}
	if f.Machine != elf.EM_AARCH64 || f.Type != elf.ET_DYN {
		t.Errorf("machine %v type %v, want EM_AARCH64 ET_DYN", f.Machine, f.Type)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			names = append(names, s.Name)
		}
	}
	if len(names) != 1 || names[0] != "iree_hal_executable_library_query" {
		t.Errorf("exported symbols %v, want only the query function", names)
	}
}

// TestScalarOps checks affine and arith lowering, dispatch constants
// (i32 and f32) and workgroup queries against the same math in Go.
func TestScalarOps(t *testing.T) {
	clang, _ := tools(t)
	dir := t.TempDir()
	compileKernel(t, clang, dir, "store")
	_, variant := parseVariant(t, "scalar_ops.mlir")
	elf, err := llvmcpu.Build(variant, llvmcpu.Options{Objects: &objects.Resolver{SearchPaths: []string{dir}}})
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, elf)
	const n, k = 13, 3
	const f = float32(2.5)
	out := r.buffer(make([]byte, 8*n))
	r.dispatch(0, n, []uint32{k, math.Float32bits(f)}, out)
	raw := make([]byte, 8*n)
	if err := out.Read(0, raw); err != nil {
		t.Fatal(err)
	}
	floorDiv := func(a, b int64) int64 {
		q := a / b
		if a%b != 0 && (a < 0) != (b < 0) {
			q--
		}
		return q
	}
	for id := int64(0); id < n; id++ {
		a := floorDiv(id*7-10, 3) + id%4 - (n+1)/2
		rr := int32(id) % k
		sel := rr - k
		if int32(id) < k {
			sel = rr
		}
		mn := min(n-id, 4, id*2)
		mx := max(id-5, 2)
		want := a + int64(sel<<k)*1000 + int64(float32(id)*f)*1000000 + mn*1000000000 + mx*100000000000
		got := int64(binary.LittleEndian.Uint64(raw[8*id:]))
		if got != want {
			t.Errorf("workgroup %d: got %d, want %d", id, got, want)
		}
	}
}
