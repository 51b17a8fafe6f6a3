// Row groups (group_test.go): chains of row reductions and their consumer
// that dispatch formation puts in one dispatch for vulkan-spirv.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// linalg.softmax: a per-row fill, a shared max and sum, and the division.
func.func @softmax(%x: tensor<3x1000xf32>) -> tensor<3x1000xf32> {
  %e = tensor.empty() : tensor<3x1000xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<3x1000xf32>) outs(%e : tensor<3x1000xf32>) -> tensor<3x1000xf32>
  return %s : tensor<3x1000xf32>
}

// f16 over two row loops: 16-bit storage, the sum's parts kept in f32.
func.func @softmax_f16(%x: tensor<2x3x70xf16>) -> tensor<2x3x70xf16> {
  %e = tensor.empty() : tensor<2x3x70xf16>
  %s = linalg.softmax dimension(2) ins(%x : tensor<2x3x70xf16>) outs(%e : tensor<2x3x70xf16>) -> tensor<2x3x70xf16>
  return %s : tensor<2x3x70xf16>
}

// A reduction that cannot be reassociated, run in order by every
// invocation, a scalar it reads and a per-column input of the consumer.
func.func @decay(%x: tensor<5x200xf32>, %k: f32, %c: tensor<200xf32>) -> tensor<5x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<5xf32>) -> tensor<5xf32>
  %d = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x200xf32>) outs(%z : tensor<5xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %h = arith.mulf %acc, %k : f32
    %r = arith.addf %h, %a : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %e2 = tensor.empty() : tensor<5x200xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %d, %c : tensor<5x200xf32>, tensor<5xf32>, tensor<200xf32>) outs(%e2 : tensor<5x200xf32>) {
  ^bb0(%a: f32, %s: f32, %cc: f32, %o: f32):
    %r = arith.subf %a, %s : f32
    %q = arith.mulf %r, %cc : f32
    linalg.yield %q : f32
  } -> tensor<5x200xf32>
  return %y : tensor<5x200xf32>
}
