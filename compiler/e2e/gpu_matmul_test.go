package e2e_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/runtime/base/status"
	rhal "github.com/goiree/goiree/runtime/hal"
	vkdriver "github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/vm"
)

// i32s is a row-major i32 tensor.
type i32s struct {
	shape []int
	v     []int32
}

func randI32(r *rand.Rand, shape ...int) i32s {
	n := 1
	for _, d := range shape {
		n *= d
	}
	t := i32s{shape: shape, v: make([]int32, n)}
	for i := range t.v {
		t.v[i] = int32(r.Intn(2001) - 1000)
	}
	return t
}

// arg is the --input spelling of t.
func (t i32s) arg() string {
	var b strings.Builder
	b.WriteString(shapeString(t.shape) + "i32=")
	for i, x := range t.v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(int(x)))
	}
	return b.String()
}

// TestGPUMatmulBlocks runs gpu_matmul.mlir's matmuls, which the GPU
// targets compute in register-blocked tiles (blocks of up to 128 x 128
// outputs, steps of 8, copies in runs of 4), at shapes that take every
// path: whole blocks and steps only (256^3, and dynamic multiples of 4
// for cuda's vector copies), partial blocks in rows, columns and the
// reduction, one output, one column, the shortest steps, and a batch.
// Floats are checked against a Go loop in float64 within float32
// rounding, integers exactly; the indexed body catches an element given
// another's loop indices.
func TestGPUMatmulBlocks(t *testing.T) {
	forGPUs(t, "gpu_matmul.mlir", matmulBlocks)
}

// matmulBlocks runs gpu_matmul.mlir's functions at TestGPUMatmulBlocks'
// shapes on dev, checking them against Go loops.
func matmulBlocks(t *testing.T, dev rhal.Device, module []byte) {
	r := rand.New(rand.NewSource(20))
	f32mm := func(fn string, m, n, k int, withC bool) {
		a, b, c := randF32(r, m, k), randF32(r, k, n), randF32(r, m, n)
		want, scale := mmRef(m, n, k, func(i, l int) float32 { return a.v[i*k+l] }, func(l, j int) float32 { return b.v[l*n+j] }, 0)
		args := []string{a.arg(), b.arg()}
		if withC {
			args = append(args, c.arg())
			for i := range want {
				want[i] += float64(c.v[i])
				scale[i] += float64(abs32(c.v[i]))
			}
		}
		_, data := invoke(t, dev, module, fn, args...)
		checkMM(t, fmt.Sprintf("%s %dx%dx%d", fn, m, n, k), data[0], want, scale, k)
	}
	f32mm("mm_256", 256, 256, 256, false)
	f32mm("mm_odd", 17, 33, 65, false)
	f32mm("mm_dot", 1, 1, 1000, false)
	f32mm("mm_column", 300, 1, 64, true)
	for _, sh := range [][3]int{{128, 128, 8}, {256, 384, 64}, {129, 131, 67}, {1, 515, 9}, {300, 4, 3}, {64, 20, 0}, {200, 136, 1}} {
		f32mm("mm_dyn", sh[0], sh[1], sh[2], true)
	}
	for _, sh := range [][3]int{{256, 128, 64}, {129, 131, 67}, {3, 260, 13}, {130, 2, 129}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, b, c := randI32(r, m, k), randI32(r, k, n), randI32(r, m, n)
		want, indexed := make([]int32, m*n), make([]int32, m*n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s int32
				t := c.v[i*n+j]
				for l := 0; l < k; l++ {
					s += a.v[i*k+l] * b.v[l*n+j]
					t += a.v[i*k+l]*b.v[l*n+j] + int32(i-2*j+3*l)
				}
				want[i*n+j], indexed[i*n+j] = s, t
			}
		}
		_, data := invoke(t, dev, module, "mm_i32", a.arg(), b.arg())
		checkI32(t, fmt.Sprintf("mm_i32 %v", sh), data[0], want)
		_, data = invoke(t, dev, module, "indexed", a.arg(), b.arg(), c.arg())
		checkI32(t, fmt.Sprintf("indexed %v", sh), data[0], indexed)
	}
	a, b := randF32(r, 3, 130, 36), randF32(r, 3, 36, 70)
	var want, scale []float64
	for bi := 0; bi < 3; bi++ {
		w, s := mmRef(130, 70, 36, func(i, l int) float32 { return a.v[(bi*130+i)*36+l] },
			func(l, j int) float32 { return b.v[(bi*36+l)*70+j] }, 0)
		want, scale = append(want, w...), append(scale, s...)
	}
	_, data := invoke(t, dev, module, "bmm", a.arg(), b.arg())
	checkMM(t, "bmm 3x130x70x36", data[0], want, scale, 36)
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// compileVulkanFor compiles a testdata program for vulkan-spirv tuned for
// a device (--iree-vulkan-target; "" for none).
func compileVulkanFor(t *testing.T, file, device string, flags ...string) []byte {
	t.Helper()
	tf := map[string]string{"iree-vulkan-target": device}
	for _, f := range flags {
		k, v, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		tf[k] = v
	}
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, pipeline.Options{
		Targets:     transforms.TargetOptions{Backends: []string{"vulkan-spirv"}},
		TargetFlags: tf,
	}, "vm")
	if err != nil {
		t.Fatalf("compiling %s for vulkan-spirv --iree-vulkan-target=%s %s: %v", file, device, strings.Join(flags, " "), err)
	}
	return s.Output
}

