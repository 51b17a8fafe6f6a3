// The plain_c sample with everything inline: each kernel is dispatched by a
// hal.dispatch.extern whose object is the C source itself. The compiler
// compiles kernels.c for the target (clang, the iree_c_object flags, the
// target's triple; the output is cached by content) and generates the shim
// that calls the function named by goiree.cpu_function. Computes
// (a*b + b) * (a*b): 96 for inputs 2 and 4.
//
//   iree-compile example_inline.mlir -o example_inline.vmfb \
//       --iree-hal-executable-object-search-path=samples/custom_dispatch/cpu/plain_c
//   iree-run-module --device=local-task --module=example_inline.vmfb \
//       --function=mixed_invocation --input=8xf32=2 --input=8xf32=4

#x86 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>
#device = #hal.device.target<"llvm-cpu", {executable_targets = [#x86]}>

module @example_inline attributes {hal.device.targets = [#device]} {
  func.func @mixed_invocation(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32

    // simple_mul_tile(lhs, rhs, out, n, x, y, z): bare pointers.
    %product = hal.dispatch.extern "simple_mul"[%n](%n_i32, %lhs, %rhs) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %one = arith.constant 1 : index
        hal.return %tiles, %one, %one : index, index, index
      }
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({
        #x86 ordinal(0) = [#hal.executable.object<{path = "kernels.c"}>]
      })
      attributes {goiree.cpu_function = "simple_mul_tile"}

    %sum = arith.addf %product, %rhs : tensor<?xf32>

    // simple_mul_inplace_tile(lhs memref, inout memref, n, x, y, z).
    %result = hal.dispatch.extern "simple_mul_inplace"[%n](%n_i32, %product, %sum) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %sum{%n}
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %one = arith.constant 1 : index
        hal.return %tiles, %one, %one : index, index, index
      }
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({
        #x86 ordinal(0) = [#hal.executable.object<{path = "kernels.c"}>]
      })
      attributes {
        goiree.cpu_function = "simple_mul_inplace_tile",
        goiree.cpu_arguments = "memref",
        goiree.cpu_binding_types = [f32, f32],
        goiree.cpu_binding_sizes = [0, 0]
      }

    return %result : tensor<?xf32>
  }
}
