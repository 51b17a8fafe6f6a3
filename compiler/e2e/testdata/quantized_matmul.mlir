// linalg.quantized_matmul with zero points passed by the caller; the i32
// result is returned as f32 (exact at these sizes) for the test's reader.
func.func @qmm(%a: tensor<5x7xi8>, %b: tensor<7x3xi8>, %azp: i32, %bzp: i32) -> tensor<5x3xf32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<5x3xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<5x3xi32>) -> tensor<5x3xi32>
  %q = linalg.quantized_matmul ins(%a, %b, %azp, %bzp : tensor<5x7xi8>, tensor<7x3xi8>, i32, i32) outs(%z : tensor<5x3xi32>) -> tensor<5x3xi32>
  %ef = tensor.empty() : tensor<5x3xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<5x3xi32>) outs(%ef : tensor<5x3xf32>) {
  ^bb0(%v: i32, %o: f32):
    %x = arith.sitofp %v : i32 to f32
    linalg.yield %x : f32
  } -> tensor<5x3xf32>
  return %f : tensor<5x3xf32>
}
