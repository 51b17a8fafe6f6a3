// StableHLO and MHLO programs lowered by conversion/stablehlotolinalg:
// float and integer elementwise ops in both dialects' spellings, custom
// and generic forms, compare/select, clamp with rank-0 bounds, shifts by
// the bit width or more, converts, and the data-movement ops.
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

func.func @shapes(%a: tensor<3x4xf32>, %v: tensor<4xf32>) -> (tensor<4x3xf32>, tensor<2x3x4xf32>, tensor<2x2xf32>, tensor<3x8xf32>, tensor<2x5xf32>, tensor<12xf32>) {
  %t = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %b = "mhlo.broadcast_in_dim"(%v) {broadcast_dimensions = dense<2> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<2x3x4xf32>
  %s = "stablehlo.slice"(%a) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 3, 4>, strides = array<i64: 1, 3>} : (tensor<3x4xf32>) -> tensor<2x2xf32>
  %c = "mhlo.concatenate"(%a, %a) {dimension = 1 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  %i = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x5xf32>
  %r = "stablehlo.reshape"(%a) : (tensor<3x4xf32>) -> tensor<12xf32>
  return %t, %b, %s, %c, %i, %r : tensor<4x3xf32>, tensor<2x3x4xf32>, tensor<2x2xf32>, tensor<3x8xf32>, tensor<2x5xf32>, tensor<12xf32>
}

func.func @dots(%a: tensor<2x4xi8>, %b: tensor<4x3xi8>, %m: tensor<3x4xf32>, %v: tensor<4xf32>) -> (tensor<2x3xi32>, tensor<3xf32>) {
  %mm = "stablehlo.dot"(%a, %b) : (tensor<2x4xi8>, tensor<4x3xi8>) -> tensor<2x3xi32>
  %mv = "mhlo.dot"(%m, %v) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %mm, %mv : tensor<2x3xi32>, tensor<3xf32>
}

func.func @more(%a: tensor<2x3xf32>) -> (tensor<4x2x3xf32>, tensor<2x3xf32>) {
  %b = "mhlo.broadcast"(%a) {broadcast_sizes = dense<4> : tensor<1xi64>} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %abs = stablehlo.abs %a : tensor<2x3xf32>
  %p = "stablehlo.power"(%abs, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %b, %p : tensor<4x2x3xf32>, tensor<2x3xf32>
}

func.func @reduce(%a: tensor<2x3x4xf32>, %i: tensor<16xi32>) -> (tensor<3xf32>, tensor<i32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %mx = "stablehlo.reduce"(%a, %ninf) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = "stablehlo.maximum"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0, 2>} : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<3xf32>
  %one = "mhlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %s = "mhlo.reduce"(%i, %one) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %t = "mhlo.add"(%x, %y) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "mhlo.return"(%t) : (tensor<i32>) -> ()
  }) {dimensions = dense<0> : tensor<1xi64>} : (tensor<16xi32>, tensor<i32>) -> tensor<i32>
  return %mx, %s : tensor<3xf32>, tensor<i32>
}

func.func @dot_general(%a: tensor<2x4x3xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %r = "stablehlo.dot_general"(%a, %b) {
    dot_dimension_numbers = #stablehlo.dot<
      lhs_batching_dimensions = [0],
      rhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [1],
      rhs_contracting_dimensions = [1],
    >
  } : (tensor<2x4x3xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

func.func @finite(%a: tensor<6xf32>) -> (tensor<6xi32>, tensor<6xi32>) {
  %f = stablehlo.is_finite %a : (tensor<6xf32>) -> tensor<6xi1>
  %i = stablehlo.convert %f : (tensor<6xi1>) -> tensor<6xi32>
  %b = "mhlo.bitcast_convert"(%a) : (tensor<6xf32>) -> tensor<6xi32>
  return %i, %b : tensor<6xi32>, tensor<6xi32>
}

func.func @pad(%a: tensor<2x3xf32>) -> tensor<5x4xf32> {
  %v = stablehlo.constant dense<-1.5> : tensor<f32>
  %p = "mhlo.pad"(%a, %v) {edge_padding_low = dense<[1, 0]> : tensor<2xi64>, edge_padding_high = dense<[2, 1]> : tensor<2xi64>, interior_padding = dense<0> : tensor<2xi64>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x4xf32>
  return %p : tensor<5x4xf32>
}

func.func @chlo(%a: tensor<3x1xf32>, %b: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %m = "chlo.broadcast_multiply"(%a, %b) : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %v = "stablehlo.reshape"(%a) : (tensor<3x1xf32>) -> tensor<3xf32>
  %s = "chlo.broadcast_subtract"(%v, %m) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %m, %s : tensor<3x4xf32>, tensor<3x4xf32>
}

func.func @batch_norm(%x: tensor<2x3x2xf32>, %scale: tensor<3xf32>, %offset: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> tensor<2x3x2xf32> {
  %r = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) {epsilon = 1.000000e-03 : f32, feature_index = 1 : i64} : (tensor<2x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x2xf32>
  return %r : tensor<2x3x2xf32>
}
