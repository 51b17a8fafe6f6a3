package linalgext_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
)

// program holds every op in the form the printer gives, so printing it
// must give it back unchanged.
const program = `func.func @f(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>, %v: tensor<2x5x6xf32>, %o: tensor<2x3x6xf32>, %m: tensor<2x3x5xi1>, %x: tensor<5x7xf32>, %xo: tensor<7xf32>, %xi: tensor<7xi32>, %idx: tensor<3x1xi32>, %up: tensor<3x7xf32>, %pk: tensor<2x2x3x3xi32>, %un: tensor<4x4xi32>, %b: index) {
  %s = arith.constant 0.5 : f32
  %c0 = arith.constant 0 : i32
  %0 = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>]} ins(%q, %k, %v, %s, %m : tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x6xf32>, f32, tensor<2x3x5xi1>) outs(%o : tensor<2x3x6xf32>) {
  ^bb0(%arg0: f32):
    %i = iree_linalg_ext.index 1 : index
    iree_linalg_ext.yield %arg0 : f32
  } -> tensor<2x3x6xf32>
  %1:2 = iree_linalg_ext.arg_compare dimension(0) ins(%x : tensor<5x7xf32>) outs(%xo, %xi : tensor<7xf32>, tensor<7xi32>) index_base(%b : index) {
  ^bb0(%a1: f32, %c1: f32):
    %2 = arith.cmpf ogt, %a1, %c1 : f32
    iree_linalg_ext.yield %2 : i1
  } -> tensor<7xf32>, tensor<7xi32>
  %3 = iree_linalg_ext.sort dimension(1) outs(%x : tensor<5x7xf32>) {
  ^bb0(%a2: f32, %c2: f32):
    %4 = arith.cmpf olt, %a2, %c2 : f32
    iree_linalg_ext.yield %4 : i1
  } -> tensor<5x7xf32>
  %5:2 = iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : tensor<5x7xf32>) outs(%x, %xo : tensor<5x7xf32>, tensor<7xf32>) {
  ^bb0(%a3: f32, %c3: f32):
    %6 = arith.addf %a3, %c3 : f32
    iree_linalg_ext.yield %6 : f32
  } -> tensor<5x7xf32>, tensor<7xf32>
  %7:2 = iree_linalg_ext.topk_v2 dimension(0) is_sorted ins(%x : tensor<5x7xf32>) outs(%x, %x : tensor<5x7xf32>, tensor<5x7xf32>) {
  ^bb0(%a4: f32, %c4: f32):
    %8 = arith.cmpf ogt, %a4, %c4 : f32
    iree_linalg_ext.yield %8 : i1
  } -> tensor<5x7xf32>, tensor<5x7xf32>
  %9 = iree_linalg_ext.reverse dimensions(dense<0> : tensor<1xi64>) ins(%x : tensor<5x7xf32>) outs(%x : tensor<5x7xf32>) : tensor<5x7xf32>
  %10 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(true) ins(%up, %idx : tensor<3x7xf32>, tensor<3x1xi32>) outs(%x : tensor<5x7xf32>) {
  ^bb0(%a5: f32, %c5: f32):
    iree_linalg_ext.yield %a5 : f32
  } -> tensor<5x7xf32>
  %11 = iree_linalg_ext.gather dimension_map = [0] ins(%x, %idx : tensor<5x7xf32>, tensor<3x1xi32>) outs(%up : tensor<3x7xf32>) -> tensor<3x7xf32>
  %12 = iree_linalg_ext.map_load %x into %x {
  ^bb0(%i0: index, %i1: index):
    iree_linalg_ext.yield %i0, %i1, %s : index, index, f32
  } : tensor<5x7xf32> into tensor<5x7xf32> -> tensor<5x7xf32>
  %13 = iree_linalg_ext.unpack %pk inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %un : (tensor<2x2x3x3xi32> tensor<4x4xi32>) -> tensor<4x4xi32>
  %14 = iree_linalg_ext.pack %un padding_value(%c0 : i32) inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %pk : (tensor<4x4xi32> tensor<2x2x3x3xi32>) -> tensor<2x2x3x3xi32>
  func.return
}
`

