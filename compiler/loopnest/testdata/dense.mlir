// A dense layer, relu(x @ w + b): the zero fill, the matmul, the bias add
// and the relu become one dispatch (--compile-to=flow), the bias add and
// relu being the matmul kernel's epilogue.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @dense(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>, %b: tensor<16xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x16xf32>) outs(%acc : tensor<64x16xf32>) -> tensor<64x16xf32>
  %biased = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<64x16xf32>, tensor<16xf32>) outs(%e : tensor<64x16xf32>) {
  ^bb0(%m: f32, %bv: f32, %o: f32):
    %s = arith.addf %m, %bv : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<64x16xf32>) outs(%e : tensor<64x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x16xf32>
  return %relu : tensor<64x16xf32>
}
