hal.executable private @chain_dispatch_0 {
  hal.executable.variant public @x86_64 target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", native_vector_size = 32 : index, target_triple = "x86_64-unknown-unknown-eabi-elf"}>) {
    hal.executable.export public @chain_dispatch_0_elementwise ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 1024)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
    module {
      func.func private @chain_dispatch_0_elementwise_body(%a: f32, %b: f32) -> f32 {
        %s = arith.addf %a, %b : f32
        %p = arith.mulf %s, %a : f32
        %r = arith.subf %p, %b : f32
        func.return %r : f32
      }
      func.func @chain_dispatch_0_elementwise() attributes {goiree.elementwise = {body = @chain_dispatch_0_elementwise_body, tile_size = 1024 : index}} {
        func.return
      }
    }
  }
}
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.constant 0 : index
  %1 = tensor.dim %a, %0 : tensor<?xf32>
  %2 = arith.index_cast %1 : index to i32
  %r = flow.dispatch @chain_dispatch_0::@chain_dispatch_0_elementwise[%1](%2, %a, %b) : (i32, tensor<?xf32>{%1}, tensor<?xf32>{%1}) -> tensor<?xf32>{%1}
  func.return %r : tensor<?xf32>
}
