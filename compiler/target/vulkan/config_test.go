package vulkan_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

const configPrograms = `func.func @bmm16w(%a: tensor<2x256x128xf16>, %b: tensor<2x128x512xf16>, %c: tensor<2x256x512xf32>) -> tensor<2x256x512xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x256x128xf16>, tensor<2x128x512xf16>) outs(%c : tensor<2x256x512xf32>) -> tensor<2x256x512xf32>
  return %r : tensor<2x256x512xf32>
}
func.func @mm16w(%a: tensor<256x128xf16>, %b: tensor<128x512xf16>, %c: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf16>, tensor<128x512xf16>) outs(%c : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}
func.func @mm16(%a: tensor<200x77xf16>, %b: tensor<77x131xf16>, %c: tensor<200x131xf32>) -> tensor<200x131xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<200x77xf16>, tensor<77x131xf16>) outs(%c : tensor<200x131xf32>) -> tensor<200x131xf32>
  return %r : tensor<200x131xf32>
}
func.func @mm32(%a: tensor<256x64xf32>, %b: tensor<64x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
func.func @mm64(%a: tensor<20x30xf64>, %b: tensor<30x40xf64>, %c: tensor<20x40xf64>) -> tensor<20x40xf64> {
  %r = linalg.matmul ins(%a, %b : tensor<20x30xf64>, tensor<30x40xf64>) outs(%c : tensor<20x40xf64>) -> tensor<20x40xf64>
  return %r : tensor<20x40xf64>
}
func.func @rowsum(%x: tensor<3x5000xf32>, %i: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x5000xf32>) outs(%i : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @softmax3d(%x: tensor<2x3x300xf32>) -> tensor<2x3x300xf32> {
  %e = tensor.empty() : tensor<2x3x300xf32>
  %s = linalg.softmax dimension(2) ins(%x : tensor<2x3x300xf32>) outs(%e : tensor<2x3x300xf32>) -> tensor<2x3x300xf32>
  return %s : tensor<2x3x300xf32>
}
`

