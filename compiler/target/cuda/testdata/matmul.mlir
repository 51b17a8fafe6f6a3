// Matmuls that cuda tiles with register blocking, run by the PTX
// interpreter of matmul_test.go: static sizes with partial blocks in rows
// and columns, dynamic ones onto an init, an i32 max-plus product (a body
// that is not a multiply-add), a body that reads its loop indices, and a
// batch.
func.func @mm_static(%a: tensor<200x40xf32>, %b: tensor<40x260xf32>) -> tensor<200x260xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x260xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<200x260xf32>) -> tensor<200x260xf32>
  %r = linalg.matmul ins(%a, %b : tensor<200x40xf32>, tensor<40x260xf32>) outs(%f : tensor<200x260xf32>) -> tensor<200x260xf32>
  return %r : tensor<200x260xf32>
}
func.func @mm_dyn(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @maxplus(%p: tensor<?x?xi32>, %q: tensor<?x?xi32>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %q : tensor<?x?xi32>, tensor<?x?xi32>) outs(%c : tensor<?x?xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %s = arith.addi %x, %y : i32
    %m = arith.maxsi %acc, %s : i32
    linalg.yield %m : i32
  } -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}
// acc + x * y + (i - 2j + 3k).
func.func @indexed(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<?x?xi32>, tensor<?x?xi32>) outs(%c : tensor<?x?xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %j2 = arith.muli %j, %c2 : index
    %k3 = arith.muli %k, %c3 : index
    %d = arith.subi %i, %j2 : index
    %w = arith.addi %d, %k3 : index
    %wi = arith.index_cast %w : index to i32
    %p = arith.muli %x, %y : i32
    %s = arith.addi %acc, %p : i32
    %t = arith.addi %s, %wi : i32
    linalg.yield %t : i32
  } -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}
func.func @bmm(%a: tensor<2x45x70xf32>, %b: tensor<2x70x67xf32>) -> tensor<2x45x67xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x45x67xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x45x67xf32>) -> tensor<2x45x67xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x45x70xf32>, tensor<2x70x67xf32>) outs(%f : tensor<2x45x67xf32>) -> tensor<2x45x67xf32>
  return %r : tensor<2x45x67xf32>
}
