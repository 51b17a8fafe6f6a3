// A matmul and a row softmax whose kernels' recorded configurations
// (pipeline, workgroup size, tile sizes) gpu_configs_test.go checks
// against the payloads' launch sizes and runs.
func.func @matmul(%a: tensor<256x192xf32>, %b: tensor<192x320xf32>) -> tensor<256x320xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x320xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x320xf32>) -> tensor<256x320xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x192xf32>, tensor<192x320xf32>) outs(%f : tensor<256x320xf32>) -> tensor<256x320xf32>
  return %r : tensor<256x320xf32>
}
func.func @softmax(%x: tensor<48x1000xf32>) -> tensor<48x1000xf32> {
  %e = tensor.empty() : tensor<48x1000xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<48x1000xf32>) outs(%e : tensor<48x1000xf32>) -> tensor<48x1000xf32>
  return %r : tensor<48x1000xf32>
}
