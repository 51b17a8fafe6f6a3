// i1 tensors in IREE's packed storage (eight to a byte, element i in bit
// i%8 of byte i/8) read and written by linalg ops and slices; the bytes go
// in and out through flow.tensor.bitcast. packed_i1_test.go checks them
// with bit operations on the bytes.
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @xor_masks(%a: tensor<3xi8>, %b: tensor<3xi8>) -> tensor<3xi8> {
  %pa = flow.tensor.bitcast %a : tensor<3xi8> -> tensor<3x8xi1, #iree_encoding.packed_storage>
  %pb = flow.tensor.bitcast %b : tensor<3xi8> -> tensor<3x8xi1, #iree_encoding.packed_storage>
  %e = tensor.empty() : tensor<3x8xi1, #iree_encoding.packed_storage>
  %x = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%pa, %pb : tensor<3x8xi1, #iree_encoding.packed_storage>, tensor<3x8xi1, #iree_encoding.packed_storage>) outs(%e : tensor<3x8xi1, #iree_encoding.packed_storage>) {
  ^bb0(%l: i1, %r: i1, %o: i1):
    %v = arith.xori %l, %r : i1
    linalg.yield %v : i1
  } -> tensor<3x8xi1, #iree_encoding.packed_storage>
  %r = flow.tensor.bitcast %x : tensor<3x8xi1, #iree_encoding.packed_storage> -> tensor<3xi8>
  return %r : tensor<3xi8>
}

// Bit i of the result is x[i] > 0, for a 4x4 x (two bytes).
func.func @positive(%x: tensor<4x4xi32>) -> tensor<2xi8> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x4xi1, #iree_encoding.packed_storage>
  %m = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xi32>) outs(%e : tensor<4x4xi1, #iree_encoding.packed_storage>) {
  ^bb0(%in: i32, %o: i1):
    %c = arith.cmpi sgt, %in, %zero : i32
    linalg.yield %c : i1
  } -> tensor<4x4xi1, #iree_encoding.packed_storage>
  %b = util.optimization_barrier %m : tensor<4x4xi1, #iree_encoding.packed_storage>
  %r = flow.tensor.bitcast %b : tensor<4x4xi1, #iree_encoding.packed_storage> -> tensor<2xi8>
  return %r : tensor<2xi8>
}

// Rows 1 and 2 of a 4x8 mask, then the number of set bits of the whole.
func.func @rows_and_count(%a: tensor<4xi8>) -> (tensor<2xi8>, tensor<i32>) {
  %p = flow.tensor.bitcast %a : tensor<4xi8> -> tensor<4x8xi1, #iree_encoding.packed_storage>
  %s = tensor.extract_slice %p[1, 0] [2, 8] [1, 1] : tensor<4x8xi1, #iree_encoding.packed_storage> to tensor<2x8xi1, #iree_encoding.packed_storage>
  %rs = flow.tensor.bitcast %s : tensor<2x8xi1, #iree_encoding.packed_storage> -> tensor<2xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<i32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %n = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%p : tensor<4x8xi1, #iree_encoding.packed_storage>) outs(%init : tensor<i32>) {
  ^bb0(%bit: i1, %acc: i32):
    %w = arith.extui %bit : i1 to i32
    %t = arith.addi %acc, %w : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  return %rs, %n : tensor<2xi8>, tensor<i32>
}
