hal.executable private @relu_scale_dispatch_0 {
  hal.executable.variant public @x86_64 target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", native_vector_size = 32 : index, target_triple = "x86_64-unknown-unknown-eabi-elf"}>) {
    hal.executable.export public @relu_scale_dispatch_0_elementwise ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 1024)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
    module {
      func.func private @relu_scale_dispatch_0_elementwise_body(%a: f32, %b: f32) -> (i1, f32) {
        %two = arith.constant 2.0 : f32
        %s = arith.mulf %a, %two : f32
        %t = arith.addf %s, %b : f32
        %zero = arith.constant 0.0 : f32
        %pos = arith.cmpf ogt, %t, %zero : f32
        %r = arith.select %pos, %t, %zero : f32
        func.return %pos, %r : i1, f32
      }
      func.func @relu_scale_dispatch_0_elementwise() attributes {goiree.elementwise = {body = @relu_scale_dispatch_0_elementwise_body, tile_size = 1024 : index}} {
        func.return
      }
    }
  }
}
func.func @relu_scale(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %two = arith.constant dense<2.0> : tensor<2x3xf32>
  %zero = arith.constant dense<0.0> : tensor<2x3xf32>
  %0 = arith.constant 2 : index
  %1 = arith.constant 3 : index
  %2 = arith.muli %0, %1 : index
  %3 = arith.index_cast %2 : index to i32
  %pos, %r = flow.dispatch @relu_scale_dispatch_0::@relu_scale_dispatch_0_elementwise[%2](%3, %a, %b) : (i32, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xi1>, tensor<2x3xf32>)
  func.return %r, %pos : tensor<2x3xf32>, tensor<2x3xi1>
}
