// Slices written at an offset (needs output indices offset + stride *
// loop in the loop-nest contract): insert_slice with offsets and strides,
// concat, and pads with low padding.
func.func @insert_strided(%x: tensor<4x6xf32>, %y: tensor<2x2xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %r = tensor.insert_slice %y into %x[1, 2] [2, 2] [2, 3] : tensor<2x2xf32> into tensor<4x6xf32>
  return %r, %x : tensor<4x6xf32>, tensor<4x6xf32>
}

func.func @insert_row(%x: tensor<3x4xi32>, %y: tensor<4xi32>) -> tensor<3x4xi32> {
  %r = tensor.insert_slice %y into %x[2, 0] [1, 4] [1, 1] : tensor<4xi32> into tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}

func.func @concat(%a: tensor<2x3xi32>, %b: tensor<2x5xi32>, %c: tensor<1x8xi32>) -> tensor<3x8xi32> {
  %ab = tensor.concat dim(1) %a, %b : (tensor<2x3xi32>, tensor<2x5xi32>) -> tensor<2x8xi32>
  %r = tensor.concat dim(0) %ab, %c : (tensor<2x8xi32>, tensor<1x8xi32>) -> tensor<3x8xi32>
  return %r : tensor<3x8xi32>
}

func.func @pad(%x: tensor<2x3xf32>, %v: f32) -> tensor<5x4xf32> {
  %p = tensor.pad %x low[1, 0] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<2x3xf32> to tensor<5x4xf32>
  return %p : tensor<5x4xf32>
}

// Dynamic sizes: the source is shorter than the destination along a
// dimension it is written at offset 0.
func.func @pad_dynamic(%x: tensor<?x3xi32>) -> tensor<?x5xi32> {
  %c7 = arith.constant 7 : i32
  %p = tensor.pad %x low[0, 2] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c7 : i32
  } : tensor<?x3xi32> to tensor<?x5xi32>
  return %p : tensor<?x5xi32>
}

func.func @insert_dynamic(%x: tensor<?x4xi32>, %y: tensor<?x2xi32>) -> tensor<?x4xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %y, %c0 : tensor<?x2xi32>
  %r = tensor.insert_slice %y into %x[0, 1] [%n, 2] [1, 1] : tensor<?x2xi32> into tensor<?x4xi32>
  return %r : tensor<?x4xi32>
}
