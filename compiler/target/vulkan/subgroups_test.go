package vulkan_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
)

// TestNoSubgroups: with GLSLOptions.NoSubgroups the shared reductions of
// testdata/loopnest.mlir use no subgroup built-ins or extensions (and
// still compile), and a bad --iree-vulkan-subgroups value is an error.
func TestNoSubgroups(t *testing.T) {
	tool := glslc(t)
	vs := loopNestVariants(t, "loopnest.mlir")
	shared := 0
	for name, v := range vs {
		with, err := vulkan.GenerateGLSL(hal.InnerModule(v), name)
		if err != nil {
			t.Fatal(err)
		}
		without, err := vulkan.GenerateGLSLWith(hal.InnerModule(v), name, vulkan.GLSLOptions{NoSubgroups: true})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(without, "ubgroup") {
			t.Errorf("%s: the shader without subgroups uses them:\n%s", name, without)
		}
		if strings.Contains(with, "subgroupShuffleXor") {
			shared++
			if _, err := vulkan.CompileGLSL(tool, without); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	if shared == 0 {
		t.Fatal("no kernel of loopnest.mlir is a shared reduction")
	}
	src := []byte("func.func @f(%x: tensor<4x100xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {\n  %r = linalg.reduce { arith.addf } ins(%x : tensor<4x100xf32>) outs(%i : tensor<4xf32>) dimensions = [1]\n  return %r : tensor<4xf32>\n}\n")
	opts := pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}, TargetFlags: map[string]string{"iree-vulkan-subgroups": "maybe"}}
	_, err := pipeline.Compile("f.mlir", src, opts, "vm")
	if want := "--iree-vulkan-subgroups=maybe: the value must be true or false"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}
