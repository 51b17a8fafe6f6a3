package vulkan_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
)

// TestCoopMatmulKHR compiles f16 matmuls (static, partial and dynamic
// blocks) for an NVIDIA target: by default their SPIR-V uses
// VK_KHR_cooperative_matrix, each multiply-add's operands of KHR matrix
// types with the right use and shape (CheckKHR); with
// --iree-vulkan-cooperative-matrix=nv it keeps NVIDIA's extension; with
// nv2 it also multiplies whole blocks as workgroup-scope matrices.
func TestCoopMatmulKHR(t *testing.T) {
	if _, err := (vulkan.Options{}).FindGlslc(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	src := []byte(`func.func @mm(%a: tensor<200x77xf16>, %b: tensor<77x131xf16>) -> tensor<200x131xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x131xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<200x131xf32>) -> tensor<200x131xf32>
  %r = linalg.matmul ins(%a, %b : tensor<200x77xf16>, tensor<77x131xf16>) outs(%f : tensor<200x131xf32>) -> tensor<200x131xf32>
  return %r : tensor<200x131xf32>
}
func.func @whole(%a: tensor<256x128xf16>, %b: tensor<128x512xf16>, %c: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf16>, tensor<128x512xf16>) outs(%c : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}
func.func @dyn(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
`)
	_, err := pipeline.Compile("mm.mlir", src, pipeline.Options{
		Targets:     transforms.TargetOptions{Backends: []string{"vulkan-spirv"}},
		TargetFlags: map[string]string{"iree-vulkan-target": "h200", "iree-vulkan-cooperative-matrix": "amd"},
	}, "vm")
	if want := "--iree-vulkan-cooperative-matrix=amd: the value must be khr, nv or nv2"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
	for _, ext := range []string{"khr", "nv", "nv2"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			_, err := pipeline.Compile("mm.mlir", src, pipeline.Options{
				Targets:        transforms.TargetOptions{Backends: []string{"vulkan-spirv"}},
				TargetFlags:    map[string]string{"iree-vulkan-target": "h200", "iree-vulkan-cooperative-matrix": ext},
				DumpBinariesTo: dir,
			}, "vm")
			if err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.spv"))
			if len(files) != 3 {
				t.Fatalf("%d SPIR-V binaries dumped, want 3", len(files))
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				code := make([]uint32, len(data)/4)
				for i := range code {
					code[i] = binary.LittleEndian.Uint32(data[4*i:])
				}
				if ext == "nv" {
					if !vulkan.UsesNVCoopMatrix(code) {
						t.Fatalf("%s: no CooperativeMatrixNV capability with --iree-vulkan-cooperative-matrix=nv", filepath.Base(f))
					}
					continue
				}
				vulkan.CheckKHR(t, code)
				// nv2 multiplies @whole's blocks, all inside its matrices,
				// as workgroup-scope matrices (a 128 x 256 accumulator, its
				// A and B slices in steps of 64); @mm's and @dyn's keep the
				// subgroup-scope 16 x 16 fragments.
				want := []string{"3 16x16 0", "3 16x16 1", "3 16x16 2"}
				whole := ext == "nv2" && strings.HasPrefix(filepath.Base(f), "whole")
				if whole {
					want = []string{"2 128x256 2", "2 128x64 0", "2 64x256 1"}
				}
				if got := vulkan.CoopTypes(t, code); !slices.Equal(got, want) {
					t.Errorf("%s: cooperative matrix types %q, want %q", filepath.Base(f), got, want)
				}
			}
		})
	}
}
