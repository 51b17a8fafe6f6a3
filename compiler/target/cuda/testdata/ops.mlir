// Op coverage of the cuda elementwise code generator: each result is one
// op (or a short chain) over the inputs, all fused into one dispatch per
// function; the test checks every element against Go.
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#cuda = #hal.device.target<"cuda", {executable_targets = [#sm_80]}>

module @ops attributes {hal.device.targets = [#cuda]} {
  func.func @float_ops(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
    %div = arith.divf %a, %b : tensor<?xf32>
    %max = arith.maximumf %a, %b : tensor<?xf32>
    %min = arith.minimumf %a, %b : tensor<?xf32>
    %maxn = arith.maxnumf %a, %b : tensor<?xf32>
    %neg = arith.negf %a : tensor<?xf32>
    %abs = math.absf %a : tensor<?xf32>
    %sqrt = math.sqrt %abs : tensor<?xf32>
    %rsqrt = math.rsqrt %abs : tensor<?xf32>
    %floor = math.floor %a : tensor<?xf32>
    %ceil = math.ceil %a : tensor<?xf32>
    %trunc = math.trunc %a : tensor<?xf32>
    %exp = math.exp %b : tensor<?xf32>
    %log = math.log %abs : tensor<?xf32>
    %tanh = math.tanh %a : tensor<?xf32>
    %fma = math.fma %a, %b, %a : tensor<?xf32>
    return %div, %max, %min, %maxn, %neg, %sqrt, %rsqrt, %floor, %ceil, %trunc, %exp, %log, %tanh, %fma, %abs : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  }

  func.func @int_ops(%x: tensor<?xi32>, %y: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
    %add = arith.addi %x, %y : tensor<?xi32>
    %sub = arith.subi %x, %y : tensor<?xi32>
    %mul = arith.muli %x, %y : tensor<?xi32>
    %divs = arith.divsi %x, %y : tensor<?xi32>
    %rems = arith.remsi %x, %y : tensor<?xi32>
    %divu = arith.divui %x, %y : tensor<?xi32>
    %and = arith.andi %x, %y : tensor<?xi32>
    %or = arith.ori %x, %y : tensor<?xi32>
    %xor = arith.xori %x, %y : tensor<?xi32>
    %three = arith.constant dense<3> : tensor<?xi32>
    %shl = arith.shli %x, %three : tensor<?xi32>
    %shrs = arith.shrsi %x, %three : tensor<?xi32>
    %shru = arith.shrui %x, %three : tensor<?xi32>
    %maxs = arith.maxsi %x, %y : tensor<?xi32>
    %mins = arith.minsi %x, %y : tensor<?xi32>
    %lt = arith.cmpi slt, %x, %y : tensor<?xi32>
    %ult = arith.cmpi ult, %x, %y : tensor<?xi32>
    %both = arith.andi %lt, %ult : tensor<?xi1>
    %sel = arith.select %both, %x, %y : tensor<?xi1>, tensor<?xi32>
    %wide = arith.extsi %x : tensor<?xi32> to tensor<?xi64>
    %wsq = arith.muli %wide, %wide : tensor<?xi64>
    %narrow = arith.trunci %wsq : tensor<?xi64> to tensor<?xi32>
    return %add, %sub, %mul, %divs, %rems, %divu, %and, %or, %xor, %shl, %shrs, %shru, %maxs, %mins, %sel, %narrow : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
  }

  func.func @conversions(%a: tensor<?xf32>, %x: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
    %fi = arith.fptosi %a : tensor<?xf32> to tensor<?xi32>
    %uf = arith.uitofp %x : tensor<?xi32> to tensor<?xf32>
    %d = arith.extf %a : tensor<?xf32> to tensor<?xf64>
    %d2 = arith.mulf %d, %d : tensor<?xf64>
    %f = arith.truncf %d2 : tensor<?xf64> to tensor<?xf32>
    %bits = arith.bitcast %x : tensor<?xi32> to tensor<?xf32>
    return %fi, %uf, %f, %bits : tensor<?xi32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  }
}
