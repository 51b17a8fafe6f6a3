// linalg.softmax, decomposed before dispatch formation into a max
// reduction, a sum of exponentials and a division.
func.func @softmax(%x: tensor<5x7x30xf32>) -> tensor<5x7x30xf32> {
  %e = tensor.empty() : tensor<5x7x30xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<5x7x30xf32>) outs(%e : tensor<5x7x30xf32>) -> tensor<5x7x30xf32>
  return %r : tensor<5x7x30xf32>
}
func.func @softmax_dyn(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
