// The math library's functions (mathlib.go) on f32 and f64, each output
// one function of x (atan2 and powf of x and y), for TestMathLibPTX; the
// same on f16 and bf16 for TestMathLibHalfPTX.
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

func.func @libmf16(%x: tensor<512xf16>, %y: tensor<512xf16>) -> (tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>) {
  %e = tensor.empty() : tensor<512xf16>
  %r:15 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y : tensor<512xf16>, tensor<512xf16>) outs(%e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e : tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>) {
  ^bb0(%a: f16, %b: f16, %o0: f16, %o1: f16, %o2: f16, %o3: f16, %o4: f16, %o5: f16, %o6: f16, %o7: f16, %o8: f16, %o9: f16, %o10: f16, %o11: f16, %o12: f16, %o13: f16, %o14: f16):
    %v0 = math.exp %a : f16
    %v1 = math.exp2 %a : f16
    %v2 = math.expm1 %a : f16
    %v3 = math.log %a : f16
    %v4 = math.log2 %a : f16
    %v5 = math.log10 %a : f16
    %v6 = math.log1p %a : f16
    %v7 = math.sin %a : f16
    %v8 = math.cos %a : f16
    %v9 = math.tan %a : f16
    %v10 = math.tanh %a : f16
    %v11 = math.erf %a : f16
    %v12 = math.atan %a : f16
    %v13 = math.atan2 %a, %b : f16
    %v14 = math.powf %a, %b : f16
    linalg.yield %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14 : f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16
  } -> (tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10, %r#11, %r#12, %r#13, %r#14 : tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>, tensor<512xf16>
}

func.func @libmbf16(%x: tensor<512xbf16>, %y: tensor<512xbf16>) -> (tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>) {
  %e = tensor.empty() : tensor<512xbf16>
  %r:15 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y : tensor<512xbf16>, tensor<512xbf16>) outs(%e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e : tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o0: bf16, %o1: bf16, %o2: bf16, %o3: bf16, %o4: bf16, %o5: bf16, %o6: bf16, %o7: bf16, %o8: bf16, %o9: bf16, %o10: bf16, %o11: bf16, %o12: bf16, %o13: bf16, %o14: bf16):
    %v0 = math.exp %a : bf16
    %v1 = math.exp2 %a : bf16
    %v2 = math.expm1 %a : bf16
    %v3 = math.log %a : bf16
    %v4 = math.log2 %a : bf16
    %v5 = math.log10 %a : bf16
    %v6 = math.log1p %a : bf16
    %v7 = math.sin %a : bf16
    %v8 = math.cos %a : bf16
    %v9 = math.tan %a : bf16
    %v10 = math.tanh %a : bf16
    %v11 = math.erf %a : bf16
    %v12 = math.atan %a : bf16
    %v13 = math.atan2 %a, %b : bf16
    %v14 = math.powf %a, %b : bf16
    linalg.yield %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14 : bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
  } -> (tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10, %r#11, %r#12, %r#13, %r#14 : tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>, tensor<512xbf16>
}

// math.fpowi with i32 and i64 exponents, for TestFpowiPTX.
func.func @fpowi(%x: tensor<256xf32>, %n: tensor<256xi32>, %d: tensor<256xf64>, %m: tensor<256xi64>) -> (tensor<256xf32>, tensor<256xf64>) {
  %ef = tensor.empty() : tensor<256xf32>
  %ed = tensor.empty() : tensor<256xf64>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %n, %d, %m : tensor<256xf32>, tensor<256xi32>, tensor<256xf64>, tensor<256xi64>) outs(%ef, %ed : tensor<256xf32>, tensor<256xf64>) {
  ^bb0(%a: f32, %b: i32, %c: f64, %e: i64, %o0: f32, %o1: f64):
    %p = math.fpowi %a, %b : f32, i32
    %q = math.fpowi %c, %e : f64, i64
    linalg.yield %p, %q : f32, f64
  } -> (tensor<256xf32>, tensor<256xf64>)
  return %r#0, %r#1 : tensor<256xf32>, tensor<256xf64>
}
