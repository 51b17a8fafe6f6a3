// Row groups on llvm-cpu (group_test.go runs each function's one
// dispatch against Go loops). With 64 workgroups a workgroup owns many
// rows when there are more than 64, and the last workgroup fewer.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#r1 = affine_map<(d0) -> (d0)>

// 1000 short rows: 16 a workgroup, 8 in the last.
func.func @softmax(%x: tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  %e = tensor.empty() : tensor<1000x37xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<1000x37xf32>) outs(%e : tensor<1000x37xf32>) -> tensor<1000x37xf32>
  return %s : tensor<1000x37xf32>
}

// Rows longer than the pairwise threshold and no multiple of a chunk.
func.func @softmax_long(%x: tensor<3x3000xf32>) -> tensor<3x3000xf32> {
  %e = tensor.empty() : tensor<3x3000xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<3x3000xf32>) outs(%e : tensor<3x3000xf32>) -> tensor<3x3000xf32>
  return %s : tensor<3x3000xf32>
}

// Two row loops, 390 rows: 7 a workgroup, a workgroup's rows crossing
// the first row loop.
func.func @softmax3d(%x: tensor<13x30x41xf32>) -> tensor<13x30x41xf32> {
  %e = tensor.empty() : tensor<13x30x41xf32>
  %s = linalg.softmax dimension(2) ins(%x : tensor<13x30x41xf32>) outs(%e : tensor<13x30x41xf32>) -> tensor<13x30x41xf32>
  return %s : tensor<13x30x41xf32>
}

// f16 in and out: the row's max and sum are f16 values.
func.func @softmax_f16(%x: tensor<6x300xf16>) -> tensor<6x300xf16> {
  %e = tensor.empty() : tensor<6x300xf16>
  %s = linalg.softmax dimension(1) ins(%x : tensor<6x300xf16>) outs(%e : tensor<6x300xf16>) -> tensor<6x300xf16>
  return %s : tensor<6x300xf16>
}

// A layer norm over 130 rows (3 a workgroup): the mean and the inverse
// standard deviation are per-row stages between two row reductions.
func.func @layernorm(%x: tensor<130x384xf32>, %gamma: tensor<384xf32>, %beta: tensor<384xf32>) -> tensor<130x384xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 384.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<130xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<130xf32>) -> tensor<130xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<130x384xf32>) outs(%z : tensor<130xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<130xf32>
  %mean = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%sum : tensor<130xf32>) outs(%e1 : tensor<130xf32>) {
  ^bb0(%s: f32, %o: f32):
    %r = arith.divf %s, %n : f32
    linalg.yield %r : f32
  } -> tensor<130xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<130x384xf32>, tensor<130xf32>) outs(%z : tensor<130xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<130xf32>
  %rstd = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%sq : tensor<130xf32>) outs(%e1 : tensor<130xf32>) {
  ^bb0(%s: f32, %o: f32):
    %v = arith.divf %s, %n : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<130xf32>
  %e2 = tensor.empty() : tensor<130x384xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %gamma, %beta : tensor<130x384xf32>, tensor<130xf32>, tensor<130xf32>, tensor<384xf32>, tensor<384xf32>) outs(%e2 : tensor<130x384xf32>) {
  ^bb0(%a: f32, %m: f32, %rs: f32, %g: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %t = arith.mulf %d, %rs : f32
    %u = arith.mulf %t, %g : f32
    %r = arith.addf %u, %b : f32
    linalg.yield %r : f32
  } -> tensor<130x384xf32>
  return %y : tensor<130x384xf32>
}

// A reduction that cannot be reassociated (acc * k + x), k a scalar
// argument and so a push constant, and its consumer.
func.func @decay(%x: tensor<70x200xf32>, %k: f32) -> tensor<70x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<70xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<70xf32>) -> tensor<70xf32>
  %d = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<70x200xf32>) outs(%z : tensor<70xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %h = arith.mulf %acc, %k : f32
    %r = arith.addf %h, %a : f32
    linalg.yield %r : f32
  } -> tensor<70xf32>
  %e2 = tensor.empty() : tensor<70x200xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %d : tensor<70x200xf32>, tensor<70xf32>) outs(%e2 : tensor<70x200xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<70x200xf32>
  return %y : tensor<70x200xf32>
}
