// A custom dispatch consumes the first chain's result, so the chain closes
// before it and the ops after it form a second region.
#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#l = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
module {
  hal.executable private @k {
    hal.executable.variant public @x86_64 target(#t) {
      hal.executable.export public @copy ordinal(0) layout(#l) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %n, %c1, %c1 : index, index, index
      }
    }
  }
  func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n32 = arith.index_cast %n : index to i32
    %x = arith.addf %a, %a : tensor<?xf32>
    %y = flow.dispatch @k::@x86_64::@copy[%n](%n32, %x) : (i32, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %z = arith.mulf %x, %y : tensor<?xf32>
    %w = arith.negf %z : tensor<?xf32>
    return %w : tensor<?xf32>
  }
}
