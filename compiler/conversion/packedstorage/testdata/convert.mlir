#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Two packed operands into a packed tensor.empty, then a second op reading
// the first one's result (the plain value, not a repack) and a slice.
func.func @chain(%a: tensor<2xi8>, %b: tensor<2xi8>) -> (tensor<2xi8>, tensor<1xi8>) {
  %pa = flow.tensor.bitcast %a : tensor<2xi8> -> tensor<2x8xi1, #iree_encoding.packed_storage>
  %pb = flow.tensor.bitcast %b : tensor<2xi8> -> tensor<2x8xi1, #iree_encoding.packed_storage>
  %e = tensor.empty() : tensor<2x8xi1, #iree_encoding.packed_storage>
  %x = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%pa, %pb : tensor<2x8xi1, #iree_encoding.packed_storage>, tensor<2x8xi1, #iree_encoding.packed_storage>) outs(%e : tensor<2x8xi1, #iree_encoding.packed_storage>) {
  ^bb0(%l: i1, %r: i1, %o: i1):
    %v = arith.xori %l, %r : i1
    linalg.yield %v : i1
  } -> tensor<2x8xi1, #iree_encoding.packed_storage>
  %s = tensor.extract_slice %x[1, 0] [1, 8] [1, 1] : tensor<2x8xi1, #iree_encoding.packed_storage> to tensor<8xi1, #iree_encoding.packed_storage>
  %rx = flow.tensor.bitcast %x : tensor<2x8xi1, #iree_encoding.packed_storage> -> tensor<2xi8>
  %rs = flow.tensor.bitcast %s : tensor<8xi1, #iree_encoding.packed_storage> -> tensor<1xi8>
  return %rx, %rs : tensor<2xi8>, tensor<1xi8>
}
