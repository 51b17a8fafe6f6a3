// The custom_dispatch CPU sample in the HAL form, in the spelling of IREE's
// Dec 2022 samples: the program declares the executable, its layouts and
// its dispatch shims itself. Two hand-written kernels from
// functions_x86_64.o (built from functions.c by the `functions_x86_64`
// iree_c_object) run between compiler-generated code:
//
//   %product = simple_mul(lhs, rhs)             (custom kernel)
//   %sum     = %product + rhs                   (compiled by us)
//   result   = simple_mul_inplace(%product, %sum) -> %sum updated in place
//
// i.e. (a*b + b) * (a*b): 96 for inputs 2 and 4.
//
// The variant names its own target, so the kernels always run from this
// x86_64 variant; the device comes from the command line (IREE's current
// flags below, or the older --iree-hal-target-backends=llvm-cpu) and
// decides where the generated add runs. example_stream.mlir shows the
// other way, a device declared in the program with hal.device.targets.
//
//   iree-compile example_hal.mlir -o example_hal.vmfb \
//       --iree-hal-target-device=local \
//       --iree-hal-local-target-device-backends=llvm-cpu \
//       --iree-hal-executable-object-search-path=bazel-bin/samples/custom_dispatch/cpu/embedded
//   iree-run-module --device=local-task --module=example_hal.vmfb \
//       --function=mixed_invocation --input=8xf32=2 --input=8xf32=4

#cpu = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128",
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>

// simple_mul: one constant (the length) and three buffers.
#layout_3 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>
// simple_mul_inplace: one constant and two buffers, the second updated.
#layout_2 = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer>]>
]>

module @example_hal {
  hal.executable private @executable {
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
        // The kernels of functions.c. Each memref<?xf32> argument reaches C
        // as MLIR's five-field descriptor (base, aligned, offset, size,
        // stride); `index` as size_t.
        func.func private @simple_mul_workgroup(%lhs: memref<?xf32>, %rhs: memref<?xf32>, %out: memref<?xf32>, %n: index, %first: index) attributes {
          // Resolved against functions_x86_64.o when the executable is
          // linked, not imported at load time.
          hal.import.static
        }
        func.func private @simple_mul_inplace_workgroup(%lhs: memref<?xf32>, %inout: memref<?xf32>, %n: index, %first: index) attributes {
          hal.import.static
        }
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

  func.func @mixed_invocation(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    // The variant is chosen at run time; the bindings are spelled out.
    %product = flow.dispatch @executable::@simple_mul[%n](%n_i32, %lhs, %rhs) {
      hal.interface.bindings = [
        #hal.interface.binding<0, 0>,
        #hal.interface.binding<0, 1>,
        #hal.interface.binding<0, 2>
      ]
    } : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %sum = arith.addf %product, %rhs : tensor<?xf32>
    // A fixed variant; the result is %sum updated in place.
    %result = flow.dispatch @executable::@x86_64::@simple_mul_inplace[%n](%n_i32, %product, %sum) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %sum{%n}
    return %result : tensor<?xf32>
  }
}
