// f16 scalar constants written in host code, as IREE's wmma test writes
// them: two captured by a linalg.generic body, one filling the f16
// accumulator of a sum. Host code has no f16 values; dispatch formation
// takes the constants into the kernels.
func.func @f16_constants(%x: tensor<8xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f16
  %one = arith.constant 1.0 : f16
  %half = arith.constant 0.5 : f16
  %e = tensor.empty() : tensor<8xf16>
  %mask = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf16>) {
  ^bb0(%v: f32, %o: f16):
    %c0 = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %v, %c0 : f32
    %s = arith.select %pos, %one, %zero : f16
    linalg.yield %s : f16
  } -> tensor<8xf16>
  %e0 = tensor.empty() : tensor<f16>
  %init = linalg.fill ins(%half : f16) outs(%e0 : tensor<f16>) -> tensor<f16>
  %sum = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%mask : tensor<8xf16>) outs(%init : tensor<f16>) {
  ^bb0(%m: f16, %acc: f16):
    %a = arith.addf %m, %acc : f16
    linalg.yield %a : f16
  } -> tensor<f16>
  %ef = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%sum : tensor<f16>) outs(%ef : tensor<f32>) {
  ^bb0(%s: f16, %o: f32):
    %w = arith.extf %s : f16 to f32
    linalg.yield %w : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
