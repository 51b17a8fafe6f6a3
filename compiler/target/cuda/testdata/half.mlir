// 16-bit floats on cuda: elementwise loop nests over f16 and bf16 (ops
// that round, compare, select), generated elementwise dispatches that
// convert, a broadcast loop nest,
// row reductions (f16 in with an f32 sum, f16 sums and maxima, bf16 sums)
// and conversions between the 16-bit floats, f32, f64 and integers.

#id = affine_map<(d0) -> (d0)>
func.func @ops_f16(%x: tensor<600xf16>, %y: tensor<600xf16>, %z: tensor<600xf16>) -> (tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>) {
  %e = tensor.empty() : tensor<600xf16>
  %r:7 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %z : tensor<600xf16>, tensor<600xf16>, tensor<600xf16>) outs(%e, %e, %e, %e, %e, %e, %e : tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>) {
  ^bb0(%a: f16, %b: f16, %c: f16, %o0: f16, %o1: f16, %o2: f16, %o3: f16, %o4: f16, %o5: f16, %o6: f16):
    %tenth = arith.constant 0.1 : f16
    %fma = math.fma %a, %b, %c : f16
    %s = arith.addf %a, %b : f16
    %p = arith.mulf %s, %a : f16
    %q = arith.divf %b, %a : f16
    %chain = arith.subf %p, %q : f16
    %max = arith.maximumf %a, %b : f16
    %min = arith.minnumf %a, %b : f16
    %lt = arith.cmpf olt, %a, %b : f16
    %neg = arith.negf %a : f16
    %abs = math.absf %b : f16
    %sel = arith.select %lt, %neg, %abs : f16
    %aa = math.absf %a : f16
    %sqrt = math.sqrt %aa : f16
    %scaled = arith.mulf %a, %tenth : f16
    linalg.yield %fma, %chain, %max, %min, %sel, %sqrt, %scaled : f16, f16, f16, f16, f16, f16, f16
  } -> (tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6 : tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>
}

func.func @ops_bf16(%x: tensor<600xbf16>, %y: tensor<600xbf16>, %z: tensor<600xbf16>) -> (tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>) {
  %e = tensor.empty() : tensor<600xbf16>
  %r:7 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %z : tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>) outs(%e, %e, %e, %e, %e, %e, %e : tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16, %o0: bf16, %o1: bf16, %o2: bf16, %o3: bf16, %o4: bf16, %o5: bf16, %o6: bf16):
    %tenth = arith.constant 0.1 : bf16
    %fma = math.fma %a, %b, %c : bf16
    %s = arith.addf %a, %b : bf16
    %p = arith.mulf %s, %a : bf16
    %q = arith.divf %b, %a : bf16
    %chain = arith.subf %p, %q : bf16
    %max = arith.maximumf %a, %b : bf16
    %min = arith.minnumf %a, %b : bf16
    %lt = arith.cmpf olt, %a, %b : bf16
    %neg = arith.negf %a : bf16
    %abs = math.absf %b : bf16
    %sel = arith.select %lt, %neg, %abs : bf16
    %aa = math.absf %a : bf16
    %sqrt = math.sqrt %aa : bf16
    %scaled = arith.mulf %a, %tenth : bf16
    linalg.yield %fma, %chain, %max, %min, %sel, %sqrt, %scaled : bf16, bf16, bf16, bf16, bf16, bf16, bf16
  } -> (tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6 : tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>, tensor<600xbf16>
}

