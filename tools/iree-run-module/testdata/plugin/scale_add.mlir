// Dispatches whose kernels come from executable plugins at run time: the
// functions are declared without hal.import.static, so the compiler calls
// them through the executable's import table and iree-run-module resolves
// them against --executable_plugin files (the test plugins of
// runtime/hal/local/plugin/plugintest).
//
// @scale_add_tiles: out = a * k + b (+ 1000 from the system test plugin),
//   64 elements per workgroup.
// @missing: calls an import no plugin provides.
// @failing: calls an import that returns 17.

module @plugin_test {
  stream.executable private @scale_add_exe {
    stream.executable.export public @scale_add_tiles workgroups(%n: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%n]
      %c1 = arith.constant 1 : index
      stream.return %x, %c1, %c1 : index, index, index
    }
    builtin.module {
      // The parameter struct: i32, 4 bytes of padding, three pointers,
      // two 64-bit integers, f32, then the requested fields (u32, pointer).
      func.func private @scale_add(%tag: i32, %a: memref<f32>, %b: memref<f32>, %out: memref<f32>,
                                   %offset: index, %count: index, %k: f32) attributes {
        hal.import.fields = ["processor_id", "processor_data"],
        llvm.bareptr = true
      }
      func.func @scale_add_tiles(%a: !stream.binding, %b: !stream.binding, %out: !stream.binding, %n: index, %k: f32) {
        %c0 = arith.constant 0 : index
        %c64 = arith.constant 64 : index
        %tag = arith.constant 1234 : i32
        %wid = stream.dispatch.workgroup.id[0] : index
        %offset = arith.muli %wid, %c64 : index
        %rest = arith.subi %n, %offset : index
        %count = arith.minsi %rest, %c64 : index
        %ma = stream.binding.subspan %a[%c0] : !stream.binding -> memref<?xf32>{%n}
        %mb = stream.binding.subspan %b[%c0] : !stream.binding -> memref<?xf32>{%n}
        %mo = stream.binding.subspan %out[%c0] : !stream.binding -> memref<?xf32>{%n}
        %ba, %oa, %sa, %ta = iree_codegen.extract_strided_metadata %ma : memref<?xf32> -> memref<f32>, index, index, index
        %bb, %ob, %sb, %tb = iree_codegen.extract_strided_metadata %mb : memref<?xf32> -> memref<f32>, index, index, index
        %bo, %oo, %so, %to = iree_codegen.extract_strided_metadata %mo : memref<?xf32> -> memref<f32>, index, index, index
        func.call @scale_add(%tag, %ba, %bb, %bo, %offset, %count, %k)
            : (i32, memref<f32>, memref<f32>, memref<f32>, index, index, f32) -> ()
        return
      }
    }
  }

  stream.executable private @missing_exe {
    stream.executable.export public @call_missing workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func private @not_in_any_plugin(%x: memref<f32>) attributes {llvm.bareptr = true}
      func.func @call_missing(%out: !stream.binding) {
        %c0 = arith.constant 0 : index
        %m = stream.binding.subspan %out[%c0] : !stream.binding -> memref<4xf32>
        %base, %off, %size, %stride = iree_codegen.extract_strided_metadata %m : memref<4xf32> -> memref<f32>, index, index, index
        func.call @not_in_any_plugin(%base) : (memref<f32>) -> ()
        return
      }
    }
  }

  stream.executable private @failing_exe {
    stream.executable.export public @call_failing workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func private @fail_always()
      func.func @call_failing(%out: !stream.binding) {
        func.call @fail_always() : () -> ()
        return
      }
    }
  }

  func.func @scale_add(%a: tensor<?xf32>, %b: tensor<?xf32>, %k: f32) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %0 = flow.dispatch @scale_add_exe::@scale_add_tiles[%n](%a, %b, %n, %k) : (tensor<?xf32>{%n}, tensor<?xf32>{%n}, index, f32) -> tensor<?xf32>{%n}
    return %0 : tensor<?xf32>
  }

  func.func @missing() -> tensor<4xf32> {
    %0 = flow.dispatch @missing_exe::@call_missing() : () -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }

  func.func @failing() -> tensor<4xf32> {
    %0 = flow.dispatch @failing_exe::@call_failing() : () -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
