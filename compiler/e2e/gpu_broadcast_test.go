package e2e_test

import (
	"fmt"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// TestGPUBroadcast runs testdata/gpu_broadcast.mlir on every GPU device at
// row lengths below, at and around the unrolled steps of both targets
// (4 x 128 on Vulkan, 4 x 256 on CUDA) and with more rows than the
// workgroup budget (two rows per workgroup), against Go loops. The scales
// are powers of two and the inputs multiples of 1/8, so every f32 result
// is exact.
func TestGPUBroadcast(t *testing.T) {
	forGPUs(t, "gpu_broadcast.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		for _, sz := range [][2]int{{3, 5}, {3, 383}, {2, 384}, {2, 385}, {2, 511}, {2, 512}, {2, 513}, {2, 767}, {2, 1024}, {2, 1031}, {1, 5003}, {9000, 7}, {0, 3}} {
			rows, cols := sz[0], sz[1]
			x := make([]float32, rows*cols)
			s := make([]float32, rows)
			b := make([]float32, cols)
			for i := range x {
				x[i] = float32(i*7919%2001-1000) / 8
			}
			for i := range s {
				s[i] = float32(int(1) << (i % 5))
			}
			for j := range b {
				b[j] = float32(j%17) - 8
			}
			_, data := invoke(t, dev, module, "broadcast", f32Arg(fmt.Sprintf("%dx%dx", rows, cols), x), f32Arg(fmt.Sprintf("%dx", rows), s), f32Arg(fmt.Sprintf("%dx", cols), b))
			bad := 0
			for i := 0; i < rows; i++ {
				for j := 0; j < cols; j++ {
					v := x[i*cols+j]
					want, want8 := v/s[i]+b[j], int8(int32(v*10))
					if g := f32At(data[0], i*cols+j); g != want && bad < 5 {
						bad++
						t.Errorf("%dx%d: y[%d,%d] = %v, want %v", rows, cols, i, j, g, want)
					}
					if g := int8(data[1][i*cols+j]); g != want8 && bad < 5 {
						bad++
						t.Errorf("%dx%d: i8[%d,%d] = %d, want %d", rows, cols, i, j, g, want8)
					}
				}
			}
		}
	})
}
