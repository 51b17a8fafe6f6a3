// Element types on the GPU targets (gpu_types_test.go): f16, bf16, f64,
// i64, i8 and i16 in elementwise loop nests, casts between them, shared
// and sequential reductions, and tensor-level elementwise dispatches.

#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// f16 arithmetic, rounded to f16 after every op; extf/truncf through f32;
// a comparison and the bits.
func.func @f16_ops(%a: tensor<?xf16>, %b: tensor<?xf16>) -> (tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf32>, tensor<?xf16>, tensor<?xi1>, tensor<?xi16>, tensor<?xf16>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf16>
  %e = tensor.empty(%n) : tensor<?xf16>
  %e32 = tensor.empty(%n) : tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?xi1>
  %e16 = tensor.empty(%n) : tensor<?xi16>
  %r:11 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf16>, tensor<?xf16>) outs(%e, %e, %e, %e, %e, %e, %e32, %e, %e1, %e16, %e : tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf32>, tensor<?xf16>, tensor<?xi1>, tensor<?xi16>, tensor<?xf16>) {
  ^bb0(%x: f16, %y: f16, %o0: f16, %o1: f16, %o2: f16, %o3: f16, %o4: f16, %o5: f16, %o6: f32, %o7: f16, %o8: i1, %o9: i16, %o10: f16):
    %add = arith.addf %x, %y : f16
    %sub = arith.subf %x, %y : f16
    %mul = arith.mulf %x, %y : f16
    %div = arith.divf %x, %y : f16
    %ax = math.absf %x : f16
    %sq = math.sqrt %ax : f16
    %max = arith.maximumf %x, %y : f16
    %wx = arith.extf %x : f16 to f32
    %wy = arith.extf %y : f16 to f32
    %p = arith.mulf %wx, %wy : f32
    %tp = arith.truncf %p : f32 to f16
    %lt = arith.cmpf olt, %x, %y : f16
    %bits = arith.bitcast %x : f16 to i16
    %k = arith.constant 0.1 : f16
    %fma = math.fma %x, %k, %y : f16
    linalg.yield %add, %sub, %mul, %div, %sq, %max, %p, %tp, %lt, %bits, %fma : f16, f16, f16, f16, f16, f16, f32, f16, i1, i16, f16
  } -> (tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf32>, tensor<?xf16>, tensor<?xi1>, tensor<?xi16>, tensor<?xf16>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10 : tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf32>, tensor<?xf16>, tensor<?xi1>, tensor<?xi16>, tensor<?xf16>
}

// bf16 arithmetic, rounded to bf16 after every op; extf/truncf through f32;
// a comparison and the bits.
func.func @bf16_ops(%a: tensor<?xbf16>, %b: tensor<?xbf16>) -> (tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xbf16>, tensor<?xi1>, tensor<?xi16>, tensor<?xbf16>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xbf16>
  %e = tensor.empty(%n) : tensor<?xbf16>
  %e32 = tensor.empty(%n) : tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?xi1>
  %e16 = tensor.empty(%n) : tensor<?xi16>
  %r:11 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xbf16>, tensor<?xbf16>) outs(%e, %e, %e, %e, %e, %e, %e32, %e, %e1, %e16, %e : tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xbf16>, tensor<?xi1>, tensor<?xi16>, tensor<?xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o0: bf16, %o1: bf16, %o2: bf16, %o3: bf16, %o4: bf16, %o5: bf16, %o6: f32, %o7: bf16, %o8: i1, %o9: i16, %o10: bf16):
    %add = arith.addf %x, %y : bf16
    %sub = arith.subf %x, %y : bf16
    %mul = arith.mulf %x, %y : bf16
    %div = arith.divf %x, %y : bf16
    %ax = math.absf %x : bf16
    %sq = math.sqrt %ax : bf16
    %max = arith.maximumf %x, %y : bf16
    %wx = arith.extf %x : bf16 to f32
    %wy = arith.extf %y : bf16 to f32
    %p = arith.mulf %wx, %wy : f32
    %tp = arith.truncf %p : f32 to bf16
    %lt = arith.cmpf olt, %x, %y : bf16
    %bits = arith.bitcast %x : bf16 to i16
    %k = arith.constant 0.1 : bf16
    %fma = math.fma %x, %k, %y : bf16
    linalg.yield %add, %sub, %mul, %div, %sq, %max, %p, %tp, %lt, %bits, %fma : bf16, bf16, bf16, bf16, bf16, bf16, f32, bf16, i1, i16, bf16
  } -> (tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xbf16>, tensor<?xi1>, tensor<?xi16>, tensor<?xbf16>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10 : tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xbf16>, tensor<?xi1>, tensor<?xi16>, tensor<?xbf16>
}

