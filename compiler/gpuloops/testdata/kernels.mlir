// One function per kernel shape; each linalg op becomes one loop nest.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rowmax(%x: tensor<16x1000xf32>, %i: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x1000xf32>) outs(%i : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

func.func @sumsq(%x: tensor<16x1000xf32>, %i: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x1000xf32>) outs(%i : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

func.func @short(%x: tensor<16x8xf32>, %i: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.reduce { arith.addf } ins(%x : tensor<16x8xf32>) outs(%i : tensor<16xf32>) dimensions = [1]
  return %r : tensor<16xf32>
}

func.func @dynrows(%x: tensor<?x?xi32>, %i: tensor<?xi32>) -> tensor<?xi32> {
  %r = linalg.reduce { arith.maxsi } ins(%x : tensor<?x?xi32>) outs(%i : tensor<?xi32>) dimensions = [1]
  return %r : tensor<?xi32>
}

func.func @columns(%x: tensor<100x16xf32>, %i: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.reduce { arith.addf } ins(%x : tensor<100x16xf32>) outs(%i : tensor<16xf32>) dimensions = [0]
  return %r : tensor<16xf32>
}

func.func @matmul(%a: tensor<4096x64xf32>, %b: tensor<64x32xf32>, %c: tensor<4096x32xf32>) -> tensor<4096x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4096x64xf32>, tensor<64x32xf32>) outs(%c : tensor<4096x32xf32>) -> tensor<4096x32xf32>
  return %r : tensor<4096x32xf32>
}

func.func @small(%a: tensor<5x64xf32>, %b: tensor<64x32xf32>, %c: tensor<5x32xf32>) -> tensor<5x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<5x64xf32>, tensor<64x32xf32>) outs(%c : tensor<5x32xf32>) -> tensor<5x32xf32>
  return %r : tensor<5x32xf32>
}

func.func @batch(%a: tensor<3x40x8xf32>, %b: tensor<3x8x7xf32>, %c: tensor<3x40x7xf32>) -> tensor<3x40x7xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x40x8xf32>, tensor<3x8x7xf32>) outs(%c : tensor<3x40x7xf32>) -> tensor<3x40x7xf32>
  return %r : tensor<3x40x7xf32>
}

func.func @transposed(%a: tensor<8x6xf32>, %b: tensor<5x6xf32>, %c: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x6xf32>, tensor<5x6xf32>) outs(%c : tensor<8x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x5xf32>
  return %r : tensor<8x5xf32>
}

func.func @matvec(%m: tensor<3x4xf32>, %v: tensor<4xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.matvec ins(%m, %v : tensor<3x4xf32>, tensor<4xf32>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// More rows than gpuloops.Workgroups: three rows per workgroup.
func.func @tall(%x: tensor<20000x64xi32>, %i: tensor<20000xi32>) -> tensor<20000xi32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<20000x64xi32>) outs(%i : tensor<20000xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %s = arith.addi %acc, %in : i32
    linalg.yield %s : i32
  } -> tensor<20000xi32>
  return %r : tensor<20000xi32>
}

// 700 columns: 11 blocks of 64 for 128 threads (TN = 128 / 8 * 4).
func.func @wide(%a: tensor<64x16xf32>, %b: tensor<16x700xf32>, %c: tensor<64x700xf32>) -> tensor<64x700xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x700xf32>) outs(%c : tensor<64x700xf32>) -> tensor<64x700xf32>
  return %r : tensor<64x700xf32>
}

// Dynamic columns: gpuloops.DynamicColumnGroups.
func.func @dyncols(%a: tensor<64x16xf32>, %b: tensor<16x?xf32>, %c: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x?xf32>) outs(%c : tensor<64x?xf32>) -> tensor<64x?xf32>
  return %r : tensor<64x?xf32>
}

// One row (a vector times a matrix).
func.func @row(%a: tensor<1x300xf32>, %b: tensor<300x50xf32>, %c: tensor<1x50xf32>) -> tensor<1x50xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x300xf32>, tensor<300x50xf32>) outs(%c : tensor<1x50xf32>) -> tensor<1x50xf32>
  return %r : tensor<1x50xf32>
}

// 16-bit float reductions: sums and products keep their parts in f32
// (Reduction.WideParts), maxima and f32 sums of extended f16 do not.
func.func @sum_f16(%x: tensor<16x1000xf16>, %i: tensor<16xf16>) -> tensor<16xf16> {
  %r = linalg.reduce { arith.addf } ins(%x : tensor<16x1000xf16>) outs(%i : tensor<16xf16>) dimensions = [1]
  return %r : tensor<16xf16>
}

func.func @prod_bf16(%x: tensor<16x1000xbf16>, %i: tensor<16xbf16>) -> tensor<16xbf16> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x1000xbf16>) outs(%i : tensor<16xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %p = arith.mulf %acc, %in : bf16
    linalg.yield %p : bf16
  } -> tensor<16xbf16>
  return %r : tensor<16xbf16>
}

func.func @max_f16(%x: tensor<16x1000xf16>, %i: tensor<16xf16>) -> tensor<16xf16> {
  %r = linalg.reduce { arith.maximumf } ins(%x : tensor<16x1000xf16>) outs(%i : tensor<16xf16>) dimensions = [1]
  return %r : tensor<16xf16>
}

func.func @sum_f16_f32(%x: tensor<16x1000xf16>, %i: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x1000xf16>) outs(%i : tensor<16xf32>) {
  ^bb0(%in: f16, %acc: f32):
    %w = arith.extf %in : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
