// Convolutions and pooling as named linalg ops, with strides and
// dilations; each is generalized and dispatched as a loop nest.
func.func @conv_nhwc(%x: tensor<2x9x11x3xf32>, %w: tensor<3x2x3x5xf32>) -> tensor<2x4x8x5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x8x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x8x5xf32>) -> tensor<2x4x8x5xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 3]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : tensor<2x9x11x3xf32>, tensor<3x2x3x5xf32>) outs(%f : tensor<2x4x8x5xf32>) -> tensor<2x4x8x5xf32>
  return %r : tensor<2x4x8x5xf32>
}
func.func @conv_nchw(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%f : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}
func.func @depthwise(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4xf32>) outs(%f : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}
func.func @pools(%x: tensor<1x8x8x2xf32>) -> (tensor<1x4x3x2xf32>, tensor<1x4x3x2xf32>) {
  %z = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347e+38 : f32
  %e = tensor.empty() : tensor<1x4x3x2xf32>
  %win = tensor.empty() : tensor<2x3xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  %f1 = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %win : tensor<1x8x8x2xf32>, tensor<2x3xf32>) outs(%f0 : tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %win : tensor<1x8x8x2xf32>, tensor<2x3xf32>) outs(%f1 : tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  return %s, %m : tensor<1x4x3x2xf32>, tensor<1x4x3x2xf32>
}
