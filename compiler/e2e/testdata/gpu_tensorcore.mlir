// Matmuls that cuda runs on tensor cores from sm_80 (compiler/target/cuda
// mma.go): f16 and bf16 operands accumulated in f32, stored as f32 or
// rounded once to the operands' type, onto a zero fill or an init.
func.func @f16_f32(%a: tensor<256x384xf16>, %b: tensor<384x512xf16>) -> tensor<256x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x384xf16>, tensor<384x512xf16>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
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
func.func @f16_bmm(%a: tensor<3x?x?xf16>, %b: tensor<3x?x?xf16>, %c: tensor<3x?x?xf32>) -> tensor<3x?x?xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x?x?xf16>, tensor<3x?x?xf16>) outs(%c : tensor<3x?x?xf32>) -> tensor<3x?x?xf32>
  return %r : tensor<3x?x?xf32>
}
// f32: on tensor cores in TF32 when compiled with --iree-cuda-allow-tf32.
func.func @f32_dyn(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
