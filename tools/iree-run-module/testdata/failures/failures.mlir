// Programs for the failure tests (failures_test.go): a dispatch whose
// workgroup count comes from an argument, and kernels that fault in
// workgroup 2. The kernels are plain C functions in kernels.c, which
// iree-compile compiles itself.

#x86 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>
#device = #hal.device.target<"llvm-cpu", {executable_targets = [#x86]}>

module @failures attributes {hal.device.targets = [#device]} {
  // Runs count_workgroups over (n, 1, 1) workgroups and returns how many
  // ran, added to the counter passed in.
  func.func @count(%n: i64, %counter: tensor<1xi32>) -> tensor<1xi32> {
    %w = arith.index_cast %n : i64 to index
    %r = hal.dispatch.extern "count"[%w](%counter) : (tensor<1xi32>) -> %counter
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %one = arith.constant 1 : index
        hal.return %workload, %one, %one : index, index, index
      }
      layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
      objects({#x86 ordinal(0) = [#hal.executable.object<{path = "kernels.c"}>]})
      attributes {goiree.cpu_function = "count_workgroups"}
    return %r : tensor<1xi32>
  }

  func.func @write_null(%in: tensor<4xi64>) -> tensor<4xi64> {
    %c4 = arith.constant 4 : index
    %r = hal.dispatch.extern "null_store"[%c4](%in) : (tensor<4xi64>) -> tensor<4xi64>
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %one = arith.constant 1 : index
        hal.return %workload, %one, %one : index, index, index
      }
      layout(#hal.pipeline.layout<bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({#x86 ordinal(0) = [#hal.executable.object<{path = "kernels.c"}>]})
      attributes {goiree.cpu_function = "write_null"}
    return %r : tensor<4xi64>
  }

  func.func @divide(%in: tensor<4xi32>) -> tensor<4xi32> {
    %c4 = arith.constant 4 : index
    %r = hal.dispatch.extern "div_zero"[%c4](%in) : (tensor<4xi32>) -> tensor<4xi32>
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %one = arith.constant 1 : index
        hal.return %workload, %one, %one : index, index, index
      }
      layout(#hal.pipeline.layout<bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({#x86 ordinal(0) = [#hal.executable.object<{path = "kernels.c"}>]})
      attributes {goiree.cpu_function = "divide"}
    return %r : tensor<4xi32>
  }

  func.func @trap(%in: tensor<4xi32>) -> tensor<4xi32> {
    %c4 = arith.constant 4 : index
    %r = hal.dispatch.extern "illegal"[%c4](%in) : (tensor<4xi32>) -> tensor<4xi32>
      count(%device: !hal.device, %workload: index) -> (index, index, index) {
        %one = arith.constant 1 : index
        hal.return %workload, %one, %one : index, index, index
      }
      layout(#hal.pipeline.layout<bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
      objects({#x86 ordinal(0) = [#hal.executable.object<{path = "kernels.c"}>]})
      attributes {goiree.cpu_function = "trap"}
    return %r : tensor<4xi32>
  }
}
