package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers"
	"github.com/goiree/goiree/runtime/tooling/session"
)

// externProgram dispatches one hal.dispatch.extern with four targets: two
// llvm-cpu entries naming exports of one hand-written executable library
// (ordinal 1 subtracts, ordinal 0 adds; the first only where the device id
// is local-sync) and two vulkan-spirv entries (an adding shader only on a
// CUDA device, which never holds for Vulkan, then a multiplying one). So
// local-sync computes a-b, local-task a+b and vulkan a*b.
const externProgram = `#cpu = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#spv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">
module @extern attributes {hal.device.targets = [
  #hal.device.target<"local", [#cpu]> : !hal.device,
  #hal.device.target<"vulkan", [#spv]> : !hal.device
]} {
  func.func @apply(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %r = hal.dispatch.extern "main"[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
      count(%device: !hal.device, %w: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%w]
        %one = arith.constant 1 : index
        hal.return %x, %one, %one : index, index, index
      }
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({
        #cpu if(%device: !hal.device) -> i1 {
          %known, %is_sync = hal.device.query<%device : !hal.device> key("hal.device.id" :: "local-sync") : i1, i1 = false
          hal.return %is_sync : i1
        } ordinal(1) = [#hal.executable.object<{path = "library.so"}>],
        #cpu ordinal(0) = [#hal.executable.object<{path = "library.so"}>],
        #spv if(%device: !hal.device) -> i1 {
          %known, %is_cuda = hal.device.query<%device : !hal.device> key("hal.device.id" :: "cuda*") : i1, i1 = false
          hal.return %is_cuda : i1
        } ordinal(0) = [#hal.executable.object<{path = "add.spv"}>],
        #spv ordinal(0) = [#hal.executable.object<{path = "mul.spv"}>]
      })
    return %r : tensor<?xf32>
  }
}
`

// buildExternObjects builds the library and the shaders the program names
// into dir (absolute), skipping the test when a tool or the runtime's
// library header is missing.
func buildExternObjects(t *testing.T, dir string) {
	t.Helper()
	src, _ := filepath.Abs("testdata/extern")
	hdr, _ := filepath.Abs("../../runtime/hal/local")
	if _, err := os.Stat(filepath.Join(hdr, "executable_library.h")); err != nil {
		t.Skipf("the runtime's executable_library.h is not reachable from the test: %v", err)
	}
	need := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		t.Skipf("%s not found on PATH", names[0])
		return ""
	}
	clang, lld, glslc := need("clang-16", "clang"), need("ld.lld-16", "ld.lld"), need("glslc")
	cmds := [][]string{
		{clang, "-target", "x86_64-unknown-unknown-eabi-elf", "-std=c17", "-ffreestanding", "-fPIC", "-fvisibility=hidden", "-O2",
			"-I", hdr, "-c", filepath.Join(src, "library.c"), "-o", filepath.Join(dir, "library.o")},
		{lld, "-shared", "--no-undefined", "-nostdlib", "-static", "-z", "now", "--build-id=none", "--hash-style=sysv",
			"-o", filepath.Join(dir, "library.so"), filepath.Join(dir, "library.o")},
		{glslc, "-fshader-stage=compute", "-DOP=+", filepath.Join(src, "ops.glsl"), "-o", filepath.Join(dir, "add.spv")},
		{glslc, "-fshader-stage=compute", "-DOP=*", filepath.Join(src, "ops.glsl"), "-o", filepath.Join(dir, "mul.spv")},
	}
	for _, c := range cmds {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
}

// invoke runs fn of module on the device named by uri with two f32 inputs
// and returns the result as iree-run-module prints it.
func invoke(t *testing.T, uri string, module []byte, fn string, a, b []float32) (string, error) {
	t.Helper()
	reg := &rhal.Registry{}
	if err := drivers.Register(reg, drivers.Options{}); err != nil {
		t.Fatal(err)
	}
	dev, err := reg.CreateDevice(uri)
	if err != nil {
		return "", fmt.Errorf("no %s device: %w", uri, err)
	}
	s, err := session.Open(dev, module)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Three calls in one context: the first creates the executables, the
	// later ones find them cached, and every call must choose the same
	// variant (a cached executable shared by variants must not bypass a
	// variant's condition).
	var first string
	for call := 0; call < 3; call++ {
		out, err := s.Run(fn, vec(a), vec(b))
		if err != nil {
			t.Fatalf("%s on %s, call %d: %v", fn, uri, call, err)
		}
		got := strings.TrimSpace(out)
		if call == 0 {
			first = got
		} else if got != first {
			t.Errorf("%s on %s: call %d gave\n%s\nbut call 0 gave\n%s", fn, uri, call, got, first)
		}
	}
	return first, nil
}

