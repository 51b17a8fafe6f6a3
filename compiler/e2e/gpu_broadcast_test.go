package e2e_test

import (
	"encoding/binary"
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
		for _, sz := range [][3]int{{2, 100, 7}, {3, 50, 129}, {1, 9, 1000}, {2, 3, 1}, {2, 130, 3}} {
			testBroadcast3(t, dev, module, sz[0], sz[1], sz[2])
		}
	})
}

// testBroadcast3 checks @broadcast3: every element's sum and indices.
func testBroadcast3(t *testing.T, dev rhal.Device, module []byte, n0, n1, n2 int) {
	x := make([]float32, n0*n1*n2)
	b := make([]float32, n2)
	for i := range x {
		x[i] = float32(i*7919%2001-1000) / 8
	}
	for k := range b {
		b[k] = float32(k%17) - 8
	}
	_, data := invoke(t, dev, module, "broadcast3", f32Arg(fmt.Sprintf("%dx%dx%dx", n0, n1, n2), x), f32Arg(fmt.Sprintf("%dx", n2), b))
	bad := 0
	for i := 0; i < n0; i++ {
		for j := 0; j < n1; j++ {
			for k := 0; k < n2; k++ {
				e := (i*n1+j)*n2 + k
				if g, want := f32At(data[0], e), x[e]+b[k]; g != want && bad < 5 {
					bad++
					t.Errorf("%dx%dx%d: y[%d,%d,%d] = %v, want %v", n0, n1, n2, i, j, k, g, want)
				}
				if g, want := int32(binary.LittleEndian.Uint32(data[1][4*e:])), int32(i*1000000+j*1000+k); g != want && bad < 5 {
					bad++
					t.Errorf("%dx%dx%d: index[%d,%d,%d] = %d, want %d", n0, n1, n2, i, j, k, g, want)
				}
			}
		}
	}
}
