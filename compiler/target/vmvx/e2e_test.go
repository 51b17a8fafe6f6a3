package vmvx_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	_ "github.com/goiree/goiree/compiler/target/vmvx"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/vm"
)

// compile compiles a testdata program for vmvx only, as
// --iree-hal-target-backends=vmvx does.
func compile(t testing.TB, file string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vmvx"}}}, "")
	if err != nil {
		t.Fatalf("front end: %v", err)
	}
	out, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets})
	if err != nil {
		t.Fatalf("back end: %v", err)
	}
	return out
}

var devices = []struct {
	name string
	make func() (rhal.Device, error)
}{
	{"local-sync", func() (rhal.Device, error) { return localsync.NewDevice() }},
	{"local-task", func() (rhal.Device, error) { return localtask.NewDevice(localtask.Options{}) }},
}

// invoke runs fn with --input style inputs and returns the raw bytes of
// each result.
func invoke(t *testing.T, dev rhal.Device, module []byte, fn string, inputs ...string) [][]byte {
	t.Helper()
	m, err := vm.LoadBytecodeModule(module)
	if err != nil {
		t.Fatal(err)
	}
	hm, err := halmodule.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := vm.NewInstance().NewContext(hm, m)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	f, err := ctx.LookupFunction(fn)
	if err != nil {
		t.Fatal(err)
	}
	in, err := functionio.ParseInputs(inputs)
	if err != nil {
		t.Fatal(err)
	}
	args, err := functionio.Values(in, f.Signature(), dev.Allocator())
	if err != nil {
		t.Fatal(err)
	}
	res, err := ctx.Invoke(f, args)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	defer vm.ReleaseValues(res)
	var out [][]byte
	for _, r := range res {
		view, err := halmodule.BufferViewOf(r)
		if err != nil {
			t.Fatal(err)
		}
		b, err := functionio.ReadBufferView(view)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Data)
	}
	return out
}

// arg spells a tensor for --input.
func arg[T any](shape string, v []T) string {
	var b strings.Builder
	b.WriteString(shape + "=")
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}

func f32At(b []byte, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])) }

// near reports whether got is within a relative tol of want (NaNs alike).
func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol*(1+math.Abs(want))
}

func checkF32(t *testing.T, what string, data []byte, want []float32, tol float64) {
	t.Helper()
	if len(data) != 4*len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(data), 4*len(want))
	}
	for i, w := range want {
		if g := f32At(data, i); !near(float64(g), float64(w), tol) {
			t.Fatalf("%s: element %d = %g, want %g", what, i, g, w)
		}
	}
}

func randF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.Intn(2001)-1000) / 500
	}
	return v
}

