package vulkan_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
)

func TestLookupTarget(t *testing.T) {
	for _, tc := range []struct {
		name, arch          string
		invocations, shared int
		coop                bool
	}{
		{"ampere", "sm_80", 1024, 49152, true},
		{"SM_86", "sm_80", 1024, 49152, true},
		{"a100", "sm_80", 1024, 49152, true},
		{"rtx4090", "sm_89", 1024, 49152, true},
		{"rtx3060", "sm_80", 1024, 49152, true},
		{"h200", "sm_90", 1024, 49152, true},
		{"pascal", "sm_60", 1024, 49152, false},
		{"rdna3", "rdna3", 1024, 65536, true},
		{"rx7900xtx", "rdna3", 1024, 65536, true},
		{"gfx1030", "rdna2", 1024, 65536, false},
		{"valhall", "valhall1", 512, 32768, false},
		{"mali-g715", "valhall4", 512, 32768, false},
		{"adreno-740", "adreno", 1024, 32768, false},
		{"adreno-650l", "adreno", 1024, 32768, false},
		{"llvmpipe", "llvmpipe", 1024, 32768, false},
		{"vp_android_baseline_2022", "vp_android_baseline_2022", 128, 16384, false},
	} {
		d, err := vulkan.LookupTarget(tc.name)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d.Arch != tc.arch || d.MaxInvocations != tc.invocations || d.MaxSharedBytes != tc.shared || (len(d.MMA) > 0) != tc.coop {
			t.Errorf("%s: %s, %d invocations, %d bytes shared, cooperative matrices %v; want %s, %d, %d, %v",
				tc.name, d.Arch, d.MaxInvocations, d.MaxSharedBytes, d.MMA, tc.arch, tc.invocations, tc.shared, tc.coop)
		}
	}
	for _, bad := range []string{"", "sm_91", "adreno-74", "adreno-x40", "gfx90a", "nvidia"} {
		_, err := vulkan.LookupTarget(bad)
		if want := "--iree-vulkan-target=" + bad + ": unknown Vulkan target (known: pascal, "; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want one starting %q", bad, err, want)
		}
	}
}

// parseTarget parses an executable target attribute.
func parseTarget(t *testing.T, text string) *hal.ExecutableTargetAttr {
	t.Helper()
	a, err := ir.ParseAttribute(text, dialect.NewRegistry())
	if err != nil {
		t.Fatalf("parsing %s: %v", text, err)
	}
	et, ok := a.(*hal.ExecutableTargetAttr)
	if !ok {
		t.Fatalf("%s is a %T", text, a)
	}
	return et
}

