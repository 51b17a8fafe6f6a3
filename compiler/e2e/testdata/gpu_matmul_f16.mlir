// f16 matmuls accumulated in f32, as linalg.matmul writes them: static
// whole blocks, partial blocks in rows, columns and the reduction, dynamic
// sizes, and static and dynamic ones onto an f32 input. vulkan-spirv runs
// them on cooperative matrices for a target that has them
// (--iree-vulkan-target=ampere, h200), in the tiled f32 kernel otherwise
// (gpu_matmul_test.go).
func.func @mm16_256(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
func.func @mm16_odd(%a: tensor<200x77xf16>, %b: tensor<77x131xf16>) -> tensor<200x131xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x131xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<200x131xf32>) -> tensor<200x131xf32>
  %r = linalg.matmul ins(%a, %b : tensor<200x77xf16>, tensor<77x131xf16>) outs(%f : tensor<200x131xf32>) -> tensor<200x131xf32>
  return %r : tensor<200x131xf32>
}
func.func @mm16_dyn(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @mm16_acc(%a: tensor<384x192xf16>, %b: tensor<192x512xf16>, %c: tensor<384x512xf32>) -> tensor<384x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<384x192xf16>, tensor<192x512xf16>) outs(%c : tensor<384x512xf32>) -> tensor<384x512xf32>
  return %r : tensor<384x512xf32>
}
