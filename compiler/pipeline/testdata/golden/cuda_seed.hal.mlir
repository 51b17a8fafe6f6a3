#sm_80_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#sm_90_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_90"}>
#cuda_device = #hal.device.target<"cuda", {executable_targets = [#sm_80_target, #sm_90_target], legacy_sync}>
#mul_layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
#inplace_layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
module @example attributes {hal.device.targets = [#cuda_device]} {
  hal.executable private @executable {
    hal.executable.variant public @cuda_nvptx_fb_sm_80 target(#sm_80_target) objects([#hal.executable.object<{path = "objs/kernels_sm_80.ptx"}>]) {
      hal.executable.export public @simple_mul ordinal(0) layout(#mul_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
      hal.executable.export public @simple_mul_inplace ordinal(1) layout(#inplace_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    }
    hal.executable.variant public @cuda_nvptx_fb_sm_90 target(#sm_90_target) objects([#hal.executable.object<{path = "objs/kernels_sm_90.ptx"}>]) {
      hal.executable.export public @simple_mul ordinal(0) layout(#mul_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
      hal.executable.export public @simple_mul_inplace ordinal(1) layout(#inplace_layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
        %c1 = arith.constant 1 : index
        hal.return %x, %c1, %c1 : index, index, index
      } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    }
  }
  hal.executable private @mixed_invocation_dispatch_0 {
    hal.executable.variant public @cuda_nvptx_fb target(#sm_80_target) {
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
    hal.executable.variant public @cuda_nvptx_fb_sm_90 target(#sm_90_target) {
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
    %prod = flow.dispatch @executable::@simple_mul[%dim](%dim_i32, %a, %b) {hal.interface.bindings = [#hal.interface.binding<0, 0>, #hal.interface.binding<0, 1>, #hal.interface.binding<0, 2>]} : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    %0 = arith.constant 0 : index
    %1 = tensor.dim %prod, %0 : tensor<?xf32>
    %2 = arith.index_cast %1 : index to i32
    %sum = flow.dispatch @mixed_invocation_dispatch_0::@mixed_invocation_dispatch_0_elementwise[%1](%2, %prod, %b) : (i32, tensor<?xf32>{%1}, tensor<?xf32>{%1}) -> tensor<?xf32>{%1}
    %res = flow.dispatch @executable::@simple_mul_inplace[%dim](%dim_i32, %prod, %sum) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %sum{%dim}
    func.return %res : tensor<?xf32>
  }
}
