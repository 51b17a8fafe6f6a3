// Thirteen layers alternating x*2 and x+1, the way unrolled models repeat
// the same op on the same shapes: two distinct executables.
func.func @layers(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %l0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %l1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l0 : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %l2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l1 : tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %l3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l2 : tensor<4xf32>) outs(%e3 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %l4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l3 : tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e5 = tensor.empty() : tensor<4xf32>
  %l5 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l4 : tensor<4xf32>) outs(%e5 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e6 = tensor.empty() : tensor<4xf32>
  %l6 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l5 : tensor<4xf32>) outs(%e6 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e7 = tensor.empty() : tensor<4xf32>
  %l7 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l6 : tensor<4xf32>) outs(%e7 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e8 = tensor.empty() : tensor<4xf32>
  %l8 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l7 : tensor<4xf32>) outs(%e8 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e9 = tensor.empty() : tensor<4xf32>
  %l9 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l8 : tensor<4xf32>) outs(%e9 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e10 = tensor.empty() : tensor<4xf32>
  %l10 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l9 : tensor<4xf32>) outs(%e10 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e11 = tensor.empty() : tensor<4xf32>
  %l11 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l10 : tensor<4xf32>) outs(%e11 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e12 = tensor.empty() : tensor<4xf32>
  %l12 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l11 : tensor<4xf32>) outs(%e12 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %l12 : tensor<4xf32>
}
