// CPU custom dispatch at the stream level (seed spelling). The compiler owns
// the interface: the entry functions take !stream.binding and index
// arguments. Objects for two architectures come from a per-target map; the
// runtime picks the variant matching the host.

#aarch64_target = #hal.executable.target<"llvm-cpu", "embedded-elf-arm_64", {
  data_layout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128",
  native_vector_size = 16 : index,
  target_triple = "aarch64-unknown-unknown-eabi-elf"
}>
#x86_64_target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128",
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>

#cpu_device = #hal.device.target<"llvm-cpu", {
  executable_targets = [#aarch64_target, #x86_64_target]
}>

module @example attributes {hal.device.targets = [#cpu_device]} {

  stream.executable private @executable attributes {
    hal.executable.objects = #hal.executable.objects<{
      #aarch64_target = [#hal.executable.object<{path = "functions_aarch64.o"}>],
      #x86_64_target = [#hal.executable.object<{path = "functions_x86_64.o"}>]
    }>
  } {
    stream.executable.export public @simple_mul workgroups(%workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      stream.return %x, %c1, %c1 : index, index, index
    }
    stream.executable.export public @simple_mul_inplace workgroups(%workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      stream.return %x, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func private @simple_mul_workgroup(memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}
      func.func private @simple_mul_inplace_workgroup(memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}

      func.func @simple_mul(%b0: !stream.binding, %b1: !stream.binding, %b2: !stream.binding, %dim: index) {
        %c0 = arith.constant 0 : index
        %lhs = stream.binding.subspan %b0[%c0] : !stream.binding -> memref<?xf32>{%dim}
        %rhs = stream.binding.subspan %b1[%c0] : !stream.binding -> memref<?xf32>{%dim}
        %out = stream.binding.subspan %b2[%c0] : !stream.binding -> memref<?xf32>{%dim}
        %wg = flow.dispatch.workgroup.id[0] : index
        %tid = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%wg]
        func.call @simple_mul_workgroup(%lhs, %rhs, %out, %dim, %tid) : (memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) -> ()
        return
      }
      func.func @simple_mul_inplace(%b0: !stream.binding, %b1: !stream.binding, %dim: index) {
        %c0 = arith.constant 0 : index
        %lhs = stream.binding.subspan %b0[%c0] : !stream.binding -> memref<?xf32>{%dim}
        %rhs = stream.binding.subspan %b1[%c0] : !stream.binding -> memref<?xf32>{%dim}
        %wg = flow.dispatch.workgroup.id[0] : index
        %tid = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%wg]
        func.call @simple_mul_inplace_workgroup(%lhs, %rhs, %dim, %tid) : (memref<?xf32>, memref<?xf32>, index, index) -> ()
        return
      }
    }
  }

  func.func @mixed_invocation(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %a, %c0 : tensor<?xf32>
    %prod = flow.dispatch @executable::@simple_mul[%dim](%a, %b, %dim) : (tensor<?xf32>{%dim}, tensor<?xf32>{%dim}, index) -> tensor<?xf32>{%dim}
    %sum = arith.addf %prod, %b : tensor<?xf32>
    %res = flow.dispatch @executable::@simple_mul_inplace[%dim](%prod, %sum, %dim) : (tensor<?xf32>{%dim}, tensor<?xf32>{%dim}, index) -> %sum{%dim}
    return %res : tensor<?xf32>
  }
}
