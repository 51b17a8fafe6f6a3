// Matmuls that the GPU targets tile with register blocking
// (compiler/gpuloops Layout): static shapes with whole blocks and steps
// (the vector copies), odd ones, a single output (1x1xK), a single column
// (Mx1), dynamic sizes of any alignment, i32 products (exact), a batch,
// and a body that is not a multiply-add and reads its loop indices.
func.func @mm_256(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
func.func @mm_odd(%a: tensor<17x65xf32>, %b: tensor<65x33xf32>) -> tensor<17x33xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<17x33xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<17x33xf32>) -> tensor<17x33xf32>
  %r = linalg.matmul ins(%a, %b : tensor<17x65xf32>, tensor<65x33xf32>) outs(%f : tensor<17x33xf32>) -> tensor<17x33xf32>
  return %r : tensor<17x33xf32>
}
func.func @mm_dot(%a: tensor<1x1000xf32>, %b: tensor<1000x1xf32>) -> tensor<1x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x1000xf32>, tensor<1000x1xf32>) outs(%f : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}
func.func @mm_column(%a: tensor<300x64xf32>, %b: tensor<64x1xf32>, %c: tensor<300x1xf32>) -> tensor<300x1xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<300x64xf32>, tensor<64x1xf32>) outs(%c : tensor<300x1xf32>) -> tensor<300x1xf32>
  return %r : tensor<300x1xf32>
}
func.func @mm_dyn(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @mm_i32(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %m = tensor.dim %a, %c0 : tensor<?x?xi32>
  %n = tensor.dim %b, %c1 : tensor<?x?xi32>
  %e = tensor.empty(%m, %n) : tensor<?x?xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<?x?xi32>) -> tensor<?x?xi32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xi32>, tensor<?x?xi32>) outs(%f : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}
func.func @bmm(%a: tensor<3x130x36xf32>, %b: tensor<3x36x70xf32>) -> tensor<3x130x70xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x130x70xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x130x70xf32>) -> tensor<3x130x70xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x130x36xf32>, tensor<3x36x70xf32>) outs(%f : tensor<3x130x70xf32>) -> tensor<3x130x70xf32>
  return %r : tensor<3x130x70xf32>
}
// acc + x * y + (i - 2j + 3k) in i32: exact, and wrong for any element
// given another element's indices.
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
