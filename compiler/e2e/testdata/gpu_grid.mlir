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

// C + A @ B into a C the caller passes: the grid's z layers of workgroups
// must between them take every block of C's columns.
func.func @matmul_acc(%a: tensor<97x40xf32>, %b: tensor<40x300xf32>, %c: tensor<97x300xf32>) -> tensor<97x300xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<97x40xf32>, tensor<40x300xf32>) outs(%c : tensor<97x300xf32>) -> tensor<97x300xf32>
  return %r : tensor<97x300xf32>
}

// The same with dynamic sizes: a fixed number of z layers, each taking
// every so many column blocks.
func.func @matmul_acc_dyn(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
