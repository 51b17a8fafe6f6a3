util.global private @layer_bias = dense_resource<bias> : tensor<4xf32>
func.func @dense(%x: tensor<2xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  %w = arith.constant dense_resource<torch_tensor_2_4_torch.float32> : tensor<2x4xf32>
  %b = util.global.load @layer_bias : tensor<4xf32>
  %s = arith.constant dense_resource<__scale.f16> : tensor<2xf16>
  func.return %w, %b : tensor<2x4xf32>, tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      bias: "0x04000000CDCCCC3DCDCC4C3E9A99993ECDCCCC3E",
      torch_tensor_2_4_torch.float32: "0x040000000000803F000000400000404000008040000080BF000000C0000040C0000080C0",
      __scale.f16: "0x02000000003C0040"
    }
  }
#-}
