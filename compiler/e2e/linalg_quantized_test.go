package e2e_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// TestLinalgQuantizedMatmul runs linalg.quantized_matmul (IREE's quantized
// matmul regression test uses it) with random i8 operands and zero points
// on the CPU drivers and the GPU devices, against a Go loop of
// (a - azp) * (b - bzp) sums.
func TestLinalgQuantizedMatmul(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const m, k, n = 5, 7, 3
	a, b := make([]int8, m*k), make([]int8, k*n)
	for i := range a {
		a[i] = int8(r.Intn(256) - 128)
	}
	for i := range b {
		b[i] = int8(r.Intn(256) - 128)
	}
	ints := func(shape string, v []int8) string {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprint(x)
		}
		return shape + "=" + strings.Join(parts, " ")
	}
	check := func(t *testing.T, dev rhal.Device, module []byte) {
		for _, zp := range [][2]int32{{0, 0}, {3, -7}, {-128, 127}} {
			got := callF32(t, dev, module, "qmm", ints("5x7xi8", a), ints("7x3xi8", b), fmt.Sprintf("i32=%d", zp[0]), fmt.Sprintf("i32=%d", zp[1]))
			for i := range m {
				for j := range n {
					var want int32
					for l := range k {
						want += (int32(a[i*k+l]) - zp[0]) * (int32(b[l*n+j]) - zp[1])
					}
					if got[i*n+j] != float32(want) {
						t.Errorf("zero points %v: [%d,%d] = %g, want %d", zp, i, j, got[i*n+j], want)
					}
				}
			}
		}
	}
	onEveryDevice(t, "quantized_matmul.mlir", check)
}
