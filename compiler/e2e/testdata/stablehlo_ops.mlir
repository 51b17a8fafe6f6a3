// StableHLO and MHLO programs lowered by conversion/stablehlotolinalg:
// float and integer elementwise ops in both dialects' spellings, custom
// and generic forms, compare/select, clamp with rank-0 bounds, shifts by
// the bit width or more, and converts.
func.func @float_ops(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %add = stablehlo.add %a, %b : tensor<3x4xf32>
  %div = "mhlo.divide"(%a, %b) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %lo = stablehlo.constant dense<-0.5> : tensor<f32>
  %hi = "mhlo.constant"() {value = dense<0.75> : tensor<f32>} : () -> tensor<f32>
  %cl = stablehlo.clamp %lo, %a, %hi : (tensor<f32>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %gt = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
  %sel = "stablehlo.select"(%gt, %a, %b) : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %sg = "mhlo.sign"(%a) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %e = stablehlo.exponential %a : tensor<3x4xf32>
  %l = stablehlo.logistic %e : tensor<3x4xf32>
  return %add, %div, %cl, %sel, %sg, %l : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

func.func @int_ops(%a: tensor<16xi32>, %b: tensor<16xi32>, %s: tensor<16xi32>) -> (tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xf32>, tensor<16xi32>) {
  %shl = stablehlo.shift_left %a, %s : tensor<16xi32>
  %sra = "mhlo.shift_right_arithmetic"(%a, %s) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  %srl = stablehlo.shift_right_logical %a, %s : tensor<16xi32>
  %rem = stablehlo.remainder %a, %b : tensor<16xi32>
  %f = "mhlo.convert"(%b) : (tensor<16xi32>) -> tensor<16xf32>
  %le = "mhlo.compare"(%a, %b) {comparison_direction = #mhlo<comparison_direction LE>} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
  %nb = stablehlo.negate %b : tensor<16xi32>
  %m = stablehlo.select %le, %a, %nb : (tensor<16xi1>, tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  return %shl, %sra, %srl, %rem, %f, %m : tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xf32>, tensor<16xi32>
}
