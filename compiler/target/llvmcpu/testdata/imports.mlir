// Dispatch functions that call imports resolved at run time (declared
// without hal.import.static): packed parameters, hal.import.fields, a
// result, and two declarations sharing one import through hal.import.name.

#x86_64_target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "x86_64-none-elf"}>

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @imports {
  hal.executable.variant public @x86_64 target(#x86_64_target) {
    hal.executable.export public @run ordinal(0) layout(#layout) count(%device: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func private @zeta_fill(%tag: i32, %out: memref<f32>, %n: index, %k: f32) -> i32 attributes {
        hal.import.fields = ["processor_id", "processor_data"],
        llvm.bareptr = true
      }
      func.func private @alpha_descriptor(memref<?xf32>)
      func.func private @alpha_alias(memref<?xf32>) attributes {hal.import.name = "alpha_descriptor"}
      func.func @run() {
        %c0 = arith.constant 0 : index
        %n_i32 = hal.interface.constant.load layout(#layout) ordinal(0) : i32
        %n = arith.index_castui %n_i32 : i32 to index
        %tag = arith.constant 7 : i32
        %k = arith.constant 2.5 : f32
        %m = hal.interface.binding.subspan layout(#layout) binding(0) : memref<?xf32>{%n}
        %base, %off, %size, %stride = iree_codegen.extract_strided_metadata %m : memref<?xf32> -> memref<f32>, index, index, index
        %r = func.call @zeta_fill(%tag, %base, %n, %k) : (i32, memref<f32>, index, f32) -> i32
        func.call @alpha_descriptor(%m) : (memref<?xf32>) -> ()
        func.call @alpha_alias(%m) : (memref<?xf32>) -> ()
        return
      }
    }
  }
}
