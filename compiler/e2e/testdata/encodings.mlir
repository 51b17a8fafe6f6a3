// Programs written for IREE's data tiling: operands marked with
// iree_encoding encodings, computed on in encoded form, and unmarked.
// goiree drops the encodings (conversion/dropencodings); the values must
// be those of the same program without them.
#lhs_map = affine_map<(m, n, k) -> (m, k)>
#rhs_map = affine_map<(m, n, k) -> (k, n)>
#out_map = affine_map<(m, n, k) -> (m, n)>
#lhs = #iree_encoding.encoding<operand_index = 0, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#lhs_map, #rhs_map, #out_map]>
#rhs = #iree_encoding.encoding<operand_index = 1, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#lhs_map, #rhs_map, #out_map]>
#out = #iree_encoding.encoding<operand_index = 2, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#lhs_map, #rhs_map, #out_map]>

// a @ b + 1 with every operand and the result encoded.
func.func @matmul(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %ea = iree_encoding.set_encoding %a : tensor<5x7xf32> -> tensor<5x7xf32, #lhs>
  %eb = iree_encoding.set_encoding %b : tensor<7x3xf32> -> tensor<7x3xf32, #rhs>
  %one = arith.constant 1.0 : f32
  %init = tensor.empty() : tensor<5x3xf32, #out>
  %fill = linalg.fill ins(%one : f32) outs(%init : tensor<5x3xf32, #out>) -> tensor<5x3xf32, #out>
  %mm = linalg.matmul ins(%ea, %eb : tensor<5x7xf32, #lhs>, tensor<7x3xf32, #rhs>) outs(%fill : tensor<5x3xf32, #out>) -> tensor<5x3xf32, #out>
  %r = iree_encoding.unset_encoding %mm : tensor<5x3xf32, #out> -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// A dynamic row count: the encoded tensor keeps it and unset_encoding
// names it; the rows are doubled in encoded form.
func.func @dynamic_rows(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %ea = iree_encoding.set_encoding %a : tensor<?x4xf32> -> tensor<?x4xf32, #lhs>
  %init = tensor.empty(%n) : tensor<?x4xf32, #lhs>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%ea : tensor<?x4xf32, #lhs>) outs(%init : tensor<?x4xf32, #lhs>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<?x4xf32, #lhs>
  %r = iree_encoding.unset_encoding %d : tensor<?x4xf32, #lhs> -> tensor<?x4xf32>{%n}
  return %r : tensor<?x4xf32>
}

// A dispatch region written around a linalg op between encoded values:
// 3x - 1 of every element, the region's result sized by %n.
func.func @region(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %three = arith.constant 3.0 : f32
  %one = arith.constant 1.0 : f32
  %ea = iree_encoding.set_encoding %a : tensor<?x4xf32> -> tensor<?x4xf32, #out>
  %r = flow.dispatch.region -> (tensor<?x4xf32, #lhs>{%n}) {
    %u = iree_encoding.unset_encoding %ea : tensor<?x4xf32, #out> -> tensor<?x4xf32>{%n}
    %init = tensor.empty(%n) : tensor<?x4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<?x4xf32>) outs(%init : tensor<?x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %m = arith.mulf %x, %three : f32
      %s = arith.subf %m, %one : f32
      linalg.yield %s : f32
    } -> tensor<?x4xf32>
    %e = iree_encoding.set_encoding %g : tensor<?x4xf32> -> tensor<?x4xf32, #lhs>
    flow.return %e : tensor<?x4xf32, #lhs>
  }
  %b = util.optimization_barrier %r : tensor<?x4xf32, #lhs>
  %res = iree_encoding.unset_encoding %b : tensor<?x4xf32, #lhs> -> tensor<?x4xf32>{%n}
  return %res : tensor<?x4xf32>
}
