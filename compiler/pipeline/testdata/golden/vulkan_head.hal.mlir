#spirv_target = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "", features = "spirv:v1.3,cap:Shader", wgp = <compute = fp32, storage = b32, subgroup = none, dot = none, mma = [], subgroup_size_choices = [64], max_workgroup_sizes = [128, 128, 64], max_thread_count_per_workgroup = 128, max_workgroup_memory_bytes = 16384, max_workgroup_counts = [65535, 65535, 65535]>>}>
#vulkan_device = #hal.device.target<"vulkan", [#spirv_target]> : !hal.device
#mul_layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
#inplace_layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
module @example attributes {hal.device.targets = [#vulkan_device]} {
  hal.executable private @simple_mul {
    hal.executable.variant public @vulkan_spirv_fb target(#spirv_target) objects([#hal.executable.object<{path = "objs/simple_mul.spv"}>]) {
      hal.executable.export public @main ordinal(0) layout(#mul_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
    }
  }
  hal.executable private @mixed_invocation_dispatch_0 {
    hal.executable.variant public @vulkan_spirv_fb target(#spirv_target) objects([#hal.executable.object<{path = "objs/simple_mul_inplace.spv"}>]) {
      hal.executable.export public @main ordinal(0) layout(#inplace_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    }
  }
  hal.executable private @mixed_invocation_dispatch_0_ {
    hal.executable.variant public @vulkan_spirv_fb target(#spirv_target) {
      hal.executable.export public @mixed_invocation_dispatch_0__elementwise ordinal(0) layout(#mul_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 1024)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
      module {
        func.func private @mixed_invocation_dispatch_0__elementwise_body(%prod: f32, %b: f32) -> f32 {
          %sum = arith.addf %prod, %b : f32
          func.return %sum : f32
        }
        func.func @mixed_invocation_dispatch_0__elementwise() attributes {goiree.elementwise = {body = @mixed_invocation_dispatch_0__elementwise_body, tile_size = 1024 : index}} {
          func.return
        }
      }
    }
  }
  func.func @mixed_invocation(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %a, %c0 : tensor<?xf32>
    %dim_i32 = arith.index_cast %dim : index to i32
    %prod = flow.dispatch @simple_mul::@main[%dim](%dim_i32, %a, %b) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    %0 = arith.constant 0 : index
    %1 = tensor.dim %prod, %0 : tensor<?xf32>
    %2 = arith.index_cast %1 : index to i32
    %sum = flow.dispatch @mixed_invocation_dispatch_0_::@mixed_invocation_dispatch_0__elementwise[%1](%2, %prod, %b) : (i32, tensor<?xf32>{%1}, tensor<?xf32>{%1}) -> tensor<?xf32>{%1}
    %res = flow.dispatch @mixed_invocation_dispatch_0::@vulkan_spirv_fb::@main[%dim](%dim_i32, %prod, %sum) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %sum{%dim}
    func.return %res : tensor<?xf32>
  }
}
