package linalg_test

import "testing"

// TestMultiResultRoundTrip checks that a linalg.generic with two results
// prints its result types in parentheses, as MLIR does, so that the
// printed IR reads back (an argmax, as lowered arg_compare ops are).
func TestMultiResultRoundTrip(t *testing.T) {
	const src = `func.func @f(%x: tensor<3x7xf32>, %v: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x7xf32>) outs(%v, %i : tensor<3xf32>, tensor<3xi32>) {
  ^bb0(%a: f32, %b: f32, %c: i32):
    %1 = arith.cmpf ogt, %a, %b : f32
    %2 = linalg.index 1 : index
    %3 = arith.index_cast %2 : index to i32
    %4 = arith.select %1, %a, %b : f32
    %5 = arith.select %1, %3, %c : i32
    linalg.yield %4, %5 : f32, i32
  } -> (tensor<3xf32>, tensor<3xi32>)
  func.return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
}
`
	if got := print(t, "multi", src); got != src {
		t.Fatalf("printed differently:\n%s", got)
	}
}
