// End-to-end sample, HAL form, current spelling: `target(..) objects(..)`,
// `count(..)` regions, flat layouts and bare-pointer imports whose buffers
// arrive as (base, element offset) pairs. Computes (a*b + b) * (a*b).

#cpu = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "generic", target_triple = "x86_64-none-elf"}>
#device = #hal.device.target<"local", [#cpu]> : !hal.device

#layout_3 = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
#layout_2 = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

module @sample_head attributes {hal.device.targets = [#device]} {
  hal.executable private @kernels {
    hal.executable.variant public @x86_64 target(#cpu) objects([
      #hal.executable.object<{path = "functions_head_x86_64.o"}>
    ]) {
      hal.executable.export public @simple_mul ordinal(0) layout(#layout_3) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
        %one = arith.constant 1 : index
        hal.return %tiles, %one, %one : index, index, index
      }
      hal.executable.export public @simple_mul_inplace ordinal(1) layout(#layout_2) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
        %one = arith.constant 1 : index
        hal.return %tiles, %one, %one : index, index, index
      }
      builtin.module {
        func.func private @simple_mul_workgroup(memref<f32>, index, memref<f32>, index, memref<f32>, index, index, index) attributes {hal.import.static, llvm.bareptr = true}
        func.func private @simple_mul_inplace_workgroup(memref<f32>, index, memref<f32>, index, index, index) attributes {hal.import.static, llvm.bareptr = true}
        func.func @simple_mul() {
          %c0 = arith.constant 0 : index
          %n_i32 = hal.interface.constant.load layout(#layout_3) ordinal(0) : i32
          %n = arith.index_castui %n_i32 : i32 to index
          %x = hal.interface.binding.subspan layout(#layout_3) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
          %y = hal.interface.binding.subspan layout(#layout_3) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
          %z = hal.interface.binding.subspan layout(#layout_3) binding(2) alignment(64) offset(%c0) : memref<?xf32>{%n}
          %xb, %xo, %xs, %xt = iree_codegen.extract_strided_metadata %x : memref<?xf32> -> memref<f32>, index, index, index
          %yb, %yo, %ys, %yt = iree_codegen.extract_strided_metadata %y : memref<?xf32> -> memref<f32>, index, index, index
          %zb, %zo, %zs, %zt = iree_codegen.extract_strided_metadata %z : memref<?xf32> -> memref<f32>, index, index, index
          %id = hal.interface.workgroup.id[0] : index
          %first = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%id]
          func.call @simple_mul_workgroup(%xb, %xo, %yb, %yo, %zb, %zo, %n, %first) : (memref<f32>, index, memref<f32>, index, memref<f32>, index, index, index) -> ()
          return
        }
        func.func @simple_mul_inplace() {
          %c0 = arith.constant 0 : index
          %n_i32 = hal.interface.constant.load layout(#layout_2) ordinal(0) : i32
          %n = arith.index_castui %n_i32 : i32 to index
          %x = hal.interface.binding.subspan layout(#layout_2) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
          %y = hal.interface.binding.subspan layout(#layout_2) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
          %xb, %xo, %xs, %xt = iree_codegen.extract_strided_metadata %x : memref<?xf32> -> memref<f32>, index, index, index
          %yb, %yo, %ys, %yt = iree_codegen.extract_strided_metadata %y : memref<?xf32> -> memref<f32>, index, index, index
          %id = hal.interface.workgroup.id[0] : index
          %first = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%id]
          func.call @simple_mul_inplace_workgroup(%xb, %xo, %yb, %yo, %n, %first) : (memref<f32>, index, memref<f32>, index, index, index) -> ()
          return
        }
      }
    }
  }

  func.func @mixed_invocation(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %product = flow.dispatch @kernels::@x86_64::@simple_mul[%n](%n_i32, %lhs, %rhs) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %sum = arith.addf %product, %rhs : tensor<?xf32>
    %result = flow.dispatch @kernels::@x86_64::@simple_mul_inplace[%n](%n_i32, %product, %sum) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %sum{%n}
    return %result : tensor<?xf32>
  }
}
