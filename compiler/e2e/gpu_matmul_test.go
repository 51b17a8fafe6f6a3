package e2e_test

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
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
	forGPUs(t, "gpu_matmul.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
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
	})
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
