package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
)

// reductionShapes are the rows x columns the shared reductions run at:
// below a warp (the sequential kernel), at and around the 64-element
// threshold, the Vulkan workgroup (128) and CUDA block (256), their
// unrolled steps (512, 1024) and the tails after them, one long row, no
// columns and no rows.
var reductionShapes = [][2]int{
	{3, 1}, {2, 31}, {2, 63}, {3, 64}, {2, 127}, {2, 128}, {2, 129}, {2, 255}, {2, 257},
	{2, 383}, {2, 385}, {2, 511}, {2, 512}, {2, 513}, {2, 1023}, {2, 1025}, {3, 1031}, {1, 5003},
	{2, 0}, {0, 5}, {70, 70},
}

// TestGPUReductions runs testdata/gpu_reductions.mlir on every GPU device:
// each row's sum of exp(x - m) (a body that is more than its combiner),
// maximumf/minimumf/maxnumf/minnumf over rows with NaNs, integer folds
// (a wrapping sum of x*x + column, minsi, xori) and a static sum onto a
// passed init, against Go loops. Integer and min/max results must be
// exact; float sums, which the GPUs add in another order, within 1e-5 of
// the float64 sum's magnitude.
func TestGPUReductions(t *testing.T) {
	forGPUs(t, "gpu_reductions.mlir", func(t *testing.T, dev rhal.Device, module []byte) {
		for _, sz := range reductionShapes {
			t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
				testReductionShape(t, dev, module, sz[0], sz[1])
			})
		}
		testStaticSum(t, dev, module)
		for _, sz := range [][3]int{{2, 5, 1000}, {3, 9, 33}, {1, 17, 64}, {2, 3, 129}, {1, 40, 1031}, {2, 0, 5}, {2, 3, 0}} {
			t.Run(fmt.Sprintf("batch%dx%dx%d", sz[0], sz[1], sz[2]), func(t *testing.T) {
				testBatchRows(t, dev, module, sz[0], sz[1], sz[2])
			})
		}
	})
}

// testBatchRows checks @batch: every row of every batch entry, rows with
// a NaN (every fifth) included.
func testBatchRows(t *testing.T, dev rhal.Device, module []byte, b, rows, cols int) {
	x := make([]float32, b*rows*cols)
	m := make([]float32, b*rows)
	for r := range m {
		m[r] = float32(r%7) - 3
		for j := 0; j < cols; j++ {
			x[r*cols+j] = float32((r*7919+j*104729)%4001-2000) / 500
		}
		if r%5 == 3 && cols > 0 {
			x[r*cols+(r*13)%cols] = float32(math.NaN())
		}
	}
	_, data := invoke(t, dev, module, "batch", f32Arg(fmt.Sprintf("%dx%dx%dx", b, rows, cols), x), f32Arg(fmt.Sprintf("%dx%dx", b, rows), m))
	for r := range m {
		var sum float64
		mx := math.Inf(-1)
		for _, v := range x[r*cols : (r+1)*cols] {
			sum += math.Exp(float64(v - m[r]))
			mx = math.Max(mx, float64(v))
		}
		g := float64(f32At(data[0], r))
		if math.IsNaN(sum) != math.IsNaN(g) || !math.IsNaN(sum) && math.Abs(g-sum) > 1e-5*sum {
			t.Errorf("sumexp[%d] = %v, want %v", r, g, sum)
		}
		if g := float64(f32At(data[1], r)); g != mx && !(math.IsNaN(g) && math.IsNaN(mx)) {
			t.Errorf("max[%d] = %v, want %v", r, g, mx)
		}
	}
}

// TestGPUReductionsNoSubgroups runs the shapes of TestGPUReductions on
// Vulkan with --iree-vulkan-subgroups=false: the parts of a shared
// reduction meet in shared memory alone.
func TestGPUReductionsNoSubgroups(t *testing.T) {
	dev := gpuTargets[0].device(t)
	src, err := os.ReadFile(filepath.Join("testdata", "gpu_reductions.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	opts := pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}, TargetFlags: map[string]string{"iree-vulkan-subgroups": "false"}}
	s, err := pipeline.Compile("gpu_reductions.mlir", src, opts, "vm")
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range reductionShapes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			testReductionShape(t, dev, s.Output, sz[0], sz[1])
		})
	}
	testBatchRows(t, dev, s.Output, 2, 5, 1000)
}