// TestDeviceOf reads devices back from their printed attributes, from
// IREE's own spelling, and refuses malformed ones with the field named.
func TestDeviceOf(t *testing.T) {
	for _, name := range []string{"ampere", "rdna3", "valhall", "llvmpipe"} {
		want, err := vulkan.LookupTarget(name)
		if err != nil {
			t.Fatal(err)
		}
		text := `#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {` + vulkan.TargetInfoKey + ` = ` + ir.AttrString(want.Attr()) + `}>`
		got, err := vulkan.DeviceOf(parseTarget(t, text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read back %+v from %s, want %+v", name, got, text, want)
		}
	}
	if d, err := vulkan.DeviceOf(parseTarget(t, `#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">`)); err != nil || !reflect.DeepEqual(d, vulkan.Portable) {
		t.Errorf("no description: %+v, %v; want Portable", d, err)
	}
	// As IREE writes it (compiler/pipeline/testdata/programs/vulkan_head.mlir).
	iree := `#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {
  iree_codegen.target_info = #iree_gpu.target<arch = "rdna3", features = "spirv:v1.6,cap:Shader", wgp = <
    compute = fp32|int32, storage = b32, subgroup = shuffle|arithmetic, dot = dp4xi8toi32,
    mma = [<WMMA_F32_16x16x16_F16>, <WMMA_F16_16x16x16_F16>],
    subgroup_size_choices = [64, 32], max_workgroup_sizes = [1024, 1024, 1024],
    max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 65536,
    max_workgroup_counts = [2147483647, 2147483647, 2147483647]>>,
  iree.spirv.features = ["vulkan-spirv"]}>`
	d, err := vulkan.DeviceOf(parseTarget(t, iree))
	if err != nil {
		t.Fatal(err)
	}
	if d.Arch != "rdna3" || d.MaxInvocations != 1024 || d.MaxSharedBytes != 65536 || !reflect.DeepEqual(d.SubgroupSizes, []int{64, 32}) ||
		!reflect.DeepEqual(d.MMA, []string{"WMMA_F32_16x16x16_F16", "WMMA_F16_16x16x16_F16"}) || d.Subgroup != "shuffle|arithmetic" {
		t.Errorf("IREE's spelling read as %+v", d)
	}
	full := func(wgp string) string {
		return `#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "x", features = "", wgp = <` + wgp + `>>}>`
	}
	const ok = `subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 49152`
	for _, tc := range []struct{ name, text, want string }{
		{"not a GPU target", `#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {iree_codegen.target_info = "ampere"}>`, `iree_codegen.target_info must be a #iree_gpu.target<...>, found "ampere"`},
		{"no wgp", `#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "x">}>`, "no wgp = <...> with the device's limits"},
		{"no invocations", full(strings.Replace(ok, "max_thread_count_per_workgroup = 1024, ", "", 1)), "wgp has no max_thread_count_per_workgroup"},
		{"bad shared memory", full(strings.Replace(ok, "49152", "48K", 1)), "wgp's max_workgroup_memory_bytes = 48K is not a positive integer"},
		{"two sizes", full(strings.Replace(ok, "[1024, 1024, 64]", "[1024, 64]", 1)), "wgp's max_workgroup_sizes = [1024, 64] does not have 3 elements"},
	} {
		_, err := vulkan.DeviceOf(parseTarget(t, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// The parser keeps brackets balanced; a body built otherwise is
	// refused too.
	unbalanced := &hal.ExecutableTargetAttr{Backend: "vulkan-spirv", Format: vulkan.Format, Config: &ir.DictAttr{Entries: []ir.NamedAttr{
		{Name: vulkan.TargetInfoKey, Value: &ir.OpaqueAttr{Name: "iree_gpu.target", Body: `arch = "x", wgp = <mma = [<A]>`}}}}}
	if _, err := vulkan.DeviceOf(unbalanced); err == nil || !strings.Contains(err.Error(), "unbalanced") {
		t.Errorf("unbalanced brackets: error %v", err)
	}
	if _, err := vulkan.DeviceOf(parseTarget(t, full(ok))); err != nil {
		t.Errorf("the required fields alone: %v", err)
	}
}

// compileMatmuls compiles testdata/target_matmul.mlir for vulkan-spirv
// with target flags, dumping the shader sources into dir.
func compileMatmuls(t *testing.T, flags map[string]string, dir string) (*pipeline.State, error) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "target_matmul.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.Compile("target_matmul.mlir", src, pipeline.Options{
		Targets:     transforms.TargetOptions{Backends: []string{"vulkan-spirv"}},
		TargetFlags: flags, DumpSourcesTo: dir,
	}, "end")
}

// TestTargetLayouts: --iree-vulkan-target records the device in the
// module's executable targets, and the tiled matmuls' workgroup size,
// blocks and column split (chosen at dispatch creation: 1024 static
// columns in blocks of the layout's width, 16 groups for dynamic ones)
// follow its limits: 256 invocations in 128x128 blocks where it runs
// them and their 16.25 KiB of tiles, otherwise the 128 invocations in
// 128x64 blocks that every Vulkan device runs.
func TestTargetLayouts(t *testing.T) {
	tool := glslc(t)
	for _, tc := range []struct {
		target string
		size   int
		record string
	}{
		{"", 128, ""},
		{"vp_android_baseline_2022", 128, `arch = "vp_android_baseline_2022"`},
		{"ampere", 256, `arch = "sm_80"`},
		{"h200", 256, `arch = "sm_90"`},
		{"valhall", 256, `arch = "valhall1"`},
		{"llvmpipe", 256, `arch = "llvmpipe"`},
	} {
		dir := t.TempDir()
		s, err := compileMatmuls(t, map[string]string{"iree-vulkan-target": tc.target}, dir)
		if err != nil {
			t.Fatalf("%q: %v", tc.target, err)
		}
		tn := tc.size / 2 // 16 thread rows of 8 rows, by (threads / 16) columns of 8
		for exe, wantZ := range map[string]string{"static_linalg_0": strconv.Itoa(1024 / tn), "dynamic_linalg_0": "16"} {
			var variant *ir.Operation
			ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
				if op.Name == "hal.executable.variant" && op.ParentOp().SymName() == exe {
					variant = op
				}
				return true
			})
			if variant == nil {
				t.Fatalf("%q: no variant of %s", tc.target, exe)
			}
			text := ir.AttrString(hal.VariantTarget(variant))
			if tc.record == "" && strings.Contains(text, vulkan.TargetInfoKey) || !strings.Contains(text, tc.record) {
				t.Errorf("%q: executable target %s, want one recording %q", tc.target, text, tc.record)
			}
			// The export's workgroup count: z is the column split.
			var z string
			ir.Walk(variant, func(op *ir.Operation) bool {
				if op.Name == "arith.constant" && len(op.Results) == 1 && op.Results[0].Name == "z" {
					if v, ok := op.Attr("value").(ir.IntegerAttr); ok {
						z = strconv.FormatInt(v.Value, 10)
					}
				}
				return true
			})
			if z != wantZ {
				t.Errorf("%q: %s's column split %q, want %s", tc.target, exe, z, wantZ)
			}
			glsl, err := os.ReadFile(filepath.Join(dir, exe+"_vulkan_spirv_fb.glsl"))
			if err != nil {
				t.Fatal(err)
			}
			src := string(glsl)
			if blocks := fmt.Sprintf("blocks of 128x%d outputs", tn); !strings.Contains(src, blocks) {
				t.Errorf("%q: %s's shader has no %q:\n%s", tc.target, exe, blocks, src)
			}
			code, err := vulkan.CompileGLSL(tool, src)
			if err != nil {
				t.Fatal(err)
			}
			if ws := localSize(code); ws != [3]uint32{uint32(tc.size), 1, 1} {
				t.Errorf("%q: %s's LocalSize %v, want %d x 1 x 1", tc.target, exe, ws, tc.size)
			}
		}
	}
	if _, err := compileMatmuls(t, map[string]string{"iree-vulkan-target": "geforce"}, ""); err == nil || !strings.Contains(err.Error(), "--iree-vulkan-target=geforce: unknown Vulkan target") {
		t.Errorf("unknown target: error %v", err)
	}
}

