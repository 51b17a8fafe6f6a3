// The custom_dispatch CPU sample in the stream form, in the spelling of
// current IREE: the compiler owns the dispatch interface (bindings and push
// constants). The entry functions take !stream.binding and index
// arguments; the objects come from a per-target map, so the compiler builds
// an arm_64 and an x86_64 variant of the executable (objects
// functions_arm_64.o and functions_x86_64.o, both built from functions.c by
// iree_c_object) and the runtime picks the one the host can run. The device
// and its two targets are declared in the program (hal.device.targets), so
// no target flag is needed. Computes (a*b + b) * (a*b): 96 for inputs 2
// and 4.
//
//   iree-compile example_stream.mlir -o example_stream.vmfb \
//       --iree-hal-executable-object-search-path=bazel-bin/samples/custom_dispatch/cpu/embedded
//   iree-run-module --device=local-sync --module=example_stream.vmfb \
//       --function=mixed_invocation --input=8xf32=2 --input=8xf32=4

#arm = #hal.executable.target<"llvm-cpu", "embedded-elf-arm_64", {
  native_vector_size = 16 : index,
  target_triple = "aarch64-unknown-unknown-eabi-elf"
}>
#x86 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>

// The local (CPU) device with both executable targets, as a typed value.
#device = #hal.device.target<"local", [
  #arm,
  #x86
]> : !hal.device

module @example_stream attributes {hal.device.targets = [#device]} {
  stream.executable private @executable attributes {
    hal.executable.objects = #hal.executable.objects<{
      #arm = [#hal.executable.object<{path = "functions_arm_64.o"}>],
      #x86 = [#hal.executable.object<{path = "functions_x86_64.o"}>]
    }>
  } {
    // One workgroup per 64-element tile. A count region may end with
    // stream.return or, as IREE's own samples also write it, hal.return;
    // the two exports show one each.
    stream.executable.export public @simple_mul workgroups(%n: index) -> (index, index, index) {
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      stream.return %tiles, %one, %one : index, index, index
    }
    stream.executable.export public @simple_mul_inplace workgroups(%n: index) -> (index, index, index) {
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      hal.return %tiles, %one, %one : index, index, index
    }
    builtin.module {
      // The bare-pointer kernels of functions.c: with llvm.bareptr each
      // memref<f32> is one pointer, and every buffer is followed by its
      // element offset.
      func.func private @simple_mul_bareptr_workgroup(
          %lhs: memref<f32>, %lhs_offset: index,
          %rhs: memref<f32>, %rhs_offset: index,
          %out: memref<f32>, %out_offset: index,
          %n: index, %first: index) attributes {
        // linked statically from the object of this variant's target
        hal.import.static,
        // pointers instead of memref descriptors
        llvm.bareptr = true
      }
      func.func private @simple_mul_inplace_bareptr_workgroup(
          %lhs: memref<f32>, %lhs_offset: index,
          %inout: memref<f32>, %inout_offset: index,
          %n: index, %first: index) attributes {
        hal.import.static,
        llvm.bareptr = true
      }

      func.func @simple_mul(
          %x_binding: !stream.binding,
          %y_binding: !stream.binding,
          %z_binding: !stream.binding,
          %n: index) {
        %c0 = arith.constant 0 : index
        %id = stream.dispatch.workgroup.id[0] : index
        %first = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%id]
        %x = stream.binding.subspan %x_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        %y = stream.binding.subspan %y_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        %z = stream.binding.subspan %z_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        // Split each view into the base buffer and the element offset the
        // bare-pointer kernel takes (the sizes and strides are not passed).
        %x_base, %x_offset, %x_size, %x_stride = iree_codegen.extract_strided_metadata %x
            : memref<?xf32> -> memref<f32>, index, index, index
        %y_base, %y_offset, %y_size, %y_stride = iree_codegen.extract_strided_metadata %y
            : memref<?xf32> -> memref<f32>, index, index, index
        %z_base, %z_offset, %z_size, %z_stride = iree_codegen.extract_strided_metadata %z
            : memref<?xf32> -> memref<f32>, index, index, index
        func.call @simple_mul_bareptr_workgroup(%x_base, %x_offset, %y_base, %y_offset, %z_base, %z_offset, %n, %first)
            : (memref<f32>, index, memref<f32>, index, memref<f32>, index, index, index) -> ()
        return
      }
      func.func @simple_mul_inplace(
          %x_binding: !stream.binding,
          %y_binding: !stream.binding,
          %n: index) {
        %c0 = arith.constant 0 : index
        %id = stream.dispatch.workgroup.id[0] : index
        %first = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%id]
        %x = stream.binding.subspan %x_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        %y = stream.binding.subspan %y_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        %x_base, %x_offset, %x_size, %x_stride = iree_codegen.extract_strided_metadata %x
            : memref<?xf32> -> memref<f32>, index, index, index
        %y_base, %y_offset, %y_size, %y_stride = iree_codegen.extract_strided_metadata %y
            : memref<?xf32> -> memref<f32>, index, index, index
        func.call @simple_mul_inplace_bareptr_workgroup(%x_base, %x_offset, %y_base, %y_offset, %n, %first)
            : (memref<f32>, index, memref<f32>, index, index, index) -> ()
        return
      }
    }
  }

  func.func @mixed_invocation(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %product = flow.dispatch @executable::@simple_mul[%n](%lhs, %rhs, %n) : (tensor<?xf32>{%n}, tensor<?xf32>{%n}, index) -> tensor<?xf32>{%n}
    %sum = arith.addf %product, %rhs : tensor<?xf32>
    %result = flow.dispatch @executable::@simple_mul_inplace[%n](%product, %sum, %n) : (tensor<?xf32>{%n}, tensor<?xf32>{%n}, index) -> %sum{%n}
    return %result : tensor<?xf32>
  }
}