// TestKernels runs every program of testdata/kernels.mlir on both local
// devices and checks each result element against a Go loop.
func TestKernels(t *testing.T) {
	module := compile(t, "kernels.mlir")
	r := rand.New(rand.NewSource(1))
	for _, d := range devices {
		t.Run(d.name, func(t *testing.T) {
			dev, err := d.make()
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()

			// Elementwise over 3000 elements: several tiles, a partial last.
			n := 3000
			a, b := randF32(r, n), randF32(r, n)
			want := make([]float32, n)
			for i := range want {
				s := a[i]*b[i] + float32(math.Exp(float64(a[i])))
				want[i] = float32(math.Abs(float64(s)))
			}
			res := invoke(t, dev, module, "ew", arg(fmt.Sprintf("%dxf32", n), a), arg(fmt.Sprintf("%dxf32", n), b))
			checkF32(t, "ew", res[0], want, 1e-6)

			// Matmul 37x19 * 19x23.
			m, k, nn := 37, 19, 23
			x, y := randF32(r, m*k), randF32(r, k*nn)
			mm := make([]float32, m*nn)
			for i := 0; i < m; i++ {
				for j := 0; j < nn; j++ {
					var acc float32
					for l := 0; l < k; l++ {
						acc += x[i*k+l] * y[l*nn+j]
					}
					mm[i*nn+j] = acc
				}
			}
			res = invoke(t, dev, module, "mm", arg(fmt.Sprintf("%dx%dxf32", m, k), x), arg(fmt.Sprintf("%dx%dxf32", k, nn), y))
			checkF32(t, "mm", res[0], mm, 1e-5)

			// Row max and sum of exp(x - max).
			rows := randF32(r, 6*37)
			maxs, sums := make([]float32, 6), make([]float32, 6)
			for i := 0; i < 6; i++ {
				maxs[i] = float32(math.Inf(-1))
				for j := 0; j < 37; j++ {
					maxs[i] = max(maxs[i], rows[i*37+j])
				}
				for j := 0; j < 37; j++ {
					sums[i] += float32(math.Exp(float64(rows[i*37+j] - maxs[i])))
				}
			}
			res = invoke(t, dev, module, "rows", arg("6x37xf32", rows))
			checkF32(t, "rows max", res[0], maxs, 0)
			checkF32(t, "rows sum", res[1], sums, 1e-6)

			// A strided window, transposed, inserted into a copy.
			src := randF32(r, 80)
			slices := append([]float32(nil), src...)
			for i := 0; i < 4; i++ {
				for j := 0; j < 3; j++ {
					slices[(4+i)*10+5+j] = src[(1+j)*10+2+2*i]
				}
			}
			res = invoke(t, dev, module, "slices", arg("8x10xf32", src))
			checkF32(t, "slices", res[0], slices, 0)

			// Row sums of 0.001 (in f32): 40960 steps in order would be
			// off by 1e-2; pairwise they are within a few ulps. 700 and
			// 3001 random values take the in-order and pairwise paths.
			for _, n := range []int{700, 3001, 40960} {
				x := randF32(r, 2*n)
				if n == 40960 {
					for i := range x {
						x[i] = 0.001
					}
				}
				sums := make([]float32, 2)
				for i := 0; i < 2; i++ {
					var acc float64
					for j := 0; j < n; j++ {
						acc += float64(x[i*n+j])
					}
					sums[i] = float32(acc)
				}
				res := invoke(t, dev, module, "longsum", arg(fmt.Sprintf("2x%dxf32", n), x))
				checkF32(t, fmt.Sprintf("longsum %d", n), res[0], sums, 2e-6)
			}

			// f64 matvec onto an init, against the same in-order sums.
			mv, vv, iv := make([]float64, 5*300), make([]float64, 300), make([]float64, 5)
			for i := range mv {
				mv[i] = r.NormFloat64()
			}
			for i := range vv {
				vv[i] = r.NormFloat64()
			}
			for i := range iv {
				iv[i] = r.NormFloat64()
			}
			res = invoke(t, dev, module, "matvec64", arg("5x300xf64", mv), arg("300xf64", vv), arg("5xf64", iv))
			for i := 0; i < 5; i++ {
				want := iv[i]
				for j := 0; j < 300; j++ {
					want += float64(mv[i*300+j] * vv[j])
				}
				if got := math.Float64frombits(binary.LittleEndian.Uint64(res[0][8*i:])); got != want {
					t.Errorf("matvec64 element %d = %v, want %v", i, got, want)
				}
			}

			checkInts(t, dev, module, r)
			checkFloats(t, dev, module)
			checkBits(t, dev, module)
		})
	}
}

func checkInts(t *testing.T, dev rhal.Device, module []byte, r *rand.Rand) {
	a := []int8{1, -128, 127, 5, -5, 0, 3, -3, 100, -100, 7, 8, 9, 10, 11, 12}
	b := []int8{0, -1, 2, 0, 3, -7, 1, 2, 3, 4, 5, 6, 7, 8, 9, -128}
	c := []int32{1, -1, 31, 32, -33, 100000, 7, -7, 0, math.MaxInt32, math.MinInt32, 5, 6, 8, 9, 10}
	d := make([]int64, 16)
	for i := range d {
		d[i] = r.Int63n(1<<40) - 1<<39
	}
	res := invoke(t, dev, module, "ints", arg("16xi8", a), arg("16xi8", b), arg("16xi32", c), arg("16xi64", d))
	for i := 0; i < 16; i++ {
		x, y, z, w := a[i], b[i], c[i], d[i]
		s := x + y
		var q int8
		if y != 0 {
			q = x / y
		}
		m := s * q
		p := int16(x) * int16(uint8(y))
		zs := z % 7
		var sh, sr int32
		if uint32(zs) >= 32 {
			sh, sr = 0, z>>31
		} else {
			sh, sr = z<<zs, z>>zs
		}
		r32 := sh + sr + int32(x)
		var q64 int64
		if ww := uint64(int64(z)); ww != 0 {
			q64 = int64(uint64(w) / ww)
		}
		r64 := q64 + w
		lt := uint8(x) < uint8(y)
		got8 := int8(res[0][i])
		got16 := int16(binary.LittleEndian.Uint16(res[1][2*i:]))
		got32 := int32(binary.LittleEndian.Uint32(res[2][4*i:]))
		got64 := int64(binary.LittleEndian.Uint64(res[3][8*i:]))
		got1 := res[4][i] != 0
		if got8 != m || got16 != p || got32 != r32 || got64 != r64 || got1 != lt {
			t.Errorf("ints element %d (x=%d y=%d z=%d w=%d) = %d %d %d %d %v, want %d %d %d %d %v", i, x, y, z, w, got8, got16, got32, got64, got1, m, p, r32, r64, lt)
		}
	}
}