// f64 arithmetic and its narrowing to f32, f16 and bf16 (each rounded
// once), an f32 widened, a comparison and the bits.
func.func @f64_ops(%a: tensor<?xf64>, %b: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf32>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf64>, tensor<?xi1>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %e32 = tensor.empty(%n) : tensor<?xf32>
  %eh = tensor.empty(%n) : tensor<?xf16>
  %eb = tensor.empty(%n) : tensor<?xbf16>
  %e1 = tensor.empty(%n) : tensor<?xi1>
  %e64 = tensor.empty(%n) : tensor<?xi64>
  %r:10 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf64>, tensor<?xf64>) outs(%e, %e, %e, %e, %e32, %eh, %eb, %e, %e1, %e64 : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf32>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf64>, tensor<?xi1>, tensor<?xi64>) {
  ^bb0(%x: f64, %y: f64, %o0: f64, %o1: f64, %o2: f64, %o3: f64, %o4: f32, %o5: f16, %o6: bf16, %o7: f64, %o8: i1, %o9: i64):
    %add = arith.addf %x, %y : f64
    %mul = arith.mulf %x, %y : f64
    %div = arith.divf %x, %y : f64
    %ax = math.absf %x : f64
    %sq = math.sqrt %ax : f64
    %t32 = arith.truncf %x : f64 to f32
    %t16 = arith.truncf %x : f64 to f16
    %tb = arith.truncf %x : f64 to bf16
    %w = arith.extf %t32 : f32 to f64
    %le = arith.cmpf ule, %x, %y : f64
    %bits = arith.bitcast %x : f64 to i64
    linalg.yield %add, %mul, %div, %sq, %t32, %t16, %tb, %w, %le, %bits : f64, f64, f64, f64, f32, f16, bf16, f64, i1, i64
  } -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf32>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf64>, tensor<?xi1>, tensor<?xi64>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9 : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf32>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf64>, tensor<?xi1>, tensor<?xi64>
}

// i64 arithmetic (wrapping), unsigned ops, comparisons and conversions
// to every float type and to i32.
func.func @i64_ops(%a: tensor<?xi64>, %b: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi1>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64>, tensor<?xi32>, tensor<?xi1>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?xi64>
  %e1 = tensor.empty(%n) : tensor<?xi1>
  %eh = tensor.empty(%n) : tensor<?xf16>
  %eb = tensor.empty(%n) : tensor<?xbf16>
  %e32 = tensor.empty(%n) : tensor<?xf32>
  %e64 = tensor.empty(%n) : tensor<?xf64>
  %ei = tensor.empty(%n) : tensor<?xi32>
  %r:12 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xi64>, tensor<?xi64>) outs(%e, %e, %e, %e, %e, %e1, %eh, %eb, %e32, %e64, %ei, %e1 : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi1>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64>, tensor<?xi32>, tensor<?xi1>) {
  ^bb0(%x: i64, %y: i64, %o0: i64, %o1: i64, %o2: i64, %o3: i64, %o4: i64, %o5: i1, %o6: f16, %o7: bf16, %o8: f32, %o9: f64, %o10: i32, %o11: i1):
    %add = arith.addi %x, %y : i64
    %mul = arith.muli %x, %y : i64
    %div = arith.divsi %x, %y : i64
    %rem = arith.remui %x, %y : i64
    %c63 = arith.constant 63 : i64
    %s = arith.andi %y, %c63 : i64
    %shr = arith.shrsi %x, %s : i64
    %lt = arith.cmpi ult, %x, %y : i64
    %h = arith.sitofp %x : i64 to f16
    %bf = arith.sitofp %x : i64 to bf16
    %f = arith.uitofp %x : i64 to f32
    %d = arith.sitofp %x : i64 to f64
    %t = arith.trunci %x : i64 to i32
    %sle = arith.cmpi sle, %x, %y : i64
    linalg.yield %add, %mul, %div, %rem, %shr, %lt, %h, %bf, %f, %d, %t, %sle : i64, i64, i64, i64, i64, i1, f16, bf16, f32, f64, i32, i1
  } -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi1>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64>, tensor<?xi32>, tensor<?xi1>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10, %r#11 : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi1>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64>, tensor<?xi32>, tensor<?xi1>
}

