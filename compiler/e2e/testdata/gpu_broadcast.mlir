// A broadcast kernel with no reduction loops, which the GPU targets run
// ElementwiseUnroll iterations per thread at a time: x[i,j] / s[i] + b[j]
// in f32, and trunc(x[i,j] * 10) wrapped to i8 (packed in words on
// Vulkan). gpu_broadcast_test.go runs it on every GPU device at lengths
// around the unrolled step, against Go loops.
#x = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @broadcast(%x: tensor<?x?xf32>, %s: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ten = arith.constant 10.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %e8 = tensor.empty(%n, %m) : tensor<?x?xi8>
  %r:2 = linalg.generic {indexing_maps = [#x, #row, #col, #x, #x], iterator_types = ["parallel", "parallel"]} ins(%x, %s, %b : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%e, %e8 : tensor<?x?xf32>, tensor<?x?xi8>) {
  ^bb0(%in: f32, %sc: f32, %bias: f32, %o: f32, %o8: i8):
    %q = arith.divf %in, %sc : f32
    %y = arith.addf %q, %bias : f32
    %t = arith.mulf %in, %ten : f32
    %i = arith.fptosi %t : f32 to i32
    %i8 = arith.trunci %i : i32 to i8
    linalg.yield %y, %i8 : f32, i8
  } -> (tensor<?x?xf32>, tensor<?x?xi8>)
  return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xi8>
}

// A 3-D broadcast whose workgroups own several (j, k) rows, so that the
// unrolled steps carry from the last index into the middle one: x + b[k],
// and the indices themselves, i * 1000000 + j * 1000 + k.
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#last = affine_map<(d0, d1, d2) -> (d2)>
func.func @broadcast3(%x: tensor<?x?x?xf32>, %b: tensor<?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %n1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %n2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %e = tensor.empty(%n0, %n1, %n2) : tensor<?x?x?xf32>
  %ei = tensor.empty(%n0, %n1, %n2) : tensor<?x?x?xi32>
  %r:2 = linalg.generic {indexing_maps = [#x3, #last, #x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %b : tensor<?x?x?xf32>, tensor<?xf32>) outs(%e, %ei : tensor<?x?x?xf32>, tensor<?x?x?xi32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32, %oi: i32):
    %y = arith.addf %in, %bias : f32
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %m6 = arith.constant 1000000 : index
    %m3 = arith.constant 1000 : index
    %a = arith.muli %i, %m6 : index
    %b1 = arith.muli %j, %m3 : index
    %s = arith.addi %a, %b1 : index
    %t = arith.addi %s, %k : index
    %t32 = arith.index_cast %t : index to i32
    linalg.yield %y, %t32 : f32, i32
  } -> (tensor<?x?x?xf32>, tensor<?x?x?xi32>)
  return %r#0, %r#1 : tensor<?x?x?xf32>, tensor<?x?x?xi32>
}
