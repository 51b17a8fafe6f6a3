// Matmuls for the tensor-core path (mma.go), run by the PTX interpreter
// of mma_test.go: f16 and bf16 operands into f32 (onto a zero fill or an
// init) or into their own type, dynamic sizes for ragged and misaligned
// shapes, a batch, and a body that is not a multiply-add.
func.func @f16_f32(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
func.func @f16_f32_dyn(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @f16_f16_dyn(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}
func.func @bf16_f32_dyn(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xbf16>, tensor<?x?xbf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @bf16_bf16_dyn(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>, %c: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xbf16>, tensor<?x?xbf16>) outs(%c : tensor<?x?xbf16>) -> tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}
func.func @f16_bmm(%a: tensor<2x?x?xf16>, %b: tensor<2x?x?xf16>, %c: tensor<2x?x?xf32>) -> tensor<2x?x?xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x?x?xf16>, tensor<2x?x?xf16>) outs(%c : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  return %r : tensor<2x?x?xf32>
}
// max(acc, x + y) in f16: matmul-shaped, but not for tensor cores.
func.func @f16_maxplus(%p: tensor<?x?xf16>, %q: tensor<?x?xf16>, %c: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %q : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %s = arith.addf %x, %y : f16
    %m = arith.maximumf %acc, %s : f16
    linalg.yield %m : f16
  } -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}
// f32: on tensor cores only with allow_tf32 (TestMMATF32).
func.func @f32_dyn(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
