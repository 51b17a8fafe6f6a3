// Math ops that cuda code generation emits as sequences or single
// instructions: round (half away from zero), roundeven and copysign in f32
// and f64, isfinite, ctpop and ctlz on i32 and i64, and f32 exp2, log2,
// log10, sin and cos (mathlib.go).
#id = affine_map<(d0) -> (d0)>
func.func @math(%x: tensor<300xf32>, %y: tensor<300xf32>, %d: tensor<300xf64>, %e: tensor<300xf64>, %i: tensor<300xi32>, %j: tensor<300xi64>) -> (tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf64>, tensor<300xf64>, tensor<300xf64>, tensor<300xi1>, tensor<300xi32>, tensor<300xi32>, tensor<300xi64>, tensor<300xi64>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>) {
  %ef = tensor.empty() : tensor<300xf32>
  %ed = tensor.empty() : tensor<300xf64>
  %eb = tensor.empty() : tensor<300xi1>
  %ei = tensor.empty() : tensor<300xi32>
  %ej = tensor.empty() : tensor<300xi64>
  %r:16 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %d, %e, %i, %j : tensor<300xf32>, tensor<300xf32>, tensor<300xf64>, tensor<300xf64>, tensor<300xi32>, tensor<300xi64>) outs(%ef, %ef, %ef, %ed, %ed, %ed, %eb, %ei, %ei, %ej, %ej, %ef, %ef, %ef, %ef, %ef : tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf64>, tensor<300xf64>, tensor<300xf64>, tensor<300xi1>, tensor<300xi32>, tensor<300xi32>, tensor<300xi64>, tensor<300xi64>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>) {
  ^bb0(%a: f32, %b: f32, %p: f64, %q: f64, %m: i32, %n: i64, %o0: f32, %o1: f32, %o2: f32, %o3: f64, %o4: f64, %o5: f64, %o6: i1, %o7: i32, %o8: i32, %o9: i64, %o10: i64, %o11: f32, %o12: f32, %o13: f32, %o14: f32, %o15: f32):
    %r0 = math.round %a : f32
    %r1 = math.roundeven %a : f32
    %r2 = math.copysign %a, %b : f32
    %r3 = math.round %p : f64
    %r4 = math.roundeven %p : f64
    %r5 = math.copysign %p, %q : f64
    %r6 = math.isfinite %a : f32
    %r7 = math.ctpop %m : i32
    %r8 = math.ctlz %m : i32
    %r9 = math.ctpop %n : i64
    %r10 = math.ctlz %n : i64
    %r11 = math.exp2 %b : f32
    %r12 = math.log2 %a : f32
    %r13 = math.log10 %a : f32
    %r14 = math.sin %b : f32
    %r15 = math.cos %b : f32
    linalg.yield %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15 : f32, f32, f32, f64, f64, f64, i1, i32, i32, i64, i64, f32, f32, f32, f32, f32
  } -> (tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf64>, tensor<300xf64>, tensor<300xf64>, tensor<300xi1>, tensor<300xi32>, tensor<300xi32>, tensor<300xi64>, tensor<300xi64>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10, %r#11, %r#12, %r#13, %r#14, %r#15 : tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf64>, tensor<300xf64>, tensor<300xf64>, tensor<300xi1>, tensor<300xi32>, tensor<300xi32>, tensor<300xi64>, tensor<300xi64>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>
}

// math.powf in f32, f16 (through f32) and its special cases.
func.func @pow(%x: tensor<64xf32>, %y: tensor<64xf32>, %h: tensor<64xf16>, %k: tensor<64xf16>) -> (tensor<64xf32>, tensor<64xf16>) {
  %ef = tensor.empty() : tensor<64xf32>
  %eh = tensor.empty() : tensor<64xf16>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %h, %k : tensor<64xf32>, tensor<64xf32>, tensor<64xf16>, tensor<64xf16>) outs(%ef, %eh : tensor<64xf32>, tensor<64xf16>) {
  ^bb0(%a: f32, %b: f32, %c: f16, %d: f16, %o0: f32, %o1: f16):
    %p = math.powf %a, %b : f32
    %q = math.powf %c, %d : f16
    linalg.yield %p, %q : f32, f16
  } -> (tensor<64xf32>, tensor<64xf16>)
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xf16>
}

// erf, expm1 and log1p on f32.
func.func @special(%x: tensor<400xf32>) -> (tensor<400xf32>, tensor<400xf32>, tensor<400xf32>) {
  %e = tensor.empty() : tensor<400xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x : tensor<400xf32>) outs(%e, %e, %e : tensor<400xf32>, tensor<400xf32>, tensor<400xf32>) {
  ^bb0(%a: f32, %o0: f32, %o1: f32, %o2: f32):
    %p = math.erf %a : f32
    %q = math.expm1 %a : f32
    %s = math.log1p %a : f32
    linalg.yield %p, %q, %s : f32, f32, f32
  } -> (tensor<400xf32>, tensor<400xf32>, tensor<400xf32>)
  return %r#0, %r#1, %r#2 : tensor<400xf32>, tensor<400xf32>, tensor<400xf32>
}

// arith.remf (C's fmod) on f32 and f16.
func.func @remf(%x: tensor<200xf32>, %y: tensor<200xf32>, %h: tensor<200xf16>, %k: tensor<200xf16>) -> (tensor<200xf32>, tensor<200xf16>) {
  %ef = tensor.empty() : tensor<200xf32>
  %eh = tensor.empty() : tensor<200xf16>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %h, %k : tensor<200xf32>, tensor<200xf32>, tensor<200xf16>, tensor<200xf16>) outs(%ef, %eh : tensor<200xf32>, tensor<200xf16>) {
  ^bb0(%a: f32, %b: f32, %c: f16, %d: f16, %o0: f32, %o1: f16):
    %p = arith.remf %a, %b : f32
    %q = arith.remf %c, %d : f16
    linalg.yield %p, %q : f32, f16
  } -> (tensor<200xf32>, tensor<200xf16>)
  return %r#0, %r#1 : tensor<200xf32>, tensor<200xf16>
}
