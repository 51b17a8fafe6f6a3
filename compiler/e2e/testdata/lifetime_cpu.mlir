// The lifetime tests' program on the CPU (kernels from functions.c).
#cpu = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128",
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>

#device = #hal.device.target<"llvm-cpu", {executable_targets = [#cpu]}>

// simple_mul: one constant (the length) and three buffers.
#layout_3 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>
// simple_mul_inplace: one constant and two buffers, the second updated.
#layout_2 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer>]>
]>

module @lifetime attributes {hal.device.targets = [#device]} {
  hal.executable private @kernels {
    hal.executable.variant public @x86_64, target = #cpu, objects = [
      #hal.executable.object<{path = "functions_x86_64.o"}>
    ] {
      hal.executable.export public @simple_mul ordinal(0) layout(#layout_3) {
      ^bb0(%device: !hal.device, %n: index):
        %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
        %one = arith.constant 1 : index
        hal.return %tiles, %one, %one : index, index, index
      }
      hal.executable.export public @simple_mul_inplace ordinal(1) layout(#layout_2) {
      ^bb0(%device: !hal.device, %n: index):
        %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
        %one = arith.constant 1 : index
        hal.return %tiles, %one, %one : index, index, index
      }
      builtin.module {
        func.func private @simple_mul_workgroup(memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}
        func.func private @simple_mul_inplace_workgroup(memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}
        func.func @simple_mul() {
          %c0 = arith.constant 0 : index
          %n_i32 = hal.interface.constant.load[0] : i32
          %n = arith.index_castui %n_i32 : i32 to index
          %x = hal.interface.binding.subspan set(0) binding(0) type(storage_buffer) offset(%c0) alignment(64) : memref<?xf32>{%n}
          %y = hal.interface.binding.subspan set(0) binding(1) type(storage_buffer) offset(%c0) alignment(64) : memref<?xf32>{%n}
          %z = hal.interface.binding.subspan set(0) binding(2) type(storage_buffer) offset(%c0) alignment(64) : memref<?xf32>{%n}
          %id = hal.interface.workgroup.id[0] : index
          %first = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%id]
          func.call @simple_mul_workgroup(%x, %y, %z, %n, %first) : (memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) -> ()
          return
        }
        func.func @simple_mul_inplace() {
          %c0 = arith.constant 0 : index
          %n_i32 = hal.interface.constant.load[0] : i32
          %n = arith.index_castui %n_i32 : i32 to index
          %x = hal.interface.binding.subspan set(0) binding(0) type(storage_buffer) offset(%c0) alignment(64) : memref<?xf32>{%n}
          %y = hal.interface.binding.subspan set(0) binding(1) type(storage_buffer) offset(%c0) alignment(64) : memref<?xf32>{%n}
          %id = hal.interface.workgroup.id[0] : index
          %first = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%id]
          func.call @simple_mul_inplace_workgroup(%x, %y, %n, %first) : (memref<?xf32>, memref<?xf32>, index, index) -> ()
          return
        }
      }
    }
  }

  // step(a, b) = (a*b + b) * (a*b) - a: a user kernel, generated code, a
  // user kernel updating the generated result in place, generated code.
  // Every call holds two inputs and three buffers of its own.
  func.func @step(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %prod = flow.dispatch @kernels::@simple_mul[%n](%n_i32, %a, %b) {
      hal.interface.bindings = [
        #hal.interface.binding<0, 0>,
        #hal.interface.binding<0, 1>,
        #hal.interface.binding<0, 2>
      ]
    } : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %sum = arith.addf %prod, %b : tensor<?xf32>
    %res = flow.dispatch @kernels::@x86_64::@simple_mul_inplace[%n](%n_i32, %prod, %sum) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %sum{%n}
    %out = arith.subf %res, %a : tensor<?xf32>
    return %out : tensor<?xf32>
  }
}
