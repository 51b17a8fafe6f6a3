// The math library's functions (mathlib.go) on f32 and f64, each output
// one function of x (atan2 and powf of x and y), for TestMathLibPTX.
#id = affine_map<(d0) -> (d0)>
func.func @libm32(%x: tensor<2048xf32>, %y: tensor<2048xf32>) -> (tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>) {
  %e = tensor.empty() : tensor<2048xf32>
  %r:15 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y : tensor<2048xf32>, tensor<2048xf32>) outs(%e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e : tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>) {
  ^bb0(%a: f32, %b: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32, %o4: f32, %o5: f32, %o6: f32, %o7: f32, %o8: f32, %o9: f32, %o10: f32, %o11: f32, %o12: f32, %o13: f32, %o14: f32):
    %v0 = math.exp %a : f32
    %v1 = math.exp2 %a : f32
    %v2 = math.expm1 %a : f32
    %v3 = math.log %a : f32
    %v4 = math.log2 %a : f32
    %v5 = math.log10 %a : f32
    %v6 = math.log1p %a : f32
    %v7 = math.sin %a : f32
    %v8 = math.cos %a : f32
    %v9 = math.tan %a : f32
    %v10 = math.tanh %a : f32
    %v11 = math.erf %a : f32
    %v12 = math.atan %a : f32
    %v13 = math.atan2 %a, %b : f32
    %v14 = math.powf %a, %b : f32
    linalg.yield %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
  } -> (tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10, %r#11, %r#12, %r#13, %r#14 : tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>
}

func.func @libm64(%x: tensor<2048xf64>, %y: tensor<2048xf64>) -> (tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>) {
  %e = tensor.empty() : tensor<2048xf64>
  %r:15 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y : tensor<2048xf64>, tensor<2048xf64>) outs(%e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e : tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>) {
  ^bb0(%a: f64, %b: f64, %o0: f64, %o1: f64, %o2: f64, %o3: f64, %o4: f64, %o5: f64, %o6: f64, %o7: f64, %o8: f64, %o9: f64, %o10: f64, %o11: f64, %o12: f64, %o13: f64, %o14: f64):
    %v0 = math.exp %a : f64
    %v1 = math.exp2 %a : f64
    %v2 = math.expm1 %a : f64
    %v3 = math.log %a : f64
    %v4 = math.log2 %a : f64
    %v5 = math.log10 %a : f64
    %v6 = math.log1p %a : f64
    %v7 = math.sin %a : f64
    %v8 = math.cos %a : f64
    %v9 = math.tan %a : f64
    %v10 = math.tanh %a : f64
    %v11 = math.erf %a : f64
    %v12 = math.atan %a : f64
    %v13 = math.atan2 %a, %b : f64
    %v14 = math.powf %a, %b : f64
    linalg.yield %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14 : f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64
  } -> (tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10, %r#11, %r#12, %r#13, %r#14 : tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>, tensor<2048xf64>
}

// arith.remf (C's fmod) on f64, for TestRemf64PTX.
func.func @remf64(%x: tensor<400xf64>, %y: tensor<400xf64>) -> tensor<400xf64> {
  %e = tensor.empty() : tensor<400xf64>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y : tensor<400xf64>, tensor<400xf64>) outs(%e : tensor<400xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %m = arith.remf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<400xf64>
  return %r : tensor<400xf64>
}
