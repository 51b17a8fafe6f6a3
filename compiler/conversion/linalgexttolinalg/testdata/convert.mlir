// Pack with padding and both permutations: fill + insert_slice, expand_shape, transpose.
func.func @pack_pad(%src: tensor<1x9xi8>, %dst: tensor<2x1x8x4xi8>) -> tensor<2x1x8x4xi8> {
  %c0 = arith.constant 0 : i8
  %p = linalg.pack %src padding_value(%c0 : i8) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [8, 4] into %dst : tensor<1x9xi8> -> tensor<2x1x8x4xi8>
  return %p : tensor<2x1x8x4xi8>
}

// Dynamic sizes and a dynamic tile.
func.func @pack_dynamic(%src: tensor<?x?xf32>, %dst: tensor<?x?x?x16xf32>, %t: index, %v: f32) -> tensor<?x?x?x16xf32> {
  %p = linalg.pack %src padding_value(%v : f32) inner_dims_pos = [0, 1] inner_tiles = [%t, 16] into %dst : tensor<?x?xf32> -> tensor<?x?x?x16xf32>
  return %p : tensor<?x?x?x16xf32>
}

// Unpack that drops the padding of the last tiles (extract_slice), in the Dec 2022 spelling.
func.func @unpack_slice(%src: tensor<2x2x3x3xi32>, %dst: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %u = iree_linalg_ext.unpack %src outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %dst : (tensor<2x2x3x3xi32> tensor<4x4xi32>) -> tensor<4x4xi32>
  return %u : tensor<4x4xi32>
}

// Whole tiles: no padding, no slice.
func.func @roundtrip(%src: tensor<128x256xi32>, %p0: tensor<4x16x32x16xi32>, %u0: tensor<128x256xi32>) -> tensor<128x256xi32> {
  %p = iree_linalg_ext.pack %src inner_dims_pos = [0, 1] inner_tiles = [32, 16] into %p0 : (tensor<128x256xi32> tensor<4x16x32x16xi32>) -> tensor<4x16x32x16xi32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [32, 16] into %u0 : tensor<4x16x32x16xi32> -> tensor<128x256xi32>
  return %u : tensor<128x256xi32>
}

// Attention with a float mask and a score modification that reads an index.
func.func @attention(%q: tensor<2x3x4xf16>, %k: tensor<2x5x4xf16>, %v: tensor<2x5x6xf16>, %m: tensor<2x3x5xf16>) -> tensor<2x3x6xf16> {
  %s = arith.constant 0.5 : f16
  %o = tensor.empty() : tensor<2x3x6xf16>
  %r = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>]} ins(%q, %k, %v, %s, %m : tensor<2x3x4xf16>, tensor<2x5x4xf16>, tensor<2x5x6xf16>, f16, tensor<2x3x5xf16>) outs(%o : tensor<2x3x6xf16>) {
  ^bb0(%score: f32):
    %i = iree_linalg_ext.index 2 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %a = arith.addf %score, %f : f32
    iree_linalg_ext.yield %a : f32
  } -> tensor<2x3x6xf16>
  return %r : tensor<2x3x6xf16>
}