// i8 and i16 (wrapping at their widths), widened to i32 and i64,
// narrowed, and converted to f16 and bf16; i32 to f16 and bf16 (rounded
// once: 2^24 + 2^16 + 1 is not a tie for bf16).
func.func @narrow_ops(%a: tensor<?xi8>, %b: tensor<?xi16>, %k: tensor<?xi32>) -> (tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>, tensor<?xi8>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi8>
  %e8 = tensor.empty(%n) : tensor<?xi8>
  %e16 = tensor.empty(%n) : tensor<?xi16>
  %e32 = tensor.empty(%n) : tensor<?xi32>
  %e64 = tensor.empty(%n) : tensor<?xi64>
  %eh = tensor.empty(%n) : tensor<?xf16>
  %eb = tensor.empty(%n) : tensor<?xbf16>
  %r:10 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b, %k : tensor<?xi8>, tensor<?xi16>, tensor<?xi32>) outs(%e8, %e16, %e32, %e64, %e8, %eh, %eb, %eh, %eb, %eb : tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>, tensor<?xi8>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>) {
  ^bb0(%x: i8, %y: i16, %z: i32, %o0: i8, %o1: i16, %o2: i32, %o3: i64, %o4: i8, %o5: f16, %o6: bf16, %o7: f16, %o8: bf16, %o9: bf16):
    %m8 = arith.muli %x, %x : i8
    %a8 = arith.addi %m8, %x : i8
    %m16 = arith.muli %y, %y : i16
    %d16 = arith.divui %m16, %y : i16
    %w = arith.extsi %x : i8 to i32
    %u = arith.extui %y : i16 to i64
    %t = arith.trunci %y : i16 to i8
    %h = arith.sitofp %y : i16 to f16
    %bu = arith.uitofp %x : i8 to bf16
    %kh = arith.sitofp %z : i32 to f16
    %kb = arith.sitofp %z : i32 to bf16
    %ku = arith.uitofp %z : i32 to bf16
    linalg.yield %a8, %d16, %w, %u, %t, %h, %bu, %kh, %kb, %ku : i8, i16, i32, i64, i8, f16, bf16, f16, bf16, bf16
  } -> (tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>, tensor<?xi8>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9 : tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>, tensor<?xi8>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>
}

// f16 rows summed in f32 (a shared reduction).
func.func @sum_f16_f32(%x: tensor<?x?xf16>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf16>) outs(%f : tensor<?xf32>) {
  ^bb0(%in: f16, %acc: f32):
    %w = arith.extf %in : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// f16 rows summed in f16.
func.func @sum_f16(%x: tensor<?x?xf16>) -> tensor<?xf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf16>
  %z = arith.constant 0.0 : f16
  %e = tensor.empty(%n) : tensor<?xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<?xf16>) -> tensor<?xf16>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf16>) outs(%f : tensor<?xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %s = arith.addf %in, %acc : f16
    linalg.yield %s : f16
  } -> tensor<?xf16>
  return %r : tensor<?xf16>
}

// bf16 row maxima onto the lowest bf16.
func.func @max_bf16(%x: tensor<?x?xbf16>) -> tensor<?xbf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %z = arith.constant -3.3895313892515355e+38 : bf16
  %e = tensor.empty(%n) : tensor<?xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<?xbf16>) -> tensor<?xbf16>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xbf16>) outs(%f : tensor<?xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %s = arith.maximumf %in, %acc : bf16
    linalg.yield %s : bf16
  } -> tensor<?xbf16>
  return %r : tensor<?xbf16>
}

