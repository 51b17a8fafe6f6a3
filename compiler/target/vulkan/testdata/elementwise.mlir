// A program with only compiler-generated dispatches on Vulkan:
// (a + b) * a - b, a >= -b ? max(a, -b) : -b, masks (i1 tensors, one byte
// each) out and in, and integer math, each fused into one generated SPIR-V
// dispatch.

#spirv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">
#device = #hal.device.target<"vulkan", {executable_targets = [#spirv]}>

module @elementwise attributes {hal.device.targets = [#device]} {
  func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %s = arith.addf %a, %b : tensor<?xf32>
    %p = arith.mulf %s, %a : tensor<?xf32>
    %r = arith.subf %p, %b : tensor<?xf32>
    return %r : tensor<?xf32>
  }
  func.func @select(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %nb = arith.negf %b : tensor<?xf32>
    %c = arith.cmpf oge, %a, %nb : tensor<?xf32>
    %m = arith.maximumf %a, %nb : tensor<?xf32>
    %r = arith.select %c, %m, %nb : tensor<?xi1>, tensor<?xf32>
    return %r : tensor<?xf32>
  }
  func.func @relu_mask(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi1>) {
    %pos = arith.cmpf ogt, %a, %b : tensor<?xf32>
    %r = arith.select %pos, %a, %b : tensor<?xi1>, tensor<?xf32>
    return %r, %pos : tensor<?xf32>, tensor<?xi1>
  }
  func.func @mask_select(%m: tensor<?xi1>, %a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %r = arith.select %m, %a, %b : tensor<?xi1>, tensor<?xf32>
    return %r : tensor<?xf32>
  }
  func.func @ints(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
    %s = arith.muli %a, %b : tensor<?xi32>
    %r = arith.remsi %s, %b : tensor<?xi32>
    %x = arith.addi %s, %r : tensor<?xi32>
    return %x : tensor<?xi32>
  }
}
