#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#l = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
module {
  hal.executable private @k {
    hal.executable.variant public @x86_64 target(#t) {
      hal.executable.export public @copy ordinal(0) layout(#l) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %n, %c1, %c1 : index, index, index
      }
    }
  }
  hal.executable private @f_dispatch_0 {
    hal.executable.variant public @x86_64 target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", native_vector_size = 32 : index, target_triple = "x86_64-unknown-unknown-eabi-elf"}>) {
      hal.executable.export public @f_dispatch_0_elementwise ordinal(0) layout(#l) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 1024)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
      module {
        func.func private @f_dispatch_0_elementwise_body(%a: f32) -> f32 {
          %x = arith.addf %a, %a : f32
          func.return %x : f32
        }
        func.func @f_dispatch_0_elementwise() attributes {goiree.elementwise = {body = @f_dispatch_0_elementwise_body, tile_size = 1024 : index}} {
          func.return
        }
      }
    }
  }
  hal.executable private @f_dispatch_1 {
    hal.executable.variant public @x86_64 target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", native_vector_size = 32 : index, target_triple = "x86_64-unknown-unknown-eabi-elf"}>) {
      hal.executable.export public @f_dispatch_1_elementwise ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 1024)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
      module {
        func.func private @f_dispatch_1_elementwise_body(%x: f32, %y: f32) -> f32 {
          %z = arith.mulf %x, %y : f32
          %w = arith.negf %z : f32
          func.return %w : f32
        }
        func.func @f_dispatch_1_elementwise() attributes {goiree.elementwise = {body = @f_dispatch_1_elementwise_body, tile_size = 1024 : index}} {
          func.return
        }
      }
    }
  }
  func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n32 = arith.index_cast %n : index to i32
    %0 = arith.constant 0 : index
    %1 = tensor.dim %a, %0 : tensor<?xf32>
    %2 = arith.index_cast %1 : index to i32
    %x = flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise[%1](%2, %a) : (i32, tensor<?xf32>{%1}) -> tensor<?xf32>{%1}
    %y = flow.dispatch @k::@x86_64::@copy[%n](%n32, %x) : (i32, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %3 = arith.constant 0 : index
    %4 = tensor.dim %x, %3 : tensor<?xf32>
    %5 = arith.index_cast %4 : index to i32
    %w = flow.dispatch @f_dispatch_1::@f_dispatch_1_elementwise[%4](%5, %x, %y) : (i32, tensor<?xf32>{%4}, tensor<?xf32>{%4}) -> tensor<?xf32>{%4}
    func.return %w : tensor<?xf32>
  }
}
