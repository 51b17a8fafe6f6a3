package gpuloops_test

import (
	"math"
	"testing"

	"github.com/goiree/goiree/compiler/gpuloops"
)

func TestReductionOf(t *testing.T) {
	ks := kernels(t)
	for _, tc := range []struct {
		fn       string
		loop     int // -1: not a shared reduction
		combiner string
		// The identity: its float bits or its integer value.
		fbits uint64
		i     int64
	}{
		{"rowmax", 1, "arith.maximumf", math.Float64bits(math.Inf(-1)), 0},
		// x*x + acc: a value computed from the element, then the fold.
		{"sumsq", 1, "arith.addf", math.Float64bits(math.Copysign(0, -1)), 0},
		{"dynrows", 1, "arith.maxsi", 0, math.MinInt32},
		{"tall", 1, "arith.addi", 0, 0},
		{"short", -1, "", 0, 0},   // 8 steps: not worth sharing
		{"columns", -1, "", 0, 0}, // the reduction is not the last index
		{"matmul", -1, "", 0, 0},  // A's reduction index is last, B's is not
		{"matvec", -1, "", 0, 0},  // 4 steps
	} {
		t.Run(tc.fn, func(t *testing.T) {
			kb, ok := ks[tc.fn]
			if !ok {
				t.Fatalf("no kernel for @%s", tc.fn)
			}
			r := gpuloops.ReductionOf(kb.k, kb.body)
			if tc.loop < 0 {
				if r != nil {
					t.Fatalf("ReductionOf = loop %d with %s, want nil", r.Loop, r.Combiner.Name)
				}
				return
			}
			if r == nil {
				t.Fatal("ReductionOf = nil")
			}
			if r.Loop != tc.loop || r.Combiner.Name != tc.combiner {
				t.Errorf("ReductionOf = loop %d with %s, want loop %d with %s", r.Loop, r.Combiner.Name, tc.loop, tc.combiner)
			}
			f, i, ok := r.Identity()
			if !ok || math.Float64bits(f) != tc.fbits || i != tc.i {
				t.Errorf("Identity = %v (bits %x), %d, %v; want bits %x, %d", f, math.Float64bits(f), i, ok, tc.fbits, tc.i)
			}
		})
	}
}

func TestWideParts(t *testing.T) {
	ks := kernels(t)
	for _, tc := range []struct {
		fn   string
		wide bool
	}{
		{"sum_f16", true},
		{"prod_bf16", true},
		{"max_f16", false},     // exact in any type
		{"sum_f16_f32", false}, // already f32
		{"sumsq", false},
		{"tall", false},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			kb, ok := ks[tc.fn]
			if !ok {
				t.Fatalf("no kernel for @%s", tc.fn)
			}
			r := gpuloops.ReductionOf(kb.k, kb.body)
			if r == nil {
				t.Fatal("ReductionOf = nil")
			}
			if got := r.WideParts(); got != tc.wide {
				t.Errorf("WideParts = %v, want %v", got, tc.wide)
			}
		})
	}
}
