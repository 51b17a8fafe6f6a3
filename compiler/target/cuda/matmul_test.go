package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/cuda"
)

// simMatmul is a tiled matmul kernel of testdata/matmul.mlir, its PTX and
// its loop-nest contract.
type simMatmul struct {
	k      *loopnest.Kernel
	m      *gpuloops.Matmul
	kernel *simKernel
}

// matmulKernels compiles testdata/matmul.mlir for cuda (sm_80) and
// decodes each dispatch's kernel, by the name of its function.
func matmulKernels(t *testing.T) map[string]simMatmul {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "matmul.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("matmul.mlir", src, cudaOptions, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]simMatmul{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name != "hal.executable.variant" || hal.InnerModule(op) == nil {
			return true
		}
		mod, err := cuda.GeneratePTX(op, "sm_80")
		if err != nil {
			t.Fatal(err)
		}
		checkPTX(t, mod.PTX)
		for _, f := range hal.InnerModule(op).Body().Ops {
			d, ok := f.Attr(loopnest.Attr).(*ir.DictAttr)
			if !ok {
				continue
			}
			k, err := loopnest.Decode(d)
			if err != nil {
				t.Fatal(err)
			}
			name := mod.Kernels[0].Name
			sk, err := parseSimKernel(mod.PTX, name)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[name[:strings.Index(name, "_linalg")]] = simMatmul{k: k, m: gpuloops.MatmulOf(k), kernel: sk}
		}
		return false
	})
	return out
}

// TestTiledMatmulPTX runs the tiled matmul kernels' PTX in the
// interpreter (ptxsim_test.go) on sizes that take every path (whole
// blocks and steps, partial ones, no whole step, an empty reduction),
// with the bindings 16-byte aligned (the vector copies) and not (the
// scalar ones), and on more and fewer column groups than column blocks,
// against Go loops: floats within float32 rounding, integers exactly.
func TestTiledMatmulPTX(t *testing.T) {
	ks := matmulKernels(t)
	r := rand.New(rand.NewSource(7))
	type body func(acc, x, y float64, i, j, k int) float64
	mac := func(acc, x, y float64, i, j, k int) float64 { return acc + x*y }
	for _, tc := range []struct {
		fn      string
		b, m, n int
		k       int
		float   bool
		body    body
		zs      []int
	}{
		{"mm_static", 1, 200, 260, 40, true, mac, []int{3, 1}},
		{"mm_dyn", 1, 129, 131, 67, true, mac, []int{2}},
		{"mm_dyn", 1, 128, 128, 16, true, mac, []int{1}},
		{"mm_dyn", 1, 5, 9, 3, true, mac, []int{1}},
		{"mm_dyn", 1, 3, 4, 0, true, mac, []int{1}},
		{"maxplus", 1, 9, 130, 33, false, func(acc, x, y float64, i, j, k int) float64 { return math.Max(acc, x+y) }, []int{1}},
		{"indexed", 1, 140, 12, 21, false, func(acc, x, y float64, i, j, k int) float64 { return acc + x*y + float64(i-2*j+3*k) }, []int{1}},
		{"bmm", 2, 45, 67, 70, true, mac, []int{1}},
	} {
		sm, ok := ks[tc.fn]
		if !ok {
			t.Fatalf("no kernel for @%s (have %v)", tc.fn, len(ks))
		}
		if sm.m == nil {
			t.Fatalf("@%s is not matmul-shaped", tc.fn)
		}
		for _, z := range tc.zs {
			for _, misalign := range []uint64{0, 4} {
				name := fmt.Sprintf("%s/%dx%dx%dx%d/z%d/offset%d", tc.fn, tc.b, tc.m, tc.n, tc.k, z, misalign)
				t.Run(name, func(t *testing.T) {
					simMatmulCase(t, sm, r, tc.b, tc.m, tc.n, tc.k, tc.float, tc.body, z, misalign)
				})
			}
		}
	}
}