// Conversions: f32 and f64 rounded to f16 and bf16, the 16-bit floats
// extended to f32 and f64, and integers to and from them.
func.func @conv(%a: tensor<?xf32>, %d: tensor<?xf64>, %h: tensor<?xf16>, %g: tensor<?xbf16>, %i: tensor<?xi32>) -> (tensor<?xf16>, tensor<?xbf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64>, tensor<?xf32>, tensor<?xf64>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xi32>, tensor<?xi32>) {
  %a16 = arith.truncf %a : tensor<?xf32> to tensor<?xf16>
  %ab = arith.truncf %a : tensor<?xf32> to tensor<?xbf16>
  %d16 = arith.truncf %d : tensor<?xf64> to tensor<?xf16>
  %db = arith.truncf %d : tensor<?xf64> to tensor<?xbf16>
  %h32 = arith.extf %h : tensor<?xf16> to tensor<?xf32>
  %h64 = arith.extf %h : tensor<?xf16> to tensor<?xf64>
  %g32 = arith.extf %g : tensor<?xbf16> to tensor<?xf32>
  %g64 = arith.extf %g : tensor<?xbf16> to tensor<?xf64>
  %i16 = arith.sitofp %i : tensor<?xi32> to tensor<?xf16>
  %ib = arith.sitofp %i : tensor<?xi32> to tensor<?xbf16>
  %ub = arith.uitofp %i : tensor<?xi32> to tensor<?xbf16>
  %hi = arith.fptosi %h : tensor<?xf16> to tensor<?xi32>
  %gi = arith.fptosi %g : tensor<?xbf16> to tensor<?xi32>
  return %a16, %ab, %d16, %db, %h32, %h64, %g32, %g64, %i16, %ib, %ub, %hi, %gi : tensor<?xf16>, tensor<?xbf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64>, tensor<?xf32>, tensor<?xf64>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xi32>, tensor<?xi32>
}

// x * b + 0.5 with b broadcast along the rows, in f16 and in bf16: loop
// nests without reduction loops (four iterations per thread per step).
#rows = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @bcast(%x: tensor<5x300xf16>, %b: tensor<300xf16>, %xb: tensor<5x300xbf16>, %bb: tensor<300xbf16>) -> (tensor<5x300xf16>, tensor<5x300xbf16>) {
  %e = tensor.empty() : tensor<5x300xf16>
  %r = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<5x300xf16>, tensor<300xf16>) outs(%e : tensor<5x300xf16>) {
  ^bb0(%u: f16, %v: f16, %o: f16):
    %half = arith.constant 0.5 : f16
    %m = arith.mulf %u, %v : f16
    %s = arith.addf %m, %half : f16
    linalg.yield %s : f16
  } -> tensor<5x300xf16>
  %eb = tensor.empty() : tensor<5x300xbf16>
  %rb = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]} ins(%xb, %bb : tensor<5x300xbf16>, tensor<300xbf16>) outs(%eb : tensor<5x300xbf16>) {
  ^bb0(%u: bf16, %v: bf16, %o: bf16):
    %half = arith.constant 0.5 : bf16
    %m = arith.mulf %u, %v : bf16
    %s = arith.addf %m, %half : bf16
    linalg.yield %s : bf16
  } -> tensor<5x300xbf16>
  return %r, %rb : tensor<5x300xf16>, tensor<5x300xbf16>
}

// Row reductions shared by a block: the f16 rows summed in f32 (extf in
// the body), summed in f16, and their largest elements; the bf16 rows
// summed in bf16.
#red = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: tensor<6x700xf16>, %y: tensor<6x700xbf16>) -> (tensor<6xf32>, tensor<6xf16>, tensor<6xf16>, tensor<6xbf16>) {
  %z32 = arith.constant 0.0 : f32
  %z16 = arith.constant 0.0 : f16
  %ninf = arith.constant 0xFC00 : f16
  %zb = arith.constant 0.0 : bf16
  %e32 = tensor.empty() : tensor<6xf32>
  %i32 = linalg.fill ins(%z32 : f32) outs(%e32 : tensor<6xf32>) -> tensor<6xf32>
  %wide = linalg.generic {indexing_maps = [#rows, #red], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x700xf16>) outs(%i32 : tensor<6xf32>) {
  ^bb0(%u: f16, %acc: f32):
    %w = arith.extf %u : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %e16 = tensor.empty() : tensor<6xf16>
  %i16 = linalg.fill ins(%z16 : f16) outs(%e16 : tensor<6xf16>) -> tensor<6xf16>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<6x700xf16>) outs(%i16 : tensor<6xf16>) dimensions = [1]
  %im = linalg.fill ins(%ninf : f16) outs(%e16 : tensor<6xf16>) -> tensor<6xf16>
  %max = linalg.reduce { arith.maximumf } ins(%x : tensor<6x700xf16>) outs(%im : tensor<6xf16>) dimensions = [1]
  %eb = tensor.empty() : tensor<6xbf16>
  %ib = linalg.fill ins(%zb : bf16) outs(%eb : tensor<6xbf16>) -> tensor<6xbf16>
  %sb = linalg.reduce { arith.addf } ins(%y : tensor<6x700xbf16>) outs(%ib : tensor<6xbf16>) dimensions = [1]
  return %wide, %sum, %max, %sb : tensor<6xf32>, tensor<6xf16>, tensor<6xf16>, tensor<6xbf16>
}

