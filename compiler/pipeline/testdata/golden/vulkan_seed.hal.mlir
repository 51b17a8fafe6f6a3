#spirv_target = #hal.executable.target<"vulkan", "vulkan-spirv-fb", {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_variable_pointers]>, #spirv.resource_limits<max_compute_workgroup_size = [128, 128, 64], subgroup_size = 64>>}>
#vulkan_device = #hal.device.target<"vulkan", {executable_targets = [#spirv_target], legacy_sync}>
#pipeline_layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
#pipeline_layout1 = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
module @example attributes {hal.device.targets = [#vulkan_device]} {
  hal.executable private @simple_mul {
    hal.executable.variant public @vulkan_spirv_fb target(#spirv_target) objects([#hal.executable.object<{path = "objs/simple_mul.spv"}>]) {
      hal.executable.export public @main ordinal(0) layout(#pipeline_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
    }
  }
  hal.executable private @simple_mul_inplace {
    hal.executable.variant public @vulkan_spirv_fb target(#spirv_target) objects([#hal.executable.object<{path = "objs/simple_mul_inplace.spv"}>]) {
      hal.executable.export public @main ordinal(0) layout(#pipeline_layout1) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      }
    }
  }
  hal.executable private @mixed_invocation_dispatch_0 {
    hal.executable.variant public @vulkan_spirv_fb target(#spirv_target) {
      hal.executable.export public @mixed_invocation_dispatch_0_elementwise ordinal(0) layout(#pipeline_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
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
    %prod = flow.dispatch @simple_mul::@main[%dim](%dim_i32, %a, %b) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    %0 = arith.constant 0 : index
    %1 = tensor.dim %prod, %0 : tensor<?xf32>
    %2 = arith.index_cast %1 : index to i32
    %sum = flow.dispatch @mixed_invocation_dispatch_0::@mixed_invocation_dispatch_0_elementwise[%1](%2, %prod, %b) : (i32, tensor<?xf32>{%1}, tensor<?xf32>{%1}) -> tensor<?xf32>{%1}
    %res = flow.dispatch @simple_mul_inplace::@main[%dim](%dim_i32, %prod, %sum) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %sum{%dim}
    func.return %res : tensor<?xf32>
  }
}