// simMatmulCase runs one matmul of b matrices m x k times k x n.
func simMatmulCase(t *testing.T, sm simMatmul, r *rand.Rand, nb, m, n, kk int, float bool,
	body func(acc, x, y float64, i, j, k int) float64, z int, misalign uint64) {
	k, mm := sm.k, sm.m
	sizes := make([]int, len(k.Ranges))
	sizes[mm.I], sizes[mm.J], sizes[mm.R] = m, n, kk
	for _, b := range mm.Batch {
		sizes[b] = nb
	}
	rnd := func() float64 {
		if float {
			return float64(r.Intn(2001)-1000) / 500
		}
		return float64(r.Intn(2001) - 1000)
	}
	enc := func(v float64, e []byte) {
		if float {
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(v)))
		} else {
			binary.LittleEndian.PutUint32(e, uint32(int32(v)))
		}
	}
	dec := func(e []byte) float64 {
		if float {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(e)))
		}
		return float64(int32(binary.LittleEndian.Uint32(e)))
	}
	var params []uint64
	var consts []uint64
	var bufs []*simBuffer
	vals := map[string][]float64{}
	var out *simBuffer
	for bi, b := range k.Bindings() {
		count := 1
		for r, e := range b.Map.Results {
			sz := sizes[e.Pos]
			if b.Type.Shape[r] == ir.Dynamic {
				consts = append(consts, uint64(sz))
			} else if b.Type.Shape[r] != int64(sz) {
				t.Fatalf("binding %d: static size %d, the case has %d", bi, b.Type.Shape[r], sz)
			}
			count *= sz
		}
		buf := &simBuffer{addr: uint64(bi+1)<<32 + misalign, data: make([]byte, 4*count)}
		v := make([]float64, count)
		for i := range v {
			if b.Role == "out" {
				v[i] = math.NaN()
				binary.LittleEndian.PutUint32(buf.data[4*i:], 0x7fc00000)
				continue
			}
			v[i] = rnd()
			enc(v[i], buf.data[4*i:])
		}
		key := fmt.Sprintf("%s%d", b.Role, b.Index)
		vals[key] = v
		if b.Role == "out" {
			out = buf
		}
		bufs = append(bufs, buf)
		params = append(params, buf.addr)
	}
	params = append(params, consts...)
	tiles := (sizes[k.OuterParallel()] + int(k.Tile) - 1) / int(k.Tile)
	clear(sm.kernel.executed)
	if err := sm.kernel.run([3]int{max(tiles, 1), 1, z}, params, bufs); err != nil {
		t.Fatal(err)
	}
	// The vector reads run where a matrix's rows start 16-byte aligned
	// (aligned bindings, rows a multiple of 4 elements long) and there
	// is a whole step; never otherwise.
	vectors := sm.kernel.executed["ld.global.v4.f32"] + sm.kernel.executed["ld.global.v4.u32"]
	if want := misalign == 0 && kk >= 8 && (kk%4 == 0 || n%4 == 0); (vectors > 0) != want {
		t.Errorf("%d vector reads, want them: %v", vectors, want)
	}
	a, bm, init := vals["in0"], vals["in1"], vals["init0"]
	bad := 0
	for bt := 0; bt < nb; bt++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				o := (bt*m+i)*n + j
				acc, scale := 0.0, 0.0
				if init != nil {
					acc, scale = init[o], math.Abs(init[o])
				}
				for l := 0; l < kk; l++ {
					x, y := a[(bt*m+i)*kk+l], bm[(bt*kk+l)*n+j]
					acc = body(acc, x, y, i, j, l)
					scale += math.Abs(x * y)
				}
				got := dec(out.data[4*o:])
				if d := math.Abs(got - acc); d > 1e-6*scale*float64(kk+2) || math.IsNaN(got) {
					if bad++; bad <= 5 {
						t.Errorf("element (%d, %d, %d) = %g, want %g", bt, i, j, got, acc)
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d elements differ", bad, nb*m*n)
	}
}
