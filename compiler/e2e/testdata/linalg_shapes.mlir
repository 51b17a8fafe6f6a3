// Data movement and the remaining named ops: transpose, broadcast, copy,
// map, reduce, batch_matmul, matvec, vecmat, dot, and a generic that
// writes its loop indices (linalg.index).
func.func @transpose(%x: tensor<4x5x6xf32>) -> tensor<6x4x5xf32> {
  %e = tensor.empty() : tensor<6x4x5xf32>
  %t = linalg.transpose ins(%x : tensor<4x5x6xf32>) outs(%e : tensor<6x4x5xf32>) permutation = [2, 0, 1]
  return %t : tensor<6x4x5xf32>
}

func.func @transpose_i32(%x: tensor<3x7xi32>) -> tensor<7x3xi32> {
  %e = tensor.empty() : tensor<7x3xi32>
  %t = linalg.transpose ins(%x : tensor<3x7xi32>) outs(%e : tensor<7x3xi32>) permutation = [1, 0]
  return %t : tensor<7x3xi32>
}

func.func @broadcast_map_copy(%x: tensor<4x6xf32>, %y: tensor<4x3x6xf32>) -> (tensor<4x3x6xf32>, tensor<4x3x6xf32>) {
  %e = tensor.empty() : tensor<4x3x6xf32>
  %b = linalg.broadcast ins(%x : tensor<4x6xf32>) outs(%e : tensor<4x3x6xf32>) dimensions = [1]
  %m = linalg.map ins(%b, %y : tensor<4x3x6xf32>, tensor<4x3x6xf32>) outs(%e : tensor<4x3x6xf32>) (%p: f32, %q: f32) {
    %s = arith.mulf %p, %q : f32
    linalg.yield %s : f32
  }
  %c = linalg.copy ins(%b : tensor<4x3x6xf32>) outs(%e : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  return %m, %c : tensor<4x3x6xf32>, tensor<4x3x6xf32>
}

func.func @reduce_cols(%x: tensor<5x8x3xf32>) -> tensor<5x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  %r = linalg.reduce { arith.addf } ins(%x : tensor<5x8x3xf32>) outs(%i : tensor<5x3xf32>) dimensions = [1]
  return %r : tensor<5x3xf32>
}

func.func @contractions(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %m: tensor<3x4xf32>, %v: tensor<4xf32>, %w: tensor<3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<4xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x3x5xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %bm = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%z3 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e1 = tensor.empty() : tensor<3xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %mv = linalg.matvec ins(%m, %v : tensor<3x4xf32>, tensor<4xf32>) outs(%z1 : tensor<3xf32>) -> tensor<3xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %vm = linalg.vecmat ins(%w, %m : tensor<3xf32>, tensor<3x4xf32>) outs(%z4 : tensor<4xf32>) -> tensor<4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%v, %v : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) -> tensor<f32>
  return %bm, %mv, %vm, %d : tensor<2x3x5xf32>, tensor<3xf32>, tensor<4xf32>, tensor<f32>
}

func.func @iota() -> tensor<3x4xi32> {
  %e = tensor.empty() : tensor<3x4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x4xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c10 = arith.constant 10 : index
    %t = arith.muli %i, %c10 : index
    %s = arith.addi %t, %j : index
    %v = arith.index_cast %s : index to i32
    linalg.yield %v : i32
  } -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}
// The named matmuls with a transposed operand (MLIR 2023 to 2025): at and
// bt hold a and b transposed per batch, so every result is a * b.
func.func @transposed_contractions(%a: tensor<2x3x4xf32>, %at: tensor<2x4x3xf32>, %b: tensor<2x4x5xf32>, %bt: tensor<2x5x4xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x3x5xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %ta = linalg.batch_matmul_transpose_a ins(%at, %b : tensor<2x4x3xf32>, tensor<2x4x5xf32>) outs(%z3 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %tb = linalg.batch_matmul_transpose_b ins(%a, %bt : tensor<2x3x4xf32>, tensor<2x5x4xf32>) outs(%z3 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %a0 = tensor.extract_slice %a[0, 0, 0] [1, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> to tensor<3x4xf32>
  %at0 = tensor.extract_slice %at[0, 0, 0] [1, 4, 3] [1, 1, 1] : tensor<2x4x3xf32> to tensor<4x3xf32>
  %b0 = tensor.extract_slice %b[0, 0, 0] [1, 4, 5] [1, 1, 1] : tensor<2x4x5xf32> to tensor<4x5xf32>
  %bt0 = tensor.extract_slice %bt[0, 0, 0] [1, 5, 4] [1, 1, 1] : tensor<2x5x4xf32> to tensor<5x4xf32>
  %e2 = tensor.empty() : tensor<3x5xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %ma = linalg.matmul_transpose_a ins(%at0, %b0 : tensor<4x3xf32>, tensor<4x5xf32>) outs(%z2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mb = linalg.matmul_transpose_b ins(%a0, %bt0 : tensor<3x4xf32>, tensor<5x4xf32>) outs(%z2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %ta, %tb, %ma, %mb : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}
