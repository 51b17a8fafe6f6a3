// Programs the vmvx e2e test compiles with --iree-hal-target-backends=vmvx
// and checks against Go loops on local-sync and local-task.
#id = affine_map<(d0) -> (d0)>
#row = affine_map<(d0, d1) -> (d0, d1)>
#rowout = affine_map<(d0, d1) -> (d0)>

// Elementwise: an elementwise dispatch over a dynamic vector.
func.func @ew(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %m = arith.mulf %a, %b : tensor<?xf32>
  %e = math.exp %a : tensor<?xf32>
  %s = arith.addf %m, %e : tensor<?xf32>
  %n = arith.negf %s : tensor<?xf32>
  %r = arith.maximumf %s, %n : tensor<?xf32>
  return %r : tensor<?xf32>
}

// Matmul with dynamic sizes, onto a zero fill.
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Row maximum of a static matrix (a reduction from -inf) and its
// softmax-style follow-up: sum of exp(x - max) per row.
func.func @rows(%x: tensor<6x37xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [#row, #rowout], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x37xf32>) outs(%fm : tensor<6xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %fs = linalg.fill ins(%z : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#row, #rowout, #rowout], iterator_types = ["parallel", "reduction"]} ins(%x, %max : tensor<6x37xf32>, tensor<6xf32>) outs(%fs : tensor<6xf32>) {
  ^bb0(%v: f32, %mx: f32, %acc: f32):
    %d = arith.subf %v, %mx : f32
    %x2 = math.exp %d : f32
    %r = arith.addf %acc, %x2 : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  return %max, %sum : tensor<6xf32>, tensor<6xf32>
}

// Slices: a transposed window of the input written into a copy of it.
func.func @slices(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  %s = tensor.extract_slice %x[1, 2] [3, 4] [1, 2] : tensor<8x10xf32> to tensor<3x4xf32>
  %e = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%s : tensor<3x4xf32>) outs(%e : tensor<4x3xf32>) permutation = [1, 0]
  %r = tensor.insert_slice %t into %x[4, 5] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<8x10xf32>
  return %r : tensor<8x10xf32>
}

// Integers of every width: wrapping arithmetic, division by zero (0 on
// every target), shifts past the width, extension and truncation.
func.func @ints(%a: tensor<16xi8>, %b: tensor<16xi8>, %c: tensor<16xi32>, %d: tensor<16xi64>) -> (tensor<16xi8>, tensor<16xi16>, tensor<16xi32>, tensor<16xi64>, tensor<16xi1>) {
  %e8 = tensor.empty() : tensor<16xi8>
  %e16 = tensor.empty() : tensor<16xi16>
  %e32 = tensor.empty() : tensor<16xi32>
  %e64 = tensor.empty() : tensor<16xi64>
  %e1 = tensor.empty() : tensor<16xi1>
  %r:5 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b, %c, %d : tensor<16xi8>, tensor<16xi8>, tensor<16xi32>, tensor<16xi64>) outs(%e8, %e16, %e32, %e64, %e1 : tensor<16xi8>, tensor<16xi16>, tensor<16xi32>, tensor<16xi64>, tensor<16xi1>) {
  ^bb0(%x: i8, %y: i8, %z: i32, %w: i64, %o8: i8, %o16: i16, %o32: i32, %o64: i64, %o1: i1):
    %c7 = arith.constant 7 : i32
    %s = arith.addi %x, %y : i8
    %q = arith.divsi %x, %y : i8
    %m = arith.muli %s, %q : i8
    %xs = arith.extsi %x : i8 to i16
    %yu = arith.extui %y : i8 to i16
    %p = arith.muli %xs, %yu : i16
    %zs = arith.remsi %z, %c7 : i32
    %sh = arith.shli %z, %zs : i32
    %sr = arith.shrsi %z, %zs : i32
    %x32 = arith.extsi %x : i8 to i32
    %r32 = arith.addi %sh, %sr : i32
    %r32b = arith.addi %r32, %x32 : i32
    %ww = arith.extsi %z : i32 to i64
    %q64 = arith.divui %w, %ww : i64
    %r64 = arith.addi %q64, %w : i64
    %lt = arith.cmpi ult, %x, %y : i8
    linalg.yield %m, %p, %r32b, %r64, %lt : i8, i16, i32, i64, i1
  } -> (tensor<16xi8>, tensor<16xi16>, tensor<16xi32>, tensor<16xi64>, tensor<16xi1>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<16xi8>, tensor<16xi16>, tensor<16xi32>, tensor<16xi64>, tensor<16xi1>
}

// f16 and f64 through linalg.generic, each at its own precision.
func.func @floats(%h: tensor<9xf16>, %d: tensor<9xf64>) -> (tensor<9xf16>, tensor<9xf64>, tensor<9xbf16>) {
  %eh = tensor.empty() : tensor<9xf16>
  %ed = tensor.empty() : tensor<9xf64>
  %eb = tensor.empty() : tensor<9xbf16>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%h, %d : tensor<9xf16>, tensor<9xf64>) outs(%eh, %ed, %eb : tensor<9xf16>, tensor<9xf64>, tensor<9xbf16>) {
  ^bb0(%x: f16, %y: f64, %o: f16, %p: f64, %q: bf16):
    %t = arith.mulf %x, %x : f16
    %u = math.tanh %x : f16
    %s = arith.addf %t, %u : f16
    %l = math.log1p %y : f64
    %w = math.powf %y, %l : f64
    %yb = arith.truncf %y : f64 to bf16
    %xb = arith.extf %x : f16 to f32
    %xbb = arith.truncf %xb : f32 to bf16
    %b = arith.addf %yb, %xbb : bf16
    linalg.yield %s, %w, %b : f16, f64, bf16
  } -> (tensor<9xf16>, tensor<9xf64>, tensor<9xbf16>)
  return %r#0, %r#1, %r#2 : tensor<9xf16>, tensor<9xf64>, tensor<9xbf16>
}

// A long row sum: in order up to 1024 steps, pairwise beyond.
func.func @longsum(%x: tensor<2x?xf32>) -> tensor<2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.generic {indexing_maps = [#row, #rowout], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x?xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// An f64 matrix-vector product onto an init (the dot-product path).
func.func @matvec64(%m: tensor<5x300xf64>, %v: tensor<300xf64>, %init: tensor<5xf64>) -> tensor<5xf64> {
  %r = linalg.matvec ins(%m, %v : tensor<5x300xf64>, tensor<300xf64>) outs(%init : tensor<5xf64>) -> tensor<5xf64>
  return %r : tensor<5xf64>
}

// Bit counts at three widths (elementwise dispatches).
func.func @bits(%a: tensor<8xi32>, %b: tensor<8xi8>, %c: tensor<8xi64>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<8xi8>, tensor<8xi64>) {
  %p = math.ctpop %a : tensor<8xi32>
  %l = math.ctlz %a : tensor<8xi32>
  %t = math.cttz %a : tensor<8xi32>
  %lb = math.ctlz %b : tensor<8xi8>
  %tb = math.cttz %b : tensor<8xi8>
  %pc = math.ctpop %c : tensor<8xi64>
  return %p, %l, %t, %lb, %tb, %pc : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<8xi8>, tensor<8xi64>
}
