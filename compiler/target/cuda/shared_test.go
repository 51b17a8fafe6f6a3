package cuda_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/target/cuda"
)

// TestWidePartsPTX runs the reassociated 16-bit reductions of
// testdata/wide_parts.mlir in the interpreter for each arch: their parts,
// shuffles and shared-memory exchange are f32 and the result is the
// initial value plus the total, rounded once to the output's type. The
// first row of each sum is IREE's large_reduction test (4096 x 0.001,
// 4.0977 in f16, 4 when rounded at every step in order; a block of 256
// threads happens to get 4.0977 in f16 steps too, its 16-element parts
// being exact, while 128 threads get 4.1094, and in bf16 steps
// 4.0625), the second 4096 x 0.1, whose 16-element parts f16 rounds
// (409.5 once, 409 in the block's f16 steps), and the others random
// values whose partial sums f32 holds exactly in any order, so the
// result must be the exact sum rounded once; products, which f32 rounds,
// may be either neighbour when the exact product is within f32's error
// of a tie. Every case checks that rounding at every step, in order, would
// give another answer in most of its rows, so that it tells the two
// apart.
func TestWidePartsPTX(t *testing.T) {
	// grid returns n multiples of 1/q in [lo, hi).
	grid := func(r *rand.Rand, n int, lo, hi float64, q int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = lo + float64(r.Intn(int((hi-lo)*float64(q))))/float64(q)
		}
		return v
	}
	fill := func(n int, v float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	for _, arch := range halfArchs {
		ds := simDispatches(t, "wide_parts.mlir", arch)
		r := rand.New(rand.NewSource(17))
		for _, tc := range []struct {
			fn         string
			h          halfFormat
			rows, cols int
			x, init    []float64
			sq, mul    bool // the body sums squares, multiplies
			warpRows   bool // each row a warp's (gpuloops.WarpRows)
		}{
			{fn: "sum_f16", h: f16Format, rows: 3, cols: 4096,
				x:    slices.Concat(fill(4096, 0.001), fill(4096, 0.1), grid(r, 4096, 0, 0.125, 1024)),
				init: []float64{0, 3.5, -1}},
			{fn: "sum_bf16", h: bf16Format, rows: 3, cols: 4096,
				x:    slices.Concat(fill(4096, 0.001), fill(4096, 0.1), grid(r, 4096, 0, 1, 128)),
				init: []float64{0, 3.5, -2}},
			{fn: "sumsq_f16", h: f16Format, rows: 3, cols: 4096,
				x:    grid(r, 3*4096, -1, 1, 32),
				init: []float64{1, -0.25, 0}, sq: true},
			{fn: "prod_bf16", h: bf16Format, rows: 3, cols: 256, mul: true,
				x:    grid(r, 3*256, 1-8.0/128, 1+8.0/128, 128),
				init: []float64{1, 0.75, -3}},
			{fn: "many_f16", h: f16Format, rows: 48, cols: 256, warpRows: true,
				x:    grid(r, 48*256, 0, 1, 1024),
				init: grid(r, 48, -8, 8, 4)},
		} {
			t.Run(arch+"/"+tc.fn, func(t *testing.T) {
				h := tc.h
				d := find(t, ds, tc.fn)
				if got := gpuloops.WarpRows(d.nest, cuda.LoopNestBlockSize/32); got != tc.warpRows {
					t.Fatalf("WarpRows = %v, want %v", got, tc.warpRows)
				}
				x := make([]float64, len(tc.x))
				for i, v := range tc.x {
					x[i] = h.value(h.round(v))
				}
				init := halves(h, tc.init)
				out := runNest(t, d, map[string][]byte{"in0": halves(h, x), "init0": init})["out0"]
				apart := 0 // rows where rounding every step gives another answer
				for i := 0; i < tc.rows; i++ {
					row := x[i*tc.cols : (i+1)*tc.cols]
					acc := h.value(binary.LittleEndian.Uint16(init[2*i:]))
					// exact is init + sum (exact in float64: the sums
					// need at most 36 bits) or init * product (within
					// 2^-45 relative); step rounds every step in order.
					exact, step := acc, acc
					for _, v := range row {
						if tc.sq {
							v *= v // exact in f16: v has 5 significant bits
						}
						if tc.mul {
							exact *= v
							step = h.value(h.round(step * v))
						} else {
							exact += v
							step = h.value(h.round(step + v))
						}
					}
					// An f32 product may be off by one rounding a step.
					eps := 0.0
					if tc.mul {
						eps = float64(tc.cols) * math.Ldexp(1, -24)
					}
					lo, hi := h.round(exact*(1-eps)), h.round(exact*(1+eps))
					if s := h.round(step); s != lo && s != hi {
						apart++
					}
					if got := halfAt(out, i); got != lo && got != hi {
						t.Errorf("row %d = %v (%#04x), want %v (%#04x) rounded once; every step rounded in order gives %v", i, h.value(got), got, h.value(lo), lo, step)
					}
				}
				if apart < (tc.rows+1)/2 {
					t.Errorf("rounding every step in order gives the same answers in %d of %d rows: the case does not tell the two apart", tc.rows-apart, tc.rows)
				}
			})
		}
	}
}
