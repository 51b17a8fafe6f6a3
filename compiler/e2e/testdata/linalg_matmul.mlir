// Matmul-like kernels that llvm-cpu computes with its packed micro-kernel:
// plain (from zero and onto an init), A or B transposed (linalg.generic),
// and batched, all with dynamic dimensions.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @mm_init(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @mm_tt(%at: tensor<?x?xf32>, %bt: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %m = tensor.dim %at, %c1 : tensor<?x?xf32>
  %n = tensor.dim %bt, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#bt, #at, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%bt, %at : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @bmm(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.5 : f32
  %bs = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %n = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %e = tensor.empty(%bs, %m, %n) : tensor<?x?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%f : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}
// Reductions whose products llvm-cpu computes a chunk at a time before
// folding them in order (matvec, dot): lengths past one chunk.
func.func @matvec(%m: tensor<?x?xf32>, %v: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %m, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.matvec ins(%m, %v : tensor<?x?xf32>, tensor<?xf32>) outs(%f : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @dot(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<f32> {
  %z = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.dot ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%f : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
