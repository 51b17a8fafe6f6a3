package e2e_test

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// i32Arg is the --input spelling of an i32 tensor.
func i32Arg(shape []int, v []int32) string {
	var b strings.Builder
	b.WriteString(shapeString(shape) + "i32=")
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(int64(x), 10))
	}
	return b.String()
}

// TestGPUGridSplit runs testdata/gpu_grid.mlir's row reductions on every
// GPU device with row counts on both sides of 65,535, the most workgroups
// a grid holds in x on many Vulkan devices (and in y on CUDA): the GPU
// targets give each of these dynamic rows a workgroup, so the larger
// counts launch grids split into rows. Results are checked against plain
// Go loops.
func TestGPUGridSplit(t *testing.T) {
	forGPUs(t, "gpu_grid.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		r := rand.New(rand.NewSource(17))
		for _, rows := range []int{3, 65535, 65536, 70000} {
			x := make([]int32, rows*8)
			for i := range x {
				x[i] = r.Int31n(2001) - 1000
			}
			want := make([]int32, rows)
			for i := 0; i < rows; i++ {
				for j := 0; j < 8; j++ {
					want[i] += x[i*8+j]
				}
			}
			_, data := invoke(t, dev, module, "rowsum8", i32Arg([]int{rows, 8}, x))
			checkI32(t, fmt.Sprintf("rowsum8 %d rows", rows), data[0], want)
		}
		// 70001 rows of 70: every workgroup's threads share a row whose
		// length is not a multiple of their count.
		for _, sz := range [][2]int{{70001, 70}, {2, 300}} {
			rows, cols := sz[0], sz[1]
			x := make([]int32, rows*cols)
			for i := range x {
				x[i] = r.Int31() - r.Int31()
			}
			want := make([]int32, rows)
			for i := 0; i < rows; i++ {
				want[i] = x[i*cols]
				for _, v := range x[i*cols : (i+1)*cols] {
					want[i] = max(want[i], v)
				}
			}
			_, data := invoke(t, dev, module, "rowmax", i32Arg([]int{rows, cols}, x))
			checkI32(t, fmt.Sprintf("rowmax %dx%d", rows, cols), data[0], want)
		}
	})
}
