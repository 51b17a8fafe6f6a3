// Dynamic shapes: the sizes reach the kernels as push constants.
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

// Sum of each row of a ?x8 tensor, then the transpose of the input.
func.func @rowsum_transpose(%x: tensor<?x8xf32>) -> (tensor<?xf32>, tensor<8x?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %rows = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%rows) : tensor<?xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce { arith.addf } ins(%x : tensor<?x8xf32>) outs(%i : tensor<?xf32>) dimensions = [1]
  %et = tensor.empty(%rows) : tensor<8x?xf32>
  %t = linalg.transpose ins(%x : tensor<?x8xf32>) outs(%et : tensor<8x?xf32>) permutation = [1, 0]
  return %s, %t : tensor<?xf32>, tensor<8x?xf32>
}

// Scalar arguments reach the kernels as push constants: fill with %v, then
// x * %k + the filled tensor, with %k an i32 converted in the body.
func.func @scalars(%x: tensor<?xf32>, %v: f32, %k: i32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %k : tensor<?xf32>, i32) outs(%f : tensor<?xf32>) {
  ^bb0(%a: f32, %s: i32, %acc: f32):
    %sf = arith.sitofp %s : i32 to f32
    %m = arith.mulf %a, %sf : f32
    %y = arith.addf %m, %acc : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
