func.func @dynamic_inputs(%i: index) -> (f32, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = flow.tensor.dynamic_constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32> -> tensor<?x4xf32>
  %b = flow.tensor.constant dense<0.5> : tensor<2x4xf32>
  %rows = tensor.dim %a, %c0 : tensor<?x4xf32>
  %t = flow.tensor.tie_shape %a : tensor<?x4xf32>{%rows}
  %n = arith.muli %rows, %c1 : index
  %flat = flow.tensor.reshape %t : tensor<?x4xf32>{%rows} -> tensor<?xf32>{%n}
  %x = flow.tensor.load %flat[%i] : tensor<?xf32>{%n}
  %y = flow.tensor.load %b[%c0, %c1] : tensor<2x4xf32>
  %s = arith.addf %x, %y : f32
  %u = flow.tensor.store %s, %t[%c0, %c1] : tensor<?x4xf32>{%rows}
  %z = flow.tensor.splat %s : tensor<?x4xf32>{%rows}
  %c = flow.tensor.clone %u : tensor<?x4xf32>{%rows}
  %e = flow.tensor.empty : tensor<3xi8>
  %bits = flow.tensor.bitcast %e : tensor<3xi8> -> tensor<24xi1, #iree_encoding.packed_storage>
  func.return %s, %c : f32, tensor<?x4xf32>
}
