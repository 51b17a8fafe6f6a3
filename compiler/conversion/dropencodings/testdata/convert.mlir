#m0 = affine_map<(d0, d1) -> (d0, d1)>
#m1 = affine_map<(d0, d1) -> (d1)>
#enc = #iree_encoding.encoding<operand_index = 0, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#m0, #m1, #m0]>
#res = #iree_encoding.encoding<operand_index = 2, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#m0, #m1, #m0]>

// Encoded values through a linalg op, a barrier and a chain of
// set/unset pairs; function arguments and results with encodings.
func.func @chain(%a: tensor<3x4xf32>, %b: tensor<4xf32, #iree_encoding.layout<[]>>) -> tensor<3x4xf32, #res> {
  %e = iree_encoding.set_encoding %a : tensor<3x4xf32> -> tensor<3x4xf32, #enc>
  %u = iree_encoding.unset_encoding %e : tensor<3x4xf32, #enc> -> tensor<3x4xf32>
  %e2 = iree_encoding.set_encoding %u : tensor<3x4xf32> -> tensor<3x4xf32, #enc>
  %init = tensor.empty() : tensor<3x4xf32, #res>
  %g = linalg.generic {indexing_maps = [#m0, #m1, #m0], iterator_types = ["parallel", "parallel"]} ins(%e2, %b : tensor<3x4xf32, #enc>, tensor<4xf32, #iree_encoding.layout<[]>>) outs(%init : tensor<3x4xf32, #res>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32, #res>
  %k = util.optimization_barrier %g : tensor<3x4xf32, #res>
  return %k : tensor<3x4xf32, #res>
}

// Dynamic sizes and encoding_dims; packed_storage is kept.
func.func @dynamic(%a: tensor<?x4xf32>, %n: index, %m: tensor<8xi1, #iree_encoding.packed_storage>) -> (tensor<?x4xf32>, tensor<8xi1, #iree_encoding.packed_storage>) {
  %e = iree_encoding.set_encoding %a encoding_dims{%n} : tensor<?x4xf32> -> tensor<?x4xf32, #enc>
  %c = arith.constant dense<1.0> : tensor<2x4xf32, #enc>
  %u = iree_encoding.unset_encoding %e encoding_dims{%n} : tensor<?x4xf32, #enc> -> tensor<?x4xf32>{%n}
  return %u, %m : tensor<?x4xf32>, tensor<8xi1, #iree_encoding.packed_storage>
}
