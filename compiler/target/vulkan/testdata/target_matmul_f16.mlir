// f16 matmuls with f32 accumulators: linalg.matmul's multiply-add, which
// runs on cooperative matrices for targets that have them, and a body
// that is not one (targetinfo_test.go).
func.func @mm16(%a: tensor<300x70xf16>, %b: tensor<70x200xf16>) -> tensor<300x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<300x200xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<300x200xf32>) -> tensor<300x200xf32>
  %r = linalg.matmul ins(%a, %b : tensor<300x70xf16>, tensor<70x200xf16>) outs(%acc : tensor<300x200xf32>) -> tensor<300x200xf32>
  return %r : tensor<300x200xf32>
}

func.func @mm16_onto(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @maxplus16(%a: tensor<300x70xf16>, %b: tensor<70x200xf16>, %c: tensor<300x200xf32>) -> tensor<300x200xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<300x70xf16>, tensor<70x200xf16>) outs(%c : tensor<300x200xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %s = arith.addf %xe, %ye : f32
    %m = arith.maximumf %acc, %s : f32
    linalg.yield %m : f32
  } -> tensor<300x200xf32>
  return %r : tensor<300x200xf32>
}
