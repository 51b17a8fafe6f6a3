// Loop-nest kernels for the cuda target: a matmul with dynamic sizes, an
// elementwise generic over narrow integers (i8, i16 and i1 results) with a
// scalar argument, and a row reduction in f64.
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// For each i: x[i] truncated to i8, y[i] + y[i] wrapped in i16 plus the
// loop index, x[i] < y[i] (signed), and (x[i] as u8) / (k as u8).
#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @narrow(%x: tensor<37xi32>, %y: tensor<37xi16>, %k: i32) -> (tensor<37xi8>, tensor<37xi16>, tensor<37xi1>, tensor<37xi8>) {
  %e8 = tensor.empty() : tensor<37xi8>
  %e16 = tensor.empty() : tensor<37xi16>
  %e1 = tensor.empty() : tensor<37xi1>
  %r:4 = linalg.generic {indexing_maps = [#id, #id, #scalar, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %k : tensor<37xi32>, tensor<37xi16>, i32) outs(%e8, %e16, %e1, %e8 : tensor<37xi8>, tensor<37xi16>, tensor<37xi1>, tensor<37xi8>) {
  ^bb0(%a: i32, %b: i16, %k32: i32, %o1: i8, %o2: i16, %o3: i1, %o4: i8):
    %t = arith.trunci %a : i32 to i8
    %d = arith.addi %b, %b : i16
    %i = linalg.index 0 : index
    %i16 = arith.index_cast %i : index to i16
    %d2 = arith.addi %d, %i16 : i16
    %w = arith.extsi %b : i16 to i32
    %lt = arith.cmpi slt, %a, %w : i32
    %s = arith.trunci %k32 : i32 to i8
    %q = arith.divui %t, %s : i8
    linalg.yield %t, %d2, %lt, %q : i8, i16, i1, i8
  } -> (tensor<37xi8>, tensor<37xi16>, tensor<37xi1>, tensor<37xi8>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<37xi8>, tensor<37xi16>, tensor<37xi1>, tensor<37xi8>
}

// The largest element of each row, in f64.
func.func @rowmax(%x: tensor<5x300xf64>) -> tensor<5xf64> {
  %lowest = arith.constant -1.0e+300 : f64
  %e = tensor.empty() : tensor<5xf64>
  %i = linalg.fill ins(%lowest : f64) outs(%e : tensor<5xf64>) -> tensor<5xf64>
  %r = linalg.reduce { arith.maxnumf } ins(%x : tensor<5x300xf64>) outs(%i : tensor<5xf64>) dimensions = [1]
  return %r : tensor<5xf64>
}

// Row reductions long enough to be shared by a workgroup's invocations:
// the sum of each row of a ?x? f32 tensor plus 0.5, and the largest
// element of each row of a ?x? i32 tensor, starting from -5.
func.func @rows(%x: tensor<?x?xf32>, %y: tensor<?x?xi32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %m5 = arith.constant -5 : i32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %ny = tensor.dim %y, %c0 : tensor<?x?xi32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %i = linalg.fill ins(%half : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce { arith.addf } ins(%x : tensor<?x?xf32>) outs(%i : tensor<?xf32>) dimensions = [1]
  %ei = tensor.empty(%ny) : tensor<?xi32>
  %ii = linalg.fill ins(%m5 : i32) outs(%ei : tensor<?xi32>) -> tensor<?xi32>
  %mx = linalg.reduce { arith.maxsi } ins(%y : tensor<?x?xi32>) outs(%ii : tensor<?xi32>) dimensions = [1]
  return %s, %mx : tensor<?xf32>, tensor<?xi32>
}

// Matmul-shaped kernels tiled in shared memory: a batch matmul with partial
// blocks in every direction, a matmul whose workgroups own 33 rows each,
// and an i32 max-plus product (a body that is not a multiply-add).
func.func @tiled(%a: tensor<2x45x70xf32>, %b: tensor<2x70x67xf32>, %c: tensor<2050x20xf32>, %d: tensor<20x70xf32>, %p: tensor<9x33xi32>, %q: tensor<33x130xi32>) -> (tensor<2x45x67xf32>, tensor<2050x70xf32>, tensor<9x130xi32>) {
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -100000 : i32
  %e1 = tensor.empty() : tensor<2x45x67xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x45x67xf32>) -> tensor<2x45x67xf32>
  %bm = linalg.batch_matmul ins(%a, %b : tensor<2x45x70xf32>, tensor<2x70x67xf32>) outs(%z1 : tensor<2x45x67xf32>) -> tensor<2x45x67xf32>
  %e2 = tensor.empty() : tensor<2050x70xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2050x70xf32>) -> tensor<2050x70xf32>
  %mm = linalg.matmul ins(%c, %d : tensor<2050x20xf32>, tensor<20x70xf32>) outs(%z2 : tensor<2050x70xf32>) -> tensor<2050x70xf32>
  %e3 = tensor.empty() : tensor<9x130xi32>
  %z3 = linalg.fill ins(%low : i32) outs(%e3 : tensor<9x130xi32>) -> tensor<9x130xi32>
  %mp = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %q : tensor<9x33xi32>, tensor<33x130xi32>) outs(%z3 : tensor<9x130xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %s = arith.addi %x, %y : i32
    %m = arith.maxsi %acc, %s : i32
    linalg.yield %m : i32
  } -> tensor<9x130xi32>
  return %bm, %mm, %mp : tensor<2x45x67xf32>, tensor<2050x70xf32>, tensor<9x130xi32>
}

// A sliding-window weighted sum: the input index i + 2 * k is checked
// against the dynamic input size before anything is read.
func.func @window(%x: tensor<?xf32>, %w: tensor<3xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + 2 * k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x, %w : tensor<?xf32>, tensor<3xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %wk: f32, %acc: f32):
    %p = arith.mulf %in, %wk : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