// vulkanDeviceWith opens the first Vulkan device with options, skipping
// where there is none or no glslc to compile for it.
func vulkanDeviceWith(t *testing.T, o vkdriver.DeviceOptions) rhal.Device {
	t.Helper()
	if _, err := (vulkan.Options{}).FindGlslc(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if err := vkdriver.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if infos, err := vkdriver.NewDriver().Devices(); err != nil || len(infos) == 0 {
		t.Skipf("skipping: no Vulkan device (%v); install mesa-vulkan-drivers for lavapipe", err)
	}
	d, err := vkdriver.NewDeviceWith(0, o)
	return must(t)(d, err)
}

// TestGPUMatmulVulkanTargets runs TestGPUMatmulBlocks' matmuls compiled
// for named devices (--iree-vulkan-target), whose tiled matmuls take 256
// invocations in 128 x 128 blocks: NVIDIA-class limits (ampere, h200)
// and lavapipe's own (llvmpipe), all of which lavapipe meets (1024
// invocations, 32 KiB of shared memory). The same module on a device
// held to Vulkan's least limits (128 invocations, 16 KiB) is refused
// when its executable is created, naming the limit, while the module
// compiled for no device runs there.
func TestGPUMatmulVulkanTargets(t *testing.T) {
	for _, device := range []string{"ampere", "h200", "llvmpipe"} {
		t.Run(device, func(t *testing.T) {
			dev := vulkanDeviceWith(t, vkdriver.DeviceOptions{})
			matmulBlocks(t, dev, compileVulkanFor(t, "gpu_matmul.mlir", device))
		})
	}
	t.Run("portable device", func(t *testing.T) {
		dev := vulkanDeviceWith(t, vkdriver.DeviceOptions{PortableLimits: true})
		err := invokeErr(dev, compileVulkanFor(t, "gpu_matmul.mlir", "ampere"), "mm_256", "256x256xf32=1", "256x256xf32=1")
		want := "has workgroup size [256 1 1] (256 invocations), beyond device"
		if status.CodeOf(err) != status.OutOfRange || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "maxComputeWorkGroupInvocations 128") {
			t.Fatalf("a module for ampere on a device with the least limits: error %v, want OUT_OF_RANGE containing %q", err, want)
		}
		matmulBlocks(t, dev, compileVulkanFor(t, "gpu_matmul.mlir", ""))
	})
}

// invokeErr calls fn of a module on dev with inputs in the --input
// spelling and returns the first error, from loading the module to the
// call.
func invokeErr(dev rhal.Device, module []byte, fn string, inputs ...string) error {
	m, err := vm.LoadBytecodeModule(module)
	if err != nil {
		return err
	}
	hm, err := halmodule.New(dev)
	if err != nil {
		return err
	}
	ctx, err := vm.NewInstance().NewContext(hm, m)
	if err != nil {
		return err
	}
	f, err := ctx.LookupFunction(fn)
	if err != nil {
		return err
	}
	in, err := functionio.ParseInputs(inputs)
	if err != nil {
		return err
	}
	args, err := functionio.Values(in, f.Signature(), dev.Allocator())
	if err != nil {
		return err
	}
	res, err := ctx.Invoke(f, args)
	vm.ReleaseValues(res)
	return err
}

// f16Arg is the --input spelling of an f16 tensor of values exact in f16.
func f16Arg(shape []int, v []float32) string {
	var b strings.Builder
	b.WriteString(shapeString(shape) + "f16=")
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	return b.String()
}

// eighths returns n random multiples of 1/8 in [-2, 2], exact in f16, so
// that products and their sums over a few hundred steps are exact in
// f32 whatever the order.
func eighths(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.Intn(33)-16) / 8
	}
	return v
}

