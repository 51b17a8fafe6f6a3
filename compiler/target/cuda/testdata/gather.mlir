// Computed-index reads: rows of a table picked by an index tensor (indices
// outside the table are clamped into it), and a reduction that sums i8
// table entries picked by pairs of indices.
func.func @pick_rows(%table: tensor<5x3xf32>, %idx: tensor<6xi32>) -> tensor<6x3xf32> {
  %e = tensor.empty() : tensor<6x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<6xi32>) outs(%e : tensor<6x3xf32>) {
  ^bb0(%x: i32, %o: f32):
    %j = linalg.index 1 : index
    %i = arith.index_cast %x : i32 to index
    %v = tensor.extract %table[%i, %j] : tensor<5x3xf32>
    linalg.yield %v : f32
  } -> tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}

func.func @pick_sum(%table: tensor<7xi8>, %idx: tensor<4x2xi32>) -> tensor<4xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%idx : tensor<4x2xi32>) outs(%z : tensor<4xi32>) {
  ^bb0(%x: i32, %acc: i32):
    %i = arith.index_cast %x : i32 to index
    %v = tensor.extract %table[%i] : tensor<7xi8>
    %w = arith.extsi %v : i8 to i32
    %s = arith.addi %acc, %w : i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
