package linalg_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
)

// roundTrips are programs in MLIR's custom syntax; each must parse,
// verify, and print to text that parses and prints the same again.
var roundTrips = []struct{ name, src string }{
	{"generic-softmax-max", `
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @f(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.maximumf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`},
	{"generic-iterator-attr-and-index", `
func.func @f(%e: tensor<3x5xi32>) -> tensor<3x5xi32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>]} outs(%e : tensor<3x5xi32>) attrs = {tag = "x"} {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = arith.addi %i, %j : index
    %c = arith.index_cast %s : index to i32
    linalg.yield %c : i32
  } -> tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}`},
	{"named", `
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %v: tensor<8xf32>, %w: tensor<4xf32>, %ba: tensor<2x4x8xf32>, %bb: tensor<2x8x16xf32>) -> tensor<4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e3 = tensor.empty() : tensor<2x4x16xf32>
  %bm = linalg.batch_matmul ins(%ba, %bb : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%e3 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %mv = linalg.matvec ins(%a, %v : tensor<4x8xf32>, tensor<8xf32>) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %vm = linalg.vecmat ins(%w, %a : tensor<4xf32>, tensor<4x8xf32>) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %d = linalg.dot ins(%v, %v : tensor<8xf32>, tensor<8xf32>) outs(%e0 : tensor<f32>) -> tensor<f32>
  %qa = arith.constant dense<3> : tensor<4x8xi8>
  %qb = arith.constant dense<-2> : tensor<8x16xi8>
  %qzp = arith.constant 1 : i32
  %qe = tensor.empty() : tensor<4x16xi32>
  %q = linalg.quantized_matmul ins(%qa, %qb, %qzp, %qzp : tensor<4x8xi8>, tensor<8x16xi8>, i32, i32) outs(%qe : tensor<4x16xi32>) -> tensor<4x16xi32>
  %qba = arith.constant dense<3> : tensor<2x4x8xi8>
  %qbb = arith.constant dense<-2> : tensor<2x8x16xi8>
  %qbe = tensor.empty() : tensor<2x4x16xi32>
  %qb3 = linalg.quantized_batch_matmul ins(%qba, %qbb, %qzp, %qzp : tensor<2x4x8xi8>, tensor<2x8x16xi8>, i32, i32) outs(%qbe : tensor<2x4x16xi32>) -> tensor<2x4x16xi32>
  %e48 = tensor.empty() : tensor<8x16xf32>
  %ta = linalg.matmul_transpose_a ins(%a, %z : tensor<4x8xf32>, tensor<4x16xf32>) outs(%e48 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %b816 = tensor.empty() : tensor<8x16xf32>
  %e84 = tensor.empty() : tensor<4x8xf32>
  %tb = linalg.matmul_transpose_b ins(%z, %b816 : tensor<4x16xf32>, tensor<8x16xf32>) outs(%e84 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e244 = tensor.empty() : tensor<2x4x4xf32>
  %btb = linalg.batch_matmul_transpose_b ins(%ba, %ba : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%e244 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e288 = tensor.empty() : tensor<2x8x8xf32>
  %bta = linalg.batch_matmul_transpose_a ins(%ba, %ba : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%e288 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %et = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%et : tensor<8x4xf32>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<4x3x8xf32>
  %br = linalg.broadcast ins(%a : tensor<4x8xf32>) outs(%eb : tensor<4x3x8xf32>) dimensions = [1]
  %r = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%e4 : tensor<4xf32>) dimensions = [1] (%in: f32, %init: f32) {
    %s = arith.addf %in, %init : f32
    linalg.yield %s : f32
  }
  %r2 = linalg.reduce { arith.maximumf } ins(%a : tensor<4x8xf32>) outs(%e4 : tensor<4xf32>) dimensions = [1]
  %mp = linalg.map ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) (%x: f32, %y: f32) {
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  }
  %mp2 = linalg.map { math.exp } ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>)
  %cp = linalg.copy ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x16xf32>
}`},
}

