// Package llvmcpu is the CPU back end: it turns a llvm-cpu
// hal.executable.variant into a freestanding x86-64 shared ELF that
// implements the runtime's CPU executable ABI
// (runtime/hal/local/executable_library.h).
//
// GenerateC translates the variant's builtin.module to self-contained C:
// every hal.executable.export becomes an entry point
// `int fn(environment, dispatch_state, workgroup_state)` built from the
// shim function of the same name (hal.interface.constant.load,
// hal.interface.workgroup.*, hal.interface.binding.subspan, stream-style
// !stream.binding arguments, affine.apply, arith, math,
// iree_codegen.extract_strided_metadata, and func.call to body-less
// declarations using MLIR's memref calling convention or llvm.bareptr), or
// from a compiler-generated elementwise kernel (see ElementwiseAttr). The
// library tables (header, import names, export pointers, names and
// attributes) and the query function follow.
//
// A declaration with hal.import.static is linked from the variant's
// objects. Any other is an import resolved at run time against the loaded
// executable plugins: it is listed in the library's import table (sorted;
// hal.import.name may rename it) and called as IREE's CPU backend calls
// imports, through the environment's import thunk with a pointer to a
// struct of its results, its arguments (as the C values the calling
// convention gives) and the hal.import.fields values ("processor_id",
// "processor_data"), in that order and naturally aligned.
//
// Build compiles that C with clang and links it with the variant's objects
// (path objects in place, data objects through temporary files) by ld.lld
// into the shared object that the runtime's ELF loader maps.
//
// A row group (loopnest.GroupAttr: a softmax's or layer norm's chain of
// row reductions and their consumer in one dispatch) becomes one entry
// in which each workgroup runs the stages on its rows one row at a time,
// keeping each row's intermediate results in locals (group.go); its row
// reductions are split and vectorized as the loop nests' are.
//
// Each generated entry (elementwise kernels, loop nests and row groups)
// records the configuration it was generated with, pipeline, workgroup
// size and tile sizes (config.go), as a line of the library's
// non-allocated .goiree.config section, which iree-dump-module prints
// without running the library.
package llvmcpu