// bf16 rows summed in bf16.
func.func @sum_bf16(%x: tensor<?x?xbf16>) -> tensor<?xbf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty(%n) : tensor<?xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<?xbf16>) -> tensor<?xbf16>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xbf16>) outs(%f : tensor<?xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %s = arith.addf %in, %acc : bf16
    linalg.yield %s : bf16
  } -> tensor<?xbf16>
  return %r : tensor<?xbf16>
}

// f64 rows summed.
func.func @sum_f64(%x: tensor<?x?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf64>
  %z = arith.constant 0.0 : f64
  %e = tensor.empty(%n) : tensor<?xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf64>) outs(%f : tensor<?xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %s = arith.addf %in, %acc : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}

// i64 rows summed (wrapping).
func.func @sum_i64(%x: tensor<?x?xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xi64>
  %z = arith.constant 0 : i64
  %e = tensor.empty(%n) : tensor<?xi64>
  %f = linalg.fill ins(%z : i64) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xi64>) outs(%f : tensor<?xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %s = arith.addi %in, %acc : i64
    linalg.yield %s : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// i64 row minima.
func.func @min_i64(%x: tensor<?x?xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xi64>
  %z = arith.constant 9223372036854775807 : i64
  %e = tensor.empty(%n) : tensor<?xi64>
  %f = linalg.fill ins(%z : i64) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xi64>) outs(%f : tensor<?xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %s = arith.minsi %in, %acc : i64
    linalg.yield %s : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// i8 rows summed in i32.
func.func @sum_i8_i32(%x: tensor<?x?xi8>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty(%n) : tensor<?xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xi8>) outs(%f : tensor<?xi32>) {
  ^bb0(%in: i8, %acc: i32):
    %w = arith.extsi %in : i8 to i32
    %s = arith.addi %w, %acc : i32
    linalg.yield %s : i32
  } -> tensor<?xi32>
  return %r : tensor<?xi32>
}

// i16 rows summed (wrapping at 16 bits, a sequential reduction of packed words).
func.func @sum_i16(%x: tensor<?x?xi16>) -> tensor<?xi16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xi16>
  %z = arith.constant 0 : i16
  %e = tensor.empty(%n) : tensor<?xi16>
  %f = linalg.fill ins(%z : i16) outs(%e : tensor<?xi16>) -> tensor<?xi16>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xi16>) outs(%f : tensor<?xi16>) {
  ^bb0(%in: i16, %acc: i16):
    %s = arith.addi %in, %acc : i16
    linalg.yield %s : i16
  } -> tensor<?xi16>
  return %r : tensor<?xi16>
}

// Tensor-level arith and math, which form elementwise dispatches rather
// than linalg ones.
func.func @tensor_ops(%a: tensor<?xf16>, %b: tensor<?xbf16>, %c: tensor<?xf64>, %d: tensor<?xi64>, %e: tensor<?xi8>) -> (tensor<?xf16>, tensor<?xbf16>, tensor<?xf64>, tensor<?xi64>, tensor<?xi8>) {
  %x = arith.mulf %a, %a : tensor<?xf16>
  %y = math.exp %b : tensor<?xbf16>
  %c2 = arith.mulf %c, %c : tensor<?xf64>
  %z = arith.addf %c2, %c : tensor<?xf64>
  %w = arith.muli %d, %d : tensor<?xi64>
  %v = arith.muli %e, %e : tensor<?xi8>
  return %x, %y, %z, %w, %v : tensor<?xf16>, tensor<?xbf16>, tensor<?xf64>, tensor<?xi64>, tensor<?xi8>
}

// Matmuls of f64 (not tiled: the shared tiles hold 32-bit values) and of
// f16 (each product and sum rounded to f16, in order).
func.func @matmul_f64(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf64>
  %n = tensor.dim %b, %c1 : tensor<?x?xf64>
  %z = arith.constant 0.0 : f64
  %e = tensor.empty(%m, %n) : tensor<?x?xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<?x?xf64>) -> tensor<?x?xf64>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%f : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

func.func @matmul_f16(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf16>
  %n = tensor.dim %b, %c1 : tensor<?x?xf16>
  %z = arith.constant 0.0 : f16
  %e = tensor.empty(%m, %n) : tensor<?x?xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<?x?xf16>) -> tensor<?x?xf16>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%f : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}
