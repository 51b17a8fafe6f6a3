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

// f16 and i1 tables, read at the same clamped indices.
func.func @pick_types(%th: tensor<5xf16>, %tb: tensor<5xi1>, %idx: tensor<4xi32>) -> (tensor<4xf16>, tensor<4xi1>) {
  %e1 = tensor.empty() : tensor<4xf16>
  %e2 = tensor.empty() : tensor<4xi1>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%idx : tensor<4xi32>) outs(%e1, %e2 : tensor<4xf16>, tensor<4xi1>) {
  ^bb0(%x: i32, %o1: f16, %o2: i1):
    %i = arith.index_cast %x : i32 to index
    %a = tensor.extract %th[%i] : tensor<5xf16>
    %b = tensor.extract %tb[%i] : tensor<5xi1>
    linalg.yield %a, %b : f16, i1
  } -> (tensor<4xf16>, tensor<4xi1>)
  return %r#0, %r#1 : tensor<4xf16>, tensor<4xi1>
}
