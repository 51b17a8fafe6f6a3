// f16 matmul as users write it: f16 operands accumulated into f32 (a zero
// fill and linalg.matmul), which cuda runs on tensor cores from sm_80.
func.func @matmul_f16(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4096x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %c : tensor<4096x4096xf32>
}
