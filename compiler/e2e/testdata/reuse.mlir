// Three chained dispatches of a generated-style elementwise kernel
// (x -> x + x). The first intermediate is dead after the second dispatch,
// so the third result reuses its buffer: two allocations in all.
#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#l = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
module @reuse {
  hal.executable private @twice {
    hal.executable.variant public @x86_64 target(#t) {
      hal.executable.export public @twice ordinal(0) layout(#l) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 1024)>()[%n]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
      builtin.module {
        func.func private @twice_body(%a: f32) -> f32 {
          %r = arith.addf %a, %a : f32
          return %r : f32
        }
        func.func @twice() attributes {goiree.elementwise = {body = @twice_body, tile_size = 1024 : index}} {
          return
        }
      }
    }
  }
  func.func @octuple(%a: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n32 = arith.index_cast %n : index to i32
    %t1 = flow.dispatch @twice::@twice[%n](%n32, %a) : (i32, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %t2 = flow.dispatch @twice::@twice[%n](%n32, %t1) : (i32, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %t3 = flow.dispatch @twice::@twice[%n](%n32, %t2) : (i32, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    return %t3 : tensor<?xf32>
  }
}
