// Dynamic rows, one workgroup each on the GPU targets: with more than
// 65,535 rows the grid is split into rows of workgroups, which the kernels
// number y * countX + x.

// Sums of the rows of a ?x8 tensor: too short a reduction to share among
// a workgroup's threads, so each thread sums its rows in order. The fill
// is a one-loop kernel of the same length.
func.func @rowsum8(%x: tensor<?x8xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %rows = tensor.dim %x, %c0 : tensor<?x8xi32>
  %e = tensor.empty(%rows) : tensor<?xi32>
  %i = linalg.fill ins(%zero : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %s = linalg.reduce { arith.addi } ins(%x : tensor<?x8xi32>) outs(%i : tensor<?xi32>) dimensions = [1]
  return %s : tensor<?xi32>
}

// Maxima of the rows of a ?x? tensor: a reduction the threads of a
// workgroup share.
func.func @rowmax(%x: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %low = arith.constant -2147483648 : i32
  %rows = tensor.dim %x, %c0 : tensor<?x?xi32>
  %e = tensor.empty(%rows) : tensor<?xi32>
  %i = linalg.fill ins(%low : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %s = linalg.reduce { arith.maxsi } ins(%x : tensor<?x?xi32>) outs(%i : tensor<?xi32>) dimensions = [1]
  return %s : tensor<?xi32>
}
