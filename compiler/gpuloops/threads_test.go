package gpuloops_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/gpuloops"
)

// TestMatmulSizing: the threads and shared memory of a tiled matmul on
// devices of several limits (shared memory in 4-byte elements).
func TestMatmulSizing(t *testing.T) {
	for _, tc := range []struct {
		name                string
		maxThreads, shared  int
		threads, sharedUsed int
	}{
		{"Vulkan's least limits", 128, 4096, 128, 4096},
		{"NVIDIA through Vulkan: 48 KiB", 1024, 12288, 256, 4160},
		{"lavapipe, Mali, Adreno: 32 KiB", 1024, 8192, 256, 4160},
		{"Mali Valhall: 512 threads", 512, 8192, 256, 4160},
		{"many threads, 16 KiB", 1024, 4096, 128, 4096},
		{"just the wide tiles", 256, 4160, 256, 4160},
		{"192 threads", 192, 8192, 128, 4160},
	} {
		shared := gpuloops.MatmulShared(tc.shared)
		threads := gpuloops.MatmulThreads(tc.maxThreads, shared)
		if threads != tc.threads || shared != tc.sharedUsed {
			t.Errorf("%s: %d threads, %d elements of shared memory; want %d, %d", tc.name, threads, shared, tc.threads, tc.sharedUsed)
		}
	}
}
