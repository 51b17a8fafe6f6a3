// The downstream project's program: its own kernel square_add (x*x + y,
// from square_add_x86_64.o) followed by a multiply the compiler generates:
// (x*x + y) * y, which is 22 for x = 3 and y = 2.

#cpu = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>

#device = #hal.device.target<"llvm-cpu", {executable_targets = [#cpu]}>

#layout = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>

module @downstream attributes {hal.device.targets = [#device]} {
  hal.executable private @kernels {
    hal.executable.variant public @x86_64, target = #cpu, objects = [
      #hal.executable.object<{path = "square_add_x86_64.o"}>
    ] {
      hal.executable.export public @square_add ordinal(0) layout(#layout) {
      ^bb0(%device: !hal.device, %n: index):
        %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
        %one = arith.constant 1 : index
        hal.return %tiles, %one, %one : index, index, index
      }
      builtin.module {
        func.func private @square_add_workgroup(memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}
        func.func @square_add() {
          %c0 = arith.constant 0 : index
          %n_i32 = hal.interface.constant.load[0] : i32
          %n = arith.index_castui %n_i32 : i32 to index
          %x = hal.interface.binding.subspan set(0) binding(0) type(storage_buffer) offset(%c0) alignment(64) : memref<?xf32>{%n}
          %y = hal.interface.binding.subspan set(0) binding(1) type(storage_buffer) offset(%c0) alignment(64) : memref<?xf32>{%n}
          %out = hal.interface.binding.subspan set(0) binding(2) type(storage_buffer) offset(%c0) alignment(64) : memref<?xf32>{%n}
          %id = hal.interface.workgroup.id[0] : index
          %first = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%id]
          func.call @square_add_workgroup(%x, %y, %out, %n, %first) : (memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) -> ()
          return
        }
      }
    }
  }

  func.func @square_add_mul(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %sum = flow.dispatch @kernels::@x86_64::@square_add[%n](%n_i32, %x, %y) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %result = arith.mulf %sum, %y : tensor<?xf32>
    return %result : tensor<?xf32>
  }
}
