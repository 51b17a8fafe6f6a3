// (a + b) * a - b, fused into one generated dispatch, plus scalar host
// math on the element count.
func.func @chain(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> (tensor<?x4xf32>, index) {
  %s = arith.addf %a, %b : tensor<?x4xf32>
  %p = arith.mulf %s, %a : tensor<?x4xf32>
  %r = arith.subf %p, %b : tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %a, %c0 : tensor<?x4xf32>
  %half = affine.apply affine_map<(d0) -> (d0 floordiv 2 + d0 mod 2)>(%rows)
  return %r, %half : tensor<?x4xf32>, index
}
