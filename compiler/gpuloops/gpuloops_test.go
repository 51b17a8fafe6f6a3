package gpuloops_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/pipeline"
	// The kernels are formed for vulkan-spirv, which compiles loop nests.
	_ "github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
)

// kernels forms the loop nests of testdata/kernels.mlir and returns each
// function's kernel and body by function name (one linalg op each).
func kernels(t *testing.T) map[string]struct {
	k    *loopnest.Kernel
	body *ir.Operation
} {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "kernels.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("kernels.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}}, "dispatch-creation")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]struct {
		k    *loopnest.Kernel
		body *ir.Operation
	}{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name != "builtin.module" || op == s.Module.Op {
			return true
		}
		funcs := map[string]*ir.Operation{}
		var entry *ir.Operation
		for _, f := range op.Body().Ops {
			funcs[f.SymName()] = f
			if f.Attr(loopnest.Attr) != nil {
				entry = f
			}
		}
		if entry == nil {
			return false
		}
		k, err := loopnest.Decode(entry.Attr(loopnest.Attr).(*ir.DictAttr))
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(entry.SymName(), "_linalg_0")
		out[name] = struct {
			k    *loopnest.Kernel
			body *ir.Operation
		}{k, funcs[k.Body]}
		return false
	})
	return out
}

func TestShapes(t *testing.T) {
	ks := kernels(t)
	for _, tc := range []struct {
		fn     string
		row    int
		matmul string
	}{
		{"rowmax", 1, "<nil>"},
		{"sumsq", -1, "<nil>"},   // the body is not a bare combiner
		{"short", -1, "<nil>"},   // 8 steps: not worth sharing
		{"dynrows", 1, "<nil>"},  // dynamic length
		{"columns", -1, "<nil>"}, // the reduction is not the last index
		{"matmul", -1, "&{0 1 2 []}"},
		{"small", -1, "&{0 1 2 []}"},
		{"batch", -1, "&{1 2 3 [0]}"},
		{"transposed", -1, "<nil>"}, // B is indexed (j, k)
		{"matvec", -1, "<nil>"},     // one parallel loop
		{"tall", 1, "<nil>"},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			kb, ok := ks[tc.fn]
			if !ok {
				t.Fatalf("no kernel for @%s (have %d)", tc.fn, len(ks))
			}
			if got := gpuloops.RowReduction(kb.k, kb.body); got != tc.row {
				t.Errorf("RowReduction = %d, want %d", got, tc.row)
			}
			if got := fmt.Sprint(gpuloops.MatmulOf(kb.k)); got != tc.matmul {
				t.Errorf("MatmulOf = %s, want %s", got, tc.matmul)
			}
		})
	}
}

func TestLayout(t *testing.T) {
	ks := kernels(t)
	for _, tc := range []struct {
		fn              string
		threads, shared int
		want            gpuloops.Layout
	}{
		// 4096 rows in tiles of MatmulRows (128) rows: 8 x 8 per thread
		// (vulkan-spirv's 128 threads and 16 KiB of f32, cuda's 256 and 48
		// KiB of f64).
		{"matmul", 128, 4096, gpuloops.Layout{TR: 16, TC: 8, RM: 8, RN: 8, TK: 8}},
		{"matmul", 256, 6144, gpuloops.Layout{TR: 16, TC: 16, RM: 8, RN: 8, TK: 8}},
		// 5 rows in tiles of 4: a row per thread row, wider column blocks,
		// shorter steps where they would not fit.
		{"small", 128, 4096, gpuloops.Layout{TR: 4, TC: 32, RM: 1, RN: 8, TK: 4}},
		{"small", 256, 6144, gpuloops.Layout{TR: 4, TC: 64, RM: 1, RN: 4, TK: 8}},
		// A batch's workgroups own whole 40-row matrices, in blocks of 32.
		{"batch", 128, 4096, gpuloops.Layout{TR: 16, TC: 8, RM: 2, RN: 8, TK: 8}},
		// 64 rows in one tile.
		{"wide", 128, 4096, gpuloops.Layout{TR: 16, TC: 8, RM: 4, RN: 8, TK: 8}},
		// A row: each thread a run of 4 columns, short steps.
		{"row", 256, 6144, gpuloops.Layout{TR: 1, TC: 256, RM: 1, RN: 4, TK: 2}},
		{"row", 128, 4096, gpuloops.Layout{TR: 1, TC: 128, RM: 1, RN: 4, TK: 2}},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.fn, tc.threads), func(t *testing.T) {
			kb := ks[tc.fn]
			m := gpuloops.MatmulOf(kb.k)
			if m == nil {
				t.Fatal("not a matmul")
			}
			l := m.Layout(kb.k, tc.threads, tc.shared)
			if l != tc.want {
				t.Errorf("layout %+v, want %+v", l, tc.want)
			}
			if l.APitch()%4 != 0 || l.APitch() < l.TM()+4 || l.TN()%4 != 0 {
				t.Errorf("layout %+v: A pitch %d, %d columns: shared rows must hold the block and start 16-byte aligned", l, l.APitch(), l.TN())
			}
			if l.TR*l.TC != tc.threads || l.SharedElements() > tc.shared {
				t.Errorf("layout %+v: %d threads, %d bytes of shared memory", l, l.TR*l.TC, 4*l.SharedElements())
			}
		})
	}
}

