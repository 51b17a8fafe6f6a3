package e2e_test

import (
	"fmt"
	"math"
	"math/rand"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
	"github.com/goiree/goiree/runtime/schemas/spirv"
	"github.com/goiree/goiree/runtime/vm"
)

// recordedKernel is one entry point of a compiled module with its
// recorded configuration and the workgroup size it really runs with: the
// block size the cuda driver launches (and the PTX's .maxntid), or the
// LocalSize of the SPIR-V entry point.
type recordedKernel struct {
	name   string
	config kernelconfig.Config
	runs   [3]uint32
}

var ptxMaxntid = regexp.MustCompile(`\.maxntid (\d+), (\d+), (\d+)`)

// recordedKernels decodes every GPU payload in a module's rodata.
func recordedKernels(t *testing.T, module []byte) []recordedKernel {
	t.Helper()
	m, err := vm.LoadBytecodeModule(module)
	if err != nil {
		t.Fatal(err)
	}
	var out []recordedKernel
	for _, seg := range m.RodataSegments() {
		data := seg.Data
		switch {
		case len(data) >= 8 && string(data[4:8]) == cuda.FileIdentifier:
			exe, err := cuda.Unmarshal(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range exe.Images {
				if len(im.Configs) != len(exe.EntryPoints) {
					t.Fatalf("%s image of %s: %d configs for %d entry points", im.Arch, exe.Name, len(im.Configs), len(exe.EntryPoints))
				}
				for i, ep := range exe.EntryPoints {
					text := im.PTX[strings.Index(im.PTX, ".entry "+ep.Name+"("):]
					mx := ptxMaxntid.FindStringSubmatch(text)
					if mx == nil || fmt.Sprintf("[%s %s %s]", mx[1], mx[2], mx[3]) != fmt.Sprint(ep.BlockSize) {
						t.Errorf("%s: block size %v but the PTX declares %v", ep.Name, ep.BlockSize, mx)
					}
					out = append(out, recordedKernel{name: ep.Name, config: im.Configs[i], runs: ep.BlockSize})
				}
			}
		case len(data) >= 8 && string(data[4:8]) == spirv.FileIdentifier:
			exe, err := spirv.Unmarshal(data)
			if err != nil {
				t.Fatal(err)
			}
			sizes := spirvLocalSizes(exe.Code)
			for _, ep := range exe.EntryPoints {
				out = append(out, recordedKernel{name: ep.Name, config: ep.Config, runs: sizes[ep.Name]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// spirvLocalSizes reads the LocalSize execution modes of a SPIR-V
// module's entry points, by name.
func spirvLocalSizes(code []uint32) map[string][3]uint32 {
	names, sizes := map[uint32]string{}, map[uint32][3]uint32{}
	for i := 5; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 || i+n > len(code) {
			break
		}
		switch code[i] & 0xffff {
		case 15: // OpEntryPoint model id name
			var b []byte
			for _, w := range code[i+3 : i+n] {
				for k := 0; k < 4 && byte(w>>(8*k)) != 0; k++ {
					b = append(b, byte(w>>(8*k)))
				}
				if w>>24 == 0 {
					break
				}
			}
			names[code[i+2]] = string(b)
		case 16: // OpExecutionMode id mode literals
			if n == 6 && code[i+2] == 17 { // LocalSize
				sizes[code[i+1]] = [3]uint32{code[i+3], code[i+4], code[i+5]}
			}
		}
		i += n
	}
	out := map[string][3]uint32{}
	for id, name := range names {
		out[name] = sizes[id]
	}
	return out
}

// TestGPUKernelConfigs compiles a matmul and a row softmax for cuda and
// vulkan-spirv and checks what the payloads record per kernel: the
// strategy each took, a workgroup size equal to the one it launches with
// (cuda's block size and .maxntid, SPIR-V's LocalSize), the matmul's
// block tiles; then runs both programs on the target's device where there
// is one (lavapipe for Vulkan) against Go loops.
func TestGPUKernelConfigs(t *testing.T) {
	want := map[string]map[string]string{
		// kernel name fragment -> pipeline
		"cuda": {
			"matmul_linalg_0":  "CUDAMatmulSimt",
			"softmax_linalg_0": "CUDARowGroup", // max, sum and division in one
		},
		"vulkan-spirv": {
			"matmul_linalg_0":  "SPIRVMatmulPromoteVectorize",
			"softmax_linalg_0": "SPIRVRowGroup", // max, sum and division in one
		},
	}
	for _, g := range gpuTargets {
		t.Run(g.backend, func(t *testing.T) {
			module := compileGPU(t, "gpu_configs.mlir", g.backend)
			kernels := recordedKernels(t, module)
			seen := map[string]bool{}
			for _, k := range kernels {
				if err := k.config.Validate(); err != nil {
					t.Errorf("%s: %v", k.name, err)
				}
				if k.config.WorkgroupSize != k.runs {
					t.Errorf("%s: recorded workgroup size %v, runs with %v", k.name, k.config.WorkgroupSize, k.runs)
				}
				for frag, p := range want[g.backend] {
					if !strings.Contains(k.name, frag) {
						continue
					}
					seen[frag] = true
					if k.config.Pipeline != p {
						t.Errorf("%s: pipeline %s, want %s (%s)", k.name, k.config.Pipeline, p, k.config)
					}
					if frag == "matmul_linalg_0" {
						// 128 threads by default on Vulkan (blocks of 128
						// x 64), 256 on cuda (128 x 128), steps of 8.
						wantTiles := [][]int64{{128, 128, 0}, {8, 8, 0}, {0, 0, 8}}
						if g.backend == "vulkan-spirv" {
							wantTiles = [][]int64{{128, 64, 0}, {8, 8, 0}, {0, 0, 8}}
						}
						if !kernelconfig.Equal(k.config, kernelconfig.Config{Pipeline: p, WorkgroupSize: k.config.WorkgroupSize, SubgroupSize: k.config.SubgroupSize, TileSizes: wantTiles}) {
							t.Errorf("%s: %s, want tiles %v", k.name, k.config, wantTiles)
						}
					}
				}
			}
			for frag := range want[g.backend] {
				if !seen[frag] {
					t.Errorf("no kernel named like %s among %d", frag, len(kernels))
				}
			}
			dev := g.device(t)
			r := rand.New(rand.NewSource(3))
			a, b := randF32(r, 256, 192), randF32(r, 192, 320)
			ref := matmulRef(a, b, 0)
			_, data := invoke(t, dev, module, "matmul", a.arg(), b.arg())
			for i, w := range ref.v {
				if got := f32At(data[0], i); math.Abs(float64(got-w)) > 1e-3*(1+math.Abs(float64(w))) {
					t.Fatalf("matmul[%d] = %v, want %v", i, got, w)
				}
			}
			x := randF32(r, 48, 1000)
			_, data = invoke(t, dev, module, "softmax", x.arg())
			checkSoftmaxRows(t, x, data[0])
		})
	}
}

// checkSoftmaxRows compares a row softmax of x with float64 arithmetic.
func checkSoftmaxRows(t *testing.T, x f32s, got []byte) {
	t.Helper()
	rows, cols := x.shape[0], x.shape[1]
	for i := 0; i < rows; i++ {
		row := x.v[i*cols : (i+1)*cols]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, float64(v))
		}
		var sum float64
		for _, v := range row {
			sum += math.Exp(float64(v) - mx)
		}
		for j, v := range row {
			w := math.Exp(float64(v)-mx) / sum
			if g := float64(f32At(got, i*cols+j)); math.Abs(g-w) > 1e-5+1e-4*w {
				t.Fatalf("softmax[%d][%d] = %v, want %v", i, j, g, w)
			}
		}
	}
}