// buildConfigs compiles configPrograms for vulkan-spirv with flags and
// builds every generated variant, returning each entry point's config by
// name, after checking that it is the LocalSize of the entry point's
// SPIR-V.
func buildConfigs(t *testing.T, flags map[string]string, opts vulkan.Options) map[string]kernelconfig.Config {
	t.Helper()
	s, err := pipeline.Compile("configs.mlir", []byte(configPrograms), pipeline.Options{
		Targets:     transforms.TargetOptions{Backends: []string{"vulkan-spirv"}},
		TargetFlags: flags,
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kernelconfig.Config{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name != "hal.executable.variant" || hal.InnerModule(op) == nil {
			return true
		}
		data, err := vulkan.Build(op, opts)
		if err != nil {
			t.Fatal(err)
		}
		exe, err := spirv.Unmarshal(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range exe.EntryPoints {
			if ls, ok := vulkan.LocalSize(exe.Code, ep.Name); !ok || ls != ep.Config.WorkgroupSize {
				t.Errorf("%s: LocalSize %v (%v), recorded %v", ep.Name, ls, ok, ep.Config.WorkgroupSize)
			}
			out[ep.Name] = ep.Config
		}
		return false
	})
	return out
}

// TestKernelConfigs checks the configurations recorded for the Vulkan
// strategies: cooperative matrices (of workgroup scope with nv2 where
// every block is whole) and 256-invocation tiles on an H200 target, the
// portable 128-invocation tiles, 64-bit matmuls left untiled, shared
// reductions with and without subgroups, and a row group (a softmax over
// two row loops, one row a workgroup).
func TestKernelConfigs(t *testing.T) {
	if _, err := (vulkan.Options{}).FindGlslc(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	h200 := buildConfigs(t, map[string]string{"iree-vulkan-target": "h200"}, vulkan.Options{})
	portable := buildConfigs(t, nil, vulkan.Options{})
	noSubgroups := buildConfigs(t, nil, vulkan.Options{NoSubgroups: true})
	nv2 := buildConfigs(t, map[string]string{"iree-vulkan-target": "h200"}, vulkan.Options{WorkgroupMatrices: true})
	tests := []struct {
		name    string
		configs map[string]kernelconfig.Config
		entry   string
		want    kernelconfig.Config
	}{
		{"h200", h200, "mm16_linalg_0", kernelconfig.Config{Pipeline: "SPIRVCooperativeMatrixVectorize", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32,
			TileSizes: [][]int64{{128, 256, 0}, {64, 64, 0}, {0, 0, 32}, {16, 16, 16}}}},
		{"h200", h200, "mm16w_linalg_0", kernelconfig.Config{Pipeline: "SPIRVCooperativeMatrixVectorize", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32,
			TileSizes: [][]int64{{128, 256, 0}, {64, 64, 0}, {0, 0, 32}, {16, 16, 16}}}},
		// nv2: whole blocks on workgroup-scope matrices; @mm16's partial
		// blocks and batched matmuls keep the subgroup-scope kernel.
		{"h200 nv2", nv2, "mm16w_linalg_0", kernelconfig.Config{Pipeline: "SPIRVCooperativeMatrixWorkgroup", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32,
			TileSizes: [][]int64{{128, 256, 0}, {0, 0, 64}, {128, 256, 64}}}},
		{"h200 nv2", nv2, "bmm16w_linalg_0", kernelconfig.Config{Pipeline: "SPIRVCooperativeMatrixVectorize", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32,
			TileSizes: [][]int64{{1, 128, 256, 0}, {0, 64, 64, 0}, {0, 0, 0, 32}, {0, 16, 16, 16}}}},
		{"h200 nv2", nv2, "mm16_linalg_0", kernelconfig.Config{Pipeline: "SPIRVCooperativeMatrixVectorize", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32,
			TileSizes: [][]int64{{128, 256, 0}, {64, 64, 0}, {0, 0, 32}, {16, 16, 16}}}},
		{"h200", h200, "mm32_linalg_0", kernelconfig.Config{Pipeline: "SPIRVMatmulPromoteVectorize", WorkgroupSize: [3]uint32{256, 1, 1},
			TileSizes: [][]int64{{128, 128, 0}, {8, 8, 0}, {0, 0, 8}}}},
		{"portable", portable, "mm16_linalg_0", kernelconfig.Config{Pipeline: "SPIRVMatmulPromoteVectorize", WorkgroupSize: [3]uint32{128, 1, 1},
			TileSizes: [][]int64{{128, 64, 0}, {8, 8, 0}, {0, 0, 8}}}},
		{"portable", portable, "mm64_linalg_0", kernelconfig.Config{Pipeline: "SPIRVBaseDistribute", WorkgroupSize: [3]uint32{128, 1, 1},
			TileSizes: [][]int64{{16, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
		{"portable", portable, "rowsum_linalg_0", kernelconfig.Config{Pipeline: "SPIRVSubgroupReduce", WorkgroupSize: [3]uint32{128, 1, 1},
			TileSizes: [][]int64{{1, 0}, {0, 4}, {0, 512}}}},
		{"no subgroups", noSubgroups, "rowsum_linalg_0", kernelconfig.Config{Pipeline: "SPIRVSharedReduce", WorkgroupSize: [3]uint32{128, 1, 1},
			TileSizes: [][]int64{{1, 0}, {0, 4}, {0, 512}}}},
		{"portable", portable, "softmax3d_linalg_0", kernelconfig.Config{Pipeline: "SPIRVRowGroup", WorkgroupSize: [3]uint32{128, 1, 1},
			TileSizes: [][]int64{{1, 1, 0}, {0, 0, 4}}}},
	}
	for _, tt := range tests {
		got, ok := tt.configs[tt.entry]
		if !ok {
			t.Errorf("%s: no entry point %s", tt.name, tt.entry)
			continue
		}
		if !kernelconfig.Equal(got, tt.want) {
			t.Errorf("%s %s:\ngot  %s\nwant %s", tt.name, tt.entry, got, tt.want)
		}
	}
}
