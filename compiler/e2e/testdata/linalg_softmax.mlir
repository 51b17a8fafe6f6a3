// Row softmax as IREE's front ends emit it before fusion: a max reduction,
// exp(x - max), a sum reduction and a division, each a linalg.generic.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<16x1000xf32>) -> tensor<16x1000xf32> {
  %lowest = arith.constant -3.40282347e+38 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x1000xf32>
  %mi = linalg.fill ins(%lowest : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x1000xf32>) outs(%mi : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<16x1000xf32>, tensor<16xf32>) outs(%e2 : tensor<16x1000xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %p = math.exp %d : f32
    linalg.yield %p : f32
  } -> tensor<16x1000xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<16x1000xf32>) outs(%si : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<16x1000xf32>, tensor<16xf32>) outs(%e2 : tensor<16x1000xf32>) {
  ^bb0(%p: f32, %s: f32, %o: f32):
    %q = arith.divf %p, %s : f32
    linalg.yield %q : f32
  } -> tensor<16x1000xf32>
  return %out : tensor<16x1000xf32>
}
