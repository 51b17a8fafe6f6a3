package e2e_test

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
)

// groupFuncs are the functions of testdata/gpu_groups.mlir, each a chain
// of row reductions and their consumer that GPU targets run as one row
// group.
var groupFuncs = []string{"softmax", "softmax_long", "softmax_many", "softmax3d", "softmax_f16", "softmax_generic", "layernorm", "decay"}

// TestGPUGroupsOneDispatch checks that dispatch formation puts each
// function of gpu_groups.mlir in one dispatch for every GPU target (no
// device needed).
func TestGPUGroupsOneDispatch(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "gpu_groups.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	dispatch := regexp.MustCompile(`flow\.dispatch @(\w+)::`)
	for _, g := range gpuTargets {
		t.Run(g.backend, func(t *testing.T) {
			s, err := pipeline.Compile("gpu_groups.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{g.backend}}}, "flow")
			if err != nil {
				t.Fatal(err)
			}
			count := map[string]int{}
			for _, m := range dispatch.FindAllStringSubmatch(s.Print(), -1) {
				name := m[1]
				if i := strings.LastIndex(name, "_linalg_"); i >= 0 {
					name = name[:i]
				}
				count[name]++
			}
			for _, fn := range groupFuncs {
				if count[fn] != 1 {
					t.Errorf("@%s: %d dispatches, want 1 (all: %v)", fn, count[fn], count)
				}
			}
		})
	}
}

// softmaxRef is the softmax of each row of length cols of x, in float64.
func softmaxRef(x []float64, cols int) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < len(x)/cols; r++ {
		row := x[r*cols : (r+1)*cols]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, v)
		}
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(v - mx)
		}
		for j, v := range row {
			out[r*cols+j] = math.Exp(v-mx) / sum
		}
	}
	return out
}