// vec formats values as an --input, e.g. 3xf32=1 2 3.
func vec(v []float32) string {
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprint(x))
	}
	return fmt.Sprintf("%dxf32=%s", len(v), strings.Join(s, " "))
}

// TestDispatchExternTargets compiles the four-target extern and runs it on
// local-sync, local-task and (where a Vulkan device exists) vulkan; each
// device must run the variant its conditions and formats select, checked
// against plain Go arithmetic.
func TestDispatchExternTargets(t *testing.T) {
	dir := t.TempDir()
	buildExternObjects(t, dir)
	t.Chdir(dir)
	if err := os.WriteFile("extern.mlir", []byte(externProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"extern.mlir", "-o", "extern.vmfb"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("iree-compile: exit %d: %s", code, stderr.String())
	}
	module, err := os.ReadFile("extern.vmfb")
	if err != nil {
		t.Fatal(err)
	}
	// 70 elements: two workgroups, the second partial.
	a, b := make([]float32, 70), make([]float32, 70)
	for i := range a {
		a[i], b[i] = float32(i+3), float32(2*i-5)
	}
	expect := func(op func(x, y float32) float32) string {
		r := make([]float32, len(a))
		for i := range a {
			r[i] = op(a[i], b[i])
		}
		return "result[0]: hal.buffer_view\n" + vec(r)
	}
	for _, c := range []struct {
		device string
		want   string
	}{
		{"local-sync", expect(func(x, y float32) float32 { return x - y })},
		{"local-task", expect(func(x, y float32) float32 { return x + y })},
		{"vulkan", expect(func(x, y float32) float32 { return x * y })},
	} {
		got, err := invoke(t, c.device, module, "apply", a, b)
		if err != nil {
			if c.device == "vulkan" {
				t.Logf("skipping vulkan: %v", err)
				continue
			}
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.device, got, c.want)
		}
	}
}

// TestDispatchExternNotALibrary names a shared object that is not an
// executable library as an llvm-cpu extern's object: one clear error, exit
// 1 and no output file.
func TestDispatchExternNotALibrary(t *testing.T) {
	dir := t.TempDir()
	buildExternObjects(t, dir)
	t.Chdir(dir)
	clang, _ := exec.LookPath("clang-16")
	lld, _ := exec.LookPath("ld.lld-16")
	if clang == "" || lld == "" {
		t.Skip("clang-16 and ld.lld-16 build the shared object")
	}
	if err := os.WriteFile("plain.c", []byte("__attribute__((visibility(\"default\"))) int twice(int x) { return 2 * x; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{
		{clang, "-target", "x86_64-unknown-unknown-eabi-elf", "-ffreestanding", "-fPIC", "-c", "plain.c", "-o", "plain.o"},
		{lld, "-shared", "-nostdlib", "-static", "-o", "plain.so", "plain.o"},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	prog := strings.Replace(externProgram, `#cpu ordinal(0) = [#hal.executable.object<{path = "library.so"}>]`, `#cpu ordinal(0) = [#hal.executable.object<{path = "plain.so"}>]`, 1)
	if err := os.WriteFile("bad.mlir", []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"bad.mlir", "-o", "bad.vmfb"}, nil, &stdout, &stderr)
	want := "bad.mlir:11:10: error: 'hal.executable.variant' op shared library plain.so does not export iree_hal_executable_library_query, so it is not an executable library\n"
	if code != 1 || !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("exit %d, stderr:\n%s\nwant prefix:\n%s", code, stderr.String(), want)
	}
	if _, err := os.Stat("bad.vmfb"); !os.IsNotExist(err) {
		t.Errorf("output file written despite the error (stat: %v)", err)
	}
}