func checkFloats(t *testing.T, dev rhal.Device, module []byte) {
	h := []float64{0.5, 1, 1.5, -2, 0.125, 3, -0.25, 4, 0}
	dd := []float64{0.5, 1, 2, 3, 4, 5, 6, 7, 8}
	res := invoke(t, dev, module, "floats", arg("9xf16", h), arg("9xf64", dd))
	r16 := func(v float64) float64 { return float64(bufferfmt.F16ToFloat32(bufferfmt.Float32ToF16(float32(v)))) }
	rbf := func(v float64) float64 { return float64(bufferfmt.BF16ToFloat32(bufferfmt.Float32ToBF16(float32(v)))) }
	for i := range h {
		x, y := h[i], dd[i]
		wantH := r16(r16(x*x) + r16(math.Tanh(x)))
		wantD := math.Pow(y, math.Log1p(y))
		wantB := rbf(rbf(y) + rbf(x))
		gotH := float64(bufferfmt.F16ToFloat32(binary.LittleEndian.Uint16(res[0][2*i:])))
		gotD := math.Float64frombits(binary.LittleEndian.Uint64(res[1][8*i:]))
		gotB := float64(bufferfmt.BF16ToFloat32(binary.LittleEndian.Uint16(res[2][2*i:])))
		if !near(gotH, wantH, 1e-3) || !near(gotD, wantD, 1e-14) || !near(gotB, wantB, 8e-3) {
			t.Errorf("floats element %d = %s %s %s, want %s %s %s", i, ff(gotH), ff(gotD), ff(gotB), ff(wantH), ff(wantD), ff(wantB))
		}
	}
}

func checkBits(t *testing.T, dev rhal.Device, module []byte) {
	a := []int32{0, 1, -1, math.MinInt32, 0x00F0F000, 12, 1 << 30, 7}
	b := []int8{0, 1, -1, -128, 64, 12, 3, 96}
	c := []int64{0, 1, -1, math.MinInt64, 0xF0F0F0F0F0, 1 << 40, 3, 255}
	res := invoke(t, dev, module, "bits", arg("8xi32", a), arg("8xi8", b), arg("8xi64", c))
	for i := 0; i < 8; i++ {
		want := []int64{
			int64(bits.OnesCount32(uint32(a[i]))), int64(bits.LeadingZeros32(uint32(a[i]))), int64(bits.TrailingZeros32(uint32(a[i]))),
			int64(bits.LeadingZeros8(uint8(b[i]))), int64(bits.TrailingZeros8(uint8(b[i]))), int64(bits.OnesCount64(uint64(c[i]))),
		}
		got := []int64{
			int64(int32(binary.LittleEndian.Uint32(res[0][4*i:]))), int64(int32(binary.LittleEndian.Uint32(res[1][4*i:]))),
			int64(int32(binary.LittleEndian.Uint32(res[2][4*i:]))), int64(int8(res[3][i])), int64(int8(res[4][i])),
			int64(binary.LittleEndian.Uint64(res[5][8*i:])),
		}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("bits element %d: result %d = %d, want %d", i, j, got[j], want[j])
			}
		}
	}
}

func ff(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
