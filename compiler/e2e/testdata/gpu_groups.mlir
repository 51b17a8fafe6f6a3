// Row groups: chains of row reductions and their consumer that dispatch
// formation puts in one dispatch on GPU targets (gpu_groups_test.go runs
// them on cuda and vulkan-spirv against Go loops).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#r1 = affine_map<(d0) -> (d0)>

// linalg.softmax over rows; 1000 is no multiple of a workgroup's step.
func.func @softmax(%x: tensor<37x1000xf32>) -> tensor<37x1000xf32> {
  %e = tensor.empty() : tensor<37x1000xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<37x1000xf32>) outs(%e : tensor<37x1000xf32>) -> tensor<37x1000xf32>
  return %s : tensor<37x1000xf32>
}

// Few long rows.
func.func @softmax_long(%x: tensor<4x8192xf32>) -> tensor<4x8192xf32> {
  %e = tensor.empty() : tensor<4x8192xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x8192xf32>) outs(%e : tensor<4x8192xf32>) -> tensor<4x8192xf32>
  return %s : tensor<4x8192xf32>
}

// More rows than a grid's 65,535 workgroups in x, each shorter than a
// workgroup.
func.func @softmax_many(%x: tensor<70000x5xf32>) -> tensor<70000x5xf32> {
  %e = tensor.empty() : tensor<70000x5xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<70000x5xf32>) outs(%e : tensor<70000x5xf32>) -> tensor<70000x5xf32>
  return %s : tensor<70000x5xf32>
}

// A softmax over the last of three dimensions: two row loops.
func.func @softmax3d(%x: tensor<3x5x77xf32>) -> tensor<3x5x77xf32> {
  %e = tensor.empty() : tensor<3x5x77xf32>
  %s = linalg.softmax dimension(2) ins(%x : tensor<3x5x77xf32>) outs(%e : tensor<3x5x77xf32>) -> tensor<3x5x77xf32>
  return %s : tensor<3x5x77xf32>
}

// f16 in and out.
func.func @softmax_f16(%x: tensor<6x300xf16>) -> tensor<6x300xf16> {
  %e = tensor.empty() : tensor<6x300xf16>
  %s = linalg.softmax dimension(1) ins(%x : tensor<6x300xf16>) outs(%e : tensor<6x300xf16>) -> tensor<6x300xf16>
  return %s : tensor<6x300xf16>
}

// A softmax written as generics: the row max from -inf, the sum of
// exp(x - max) in one generic, and exp(x - max) / sum.
func.func @softmax_generic(%x: tensor<9x517xf32>) -> tensor<9x517xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<9xf32>
  %e2 = tensor.empty() : tensor<9x517xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<9xf32>) -> tensor<9xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<9x517xf32>) outs(%mi : tensor<9xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<9xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%e1 : tensor<9xf32>) -> tensor<9xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<9x517xf32>, tensor<9xf32>) outs(%zi : tensor<9xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %p = math.exp %d : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<9xf32>
  %out = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : tensor<9x517xf32>, tensor<9xf32>, tensor<9xf32>) outs(%e2 : tensor<9x517xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %p = math.exp %d : f32
    %q = arith.divf %p, %s : f32
    linalg.yield %q : f32
  } -> tensor<9x517xf32>
  return %out : tensor<9x517xf32>
}

// A layer norm: the mean, the variance about it, then the normalization
// scaled and shifted per column by gamma and beta.
func.func @layernorm(%x: tensor<7x384xf32>, %gamma: tensor<384xf32>, %beta: tensor<384xf32>) -> tensor<7x384xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 384.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<7xf32>) -> tensor<7xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x384xf32>) outs(%z : tensor<7xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<7xf32>
  %mean = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%sum : tensor<7xf32>) outs(%e1 : tensor<7xf32>) {
  ^bb0(%s: f32, %o: f32):
    %r = arith.divf %s, %n : f32
    linalg.yield %r : f32
  } -> tensor<7xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<7x384xf32>, tensor<7xf32>) outs(%z : tensor<7xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<7xf32>
  %rstd = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%sq : tensor<7xf32>) outs(%e1 : tensor<7xf32>) {
  ^bb0(%s: f32, %o: f32):
    %v = arith.divf %s, %n : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<7xf32>
  %e2 = tensor.empty() : tensor<7x384xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %gamma, %beta : tensor<7x384xf32>, tensor<7xf32>, tensor<7xf32>, tensor<384xf32>, tensor<384xf32>) outs(%e2 : tensor<7x384xf32>) {
  ^bb0(%a: f32, %m: f32, %rs: f32, %g: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %t = arith.mulf %d, %rs : f32
    %u = arith.mulf %t, %g : f32
    %r = arith.addf %u, %b : f32
    linalg.yield %r : f32
  } -> tensor<7x384xf32>
  return %y : tensor<7x384xf32>
}

// A reduction that is not reassociable (acc * k + x uses the
// accumulator beyond the combiner) and its consumer; k is a scalar
// argument, a push constant of the dispatch.
func.func @decay(%x: tensor<5x200xf32>, %half: f32) -> tensor<5x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<5xf32>) -> tensor<5xf32>
  %d = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x200xf32>) outs(%z : tensor<5xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %h = arith.mulf %acc, %half : f32
    %r = arith.addf %h, %a : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %e2 = tensor.empty() : tensor<5x200xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %d : tensor<5x200xf32>, tensor<5xf32>) outs(%e2 : tensor<5x200xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<5x200xf32>
  return %y : tensor<5x200xf32>
}