// online_attention: running max and sum; an i1 mask in IREE's packed storage.
func.func @online(%q: tensor<1x4x4xf32>, %k: tensor<1x4x4xf32>, %v: tensor<1x4x4xf32>, %m: tensor<1x4x4xi1, #iree_encoding.packed_storage>, %acc: tensor<1x4x4xf32>, %max: tensor<1x4xf32>, %sum: tensor<1x4xf32>) -> (tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %s = arith.constant 0.5 : f32
  %r:3 = iree_linalg_ext.online_attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>]} ins(%q, %k, %v, %s, %m : tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1x4x4xf32>, f32, tensor<1x4x4xi1, #iree_encoding.packed_storage>) outs(%acc, %max, %sum : tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
  return %r#0, %r#1, %r#2 : tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}

// arg_compare: argmin along dimension 1 with an index base, and argmax merging explicit indices.
func.func @arg_compare(%x: tensor<3x7xf32>, %v: tensor<3xf32>, %i: tensor<3xi32>, %xi: tensor<3x7xi32>, %base: index) -> (tensor<3xf32>, tensor<3xi32>, tensor<3xf32>, tensor<3xi32>) {
  %0:2 = iree_linalg_ext.arg_compare dimension(1) ins(%x : tensor<3x7xf32>) outs(%v, %i : tensor<3xf32>, tensor<3xi32>) index_base(%base : index) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<3xf32>, tensor<3xi32>
  %1:2 = iree_linalg_ext.arg_compare dimension(1) ins(%x, %xi : tensor<3x7xf32>, tensor<3x7xi32>) outs(%v, %i : tensor<3xf32>, tensor<3xi32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<3xf32>, tensor<3xi32>
  return %0#0, %0#1, %1#0, %1#1 : tensor<3xf32>, tensor<3xi32>, tensor<3xf32>, tensor<3xi32>
}

// Winograd F(6x6, 3x3): an NHWC input padded to whole tiles, and an NCHW output cut to its extents.
func.func @winograd(%x: tensor<1x10x14x2xf32>, %m: tensor<8x8x1x2x2x3xf32>) -> (tensor<8x8x1x2x3x2xf32>, tensor<1x3x10x11xf32>) {
  %e = tensor.empty() : tensor<8x8x1x2x3x2xf32>
  %0 = iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%x : tensor<1x10x14x2xf32>) outs(%e : tensor<8x8x1x2x3x2xf32>) -> tensor<8x8x1x2x3x2xf32>
  %o = tensor.empty() : tensor<1x3x10x11xf32>
  %1 = iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([2, 3]) ins(%m : tensor<8x8x1x2x2x3xf32>) outs(%o : tensor<1x3x10x11xf32>) -> tensor<1x3x10x11xf32>
  return %0, %1 : tensor<8x8x1x2x3x2xf32>, tensor<1x3x10x11xf32>
}

// scan: inclusive along dimension 1, and exclusive (starting from the accumulator) along dimension 0.
func.func @scan(%x: tensor<2x5xi32>, %a0: tensor<2xi32>, %a1: tensor<5xi32>) -> (tensor<2x5xi32>, tensor<2xi32>, tensor<2x5xi32>, tensor<5xi32>) {
  %e = tensor.empty() : tensor<2x5xi32>
  %0:2 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : tensor<2x5xi32>) outs(%e, %a0 : tensor<2x5xi32>, tensor<2xi32>) {
  ^bb0(%p: i32, %v: i32):
    %s = arith.subi %p, %v : i32
    iree_linalg_ext.yield %s : i32
  } -> tensor<2x5xi32>, tensor<2xi32>
  %1:2 = iree_linalg_ext.scan dimension(0) inclusive(false) ins(%x : tensor<2x5xi32>) outs(%e, %a1 : tensor<2x5xi32>, tensor<5xi32>) {
  ^bb0(%p: i32, %v: i32):
    %s = arith.addi %p, %v : i32
    iree_linalg_ext.yield %s : i32
  } -> tensor<2x5xi32>, tensor<5xi32>
  return %0#0, %0#1, %1#0, %1#1 : tensor<2x5xi32>, tensor<2xi32>, tensor<2x5xi32>, tensor<5xi32>
}

