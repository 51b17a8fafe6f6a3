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
		golden := filepath.Join("testdata", exe+".glsl.golden")
		if *update {
			if err := os.WriteFile(golden, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if want, err := os.ReadFile(golden); err != nil {
			t.Fatalf("%v (run go test -update)", err)
		} else if src != string(want) {
			t.Errorf("%s: generated GLSL differs from %s:\n%s", exe, golden, src)
		}
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

// TestLoopNestBadTypes: element types the target does not generate name
// the device feature they would need, at the linalg op.
func TestLoopNestBadTypes(t *testing.T) {
	glslc(t)
	for _, tc := range []struct{ ty, want string }{
		{"f64", "bad.mlir:3:8: error: 'func.func' op input #0: element type 'f64' needs the Vulkan device feature shaderFloat64"},
		{"f16", "bad.mlir:3:8: error: 'func.func' op input #0: element type 'f16' needs the Vulkan device features shaderFloat16 and storageBuffer16BitAccess"},
		{"i64", "bad.mlir:3:8: error: 'func.func' op input #0: element type 'i64' needs the Vulkan device feature shaderInt64"},
		{"bf16", "bad.mlir:3:8: error: 'func.func' op input #0: element type 'bf16' is not supported by vulkan-spirv code generation"},
	} {
		t.Run(tc.ty, func(t *testing.T) {
			src := strings.ReplaceAll(`func.func @f(%x: tensor<4xT>) -> tensor<4xT> {
  %e = tensor.empty() : tensor<4xT>
  %r = linalg.copy ins(%x : tensor<4xT>) outs(%e : tensor<4xT>) -> tensor<4xT>
  return %r : tensor<4xT>
}`, "T", tc.ty)
			_, err := pipeline.Compile("bad.mlir", []byte(src), vulkanOptions, "vm")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}
