// One workgroup per element: the shim computes scalar values (arith,
// affine.apply, affine.min and affine.max) from the
// workgroup id, count and constants and stores them with store_i64.
#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#l = #hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer>]>
module {
  hal.executable private @ops {
    hal.executable.variant public @x86_64 target(#t) objects([#hal.executable.object<{path = "store.o"}>]) {
      hal.executable.export public @compute ordinal(0) layout(#l) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %n, %c1, %c1 : index, index, index
      }
      builtin.module {
        func.func private @store_i64(memref<?xi64>, index, i64) attributes {hal.import.static}
        func.func @compute() {
          %c0 = arith.constant 0 : index
          %k = hal.interface.constant.load layout(#l) ordinal(0) : i32
          %f = hal.interface.constant.load layout(#l) ordinal(1) : f32
          %id = hal.interface.workgroup.id[0] : index
          %count = hal.interface.workgroup.count[0] : index
          %out = hal.interface.binding.subspan layout(#l) binding(0) alignment(64) offset(%c0) : memref<?xi64>{%count}
          // a = (id * 7 - 10) floordiv 3 + id mod 4 - count ceildiv 2
          %a = affine.apply affine_map<(d0)[s0] -> ((d0 * 7 - 10) floordiv 3 + d0 mod 4 - s0 ceildiv 2)>(%id)[%count]
          %a64 = arith.index_cast %a : index to i64
          %id32 = arith.index_cast %id : index to i32
          %r = arith.remsi %id32, %k : i32
          %neg = arith.subi %r, %k : i32
          %lt = arith.cmpi slt, %id32, %k : i32
          %sel = arith.select %lt, %r, %neg : i32
          %sh = arith.shli %sel, %k : i32
          %sh64 = arith.extsi %sh : i32 to i64
          %c1000 = arith.constant 1000 : i64
          %hi = arith.muli %sh64, %c1000 : i64
          %idf = arith.sitofp %id32 : i32 to f32
          %pf = arith.mulf %idf, %f : f32
          %pi = arith.fptosi %pf : f32 to i64
          %c1000000 = arith.constant 1000000 : i64
          %pm = arith.muli %pi, %c1000000 : i64
          %s1 = arith.addi %a64, %hi : i64
          %s2 = arith.addi %s1, %pm : i64
          // mn = min(count - id, 4, id * 2), mx = max(id - 5, 2)
          %mn = affine.min affine_map<(d0)[s0] -> (s0 - d0, 4, d0 * 2)>(%id)[%count]
          %mx = affine.max affine_map<(d0) -> (d0 - 5, 2)>(%id)
          %mn64 = arith.index_cast %mn : index to i64
          %mx64 = arith.index_cast %mx : index to i64
          %c1e9 = arith.constant 1000000000 : i64
          %c1e11 = arith.constant 100000000000 : i64
          %mnm = arith.muli %mn64, %c1e9 : i64
          %mxm = arith.muli %mx64, %c1e11 : i64
          %s3 = arith.addi %s2, %mnm : i64
          %s4 = arith.addi %s3, %mxm : i64
          func.call @store_i64(%out, %id, %s4) : (memref<?xi64>, index, i64) -> ()
          return
        }
      }
    }
  }
}
