// Tensor ops lowered by convert-tensor-ops and dispatch formation (see
// tensor_ops_test.go): generators, slices, an in-place insert_slice and
// pads that keep the source at the origin.
func.func @generate(%x: tensor<?xf32>) -> tensor<?x3xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %g = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %c10 = arith.constant 10 : index
    %t = arith.muli %i, %c10 : index
    %s = arith.addi %t, %j : index
    %k = arith.index_cast %s : index to i32
    tensor.yield %k : i32
  } : tensor<?x3xi32>
  return %g : tensor<?x3xi32>
}

func.func @from_elements(%a: f32, %b: f32) -> (tensor<2x3xf32>, tensor<f32>) {
  %c = arith.constant 1.5 : f32
  %t = tensor.from_elements %a, %b, %c, %b, %a, %c : tensor<2x3xf32>
  %s = tensor.from_elements %b : tensor<f32>
  return %t, %s : tensor<2x3xf32>, tensor<f32>
}

func.func @extract_origin(%x: tensor<4x6xf32>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<4x6xf32>) {
  %a = tensor.extract_slice %x[0, 0] [2, 3] [1, 1] : tensor<4x6xf32> to tensor<2x3xf32>
  %r = tensor.extract_slice %x[0, 0] [1, 6] [1, 1] : tensor<4x6xf32> to tensor<6xf32>
  %w = tensor.extract_slice %x[0, 0] [4, 6] [1, 1] : tensor<4x6xf32> to tensor<4x6xf32>
  return %a, %r, %w : tensor<2x3xf32>, tensor<6xf32>, tensor<4x6xf32>
}

// The destination is an argument, so the dispatch writes into a copy and
// %x itself is returned unchanged.
func.func @insert_origin(%x: tensor<4x5xf32>, %y: tensor<2x3xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %r = tensor.insert_slice %y into %x[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x5xf32>
  return %r, %x : tensor<4x5xf32>, tensor<4x5xf32>
}

func.func @pad_high(%x: tensor<2x3xf32>, %v: f32) -> tensor<4x5xf32> {
  %p = tensor.pad %x low[0, 0] high[2, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<2x3xf32> to tensor<4x5xf32>
  return %p : tensor<4x5xf32>
}

func.func @pad_index(%x: tensor<3x2xi32>) -> tensor<4x4xi32> {
  %p = tensor.pad %x low[0, 0] high[1, 2] {
  ^bb0(%i: index, %j: index):
    %c100 = arith.constant 100 : index
    %t = arith.muli %i, %c100 : index
    %s = arith.addi %t, %j : index
    %k = arith.index_cast %s : index to i32
    %m = arith.subi %k, %k : i32
    %n = arith.subi %m, %k : i32
    tensor.yield %n : i32
  } : tensor<3x2xi32> to tensor<4x4xi32>
  return %p : tensor<4x4xi32>
}

func.func @extract_strided(%x: tensor<4x6xf32>, %d: tensor<?xi32>) -> (tensor<2x3xf32>, tensor<4xf32>, tensor<?xi32>) {
  %a = tensor.extract_slice %x[1, 0] [2, 3] [2, 2] : tensor<4x6xf32> to tensor<2x3xf32>
  %r = tensor.extract_slice %x[3, 1] [1, 4] [1, 1] : tensor<4x6xf32> to tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %d, %c0 : tensor<?xi32>
  %m = arith.subi %n, %c2 : index
  %t = tensor.extract_slice %d[2] [%m] [1] : tensor<?xi32> to tensor<?xi32>
  return %a, %r, %t : tensor<2x3xf32>, tensor<4xf32>, tensor<?xi32>
}

// A size past the end of the source fails the dispatch at run time.
func.func @extract_past_end(%d: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?xi32>
  %t = tensor.extract_slice %d[1] [%n] [1] : tensor<?xi32> to tensor<?xi32>
  return %t : tensor<?xi32>
}

// Slices and linalg ops in util.func and util.initializer bodies.
util.global private @scale : tensor<4xf32>
util.initializer {
  %c = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  util.global.store %f, @scale : tensor<4xf32>
  util.return
}
util.func public @util_slice(%x: tensor<8xf32>) -> tensor<4xf32> {
  %s = tensor.extract_slice %x[2] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %g = util.global.load @scale : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.map { arith.mulf } ins(%s, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>)
  util.return %r : tensor<4xf32>
}

// A scalar argument used in the region reaches the kernel as a push
// constant.
func.func @generate_scaled(%x: tensor<?xf32>, %s: i32) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %g = tensor.generate %n {
  ^bb0(%i: index):
    %k = arith.index_cast %i : index to i32
    %m = arith.muli %k, %s : i32
    tensor.yield %m : i32
  } : tensor<?xi32>
  return %g : tensor<?xi32>
}
