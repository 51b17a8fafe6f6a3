// Globals reached through util.global.address, the way TensorFlow imports
// (IREE's BERT and MobileNet models) take their weights: a constant weight
// loaded indirectly, and a mutable running total loaded and stored
// indirectly.
util.global private @weight = dense<[2.0, -1.0, 0.5, 4.0]> : tensor<4xf32>
util.global private mutable @total = dense<0.0> : tensor<4xf32>

func.func @scale_and_accumulate(%x: tensor<4xf32>) -> tensor<4xf32> {
  %wp = util.global.address @weight : !util.ptr<tensor<4xf32>>
  %tp = util.global.address @total : !util.ptr<tensor<4xf32>>
  %w = util.global.load.indirect %wp : !util.ptr<tensor<4xf32>> -> tensor<4xf32>
  %t = util.global.load.indirect %tp : !util.ptr<tensor<4xf32>> -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x, %w, %t : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %c : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  util.global.store.indirect %r, %tp : tensor<4xf32> -> !util.ptr<tensor<4xf32>>
  return %r : tensor<4xf32>
}
