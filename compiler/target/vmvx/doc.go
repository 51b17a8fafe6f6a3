// Package vmvx is the vmvx target, IREE's portable reference backend: it
// compiles a vmvx hal.executable.variant
// (#hal.executable.target<"vmvx", "vmvx-bytecode-fb">) into a VM bytecode
// module that the local devices (local-sync, local-task) interpret, so a
// program runs on any host with no C toolchain.
//
// It compiles the kernels the compiler generates: elementwise dispatches
// (the compiler/elementwise contract) and loop-nest dispatches (the
// compiler/loopnest contract: parallel and reduction loops, indexing
// maps with linear and constant indices, inits, partial outputs, scalar
// push constants, indexed inputs (the body's tensor.extract loads from the
// binding's buffer at its computed offset), dynamic dimensions and every
// out-of-bounds check the contract asks for). Hand-written dispatch functions and executable
// objects are llvm-cpu's business and are refused with an error.
//
// Each export becomes an exported VM function with the ABI described in
// runtime/hal/local/vmvx: bindings as vm.buffer refs, push constants as
// i32s, then the workgroup id and count (x, y, z) as i32s; it runs one
// workgroup per call. The kernel's scalar body is inlined in its loops;
// values live in registers as emit.go describes (f16 and bf16 computed in
// f64 and rounded once per op, f32 math functions in f64). Each binding's
// byte offset lives in a register per loop level, stepped by the loop's
// coefficient; a body acc + x * y (f32, f64) runs its innermost reduction
// loop as one buffer.dot instruction, in order; other associative
// reductions longer than 1024 steps go pairwise as on llvm-cpu; epilogues
// run on each finished accumulator. A failed check ends the call with the
// VM's fail instruction (OUT_OF_RANGE), naming the kernel and the check.
// Integer division by zero gives 0 (a remainder the
// dividend) and shifts by the width or more give 0 (or the sign), as on
// the llvm-cpu target.
//
// --iree-hal-dump-executable-sources-to writes each module's disassembly
// (.vmasm), --iree-hal-dump-executable-binaries-to the module (.vmfb).
package vmvx
