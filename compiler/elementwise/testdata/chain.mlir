// A program with only compiler-generated elementwise dispatches:
// (a + b) * a - b over one dynamic shape, fused into one dispatch.
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %s = arith.addf %a, %b : tensor<?xf32>
  %p = arith.mulf %s, %a : tensor<?xf32>
  %r = arith.subf %p, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}