func print(t *testing.T, name, src string) string {
	t.Helper()
	reg := dialect.NewRegistry()
	m, err := dialect.Parse(name+".mlir", []byte(src), reg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ir.PrintModule(m, reg, ir.PrintOptions{})
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range roundTrips {
		t.Run(tc.name, func(t *testing.T) {
			once := print(t, tc.name, tc.src)
			twice := print(t, tc.name, once)
			if once != twice {
				t.Fatalf("printing is not stable:\n%s\n---\n%s", once, twice)
			}
		})
	}
}

// TestErrors checks that bad programs fail with the problem named at its
// file:line:col.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"matmul-shapes", `func.func @f(%a: tensor<4x8xf32>, %b: tensor<16x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<16x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}`, "bad.mlir:2:8: error: 'linalg.matmul' op shape mismatch: loop dimension d2 is 8 (dimension 1 of operand #0, 'tensor<4x8xf32>') but 16 (dimension 0 of operand #1, 'tensor<16x4xf32>')"},
		{"reduction-output-map", `func.func @f(%x: tensor<4x8xf32>, %i: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%i : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}`, "bad.mlir:2:8: error: 'linalg.generic' op indexing_maps #1 (output #0) uses d1, a reduction dimension"},
		{"yield-type", `func.func @f(%x: tensor<4xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%i : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.fptosi %in : f32 to i32
    linalg.yield %1 : i32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "bad.mlir:5:5: error: 'linalg.yield' op type of yield operand #0 ('i32') does not match the element type of output #0 ('f32')"},
		{"map-count", `func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "bad.mlir:2:8: error: 'linalg.generic' op expected 2 indexing maps (one per operand), found 1"},
		{"transpose-perm", `func.func @f(%x: tensor<4x8xf32>, %o: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%o : tensor<8x4xf32>) permutation = [0, 0]
  return %0 : tensor<8x4xf32>
}`, "bad.mlir:2:8: error: 'linalg.transpose' op permutation [0 0] is not a permutation of [0, 2)"},
		{"transpose-shape", `func.func @f(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) permutation = [1, 0]
  return %0 : tensor<4x8xf32>
}`, "bad.mlir:2:8: error: 'linalg.transpose' op shape mismatch: loop dimension d0 is 8 (dimension 1 of operand #0"},
		{"index-range", `func.func @f(%e: tensor<3xindex>) -> tensor<3xindex> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<3xindex>) {
  ^bb0(%out: index):
    %i = linalg.index 1 : index
    linalg.yield %i : index
  } -> tensor<3xindex>
  return %0 : tensor<3xindex>
}`, "bad.mlir:4:10: error: 'linalg.index' op dimension 1 is out of range: the op has 1 loops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dialect.Parse("bad.mlir", []byte(tc.src), dialect.NewRegistry())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestGeneralize checks that every named op becomes a linalg.generic that
// verifies, with the op's maps, iterators and a body of the right shape.
func TestGeneralize(t *testing.T) {
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("named.mlir", []byte(roundTrips[2].src), reg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"linalg.matmul":                   `[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ["parallel", "parallel", "reduction"]`,
		"linalg.batch_matmul":             `[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ["parallel", "parallel", "parallel", "reduction"]`,
		"linalg.matvec":                   `[affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>] ["parallel", "reduction"]`,
		"linalg.vecmat":                   `[affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] ["parallel", "reduction"]`,
		"linalg.quantized_matmul":         `[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1)>] ["parallel", "parallel", "reduction"]`,
		"linalg.quantized_batch_matmul":   `[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ["parallel", "parallel", "parallel", "reduction"]`,
		"linalg.dot":                      `[affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>] ["reduction"]`,
		"linalg.matmul_transpose_a":       `[affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ["parallel", "parallel", "reduction"]`,
		"linalg.matmul_transpose_b":       `[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ["parallel", "parallel", "reduction"]`,
		"linalg.batch_matmul_transpose_a": `[affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ["parallel", "parallel", "parallel", "reduction"]`,
		"linalg.batch_matmul_transpose_b": `[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ["parallel", "parallel", "parallel", "reduction"]`,
		"linalg.fill":                     `[affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>] ["parallel", "parallel"]`,
		"linalg.transpose":                `[affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>] ["parallel", "parallel"]`,
		"linalg.broadcast":                `[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>] ["parallel", "parallel", "parallel"]`,
		"linalg.reduce":                   `[affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] ["parallel", "reduction"]`,
		"linalg.map":                      `[affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] ["parallel", "parallel"]`,
		"linalg.copy":                     `[affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] ["parallel", "parallel"]`,
	}
	seen := map[string]bool{}
	fn := m.Op.Body().Ops[0]
	for _, op := range append([]*ir.Operation(nil), fn.Body().Ops...) {
		w, ok := want[op.Name]
		if !ok || seen[op.Name] {
			continue
		}
		seen[op.Name] = true
		g, err := linalg.Generalize(op)
		if err != nil {
			t.Fatalf("%s: %v", op.Name, err)
		}
		got := ir.AttrString(g.Attr("indexing_maps")) + " " + ir.AttrString(g.Attr("iterator_types"))
		if got != w {
			t.Errorf("%s:\n got %s\nwant %s", op.Name, got, w)
		}
		fn.Body().InsertBefore(op, g)
		for i, r := range op.Results {
			ir.ReplaceAllUsesWith(fn, r, g.Results[i])
		}
		op.Remove()
	}
	for n := range want {
		if !seen[n] {
			t.Errorf("no %s in the test program", n)
		}
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("generalized program does not verify: %v\n%s", err, ir.PrintModule(m, reg, ir.PrintOptions{}))
	}
	// The printed generalized program parses back.
	print(t, "generalized", ir.PrintModule(m, reg, ir.PrintOptions{}))
}
