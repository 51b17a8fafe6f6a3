// pack/unpack with padding and both permutations, a dynamic tile, and
// attention with a float mask; checked by linalgext_ops_test.go.
func.func @pack_pad(%x: tensor<13x15xf32>) -> tensor<3x4x5x4xf32> {
  %pad = arith.constant -1.0 : f32
  %e = tensor.empty() : tensor<3x4x5x4xf32>
  %p = linalg.pack %x padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [5, 4] into %e : tensor<13x15xf32> -> tensor<3x4x5x4xf32>
  return %p : tensor<3x4x5x4xf32>
}

func.func @unpack_slice(%p: tensor<3x4x5x4xf32>) -> tensor<13x15xf32> {
  %e = tensor.empty() : tensor<13x15xf32>
  %u = iree_linalg_ext.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [5, 4] into %e : (tensor<3x4x5x4xf32> tensor<13x15xf32>) -> tensor<13x15xf32>
  return %u : tensor<13x15xf32>
}

func.func @pack_dyn(%x: tensor<?x?xf32>, %t: index) -> tensor<?x?x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %o0 = arith.ceildivui %d0, %t : index
  %o1 = arith.ceildivui %d1, %c4 : index
  %e = tensor.empty(%o0, %o1, %t) : tensor<?x?x?x4xf32>
  %p = linalg.pack %x padding_value(%zero : f32) inner_dims_pos = [0, 1] inner_tiles = [%t, 4] into %e : tensor<?x?xf32> -> tensor<?x?x?x4xf32>
  return %p : tensor<?x?x?x4xf32>
}

func.func @attention(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>, %v: tensor<2x5x6xf32>, %m: tensor<2x3x5xf32>) -> tensor<2x3x6xf32> {
  %s = arith.constant 0.5 : f32
  %o = tensor.empty() : tensor<2x3x6xf32>
  %r = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>]} ins(%q, %k, %v, %s, %m : tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x6xf32>, f32, tensor<2x3x5xf32>) outs(%o : tensor<2x3x6xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<2x3x6xf32>
  return %r : tensor<2x3x6xf32>
}

func.func @online(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>, %v: tensor<2x5x6xf32>, %acc: tensor<2x3x6xf32>, %max: tensor<2x3xf32>, %sum: tensor<2x3xf32>) -> (tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = arith.constant 0.25 : f32
  %r:3 = iree_linalg_ext.online_attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>]} ins(%q, %k, %v, %s : tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x6xf32>, f32) outs(%acc, %max, %sum : tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  return %r#0, %r#1, %r#2 : tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

func.func @argmin_base(%x: tensor<4x9xf32>, %base: index) -> (tensor<4xf32>, tensor<4xi32>) {
  %big = arith.constant 1.0e+30 : f32
  %zero = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi32>
  %v = linalg.fill ins(%big : f32) outs(%ev : tensor<4xf32>) -> tensor<4xf32>
  %i = linalg.fill ins(%zero : i32) outs(%ei : tensor<4xi32>) -> tensor<4xi32>
  %r:2 = iree_linalg_ext.arg_compare dimension(1) ins(%x : tensor<4x9xf32>) outs(%v, %i : tensor<4xf32>, tensor<4xi32>) index_base(%base : index) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<4xf32>, tensor<4xi32>
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi32>
}

func.func @argmax_merge(%x: tensor<9x4xf32>, %xi: tensor<9x4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %low = arith.constant -1.0e+30 : f32
  %zero = arith.constant -1 : i32
  %ev = tensor.empty() : tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi32>
  %v = linalg.fill ins(%low : f32) outs(%ev : tensor<4xf32>) -> tensor<4xf32>
  %i = linalg.fill ins(%zero : i32) outs(%ei : tensor<4xi32>) -> tensor<4xi32>
  %r:2 = iree_linalg_ext.arg_compare dimension(0) ins(%x, %xi : tensor<9x4xf32>, tensor<9x4xi32>) outs(%v, %i : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<4xf32>, tensor<4xi32>
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi32>
}

func.func @winograd_input(%x: tensor<2x10x14x3xf32>) -> tensor<8x8x2x2x3x3xf32> {
  %e = tensor.empty() : tensor<8x8x2x2x3x3xf32>
  %0 = iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%x : tensor<2x10x14x3xf32>) outs(%e : tensor<8x8x2x2x3x3xf32>) -> tensor<8x8x2x2x3x3xf32>
  return %0 : tensor<8x8x2x2x3x3xf32>
}

func.func @winograd_output(%m: tensor<8x8x2x2x2x3xf32>) -> tensor<2x3x10x11xf32> {
  %o = tensor.empty() : tensor<2x3x10x11xf32>
  %0 = iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([2, 3]) ins(%m : tensor<8x8x2x2x2x3xf32>) outs(%o : tensor<2x3x10x11xf32>) -> tensor<2x3x10x11xf32>
  return %0 : tensor<2x3x10x11xf32>
}

func.func @scan_sub(%x: tensor<3x7xf32>, %a: tensor<3xf32>) -> (tensor<3x7xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3x7xf32>
  %0:2 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : tensor<3x7xf32>) outs(%e, %a : tensor<3x7xf32>, tensor<3xf32>) {
  ^bb0(%p: f32, %v: f32):
    %s = arith.subf %p, %v : f32
    iree_linalg_ext.yield %s : f32
  } -> tensor<3x7xf32>, tensor<3xf32>
  return %0#0, %0#1 : tensor<3x7xf32>, tensor<3xf32>
}

