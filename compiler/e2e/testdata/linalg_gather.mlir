// Computed-index reads and index linearization: linalg bodies that read a
// table at indices computed from their inputs (clamped into the table when
// outside it), map_load and map_store with affine.linearize_index and
// affine.delinearize_index over static and dynamic bases.

// out[i][j] = table[idx[i]][j]: a dynamic number of table rows.
func.func @rows(%table: tensor<?x4xf32>, %idx: tensor<5xi32>) -> tensor<5x4xf32> {
  %e = tensor.empty() : tensor<5x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<5xi32>) outs(%e : tensor<5x4xf32>) {
  ^bb0(%x: i32, %o: f32):
    %j = linalg.index 1 : index
    %i = arith.index_cast %x : i32 to index
    %v = tensor.extract %table[%i, %j] : tensor<?x4xf32>
    linalg.yield %v : f32
  } -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}

// out[i] = sum over k of table[idx[i][k]] * (k + 1): a reduction whose
// steps each read the table once.
func.func @pick_sum(%table: tensor<9xi32>, %idx: tensor<3x4xi32>) -> tensor<3xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<3xi32>) -> tensor<3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%idx : tensor<3x4xi32>) outs(%z : tensor<3xi32>) {
  ^bb0(%x: i32, %acc: i32):
    %i = arith.index_cast %x : i32 to index
    %v = tensor.extract %table[%i] : tensor<9xi32>
    %k = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %k1 = arith.addi %k, %c1 : index
    %w = arith.index_cast %k1 : index to i32
    %p = arith.muli %v, %w : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// out[i][j] = src[i * n + j], or -1 past the end of src: map_load over a
// linearization with a dynamic basis.
func.func @unflatten(%src: tensor<?xf32>, %n: index) -> tensor<3x?xf32> {
  %pad = arith.constant -1.0 : f32
  %e = tensor.empty(%n) : tensor<3x?xf32>
  %r = iree_linalg_ext.map_load %src into %e {
  ^bb0(%i: index, %j: index):
    %l = affine.linearize_index disjoint [%i, %j] by (3, %n) : index
    iree_linalg_ext.yield %l, %pad : index, f32
  } : tensor<?xf32> into tensor<3x?xf32> -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// out[b][a] = in[a * 4 + b] except where a == 1 (masked off: dst keeps its
// value there): map_store over a delinearization without an outer bound.
func.func @transpose_store(%in: tensor<12xi32>, %dst: tensor<4x3xi32>) -> tensor<4x3xi32> {
  %r = iree_linalg_ext.map_store %in into %dst {
  ^bb0(%k: index):
    %ab:2 = affine.delinearize_index %k into (4) : index, index
    %c1 = arith.constant 1 : index
    %m = arith.cmpi ne, %ab#0, %c1 : index
    iree_linalg_ext.yield %ab#1, %ab#0, %m : index, index, i1
  } : tensor<12xi32> into tensor<4x3xi32> -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}

// out[i][j] = x[(i * m + j) mod 5] with the row length m dynamic: a
// linalg body that delinearizes and relinearizes its own indices.
func.func @wrap(%x: tensor<5xi32>, %m: index) -> tensor<2x?xi32> {
  %e = tensor.empty(%m) : tensor<2x?xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<2x?xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %l = affine.linearize_index [%i, %j] by (%m) : index
    %q:2 = affine.delinearize_index %l into (5) : index, index
    %v = tensor.extract %x[%q#1] : tensor<5xi32>
    linalg.yield %v : i32
  } -> tensor<2x?xi32>
  return %r : tensor<2x?xi32>
}
