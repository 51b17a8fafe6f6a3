package pipeline

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/transforms"
)

// TestKernelABIErrors compiles programs whose objects do not match their
// declarations and checks the exact diagnostics.
func TestKernelABIErrors(t *testing.T) {
	seed, err := os.ReadFile("testdata/programs/cpu_hal_seed.mlir")
	if err != nil {
		t.Fatal(err)
	}
	stream, err := os.ReadFile("testdata/programs/cpu_stream_seed.mlir")
	if err != nil {
		t.Fatal(err)
	}
	vulkan, err := os.ReadFile("testdata/programs/vulkan_seed.mlir")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	haveCPU := objectDir(t, dir)
	t.Chdir(dir)
	cases := []struct {
		name, src, want string
		cpu             bool
	}{
		{"import not defined", strings.Replace(string(seed), "@simple_mul_inplace_workgroup", "@simple_mul_twice_workgroup", -1),
			"cpu_hal_seed.mlir:33:5: error: 'hal.executable.variant' op kernel ABI mismatch: objs/functions_x86_64.o: does not define function 'simple_mul_twice_workgroup', which @simple_mul_inplace calls through a hal.import.static declaration (defined functions: simple_mul_inplace_workgroup, simple_mul_workgroup)", true},
		{"object for the wrong architecture", strings.Replace(string(stream), `path = "functions_x86_64.o"`, `path = "functions_aarch64.o"`, 1),
			"cpu_stream_seed.mlir:23:3: error: 'hal.executable.variant' op kernel ABI mismatch: objs/functions_aarch64.o: object is for EM_AARCH64 but the variant targets x86_64 (EM_X86_64)", true},
		{"shader with the wrong binding count", strings.Replace(string(vulkan), `path = "simple_mul.spv"`, `path = "simple_mul_inplace.spv"`, 1),
			"vulkan_seed.mlir:16:3: error: 'hal.executable.variant' op kernel ABI mismatch: objs/simple_mul_inplace.spv: no storage buffer at set 0 binding 2, which export @main's layout declares (3 bindings)", false},
		{"missing object lists every path", strings.Replace(string(vulkan), `path = "simple_mul.spv"`, `path = "shaders/mul.spv"`, 1),
			"vulkan_seed.mlir:16:3: error: 'hal.executable.variant' op referenced object file not found on any path; use --iree-hal-executable-object-search-path= to add search paths: #hal.executable.object<{path = \"shaders/mul.spv\"}> (tried: shaders/mul.spv, objs/shaders/mul.spv, more/shaders/mul.spv)", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.cpu && !haveCPU {
				t.Skip("clang-16 not found on PATH; CPU objects cannot be built")
			}
			file := "vulkan_seed.mlir"
			if c.cpu {
				file = strings.SplitN(c.want, ":", 2)[0]
			}
			_, err := Compile(file, []byte(c.src), Options{ObjectSearchPaths: []string{"objs", "more"}}, "hal")
			if err == nil || err.Error() != c.want {
				t.Errorf("error = %v\nwant    %s", err, c.want)
			}
		})
	}
}

// TestDataObject embeds a shader as dense data instead of a path: it is
// checked like a file and kept as bytes.
func TestDataObject(t *testing.T) {
	spv, err := os.ReadFile("testdata/kernels/simple_mul.spv")
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`#spv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">
#l = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
hal.executable.source private @exe attributes {objects = #hal.executable.objects<{#spv = [#hal.executable.object<{data = dense<"0x%X"> : tensor<%dxi8>}>]}>} {
  hal.executable.export public @main ordinal(0) layout(#l) count(%%d: !hal.device, %%w: index) -> (index, index, index) {
    hal.return %%w, %%w, %%w : index, index, index
  }
}
`, spv, len(spv))
	s, err := Compile("data.mlir", []byte(src), Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}}, "hal")
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	out := s.Print()
	if !strings.Contains(out, "hal.executable.variant public @vulkan_spirv_fb target(#spv) objects([#hal.executable.object<{data = dense<\"0x0302230700") {
		t.Errorf("data object not kept on the variant:\n%.600s", out)
	}
	// A truncated shader is caught by the size rule.
	bad := strings.Replace(src, fmt.Sprintf("%X\"> : tensor<%dxi8>", spv, len(spv)), fmt.Sprintf("%X\"> : tensor<%dxi8>", spv[:len(spv)-2], len(spv)-2), 1)
	_, err = Compile("data.mlir", []byte(bad), Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}}, "hal")
	want := "data.mlir:3:1: error: 'hal.executable.variant' op object file is not 4-byte aligned as expected for SPIR-V (<embedded data> is 1670 bytes)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
	// Without device targets or backends the source cannot be materialised.
	_, err = Compile("data.mlir", []byte(src), Options{}, "hal")
	want = "data.mlir:3:1: error: 'hal.executable.source' op cannot materialise @exe: no executable targets (add hal.device.targets to the module or pass --iree-hal-target-backends=)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}