// checkClose compares got with want element by element within abs + rel
// * |want|.
func checkClose(t *testing.T, what string, got, want []float64, abs, rel float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	bad := 0
	for i, w := range want {
		if g := got[i]; math.IsNaN(g) || math.Abs(g-w) > abs+rel*math.Abs(w) {
			if bad++; bad <= 5 {
				t.Errorf("%s: element %d = %g, want %g", what, i, g, w)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d elements differ", what, bad)
	}
}

// f32sOf reads n f32 results.
func f32sOf(data []byte, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(f32At(data, i))
	}
	return out
}

// float64s widens v exactly.
func float64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// TestGPUGroups runs the row groups of testdata/gpu_groups.mlir on every
// GPU device (testGroups).
func TestGPUGroups(t *testing.T) {
	forGPUs(t, "gpu_groups.mlir", testGroups)
}

// TestGPUGroupsNoSubgroups runs them on Vulkan with
// --iree-vulkan-subgroups=false: the row reductions' parts meet in
// shared memory alone.
func TestGPUGroupsNoSubgroups(t *testing.T) {
	dev := gpuTargets[0].device(t)
	src, err := os.ReadFile(filepath.Join("testdata", "gpu_groups.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	opts := pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}, TargetFlags: map[string]string{"iree-vulkan-subgroups": "false"}}
	s, err := pipeline.Compile("gpu_groups.mlir", src, opts, "vm")
	if err != nil {
		t.Fatal(err)
	}
	testGroups(t, dev, s.Output)
}

// TestGPUGroupsTuned runs them on Vulkan compiled for a device with room
// (--iree-vulkan-target=llvmpipe: 1024 invocations), where a row group's
// workgroup has 256 invocations.
func TestGPUGroupsTuned(t *testing.T) {
	dev := gpuTargets[0].device(t)
	testGroups(t, dev, compileVulkanFor(t, "gpu_groups.mlir", "llvmpipe"))
}

// TestGPUGroupsNVIDIA runs them on an NVIDIA Vulkan device compiled for
// NVIDIA's Vulkan target (--iree-vulkan-target=ampere, which later NVIDIA
// GPUs run too), where f32 division takes the fused-fma sequence
// (gi_divf) that portable shaders do not.
func TestGPUGroupsNVIDIA(t *testing.T) {
	dev := gpuTargets[0].device(t)
	if n, ok := dev.(interface{ Name() string }); !ok || !strings.Contains(n.Name(), "NVIDIA") {
		t.Skip("skipping: the first Vulkan device is not NVIDIA's")
	}
	testGroups(t, dev, compileVulkanFor(t, "gpu_groups.mlir", "ampere"))
}

// testGroups checks gpu_groups.mlir's functions against Go loops:
// linalg.softmax over 37 x 1000, 4 x 8192 and 70000 x 5 (a grid split
// into rows), over the last dimension of a 3-D tensor (two row loops)
// and in f16, a softmax written as generics, a layer norm with
// per-column gamma and beta, and a reduction that cannot be
// reassociated, by a factor passed as a scalar.
func testGroups(t *testing.T, dev rhal.Device, module []byte) {
	r := rand.New(rand.NewSource(17))
	scaled := func(n int, s float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.Intn(4001)-2000) / 2000 * s
		}
		return v
	}
	x1 := scaled(37*1000, 10)
	x2 := scaled(4*8192, 6)
	xm := scaled(70000*5, 30)
	x3 := scaled(3*5*77, 8)
	xh := eighths(r, 6*300)
	xg := scaled(9*517, 12)
	xl, gamma, beta := scaled(7*384, 3), scaled(384, 2), scaled(384, 1)
	// One row of the layer norm's input is constant: its variance is 0.
	for j := 0; j < 384; j++ {
		xl[2*384+j] = 1.5
	}
	xd := scaled(5*200, 1)
	for _, c := range []struct {
		fn    string
		shape []int
		x     []float32
	}{
		{"softmax", []int{37, 1000}, x1},
		{"softmax_long", []int{4, 8192}, x2},
		{"softmax_many", []int{70000, 5}, xm},
		{"softmax3d", []int{3, 5, 77}, x3},
		{"softmax_generic", []int{9, 517}, xg},
	} {
		_, data := invoke(t, dev, module, c.fn, f32Arg(shapeString(c.shape), c.x))
		cols := c.shape[len(c.shape)-1]
		checkClose(t, c.fn, f32sOf(data[0], len(c.x)), softmaxRef(float64s(c.x), cols), 1e-6, 1e-4)
	}

	_, data := invoke(t, dev, module, "softmax_f16", f16Arg([]int{6, 300}, xh))
	got := make([]float64, len(xh))
	for i := range got {
		got[i] = f16Spec.value(u16At(data[0], i))
	}
	// f16 keeps 11 bits: exp(x - max) and the quotient round to it.
	checkClose(t, "softmax_f16", got, softmaxRef(float64s(xh), 300), 1e-5, 4e-3)

	_, data = invoke(t, dev, module, "layernorm", f32Arg("7x384x", xl), f32Arg("384x", gamma), f32Arg("384x", beta))
	want := make([]float64, len(xl))
	for i := 0; i < 7; i++ {
		row := float64s(xl[i*384 : (i+1)*384])
		mean := 0.0
		for _, v := range row {
			mean += v
		}
		mean /= 384
		variance := 0.0
		for _, v := range row {
			variance += (v - mean) * (v - mean)
		}
		rstd := 1 / math.Sqrt(variance/384+1e-5)
		for j, v := range row {
			want[i*384+j] = (v-mean)*rstd*float64(gamma[j]) + float64(beta[j])
		}
	}
	checkClose(t, "layernorm", f32sOf(data[0], len(xl)), want, 1e-4, 1e-4)

	_, data = invoke(t, dev, module, "decay", f32Arg("5x200x", xd), "f32=0.5")
	want = make([]float64, len(xd))
	for i := 0; i < 5; i++ {
		// In order, in f32, as the program says.
		var acc float32
		for j := 0; j < 200; j++ {
			acc = acc*0.5 + xd[i*200+j]
		}
		for j := 0; j < 200; j++ {
			want[i*200+j] = float64(xd[i*200+j] - acc)
		}
	}
	checkClose(t, "decay", f32sOf(data[0], len(xd)), want, 1e-6, 1e-6)
}
