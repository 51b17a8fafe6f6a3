// One op per lowering shape: a float and an integer binary op, a rank-0
// select predicate, clamp with scalar bounds, a guarded shift, sign, and
// converts from i1 and to i1,
// integer compares (signed, and unsigned on i1).
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<4xi32>, %p: tensor<i1>, %lo: tensor<f32>) -> (tensor<2x3xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4xi1>) {
  %k = stablehlo.constant dense<[1, 2, 3, 40]> : tensor<4xi32>
  %s = stablehlo.add %i, %k : tensor<4xi32>
  %sh = "mhlo.shift_left"(%s, %k) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %m = "mhlo.multiply"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = "stablehlo.select"(%p, %m, %a) : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = stablehlo.clamp %lo, %y, %lo : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %g = stablehlo.sign %c : tensor<2x3xf32>
  %z = stablehlo.convert %sh : (tensor<4xi32>) -> tensor<4xi1>
  %e = "mhlo.compare"(%i, %k) {comparison_direction = #mhlo<comparison_direction GE>} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %n = "stablehlo.compare"(%z, %e) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %f = stablehlo.convert %n : (tensor<4xi1>) -> tensor<4xf32>
  return %y, %sh, %g, %f, %z : tensor<2x3xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4xi1>
}
