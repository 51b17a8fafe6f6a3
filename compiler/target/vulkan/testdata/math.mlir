// The math ops of loop-nest bodies that vulkan-spirv builds from GLSL
// builtins and helpers, on f32 (and i32 for the bit counts).
#id = affine_map<(d0) -> (d0)>
func.func @unary(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %r:11 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%a: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32, %o4: f32, %o5: f32, %o6: f32, %o7: f32, %o8: f32, %o9: f32, %o10: f32):
    %0 = math.sin %a : f32
    %1 = math.cos %a : f32
    %2 = math.tan %a : f32
    %3 = math.atan %a : f32
    %4 = math.exp2 %a : f32
    %ab = math.absf %a : f32
    %5 = math.log2 %ab : f32
    %6 = math.log10 %ab : f32
    %7 = math.log1p %ab : f32
    %8 = math.expm1 %a : f32
    %9 = math.erf %a : f32
    %10 = math.roundeven %a : f32
    linalg.yield %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
  } -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

func.func @binary(%x: tensor<64xf32>, %y: tensor<64xf32>, %n: tensor<64xi32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi1>) {
  %e = tensor.empty() : tensor<64xf32>
  %ei = tensor.empty() : tensor<64xi32>
  %eb = tensor.empty() : tensor<64xi1>
  %r:8 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %n : tensor<64xf32>, tensor<64xf32>, tensor<64xi32>) outs(%e, %e, %e, %e, %ei, %ei, %ei, %eb : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi1>) {
  ^bb0(%a: f32, %b: f32, %k: i32, %o0: f32, %o1: f32, %o2: f32, %o3: f32, %o4: i32, %o5: i32, %o6: i32, %o7: i1):
    %0 = math.powf %a, %b : f32
    %1 = math.atan2 %a, %b : f32
    %2 = math.copysign %a, %b : f32
    %k3 = arith.constant 3 : i32
    %3 = math.fpowi %a, %k3 : f32, i32
    %4 = math.ctpop %k : i32
    %5 = math.ctlz %k : i32
    %6 = math.cttz %k : i32
    %7 = math.isnan %0 : f32
    linalg.yield %0, %1, %2, %3, %4, %5, %6, %7 : f32, f32, f32, f32, i32, i32, i32, i1
  } -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi1>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi1>
}