// matmulsF16 runs gpu_matmul_f16.mlir's functions on dev, checked
// against a Go loop.
func matmulsF16(t *testing.T, dev rhal.Device, module []byte) {
	r := rand.New(rand.NewSource(16))
	run := func(fn string, m, n, k int, withC bool) {
		a, b, c := eighths(r, m*k), eighths(r, k*n), eighths(r, m*n)
		want, scale := mmRef(m, n, k, func(i, l int) float32 { return a[i*k+l] }, func(l, j int) float32 { return b[l*n+j] }, 0)
		args := []string{f16Arg([]int{m, k}, a), f16Arg([]int{k, n}, b)}
		if withC {
			args = append(args, f32s{shape: []int{m, n}, v: c}.arg())
			for i := range want {
				want[i] += float64(c[i])
				scale[i] += math.Abs(float64(c[i]))
			}
		}
		_, data := invoke(t, dev, module, fn, args...)
		checkMM(t, fmt.Sprintf("%s %dx%dx%d", fn, m, n, k), data[0], want, scale, k)
	}
	run("mm16_256", 256, 256, 256, false)
	run("mm16_odd", 200, 131, 77, false)
	run("mm16_acc", 384, 512, 192, true)
	for _, sh := range [][3]int{{128, 128, 32}, {129, 257, 33}, {5, 300, 17}, {300, 7, 0}, {300, 600, 64}} {
		run("mm16_dyn", sh[0], sh[1], sh[2], true)
	}
}

// TestGPUMatmulF16Vulkan runs f16 matmuls (f32 accumulators) on the
// Vulkan device: compiled for lavapipe (llvmpipe) in the tiled kernel,
// with f16 staged as f32; compiled for NVIDIA (h200) on cooperative
// matrices, which run on a device with the cooperative matrix extension
// they were compiled for and are refused, naming it, by one without
// (lavapipe).
func TestGPUMatmulF16Vulkan(t *testing.T) {
	t.Run("llvmpipe", func(t *testing.T) {
		matmulsF16(t, vulkanDeviceWith(t, vkdriver.DeviceOptions{}), compileVulkanFor(t, "gpu_matmul_f16.mlir", "llvmpipe"))
	})
	// h200 runs them on VK_KHR_cooperative_matrix (the default), h200-nv
	// on VK_NV_cooperative_matrix; a device without the extension refuses
	// the module, naming it.
	// h200-nv2 multiplies the blocks inside the matrices as
	// workgroup-scope matrices (VK_NV_cooperative_matrix2), which a device
	// without them refuses, naming the features.
	// khr marks the modules that also need the KHR matrices, which a
	// device lacking them names first.
	for _, c := range []struct {
		name, flag, feature, want string
		khr                       bool
	}{
		{"h200", "", "VK_KHR_cooperative_matrix", "declares capability CooperativeMatrixKHR, which needs the device feature cooperativeMatrix (VK_KHR_cooperative_matrix)", true},
		{"h200-nv", "--iree-vulkan-cooperative-matrix=nv", "VK_NV_cooperative_matrix", "declares capability CooperativeMatrixNV, which needs the device feature cooperativeMatrix (VK_NV_cooperative_matrix)", false},
		{"h200-nv2", "--iree-vulkan-cooperative-matrix=nv2", "VK_NV_cooperative_matrix2", "cooperative matrices of workgroup scope, which need the device features cooperativeMatrixWorkgroupScope and cooperativeMatrixFlexibleDimensions (VK_NV_cooperative_matrix2)", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dev := vulkanDeviceWith(t, vkdriver.DeviceOptions{})
			var flags []string
			if c.flag != "" {
				flags = append(flags, c.flag)
			}
			module := compileVulkanFor(t, "gpu_matmul_f16.mlir", "h200", flags...)
			features := strings.Join(dev.(*vkdriver.Device).Features(), " ")
			if strings.Contains(features, "("+c.feature+")") {
				matmulsF16(t, dev, module)
				return
			}
			// The first feature missing is named.
			want := c.want
			if c.khr && !strings.Contains(features, "(VK_KHR_cooperative_matrix)") {
				want = "declares capability CooperativeMatrixKHR, which needs the device feature cooperativeMatrix (VK_KHR_cooperative_matrix)"
			}
			err := invokeErr(dev, module, "mm16_256", "256x256xf16=1", "256x256xf16=1")
			if status.CodeOf(err) != status.Unimplemented || err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("cooperative matrices on a device without them: error %v, want UNIMPLEMENTED containing %q", err, want)
			}
		})
	}
}
