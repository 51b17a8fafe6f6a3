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

// TestGPUMatmulColumnGroups runs matmuls that accumulate into a C the
// caller passes, whose column blocks the GPU targets divide among the
// grid's z layers of workgroups: a block no layer takes would come back
// without its sum. Sizes leave partial blocks in rows and columns, and the
// dynamic ones have fewer or more column blocks than z layers. The
// reference is a Go loop starting from C.
func TestGPUMatmulColumnGroups(t *testing.T) {
	forGPUs(t, "gpu_grid.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		r := rand.New(rand.NewSource(18))
		check := func(fn string, m, k, n int) {
			a, b, c := randF32(r, m, k), randF32(r, k, n), randF32(r, m, n)
			want := matmulRef(a, b, 0)
			for i := range want.v {
				// matmulRef sums from 0; C's element comes first.
				acc := c.v[i]
				row, col := i/n, i%n
				for l := 0; l < k; l++ {
					acc += a.v[row*k+l] * b.v[l*n+col]
				}
				want.v[i] = acc
			}
			shapes, data := invoke(t, dev, module, fn, a.arg(), b.arg(), c.arg())
			checkF32(t, fmt.Sprintf("%s %dx%dx%d", fn, m, k, n), shapes[0], data[0], want)
		}
		check("matmul_acc", 97, 40, 300)
		for _, sz := range [][3]int{{97, 40, 300}, {40, 3, 2000}, {1, 5, 1}} {
			check("matmul_acc_dyn", sz[0], sz[1], sz[2])
		}
	})
}
