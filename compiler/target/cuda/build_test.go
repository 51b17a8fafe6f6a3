package cuda_test

import (
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
		{"old architecture", strings.ReplaceAll(ew, "sm_80", "sm_70"), "needs sm_80 or newer, not sm_70"},
		{"bad architecture", strings.ReplaceAll(ew, `"sm_80"`, `"gfx90a"`), `target_arch "gfx90a" is not of the form sm_XY`},
		{"unsupported op", strings.Replace(ew, "arith.subf %p, %b", "math.atan2 %p, %b", 1), "'math.atan2' cannot be used in a cuda elementwise body"},
		{"unsupported type", strings.ReplaceAll(strings.Split(ew, "func.func @relu_scale")[0], "f32", "f16") + "}\n", "element type f16 is not supported by cuda code generation"},
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
	data, err := os.ReadFile(filepath.Join(dump, "executable_cuda_nvptx_fb_sm_80.cudafb"))
	if err != nil {
		entries, _ := os.ReadDir(dump)
		t.Fatalf("%v (dumped: %v)", err, entries)
	}
	exe, err := cudafb.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	ptx := testdata(t, "kernels_sm_80.ptx")
	if exe.PTX != ptx {
		t.Errorf("payload PTX differs from kernels_sm_80.ptx")
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
