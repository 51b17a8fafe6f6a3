// The custom_dispatch CPU sample in the stream form: the compiler owns the
// dispatch interface (bindings and push constants). The entry functions
// take !stream.binding and index arguments; the objects come from a
// per-target map, so the compiler builds an arm_64 and an x86_64 variant of
// the executable (objects functions_arm_64.o and functions_x86_64.o, both
// built from functions.c by iree_c_object) and the runtime picks the one
// the host can run. Computes (a*b + b) * (a*b): 96 for inputs 2 and 4.

#arm = #hal.executable.target<"llvm-cpu", "embedded-elf-arm_64", {
  native_vector_size = 16 : index,
  target_triple = "aarch64-unknown-unknown-eabi-elf"
}>
#x86 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>
#device = #hal.device.target<"llvm-cpu", {executable_targets = [#arm, #x86]}>

module @example_stream attributes {hal.device.targets = [#device]} {
  stream.executable private @executable attributes {
    hal.executable.objects = #hal.executable.objects<{
      #arm = [#hal.executable.object<{path = "functions_arm_64.o"}>],
      #x86 = [#hal.executable.object<{path = "functions_x86_64.o"}>]
    }>
  } {
    stream.executable.export public @simple_mul workgroups(%n: index) -> (index, index, index) {
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      stream.return %tiles, %one, %one : index, index, index
    }
    stream.executable.export public @simple_mul_inplace workgroups(%n: index) -> (index, index, index) {
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %one = arith.constant 1 : index
      stream.return %tiles, %one, %one : index, index, index
    }
    builtin.module {
      func.func private @simple_mul_workgroup(memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}
      func.func private @simple_mul_inplace_workgroup(memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}
      func.func @simple_mul(%x_binding: !stream.binding, %y_binding: !stream.binding, %z_binding: !stream.binding, %n: index) {
        %c0 = arith.constant 0 : index
        %x = stream.binding.subspan %x_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        %y = stream.binding.subspan %y_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        %z = stream.binding.subspan %z_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        %id = flow.dispatch.workgroup.id[0] : index
        %first = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%id]
        func.call @simple_mul_workgroup(%x, %y, %z, %n, %first) : (memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) -> ()
        return
      }
      func.func @simple_mul_inplace(%x_binding: !stream.binding, %y_binding: !stream.binding, %n: index) {
        %c0 = arith.constant 0 : index
        %x = stream.binding.subspan %x_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        %y = stream.binding.subspan %y_binding[%c0] : !stream.binding -> memref<?xf32>{%n}
        %id = flow.dispatch.workgroup.id[0] : index
        %first = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%id]
        func.call @simple_mul_inplace_workgroup(%x, %y, %n, %first) : (memref<?xf32>, memref<?xf32>, index, index) -> ()
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