// Many short rows: a warp per output element.
func.func @short_rows(%x: tensor<300x40xf16>) -> tensor<300xf16> {
  %z16 = arith.constant 0.0 : f16
  %e16 = tensor.empty() : tensor<300xf16>
  %i16 = linalg.fill ins(%z16 : f16) outs(%e16 : tensor<300xf16>) -> tensor<300xf16>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<300x40xf16>) outs(%i16 : tensor<300xf16>) dimensions = [1]
  return %sum : tensor<300xf16>
}

// A matmul in f16, which the tiled kernel does not take: the generic
// nest runs it, each product and sum rounded to f16.
func.func @matmul_f16(%a: tensor<9x13xf16>, %b: tensor<13x7xf16>) -> tensor<9x7xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<9x7xf16>
  %i = linalg.fill ins(%z : f16) outs(%e : tensor<9x7xf16>) -> tensor<9x7xf16>
  %r = linalg.matmul ins(%a, %b : tensor<9x13xf16>, tensor<13x7xf16>) outs(%i : tensor<9x7xf16>) -> tensor<9x7xf16>
  return %r : tensor<9x7xf16>
}

// The rest of the ops on f16: rounding to integers, exp, bit casts to and
// from i16, fptoui, uitofp from i8, sitofp from i64 to bf16 and extf to
// f64 in a loop nest.
func.func @misc(%x: tensor<600xf16>, %k: tensor<600xi8>, %w: tensor<600xi64>) -> (tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xi16>, tensor<600xf16>, tensor<600xi32>, tensor<600xf16>, tensor<600xbf16>, tensor<600xf64>) {
  %e = tensor.empty() : tensor<600xf16>
  %e16 = tensor.empty() : tensor<600xi16>
  %e32 = tensor.empty() : tensor<600xi32>
  %eb = tensor.empty() : tensor<600xbf16>
  %e64 = tensor.empty() : tensor<600xf64>
  %r:10 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %k, %w : tensor<600xf16>, tensor<600xi8>, tensor<600xi64>) outs(%e, %e, %e, %e, %e16, %e, %e32, %e, %eb, %e64 : tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xi16>, tensor<600xf16>, tensor<600xi32>, tensor<600xf16>, tensor<600xbf16>, tensor<600xf64>) {
  ^bb0(%a: f16, %b: i8, %c: i64, %o0: f16, %o1: f16, %o2: f16, %o3: f16, %o4: i16, %o5: f16, %o6: i32, %o7: f16, %o8: bf16, %o9: f64):
    %fl = math.floor %a : f16
    %ce = math.ceil %a : f16
    %tr = math.trunc %a : f16
    %ex = math.exp %a : f16
    %bits = arith.bitcast %a : f16 to i16
    %one = arith.constant 1 : i16
    %next = arith.addi %bits, %one : i16
    %up = arith.bitcast %next : i16 to f16
    %abs = math.absf %a : f16
    %u = arith.fptoui %abs : f16 to i32
    %kf = arith.uitofp %b : i8 to f16
    %wf = arith.sitofp %c : i64 to bf16
    %x64 = arith.extf %a : f16 to f64
    linalg.yield %fl, %ce, %tr, %ex, %bits, %up, %u, %kf, %wf, %x64 : f16, f16, f16, f16, i16, f16, i32, f16, bf16, f64
  } -> (tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xi16>, tensor<600xf16>, tensor<600xi32>, tensor<600xf16>, tensor<600xbf16>, tensor<600xf64>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9 : tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xf16>, tensor<600xi16>, tensor<600xf16>, tensor<600xi32>, tensor<600xf16>, tensor<600xbf16>, tensor<600xf64>
}
