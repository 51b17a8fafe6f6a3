// Elementwise ops after a matmul or a reduction, which dispatch creation
// folds into the reduction's dispatch as its epilogue (one dispatch per
// function below unless a comment says otherwise). Each function is
// checked against a Go loop by TestLinalgEpilogue.
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#v = affine_map<(d0) -> (d0)>

// relu(x @ w + b) as two generics (bias, then relu), shapes that leave
// partial register tiles and K slices: the matmul micro-kernel's path.
func.func @dense(%x: tensor<67x300xf32>, %w: tensor<300x45xf32>, %b: tensor<45xf32>) -> tensor<67x45xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<67x300xf32>, tensor<300x45xf32>) outs(%acc : tensor<67x45xf32>) -> tensor<67x45xf32>
  %biased = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<67x45xf32>, tensor<45xf32>) outs(%e : tensor<67x45xf32>) {
  ^bb0(%m: f32, %bv: f32, %o: f32):
    %s = arith.addf %m, %bv : f32
    linalg.yield %s : f32
  } -> tensor<67x45xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<67x45xf32>) outs(%e : tensor<67x45xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<67x45xf32>
  return %relu : tensor<67x45xf32>
}

// c + a @ b, then a residual r added through the consumer's output
// operand (its body reads %o), then scaled by the column index (the
// consumer's loops run transposed: its d0 is the column).
func.func @residual(%a: tensor<20x33xf32>, %b: tensor<33x50xf32>, %c: tensor<20x50xf32>, %r: tensor<20x50xf32>) -> tensor<20x50xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<20x33xf32>, tensor<33x50xf32>) outs(%c : tensor<20x50xf32>) -> tensor<20x50xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<20x50xf32>) outs(%r : tensor<20x50xf32>) {
  ^bb0(%m: f32, %o: f32):
    %s = arith.addf %m, %o : f32
    linalg.yield %s : f32
  } -> tensor<20x50xf32>
  %e = tensor.empty() : tensor<20x50xf32>
  %scaled = linalg.generic {indexing_maps = [#tr, #tr], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<20x50xf32>) outs(%e : tensor<20x50xf32>) {
  ^bb0(%v: f32, %o: f32):
    %j = linalg.index 0 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %y = arith.mulf %v, %jf : f32
    linalg.yield %y : f32
  } -> tensor<20x50xf32>
  return %scaled : tensor<20x50xf32>
}

// A batch of matmuls, plus a bias per column and times a scale per
// batch: the micro-kernel's tiles know their batch.
func.func @batch(%a: tensor<3x10x40xf32>, %b: tensor<3x40x27xf32>, %bias: tensor<27xf32>, %s: tensor<3xf32>) -> tensor<3x10x27xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x10x27xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x10x27xf32>) -> tensor<3x10x27xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<3x10x40xf32>, tensor<3x40x27xf32>) outs(%acc : tensor<3x10x27xf32>) -> tensor<3x10x27xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm, %bias, %s : tensor<3x10x27xf32>, tensor<27xf32>, tensor<3xf32>) outs(%e : tensor<3x10x27xf32>) {
  ^bb0(%m: f32, %bv: f32, %sv: f32, %o: f32):
    %t = arith.addf %m, %bv : f32
    %u = arith.mulf %t, %sv : f32
    linalg.yield %u : f32
  } -> tensor<3x10x27xf32>
  return %y : tensor<3x10x27xf32>
}

// Row sums (long rows: the pairwise reduction), scaled by 0.5 and a
// per-row factor.
func.func @rowsum_scale(%x: tensor<5x3000xf32>, %s: tensor<5xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %sum = linalg.reduce ins(%x : tensor<5x3000xf32>) outs(%acc : tensor<5xf32>) dimensions = [1] (%in: f32, %a: f32) {
    %t = arith.addf %in, %a : f32
    linalg.yield %t : f32
  }
  %y = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%sum, %s : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%v: f32, %f: f32, %o: f32):
    %h = arith.mulf %v, %half : f32
    %m = arith.mulf %h, %f : f32
    linalg.yield %m : f32
  } -> tensor<5xf32>
  return %y : tensor<5xf32>
}

// Column sums (the reduction loop outside the contiguous column loop),
// plus a bias: the epilogue runs over each finished row of sums.
func.func @colsum_bias(%x: tensor<40x70xf32>, %b: tensor<70xf32>) -> tensor<70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<70xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<70xf32>) -> tensor<70xf32>
  %sum = linalg.reduce ins(%x : tensor<40x70xf32>) outs(%acc : tensor<70xf32>) dimensions = [0] (%in: f32, %a: f32) {
    %t = arith.addf %in, %a : f32
    linalg.yield %t : f32
  }
  %y = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%sum, %b : tensor<70xf32>, tensor<70xf32>) outs(%e : tensor<70xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %t = arith.addf %v, %bv : f32
    linalg.yield %t : f32
  } -> tensor<70xf32>
  return %y : tensor<70xf32>
}

