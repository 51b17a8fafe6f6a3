// A program with only compiler-generated dispatches on CUDA: the fused
// chain (a + b) * a - b, and a compare/select/convert chain with splat
// constants.
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#cuda = #hal.device.target<"cuda", {executable_targets = [#sm_80]}>

module @elementwise attributes {hal.device.targets = [#cuda]} {
  func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %s = arith.addf %a, %b : tensor<?xf32>
    %p = arith.mulf %s, %a : tensor<?xf32>
    %r = arith.subf %p, %b : tensor<?xf32>
    return %r : tensor<?xf32>
  }

  func.func @relu_scale(%a: tensor<?xf32>, %b: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>) {
    %two = arith.constant dense<2.0> : tensor<?xf32>
    %zero = arith.constant dense<0.0> : tensor<?xf32>
    %bf = arith.sitofp %b : tensor<?xi32> to tensor<?xf32>
    %s = arith.mulf %a, %two : tensor<?xf32>
    %t = arith.addf %s, %bf : tensor<?xf32>
    %pos = arith.cmpf ogt, %t, %zero : tensor<?xf32>
    %r = arith.select %pos, %t, %zero : tensor<?xi1>, tensor<?xf32>
    return %r, %pos : tensor<?xf32>, tensor<?xi1>
  }
}
