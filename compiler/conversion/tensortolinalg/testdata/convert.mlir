// Every lowering of package tensortolinalg, in static and dynamic shapes.
func.func @reshapes(%x: tensor<4xi32>, %d: tensor<?x6xf32>, %n: index) -> (tensor<1x4xi32>, tensor<?x2x6xf32>, tensor<?xf32>, tensor<?x3x6xf32>, tensor<4xf32>, tensor<2x6xf32>) {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [1, 4] : tensor<4xi32> into tensor<1x4xi32>
  %dyn = tensor.expand_shape %d [[0, 1], [2]] output_shape [%n, 2, 6] : tensor<?x6xf32> into tensor<?x2x6xf32>
  %c = tensor.collapse_shape %dyn [[0, 1, 2]] : tensor<?x2x6xf32> into tensor<?xf32>
  %old = tensor.expand_shape %d [[0, 1], [2]] : tensor<?x6xf32> into tensor<?x3x6xf32>
  %b = tensor.bitcast %x : tensor<4xi32> to tensor<4xf32>
  %s = tensor.cast %d : tensor<?x6xf32> to tensor<2x6xf32>
  return %e, %dyn, %c, %old, %b, %s : tensor<1x4xi32>, tensor<?x2x6xf32>, tensor<?xf32>, tensor<?x3x6xf32>, tensor<4xf32>, tensor<2x6xf32>
}

func.func @elements(%x: tensor<?x4xf32>, %v: f32, %i: index) -> (f32, tensor<?x4xf32>, tensor<?x3xf32>) {
  %c1 = arith.constant 1 : index
  %e = tensor.extract %x[%i, %c1] : tensor<?x4xf32>
  %s = tensor.insert %v into %x[%i, %c1] : tensor<?x4xf32>
  %p = tensor.splat %v[%i] : tensor<?x3xf32>
  return %e, %s, %p : f32, tensor<?x4xf32>, tensor<?x3xf32>
}

func.func @generators(%n: index, %s: f32) -> (tensor<?x3xi32>, tensor<2x2xf32>, tensor<f32>) {
  %g = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %t = arith.muli %i, %j : index
    %k = arith.index_cast %t : index to i32
    tensor.yield %k : i32
  } : tensor<?x3xi32>
  %c = arith.constant 2.0 : f32
  %fe = tensor.from_elements %s, %c, %s, %s : tensor<2x2xf32>
  %f0 = tensor.from_elements %s : tensor<f32>
  return %g, %fe, %f0 : tensor<?x3xi32>, tensor<2x2xf32>, tensor<f32>
}

func.func @pad_concat(%x: tensor<2x3xf32>, %d: tensor<?x3xf32>, %v: f32) -> (tensor<5x4xf32>, tensor<?x5xf32>, tensor<2x6xf32>, tensor<?x6xf32>) {
  %p = tensor.pad %x low[1, 0] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<2x3xf32> to tensor<5x4xf32>
  %q = tensor.pad %d low[0, 2] high[1, 0] {
  ^bb0(%i: index, %j: index):
    %k = arith.index_cast %j : index to i32
    %f = arith.sitofp %k : i32 to f32
    tensor.yield %f : f32
  } : tensor<?x3xf32> to tensor<?x5xf32>
  %c = tensor.concat dim(1) %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %cd = tensor.concat dim(1) %d, %d : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x6xf32>
  return %p, %q, %c, %cd : tensor<5x4xf32>, tensor<?x5xf32>, tensor<2x6xf32>, tensor<?x6xf32>
}

// Offsets and strides computed from constants become static (sizes stay).
func.func @folded(%x: tensor<4xf32>, %o: index) -> (tensor<?xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c2_i64 = arith.constant 2 : i64
  %c0_i64 = arith.constant 0 : i64
  %d = tensor.dim %x, %c0 : tensor<4xf32>
  %n = arith.index_cast %d : index to i64
  %ge = arith.cmpi sge, %c2_i64, %c0_i64 : i64
  %s = arith.select %ge, %c2_i64, %n : i64
  %off = arith.index_cast %s : i64 to index
  %len = arith.subi %d, %off : index
  %a = tensor.extract_slice %x[%off] [%len] [1] : tensor<4xf32> to tensor<?xf32>
  %b = tensor.extract_slice %x[%o] [2] [%off] : tensor<4xf32> to tensor<2xf32>
  return %a, %b : tensor<?xf32>, tensor<2xf32>
}

// 64-bit scalars are not push constants: an empty tensor and stores.
func.func @wide_elements(%a: i64, %b: i64) -> tensor<2x2xi64> {
  %t = tensor.from_elements %a, %b, %b, %a : tensor<2x2xi64>
  return %t : tensor<2x2xi64>
}

// Scalars a region uses from outside become the generic's inputs.
func.func @captured(%n: index, %s: i32) -> tensor<?xi32> {
  %g = tensor.generate %n {
  ^bb0(%i: index):
    %k = arith.index_cast %i : index to i32
    %m = arith.muli %k, %s : i32
    tensor.yield %m : i32
  } : tensor<?xi32>
  return %g : tensor<?xi32>
}
