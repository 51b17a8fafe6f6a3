// A dense layer whose bias, relu and conversion to f16 fold into the
// matmul's dispatch as its epilogue (one dispatch).
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @dense(%x: tensor<13x70xf32>, %w: tensor<70x9xf32>, %b: tensor<9xf32>) -> tensor<13x9xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<13x9xf32>
  %e16 = tensor.empty() : tensor<13x9xf16>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<13x9xf32>) -> tensor<13x9xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<13x70xf32>, tensor<70x9xf32>) outs(%acc : tensor<13x9xf32>) -> tensor<13x9xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<13x9xf32>, tensor<9xf32>) outs(%e16 : tensor<13x9xf16>) {
  ^bb0(%m: f32, %bv: f32, %o: f16):
    %s = arith.addf %m, %bv : f32
    %y = arith.maximumf %s, %zero : f32
    %h = arith.truncf %y : f32 to f16
    linalg.yield %h : f16
  } -> tensor<13x9xf16>
  return %r : tensor<13x9xf16>
}
