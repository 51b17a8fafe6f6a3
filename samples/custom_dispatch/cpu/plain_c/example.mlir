// The plain_c sample: C kernels dispatched without shim boilerplate. The
// executable has exports and an object, and no builtin.module: each export
// names a plain C function of kernels.c with goiree.cpu_function, and the
// compiler generates the function that unpacks the dispatch and calls it.
// The computation is the other CPU samples' (a*b + b) * (a*b): 96 for
// inputs 2 and 4.
//
//   iree-compile example.mlir -o example.vmfb \
//       --iree-hal-executable-object-search-path=bazel-bin/samples/custom_dispatch/cpu/plain_c
//   iree-run-module --device=local-task --module=example.vmfb \
//       --function=mixed_invocation --input=8xf32=2 --input=8xf32=4

#x86 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>
#device = #hal.device.target<"llvm-cpu", {executable_targets = [#x86]}>

// One push constant (the length n) and three buffers.
#mul_layout = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>
]>
// One push constant and two buffers, the second updated in place.
#inplace_layout = #hal.pipeline.layout<push_constants = 1, sets = [
  <0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer>]>
]>

module @example attributes {hal.device.targets = [#device]} {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #x86 = [#hal.executable.object<{path = "kernels_x86_64.o"}>]
    }>
  } {
    // simple_mul_tile(lhs, rhs, out, n, x, y, z): bare pointers.
    hal.executable.export public @simple_mul ordinal(0) layout(#mul_layout) attributes {
      goiree.cpu_function = "simple_mul_tile"
    } {
    ^bb0(%device: !hal.device, %n: index):
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %tiles, %one, %one : index, index, index
    }
    // simple_mul_inplace_tile(lhs memref, inout memref, n, x, y, z): both
    // memrefs are f32 with n (push constant 0) elements.
    hal.executable.export public @simple_mul_inplace ordinal(1) layout(#inplace_layout) attributes {
      goiree.cpu_function = "simple_mul_inplace_tile",
      goiree.cpu_arguments = "memref",
      goiree.cpu_binding_types = [f32, f32],
      goiree.cpu_binding_sizes = [0, 0]
    } {
    ^bb0(%device: !hal.device, %n: index):
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %tiles, %one, %one : index, index, index
    }
  }

  func.func @mixed_invocation(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %product = flow.dispatch @executable::@simple_mul[%n](%n_i32, %lhs, %rhs) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %sum = arith.addf %product, %rhs : tensor<?xf32>
    %result = flow.dispatch @executable::@simple_mul_inplace[%n](%n_i32, %product, %sum) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %sum{%n}
    return %result : tensor<?xf32>
  }
}