func f32At(data []byte, i int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
}

func f32Arg(shape string, v []float32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return shape + "f32=" + strings.Join(s, " ")
}

func testReductionShape(t *testing.T, dev rhal.Device, module []byte, rows, cols int) {
	shape := fmt.Sprintf("%dx%dx", rows, cols)
	x := make([]float32, rows*cols)
	xi := make([]int32, rows*cols)
	m := make([]float32, rows)
	var is []string
	for i := 0; i < rows; i++ {
		m[i] = float32(i%5) - 2
		for j := 0; j < cols; j++ {
			x[i*cols+j] = float32((i*7919+j*104729)%4001-2000) / 500
			xi[i*cols+j] = int32((i*7919+j*104729)%200001 - 100000)
		}
		// Row 1 (mod 4) has one NaN, row 2 (mod 4) has only NaNs.
		switch {
		case i%4 == 1 && cols > 0:
			x[i*cols+(i*37)%cols] = float32(math.NaN())
		case i%4 == 2:
			for j := 0; j < cols; j++ {
				x[i*cols+j] = float32(math.NaN())
			}
		}
	}
	for _, v := range xi {
		is = append(is, strconv.Itoa(int(v)))
	}
	// sum of exp(x - m) over the rows without NaNs.
	clean := make([]float32, len(x))
	for i := range x {
		clean[i] = x[i]
		if math.IsNaN(float64(x[i])) {
			clean[i] = 0.25
		}
	}
	_, data := invoke(t, dev, module, "sumexp", f32Arg(shape, clean), f32Arg(fmt.Sprintf("%dx", rows), m))
	for i := 0; i < rows; i++ {
		var want float64
		for j := 0; j < cols; j++ {
			want += math.Exp(float64(clean[i*cols+j] - m[i]))
		}
		if g := float64(f32At(data[0], i)); math.Abs(g-want) > 1e-5*want {
			t.Errorf("sumexp[%d] = %v, want %v", i, g, want)
		}
	}
	_, data = invoke(t, dev, module, "minmax", f32Arg(shape, x))
	for i := 0; i < rows; i++ {
		row := x[i*cols : (i+1)*cols]
		mx, mn := math.Inf(-1), math.Inf(1)
		nmx, nmn := -2.0, 2.0
		nan := false
		for _, v := range row {
			f := float64(v)
			if math.IsNaN(f) {
				nan = true
				continue
			}
			mx, mn = math.Max(mx, f), math.Min(mn, f)
			nmx, nmn = math.Max(nmx, f), math.Min(nmn, f)
		}
		if nan {
			mx, mn = math.NaN(), math.NaN()
		}
		for r, want := range []float64{mx, mn, nmx, nmn} {
			g := float64(f32At(data[r], i))
			if g != want && !(math.IsNaN(g) && math.IsNaN(want)) {
				t.Errorf("%s[%d] = %v, want %v", []string{"maximumf", "minimumf", "maxnumf", "minnumf"}[r], i, g, want)
			}
		}
	}
	_, data = invoke(t, dev, module, "ints", shape+"i32="+strings.Join(is, " "))
	for i := 0; i < rows; i++ {
		var sum, xor int32
		mn := int32(7)
		for j := 0; j < cols; j++ {
			v := xi[i*cols+j]
			sum += v*v + int32(j)
			mn = min(mn, v)
			xor ^= v
		}
		for r, want := range []int32{sum, mn, xor} {
			if g := int32(binary.LittleEndian.Uint32(data[r][4*i:])); g != want {
				t.Errorf("%s[%d] = %d, want %d", []string{"sum", "minsi", "xori"}[r], i, g, want)
			}
		}
	}
}

// testStaticSum checks @static: 3 rows of 1031 onto an init, in
// multiples of 1/8 small enough that every order of summation is exact.
func testStaticSum(t *testing.T, dev rhal.Device, module []byte) {
	x := make([]float32, 3*1031)
	init := []float32{0.5, -3, 100}
	want := append([]float32(nil), init...)
	for i := range x {
		x[i] = float32(i*7919%41-20) / 8
		want[i/1031] += x[i]
	}
	_, data := invoke(t, dev, module, "static", f32Arg("3x1031x", x), f32Arg("3x", init))
	for i, w := range want {
		if g := f32At(data[0], i); g != w {
			t.Errorf("static[%d] = %v, want %v", i, g, w)
		}
	}
}