func.func @scan_exclusive(%x: tensor<7x3xf32>, %a: tensor<3xf32>) -> (tensor<7x3xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<7x3xf32>
  %0:2 = iree_linalg_ext.scan dimension(0) inclusive(false) ins(%x : tensor<7x3xf32>) outs(%e, %a : tensor<7x3xf32>, tensor<3xf32>) {
  ^bb0(%p: f32, %v: f32):
    %m = arith.mulf %p, %v : f32
    %s = arith.addf %m, %v : f32
    iree_linalg_ext.yield %s : f32
  } -> tensor<7x3xf32>, tensor<3xf32>
  return %0#0, %0#1 : tensor<7x3xf32>, tensor<3xf32>
}

func.func @sort_pairs(%k: tensor<3x9xf32>, %v: tensor<3x9xi32>) -> (tensor<3x9xf32>, tensor<3x9xi32>) {
  %0:2 = iree_linalg_ext.sort dimension(1) outs(%k, %v : tensor<3x9xf32>, tensor<3x9xi32>) {
  ^bb0(%a: f32, %b: f32, %c: i32, %d: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<3x9xf32>, tensor<3x9xi32>
  return %0#0, %0#1 : tensor<3x9xf32>, tensor<3x9xi32>
}

func.func @topk_merge(%x: tensor<3x12xf32>, %xi: tensor<3x12xi32>, %ov: tensor<3x4xf32>, %oi: tensor<3x4xi32>) -> (tensor<3x4xf32>, tensor<3x4xi32>) {
  %0:2 = iree_linalg_ext.topk dimension(1) ins(%x, %xi : tensor<3x12xf32>, tensor<3x12xi32>) outs(%ov, %oi : tensor<3x4xf32>, tensor<3x4xi32>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<3x4xf32>, tensor<3x4xi32>
  return %0#0, %0#1 : tensor<3x4xf32>, tensor<3x4xi32>
}

func.func @topk_values(%x: tensor<3x12xf32>) -> tensor<3x5xf32> {
  %low = arith.constant -1.0e+30 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %o = linalg.fill ins(%low : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %0 = iree_linalg_ext.topk_v2 dimension(1) is_sorted ins(%x : tensor<3x12xf32>) outs(%o : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

func.func @gather_rows(%src: tensor<6x5xf32>, %idx: tensor<4x1xi32>, %mask: tensor<4xi1>, %out: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = iree_linalg_ext.gather dimension_map = [0] ins(%src, %idx, %mask : tensor<6x5xf32>, tensor<4x1xi32>, tensor<4xi1>) outs(%out : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

func.func @scatter_add(%upd: tensor<7x3xf32>, %idx: tensor<7x2xi32>, %orig: tensor<4x5x3xf32>) -> tensor<4x5x3xf32> {
  %0 = iree_linalg_ext.scatter dimension_map = [1, 0] unique_indices(false) ins(%upd, %idx : tensor<7x3xf32>, tensor<7x2xi32>) outs(%orig : tensor<4x5x3xf32>) {
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %u, %o : f32
    iree_linalg_ext.yield %s : f32
  } -> tensor<4x5x3xf32>
  return %0 : tensor<4x5x3xf32>
}

func.func @reverse(%x: tensor<4x?x3xf32>) -> tensor<4x?x3xf32> {
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c1 : tensor<4x?x3xf32>
  %e = tensor.empty(%d) : tensor<4x?x3xf32>
  %0 = iree_linalg_ext.reverse dimensions(dense<[1, 2]> : tensor<2xi64>) ins(%x : tensor<4x?x3xf32>) outs(%e : tensor<4x?x3xf32>) : tensor<4x?x3xf32>
  return %0 : tensor<4x?x3xf32>
}

func.func @elementwise(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<3x5xf32>
  %0 = linalg.sub ins(%a, %b : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %1 = linalg.square ins(%0 : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %2 = linalg.exp ins(%b : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %3 = linalg.max ins(%1, %2 : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %4 = linalg.negf ins(%3 : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %4 : tensor<3x5xf32>
}