// Accumulated in f32, stored as f16: the matmul (its blocks accumulate
// apart from the output, over two K slices), and column sums (whose
// accumulators cannot live in the f16 output either).
func.func @dense_f16(%x: tensor<37x300xf32>, %w: tensor<300x45xf32>, %b: tensor<45xf32>) -> tensor<37x45xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x45xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<37x45xf32>) -> tensor<37x45xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<37x300xf32>, tensor<300x45xf32>) outs(%acc : tensor<37x45xf32>) -> tensor<37x45xf32>
  %h = tensor.empty() : tensor<37x45xf16>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<37x45xf32>, tensor<45xf32>) outs(%h : tensor<37x45xf16>) {
  ^bb0(%m: f32, %bv: f32, %o: f16):
    %s = arith.addf %m, %bv : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<37x45xf16>
  return %y : tensor<37x45xf16>
}

func.func @colsum_f16(%x: tensor<30x21xf32>) -> tensor<21xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<21xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<21xf32>) -> tensor<21xf32>
  %sum = linalg.reduce ins(%x : tensor<30x21xf32>) outs(%acc : tensor<21xf32>) dimensions = [0] (%in: f32, %a: f32) {
    %t = arith.addf %in, %a : f32
    linalg.yield %t : f32
  }
  %h = tensor.empty() : tensor<21xf16>
  %y = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%sum : tensor<21xf32>) outs(%h : tensor<21xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<21xf16>
  return %y : tensor<21xf16>
}

// i8 x i8 accumulated in i32, plus an i32 bias, relu, then narrowed to
// i8 with saturation at 127 (a quantized dense layer's shape).
func.func @dense_i8(%x: tensor<6x11xi8>, %w: tensor<11x7xi8>, %b: tensor<7xi32>) -> tensor<6x7xi8> {
  %zero = arith.constant 0 : i32
  %top = arith.constant 127 : i32
  %e = tensor.empty() : tensor<6x7xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%e : tensor<6x7xi32>) -> tensor<6x7xi32>
  %mm = linalg.matmul ins(%x, %w : tensor<6x11xi8>, tensor<11x7xi8>) outs(%acc : tensor<6x7xi32>) -> tensor<6x7xi32>
  %q = tensor.empty() : tensor<6x7xi8>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<6x7xi32>, tensor<7xi32>) outs(%q : tensor<6x7xi8>) {
  ^bb0(%m: i32, %bv: i32, %o: i8):
    %s = arith.addi %m, %bv : i32
    %r = arith.maxsi %s, %zero : i32
    %c = arith.minsi %r, %top : i32
    %t = arith.trunci %c : i32 to i8
    linalg.yield %t : i8
  } -> tensor<6x7xi8>
  return %y : tensor<6x7xi8>
}

// relu(x @ w + b) with every size dynamic.
func.func @dense_dyn(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// Not folded: the matmul's result is also returned (two dispatches).
func.func @used_twice(%a: tensor<8x5xf32>, %b: tensor<5x6xf32>) -> (tensor<8x6xf32>, tensor<8x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x5xf32>, tensor<5x6xf32>) outs(%acc : tensor<8x6xf32>) -> tensor<8x6xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %v, %v : f32
    linalg.yield %t : f32
  } -> tensor<8x6xf32>
  return %mm, %d : tensor<8x6xf32>, tensor<8x6xf32>
}

// Not folded: the consumer broadcasts the row sums over a bigger shape
// (x minus its row sum).
func.func @other_shape(%x: tensor<4x9xf32>) -> tensor<4x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce ins(%x : tensor<4x9xf32>) outs(%acc : tensor<4xf32>) dimensions = [1] (%in: f32, %a: f32) {
    %t = arith.addf %in, %a : f32
    linalg.yield %t : f32
  }
  %e2 = tensor.empty() : tensor<4x9xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x9xf32>, tensor<4xf32>) outs(%e2 : tensor<4x9xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %t = arith.subf %v, %s : f32
    linalg.yield %t : f32
  } -> tensor<4x9xf32>
  return %y : tensor<4x9xf32>
}

// Not folded: the consumer reads the matmul's result transposed.
func.func @transposed(%a: tensor<7x3xf32>, %b: tensor<3x7xf32>) -> tensor<7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<7x7xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<7x7xf32>) -> tensor<7x7xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<7x3xf32>, tensor<3x7xf32>) outs(%acc : tensor<7x7xf32>) -> tensor<7x7xf32>
  %y = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<7x7xf32>) outs(%e : tensor<7x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.negf %v : f32
    linalg.yield %t : f32
  } -> tensor<7x7xf32>
  return %y : tensor<7x7xf32>
}
