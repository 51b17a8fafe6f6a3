package cuda_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
)

func compileText(file, src string) ([]byte, error) {
	s, err := pipeline.Compile(file, []byte(src), pipeline.Options{ObjectSearchPaths: []string{"testdata"}}, "")
	if err != nil {
		return nil, err
	}
	return backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets})
}

func testdata(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// twoVariants is a program with an explicit hal.executable of two cuda
// variants, for archA and archB, exporting simple_mul with the given
// block widths.
func twoVariants(archA, archB string, blockA, blockB int) string {
	variant := func(name, arch string, block int) string {
		return fmt.Sprintf(`
    hal.executable.variant public @%s target(#hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "%s"}>) objects([#hal.executable.object<{path = "kernels_%s.ptx"}>]) {
      hal.executable.export public @simple_mul ordinal(0) layout(#layout) count(%%d: !hal.device, %%n: index) -> (index, index, index) {
        %%c1 = arith.constant 1 : index
        hal.return %%n, %%c1, %%c1 : index, index, index
      } attributes {workgroup_size = [%d : index, 1 : index, 1 : index]}
    }`, name, arch, arch, block)
	}
	return `
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
module @m {
  hal.executable private @exe {` + variant("a", archA, blockA) + variant("b", archB, blockB) + `
  }
  func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %n32 = arith.index_cast %n : index to i32
    %r = flow.dispatch @exe::@simple_mul[%n](%n32, %x, %y) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    return %r : tensor<?xf32>
  }
}
`
}

// TestBuildErrors: programs the cuda target must reject, each with the
// error naming the problem.
func TestBuildErrors(t *testing.T) {
	sample, ew := testdata(t, "sample.mlir"), testdata(t, "elementwise.mlir")
	const ws = "workgroup_size = [64 : index, 1 : index, 1 : index]"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"no workgroup size", strings.Replace(sample, ws, "other = 1", 1), "needs a workgroup_size (the CUDA block size)"},
		{"block too wide", strings.Replace(sample, ws, "workgroup_size = [2048 : index, 1 : index, 1 : index]", 1), "must be an integer in [1, 1024]"},
		{"block too many threads", strings.Replace(sample, ws, "workgroup_size = [64 : index, 32 : index, 1 : index]", 1), "2048 threads, over CUDA's 1024"},
		{"unknown architecture", strings.ReplaceAll(ew, "sm_80", "sm_130"), "unknown architecture.mlir:9:10: error: 'hal.executable.variant' op cuda code generation does not know the PTX ISA version for sm_130 (it knows sm_30, sm_32, sm_35"},
		{"bad architecture", strings.ReplaceAll(ew, `"sm_80"`, `"gfx90a"`), `target_arch "gfx90a" is not of the form sm_XY`},
		{"bad external architecture", strings.ReplaceAll(sample, `"sm_80"`, `"sm80"`), `target_arch "sm80" is not of the form sm_XY`},
		{"PTX newer than its variant", strings.Replace(sample, `target_arch = "sm_80"`, `target_arch = "sm_75"`, 1),
			"object testdata/kernels_sm_80.ptx is PTX for sm_80 (its .target) but variant @cuda_nvptx_fb_sm_75 targets sm_75: it would not load on sm_75 devices"},
		{"two variants for one arch", twoVariants("sm_80", "sm_80", 64, 64), "variants @a and @b both target sm_80; an executable has one cuda variant per architecture"},
		{"variants disagree", twoVariants("sm_52", "sm_80", 64, 128),
			"cuda variant @b exports @simple_mul (block 128x1x1, shared memory 0, 1 constants, 3 bindings) at ordinal 0 but @a exports @simple_mul (block 64x1x1, shared memory 0, 1 constants, 3 bindings)"},
		{"unsupported op", strings.Replace(ew, "%bf = arith.sitofp %b : tensor<?xi32> to tensor<?xf32>",
			"%bc = math.cttz %b : tensor<?xi32>\n    %bf = arith.sitofp %bc : tensor<?xi32> to tensor<?xf32>", 1), "'math.cttz' cannot be used in a cuda elementwise body"},
		{"unsupported type", strings.ReplaceAll(strings.Split(ew, "func.func @relu_scale")[0], "f32", "f8E5M2") + "}\n", "element type 'f8E5M2' is not supported in elementwise dispatches"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileText(tc.name+".mlir", tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestExternalPayload checks the executable an external variant becomes:
// the PTX verbatim and one entry point per export with its block size and
// layout counts.
func TestExternalPayload(t *testing.T) {
	dump := t.TempDir()
	s, err := pipeline.Compile("sample.mlir", []byte(testdata(t, "sample.mlir")), pipeline.Options{ObjectSearchPaths: []string{"testdata"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	opts := backend.Options{Registry: s.Registry, Targets: s.Targets}
	opts.LLVMCPU.DumpBinariesTo = dump
	if _, err := backend.Compile(s.Module.Op, opts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dump, "executable.cudafb"))
	if err != nil {
		entries, _ := os.ReadDir(dump)
		t.Fatalf("%v (dumped: %v)", err, entries)
	}
	exe, err := cudafb.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	ptx := testdata(t, "kernels_sm_80.ptx")
	if len(exe.Images) != 1 || exe.Images[0].Arch != "sm_80" || exe.Images[0].PTX != ptx {
		t.Errorf("payload images %v: want the sm_80 image of kernels_sm_80.ptx", exe.Archs())
	}
	if exe.Name != "executable" {
		t.Errorf("payload name %q, want executable", exe.Name)
	}
	want := []cudafb.EntryPoint{
		{Name: "simple_mul", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, BindingCount: 3},
		{Name: "simple_mul_inplace", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, BindingCount: 2},
	}
	if len(exe.EntryPoints) != len(want) {
		t.Fatalf("entry points %+v, want %+v", exe.EntryPoints, want)
	}
	for i := range want {
		if exe.EntryPoints[i] != want[i] {
			t.Errorf("entry point %d: %+v, want %+v", i, exe.EntryPoints[i], want[i])
		}
	}
}

// TestMultiArchModule compiles a program whose executables have sm_52 and
// sm_80 variants (the hand-written kernels as one PTX object per arch, and
// generated elementwise dispatches) and checks the module: every
// executable is one payload holding both images, each exactly once in the
// module, the external ones verbatim and the generated ones with the
// .version and .target of their arch and no instruction newer than it.
func TestMultiArchModule(t *testing.T) {
	dump := t.TempDir()
	s, err := pipeline.Compile("multi_arch.mlir", []byte(testdata(t, "multi_arch.mlir")), pipeline.Options{ObjectSearchPaths: []string{"testdata"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	opts := backend.Options{Registry: s.Registry, Targets: s.Targets}
	opts.LLVMCPU.DumpBinariesTo = dump
	vmfb, err := backend.Compile(s.Module.Op, opts)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dump)
	if err != nil {
		t.Fatal(err)
	}
	payloads := 0
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dump, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		exe, err := cudafb.Unmarshal(data)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		payloads++
		if got := strings.Join(exe.Archs(), ","); got != "sm_52,sm_80" {
			t.Errorf("%s: images %s, want sm_52,sm_80", e.Name(), got)
			continue
		}
		if n := bytes.Count(vmfb, data); n != 1 {
			t.Errorf("%s: payload appears %d times in the module, want once", e.Name(), n)
		}
		if e.Name() == "kernels.cudafb" {
			for i, f := range []string{"kernels_sm_52.ptx", "kernels_sm_80.ptx"} {
				if exe.Images[i].PTX != testdata(t, f) {
					t.Errorf("kernels: the %s image is not %s verbatim", exe.Images[i].Arch, f)
				}
			}
			continue
		}
		for _, tc := range []struct{ version, target string }{{".version 4.1\n", ".target sm_52\n"}, {".version 7.0\n", ".target sm_80\n"}} {
			im := exe.Images[0]
			if tc.target == ".target sm_80\n" {
				im = exe.Images[1]
			}
			if !strings.Contains(im.PTX, tc.version) || !strings.Contains(im.PTX, tc.target) {
				t.Errorf("%s: the %s image lacks %q or %q", e.Name(), im.Arch, tc.version, tc.target)
			}
		}
		for _, newer := range []string{"max.NaN", "min.NaN", "tanh.approx"} {
			if strings.Contains(exe.Images[0].PTX, newer) {
				t.Errorf("%s: the sm_52 image uses %s", e.Name(), newer)
			}
		}
	}
	if payloads != 5 { // kernels, the add between the kernels, specials' three dispatches
		t.Errorf("%d payloads dumped, want 5: %v", payloads, entries)
	}
}