// TestTiles checks the tile each kernel gets for vulkan-spirv (formed with
// its LoopNestWorkgroups and LoopNestMinTile) and MinTile itself.
func TestTiles(t *testing.T) {
	ks := kernels(t)
	for _, tc := range []struct {
		fn            string
		minTile, tile int64
	}{
		{"rowmax", 1, 1},     // 16 rows: a workgroup each
		{"tall", 1, 3},       // 20000 rows over at most 8192 workgroups
		{"dynrows", 1, 1},    // unknown until the dispatch: the smallest
		{"matmul", 128, 128}, // blocks of 128 rows rather than one row each
		{"small", 4, 4},      // 5 rows: blocks of 4, the last of one row
		{"wide", 64, 64},     // 64 rows: one block
		{"batch", 1, 1},      // a matrix of the batch each
	} {
		t.Run(tc.fn, func(t *testing.T) {
			kb, ok := ks[tc.fn]
			if !ok {
				t.Fatalf("no kernel for @%s", tc.fn)
			}
			if got := gpuloops.MinTile(kb.k.Dict()); got != tc.minTile {
				t.Errorf("MinTile = %d, want %d", got, tc.minTile)
			}
			if kb.k.Tile != tc.tile {
				t.Errorf("tile = %d, want %d", kb.k.Tile, tc.tile)
			}
		})
	}
}

// TestColumnGroups checks how many workgroups share a matmul's tile for
// 128 threads (64-column blocks): one per block of static columns.
func TestColumnGroups(t *testing.T) {
	ks := kernels(t)
	for _, tc := range []struct {
		fn   string
		want int64
	}{
		{"matmul", 1},   // 32 columns: one block
		{"small", 1},    // 32 columns in one wider block
		{"wide", 11},    // 700 columns: 10 full blocks and a partial one
		{"dyncols", 16}, // unknown until the dispatch
		{"batch", 1},    // 7 columns
	} {
		t.Run(tc.fn, func(t *testing.T) {
			kb, ok := ks[tc.fn]
			if !ok {
				t.Fatalf("no kernel for @%s", tc.fn)
			}
			m := gpuloops.MatmulOf(kb.k)
			if m == nil {
				t.Fatal("not a matmul")
			}
			if got := m.ColumnGroups(kb.k, m.Layout(kb.k, 128, 4096)); got != tc.want {
				t.Errorf("ColumnGroups = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestMatmulEpilogue: a matmul-shaped kernel that applies an epilogue or
// accumulates in another type than it stores is not tiled (the tiled
// kernels store their accumulators as they are).
func TestMatmulEpilogue(t *testing.T) {
	kb := kernels(t)["matmul"]
	if gpuloops.MatmulOf(kb.k) == nil {
		t.Fatal("@matmul is not a matmul")
	}
	ep := *kb.k
	ep.Epilogue = "relu"
	if m := gpuloops.MatmulOf(&ep); m != nil {
		t.Errorf("with an epilogue: %v, want nil", m)
	}
	acc := *kb.k
	acc.Outputs = append([]loopnest.Operand(nil), kb.k.Outputs...)
	acc.Outputs[0].Acc = ir.FloatType{Name: "f64"}
	if m := gpuloops.MatmulOf(&acc); m != nil {
		t.Errorf("accumulating in f64: %v, want nil", m)
	}
}
