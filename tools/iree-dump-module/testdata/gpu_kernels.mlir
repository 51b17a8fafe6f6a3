// An f16 matmul into f32 and a row softmax for two GPU generations: on
// sm_52 the matmul takes the SIMT tiles, on sm_80 tensor cores; the
// softmax's reductions are warp reductions on both. iree-dump-module
// prints each kernel's recorded configuration per architecture.
#maxwell = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_52"}>
#ampere = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#gpu = #hal.device.target<"cuda", [#maxwell, #ampere]> : !hal.device

module @gpu_kernels attributes {hal.device.targets = [#gpu]} {
  func.func @matmul(%a: tensor<512x256xf16>, %b: tensor<256x384xf16>) -> tensor<512x384xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<512x384xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<512x384xf32>) -> tensor<512x384xf32>
    %r = linalg.matmul ins(%a, %b : tensor<512x256xf16>, tensor<256x384xf16>) outs(%f : tensor<512x384xf32>) -> tensor<512x384xf32>
    return %r : tensor<512x384xf32>
  }
  func.func @softmax(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
    %e = tensor.empty() : tensor<64x4096xf32>
    %r = linalg.softmax dimension(1) ins(%x : tensor<64x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
    return %r : tensor<64x4096xf32>
  }
}
