// Reassociated reductions of 16-bit floats whose parts are kept in f32
// and rounded once (gpuloops.Reduction.WideParts): f16 and bf16 row sums
// shared by a block (rows of IREE's large_reduction length, 4096), a sum
// of squares (a body that computes its value in f16 before the fold), a
// bf16 product, and many rows (16 to a block), a warp each.
#rows = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
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
