// A dense layer: x @ w + b, then relu (matmul, a broadcast bias add and a
// max in one linalg.generic).
#rows = affine_map<(i, j) -> (i, j)>
#bias = affine_map<(i, j) -> (j)>
func.func @dense(%x: tensor<4096x4096xf32>, %w: tensor<4096x4096xf32>, %b: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4096x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %y = linalg.generic {indexing_maps = [#rows, #bias, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%empty : tensor<4096x4096xf32>) {
  ^bb0(%m: f32, %bb: f32, %out: f32):
    %s = arith.addf %m, %bb : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
