// 16-bit floats on cuda, compiled for one arch at a time (the test keeps
// one of the three targets): sm_60 has native f16 arithmetic only, sm_80
// adds f16/bf16 min/max, bf16 fma and cvt.rn.bf16.f32, sm_90 bf16
// arithmetic and conversions; the H200 runs all three.
#sm60 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_60"}>
#sm80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#sm90 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_90"}>
#gpu = #hal.device.target<"cuda", [#sm60, #sm80, #sm90]> : !hal.device

#id = affine_map<(d0) -> (d0)>
#rows = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
#red = affine_map<(d0, d1) -> (d0)>

module @gpu_half attributes {hal.device.targets = [#gpu]} {
  // Elementwise: fma(x, y, z), (x + y) * x - y / x, maximumf, and
  // x < y ? -x : |y|, in f16 and in bf16.
  func.func @ops(%x: tensor<?xf16>, %y: tensor<?xf16>, %z: tensor<?xf16>, %xb: tensor<?xbf16>, %yb: tensor<?xbf16>, %zb: tensor<?xbf16>) -> (tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>) {
    %fma = math.fma %x, %y, %z : tensor<?xf16>
    %s = arith.addf %x, %y : tensor<?xf16>
    %p = arith.mulf %s, %x : tensor<?xf16>
    %q = arith.divf %y, %x : tensor<?xf16>
    %chain = arith.subf %p, %q : tensor<?xf16>
    %max = arith.maximumf %x, %y : tensor<?xf16>
    %lt = arith.cmpf olt, %x, %y : tensor<?xf16>
    %neg = arith.negf %x : tensor<?xf16>
    %abs = math.absf %y : tensor<?xf16>
    %sel = arith.select %lt, %neg, %abs : tensor<?xi1>, tensor<?xf16>
    %fmab = math.fma %xb, %yb, %zb : tensor<?xbf16>
    %sb = arith.addf %xb, %yb : tensor<?xbf16>
    %pb = arith.mulf %sb, %xb : tensor<?xbf16>
    %qb = arith.divf %yb, %xb : tensor<?xbf16>
    %chainb = arith.subf %pb, %qb : tensor<?xbf16>
    %maxb = arith.maximumf %xb, %yb : tensor<?xbf16>
    %ltb = arith.cmpf olt, %xb, %yb : tensor<?xbf16>
    %negb = arith.negf %xb : tensor<?xbf16>
    %absb = math.absf %yb : tensor<?xbf16>
    %selb = arith.select %ltb, %negb, %absb : tensor<?xi1>, tensor<?xbf16>
    return %fma, %chain, %max, %sel, %fmab, %chainb, %maxb, %selb : tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xbf16>
  }

  // x * b + 0.5 with b broadcast along the rows.
  func.func @bcast(%x: tensor<?x?xf16>, %b: tensor<?xf16>) -> tensor<?x?xf16> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %x, %c0 : tensor<?x?xf16>
    %n = tensor.dim %x, %c1 : tensor<?x?xf16>
    %e = tensor.empty(%m, %n) : tensor<?x?xf16>
    %r = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<?x?xf16>, tensor<?xf16>) outs(%e : tensor<?x?xf16>) {
    ^bb0(%u: f16, %v: f16, %o: f16):
      %half = arith.constant 0.5 : f16
      %p = arith.mulf %u, %v : f16
      %s = arith.addf %p, %half : f16
      linalg.yield %s : f16
    } -> tensor<?x?xf16>
    return %r : tensor<?x?xf16>
  }

  // Row sums of f16 in f32 (extf in the body) and in f16, the rows'
  // largest elements, and row sums of bf16 in bf16.
  func.func @rows(%x: tensor<?x?xf16>, %y: tensor<?x?xbf16>) -> (tensor<?xf32>, tensor<?xf16>, tensor<?xf16>, tensor<?xbf16>) {
    %c0 = arith.constant 0 : index
    %z32 = arith.constant 0.0 : f32
    %z16 = arith.constant 0.0 : f16
    %ninf = arith.constant 0xFC00 : f16
    %zb = arith.constant 0.0 : bf16
    %m = tensor.dim %x, %c0 : tensor<?x?xf16>
    %mb = tensor.dim %y, %c0 : tensor<?x?xbf16>
    %e32 = tensor.empty(%m) : tensor<?xf32>
    %i32 = linalg.fill ins(%z32 : f32) outs(%e32 : tensor<?xf32>) -> tensor<?xf32>
    %wide = linalg.generic {indexing_maps = [#rows, #red], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf16>) outs(%i32 : tensor<?xf32>) {
    ^bb0(%u: f16, %acc: f32):
      %w = arith.extf %u : f16 to f32
      %s = arith.addf %w, %acc : f32
      linalg.yield %s : f32
    } -> tensor<?xf32>
    %e16 = tensor.empty(%m) : tensor<?xf16>
    %i16 = linalg.fill ins(%z16 : f16) outs(%e16 : tensor<?xf16>) -> tensor<?xf16>
    %sum = linalg.reduce { arith.addf } ins(%x : tensor<?x?xf16>) outs(%i16 : tensor<?xf16>) dimensions = [1]
    %im = linalg.fill ins(%ninf : f16) outs(%e16 : tensor<?xf16>) -> tensor<?xf16>
    %max = linalg.reduce { arith.maximumf } ins(%x : tensor<?x?xf16>) outs(%im : tensor<?xf16>) dimensions = [1]
    %eb = tensor.empty(%mb) : tensor<?xbf16>
    %ib = linalg.fill ins(%zb : bf16) outs(%eb : tensor<?xbf16>) -> tensor<?xbf16>
    %sb = linalg.reduce { arith.addf } ins(%y : tensor<?x?xbf16>) outs(%ib : tensor<?xbf16>) dimensions = [1]
    return %wide, %sum, %max, %sb : tensor<?xf32>, tensor<?xf16>, tensor<?xf16>, tensor<?xbf16>
  }

  // Round trips: f32 to f16 and bf16 and back, f64 to them, and integers
  // to them and back.
  func.func @conv(%a: tensor<?xf32>, %d: tensor<?xf64>, %i: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf64>, tensor<?xf64>, tensor<?xf16>, tensor<?xbf16>, tensor<?xi32>) {
    %h = arith.truncf %a : tensor<?xf32> to tensor<?xf16>
    %g = arith.truncf %a : tensor<?xf32> to tensor<?xbf16>
    %h32 = arith.extf %h : tensor<?xf16> to tensor<?xf32>
    %g32 = arith.extf %g : tensor<?xbf16> to tensor<?xf32>
    %dh = arith.truncf %d : tensor<?xf64> to tensor<?xf16>
    %dg = arith.truncf %d : tensor<?xf64> to tensor<?xbf16>
    %dh64 = arith.extf %dh : tensor<?xf16> to tensor<?xf64>
    %dg64 = arith.extf %dg : tensor<?xbf16> to tensor<?xf64>
    %ih = arith.sitofp %i : tensor<?xi32> to tensor<?xf16>
    %ig = arith.sitofp %i : tensor<?xi32> to tensor<?xbf16>
    %back = arith.fptosi %ig : tensor<?xbf16> to tensor<?xi32>
    return %h32, %g32, %dh64, %dg64, %ih, %ig, %back : tensor<?xf32>, tensor<?xf32>, tensor<?xf64>, tensor<?xf64>, tensor<?xf16>, tensor<?xbf16>, tensor<?xi32>
  }
}
