package vulkan_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
)

// vulkanOptions compiles for the vulkan-spirv target only.
var vulkanOptions = pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}}

// loopNestVariants forms the linalg dispatches of a program for
// vulkan-spirv and returns their variants by executable name.
func loopNestVariants(t *testing.T, file string) map[string]*ir.Operation {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, vulkanOptions, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ir.Operation{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name == "hal.executable.variant" && vulkan.Supports(op) {
			out[op.ParentOp().SymName()] = op
		}
		return true
	})
	return out
}

// TestLoopNestGolden compares the shaders of loop-nest kernels with
// testdata/*.glsl.golden (rewrite them with -update) and checks that glslc
// compiles them to valid SPIR-V.
func TestLoopNestGolden(t *testing.T) {
	tool := glslc(t)
	vs := loopNestVariants(t, "loopnest.mlir")
	var names []string
	for n := range vs {
		names = append(names, n)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "matmul_linalg_0 narrow_linalg_0 rows_linalg_0 rows_linalg_1 rows_linalg_2 rows_linalg_3 tiled_linalg_0 tiled_linalg_1 tiled_linalg_2 tiled_linalg_3 window_linalg_0" {
		t.Fatalf("executables %v", names)
	}
	for _, exe := range names {
		src, err := vulkan.GenerateGLSL(hal.InnerModule(vs[exe]), exe)
		if err != nil {
			t.Fatalf("%s: %v", exe, err)
		}
		checkGolden(t, exe, filepath.Join("testdata", exe+".glsl.golden"), src)
		code, err := vulkan.CompileGLSL(tool, src)
		if err != nil {
			t.Fatalf("%s: %v", exe, err)
		}
		spirvVal(t, code)
		if ws := localSize(code); ws != [3]uint32{vulkan.LoopNestWorkgroupSize, 1, 1} {
			t.Errorf("%s: LocalSize %v, want %d x 1 x 1", exe, ws, vulkan.LoopNestWorkgroupSize)
		}
	}
}

// localSize reads the LocalSize execution mode of a SPIR-V module.
func localSize(code []uint32) [3]uint32 {
	const opExecutionMode, localSize = 16, 17
	for i := 5; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 {
			break
		}
		if code[i]&0xffff == opExecutionMode && n == 6 && code[i+2] == localSize {
			return [3]uint32{code[i+3], code[i+4], code[i+5]}
		}
		i += n
	}
	return [3]uint32{}
}

// TestLoopNestBadTypes: element types and ops the target does not
// generate, and element types whose device feature the target device
// (--iree-vulkan-target) lacks, are refused at compile time, naming the
// type, op or feature and where.
func TestLoopNestBadTypes(t *testing.T) {
	glslc(t)
	copyOf := func(ty string) string {
		return strings.ReplaceAll(`func.func @f(%x: tensor<4xT>) -> tensor<4xT> {
  %e = tensor.empty() : tensor<4xT>
  %r = linalg.copy ins(%x : tensor<4xT>) outs(%e : tensor<4xT>) -> tensor<4xT>
  return %r : tensor<4xT>
}`, "T", ty)
	}
	ctpopI64 := `#id = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<4xi64>) -> tensor<4xi64> {
  %e = tensor.empty() : tensor<4xi64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xi64>) outs(%e : tensor<4xi64>) {
  ^bb0(%a: i64, %o: i64):
    %y = math.ctpop %a : i64
    linalg.yield %y : i64
  } -> tensor<4xi64>
  return %r : tensor<4xi64>
}`
	for _, tc := range []struct{ name, src, target, want string }{
		{"i4", copyOf("i4"), "", "bad.mlir:3:8: error: 'func.func' op input #0: element type 'i4' is not supported by vulkan-spirv code generation (f64, f32, f16, bf16, i64, i32, i16, i8, i1 and index are)"},
		{"i64 ctpop", ctpopI64, "", "bad.mlir:6:10: error: 'math.ctpop' op 'math.ctpop' takes one i32 operand in vulkan-spirv code generation"},
		{"f64 on valhall", copyOf("f64"), "valhall", `bad.mlir:3:8: error: 'func.func' op element type 'f64' needs the Vulkan device feature shaderFloat64 (Float64 capability), which the target device "valhall1" does not have (its compute = fp32|fp16|int32|int16|int8 has no fp64)`},
		{"i64 on adreno", copyOf("i64"), "adreno-740", `element type 'i64' needs the Vulkan device feature shaderInt64 (Int64 capability), which the target device "adreno" does not have`},
		{"f16 on the baseline", copyOf("f16"), "vp_android_baseline_2022", `element type 'f16' needs the Vulkan device feature storageBuffer16BitAccess (StorageBuffer16BitAccess capability), which the target device "vp_android_baseline_2022" does not have (its storage = b32 has no b16)`},
		{"bf16 on the baseline", copyOf("bf16"), "vp_android_baseline_2022", `element type 'bf16' needs the Vulkan device feature storageBuffer16BitAccess`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := vulkanOptions
			if tc.target != "" {
				opts.TargetFlags = map[string]string{"iree-vulkan-target": tc.target}
			}
			_, err := pipeline.Compile("bad.mlir", []byte(tc.src), opts, "vm")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
	// The same programs compile for devices with the features, and for
	// targets that do not describe their device (the runtime checks).
	for _, tc := range []struct{ ty, target string }{{"f64", "ampere"}, {"i64", "rdna3"}, {"f16", "valhall"}, {"bf16", ""}, {"f64", ""}} {
		opts := vulkanOptions
		if tc.target != "" {
			opts.TargetFlags = map[string]string{"iree-vulkan-target": tc.target}
		}
		if _, err := pipeline.Compile("good.mlir", []byte(copyOf(tc.ty)), opts, "vm"); err != nil {
			t.Errorf("%s for %q: %v", tc.ty, tc.target, err)
		}
	}
}

// checkGolden compares the GLSL src generated for exe with the golden
// file, or rewrites the file with -update.
func checkGolden(t *testing.T, exe, golden, src string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if want, err := os.ReadFile(golden); err != nil {
		t.Fatalf("%v (run go test -update)", err)
	} else if src != string(want) {
		t.Errorf("%s: generated GLSL differs from %s:\n%s", exe, golden, src)
	}
}