// sort: keys and values along dimension 1, ordered by the keys.
func.func @sort(%k: tensor<3x6xi32>, %v: tensor<3x6xf32>) -> (tensor<3x6xi32>, tensor<3x6xf32>) {
  %0:2 = iree_linalg_ext.sort dimension(1) outs(%k, %v : tensor<3x6xi32>, tensor<3x6xf32>) {
  ^bb0(%a: i32, %b: i32, %c: f32, %d: f32):
    %lt = arith.cmpi slt, %a, %b : i32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<3x6xi32>, tensor<3x6xf32>
  return %0#0, %0#1 : tensor<3x6xi32>, tensor<3x6xf32>
}

// topk: the largest 3 of each row merged with the outputs' contents; topk_v2 without indices.
func.func @topk(%x: tensor<2x8xf32>, %ov: tensor<2x3xf32>, %oi: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) {
  %0:2 = iree_linalg_ext.topk dimension(1) ins(%x : tensor<2x8xf32>) outs(%ov, %oi : tensor<2x3xf32>, tensor<2x3xi32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<2x3xf32>, tensor<2x3xi32>
  %1 = iree_linalg_ext.topk_v2 dimension(1) is_sorted ins(%x : tensor<2x8xf32>) outs(%ov : tensor<2x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<2x3xf32>
  return %0#0, %0#1, %1 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>
}

// gather with a mask, and scatter adding updates whose slice overlaps an indexed dimension (Dec 2022 shapes).
func.func @gather_scatter(%src: tensor<5x4xf32>, %idx: tensor<3xi32>, %mask: tensor<3xi1>, %out: tensor<3x4xf32>, %upd: tensor<2x2x3xf32>, %uidx: tensor<2x2xi32>, %orig: tensor<6x4xf32>) -> (tensor<3x4xf32>, tensor<6x4xf32>) {
  %0 = iree_linalg_ext.gather dimension_map = [0] ins(%src, %idx, %mask : tensor<5x4xf32>, tensor<3xi32>, tensor<3xi1>) outs(%out : tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(false) ins(%upd, %uidx : tensor<2x2x3xf32>, tensor<2x2xi32>) outs(%orig : tensor<6x4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %u, %o : f32
    iree_linalg_ext.yield %s : f32
  } -> tensor<6x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<6x4xf32>
}

// reverse along a static and a dynamic dimension.
func.func @reverse(%x: tensor<3x?xi32>, %o: tensor<3x?xi32>) -> tensor<3x?xi32> {
  %0 = iree_linalg_ext.reverse dimensions(dense<[0, 1]> : tensor<2xi64>) ins(%x : tensor<3x?xi32>) outs(%o : tensor<3x?xi32>) : tensor<3x?xi32>
  return %0 : tensor<3x?xi32>
}

// Elementwise named ops: inputs cast to the output's element type.
func.func @elementwise(%a: tensor<4x?xf16>, %b: tensor<4x?xf32>, %i: tensor<8xi8>, %j: tensor<8xi32>) -> (tensor<4x?xf32>, tensor<8xi32>, tensor<8xi32>) {
  %0 = linalg.sub ins(%a, %b : tensor<4x?xf16>, tensor<4x?xf32>) outs(%b : tensor<4x?xf32>) -> tensor<4x?xf32>
  %1 = linalg.reciprocal ins(%0 : tensor<4x?xf32>) outs(%b : tensor<4x?xf32>) -> tensor<4x?xf32>
  %2 = linalg.div_unsigned ins(%i, %j : tensor<8xi8>, tensor<8xi32>) outs(%j : tensor<8xi32>) -> tensor<8xi32>
  %3 = linalg.max ins(%i, %j : tensor<8xi8>, tensor<8xi32>) outs(%j : tensor<8xi32>) -> tensor<8xi32>
  return %1, %2, %3 : tensor<4x?xf32>, tensor<8xi32>, tensor<8xi32>
}

// map_load: a direct read at the index the region computes (linearized over
// a dynamic basis), padding outside the source; map_store: a search over the
// input for the element each output index receives (delinearized, masked).
func.func @map_load_store(%src: tensor<?xf32>, %o: tensor<3x?xf32>, %n: index, %in: tensor<6xi32>, %dst: tensor<2x3xi32>) -> (tensor<3x?xf32>, tensor<2x3xi32>) {
  %pad = arith.constant -1.0 : f32
  %0 = iree_linalg_ext.map_load %src into %o {
  ^bb0(%i: index, %j: index):
    %l = affine.linearize_index disjoint [%i, %j] by (3, %n) : index
    iree_linalg_ext.yield %l, %pad : index, f32
  } : tensor<?xf32> into tensor<3x?xf32> -> tensor<3x?xf32>
  %1 = iree_linalg_ext.map_store %in into %dst {
  ^bb0(%k: index):
    %r:2 = affine.delinearize_index %k into (3) : index, index
    %c1 = arith.constant 1 : index
    %m = arith.cmpi ne, %r#0, %c1 : index
    iree_linalg_ext.yield %r#0, %r#1, %m : index, index, i1
  } : tensor<6xi32> into tensor<2x3xi32> -> tensor<2x3xi32>
  return %0, %1 : tensor<3x?xf32>, tensor<2x3xi32>
}
