// A dense layer written in linalg: relu(x @ w + b). The bias is broadcast
// over the rows by the generic's (d0, d1) -> (d1) map, and relu compares
// with a constant defined outside its body.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @dense(%x: tensor<37x53xf32>, %w: tensor<53x29xf32>, %b: tensor<29xf32>) -> tensor<37x29xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x29xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<37x29xf32>) -> tensor<37x29xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<37x53xf32>, tensor<53x29xf32>) outs(%acc : tensor<37x29xf32>) -> tensor<37x29xf32>
  %biased = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<37x29xf32>, tensor<29xf32>) outs(%e : tensor<37x29xf32>) {
  ^bb0(%m: f32, %bv: f32, %o: f32):
    %s = arith.addf %m, %bv : f32
    linalg.yield %s : f32
  } -> tensor<37x29xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<37x29xf32>) outs(%e : tensor<37x29xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<37x29xf32>
  return %relu : tensor<37x29xf32>
}

// fill + matmul where the fill value is not zero, so the matmul must
// accumulate onto its init: 1.5 + a @ b, and the same in i32 (accumulating
// i8 products in i32, as linalg's named ops extend their operands).
func.func @fill_matmul(%a: tensor<70x9xf32>, %b: tensor<9x130xf32>) -> tensor<70x130xf32> {
  %c = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<70x130xf32>
  %acc = linalg.fill ins(%c : f32) outs(%e : tensor<70x130xf32>) -> tensor<70x130xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<70x9xf32>, tensor<9x130xf32>) outs(%acc : tensor<70x130xf32>) -> tensor<70x130xf32>
  return %mm : tensor<70x130xf32>
}

func.func @fill_matmul_i8(%a: tensor<3x4xi8>, %b: tensor<4x5xi8>) -> tensor<3x5xi32> {
  %c = arith.constant 7 : i32
  %e = tensor.empty() : tensor<3x5xi32>
  %acc = linalg.fill ins(%c : i32) outs(%e : tensor<3x5xi32>) -> tensor<3x5xi32>
  %mm = linalg.matmul ins(%a, %b : tensor<3x4xi8>, tensor<4x5xi8>) outs(%acc : tensor<3x5xi32>) -> tensor<3x5xi32>
  return %mm : tensor<3x5xi32>
}
