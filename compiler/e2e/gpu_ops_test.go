package e2e_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
	cudadriver "github.com/goiree/goiree/runtime/hal/drivers/cuda"
	vkdriver "github.com/goiree/goiree/runtime/hal/drivers/vulkan"
)

// TestGPUOps reruns the CPU op families (the TOSA, StableHLO, linalg_ext,
// math, cast and capture programs, ...) compiled for each GPU target and
// run on its device, checked by the same Go references: while a family
// runs, gpuMode makes compileSource compile for the GPU backend and
// forDevices (and testDevices) hand out the GPU device instead of
// local-sync and local-task. Families that already have GPU tests of
// their own (gpu_linalg_test.go, TestGPUTensorOps, ...) or that test
// CPU-only behaviour (llvm-cpu's microkernels) are not here; checks that a
// bad size fails the dispatch run only on the CPU (failsDispatches).
func TestGPUOps(t *testing.T) {
	for _, g := range gpuTargets {
		t.Run(g.backend, func(t *testing.T) {
			// Skip the whole target without its device or tools, before
			// any family compiles for it.
			func() {
				gpuMode = g.backend
				defer func() { gpuMode = "" }() // also when it skips
				testDevices(t)
			}()
			for _, f := range gpuOpFamilies {
				t.Run(f.name, func(t *testing.T) {
					if why := f.skip[g.backend]; why != "" {
						t.Skipf("skipping on %s: %s", g.backend, why)
					}
					gpuMode = g.backend
					defer func() { gpuMode = "" }()
					f.test(t)
				})
			}
		})
	}
}

// gpuOpFamilies are the CPU tests TestGPUOps reruns; skip gives, by
// backend ("" for every GPU), why a family does not run there.
var gpuOpFamilies = []struct {
	name string
	test func(*testing.T)
	skip map[string]string
}{
	{name: "TosaOps", test: TestTosaOps},
	{name: "StableHLOOps", test: TestStableHLOOps},
	{name: "StableHLOConvReduce", test: TestStableHLOConvReduce},
	{name: "LinalgExtPackUnpack", test: TestLinalgExtPackUnpack},
	{name: "LinalgExtAttention", test: TestLinalgExtAttention},
	{name: "LinalgExtOnlineAttention", test: TestLinalgExtOnlineAttention},
	{name: "LinalgExtArgCompare", test: TestLinalgExtArgCompare},
	{name: "LinalgExtWinograd", test: TestLinalgExtWinograd},
	{name: "LinalgExtScan", test: TestLinalgExtScan},
	{name: "LinalgExtSort", test: TestLinalgExtSort},
	{name: "LinalgExtTopK", test: TestLinalgExtTopK},
	{name: "LinalgExtGatherScatter", test: TestLinalgExtGatherScatter},
	{name: "LinalgExtReverse", test: TestLinalgExtReverse},
	{name: "LinalgElementwiseNamed", test: TestLinalgElementwiseNamed},
	{name: "LinalgMathAccuracy", test: TestLinalgMathAccuracy},
	{name: "LinalgIntegerOps", test: TestLinalgIntegerOps},
	{name: "ElementwiseHalfAndDouble", test: TestElementwiseHalfAndDouble},
	{name: "LinalgCasts", test: TestLinalgCasts},
	{name: "LinalgPairwiseReduction", test: TestLinalgPairwiseReduction, skip: map[string]string{
		"vulkan-spirv": "its exact f16 sum relies on llvm-cpu's pairwise order; the GPU's lanes add 32 elements in order first (4.109 for 4.098)",
	}},
	{name: "LinalgCapturedScalars", test: TestLinalgCapturedScalars},
	{name: "DynamicSliceAtOrigin", test: TestDynamicSliceAtOrigin},
	{name: "LinalgEpilogue", test: TestLinalgEpilogue},
	{name: "TensorPlaces", test: TestTensorPlaces},
	{name: "DenseResourceWeights", test: TestDenseResourceWeights},
}

// gpuMode is the GPU backend the CPU families compile for and run on
// while TestGPUOps reruns them; "" (the default) is the CPU devices.
// Tests in this package do not run in parallel, so one variable serves.
var gpuMode string

// testDevices is the devices the CPU families run on: local-sync and
// local-task, or the device of gpuMode.
func testDevices(t *testing.T) []device {
	switch gpuMode {
	case "":
		return devices
	case "vulkan-spirv":
		if _, err := (vulkan.Options{}).FindGlslc(); err != nil {
			t.Skipf("skipping: %v", err)
		}
		if err := vkdriver.Available(); err != nil {
			t.Skipf("skipping: %v", err)
		}
		if infos, err := vkdriver.NewDriver().Devices(); err != nil || len(infos) == 0 {
			t.Skipf("skipping: no Vulkan device (%v)", err)
		}
		return []device{{gpuMode, func() (rhal.Device, error) { return vkdriver.NewDevice(0) }}}
	case "cuda":
		if err := cudadriver.Available(); err != nil {
			t.Skipf("skipping: no CUDA device: %v", err)
		}
		return []device{{gpuMode, func() (rhal.Device, error) { return cudadriver.NewDevice(0) }}}
	}
	t.Fatalf("unknown GPU backend %q", gpuMode)
	return nil
}

// failsDispatches reports whether the test devices fail a dispatch whose
// size checks fail (the CPU devices); GPU kernels return without writing
// instead, as Vulkan has no status for a dispatch.
func failsDispatches() bool { return gpuMode == "" }

// compileSourceForGPU is compileSource for gpuMode's backend.
func compileSourceForGPU(file string, src []byte, searchPaths []string) ([]byte, error) {
	s, err := pipeline.Compile(file, src, pipeline.Options{ObjectSearchPaths: searchPaths, Targets: transforms.TargetOptions{Backends: []string{gpuMode}}}, "vm")
	if err != nil {
		return nil, err
	}
	return s.Output, nil
}
