package cuda_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/cuda"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// entryPTX returns the text of one .entry of a PTX module, up to the next.
func entryPTX(ptx, name string) string {
	i := strings.Index(ptx, ".visible .entry "+name+"(")
	if i < 0 {
		return ""
	}
	rest := ptx[i+1:]
	if j := strings.Index(rest, ".visible .entry "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

var maxntid = regexp.MustCompile(`\.maxntid (\d+), (\d+), (\d+)`)

// kernelConfigs compiles a testdata program for cuda and generates every
// variant's PTX for arch, returning each kernel's config and PTX text by
// the name of the program function its dispatch came from.
func kernelConfigs(t *testing.T, file, arch string) (map[string]kernelconfig.Config, map[string]string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, cudaOptions, "")
	if err != nil {
		t.Fatal(err)
	}
	configs, texts := map[string]kernelconfig.Config{}, map[string]string{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name != "hal.executable.variant" || hal.InnerModule(op) == nil {
			return true
		}
		mod, err := cuda.GeneratePTX(op, arch)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range mod.Kernels {
			name := k.Name
			text := entryPTX(mod.PTX, k.Name)
			// The recorded workgroup size is the block the driver
			// launches (BlockSize) and the one the PTX declares.
			m := maxntid.FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("%s: no .maxntid in its PTX", k.Name)
			}
			if got := fmt.Sprintf("[%s %s %s]", m[1], m[2], m[3]); got != fmt.Sprint(k.Config.WorkgroupSize) || k.Config.WorkgroupSize != k.BlockSize {
				t.Errorf("%s: recorded workgroup size %v, block size %v, .maxntid %s", k.Name, k.Config.WorkgroupSize, k.BlockSize, got)
			}
			if err := k.Config.Validate(); err != nil {
				t.Errorf("%s: %v", k.Name, err)
			}
			configs[name], texts[name] = k.Config, text
		}
		return false
	})
	return configs, texts
}

// TestKernelConfigs checks the configuration recorded for each kind of
// kernel, per arch, against what the generated PTX does: tensor-core
// kernels are the ones with mma.sync, warp reductions the ones with
// shfl.sync, tiled matmuls stage tiles in shared memory, and the
// distributed loops use none of these.
func TestKernelConfigs(t *testing.T) {
	mmaTiles := [][]int64{{128, 128, 0}, {64, 32, 0}, {0, 0, 32}, {16, 8, 16}}
	simt128 := [][]int64{{128, 128, 0}, {8, 8, 0}, {0, 0, 8}}
	tests := []struct {
		file, arch, fn string
		pipeline       string
		tiles          [][]int64
	}{
		{"mma.mlir", "sm_80", "f16_f32_linalg_0", "CUDAMatmulTensorCore", mmaTiles},
		{"mma.mlir", "sm_90", "bf16_f32_dyn_linalg_0", "CUDAMatmulTensorCore", mmaTiles},
		// Before sm_80 (no mma.sync) and for f32 without TF32 the same
		// matmuls take the SIMT kernel.
		{"mma.mlir", "sm_52", "f16_f32_linalg_0", "CUDAMatmulSimt", simt128},
		{"mma.mlir", "sm_80", "f32_dyn_linalg_0", "CUDAMatmulSimt", simt128},
		// A batch matmul's workgroup takes one matrix of the batch at a
		// time.
		{"mma.mlir", "sm_80", "f16_bmm_linalg_0", "CUDAMatmulTensorCore", [][]int64{{1, 128, 128, 0}, {0, 64, 32, 0}, {0, 0, 0, 32}, {0, 16, 8, 16}}},
		// 5 rows of 300 f64: one row a block (the tile), 4 loads a thread
		// per step, the block's 256 threads sharing a row.
		{"loopnest.mlir", "sm_80", "rowmax_linalg_1", "CUDAWarpReduction", [][]int64{{1, 0}, {0, 4}, {0, 1024}}},
		// 37 elements, no reduction: a block per element (the tile
		// formation chose), four a thread per step.
		{"loopnest.mlir", "sm_80", "narrow_linalg_0", "CUDAVectorize", [][]int64{{1}, {4}}},
		// A window sum: each thread runs the reduction in order.
		{"loopnest.mlir", "sm_80", "window_linalg_0", "CUDADistribute", [][]int64{{1, 0}, {1, 0}, {0, 1}}},
	}
	cache := map[string][2]any{}
	for _, tt := range tests {
		key := tt.file + "@" + tt.arch
		if _, ok := cache[key]; !ok {
			c, x := kernelConfigs(t, tt.file, tt.arch)
			cache[key] = [2]any{c, x}
		}
		configs := cache[key][0].(map[string]kernelconfig.Config)
		c, ok := configs[tt.fn]
		if !ok {
			t.Errorf("%s: no kernel for @%s (have %v)", key, tt.fn, keys(configs))
			continue
		}
		if c.Pipeline != tt.pipeline || tt.tiles != nil && !kernelconfig.Equal(c, kernelconfig.Config{Pipeline: c.Pipeline, WorkgroupSize: c.WorkgroupSize, SubgroupSize: c.SubgroupSize, TileSizes: tt.tiles}) {
			t.Errorf("%s @%s: %s, want pipeline %s tiles %v", key, tt.fn, c, tt.pipeline, tt.tiles)
		}
	}
	if testing.Verbose() {
		for key, ct := range cache {
			for fn, c := range ct[0].(map[string]kernelconfig.Config) {
				t.Logf("%s %s: %s", key, fn, c)
			}
		}
	}
	for key, ct := range cache {
		for fn, c := range ct[0].(map[string]kernelconfig.Config) {
			text := ct[1].(map[string]string)[fn]
			mma, shfl, shared := strings.Contains(text, "mma.sync"), strings.Contains(text, "shfl.sync"), strings.Contains(text, ".shared")
			var ok bool
			switch c.Pipeline {
			case "CUDAMatmulTensorCore":
				ok = mma && c.SubgroupSize == 32
			case "CUDAWarpReduction":
				ok = shfl && !mma && c.SubgroupSize == 32
			case "CUDAMatmulSimt":
				ok = shared && !mma && !shfl && c.SubgroupSize == 0
			case "CUDADistribute", "CUDAVectorize":
				ok = !shared && !mma && !shfl && c.SubgroupSize == 0
			}
			if !ok {
				t.Errorf("%s @%s: config %s disagrees with its PTX (mma.sync %v, shfl.sync %v, shared memory %v)", key, fn, c, mma, shfl, shared)
			}
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
