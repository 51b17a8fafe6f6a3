// Reductions that a GPU workgroup shares (gpuloops.ReductionOf): the body
// computes a value from the inputs and folds it into the accumulator with
// one associative op. gpu_reductions_test.go runs them on every GPU device
// at row lengths around the warp, workgroup and unrolled-step sizes,
// against Go loops.
#x = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// softmax's denominator: sum over j of exp(x[i,j] - m[i]), from zero.
func.func @sumexp(%x: tensor<?x?xf32>, %m: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %m : tensor<?x?xf32>, tensor<?xf32>) outs(%z : tensor<?xf32>) {
  ^bb0(%in: f32, %mx: f32, %acc: f32):
    %d = arith.subf %in, %mx : f32
    %x1 = math.exp %d : f32
    %s = arith.addf %x1, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// maximumf and minimumf (NaN wins) from -inf and +inf, and maxnumf and
// minnumf (NaN loses) from -2 and 2 (an init the rows may not reach).
func.func @minmax(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %m2 = arith.constant -2.0 : f32
  %p2 = arith.constant 2.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %i1 = linalg.fill ins(%ninf : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %i2 = linalg.fill ins(%pinf : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %i3 = linalg.fill ins(%m2 : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %i4 = linalg.fill ins(%p2 : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r1 = linalg.reduce { arith.maximumf } ins(%x : tensor<?x?xf32>) outs(%i1 : tensor<?xf32>) dimensions = [1]
  %r2 = linalg.reduce { arith.minimumf } ins(%x : tensor<?x?xf32>) outs(%i2 : tensor<?xf32>) dimensions = [1]
  %r3 = linalg.reduce { arith.maxnumf } ins(%x : tensor<?x?xf32>) outs(%i3 : tensor<?xf32>) dimensions = [1]
  %r4 = linalg.reduce { arith.minnumf } ins(%x : tensor<?x?xf32>) outs(%i4 : tensor<?xf32>) dimensions = [1]
  return %r1, %r2, %r3, %r4 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// Integer folds of a value computed from the element: the wrapping sum of
// x*x + j (j the column), the smallest x from 7, and the xor of all x.
func.func @ints(%x: tensor<?x?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %seven = arith.constant 7 : i32
  %n = tensor.dim %x, %c0 : tensor<?x?xi32>
  %e = tensor.empty(%n) : tensor<?xi32>
  %z = arith.constant 0 : i32
  %i0 = linalg.fill ins(%z : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %i7 = linalg.fill ins(%seven : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %r1 = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xi32>) outs(%i0 : tensor<?xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    %sq = arith.muli %in, %in : i32
    %v = arith.addi %sq, %j32 : i32
    %s = arith.addi %acc, %v : i32
    linalg.yield %s : i32
  } -> tensor<?xi32>
  %r2 = linalg.reduce { arith.minsi } ins(%x : tensor<?x?xi32>) outs(%i7 : tensor<?xi32>) dimensions = [1]
  %r3 = linalg.reduce { arith.xori } ins(%x : tensor<?x?xi32>) outs(%i0 : tensor<?xi32>) dimensions = [1]
  return %r1, %r2, %r3 : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}

// A static sum onto a passed init: 3 rows of 1031 (two unrolled steps of
// the Vulkan workgroup and a tail).
func.func @static(%x: tensor<3x1031xf32>, %i: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.reduce { arith.addf } ins(%x : tensor<3x1031xf32>) outs(%i : tensor<3xf32>) dimensions = [1]
  return %r : tensor<3xf32>
}

// Rows of a batch: a workgroup owns a whole batch entry's rows, so each
// warp (subgroup) reduces rows of its own (gpuloops.WarpRows): the sum of
// exp(x - m) from zero and maximumf from -inf, over the last dimension.
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @batch(%x: tensor<?x?x?xf32>, %m: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %e = tensor.empty(%b, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [#x3, #row3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %m : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%z : tensor<?x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %acc: f32):
    %d = arith.subf %in, %mx : f32
    %x1 = math.exp %d : f32
    %r = arith.addf %x1, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mx = linalg.reduce { arith.maximumf } ins(%x : tensor<?x?x?xf32>) outs(%i : tensor<?x?xf32>) dimensions = [2]
  return %s, %mx : tensor<?x?xf32>, tensor<?x?xf32>
}
