// The payload of TestTransformSpec: -|a * b| as three linalg.generic ops,
// once with dynamic shapes and once with static ones.
#id = affine_map<(d0) -> (d0)>
func.func @mul_abs_negate(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<6xf32>, %d: tensor<6xf32>) -> (tensor<?xf32>, tensor<6xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<?xf32>
  %abs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%m : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = math.absf %x : f32
    linalg.yield %p : f32
  } -> tensor<?xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%abs : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = arith.negf %x : f32
    linalg.yield %p : f32
  } -> tensor<?xf32>
  %e6 = tensor.empty() : tensor<6xf32>
  %m6 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%c, %d : tensor<6xf32>, tensor<6xf32>) outs(%e6 : tensor<6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<6xf32>
  %abs6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%m6 : tensor<6xf32>) outs(%e6 : tensor<6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = math.absf %x : f32
    linalg.yield %p : f32
  } -> tensor<6xf32>
  %neg6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%abs6 : tensor<6xf32>) outs(%e6 : tensor<6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = arith.negf %x : f32
    linalg.yield %p : f32
  } -> tensor<6xf32>
  return %neg, %neg6 : tensor<?xf32>, tensor<6xf32>
}
