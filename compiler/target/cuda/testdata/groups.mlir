// Row groups: chains of row reductions and their consumer, each formed as
// one dispatch (group_test.go runs them in the PTX interpreter).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#r1 = affine_map<(d0) -> (d0)>

// linalg.softmax, as IREE's tests write it; 1000 is no multiple of the
// block's step.
func.func @softmax(%x: tensor<3x1000xf32>) -> tensor<3x1000xf32> {
  %e = tensor.empty() : tensor<3x1000xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<3x1000xf32>) outs(%e : tensor<3x1000xf32>) -> tensor<3x1000xf32>
  return %s : tensor<3x1000xf32>
}

// A softmax over the last of three dimensions: two row loops.
func.func @softmax3d(%x: tensor<2x3x50xf32>) -> tensor<2x3x50xf32> {
  %e = tensor.empty() : tensor<2x3x50xf32>
  %s = linalg.softmax dimension(2) ins(%x : tensor<2x3x50xf32>) outs(%e : tensor<2x3x50xf32>) -> tensor<2x3x50xf32>
  return %s : tensor<2x3x50xf32>
}

// A layer norm as generics: mean, variance, then the normalization with a
// per-column scale and shift; the per-row divisions are stages of their own.
func.func @layernorm(%x: tensor<4x300xf32>, %gamma: tensor<300xf32>, %beta: tensor<300xf32>) -> tensor<4x300xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 300.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x300xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %r = arith.divf %s, %n : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<4x300xf32>, tensor<4xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %rstd = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%sq : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %v = arith.divf %s, %n : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x300xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %gamma, %beta : tensor<4x300xf32>, tensor<4xf32>, tensor<4xf32>, tensor<300xf32>, tensor<300xf32>) outs(%e2 : tensor<4x300xf32>) {
  ^bb0(%a: f32, %m: f32, %rs: f32, %g: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %t = arith.mulf %d, %rs : f32
    %u = arith.mulf %t, %g : f32
    %r = arith.addf %u, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x300xf32>
  return %y : tensor<4x300xf32>
}

// A reduction the block cannot share (its body uses the accumulator
// twice: acc * 0.5 + x is not associative), then its consumer: the group
// runs it in order in every thread.
func.func @decay(%x: tensor<2x70xf32>) -> tensor<2x70xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e1 = tensor.empty() : tensor<2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %d = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x70xf32>) outs(%z : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %h = arith.mulf %acc, %half : f32
    %r = arith.addf %h, %a : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %e2 = tensor.empty() : tensor<2x70xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %d : tensor<2x70xf32>, tensor<2xf32>) outs(%e2 : tensor<2x70xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x70xf32>
  return %y : tensor<2x70xf32>
}

// The max is a result too: it leaves the chain, so nothing is grouped.
func.func @max_escapes(%x: tensor<2x70xf32>) -> (tensor<2x70xf32>, tensor<2xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x70xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %e2 = tensor.empty() : tensor<2x70xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<2x70xf32>, tensor<2xf32>) outs(%e2 : tensor<2x70xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x70xf32>
  return %y, %m : tensor<2x70xf32>, tensor<2xf32>
}

// A dense layer: the bias add reads the matmul elementwise, which is no
// row group (each "row" would be one output element).
func.func @dense(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%m: f32, %c: f32, %o: f32):
    %r = arith.addf %m, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// Attention's scores: a matmul, then a softmax of its rows. The matmul
// stays a dispatch of its own; the softmax is grouped.
func.func @scores(%q: tensor<8x16xf32>, %k: tensor<16x40xf32>) -> tensor<8x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x40xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x40xf32>) -> tensor<8x40xf32>
  %mm = linalg.matmul ins(%q, %k : tensor<8x16xf32>, tensor<16x40xf32>) outs(%z : tensor<8x40xf32>) -> tensor<8x40xf32>
  %s = linalg.softmax dimension(1) ins(%mm : tensor<8x40xf32>) outs(%e : tensor<8x40xf32>) -> tensor<8x40xf32>
  return %s : tensor<8x40xf32>
}
