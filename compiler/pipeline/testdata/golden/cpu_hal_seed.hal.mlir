#x86_64_target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", native_vector_size = 32 : index, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#cpu_device = #hal.device.target<"llvm-cpu", {executable_targets = [#x86_64_target]}>
#mul_layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
#inplace_layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
module @example attributes {hal.device.targets = [#cpu_device]} {
  hal.executable private @executable {
    hal.executable.variant public @x86_64 target(#x86_64_target) objects([#hal.executable.object<{path = "objs/functions_x86_64.o"}>]) {
      hal.executable.export public @simple_mul ordinal(0) layout(#mul_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
      hal.executable.export public @simple_mul_inplace ordinal(1) layout(#inplace_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
      module {
        func.func private @simple_mul_workgroup(memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}
        func.func private @simple_mul_inplace_workgroup(memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}
        func.func @simple_mul() {
          %dim_i32 = hal.interface.constant.load layout(#mul_layout) ordinal(0) : i32
          %dim = arith.index_castui %dim_i32 : i32 to index
          %c0 = arith.constant 0 : index
          %lhs = hal.interface.binding.subspan layout(#mul_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%dim}
          %rhs = hal.interface.binding.subspan layout(#mul_layout) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%dim}
          %out = hal.interface.binding.subspan layout(#mul_layout) binding(2) alignment(64) offset(%c0) : memref<?xf32>{%dim}
          %wg = hal.interface.workgroup.id[0] : index
          %tid = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%wg]
          func.call @simple_mul_workgroup(%lhs, %rhs, %out, %dim, %tid) : (memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) -> ()
          func.return
        }
        func.func @simple_mul_inplace() {
          %dim_i32 = hal.interface.constant.load layout(#inplace_layout) ordinal(0) : i32
          %dim = arith.index_castui %dim_i32 : i32 to index
          %c0 = arith.constant 0 : index
          %lhs = hal.interface.binding.subspan layout(#inplace_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%dim}
          %rhs = hal.interface.binding.subspan layout(#inplace_layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%dim}
          %wg = hal.interface.workgroup.id[0] : index
          %tid = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%wg]
          func.call @simple_mul_inplace_workgroup(%lhs, %rhs, %dim, %tid) : (memref<?xf32>, memref<?xf32>, index, index) -> ()
          func.return
        }
      }
    }
  }
  hal.executable private @mixed_invocation_dispatch_0 {
    hal.executable.variant public @x86_64 target(#x86_64_target) {
      hal.executable.export public @mixed_invocation_dispatch_0_elementwise ordinal(0) layout(#mul_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 1024)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
      module {
        func.func private @mixed_invocation_dispatch_0_elementwise_body(%prod: f32, %b: f32) -> f32 {
          %sum = arith.addf %prod, %b : f32
          func.return %sum : f32
        }
        func.func @mixed_invocation_dispatch_0_elementwise() attributes {goiree.elementwise = {body = @mixed_invocation_dispatch_0_elementwise_body, tile_size = 1024 : index}} {
          func.return
        }
      }
    }
  }
  func.func @mixed_invocation(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %a, %c0 : tensor<?xf32>
    %dim_i32 = arith.index_cast %dim : index to i32
    %prod = flow.dispatch @executable::@simple_mul[%dim](%dim_i32, %a, %b) {hal.interface.bindings = [#hal.interface.binding<0, 0>, #hal.interface.binding<0, 1>, #hal.interface.binding<0, 2>], hal.executable.ref = [@executable]} : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    %0 = arith.constant 0 : index
    %1 = tensor.dim %prod, %0 : tensor<?xf32>
    %2 = arith.index_cast %1 : index to i32
    %sum = flow.dispatch @mixed_invocation_dispatch_0::@mixed_invocation_dispatch_0_elementwise[%1](%2, %prod, %b) : (i32, tensor<?xf32>{%1}, tensor<?xf32>{%1}) -> tensor<?xf32>{%1}
    %res = flow.dispatch @executable::@x86_64::@simple_mul_inplace[%dim](%dim_i32, %prod, %sum) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %sum{%dim}
    func.return %res : tensor<?xf32>
  }
}