func TestRoundTrip(t *testing.T) {
	src := program
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("ext.mlir", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	if got := ir.PrintModule(m, reg, ir.PrintOptions{}); got != src {
		t.Fatalf("printed differently:\n%s", got)
	}
	generic := ir.PrintModule(m, reg, ir.PrintOptions{Generic: true})
	m2, err := dialect.Parse("generic.mlir", []byte(generic), reg)
	if err != nil {
		t.Fatalf("generic form does not read back: %v\n%s", err, generic)
	}
	if got := ir.PrintModule(m2, reg, ir.PrintOptions{}); got != src {
		t.Fatalf("generic form reads back differently:\n%s", got)
	}
}

func TestErrors(t *testing.T) {
	head := "func.func @f(%x: tensor<5x7xf32>, %o: tensor<7xf32>, %oi: tensor<7xi32>, %q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x6xf32>, %r: tensor<3x6xf32>, %s: f32) {\n"
	for _, tc := range []struct{ name, src, want string }{
		{"arg-compare-rank", `  %0:2 = iree_linalg_ext.arg_compare dimension(0) ins(%x : tensor<5x7xf32>) outs(%x, %oi : tensor<5x7xf32>, tensor<7xi32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<5x7xf32>, tensor<7xi32>`, "bad.mlir:2:10: error: 'iree_linalg_ext.arg_compare' op output #0 must have rank 1 (the input's less the reduced dimension 0), found 'tensor<5x7xf32>'"},
		{"arg-compare-yield", `  %0:2 = iree_linalg_ext.arg_compare dimension(0) ins(%x : tensor<5x7xf32>) outs(%o, %oi : tensor<7xf32>, tensor<7xi32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  } -> tensor<7xf32>, tensor<7xi32>`, "bad.mlir:2:10: error: 'iree_linalg_ext.arg_compare' op body must yield one 'i1'"},
		{"sort-dimension", `  %0 = iree_linalg_ext.sort dimension(2) outs(%x : tensor<5x7xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<5x7xf32>`, "bad.mlir:2:8: error: 'iree_linalg_ext.sort' op dimension 2 is out of range for rank 2"},
		{"scan-bool", `  %0:2 = iree_linalg_ext.scan dimension(0) inclusive(yes) ins(%x : tensor<5x7xf32>) outs(%x, %o : tensor<5x7xf32>, tensor<7xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  } -> tensor<5x7xf32>, tensor<7xf32>`, "bad.mlir:2:54: error: expected true or false in inclusive(...), found 'yes'"},
		{"reverse-dims", `  %0 = iree_linalg_ext.reverse dimensions(dense<3> : tensor<1xi64>) ins(%x : tensor<5x7xf32>) outs(%x : tensor<5x7xf32>) : tensor<5x7xf32>`,
			"bad.mlir:2:8: error: 'iree_linalg_ext.reverse' op dimensions [3] must be distinct dimensions of the rank-2 input"},
		{"attention-maps", `  %0 = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>]} ins(%q, %k, %v, %s : tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x6xf32>, f32) outs(%r : tensor<3x6xf32>) {
  ^bb0(%arg0: f32):
    iree_linalg_ext.yield %arg0 : f32
  } -> tensor<3x6xf32>`, ""},
		{"attention-shapes", `  %0 = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>]} ins(%q, %q, %v, %s : tensor<3x4xf32>, tensor<3x4xf32>, tensor<5x6xf32>, f32) outs(%r : tensor<3x6xf32>) {
  ^bb0(%arg0: f32):
    iree_linalg_ext.yield %arg0 : f32
  } -> tensor<3x6xf32>`, "bad.mlir:2:8: error: 'iree_linalg_ext.attention' op shape mismatch: loop dimension d2 is 3 (dimension 0 of operand #1, 'tensor<3x4xf32>') but 5 (dimension 0 of operand #2, 'tensor<5x6xf32>')"},
		{"attention-count", `  %0 = iree_linalg_ext.attention {indexing_maps = []} ins(%q, %k, %v : tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x6xf32>) outs(%r : tensor<3x6xf32>) {
  ^bb0(%arg0: f32):
    iree_linalg_ext.yield %arg0 : f32
  } -> tensor<3x6xf32>`, "bad.mlir:2:8: error: 'iree_linalg_ext.attention' op expects ins(query, key, value, scale[, mask]) and outs(output), found 3 inputs and 1 outputs"},
		{"online-max-map", `  %m = tensor.empty() : tensor<3x5xf32>
  %0:3 = iree_linalg_ext.online_attention {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>]} ins(%q, %k, %v, %s : tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x6xf32>, f32) outs(%r, %m, %m : tensor<3x6xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  ^bb0(%arg0: f32):
    iree_linalg_ext.yield %arg0 : f32
  } -> tensor<3x6xf32>, tensor<3x5xf32>, tensor<3x5xf32>`, "bad.mlir:3:10: error: 'iree_linalg_ext.online_attention' op the max's indexing map (d0, d1, d2, d3) -> (d0, d2) may only use batch and m dimensions"},
		{"unpack-types", `  %e = tensor.empty() : tensor<4x4xf32>
  %p = tensor.empty() : tensor<2x2x2x2xi32>
  %0 = iree_linalg_ext.unpack %p inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %e : (tensor<2x2x2x2xi32> tensor<4x4xf32>) -> tensor<4x4xf32>`,
			"bad.mlir:4:8: error: 'iree_linalg_ext.unpack' op source element type 'i32' differs from the destination's 'f32'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dialect.Parse("bad.mlir", []byte(head+tc.src+"\n  return\n}"), dialect.NewRegistry())
			if tc.want == "" {
				if err != nil {
					t.Fatalf("valid program refused: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
