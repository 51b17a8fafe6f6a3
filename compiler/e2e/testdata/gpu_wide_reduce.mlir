// Reductions of f16 and bf16 that the GPU targets split across threads
// and subgroups (warps), whose parts are kept in f32 and rounded once
// (gpuloops.Reduction.WideParts). @half_reduction_aligned is IREE's
// tests/e2e/regression/large_reduction.mlir function of that name with
// its input as an argument; the others take their inits as arguments:
// f16 and bf16 sums over 4096-long rows, a sum of squares (the value
// computed in f16 before the fold), a bf16 product, and many rows, a
// subgroup each.
#rows = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @half_reduction_aligned(%in: tensor<2x4096xf16>) -> tensor<2xf16> {
  %cst = arith.constant 0.0 : f16
  %init = tensor.empty() : tensor<2xf16>
  %fill = linalg.fill ins(%cst : f16) outs(%init : tensor<2xf16>) -> tensor<2xf16>
  %result = linalg.generic {indexing_maps = [#rows, #red], iterator_types = ["parallel", "reduction"]} ins(%in : tensor<2x4096xf16>) outs(%fill : tensor<2xf16>) {
  ^bb0(%arg3: f16, %arg4: f16):
    %2 = arith.addf %arg3, %arg4 : f16
    linalg.yield %2 : f16
  } -> tensor<2xf16>
  return %result : tensor<2xf16>
}

func.func @sum_f16(%x: tensor<3x4096xf16>, %i: tensor<3xf16>) -> tensor<3xf16> {
  %r = linalg.reduce { arith.addf } ins(%x : tensor<3x4096xf16>) outs(%i : tensor<3xf16>) dimensions = [1]
  return %r : tensor<3xf16>
}

func.func @sum_bf16(%x: tensor<3x4096xbf16>, %i: tensor<3xbf16>) -> tensor<3xbf16> {
  %r = linalg.reduce { arith.addf } ins(%x : tensor<3x4096xbf16>) outs(%i : tensor<3xbf16>) dimensions = [1]
  return %r : tensor<3xbf16>
}

func.func @sumsq_f16(%x: tensor<3x4096xf16>, %i: tensor<3xf16>) -> tensor<3xf16> {
  %r = linalg.generic {indexing_maps = [#rows, #red], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x4096xf16>) outs(%i : tensor<3xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %q = arith.mulf %in, %in : f16
    %s = arith.addf %q, %acc : f16
    linalg.yield %s : f16
  } -> tensor<3xf16>
  return %r : tensor<3xf16>
}

func.func @prod_bf16(%x: tensor<3x256xbf16>, %i: tensor<3xbf16>) -> tensor<3xbf16> {
  %r = linalg.generic {indexing_maps = [#rows, #red], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x256xbf16>) outs(%i : tensor<3xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %p = arith.mulf %acc, %in : bf16
    linalg.yield %p : bf16
  } -> tensor<3xbf16>
  return %r : tensor<3xbf16>
}

func.func @many_f16(%x: tensor<3x16x256xf16>, %i: tensor<3x16xf16>) -> tensor<3x16xf16> {
  %r = linalg.reduce { arith.addf } ins(%x : tensor<3x16x256xf16>) outs(%i : tensor<3x16xf16>) dimensions = [2]
  return %r : tensor<3x16xf16>
}
