// Splat constants fold into the fused body; cmpf/select chains fuse; a
// static shape needs no tensor.dim; the unused mulf is dropped.
func.func @relu_scale(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %two = arith.constant dense<2.0> : tensor<2x3xf32>
  %zero = arith.constant dense<0.0> : tensor<2x3xf32>
  %s = arith.mulf %a, %two : tensor<2x3xf32>
  %t = arith.addf %s, %b : tensor<2x3xf32>
  %pos = arith.cmpf ogt, %t, %zero : tensor<2x3xf32>
  %r = arith.select %pos, %t, %zero : tensor<2x3xi1>, tensor<2x3xf32>
  %dead = arith.mulf %a, %a : tensor<2x3xf32>
  return %r, %pos : tensor<2x3xf32>, tensor<2x3xi1>
}
