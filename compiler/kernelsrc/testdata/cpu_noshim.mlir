// Two kernels of noshim.c, named by path (the compiler compiles the
// source) and called without hand-written shims:
//   scaled = a * s (broadcast over rows) + 0.5   (scale_rows, bare pointers)
//   result = scaled - a                          (sub_inplace, memref style)

#x86 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>
#device = #hal.device.target<"llvm-cpu", {executable_targets = [#x86]}>

module @cpu_noshim attributes {hal.device.targets = [#device]} {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{#x86 = [#hal.executable.object<{path = "noshim.c"}>]}>
  } {
    hal.executable.export public @scale_rows_dispatch ordinal(0) layout(#hal.pipeline.layout<constants = 2, bindings = [
      #hal.pipeline.binding<storage_buffer, ReadOnly>,
      #hal.pipeline.binding<storage_buffer, ReadOnly>,
      #hal.pipeline.binding<storage_buffer>
    ]>) attributes {
      goiree.cpu_function = "scale_rows",
      goiree.cpu_arguments = "bareptr",
      goiree.cpu_binding_types = [f32, f32, f32],
      goiree.cpu_constant_types = [i32, f32]
    } {
    ^bb0(%device: !hal.device, %rows: index, %cols: index):
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 32)>()[%cols]
      %one = arith.constant 1 : index
      hal.return %rows, %tiles, %one : index, index, index
    }
    hal.executable.export public @sub_inplace_dispatch ordinal(1) layout(#hal.pipeline.layout<constants = 1, bindings = [
      #hal.pipeline.binding<storage_buffer, ReadOnly>,
      #hal.pipeline.binding<storage_buffer>
    ]>) attributes {
      goiree.cpu_function = "sub_inplace",
      goiree.cpu_arguments = "memref",
      goiree.cpu_binding_types = [f32, f32],
      goiree.cpu_binding_sizes = [0, 0],
      goiree.cpu_constant_types = [index]
    } {
    ^bb0(%device: !hal.device, %n: index):
      %tiles = affine.apply affine_map<()[s0] -> (s0 ceildiv 32)>()[%n]
      %one = arith.constant 1 : index
      hal.return %tiles, %one, %one : index, index, index
    }
  }

  func.func @run(%a: tensor<?x?xf32>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = tensor.dim %a, %c0 : tensor<?x?xf32>
    %cols = tensor.dim %a, %c1 : tensor<?x?xf32>
    %cols_i32 = arith.index_cast %cols : index to i32
    %bias = arith.constant 0.5 : f32
    %scaled = flow.dispatch @kernels::@scale_rows_dispatch[%rows, %cols](%cols_i32, %bias, %a, %s) : (i32, f32, tensor<?x?xf32>{%rows, %cols}, tensor<?xf32>{%cols}) -> tensor<?x?xf32>{%rows, %cols}
    %n = arith.muli %rows, %cols : index
    %n_i32 = arith.index_cast %n : index to i32
    // The kernel sees the row-major buffers as n elements.
    %result = flow.dispatch @kernels::@sub_inplace_dispatch[%n](%n_i32, %a, %scaled) : (i32, tensor<?x?xf32>{%rows, %cols}, tensor<?x?xf32>{%rows, %cols}) -> %scaled{%rows, %cols}
    return %result : tensor<?x?xf32>
  }
}
