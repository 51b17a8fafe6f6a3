// Tensor ops that convert-tensor-ops lowers to flow.tensor ops run by host
// code (see tensor_host_test.go): reshapes, casts and bitcasts are views of
// the same buffer, extract and insert are loads and stores, splat a fill.
func.func @reshape(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<12xf32>) {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<2x6xf32> into tensor<12xf32>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  return %e, %c : tensor<3x4xf32>, tensor<12xf32>
}

func.func @reshape_dynamic(%x: tensor<?x6xf32>) -> (tensor<?x2x3xf32>, tensor<?x3x2xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x6xf32>
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [%n, 2, 3] : tensor<?x6xf32> into tensor<?x2x3xf32>
  %old = tensor.expand_shape %x [[0], [1, 2]] : tensor<?x6xf32> into tensor<?x3x2xf32>
  %c = tensor.collapse_shape %e [[0, 1, 2]] : tensor<?x2x3xf32> into tensor<?xf32>
  return %e, %old, %c : tensor<?x2x3xf32>, tensor<?x3x2xf32>, tensor<?xf32>
}

func.func @cast(%x: tensor<?x3xf32>) -> tensor<2x3xf32> {
  %s = tensor.cast %x : tensor<?x3xf32> to tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

func.func @bitcast(%x: tensor<3xi32>) -> tensor<3xf32> {
  %b = tensor.bitcast %x : tensor<3xi32> to tensor<3xf32>
  return %b : tensor<3xf32>
}

// The store goes to a copy: %x is returned unchanged. The loaded scalar
// comes back in a rank-0 tensor.
func.func @extract_insert(%x: tensor<3x4xf32>, %v: f32) -> (tensor<f32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %e = tensor.extract %x[%c2, %c3] : tensor<3x4xf32>
  %i = tensor.insert %v into %x[%c1, %c2] : tensor<3x4xf32>
  %t = tensor.from_elements %e : tensor<f32>
  return %t, %i, %x : tensor<f32>, tensor<3x4xf32>, tensor<3x4xf32>
}

func.func @splat(%v: i32, %y: tensor<?xf32>) -> (tensor<2x3xi32>, tensor<?x2xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %y, %c0 : tensor<?xf32>
  %s = tensor.splat %v : tensor<2x3xi32>
  %d = tensor.splat %v[%n] : tensor<?x2xi32>
  return %s, %d : tensor<2x3xi32>, tensor<?x2xi32>
}

// 64-bit scalars go in with stores into an empty tensor.
func.func @wide_elements(%a: i64, %b: i64) -> tensor<2x2xi64> {
  %t = tensor.from_elements %a, %b, %b, %a : tensor<2x2xi64>
  return %t : tensor<2x2xi64>
}