// TestCoopMatmul: f16 matmuls with linalg.matmul's multiply-add run on
// cooperative matrices for targets that have them (NVIDIA's, 32-wide
// subgroups), with and without an f32 input to add onto, and their SPIR-V
// declares CooperativeMatrixNV and validates; other targets, and a body
// that is not a multiply-add, keep the tiled kernel.
func TestCoopMatmul(t *testing.T) {
	tool := glslc(t)
	src, err := os.ReadFile(filepath.Join("testdata", "target_matmul_f16.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target string
		coop   bool
	}{{"ampere", true}, {"h200", true}, {"turing", true}, {"pascal", false}, {"rdna3", false}, {"llvmpipe", false}, {"", false}} {
		dir := t.TempDir()
		_, err := pipeline.Compile("target_matmul_f16.mlir", src, pipeline.Options{
			Targets:     transforms.TargetOptions{Backends: []string{"vulkan-spirv"}},
			TargetFlags: map[string]string{"iree-vulkan-target": tc.target}, DumpSourcesTo: dir,
		}, "end")
		if err != nil {
			t.Fatalf("%q: %v", tc.target, err)
		}
		for exe, coop := range map[string]bool{"mm16_linalg_0": tc.coop, "mm16_onto_linalg_0": tc.coop, "maxplus16_linalg_0": false} {
			glsl, err := os.ReadFile(filepath.Join(dir, exe+"_vulkan_spirv_fb.glsl"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(glsl), "coopMatMulAddNV"); got != coop {
				t.Errorf("%q: %s uses cooperative matrices: %v, want %v", tc.target, exe, got, coop)
			}
			if !coop {
				continue
			}
			code, err := vulkan.CompileGLSL(tool, string(glsl))
			if err != nil {
				t.Fatalf("%q: %s: %v", tc.target, exe, err)
			}
			spirvVal(t, code)
			if ws := localSize(code); ws != [3]uint32{256, 1, 1} {
				t.Errorf("%q: %s: LocalSize %v, want 256 x 1 x 1", tc.target, exe, ws)
			}
			if !hasCapability(code, 5357) {
				t.Errorf("%q: %s: no CooperativeMatrixNV capability", tc.target, exe)
			}
		}
	}
}

// hasCapability reports whether SPIR-V code declares a capability.
func hasCapability(code []uint32, c uint32) bool {
	for i := 5; i < len(code) && code[i]>>16 > 0; i += int(code[i] >> 16) {
		if code[i] == 2<<16|17 && code[i+1] == c { // OpCapability
			return true
		}
	}
	return false
}
